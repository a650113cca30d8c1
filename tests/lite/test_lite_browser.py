"""The teaching notebooks in the offline JupyterLite site, in a real Chromium.

The site (``make lite``, see tools/build_lite.py) is served by a plain static server on
127.0.0.1 (no Jupyter server); the kernel is Pyodide in the page, with this package, IPython,
ipywidgets, anywidget and nbformat loaded from the site itself. Every teaching notebook runs
top to bottom there, asserts included: every code cell runs without an error, every widget
shows the status its case expects, the cells that cannot run in a browser (a process) say so in
one line, the waiting call of the tour resumes when its approval button is clicked, no request
leaves 127.0.0.1, and neither the console (the page's and the kernel worker's) nor the page has
an error.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.jupyter.vocabulary import status_meaning

from ..jupyter.pages import WIDGET, expect
from .conftest import SiteWatch

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
# The status words the widget ends in (applypatch_ext.jupyter.display.STATUS_TEXT's keys).
#: What the widget shows for each status (its words come from the vocabulary Python sends).
LABEL = {str(s): status_meaning(s)["label"] for s in CallStatus}
FINAL = re.compile("^(" + "|".join(re.escape(label) for label in LABEL.values()) + ")$")
# The tour's widgets, in order: first, second, pending (asks), approved, planned.
TOUR_STATUSES = [
    LABEL[s] for s in ("completed", "completed", "awaiting-approval", "completed", "dry-run")
]
# 04_failure_cases.ipynb's widgets, case by case (sections 1 to 12).
FAILURE_STATUSES = [
    LABEL[s]
    for s in (
        *("error", "error", "rejected", "declined"),  # 1-4: before begin, declined
        *("failed", "failed", "error", "failed"),  # 5: prefix, atomic; 6: pipeline; 7: move
        *("completed", "failed", "completed"),  # 8: good, bad (inexact), after
        *("completed", "failed", "failed"),  # 9: retry approved, refused, never asked
        *("completed", "failed", "cancelled"),  # 10: drift matches, no longer; 11
        *("declined", "error", "completed"),  # 12: the move alone, reject, fold
    )
]

# JupyterLite puts the application on `window` only when its page config says so; the test
# says so (in the response, the site itself is unchanged) to wait on the kernel and run cells.
EXPOSE_APP = "exposeAppInBrowser"
KERNEL_IDLE = """() => {
    const ctx = window.jupyterapp?.shell?.currentWidget?.sessionContext;
    const k = ctx?.session?.kernel;
    return !!(ctx?.isReady && k && k.status === 'idle' && k.connectionStatus === 'connected');
}"""
# Run All stops at a cell that fails: then the wait ends too (and ERRORS says which).
ALL_RAN = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const code = panel.content.widgets.filter((cell) => cell.model.type === 'code');
    const failed = code.some((cell) => cell.model.outputs.toJSON()
        .some((output) => output.output_type === 'error'));
    return panel.sessionContext.session.kernel.status === 'idle'
        && (failed || code.every((cell) => cell.model.executionCount !== null));
}"""
ERRORS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter((cell) => cell.model.type === 'code')
    .flatMap((cell, index) => cell.model.outputs.toJSON()
        .filter((output) => output.output_type === 'error')
        .map((output) => `cell ${index}: ${output.ename}: ${output.evalue}`))"""


def code_cells(name: str) -> list[str]:
    cells = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def expose_app(context: BrowserContext, base: str) -> None:
    def handle(route: Any) -> None:
        response = route.fetch()
        config = response.json()
        config["jupyter-config-data"][EXPOSE_APP] = "true"
        route.fulfill(response=response, json=config)

    context.route(f"{base}/jupyter-lite.json*", handle)


def run_all(page: Page, context: BrowserContext, base: str, name: str) -> Locator:
    """Open ``name`` in the site, run all its cells, wait until they all ran; the panel."""
    expose_app(context, base)
    page.goto(f"{base}/lab/index.html?path={name}")
    # The first start loads Pyodide and ~25 wheels into the worker.
    page.wait_for_function(KERNEL_IDLE, timeout=180_000, polling=200)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    panel = page.locator(PANEL)
    page.wait_for_function(ALL_RAN, timeout=300_000, polling=250)
    assert page.evaluate(ERRORS) == []
    prompts = panel.locator(".jp-CodeCell .jp-InputPrompt")
    expect(prompts).to_have_count(len(code_cells(name)))
    for index in range(len(code_cells(name))):
        expect(prompts.nth(index)).to_have_text(re.compile(r"\[\d+\]:"))
    return panel


def check_widgets(panel: Locator, name: str) -> list[str]:
    """Every ``%%apply_patch`` cell shows its widget, each in a final status; the statuses."""
    calls = [src for src in code_cells(name) if src.startswith("%%apply_patch")]
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(len(calls), timeout=30_000)
    statuses = []
    for index in range(len(calls)):
        status = widgets.nth(index).get_by_test_id("applypatch-status")
        expect(status).to_have_text(FINAL)
        statuses.append(status.inner_text())
    # no widget failed to render (ipywidgets shows its own error text instead of the view)
    expect(panel.get_by_text("Error displaying widget")).to_have_count(0)
    return statuses


def check_clean(watch: SiteWatch) -> None:
    assert watch.external == [], f"the site reached outside 127.0.0.1: {watch.external[:5]}"
    assert watch.failed == [], watch.failed
    assert watch.console_errors == [], watch.console_errors
    assert watch.page_errors == [], watch.page_errors


def test_tour_runs_in_the_browser(
    page: Page, context: BrowserContext, lite_url: str, artifacts_dir: Path
) -> None:
    started = time.monotonic()
    watch = SiteWatch(context, page)
    panel = run_all(page, context, lite_url, "01_tour.ipynb")
    assert check_widgets(panel, "01_tour.ipynb") == TOUR_STATUSES
    widgets = panel.locator(WIDGET)
    first = widgets.nth(0)
    first.get_by_test_id("applypatch-turn-diff").locator("summary").first.click()  # closed at first
    expect(first.get_by_test_id("applypatch-turn-diff")).to_contain_text("hello.py")
    expect(first.get_by_test_id("applypatch-delta")).to_contain_text("lib/util.py")
    # each call's static record, an output of its own beside the live view (saved with the
    # notebook; the live view hides it)
    fallback = page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.widgets
            .filter((cell) => cell.model.type === 'code')
            .flatMap((cell) => cell.model.outputs.toJSON())
            .filter((o) => ((o.metadata || {}).applypatch_ext || {}).record)
            .map((o) => [o.data['text/plain'] || '', o.data['text/html'] || ''])"""
    )
    assert len(fallback) == len(TOUR_STATUSES)
    assert all(text and html for text, html in fallback)
    assert "hello.py" in fallback[0][0]

    # the waiting call shows its buttons, and a click resumes it (Pyodide runs it on)
    asking = widgets.nth(2)
    for testid in ("applypatch-approve", "applypatch-approve-session", "applypatch-decline"):
        expect(asking.get_by_test_id(testid)).to_be_enabled()
    expect(asking.locator(".applypatch-approval")).to_contain_text("pending.txt")
    status = asking.get_by_test_id("applypatch-status")
    approve = asking.get_by_test_id("applypatch-approve")
    clicks = 0
    # Approving a write outside the sandbox may be followed by a second question (the retry
    # without the sandbox): answer each question that shows up, three at most.
    while status.inner_text() != LABEL["completed"] and clicks < 3:
        if approve.count() == 1 and approve.is_enabled():
            approve.click()
            clicks += 1
        expect(status).to_have_text(
            re.compile(f"{LABEL['completed']}|{re.escape(LABEL['awaiting-approval'])}")
        )
        page.wait_for_timeout(300)
    expect(status).to_have_text(LABEL["completed"])
    assert clicks >= 1
    page.screenshot(path=str(artifacts_dir / "lite-tour.png"), full_page=True)
    check_clean(watch)
    print(f"\n[lite tour] {time.monotonic() - started:.1f}s")


