"""The layers hold: the core imports only the standard library, its floors import downward only
(parse <- apply <- turn <- agents, with errors/text/interrupts shared by all of them), and the
package import stays light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import applypatch_ext

CORE = Path(applypatch_ext.__file__).parent / "core"
JUPYTER_MODULES = ("IPython", "ipywidgets", "anywidget", "traitlets", "comm", "ipykernel")
#: The floors of the core, lowest first: a module may import from its own floor and the ones below.
#: The modules directly in ``core/`` (errors, text, interrupts) are the ground of every floor.
FLOORS = ("", "parse", "apply", "turn", "agents")


def core_modules() -> dict[str, Path]:
    """Every module of the core by dotted name (packages by their ``__init__``)."""
    modules = {}
    for path in sorted(CORE.rglob("*.py")):
        parts = path.relative_to(CORE.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def imported_names(name: str, path: Path) -> list[str]:
    """The absolute names a module imports (relative imports resolved; ``from . import x`` gives
    the submodule ``x`` when it is one)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append(node.module or "")
                continue
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            module = ".".join([*base, node.module] if node.module else base)
            found.append(module)
            if node.module is None:
                found += [f"{module}.{alias.name}" for alias in node.names]
    return found


def floor_of(module: str) -> int:
    """The floor of a core module: 0 for the shared ground, then parse, apply, turn, agents."""
    parts = module.split(".")
    sub = parts[2] if len(parts) > 3 or (len(parts) == 3 and parts[2] in FLOORS) else ""
    return FLOORS.index(sub)


def _loaded_after(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.split())


def test_core_loads_no_jupyter_module() -> None:
    loaded = _loaded_after("\n".join(f"import {m}" for m in core_modules()))
    assert "applypatch_ext.core.agents.rollout" in loaded  # the sub-packages were imported too
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}
    assert not {m for m in loaded if m.startswith("applypatch_ext.jupyter")}


def test_core_imports_only_the_standard_library() -> None:
    modules = core_modules()
    assert {"applypatch_ext.core.parse.parser", "applypatch_ext.core.agents.replay"} <= set(modules)
    outside = [
        (name, imported)
        for name, path in modules.items()
        for imported in imported_names(name, path)
        if not imported.startswith("applypatch_ext.core")
        and imported.split(".")[0] not in sys.stdlib_module_names
        and imported != "__future__"
    ]
    assert not outside, f"the core imports only the standard library and itself: {outside}"


def test_floors_import_downward_only() -> None:
    modules = core_modules()
    upward = [
        f"{name} ({FLOORS[floor_of(name)] or 'core'}) imports {imported}"
        f" ({FLOORS[floor_of(imported)] or 'core'})"
        for name, path in modules.items()
        for imported in imported_names(name, path)
        if imported.startswith("applypatch_ext.core.") and floor_of(imported) > floor_of(name)
    ]
    assert not upward, "parse <- apply <- turn <- agents: " + "; ".join(upward)


@pytest.mark.parametrize(
    ("module", "floor"),
    [
        ("applypatch_ext.core.errors", 0),
        ("applypatch_ext.core.interrupts", 0),
        ("applypatch_ext.core.parse", 1),
        ("applypatch_ext.core.parse.streaming", 1),
        ("applypatch_ext.core.apply.verify", 2),
        ("applypatch_ext.core.turn.turn", 3),
        ("applypatch_ext.core.agents.replay", 4),
    ],
)
def test_floor_of_names_the_floor(module: str, floor: int) -> None:
    assert floor_of(module) == floor


def test_imported_names_resolve_relative_imports() -> None:
    modules = core_modules()
    verify = "applypatch_ext.core.apply.verify"
    names = imported_names(verify, modules[verify])
    assert "applypatch_ext.core.errors" in names  # from ..errors import ...
    assert "applypatch_ext.core.parse.model" in names  # from ..parse.model import ...
    assert "applypatch_ext.core.apply.fs" in names  # from .fs import ...


def test_package_import_is_lazy() -> None:
    loaded = _loaded_after("import applypatch_ext")
    assert "applypatch_ext.core.apply.runtime" not in loaded
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}


def test_public_names_resolve() -> None:
    for name in applypatch_ext.__all__:
        assert getattr(applypatch_ext, name) is not None
