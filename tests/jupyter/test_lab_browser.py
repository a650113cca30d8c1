"""A real JupyterLab in Debian's Chromium: ``%%apply_patch`` streams into the widget, an
approval click resumes a call, a failing call shows its committed prefix."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

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

    # 4) the TurnDiff, one collapsible block per file, coloured
    turn = widget.get_by_test_id("applypatch-turn-diff")
    files = turn.locator("details.applypatch-file")
    expect(files).to_have_count(2)
    expect(files.nth(0).locator("summary")).to_contain_text("notes.txt")
    expect(files.nth(1).locator("summary")).to_contain_text("pkg/mod.py")
    expect(turn.locator(".applypatch-line.applypatch-diff-add").first).to_be_visible()
    expect(turn.locator(".applypatch-line.applypatch-diff-del")).to_have_count(1)
    expect(turn.locator(".applypatch-line.applypatch-diff-hunk")).to_have_count(2)
    files.nth(1).locator("summary").click()
    expect(files.nth(1).locator("pre")).to_be_hidden()

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
MISMATCHED_FILE = 'def greet():\n\tname = \u201cWorld\u201d  \n    return f"hello\u00a0{name}"\n'
MISMATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: greet.py",
        "@@",
        " def greet():",
        '-    name = "world"',
        '+    name = "there"',
        '     return f"hello {name}"',
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
    mismatch.screenshot(path=str(artifacts_dir / "widget-explanation.png"))

    # the AskUser call stops and asks
    expect(asking.get_by_test_id("applypatch-status")).to_have_text("awaiting-approval")
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
    assert right_after["disabled"] == [True, True, True]
    assert "sent; the call resumes" in right_after["note"]
    # the message reached the kernel: the call resumed and wrote
    expect(asking.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=15_000)
    expect(asking.locator(".applypatch-approval")).to_be_hidden()
    written = jupyter_lab.contents("approved.txt")
    assert written is not None and written["content"] == "approved by a click\n"
    expect(asking.get_by_test_id("applypatch-turn-diff")).to_contain_text("approved.txt")

    # the result object in the kernel was updated too
    run_lab_cells(page, name, [3])
    output = panel.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output")
    expect(output).to_have_text("CHECK completed failed True", timeout=15_000)

    asking.screenshot(path=str(artifacts_dir / "widget-approved.png"))
    page.screenshot(path=str(artifacts_dir / "page.png"))
    watch.check()
    print(f"\n[lab approval] total {time.monotonic() - started:.1f}s")
