"""A real JupyterLab in Debian's Chromium: ``%%apply_patch`` streams into the widget, an
approval click resumes a call, a failing call shows its committed prefix."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from applypatch_ext.core.diagnosis import KINDS, DiagnosisKind
from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.jupyter.records.vocabulary import status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import (
    WIDGET,
    collect_histories,
    expect,
    history,
    open_lab_notebook,
    run_lab_cells,
    set_lab_theme,
    streamed_line_counts,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

CHUNK, DELAY = 24, 0.12
MODULE = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(6))
STREAMED = "\n".join(
    [
        "*** Begin Patch",
        "*** Add File: pkg/mod.py",
        *[f"+{line}" for line in MODULE.splitlines()],
        "*** Update File: notes.txt",
        "@@",
        " first",
        "-second",
        "+second, edited",
        "*** End Patch",
    ]
)


def test_streaming_and_turn_diff(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    started = time.monotonic()
    (jupyter_lab.root / "notes.txt").write_text("first\nsecond\nthird\n")
    name = jupyter_lab.write_notebook(
        "streaming.ipynb",
        [
            "%load_ext applypatch_ext",
            f"%%apply_patch result --stream-chunk {CHUNK} --stream-delay {DELAY} "
            f"--throttle-ms 200\n{STREAMED}",
        ],
    )
    collect_histories(page)
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    opened = time.monotonic()
    run_lab_cells(page, name, [0, 1])

    widget = panel.locator(WIDGET)
    expect(widget).to_be_visible(timeout=30_000)
    prompt = panel.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt")
    status = widget.get_by_test_id("applypatch-status")

    # 1) while the cell runs: a partial text, the current line, planned changes
    expect(widget.locator(".applypatch-current")).to_be_visible(timeout=30_000)
    expect(widget.get_by_test_id("applypatch-planned")).to_contain_text(
        "planned, nothing written yet", timeout=15_000
    )
    assert prompt.inner_text().strip() == "[*]:", "the cell should still be running"
    expect(status).to_have_text("running")
    page.wait_for_timeout(300)
    widget.screenshot(path=str(artifacts_dir / "widget-streaming.png"))

    # 2) the end
    expect(status).to_have_text("completed", timeout=30_000)
    expect(prompt).to_have_text(re.compile(r"\[\d+\]:"), timeout=15_000)
    expect(widget.get_by_test_id("applypatch-stage")).to_have_attribute("data-stage", "done")
    expect(widget.locator(".applypatch-current")).to_have_count(0)

    # 3) the browser rendered the text growing, spread over the streaming time
    lines = streamed_line_counts(page)
    counts = [n for _, n in lines]
    total = len(STREAMED) // CHUNK
    assert len(set(counts)) >= 5, lines
    assert counts == sorted(counts), lines
    assert lines[-1][0] - lines[0][0] > 0.4 * total * DELAY * 1000, lines
    # the view on screen now saw the end
    assert [e["v"] for e in history(widget) if e["k"] == "status"][-1] == "completed"

    # 4) the TurnDiff: the turn's aggregate, one section closed under the call's own changes,
    # then opened: one collapsible block per file, coloured
    turn = widget.get_by_test_id("applypatch-turn-diff")
    expect(turn).not_to_have_attribute("open", "")
    expect(turn.locator("summary").first).to_contain_text("2 files in this turn")
    turn.locator("summary").first.click()
    files = turn.locator("details.applypatch-file")
    expect(files).to_have_count(2)
    expect(files.nth(0).locator("summary")).to_contain_text("notes.txt")
    expect(files.nth(1).locator("summary")).to_contain_text("pkg/mod.py")
    expect(turn.locator(".applypatch-dl-add").first).to_be_visible()
    expect(turn.locator(".applypatch-dl-del")).to_have_count(1)
    expect(turn.locator(".applypatch-dl-hunk")).to_have_count(2)
    files.nth(1).locator("summary").click()
    expect(files.nth(1).locator(".applypatch-dt")).to_be_hidden()

    # 5) the verified map against the committed delta, the timeline
    delta = widget.get_by_test_id("applypatch-delta")
    expect(delta.locator("[data-state=committed]")).to_have_count(2)
    expect(delta).to_contain_text("exact")
    events = widget.get_by_test_id("applypatch-events")
    events.locator("summary").first.click()
    expect(events.locator("tr[data-type=patch_apply_end]")).to_contain_text("completed")
    expect(events.locator("td.applypatch-time").first).to_have_text(re.compile(r"\+\d+\.\d{3}s"))

    assert (jupyter_lab.root / "pkg" / "mod.py").read_text() == MODULE
    widget.screenshot(path=str(artifacts_dir / "widget.png"))
    page.screenshot(path=str(artifacts_dir / "page.png"))

    # the same widget in the dark theme (then back, the setting is the server's)
    set_lab_theme(page, "JupyterLab Dark")
    page.wait_for_timeout(300)
    widget.screenshot(path=str(artifacts_dir / "widget-dark.png"))
    set_lab_theme(page, "JupyterLab Light")

    watch.check()
    print(
        f"\n[lab streaming] open {opened - started:.1f}s, total {time.monotonic() - started:.1f}s"
    )


APPROVAL = "\n".join(
    ["*** Begin Patch", "*** Add File: approved.txt", "+approved by a click", "*** End Patch"]
)
TWO_ADDS = "\n".join(
    [
        "*** Begin Patch",
        "*** Add File: a1.txt",
        "+one",
        "*** Add File: a2.txt",
        "+two",
        "*** End Patch",
    ]
)


# Where the patch has plain ASCII, the file has a tab, trailing spaces, typographic quotes and a
# no-break space, and "World" differs: the explanation shows the closest region, all visible.
#: A long comment on the last line: the explanation shows such a line whole (it wraps).
LONG_COMMENT = "  # " + " ".join(f"word{i}" for i in range(60)) + " END"
MISMATCHED_FILE = (
    'def greet():\n\tname = \u201cWorld\u201d  \n    return f"hello\u00a0{name}"'
    + LONG_COMMENT
    + "\n"
)
MISMATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: greet.py",
        "@@",
        " def greet():",
        '-    name = "world"',
        '+    name = "there"',
        '     return f"hello {name}"' + LONG_COMMENT,
        "*** End Patch",
    ]
)


def test_approval_click_and_failed_call(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    started = time.monotonic()
    (jupyter_lab.root / "greet.py").write_text(MISMATCHED_FILE)
    name = jupyter_lab.write_notebook(
        "approval.ipynb",
        [
            "%load_ext applypatch_ext",
            f"%%apply_patch approval --approval-policy untrusted --stream-chunk 0\n{APPROVAL}",
            f"%%apply_patch failing --new-turn --fault write:2 --stream-chunk 0\n{TWO_ADDS}",
            "import os\nprint('CHECK', approval.status, failing.status, "
            "os.path.exists('approved.txt'))",
            f"%%apply_patch --stream-chunk 0\n{MISMATCH}",
        ],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1, 2, 4])
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(3, timeout=30_000)
    asking, failing, mismatch = widgets.nth(0), widgets.nth(1), widgets.nth(2)

    # the match failure: the closest region, whitespace and look-alikes made visible
    expect(mismatch.get_by_test_id("applypatch-status")).to_have_text("error", timeout=30_000)
    # the stage that failed is marked, the later ones were never reached
    stages = mismatch.get_by_test_id("applypatch-stage")
    expect(stages.locator(".applypatch-stage-failed")).to_have_text(["verifying"])
    expect(stages.locator(".applypatch-stage-unreached")).to_have_count(4)
    expect(stages.locator(".applypatch-stage-done")).to_have_text(["streaming", "parsing"])
    explanation = mismatch.get_by_test_id("applypatch-explanation")
    expect(explanation).to_be_visible()
    expect(explanation).to_contain_text("closest region starts at line 1")
    expect(explanation.locator(".applypatch-tok-tab")).to_have_text(["→"])
    expect(explanation.locator(".applypatch-tok-space.applypatch-differs")).not_to_have_count(0)
    expect(explanation.locator(".applypatch-tok-typo")).to_have_text(["\u201c", "\u201d"])
    expect(explanation.locator(".applypatch-tok-nbsp")).to_have_text(["⍽"])
    # the long line is shown whole: wrapped inside its cell, nothing cut at the output's edge
    long_cell = explanation.locator("td.applypatch-ex-actual", has_text="END")
    expect(long_cell).to_have_count(1)
    fits = long_cell.evaluate(
        """(td) => {
            const box = td.getBoundingClientRect();
            const area = td.closest('.jp-OutputArea-output').getBoundingClientRect();
            return {wraps: box.height > 2 * parseFloat(getComputedStyle(td).lineHeight || 16),
                    inside: box.right <= area.right + 1, cut: td.scrollWidth > td.clientWidth + 1};
        }"""
    )
    assert fits == {"wraps": True, "inside": True, "cut": False}, fits
    # the failure atlas: the kind, its meaning (from Python's table) in the kind's tooltip, where
    diagnosis = mismatch.get_by_test_id("applypatch-dx-diagnosis")
    expect(diagnosis).to_be_visible()
    expect(diagnosis).to_have_attribute("data-kind", "context_not_found")
    meaning = KINDS[DiagnosisKind.CONTEXT_NOT_FOUND].meaning
    expect(diagnosis.locator(".applypatch-dx-kind")).to_have_attribute("title", meaning)
    expect(diagnosis).to_contain_text("greet.py line 1")
    mismatch.screenshot(path=str(artifacts_dir / "widget-explanation.png"))

    # the AskUser call stops and asks
    waiting = status_meaning(CallStatus.AWAITING_APPROVAL)["label"]  # the widget's words
    expect(asking.get_by_test_id("applypatch-status")).to_have_text(waiting)
    approve = asking.get_by_test_id("applypatch-approve")
    expect(approve).to_be_enabled()
    expect(asking.locator(".applypatch-approval")).to_contain_text("approved.txt")
    expect(asking.locator(".applypatch-safety")).to_contain_text("ask-user")
    assert jupyter_lab.contents("approved.txt") is None
    expect(asking.get_by_test_id("applypatch-delta").locator("[data-state=pending]")).to_have_count(
        1
    )
    asking.screenshot(path=str(artifacts_dir / "widget-approval.png"))

    # the failing call: the committed prefix, the missing rest
    expect(failing.get_by_test_id("applypatch-status")).to_have_text("failed", timeout=30_000)
    delta = failing.get_by_test_id("applypatch-delta")
    expect(delta.locator("[data-state=committed]")).to_contain_text("a1.txt")
    expect(delta.locator("[data-state=missing]")).to_contain_text("a2.txt")
    expect(delta).to_contain_text("inexact")
    expect(failing.locator(".applypatch-stderr")).to_contain_text("Failed to write file")
    expect(failing.get_by_test_id("applypatch-dx-diagnosis")).to_contain_text("io_error")
    expect(
        failing.get_by_test_id("applypatch-stage").locator(".applypatch-stage-failed")
    ).to_have_text(["applying"])
    failing.screenshot(path=str(artifacts_dir / "widget-failed.png"))

    # click: the buttons disable themselves at once (read in the same task as the click: the
    # idle kernel answers quickly and the output update then replaces the view)
    expect(approve).to_be_visible()
    right_after = approve.evaluate(
        """(button) => {
            button.click();
            const box = button.closest('.applypatch-approval');
            return {
                disabled: [...box.querySelectorAll('button')].map((b) => b.disabled),
                note: box.querySelector('.applypatch-approval-note').textContent,
            };
        }"""
    )
    # every button of the box (the decisions, which follow the review's ticks)
    assert len(right_after["disabled"]) >= 3 and all(right_after["disabled"])
    assert "sent; the call resumes" in right_after["note"]
    # the message reached the kernel: the call resumed and wrote
    expect(asking.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=15_000)
    expect(asking.locator(".applypatch-approval")).to_be_hidden()
    written = jupyter_lab.contents("approved.txt")
    assert written is not None and written["content"] == "approved by a click\n"
    asking.get_by_test_id("applypatch-turn-diff").locator("summary").first.click()
    expect(asking.get_by_test_id("applypatch-turn-diff")).to_contain_text("approved.txt")

    # the result object in the kernel was updated too
    run_lab_cells(page, name, [3])
    output = panel.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output")
    expect(output).to_have_text("CHECK completed failed True", timeout=15_000)

    asking.screenshot(path=str(artifacts_dir / "widget-approved.png"))
    page.screenshot(path=str(artifacts_dir / "page.png"))
    watch.check()
    print(f"\n[lab approval] total {time.monotonic() - started:.1f}s")


# The diff view's features (the session fills the colour traits, sources and turn_sources).
APP = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(40))
DIFF_VIEW = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: app.py",
        "@@ def f3(x):",
        "-    return x + 3",
        "+    return x * 3  # times",
        "@@ def f30(x):",
        "-    return x + 30",
        "+    return x - 30",
        "*** Add File: big.py",
        *[f"+N{i} = {i}" for i in range(150)],
        "*** Add File: notes.md",
        "+# Notes",
        "+Some *text*.",
        "*** End Patch",
    ]
)
FILL_SOURCES = """
import ipywidgets.widgets.widget as _w
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
view = [w for w in _w._instances.values() if isinstance(w, ApplyPatchWidget)][-1]
print("FILLED", len(view.sources), len(view.turn_sources))
"""
ANOTHER = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: app.py",
        "@@ def f1(x):",
        "-    return x + 1",
        "+    return 1",
        "*** End Patch",
    ]
)


def test_the_diff_view(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    (jupyter_lab.root / "app.py").write_text(APP)
    name = jupyter_lab.write_notebook(
        "diffview.ipynb",
        [
            "%load_ext applypatch_ext",
            f"%%apply_patch viewed --new-turn --stream-chunk 0\n{DIFF_VIEW}",
            FILL_SOURCES,
            f"%%apply_patch --stream-chunk 0\n{ANOTHER}",
        ],
    )
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    page.evaluate("() => localStorage.removeItem('applypatch-diff-mode')")
    run_lab_cells(page, name, [0, 1, 2])
    widget = panel.locator(WIDGET).first
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    expect(panel.locator(".jp-Cell").nth(2).locator(".jp-OutputArea-output")).to_have_text(
        "FILLED 3 3", timeout=15_000
    )
    delta = widget.get_by_test_id("applypatch-delta")
    turn = widget.get_by_test_id("applypatch-turn-diff")

    # gutters, syntax colours, the changed words; monospace
    app = delta.locator("details.applypatch-file", has_text="app.py")
    expect(app.locator(".applypatch-hl-k").first).to_be_visible(timeout=15_000)
    removed = app.locator("tr.applypatch-dl-del").first
    expect(removed.locator(".applypatch-gutter-old")).to_have_text("11")
    expect(removed.locator(".applypatch-word")).to_have_text(["+"])
    expect(app.locator("tr.applypatch-dl-add .applypatch-word").first).to_have_text("*")
    font = app.locator(".applypatch-dt").evaluate("(t) => getComputedStyle(t).fontFamily")
    assert "mono" in font.lower(), font

    # the unchanged lines between the hunks, expanded by keyboard
    gap = app.locator("button.applypatch-expand", has_text="unchanged").nth(1)
    expect(gap).to_have_text(re.compile(r"Show 40 unchanged lines"))
    gap.focus()
    page.keyboard.press("Enter")
    expect(app.locator("tr.applypatch-dl-context", has_text="def f10(x):")).to_have_count(1)
    expect(app).to_contain_text("unchanged lines not sent to the view")

    # a large added file: folded behind "show N lines", opened with Space
    big = delta.locator("details.applypatch-file", has_text="big.py")
    big.locator("summary").click()  # 150 lines: closed at first
    expect(big.locator("tr.applypatch-dl-add")).to_have_count(30)
    more = big.locator("button.applypatch-expand")
    expect(more).to_have_text("⋯ Show 120 more lines")
    more.focus()
    page.keyboard.press("Space")
    expect(big.locator("tr.applypatch-dl-add")).to_have_count(150)

    # the file list jumps to a file; collapse and expand all
    jump = delta.locator("button.applypatch-jump", has_text="notes.md")
    jump.click()
    notes = delta.locator("details.applypatch-file", has_text="notes.md")
    expect(notes).to_have_attribute("open", "")
    expect(notes.locator("summary")).to_be_focused()
    expect(notes.locator("summary")).to_be_in_viewport()
    expect(notes.locator(".applypatch-hl-h").first).to_have_text("# Notes")
    delta.get_by_role("button", name="collapse every file").click()
    expect(delta.locator("details.applypatch-file[open]")).to_have_count(0)
    delta.get_by_role("button", name="expand every file").click()
    expect(delta.locator("details.applypatch-file[open]")).to_have_count(3)

    # the TurnDiff's git headers behind a toggle, keyboard-activated (the section opened first)
    turn.locator("summary").first.click()
    header = turn.locator("tr.applypatch-dl-header", has_text="diff --git").first
    expect(header).to_be_hidden()
    toggle = turn.get_by_test_id("applypatch-headers")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.focus()
    page.keyboard.press("Space")
    expect(header).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(turn.locator("tr.applypatch-dl-header", has_text="index ").first).to_be_visible()

    # copy (guarded: either copied or said why not) and download
    turn.get_by_test_id("applypatch-copy-turn-diff").click()
    note = turn.locator(".applypatch-tool-note")
    expect(note).to_have_text(re.compile("TurnDiff copied|cannot copy"))
    assert "return x * 3" in (jupyter_lab.root / "app.py").read_text()
    if note.inner_text() == "TurnDiff copied":
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied.startswith("diff --git a/app.py b/app.py"), copied[:80]
    with page.expect_download() as download:
        turn.get_by_test_id("applypatch-download-turn-diff").click()
    assert download.value.suggested_filename == "turn.diff"
    saved = Path(download.value.path()).read_text()
    assert "diff --git a/big.py b/big.py" in saved and "+# Notes" in saved

    # split view, chosen by keyboard: Tab from Unified reaches Split
    unified = delta.get_by_test_id("applypatch-mode-unified")
    unified.focus()
    page.keyboard.press("Tab")
    split = delta.get_by_test_id("applypatch-mode-split")
    expect(split).to_be_focused()
    page.keyboard.press("Enter")
    expect(split).to_have_attribute("aria-pressed", "true")
    expect(widget.locator("table.applypatch-dt-unified")).to_have_count(0)
    pair = app.locator("tr.applypatch-dl-change").first
    expect(pair.locator(".applypatch-code")).to_have_text(
        ["    return x + 3", "    return x * 3  # times"]
    )
    # the planned preview says what it is
    expect(widget.locator(".applypatch-badge-preview")).to_have_text("preview")

    # the themes' own colours: the editor's keyword colour, the theme's background
    keyword = widget.locator(".applypatch-hl-k").first
    theme_colour = """(el) => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--jp-mirror-editor-keyword-color)';
        el.parentElement.append(probe);
        const want = getComputedStyle(probe).color;
        probe.remove();
        return [getComputedStyle(el).color, want];
    }"""
    seen = set()
    for theme, shot in [
        ("JupyterLab Dark", "widget-diff-dark.png"),
        ("JupyterLab Dark High Contrast", "widget-diff-high-contrast.png"),
        ("JupyterLab Light", "widget-diff-light.png"),
    ]:
        set_lab_theme(page, theme)
        page.wait_for_timeout(300)
        got, want = keyword.evaluate(theme_colour)
        assert got == want, (theme, got, want)
        seen.add(got)
        widget.screenshot(path=str(artifacts_dir / shot))
    assert len(seen) == 3, seen  # each theme coloured the code its own way
    watch.check()

    # reload: a new view starts in the split view the reader chose
    page.reload()
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    assert page.evaluate("() => localStorage.getItem('applypatch-diff-mode')") == "split"
    run_lab_cells(page, name, [3])
    again = panel.locator(".jp-Cell").nth(3).locator(WIDGET)
    expect(again.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    expect(
        again.get_by_test_id("applypatch-delta").get_by_test_id("applypatch-mode-split")
    ).to_have_attribute("aria-pressed", "true")
    expect(
        again.get_by_test_id("applypatch-delta").locator("table.applypatch-dt")
    ).to_have_attribute("data-mode", "split")


def test_the_diff_view_is_labelled_for_screen_readers(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch
) -> None:
    """What a screen reader announces of the diff view: its toolbars and their buttons, each
    file with its counts, the table and what each line's sign means; gutters are not read."""
    folder = jupyter_lab.root / "aria"
    folder.mkdir(exist_ok=True)
    (folder / "app.py").write_text(APP)
    name = jupyter_lab.write_notebook(
        "aria/aria.ipynb",
        ["%load_ext applypatch_ext", f"%%apply_patch --new-turn --stream-chunk 0\n{DIFF_VIEW}"],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET).first
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    delta = widget.get_by_test_id("applypatch-delta")
    toolbar = delta.get_by_role("toolbar", name="diff view")
    expect(toolbar.get_by_role("group", name="view mode")).to_be_visible()
    expect(toolbar.get_by_role("button", name="unified view")).to_have_attribute(
        "aria-pressed", re.compile("true|false")
    )
    expect(toolbar.get_by_role("button", name="expand every file")).to_be_visible()
    expect(delta.get_by_role("list", name="files")).to_be_visible()
    expect(delta.get_by_role("button", name="go to notes.md: +2 -0")).to_be_visible()
    app = delta.locator("details.applypatch-file", has_text="app.py")
    expect(app.locator("summary")).to_have_attribute(
        "aria-label", "app.py: 2 added, 2 removed lines"
    )
    expect(app.get_by_role("table", name="diff, unified")).to_be_visible()
    removed = app.locator("tr.applypatch-dl-del").first
    expect(removed.get_by_role("cell", name="removed")).to_have_text("-")
    expect(removed.locator(".applypatch-gutter-old")).to_have_attribute("aria-hidden", "true")
    expect(
        app.locator("tr.applypatch-dl-add").first.get_by_role("cell", name="added")
    ).to_have_text("+")
    expect(
        app.get_by_role("button", name=re.compile(r"^Show \d+ unchanged lines$")).first
    ).to_be_visible()
    turn = widget.get_by_test_id("applypatch-turn-diff")
    # closed under the call's own changes; opened as a click does (the toggle event draws it),
    # without a click a busy page can land while the diff above is still laid out
    turn.evaluate("(section) => { section.open = true; }")
    expect(turn.get_by_role("button", name="show the diff --git and index lines")).to_be_visible()
    expect(turn.get_by_role("button", name="download the TurnDiff as turn.diff")).to_be_visible()
    watch.check()
