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
from applypatch_ext.jupyter.records.vocabulary import undone_meanings

from ..jupyter.pages import WIDGET, expect
from ..notebook_outcomes import FINAL_STATUSES, LITE_WIDGETS, label, labels
from .conftest import SiteWatch

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Locator, Page

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"

#: What the widget shows for each status (its words come from the vocabulary Python sends), and
#: for a completed call an undo put back.
LABEL = {str(s): label(s) for s in [*CallStatus, *undone_meanings()]}
FINAL = re.compile("^(" + "|".join(re.escape(label) for label in LABEL.values()) + ")$")
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
    assert check_widgets(panel, "01_tour.ipynb") == labels("01_tour.ipynb")
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
    assert len(fallback) == len(FINAL_STATUSES["01_tour.ipynb"])
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
    assert check_widgets(panel, "04_failure_cases.ipynb") == labels("04_failure_cases.ipynb")
    page.screenshot(path=str(artifacts_dir / "lite-failures.png"))
    check_clean(watch)
    print(f"\n[lite failures] {time.monotonic() - started:.1f}s")


def code_cell(panel: Locator, name: str, prefix: str) -> Locator:
    """The code cell of ``name`` whose source starts with ``prefix``."""
    index = next(i for i, src in enumerate(code_cells(name)) if src.startswith(prefix))
    return panel.locator(".jp-CodeCell").nth(index)


def answer_cell(page: Page, panel: Locator, name: str, prefix: str, lines: list[str]) -> Locator:
    """Type ``lines`` over the code cell of ``name`` that starts with ``prefix``, with the
    keyboard (Enter between lines), run it (Ctrl+Enter, in place); its output area."""
    cell = code_cell(panel, name, prefix)
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    for number, line in enumerate(lines):
        if number:
            page.keyboard.press("Enter")
        page.keyboard.type(line)
    page.keyboard.press("Control+Enter")
    return cell.locator(".jp-OutputArea-output")


def test_an_exercise_answered_wrongly_then_rightly(
    page: Page, context: BrowserContext, lite_url: str, artifacts_dir: Path
) -> None:
    """In notebook 02, a learner types a patch into the write exercise's answer cell (a
    ``%%apply_patch --exercise`` cell: it edits as a patch, Enter does not indent), runs it and
    reads the feedback: first a chunk that does not match, then the right patch."""
    started = time.monotonic()
    watch = SiteWatch(context, page)
    name = "02_parse_and_stream.ipynb"
    panel = run_all(page, context, lite_url, name)
    head = "%%apply_patch --exercise write-update-and-add"
    output = code_cell(panel, name, head).locator(".jp-OutputArea-output")
    expect(output).to_contain_text("No answer yet: your patch has no hunk yet")

    wrong = [
        head,
        "*** Begin Patch",
        "*** Update File: greet.py",
        "@@ def greet(name):",
        "-    print('Hello, ' + name)",
        '+    print(f"Hello, {name}!")',
        "*** End Patch",
    ]
    output = answer_cell(page, panel, name, head, wrong)
    expect(output).to_contain_text("Not yet: your patch does not apply to these files.")
    expect(output).to_contain_text("Failed to find expected lines in /project/greet.py")
    expect(output).to_contain_text("What went wrong (context_not_found): The closest region")
    expect(output).to_contain_text("Line 4 of your patch is -    print('Hello, ' + name).")
    page.screenshot(path=str(artifacts_dir / "lite-exercise-wrong.png"))

    right = [
        head,
        "*** Begin Patch",
        "*** Update File: greet.py",
        "@@ def greet(name):",
        '-    print("Hello, " + name)',
        '+    print(f"Hello, {name}!")',
        "@@ def main():",
        '-    for name in ["Ada", "Grace"]:',
        '+    for name in ["Ada", "Grace", "Linus"]:',
        "*** Add File: README.md",
        "+# Greeter",
        "+",
        "+Says hello.",
        "*** End Patch",
    ]
    output = answer_cell(page, panel, name, head, right)
    expect(output).to_contain_text("Right: Codex applies your patch and the files are exactly")
    expect(output).not_to_contain_text("Not yet")
    source = page.evaluate(
        """(head) => window.jupyterapp.shell.currentWidget.content.widgets
            .map((cell) => cell.model.sharedModel.getSource())
            .find((source) => source.startsWith(head))""",
        head,
    )
    assert source == "\n".join(right)  # typed as a patch: no line indented by the editor
    page.screenshot(path=str(artifacts_dir / "lite-exercise-right.png"))
    check_clean(watch)
    print(f"\n[lite exercise] {time.monotonic() - started:.1f}s")


