"""A saved notebook, reopened after its kernel is gone, shows every call's result, in a real
JupyterLab and a real Notebook 7 (Chromium): each call's static record, never "Error displaying
widget"; nbconvert's HTML of the same file shows the records, diffs in a monospace font. While
the kernel lives, the live view hides its record, and the end of a call does not rebuild the
view (its DOM node survives the final update)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from applypatch_ext.core.diagnosis import KINDS, DiagnosisKind
from applypatch_ext.jupyter.records.vocabulary import status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import (
    LAB_KERNEL_READY,
    NB7_KERNEL_READY,
    NB7_PANEL,
    NOTEBOOK7_OWN_ERRORS,
    WIDGET,
    compare_with_baseline,
    expect,
    open_lab_notebook,
    open_nb7_notebook,
    records_say,
    run_lab_cells,
    run_nb7_cells,
    saved_live_views,
    set_lab_theme,
    steady_screenshot,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

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
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
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


def _check_saved_file(nb: dict[str, Any], final: list[str], views: int) -> None:
    outputs = [o for cell in nb["cells"] for o in cell.get("outputs", [])]
    assert len(saved_live_views(nb)) == views  # each a placeholder: the kernel's model or none
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
    # each live view's placeholder (no kernel has its model): rendered, taking no room
    placeholders = panel.locator(".jp-OutputArea-child", has=page.locator(".widget-output"))
    expect(placeholders.first).to_be_attached(timeout=30_000)
    assert placeholders.count() == len(final)
    for index in range(len(final)):
        expect(placeholders.nth(index)).to_be_hidden()  # no box: its Output widget is hidden
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
    # the failure atlas's section: the kind, what it means (from Python), where
    diagnosis = widgets.nth(1).get_by_test_id("applypatch-dx-diagnosis")
    expect(diagnosis).to_contain_text("missing_file")
    expect(diagnosis).to_contain_text(KINDS[DiagnosisKind.MISSING_FILE].meaning)
    expect(diagnosis).to_contain_text("patch line 2, missing.txt")
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
    expect(second).to_contain_text("missing_file")
    page.screenshot(path=str(artifacts_dir / "live.png"))

    # save, shut the kernel down, reopen
    records_say(page, name, FINAL)
    page.evaluate(f"async (path) => {{ await ({LAB_PANEL_JS})(path).context.save(); }}", name)
    nb = _saved(jupyter_lab, name)
    _check_saved_file(nb, FINAL, 3)  # the closed one's too: a placeholder no kernel fills
    page.evaluate(
        f"async (path) => {{ await ({LAB_PANEL_JS})(path).sessionContext.shutdown(); }}", name
    )
    page.goto(f"{jupyter_lab.url}/lab/tree/{name}?reset")
    page.wait_for_function(LAB_KERNEL_READY, arg=name, timeout=90_000, polling=100)
    reopened = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    _check_reopened(reopened, page, FINAL)
    # the kernel that held the waiting call is gone: its record says how a call is answered
    # (its live view, `%apply_patch_turn`) and that nothing of this one was written
    expect(reopened.locator(RECORD).nth(2)).to_contain_text("A restarted kernel has forgotten")
    # the record of the failure keeps its diagnosis, with the kind's meaning
    expect(reopened.locator(RECORD).nth(1)).to_contain_text("missing_file")
    expect(reopened.locator(RECORD).nth(1)).to_contain_text(
        KINDS[DiagnosisKind.MISSING_FILE].meaning
    )
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
    assert "missing_file" in html and 'class="applypatch-diagnosis"' in html
    assert "model not found" not in html
    # the live views' models there are placeholders: none of the widget's JavaScript
    assert '"model_name": "AnyModel"' not in html and "OutputModel" in html
    static = page.context.new_page()
    # offline: the template's CDN scripts (require.js, MathJax) are not fetched
    static.route(
        "**/*",
        lambda route: route.abort() if route.request.url.startswith("http") else route.continue_(),
    )
    static.goto(html_path.as_uri())
    pre = static.locator(f"{RECORD} details pre").first
    expect(pre).to_contain_text(re.compile(r"\b1 \+ VALUE_0 = 0"))  # gutter, sign, code
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

    records_say(page, name, FINAL)
    page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.context.save(); }")
    _check_saved_file(_saved(jupyter_notebook7, name), FINAL, 3)
    page.evaluate(
        "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.shutdown(); }"
    )
    page.goto(f"{jupyter_notebook7.url}/notebooks/{name}")
    page.wait_for_function(NB7_KERNEL_READY, timeout=90_000, polling=100)
    _check_reopened(page.locator(NB7_PANEL), page, FINAL)
    page.screenshot(path=str(artifacts_dir / "reopened-notebook7.png"))
    watch.check(known=NOTEBOOK7_OWN_ERRORS)


# -- the static record's diff view, as a notebook shared with others shows it ----------------

STATIC_APP = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(12))
STATIC_PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: app.py",
        "@@ def f3(x):",
        "-    return x + 3",
        "+    return x * 3  # times",
        "*** Add File: notes.md",
        "+# Notes",
        "*** Delete File: old.txt",
        "*** End Patch",
    ]
)
THEME_COLOUR = """(el, variable) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${variable})`;
    el.parentElement.append(probe);
    const want = getComputedStyle(probe).color;
    probe.remove();
    return [getComputedStyle(el).color, want];
}"""


def _record_notebook(server: JupyterServer, name: str) -> str:
    """A notebook holding one call's record, as a file shared by somebody else holds it: the
    outputs of a real call (run here), no signature, so JupyterLab sanitizes them."""
    import nbformat

    from applypatch_ext.core.turn.turn import Turn
    from applypatch_ext.jupyter.live.result import PatchCallResult
    from applypatch_ext.jupyter.records.record import record_bundle

    work = server.root / f"{name}-work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    (work / "app.py").write_text(STATIC_APP)
    (work / "old.txt").write_text("".join(f"old line {i}\n" for i in range(1, 151)))
    call = Turn(str(work)).call()
    call.push_delta(STATIC_PATCH)
    state = PatchCallResult(call.run(None), tracker=call.turn.tracker).state_json()
    assert state["status"] == "completed", state["error"]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    cell = nbformat.v4.new_code_cell("%%apply_patch\n" + STATIC_PATCH)
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data=record_bundle("f" * 32, state),
            metadata={"applypatch_ext": {"record": "f" * 32}},
        )
    ]
    nb.cells = [cell]
    nbformat.write(nb, server.root / name)
    return name


def _file(record: Locator, summary: str) -> Locator:
    """The ``<details>`` of one file (or section), by the start of its own summary."""
    return record.locator("summary", has_text=re.compile(f"^{summary}")).first.locator("..")


def _static_checks(page: Page, record: Locator, *, themed: bool) -> None:
    """The diff view's features, by what a reader sees (a sanitizer strips data-* attributes)."""
    files = record.locator("details", has=page.locator("pre"))
    app = _file(record, r"Update app\.py")
    # gutters: both line numbers, beside the sign
    removed = app.locator("pre > span", has_text="return x + 3").first
    expect(removed.locator("span").nth(0)).to_have_text(re.compile(r"^11 +$"))
    expect(removed.locator("span").nth(1)).to_have_text("-")
    # lines as written: unwrapped, indentation kept, from the left edge (the page's own
    # stylesheet pads, wraps and right-aligns table cells: this is no table)
    left, gutter_left, white = removed.evaluate(
        """(r) => [r.parentElement.getBoundingClientRect().left,
            r.firstElementChild.getBoundingClientRect().left,
            getComputedStyle(r.parentElement).whiteSpace]"""
    )
    assert abs(left - gutter_left) < 1 and white == "pre", (left, gutter_left, white)
    expect(removed).to_have_text(re.compile(r"^11 +-     return x \+ 3$"))
    # the changed words marked (a background of their own), syntax colours
    word = removed.locator("span", has_text=re.compile(r"^\+$"))
    background = word.evaluate("(s) => getComputedStyle(s).backgroundColor")
    row = removed.evaluate("(r) => getComputedStyle(r).backgroundColor")
    assert background != row and background.startswith("rgba("), (background, row)
    keyword = app.locator("span", has_text=re.compile("^return$")).first
    got, want = keyword.evaluate(THEME_COLOUR, "--jp-mirror-editor-keyword-color")
    if themed:
        assert got == want, (got, want)  # the theme's own colour
    else:
        assert got == "rgb(183, 106, 211)", got  # the plain colour, the variable sanitized away
    # monospace, in the page's own font
    narrow, wide = app.locator("pre").first.evaluate(
        """(t) => ['iiiiiiiiii', 'MMMMMMMMMM'].map((text) => {
            const probe = document.createElement('span');
            probe.textContent = text;
            t.append(probe);
            const width = probe.getBoundingClientRect().width;
            probe.remove();
            return width;
        })"""
    )
    assert narrow == wide, (narrow, wide)
    # the deleted file: 30 lines shown, 120 behind "show", opened by a click, no script
    old = _file(record, r"Delete old\.txt")
    expect(old.locator("pre > span", has_text="old line 25")).to_be_hidden()
    old.get_by_text("⋯ Show 120 more removed lines").click()
    expect(old.locator("pre > span", has_text="old line 25")).to_be_visible()
    # the turn diff: a summary folded under the call's changes, its files and their counts
    # (%apply_patch_turn shows its diff: issue 23 item 5)
    turn = record.locator("details", has_text="Turn diff").first
    expect(turn.locator("summary").first).to_contain_text("3 files")
    entry = turn.locator("li", has_text=re.compile(r"^app\.py\+1 -1"))
    expect(entry).to_be_hidden()
    turn.locator("summary").first.click()
    expect(entry).to_be_visible()
    expect(turn).to_contain_text("%apply_patch_turn` shows its diff")
    expect(turn.locator("pre")).to_have_count(0)
    # the file list: each file with its counts and bar
    # (a sanitizer keeps no aria-label: the list is the one whose entries link)
    listed = record.locator("ul", has=page.locator("a")).first.locator("li")
    expect(listed).to_have_count(3)
    expect(listed.nth(0)).to_contain_text("app.py+1 -1")
    assert files.count() >= 3  # the call's three (and the sections holding them)


