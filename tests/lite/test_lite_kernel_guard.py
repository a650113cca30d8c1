"""The JupyterLite kernel's own input transform, and the guard ``%load_ext`` installs on it.

``pyodide_kernel`` (the kernel of the site, from its wheel in ``build/lite``) tokenizes every
cell as Python before IPython sees it, outside any ``try``: a ``%%apply_patch`` cell whose patch
dedents to no enclosing level raises ``IndentationError`` there, and in the browser that cell
never ends (notebook 09's second call). Its ``litetransform`` module needs only IPython, so it
runs here, in CPython, whose tokenizer raises the same error.
"""

from __future__ import annotations

import asyncio
import json
import types
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.jupyter.magics.lite import guard_lite_kernel

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "09_notebook_files.ipynb"
PYPI = "extensions/@jupyterlite/pyodide-kernel-extension/static/pypi"


def lite_transform_manager(site: Path) -> Any:
    (wheel,) = (site / PYPI).glob("pyodide_kernel-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        source = archive.read("pyodide_kernel/litetransform.py").decode()
    module = types.ModuleType("litetransform")
    exec(compile(source, f"{wheel.name}/pyodide_kernel/litetransform.py", "exec"), vars(module))
    return module.LiteTransformerManager()


class LiteShell:
    """Where that kernel's shell keeps the manager: ``shell.kernel.lite_transform_manager``."""

    def __init__(self, manager: Any) -> None:
        self.kernel = types.SimpleNamespace(lite_transform_manager=manager)


def run(coroutine: Any) -> Any:
    """Run ``coroutine`` to its end in a loop of its own, on a thread: the browser tests of the
    same pytest run leave Playwright's event loop running on this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def bad_cell() -> str:
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    (cell,) = [c for c in cells if "".join(c["source"]).startswith("%%apply_patch bad")]
    return "".join(cell["source"]) + "\n"


def test_the_kernel_alone_cannot_take_the_cell(lite_site: Path) -> None:
    manager = lite_transform_manager(lite_site)
    with pytest.raises(IndentationError, match="unindent does not match"):
        run(manager.transform_cell(bad_cell()))


def test_guarded_cell_magics_pass_untouched(lite_site: Path) -> None:
    manager = lite_transform_manager(lite_site)
    shell = LiteShell(manager)
    assert guard_lite_kernel(shell) is True
    guarded = manager.do_token_transforms
    assert guard_lite_kernel(shell) is True and manager.do_token_transforms is guarded  # once
    cell = bad_cell()
    assert run(manager.transform_cell(cell)) == cell
    # Python cells still go through the kernel's transforms (and their errors, as before)
    assert run(manager.transform_cell("x = 1")) == "x = 1\n"
    with pytest.raises(IndentationError):
        run(manager.transform_cell("if x:\n        a = 1\n    b = 2\n"))


def test_other_kernels_are_left_alone() -> None:
    assert guard_lite_kernel(types.SimpleNamespace()) is False
    assert guard_lite_kernel(types.SimpleNamespace(kernel=types.SimpleNamespace())) is False
