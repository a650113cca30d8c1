"""A saved notebook, reopened after its kernel is gone, shows every call's result, in a real
JupyterLab and a real Notebook 7 (Chromium): each call's static record, never "Error displaying
widget"; nbconvert's HTML of the same file shows the records, diffs in a monospace font. While
the kernel lives, the live view hides its record, and the end of a call does not rebuild the
view (its DOM node survives the final update)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from applypatch_ext.jupyter.vocabulary import status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import (
    LAB_KERNEL_READY,
    NB7_KERNEL_READY,
    NB7_PANEL,
    WIDGET,
    expect,
    open_lab_notebook,
    open_nb7_notebook,
    run_lab_cells,
    run_nb7_cells,
)
from .test_notebook7 import NOTEBOOK7_OWN_ERRORS

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WAITING = status_meaning("awaiting-approval")["label"]
RECORD = ".applypatch-static"
STREAMED = "\n".join(
    [
        "*** Begin Patch",
        "*** Add File: streamed.py",
        *[f"+VALUE_{i} = {i}" for i in range(40)],
        "*** End Patch",
    ]
)
FAILING = "\n".join(
    ["*** Begin Patch", "*** Update File: missing.txt", "@@", "-a", "+b", "*** End Patch"]
)
ASKING = "\n".join(["*** Begin Patch", "*** Add File: asked.txt", "+yes", "*** End Patch"])
CLOSE_SECOND = """
import ipywidgets.widgets.widget as _w
from applypatch_ext.jupyter.widget import ApplyPatchWidget
_views = [w for w in _w._instances.values() if isinstance(w, ApplyPatchWidget)]
_views[1].close()
print("CLOSED", len(_views))
"""
CELLS = [
    "%load_ext applypatch_ext",
    f"%%apply_patch --stream-chunk 24 --stream-delay 0.08 --throttle-ms 100\n{STREAMED}",
    f"%%apply_patch --stream-chunk 0\n{FAILING}",
    f"%%apply_patch --approval-policy untrusted --stream-chunk 0\n{ASKING}",
    CLOSE_SECOND,
]
#: What each call's record says, in order.
FINAL = ["completed", "error", "waiting for approval"]

LAB_PANEL_JS = """(path) => [...window.jupyterapp.shell.widgets('main')]
    .find(w => w.context?.path === path)"""


def _saved(server: JupyterServer, name: str, calls: int = 3) -> dict[str, Any]:
    """The notebook file once it holds a final record for each call (saving is async)."""
    deadline = time.monotonic() + 30
    while True:
        nb: dict[str, Any] = json.loads((server.root / name).read_text())
        records = [
            o
            for cell in nb["cells"]
            for o in cell.get("outputs", [])
            if "record" in o.get("metadata", {}).get("applypatch_ext", {})
        ]
        plain = ["".join(o["data"]["text/plain"]) for o in records]
        if len(records) == calls and all(plain):
            return nb
        assert time.monotonic() < deadline, f"never saved with {calls} final records: {plain}"
        time.sleep(0.2)


def _check_saved_file(nb: dict[str, Any], final: list[str]) -> None:
    outputs = [o for cell in nb["cells"] for o in cell.get("outputs", [])]
    assert not [o for o in outputs if WIDGET_VIEW in o.get("data", {})], "a live view was saved"
    texts = ["".join(o["data"].get("text/plain", "")) for o in outputs if "data" in o]
    statuses = [t.splitlines()[0] for t in texts if t.startswith("apply_patch ")]
    assert len(statuses) == len(final) and all(
        word in line for word, line in zip(final, statuses, strict=True)
    ), statuses


def _check_reopened(panel: Locator, page: Page, final: list[str]) -> None:
    """Every call's record shows, in order; nothing says a widget is missing."""
    records = panel.locator(RECORD)
    expect(records).to_have_count(len(final), timeout=30_000)
    for i, word in enumerate(final):
        expect(records.nth(i)).to_be_visible()
        expect(records.nth(i)).to_contain_text(word)
    # the widget manager restores (and would complain) after the kernel connects: let it
    page.wait_for_timeout(1500)
    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    expect(page.get_by_text("Loading widget")).to_have_count(0)
    expect(panel.locator(WIDGET)).to_have_count(0)
    font = records.first.locator("details pre").first.evaluate(
        "(pre) => getComputedStyle(pre).fontFamily"
    )
    assert "mono" in font.lower(), font


