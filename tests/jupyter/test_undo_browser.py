"""Review, then undo, in a real JupyterLab in Debian's Chromium (issue 17, "what must show"): a
patch of 2 files and 3 hunks waits for approval; one hunk is toggled off in the widget; "Apply
selected"; the files on disk checked; Undo clicked; the tree byte-identical to before the call,
modes included; Redo and Undo again; and a decline with a reason typed beside Decline, which the
widget and the model's output show."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.review import review_files

from ..trees import snapshot_dir_with_modes
from .conftest import JupyterServer, PageWatch
from .pages import WIDGET, expect, open_lab_notebook, run_lab_cells

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

APP = "def main():\n    run(debug=True)\n\n\ndef run(debug):\n    return debug\n"
PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: app.py",
        "@@ def main():",
        "-    run(debug=True)",
        "+    run(debug=False)",
        "@@ def run(debug):",
        "-    return debug",
        "+    return not debug",
        "*** Update File: tool.sh",
        "@@",
        "-echo old",
        "+echo new",
        "*** End Patch",
    ]
)


def test_toggle_a_hunk_off_apply_selected_then_undo_and_decline_with_a_reason(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    project = jupyter_lab.root / "undo-project"
    project.mkdir()
    (project / "app.py").write_text(APP)
    (project / "tool.sh").write_text("#!/bin/sh\necho old\n")
    os.chmod(project / "tool.sh", 0o755)
    (project / "keep.txt").write_text("keep\n")
    before = snapshot_dir_with_modes(project)
    name = jupyter_lab.write_notebook(
        "undo.ipynb",
        [
            "%load_ext applypatch_ext",
            "%%apply_patch partial --cwd undo-project --review --new-turn --stream-chunk 0\n"
            + PATCH,
            "%%apply_patch declined --cwd undo-project --review --stream-chunk 0\n"
            "*** Begin Patch\n*** Delete File: keep.txt\n*** End Patch",
            "print('CHECK', repr(declined.output))",
        ],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    partial = panel.locator(WIDGET).nth(0)
    status = partial.get_by_test_id("applypatch-status")
    expect(status).to_have_text("waiting for approval", timeout=30_000)
    expect(partial.get_by_role("checkbox")).to_have_count(5)  # 2 files, 3 chunks
    assert snapshot_dir_with_modes(project) == before  # nothing written while it waits

    # the second chunk of app.py off, with a click on its labelled checkbox
    [app, _tool] = review_files(parse_patch(PATCH), str(project), LocalFilesystem())
    label = app["chunks"][1]["label"]  # the words the widget shows: Python's
    assert label.startswith("app.py chunk 2 of 2, line ")
    second = partial.get_by_role("checkbox", name=label, exact=True)
    second.click()
    expect(second).not_to_be_checked()
    # Approve follows the ticks (docs/behaviour.md §6.7): it applies the ticked ones only
    approve = partial.get_by_test_id("applypatch-approve")
    expect(approve).to_have_text("Approve selected (2 of 3)")
    approve.click()
    expect(status).to_have_text("completed", timeout=15_000)
    assert (project / "app.py").read_text() == APP.replace("debug=True", "debug=False")
    assert (project / "tool.sh").read_text() == "#!/bin/sh\necho new\n"
    assert (project / "tool.sh").stat().st_mode & 0o777 == 0o755
    after = snapshot_dir_with_modes(project)
    expect(partial).to_contain_text("not applied, by the user: app.py chunk 2 of 2")
    # the verified changes beside the delta are what ran: the selection, not the chunk left out
    changes = partial.get_by_test_id("applypatch-delta")
    expect(changes).to_contain_text("run(debug=False)")
    expect(changes).not_to_contain_text("return not debug")

    # Undo: the tree as before the call, byte for byte and mode for mode
    section = partial.get_by_test_id("applypatch-undo-panel")
    expect(section.get_by_test_id("applypatch-place")).to_have_text("call 1 of 1 in turn-1")
    undo = section.get_by_test_id("applypatch-undo")
    expect(undo).to_have_accessible_name(re.compile("^Undo this call"))
    expect(undo).to_be_visible()
    undo.click()
    last = section.locator(".applypatch-undo-last")
    expect(last).to_contain_text("undo call-2: completed", timeout=15_000)
    assert snapshot_dir_with_modes(project) == before
    expect(undo).to_be_hidden()
    redo = section.get_by_test_id("applypatch-redo")
    expect(redo).to_be_visible()
    expect(section.get_by_test_id("applypatch-place")).to_have_text("call 1 of 2 in turn-1")
    partial.screenshot(path=str(artifacts_dir / "widget-undone.png"))

    # Redo, then Undo again: each checked on disk
    redo.click()
    expect(last).to_contain_text("redo call-3: completed", timeout=15_000)
    assert snapshot_dir_with_modes(project) == after
    expect(undo).to_be_visible()
    undo.click()
    expect(last).to_contain_text("undo call-4: completed", timeout=15_000)
    assert snapshot_dir_with_modes(project) == before

    # a decline with a reason typed beside Decline
    run_lab_cells(page, name, [2])
    declined = panel.locator(WIDGET).nth(1)
    reason = declined.get_by_test_id("applypatch-reason-input")
    expect(reason).to_be_visible(timeout=30_000)
    reason.fill("keep.txt is read by the tests")
    declined.get_by_test_id("applypatch-decline").click()
    expect(declined.get_by_test_id("applypatch-status")).to_have_text("declined", timeout=15_000)
    expect(declined).to_contain_text("The user's reason: keep.txt is read by the tests")
    assert snapshot_dir_with_modes(project) == before
    run_lab_cells(page, name, [3])
    output = panel.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output")
    expect(output).to_contain_text(
        'CHECK "patch rejected by user\\nThe user\'s reason: keep.txt is read by the tests"',
        timeout=15_000,
    )
    watch.check()


TOUR = Path(__file__).resolve().parents[2] / "notebooks" / "01_tour.ipynb"


def test_the_undo_panel_shows_a_notebook_as_cells_and_undo_restores_its_bytes(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    """Issue 15 item 3: before the click, the cells Undo would restore; after it, the bytes."""
    project = jupyter_lab.root / "undo-notebook"
    project.mkdir()
    shutil.copy(TOUR, project / "tour.ipynb")
    before = snapshot_dir_with_modes(project)
    title = '    "# 01 · A tour of `%%apply_patch`\\n",'
    name = jupyter_lab.write_notebook(
        "undo-notebook.ipynb",
        [
            "%load_ext applypatch_ext",
            "%%apply_patch --cwd undo-notebook --new-turn --stream-chunk 0\n"
            "*** Begin Patch\n*** Update File: tour.ipynb\n@@\n"
            f"-{title}\n+{title.replace('A tour', 'A short tour')}\n*** End Patch",
        ],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET).nth(0)
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    assert (project / "tour.ipynb").read_bytes() != before["tour.ipynb"][0]
    section = widget.get_by_test_id("applypatch-undo-panel")
    cells = section.get_by_test_id("applypatch-undo-notebooks")
    expect(cells).to_be_visible()
    # folded (the call's own change is the first cell view a reader sees), a click opens it
    assert cells.evaluate("(s) => !s.open")
    cells.locator("summary").first.click()
    restore = cells.locator("[data-testid=applypatch-nb][data-view=undo]")
    expect(restore).to_have_attribute(
        "aria-label",
        re.compile(
            r"^notebook tour\.ipynb, what Undo would restore \(the call's change, reversed\): "
            "1 changed, "
        ),
    )
    source = restore.get_by_test_id("applypatch-nb-source")
    expect(source.locator(".applypatch-dl-del")).to_contain_text("# 01 · A short tour of")
    expect(source.locator(".applypatch-dl-add")).to_contain_text("# 01 · A tour of")
    section.screenshot(path=str(artifacts_dir / "undo-notebook-cells.png"))

    section.get_by_test_id("applypatch-undo").click()
    expect(section.locator(".applypatch-undo-last")).to_contain_text(
        "undo call-2: completed", timeout=15_000
    )
    assert snapshot_dir_with_modes(project) == before
    expect(cells.locator("[data-testid=applypatch-nb]")).to_have_attribute("data-view", "redo")
    watch.check()
