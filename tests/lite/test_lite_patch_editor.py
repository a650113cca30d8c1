"""``%%apply_patch`` cells edit as a patch in the offline JupyterLite site too: the site ships
the package's own labextension (the wheel the kernel installs, given to ``jupyter lite build``),
so a patch typed with the keyboard keeps ``-    return 1`` unindented after ``@@ def f():``
(where a Python cell auto-indents, and the patch then failed with "Failed to find expected
lines"), and the typed patch applies in the site's Pyodide kernel. The same typing as
tests/jupyter/test_patch_editor.py does in JupyterLab and Notebook 7."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..jupyter.pages import LAB_KERNEL_READY, LAB_PANEL, WIDGET, expect, run_lab_cells
from ..jupyter.test_patch_editor import PLUGIN, PLUGIN_ACTIVE, check_typed_patch
from .conftest import ROOT, SiteWatch
from .test_lite_browser import check_clean, expose_app

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

pytestmark = pytest.mark.browser

LABEXTENSION = ROOT / "applypatch_ext" / "labextension"
NAME = "typed.ipynb"
# Files written into the site's own storage (the browser's), where its kernel reads and writes.
SAVE = """async ([path, model]) => {
    await window.jupyterapp.serviceManager.contents.save(path, model);
}"""
READ = """async (path) =>
    (await window.jupyterapp.serviceManager.contents.get(path, {content: true})).content"""


def notebook(sources: list[str]) -> dict[str, object]:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python", "display_name": "Python (Pyodide)"},
            "language_info": {"name": "python"},
        },
        "cells": [
            {
                "cell_type": "code",
                "id": f"c{i}",
                "source": source,
                "metadata": {},
                "outputs": [],
                "execution_count": None,
            }
            for i, source in enumerate(sources)
        ],
    }


def test_the_site_ships_the_packages_labextension(lite_site: Path) -> None:
    shipped = lite_site / "extensions" / "applypatch-ext"
    assert (shipped / "package.json").is_file(), "the site has no applypatch-ext labextension"
    # byte for byte the package's own copy (what the wheel installs for JupyterLab)
    own = sorted(p.relative_to(LABEXTENSION) for p in LABEXTENSION.rglob("*") if p.is_file())
    assert own and all(
        (shipped / rel).read_bytes() == (LABEXTENSION / rel).read_bytes() for rel in own
    )
    config = json.loads((lite_site / "jupyter-lite.json").read_text())
    names = [e["name"] for e in config["jupyter-config-data"]["federated_extensions"]]
    assert "applypatch-ext" in names


def test_patch_cell_typed_in_jupyterlite(
    page: Page, context: BrowserContext, lite_url: str
) -> None:
    watch = SiteWatch(context, page)
    expose_app(context, lite_url)
    page.goto(f"{lite_url}/lab/index.html")
    # once the layout is restored, nothing else takes the notebook's place as it opens
    page.wait_for_function("() => window.jupyterapp?.serviceManager", timeout=120_000)
    page.evaluate("async () => { await window.jupyterapp.restored; }")
    file = {"type": "file", "format": "text", "content": "def f():\n    return 1\n"}
    page.evaluate(SAVE, ["f.py", file])
    cells = ["%load_ext applypatch_ext", "", ""]
    page.evaluate(SAVE, [NAME, {"type": "notebook", "format": "json", "content": notebook(cells)}])
    # the command's value (the opened panel) is not sent back: it cannot be serialised
    page.evaluate(
        "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        NAME,
    )
    # the first start loads Pyodide and ~25 wheels into the worker
    page.wait_for_function(LAB_KERNEL_READY, arg=NAME, timeout=180_000, polling=200)
    assert page.evaluate(PLUGIN_ACTIVE, PLUGIN)
    panel = page.locator(LAB_PANEL)
    check_typed_patch(page, panel.locator(".jp-Cell"), NAME, python_mime="text/x-python")
    run_lab_cells(page, NAME, [0, 1])
    widget = panel.locator(WIDGET)
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=60_000)
    assert page.evaluate(READ, "f.py") == "def f():\n    return 2\n"
    check_clean(watch)