def test_failure_cases_run_in_the_browser(
    page: Page, context: BrowserContext, lite_url: str, artifacts_dir: Path
) -> None:
    started = time.monotonic()
    watch = SiteWatch(context, page)
    panel = run_all(page, context, lite_url, "04_failure_cases.ipynb")
    # the notebook provokes failures: each shows as such, in the order of its cases (section 5's
    # second call is the atomic transaction, rolled back with its journal in Pyodide's memory)
    assert check_widgets(panel, "04_failure_cases.ipynb") == FAILURE_STATUSES
    page.screenshot(path=str(artifacts_dir / "lite-failures.png"))
    check_clean(watch)
    print(f"\n[lite failures] {time.monotonic() - started:.1f}s")


# The other teaching notebooks: the status of every widget (in order), and how many of their
# cells cannot run in a browser and say so instead (``SKIPPED``), there only.
OTHERS = {
    "02_parse_and_stream.ipynb": (["completed", "completed", "dry-run", "error"], 0),
    "03_verify_safety_apply.ipynb": (["error", "dry-run"], 0),
    "05_turn_diff.ipynb": (["completed"] * 8, 2),  # git apply, twice
    "06_streaming_from_a_model.ipynb": (["completed", "declined"], 1),  # running weather.py
    # review, decline, undo, the second change, its conflict, the other files, --force, redo,
    # the whole turn undone
    "07_review_and_undo.ipynb": (
        ["completed", "declined", "completed", "completed", "error"] + ["completed"] * 4,
        0,
    ),
    "08_replay_a_codex_session.ipynb": (["completed"], 1),  # python -m applypatch_ext replay
    "09_notebook_files.ipynb": (["completed", "error", "error", "completed"], 0),
}
SKIPPED = "skipped in the browser: "
STREAMS = """() => window.jupyterapp.shell.currentWidget.content.widgets
    .filter((cell) => cell.model.type === 'code')
    .map((cell) => cell.model.outputs.toJSON()
        .filter((output) => output.output_type === 'stream')
        .map((output) => output.text).join(''))"""


def test_every_teaching_notebook_is_tested_in_the_browser() -> None:
    teaching = {path.name for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    assert teaching == {"01_tour.ipynb", "04_failure_cases.ipynb", *OTHERS}


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_notebook_runs_in_the_browser(
    page: Page, context: BrowserContext, lite_url: str, artifacts_dir: Path, name: str
) -> None:
    started = time.monotonic()
    statuses, skipped = OTHERS[name]
    watch = SiteWatch(context, page)
    panel = run_all(page, context, lite_url, name)
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(len(statuses), timeout=30_000)
    for index, status in enumerate(statuses):
        expect(widgets.nth(index).get_by_test_id("applypatch-status")).to_have_text(LABEL[status])
    expect(panel.get_by_text("Error displaying widget")).to_have_count(0)
    # a cell that cannot run here says so in one line, and does nothing else
    notes = [text for text in page.evaluate(STREAMS) if SKIPPED in text]
    assert len(notes) == skipped, notes
    assert all(text.startswith(SKIPPED) and text.count("\n") == 1 for text in notes), notes
    page.screenshot(path=str(artifacts_dir / f"lite-{Path(name).stem}.png"))
    check_clean(watch)
    print(f"\n[lite {name}] {time.monotonic() - started:.1f}s")