def test_saved_notebook_reopens_in_lab_with_every_result(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    name = jupyter_lab.write_notebook("saved.ipynb", CELLS)
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    cell = panel.locator(".jp-Cell").nth(1)
    live = cell.locator(WIDGET)
    # mark the live view's DOM node while it streams
    expect(live.locator(".applypatch-current")).to_be_visible(timeout=30_000)
    live.evaluate("(el) => { el.__applypatchMark = 'streaming view'; }")
    # its record is in the output area, hidden while the view lives
    record = cell.locator("[data-applypatch-record]")
    expect(record).to_have_count(1)
    expect(record).to_be_hidden()
    status = live.get_by_test_id("applypatch-status")
    expect(status).to_have_text("completed", timeout=30_000)
    expect(cell.locator(".jp-InputPrompt")).to_have_text("[2]:", timeout=15_000)
    # the final update refreshed the record, not the view: the same node, still marked
    assert live.evaluate("(el) => el.__applypatchMark") == "streaming view"
    expect(live).to_have_count(1)
    expect(record).to_be_hidden()
    assert "completed" in record.evaluate("(r) => r.textContent")

    run_lab_cells(page, name, [2, 3])
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(3, timeout=30_000)
    expect(widgets.nth(1).get_by_test_id("applypatch-status")).to_have_text("error")
    expect(widgets.nth(2).get_by_test_id("applypatch-status")).to_have_text(WAITING, timeout=30_000)
    expect(panel.locator(f"{RECORD}:visible")).to_have_count(0)
    # a view that goes (its widget closed) shows its record again
    run_lab_cells(page, name, [4])
    expect(panel.locator(".jp-Cell").nth(4).locator(".jp-OutputArea-output")).to_have_text(
        "CLOSED 3", timeout=15_000
    )
    expect(widgets).to_have_count(2)
    second = panel.locator(".jp-Cell").nth(2).locator(RECORD)
    expect(second).to_be_visible()
    expect(second).to_contain_text("error")
    page.screenshot(path=str(artifacts_dir / "live.png"))

    # save, shut the kernel down, reopen
    page.evaluate(f"async (path) => {{ await ({LAB_PANEL_JS})(path).context.save(); }}", name)
    nb = _saved(jupyter_lab, name)
    _check_saved_file(nb, FINAL)
    page.evaluate(
        f"async (path) => {{ await ({LAB_PANEL_JS})(path).sessionContext.shutdown(); }}", name
    )
    page.goto(f"{jupyter_lab.url}/lab/tree/{name}?reset")
    page.wait_for_function(LAB_KERNEL_READY, arg=name, timeout=90_000, polling=100)
    reopened = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    _check_reopened(reopened, page, FINAL)
    diff = reopened.locator(RECORD).first.locator("details")
    expect(diff.first).to_contain_text("streamed.py")
    page.screenshot(path=str(artifacts_dir / "reopened.png"))
    reopened.locator(RECORD).nth(1).screenshot(path=str(artifacts_dir / "record-error.png"))
    watch.check()

    # nbconvert's HTML of the saved file: the records, monospace diffs, no widget
    html_path = artifacts_dir / "saved.html"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "nbconvert",
            "--to",
            "html",
            str(jupyter_lab.root / name),
            "--output",
            str(html_path.with_suffix("")),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    html = html_path.read_text()
    assert html.count('class="applypatch-static"') == 3
    assert "model not found" not in html
    assert f'<script type="{WIDGET_VIEW}">' not in html
    static = page.context.new_page()
    # offline: the template's CDN scripts (require.js, MathJax) are not fetched
    static.route(
        "**/*",
        lambda route: route.abort() if route.request.url.startswith("http") else route.continue_(),
    )
    static.goto(html_path.as_uri())
    pre = static.locator(f"{RECORD} details pre").first
    expect(pre).to_contain_text("+VALUE_0 = 0")
    narrow, wide = pre.evaluate(
        """(pre) => ['iiiiiiiiii', 'MMMMMMMMMM'].map((text) => {
            const probe = document.createElement('span');
            probe.textContent = text;
            pre.append(probe);
            const width = probe.getBoundingClientRect().width;
            probe.remove();
            return width;
        })"""
    )
    assert narrow == wide, (narrow, wide)  # a monospace font
    static.screenshot(path=str(artifacts_dir / "nbconvert.png"), full_page=True)
    static.close()


def test_saved_notebook_reopens_in_notebook7_with_every_result(
    page: Page, jupyter_notebook7: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    name = jupyter_notebook7.write_notebook("saved7.ipynb", CELLS[:4])
    open_nb7_notebook(page, jupyter_notebook7.url, name)
    run_nb7_cells(page, [0, 1, 2, 3])
    panel = page.locator(NB7_PANEL)
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(3, timeout=30_000)
    expect(widgets.nth(2).get_by_test_id("applypatch-status")).to_have_text(WAITING, timeout=30_000)
    expect(widgets.nth(0).get_by_test_id("applypatch-status")).to_have_text("completed")
    expect(panel.locator(f"{RECORD}:visible")).to_have_count(0)

    page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.context.save(); }")
    _check_saved_file(_saved(jupyter_notebook7, name), FINAL)
    page.evaluate(
        "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.shutdown(); }"
    )
    page.goto(f"{jupyter_notebook7.url}/notebooks/{name}")
    page.wait_for_function(NB7_KERNEL_READY, timeout=90_000, polling=100)
    _check_reopened(page.locator(NB7_PANEL), page, FINAL)
    page.screenshot(path=str(artifacts_dir / "reopened-notebook7.png"))
    watch.check(known=NOTEBOOK7_OWN_ERRORS)
