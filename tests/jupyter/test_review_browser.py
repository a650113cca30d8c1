"""The review in a real JupyterLab in Debian's Chromium (issue 17, items 1 and 3): every file
and chunk labelled in Python's words (review_files), a chunk toggled off by the keyboard, the
Approve button that then follows the ticks and says so (and is off while nothing is ticked),
the files on disk after it; a decline with a reason typed into the box beside Decline, and the
model's output that says it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.review import review_files

from .conftest import JupyterServer, PageWatch
from .pages import WIDGET, expect, open_lab_notebook, run_lab_cells

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

NINE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: a.txt",
        "@@",
        "-one",
        "+ONE",
        "@@",
        " four",
        "-five",
        "+FIVE",
        "@@",
        "-nine",
        "+NINE",
        "*** Add File: b.txt",
        "+bee",
        "*** End Patch",
    ]
)


def test_toggle_a_chunk_off_approve_follows_the_ticks_and_decline_with_a_reason(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    root = jupyter_lab.root
    (root / "a.txt").write_text(NINE)
    (root / "d.txt").write_text("dee\n")
    name = jupyter_lab.write_notebook(
        "review.ipynb",
        [
            "%load_ext applypatch_ext",
            f"%%apply_patch partial --review --new-turn --stream-chunk 0\n{PATCH}",
            "%%apply_patch declined --review --stream-chunk 0\n"
            "*** Begin Patch\n*** Delete File: d.txt\n*** End Patch",
            "print('CHECK', repr(partial.output.splitlines()[-2:]), repr(declined.output))",
        ],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1, 2])
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(2, timeout=30_000)
    partial, declined = widgets.nth(0), widgets.nth(1)

    # every file and chunk has a labelled checkbox, all ticked, its diff beside it
    review = partial.get_by_test_id("applypatch-review")
    expect(review).to_be_visible(timeout=30_000)
    # each labelled in exactly Python's words: the labels review_files gives the kernel
    asked = review_files(parse_patch(PATCH), str(root), LocalFilesystem())
    labels = [text for f in asked for text in (f["label"], *(c["label"] for c in f["chunks"]))]
    assert labels[2] == "a.txt chunk 2 of 3, line 4"
    boxes = partial.get_by_role("checkbox")
    expect(boxes).to_have_count(5)  # a.txt, its 3 chunks, b.txt
    assert [box.get_attribute("aria-label") for box in boxes.all()] == labels
    expect(partial.locator(".applypatch-review-toggle")).to_have_text(labels)
    second = partial.get_by_role("checkbox", name=labels[2], exact=True)
    expect(second).to_be_checked()
    expect(review).to_contain_text("+FIVE")
    # off by the keyboard: focus and space
    second.focus()
    page.keyboard.press("Space")
    expect(second).not_to_be_checked()
    file_box = partial.get_by_test_id("applypatch-review-file-0")
    assert file_box.evaluate("(box) => box.indeterminate") is True
    # Approve follows the ticks and says so: no button applies what was unticked
    approve = partial.get_by_test_id("applypatch-approve")
    expect(approve).to_have_text("Approve selected (3 of 4)")
    expect(partial.get_by_test_id("applypatch-approve-session")).to_have_text(
        "Approve selected for session (3 of 4)"
    )
    expect(partial.get_by_test_id("applypatch-ticks-note")).to_have_text(
        "Approving applies the ticked 3 of 4 only; not applied: a.txt chunk 2 of 3"
    )
    expect(partial.get_by_test_id("applypatch-apply-selected")).to_have_count(0)
    # nothing ticked: no approval can be given, Decline still can
    a_file, b_file = file_box, partial.get_by_test_id("applypatch-review-file-1")
    a_file.click()  # mixed -> all off
    if a_file.is_checked():
        a_file.click()
    b_file.click()
    expect(approve).to_be_disabled()
    expect(partial.get_by_test_id("applypatch-decline")).to_be_enabled()
    expect(partial.get_by_test_id("applypatch-ticks-note")).to_contain_text("Nothing is ticked")
    # ticked again but chunk 2
    a_file.click()
    b_file.click()
    expect(approve).to_have_text("Approve")
    second.click()
    expect(approve).to_have_text("Approve selected (3 of 4)")
    partial.screenshot(path=str(artifacts_dir / "widget-review.png"))
    assert (root / "a.txt").read_text() == NINE and not (root / "b.txt").exists()
    approve.click()
    expect(partial.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=15_000)
    assert (root / "a.txt").read_text() == NINE.replace("one", "ONE").replace("nine", "NINE")
    assert (root / "b.txt").read_text() == "bee\n"

    # a decline with a reason, typed beside Decline
    reason = declined.get_by_test_id("applypatch-reason-input")
    expect(reason).to_be_visible(timeout=15_000)
    reason.fill("keep d.txt, the tests read it")
    declined.get_by_test_id("applypatch-decline").click()
    expect(declined.get_by_test_id("applypatch-status")).to_have_text("declined", timeout=15_000)
    assert (root / "d.txt").read_text() == "dee\n"

    run_lab_cells(page, name, [3])
    output = panel.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output")
    expect(output).to_contain_text(
        "CHECK ['M a.txt', 'not applied, by the user: a.txt chunk 2 of 3'] "
        '"patch rejected by user\\nThe user\'s reason: keep d.txt, the tests read it"',
        timeout=15_000,
    )
    watch.check()
