"""``%%apply_patch`` cells edit as a patch, in a real JupyterLab and Notebook 7: the prebuilt
extension (labextension/, shipped as share/jupyter/labextensions/applypatch-ext) is loaded, a
patch typed with the keyboard keeps its lines unindented where a Python cell auto-indents, the
lines are highlighted by kind, and the typed patch applies to the file on disk."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import JupyterServer, PageWatch
from .pages import (
    NOTEBOOK7_OWN_ERRORS,
    WIDGET,
    expect,
    open_lab_notebook,
    open_nb7_notebook,
    run_lab_cells,
    run_nb7_cells,
    set_lab_theme,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

PLUGIN = "applypatch-ext:patch-cells"
PATCH_MIME = "text/x-codex-patch"
# What the keyboard types, line by line (Enter between two lines): the first line after
# `@@ def f():` is where a Python editor indents.
TYPED = [
    "%%apply_patch --stream-chunk 0",
    "*** Begin Patch",
    "*** Update File: f.py",
    "@@ def f():",
    "-    return 1",
    "+    return 2",
    "*** End Patch",
]
# The cells' state, read from the notebook widget the page shows (JupyterLab: the panel of
# ``path``; Notebook 7: its only document).
CELLS = """(path) => {
    const app = window.jupyterapp;
    const panel = path
        ? [...app.shell.widgets('main')].find(w => w.context?.path === path)
        : app.shell.currentWidget;
    return panel.content.widgets.map(cell => ({
        source: cell.model.sharedModel.getSource(),
        mime: cell.model.mimeType,
    }));
}"""
PLUGIN_ACTIVE = "(id) => window.jupyterapp.isPluginActivated(id)"


def type_lines(page: Page, editor: Locator, lines: list[str]) -> None:
    """Click into a cell's editor and type ``lines`` with the keyboard, Enter between them."""
    editor.click()
    for i, line in enumerate(lines):
        if i:
            page.keyboard.press("Enter")
        page.keyboard.type(line)


def check_typed_patch(
    page: Page, cells: Locator, path: str | None, python_mime: str = "text/x-ipython"
) -> None:
    """Cell 1 gets the patch, cell 2 Python (the control: there Enter indents); a Python cell
    is ``python_mime`` (the kernel's: JupyterLite's Pyodide kernel says text/x-python)."""
    type_lines(page, cells.nth(1).locator(".cm-content"), TYPED)
    type_lines(page, cells.nth(2).locator(".cm-content"), ["def g():", "return 1"])

    state = page.evaluate(CELLS, path)
    assert state[1]["source"] == "\n".join(TYPED)
    assert state[1]["mime"] == PATCH_MIME
    # the same keys in a Python cell indent after the colon: the patch cell is what differs
    assert state[2]["source"] == "def g():\n    return 1"
    assert state[2]["mime"] == python_mime

    # each line highlighted by its kind, in the order typed
    patch_lines = cells.nth(1).locator(".cm-line")
    expect(patch_lines).to_have_count(len(TYPED))
    kinds = ["magic", "marker", "file", "hunk", "del", "add", "marker"]
    for i, kind in enumerate(kinds):
        expect(patch_lines.nth(i)).to_have_class(re.compile(rf"\bapplypatch-cm-{kind}\b"))
    expect(cells.nth(2).locator(".applypatch-cm-line")).to_have_count(0)


def check_applied(root: Path, panel: Locator) -> None:
    widget = panel.locator(WIDGET)
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    assert (root / "f.py").read_text() == "def f():\n    return 2\n"


def test_patch_cell_typed_in_jupyterlab(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    (jupyter_lab.root / "f.py").write_text("def f():\n    return 1\n")
    saved = "%%apply_patch\n*** Begin Patch\n*** Update File: g.py\n@@ def g():\n"
    name = jupyter_lab.write_notebook("typed.ipynb", ["%load_ext applypatch_ext", "", "", saved])
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    assert page.evaluate(PLUGIN_ACTIVE, PLUGIN)
    cells = panel.locator(".jp-Cell")
    # a saved patch cell is a patch once opened (the kernel's language came after it)
    expect(cells.nth(3).locator(".cm-line.applypatch-cm-hunk")).to_have_count(1)
    assert page.evaluate(CELLS, name)[3] == {"source": saved, "mime": PATCH_MIME}
    check_typed_patch(page, cells, name)
    cells.nth(1).screenshot(path=str(artifacts_dir / "patch-cell.png"))
    set_lab_theme(page, "JupyterLab Dark")
    cells.nth(1).screenshot(path=str(artifacts_dir / "patch-cell-dark.png"))
    set_lab_theme(page, "JupyterLab Light")

    # the magic's line removed: the cell is Python again; typed back: a patch again
    state = page.evaluate(CELLS, name)
    editor = cells.nth(1).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Delete")
    expect(cells.nth(1).locator(".applypatch-cm-line")).to_have_count(0)
    assert page.evaluate(CELLS, name)[1]["mime"] == "text/x-ipython"
    page.keyboard.type("%")
    assert page.evaluate(CELLS, name)[1] == state[1]

    run_lab_cells(page, name, [0, 1])
    check_applied(jupyter_lab.root, panel)
    watch.check()


def test_patch_cell_typed_in_notebook7(
    page: Page, jupyter_notebook7: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    (jupyter_notebook7.root / "f.py").write_text("def f():\n    return 1\n")
    name = jupyter_notebook7.write_notebook("typed7.ipynb", ["%load_ext applypatch_ext", "", ""])
    panel = open_nb7_notebook(page, jupyter_notebook7.url, name)
    assert page.evaluate(PLUGIN_ACTIVE, PLUGIN)
    check_typed_patch(page, panel.locator(".jp-Cell"), None)
    panel.locator(".jp-Cell").nth(1).screenshot(path=str(artifacts_dir / "patch-cell-nb7.png"))
    run_nb7_cells(page, [0, 1])
    check_applied(jupyter_notebook7.root, panel)
    watch.check(known=NOTEBOOK7_OWN_ERRORS)
