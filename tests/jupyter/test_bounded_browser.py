"""Bounded views name every file and show small files whole (issue 23 item 4), as a user sees
them in a real JupyterLab and Notebook 7 (Chromium).

A call adds a 1,300-line file and changes one line of ``app.py``; a second call adds a
1,296-line file and a one-line ``z.txt``; ``%apply_patch_turn`` shows the turn. In the live
widget, in ``%apply_patch_turn``'s output, and in the saved notebook reopened after its kernel
is gone (each call's static record), every file is named with its +/- counts, ``app.py`` and
``z.txt`` are shown whole, and a large file is whole or its cut says how many lines it leaves
out. The logic is held by fast tests (test_static_diff.py) and by the saved file's contents
(test_nbclient_records.py); this test holds what the page shows.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from applypatch_ext.jupyter.records.vocabulary import status_meaning

from .bounded import APP, BIG, BIG_LINES, patch
from .conftest import JupyterServer, PageWatch
from .pages import FRONTS, PANEL_OF, WIDGET, Front, expect

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

COMPLETED = status_meaning("completed")["label"]
Y_LINES = 1296
SMALL_AFTER_LARGE = patch(
    "*** Add File: y.txt",
    *(f"+row {i} of another generated file" for i in range(Y_LINES)),
    "*** Add File: z.txt",
    "+zed",
)
CELLS = [
    "%load_ext applypatch_ext",
    f"from pathlib import Path\nPath('app.py').write_text({APP!r})\nprint('ready')",
    f"%%apply_patch --stream-chunk 0\n{BIG}",
    f"%%apply_patch --stream-chunk 0\n{SMALL_AFTER_LARGE}",
    "%apply_patch_turn",
]
#: Each file of the turn: its +/- counts, and a line only its whole diff shows.
FILES = {
    "big.txt": ("+1300 -0", f"line {BIG_LINES - 1} of a generated file"),
    "app.py": ("+1 -1", "run(debug=False)"),
    "y.txt": (f"+{Y_LINES} -0", f"row {Y_LINES - 1} of another generated file"),
    "z.txt": ("+1 -0", "zed"),
}
#: Shown whole in every view (a one-line change after a large one).
SMALL = ("app.py", "z.txt")
#: A large file's lines, as a view shows them.
LINE = {"big.txt": r"line \d+ of a generated file", "y.txt": r"row \d+ of another generated file"}

SAVE_AND_SHUT_DOWN = f"""async (path) => {{
    const panel = ({PANEL_OF})(path);
    await panel.context.save();
    await panel.sessionContext.shutdown();
}}"""
TEXT = "(e) => e.textContent.replace(/\\s+/g, ' ')"


def static_files(view: Locator) -> dict[str, str]:
    """Each file block of a static view (a record, or ``%apply_patch_turn``): its text."""
    blocks = view.locator("[data-applypatch-file]")
    found: dict[str, str] = {}
    for index in range(blocks.count()):
        block = blocks.nth(index)
        name = block.get_attribute("data-applypatch-file") or ""
        expect(block.locator("summary").first).to_be_visible()  # named where the reader looks
        found[name] = block.evaluate(TEXT)
    return found


def check_static(view: Locator, names: list[str], whole: bool) -> None:
    """``names`` named with their counts; the small files whole; each large file whole
    (``whole``) or its shown lines and its cut marker's count adding up to its lines."""
    files = static_files(view)
    assert list(files) == names, list(files)
    for name in names:
        counts, line = FILES[name]
        assert counts in files[name], (name, files[name][:300])
        if name in SMALL:
            assert line in files[name] and "✂" not in files[name], (name, files[name])
    if "app.py" in files:
        assert "run(debug=True)" in files["app.py"], files["app.py"]
    for name, pattern in LINE.items():
        if name not in files:
            continue
        shown = len(re.findall(pattern, files[name]))
        lines = int(FILES[name][0][1:].split()[0])
        if whole:
            assert shown == lines and "✂" not in files[name], (name, shown)
        else:
            cut = view.locator(f'[data-applypatch-file="{name}"] [data-applypatch-cut]')
            left_out = int(cut.get_attribute("data-applypatch-cut") or 0) if cut.count() else 0
            assert shown + left_out == lines, (name, shown, left_out)
    # the file list: each file with its counts
    listed = view.locator("ul[aria-label=files]").first.evaluate(TEXT)
    for name in names:
        assert f"{name}{FILES[name][0]}" in listed, (name, listed)