JUMPED = """(el) => {
    let box = el.parentElement;
    const scrolls = (b) => ['auto', 'scroll'].includes(getComputedStyle(b).overflowY)
        && b.scrollHeight > b.clientHeight;
    while (box && !scrolls(box)) box = box.parentElement;
    return el.getBoundingClientRect().top - (box ? box.getBoundingClientRect().top : 0);
}"""


def _jumps(page: Page, record: Locator, link: str, summary: str) -> None:
    """The file list's link scrolls its file's summary to the top of the notebook."""
    target = record.locator("summary", has_text=re.compile(summary)).first
    record.locator("ul a", has_text=link).first.click()
    page.wait_for_timeout(300)
    offset = target.evaluate(JUMPED)
    assert -5 <= offset <= 60, offset


def _readable_in_dark(record: Locator) -> None:
    """The code's text is light on a dark page; the added line's tint lets the page through."""
    colour, tint = record.locator("pre > span", has_text="return x * 3").first.evaluate(
        "(row) => [getComputedStyle(row).color, getComputedStyle(row).backgroundColor]"
    )
    channels = [int(c) for c in re.findall(r"\d+", colour)[:3]]
    assert sum(channels) / 3 > 150, colour  # a light text
    assert tint.startswith("rgba(") and float(tint.rsplit(",", 1)[1].rstrip(")")) < 0.5, tint


