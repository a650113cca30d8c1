"""The core imports only the standard library; the package import stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import applypatch_ext

CORE = Path(applypatch_ext.__file__).parent / "core"
JUPYTER_MODULES = ("IPython", "ipywidgets", "anywidget", "traitlets", "comm", "ipykernel")


def _loaded_after(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.split())


def test_core_loads_no_jupyter_module() -> None:
    modules = [f"applypatch_ext.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__"]
    loaded = _loaded_after("\n".join(f"import {m}" for m in modules))
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}


def test_core_imports_only_the_standard_library() -> None:
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (path, name)


def test_package_import_is_lazy() -> None:
    loaded = _loaded_after("import applypatch_ext")
    assert "applypatch_ext.core.apply.runtime" not in loaded
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}


def test_public_names_resolve() -> None:
    for name in applypatch_ext.__all__:
        assert getattr(applypatch_ext, name) is not None