def check_live(live: Locator, names: list[str]) -> None:
    """The live view's verified changes: every file named with its counts (its block and the
    file list), the small files open and shown whole."""
    delta = live.get_by_test_id("applypatch-delta")
    heads = delta.locator("summary.applypatch-file-head")
    expect(heads).to_have_count(len(names))
    for index, name in enumerate(names):
        added, removed = FILES[name][0][1:].split(" -")
        expect(heads.nth(index)).to_have_attribute(
            "aria-label", f"{name}: {added} added, {removed} removed lines"
        )
        expect(heads.nth(index)).to_be_visible()
        expect(delta.locator(".applypatch-filelist li").nth(index)).to_contain_text(
            re.compile(rf"{re.escape(name)}\s*\+{added}\s*-{removed}")
        )
    for name in SMALL:
        if name not in names:
            continue
        head = live.page.locator(f'summary[aria-label^="{name}:"]')
        block = delta.locator("details.applypatch-file", has=head)
        expect(block).to_have_attribute("open", "")
        body = block.locator(".applypatch-file-body")
        expect(body).to_be_visible()
        expect(body).to_contain_text(FILES[name][1])
        if name == "app.py":
            expect(body).to_contain_text("run(debug=True)")
        expect(block.locator(".applypatch-cut")).to_have_count(0)


@FRONTS
def test_bounded_views_name_every_file_and_show_small_ones_whole(
    page: Page, request: pytest.FixtureRequest, watch: PageWatch, front: Front
) -> None:
    server: JupyterServer = request.getfixturevalue(front.fixture)
    name = server.write_notebook("bounded.ipynb", CELLS)
    for file in ("app.py", "big.txt", "y.txt", "z.txt"):
        (server.root / file).unlink(missing_ok=True)
    front.open(page, server, name)
    front.run(page, name, list(range(len(CELLS))))
    cells = front.cells(page)

    # the live widgets
    for index, names in ((2, ["big.txt", "app.py"]), (3, ["y.txt", "z.txt"])):
        live = cells.nth(index).locator(WIDGET)
        expect(live.get_by_test_id("applypatch-status")).to_have_text(COMPLETED, timeout=60_000)
        check_live(live, names)
    # %apply_patch_turn in the live session: the whole turn, z.txt named after y.txt
    turn = cells.nth(4).locator(".jp-OutputArea-output")
    expect(turn.locator('[data-applypatch-file="z.txt"]')).to_have_count(1, timeout=60_000)
    check_static(turn, ["app.py", "big.txt", "y.txt", "z.txt"], whole=True)

    # saved, the kernel gone, reopened: each call's record, and %apply_patch_turn's output
    expect(cells.nth(4).locator(".jp-InputPrompt")).to_have_text("[5]:", timeout=60_000)
    page.evaluate(SAVE_AND_SHUT_DOWN, name)
    front.open(page, server, name)
    reopened = front.cells(page)
    expect(reopened.locator(WIDGET)).to_have_count(0)
    for index, names in ((2, ["big.txt", "app.py"]), (3, ["y.txt", "z.txt"])):
        record = reopened.nth(index).locator(".applypatch-static")
        expect(record).to_be_visible(timeout=30_000)
        expect(record).to_contain_text(COMPLETED)
        check_static(record, names, whole=False)
    check_static(
        reopened.nth(4).locator(".jp-OutputArea-output"),
        ["app.py", "big.txt", "y.txt", "z.txt"],
        whole=True,
    )
    watch.check(known=front.known)