def test_a_real_failure_diagnosed_wrongly_then_rightly(
    page: Page, context: BrowserContext, lite_url: str, artifacts_dir: Path
) -> None:
    """In notebook 10 (the whole corpus through the pipeline in Pyodide), a learner answers a
    diagnose exercise in its cell: a wrong kind gets what that kind means, then the right kind
    and line get the diagnosis's message."""
    watch = SiteWatch(context, page)
    name = "10_real_failures.ipynb"
    panel = run_all(page, context, lite_url, name)
    head = 'exercise("diagnose-anchor").check('
    prefix = "# The kind"
    index = next(
        i for i, src in enumerate(code_cells(name)) if src.startswith(prefix) and head in src
    )
    cell = panel.locator(".jp-CodeCell").nth(index)
    expect(cell.locator(".jp-OutputArea-output")).to_contain_text("No answer yet: pick one")

    def answer(call: str) -> Locator:
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.press("Delete")
        page.keyboard.type(call)
        page.keyboard.press("Control+Enter")
        return cell.locator(".jp-OutputArea-output")

    output = answer(head + 'kind="change_context_not_found", line=3)')
    expect(output).to_contain_text("Not yet: it is not change_context_not_found.")
    expect(output).to_contain_text("change_context_not_found means: ")
    expect(output).not_to_contain_text("partial_anchor")
    output = answer(head + 'kind="partial_anchor", line=3)')
    expect(output).to_contain_text("Right: partial_anchor at line 3 of the patch.")
    expect(output).to_contain_text("The diagnosis says: `createResponseFromOptions` is only part")
    page.screenshot(path=str(artifacts_dir / "lite-diagnose-right.png"))
    check_clean(watch)


# The other teaching notebooks (their widgets' statuses: tests/notebook_outcomes.py), and how
# many of their cells cannot run in a browser and say so instead (``SKIPPED``), there only.
OTHERS = {
    "02_parse_and_stream.ipynb": 0,
    "03_verify_safety_apply.ipynb": 0,
    "05_turn_diff.ipynb": 2,  # git apply, twice
    "06_streaming_from_a_model.ipynb": 1,  # running weather.py
    "07_review_and_undo.ipynb": 0,
    "08_replay_a_codex_session.ipynb": 1,  # python -m applypatch_ext replay
    "09_notebook_files.ipynb": 0,
    "10_real_failures.ipynb": 0,
    # the desk's server and the Codex process: every cell after the person's own says so
    "11_an_agent_at_the_desk.ipynb": 7,
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
    statuses, skipped = labels(name)[: LITE_WIDGETS.get(name)], OTHERS[name]
    watch = SiteWatch(context, page)
    panel = run_all(page, context, lite_url, name)
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(len(statuses), timeout=30_000)
    for index, status in enumerate(statuses):
        expect(widgets.nth(index).get_by_test_id("applypatch-status")).to_have_text(status)
    expect(panel.get_by_text("Error displaying widget")).to_have_count(0)
    # a cell that cannot run here says so in one line, and does nothing else
    notes = [text for text in page.evaluate(STREAMS) if SKIPPED in text]
    assert len(notes) == skipped, notes
    assert all(text.startswith(SKIPPED) and text.count("\n") == 1 for text in notes), notes
    page.screenshot(path=str(artifacts_dir / f"lite-{Path(name).stem}.png"))
    check_clean(watch)
    print(f"\n[lite {name}] {time.monotonic() - started:.1f}s")