def test_the_static_diff_view_in_lab_sanitized_and_trusted(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    name = _record_notebook(jupyter_lab, "static-view.ipynb")
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    record = panel.locator(RECORD)
    expect(record).to_have_count(1, timeout=30_000)
    # an untrusted notebook: JupyterLab's sanitizer ran (it renames ids)
    assert record.locator("[id]").count() == 0
    assert (
        record.locator("[data-jupyter-id]").count() == 3
    )  # the call's 3 files (the turn: a summary)
    _static_checks(page, record, themed=False)
    # the file list jumps to a file, sanitized too (JupyterLab follows a data-jupyter-id)
    _jumps(page, record, "notes.md", r"^Add notes\.md")
    record.screenshot(path=str(artifacts_dir / "static-sanitized-light.png"))
    set_lab_theme(page, "JupyterLab Dark")
    _readable_in_dark(record)
    record.screenshot(path=str(artifacts_dir / "static-sanitized-dark.png"))
    set_lab_theme(page, "JupyterLab Light")

    # trusted (as a notebook saved on this machine is): the theme's variables win
    subprocess.run(
        [sys.executable, "-m", "jupyter", "trust", str(jupyter_lab.root / name)],
        env=jupyter_lab.env(),
        check=True,
        capture_output=True,
        timeout=60,
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    record = panel.locator(RECORD)
    expect(record).to_have_count(1, timeout=30_000)
    expect(record.locator("[id]")).to_have_count(3)
    _static_checks(page, record, themed=True)
    _jumps(page, record, "old.txt", r"^Delete old\.txt")
    for theme in ("JupyterLab Dark", "JupyterLab Dark High Contrast"):
        set_lab_theme(page, theme)
        _readable_in_dark(record)
        keyword = record.locator("span", has_text=re.compile("^return$")).first
        got, want = keyword.evaluate(THEME_COLOUR, "--jp-mirror-editor-keyword-color")
        assert got == want, (theme, got, want)
        record.screenshot(path=str(artifacts_dir / f"static-trusted-{theme.split()[-1]}.png"))
    set_lab_theme(page, "JupyterLab Light")
    watch.check()

    # nbconvert's HTML of the file: the same view; there the file list's links jump to each
    # file (JupyterLab scrolls a link's target cell into view, not the element in it)
    html_path = artifacts_dir / "static-view.html"
    subprocess.run(
        [
            *(sys.executable, "-m", "nbconvert", "--to", "html", str(jupyter_lab.root / name)),
            *("--output", str(html_path.with_suffix(""))),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    static = page.context.new_page()
    static.route(
        "**/*",
        lambda route: route.abort() if route.request.url.startswith("http") else route.continue_(),
    )
    static.set_viewport_size({"width": 1280, "height": 500})
    static.goto(html_path.as_uri())
    converted = static.locator(RECORD)
    _static_checks(static, converted, themed=True)
    _jumps(static, converted, "old.txt", r"^Delete old\.txt")
    _jumps(static, converted, "notes.md", r"^Add notes\.md")
    static.screenshot(path=str(artifacts_dir / "static-nbconvert.png"), full_page=True)
    static.close()


# -- the dark theme, against a committed baseline -------------------------------------------------

BASELINES = Path(__file__).resolve().parent / "baselines"


def test_dark_theme_matches_its_baseline(
    page: Page,
    jupyter_lab: JupyterServer,
    watch: PageWatch,
    artifacts_dir: Path,
    pytestconfig: pytest.Config,
) -> None:
    """A call in JupyterLab's dark theme, its live view and its static record (as a shared
    notebook shows it), each compared with a committed screenshot within a pixel tolerance.
    ``--update-baselines`` rewrites them (CONTRIBUTING.md says when)."""
    update = bool(pytestconfig.getoption("--update-baselines"))
    # tall enough for the whole record: nothing scrolled, nothing cut by the window's edge
    page.set_viewport_size({"width": 1280, "height": 2400})
    folder = jupyter_lab.root / "dark"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / "app.py").write_text(STATIC_APP)
    (folder / "old.txt").write_text("".join(f"old line {i}\n" for i in range(1, 151)))
    name = jupyter_lab.write_notebook(
        "dark/live.ipynb",
        ["%load_ext applypatch_ext", f"%%apply_patch --new-turn --stream-chunk 0\n{STATIC_PATCH}"],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    set_lab_theme(page, "JupyterLab Dark")
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET)
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    expect(panel.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt")).to_have_text(
        "[2]:", timeout=15_000
    )
    changes = widget.get_by_test_id("applypatch-delta")
    expect(changes.locator(".applypatch-hl-k").first).to_be_visible()
    live = steady_screenshot(page, changes)

    record_name = _record_notebook(jupyter_lab, "dark-record.ipynb")
    panel = open_lab_notebook(page, jupyter_lab.url, record_name)
    record = panel.locator(RECORD)
    expect(record).to_have_count(1, timeout=30_000)
    assert page.evaluate("() => document.body.dataset.jpThemeName") == "JupyterLab Dark"
    # the first line and the committed list name the working directory (a temporary folder):
    # painted over
    varying = [record.locator("div").first, record.locator("li", has_text=str(jupyter_lab.root))]
    static = steady_screenshot(page, record, mask=varying)
    watch.check()
    compare_with_baseline(page, live, BASELINES / "dark-live-changes.png", update, artifacts_dir)
    compare_with_baseline(page, static, BASELINES / "dark-static-record.png", update, artifacts_dir)
    # the comparison sees a theme: the same record in the light theme is not the baseline
    set_lab_theme(page, "JupyterLab Light")
    light = steady_screenshot(page, record, mask=varying)
    if not update:
        with pytest.raises(AssertionError, match="pixels differ"):
            compare_with_baseline(
                page, light, BASELINES / "dark-static-record.png", False, artifacts_dir / "light"
            )
