"""A call waiting for approval survives a page reload while its kernel lives (issue 23 item 1),
in a real JupyterLab and Notebook 7 (Chromium).

The user runs a call that waits, saves, and reloads the tab (or navigates away and back): the
kernel keeps running, so the cell shows the live view again, with its Approve / Decline buttons
and reason box, and a click there resumes the call. Answered from code instead
(``waiting.decide("approve")`` in another cell), the call's own record, in the page and in the
saved file, is updated when the call ends: it never keeps saying "waiting for approval". How it
works: the server saves each live view with a placeholder model, which the widget manager
replaces with the kernel's own (applypatch_ext/live_views.py); the package's labextension routes
the kernel's updates of a record to the record after a reload (labextension/src/records.js).
Every test runs in both front ends (``Front``), each on the worker that has its server.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from applypatch_ext.jupyter.records.vocabulary import request_words, status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import (
    FRONTS,
    MODEL_RECORDS,
    PANEL_OF,
    WIDGET,
    Front,
    expect,
)

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

SHUTDOWN_ALL = """async () => {
    const app = window.jupyterapp;
    for (const w of app ? [...app.shell.widgets('main')] : []) {
        if (w.sessionContext?.session) await w.sessionContext.shutdown();
    }
}"""


@pytest.fixture(autouse=True)
def _kernels_shut_down(page: Page) -> Iterator[None]:
    """Each test's kernels end with it, answered or not (a waiting call would keep its kernel
    busy with the machine's other tests)."""
    yield
    with contextlib.suppress(Exception):  # a page already gone has nothing to shut down
        page.evaluate(SHUTDOWN_ALL)


WAITING = status_meaning("awaiting-approval")["label"]
COMPLETED = status_meaning("completed")["label"]
RECORD = "[data-applypatch-record]"
ASK = "\n".join(["*** Begin Patch", "*** Add File: asked.txt", "+yes", "*** End Patch"])
CELLS = [
    "%load_ext applypatch_ext",
    f"%%apply_patch waiting --approval-policy untrusted --stream-chunk 0\n{ASK}",
    "waiting.decide('approve')\nprint(waiting.status)",
]
SAVE = f"async (path) => {{ await ({PANEL_OF})(path).context.save(); }}"
KERNEL_ID = f"(path) => ({PANEL_OF})(path).sessionContext.session.kernel.id"


def saved_record(server: JupyterServer, name: str, word: str) -> str:
    """The saved file's record of the waiting call, once it says ``word`` (saving is async)."""
    deadline = time.monotonic() + 60
    while True:
        nb: dict[str, Any] = json.loads((server.root / name).read_text())
        outputs = nb["cells"][1].get("outputs", [])
        texts = [
            "".join(o["data"]["text/plain"])
            for o in outputs
            if "record" in o.get("metadata", {}).get("applypatch_ext", {})
        ]
        if texts and word in texts[0]:
            return texts[0]
        assert time.monotonic() < deadline, f"the saved record never said {word!r}: {texts}"
        time.sleep(0.2)


def waiting_call(page: Page, panel: Locator) -> Locator:
    """The waiting call's cell, once its live view asks."""
    cell = panel.locator(".jp-Cell").nth(1)
    live = cell.locator(WIDGET)
    expect(live.get_by_test_id("applypatch-status")).to_have_text(WAITING, timeout=30_000)
    return cell


def answerable_again(cell: Locator) -> Locator:
    """After the reload: the live view is back in the cell, its buttons and reason box on."""
    live = cell.locator(WIDGET)
    expect(live).to_have_count(1, timeout=30_000)
    expect(live.get_by_test_id("applypatch-status")).to_have_text(WAITING)
    # the question and its count, Python's words, come back with the kernel's model
    words = request_words(1)
    expect(live.locator(".applypatch-approval-text")).to_contain_text(words["heading"])
    expect(live.locator(".applypatch-approval-text")).to_contain_text(words["writes"])
    for testid in ("applypatch-approve", "applypatch-approve-session", "applypatch-decline"):
        expect(live.get_by_test_id(testid)).to_be_enabled()
    expect(live.get_by_test_id("applypatch-reason-input")).to_be_editable()
    expect(cell.locator(RECORD)).to_be_hidden()  # the live view hides its record again
    return live


def waiting_in(front: Front, page: Page, server: JupyterServer, name: str, cells: list[str]) -> str:
    """The notebook of ``cells`` opened, its first two run (the call waits) and saved; the
    saved record of the waiting call."""
    server.write_notebook(name, cells)
    (server.root / "asked.txt").unlink(missing_ok=True)
    panel = front.open(page, server, name)
    front.run(page, name, [0, 1])
    waiting_call(page, panel)
    # the record's update is a message of its own, which may come after the live view's: the
    # save writes what the model holds
    recorded(page, name, "waiting for approval")
    page.evaluate(SAVE, name)
    return saved_record(server, name, "waiting for approval")


def approve_there(live: Locator, root: Path) -> None:
    live.get_by_test_id("applypatch-approve").click()
    expect(live.get_by_test_id("applypatch-status")).to_have_text(COMPLETED, timeout=30_000)
    assert (root / "asked.txt").read_text() == "yes\n"


def recorded(page: Page, path: str, word: str = COMPLETED) -> None:
    """The cell's own record (hidden under its live view) says ``word`` (by default that the
    call completed) in the notebook's model: the page holds the kernel's update of it, so a
    save keeps it."""
    page.wait_for_function(
        f"(path) => ({MODEL_RECORDS})(path, 1).join('|').includes({json.dumps(word)})",
        arg=path,
        timeout=60_000,
        polling=200,
    )


@FRONTS
@pytest.mark.parametrize("how", ["reload", "away-and-back"])
def test_a_waiting_call_is_answerable_after_a_reload(
    page: Page, request: pytest.FixtureRequest, watch: PageWatch, front: Front, how: str
) -> None:
    server: JupyterServer = request.getfixturevalue(front.fixture)
    name = f"reload-{how}.ipynb"
    waiting_in(front, page, server, name, CELLS)
    kernel = page.evaluate(KERNEL_ID, name)
    if how == "reload":
        page.reload()
    else:
        page.goto("about:blank")
        page.go_back()
    front.ready(page, name)
    assert page.evaluate(KERNEL_ID, name) == kernel  # the same kernel: the call still waits
    approve_there(answerable_again(front.cells(page).nth(1)), server.root)
    recorded(page, name)
    page.evaluate(SAVE, name)
    assert "completed" in saved_record(server, name, "completed")
    watch.check(known=front.known)


@FRONTS
def test_a_call_answered_from_code_after_a_reload_updates_its_record(
    page: Page, request: pytest.FixtureRequest, watch: PageWatch, front: Front
) -> None:
    server: JupyterServer = request.getfixturevalue(front.fixture)
    name = "reload-decide.ipynb"
    waiting_in(front, page, server, name, CELLS)
    page.reload()
    front.ready(page, name)
    front.run(page, name, [2])
    cells = front.cells(page)
    expect(cells.nth(2).locator(".jp-OutputArea-output")).to_have_text("completed", timeout=30_000)
    # the original cell: its view (or its record) says the call completed
    expect(cells.nth(1).locator(WIDGET).get_by_test_id("applypatch-status")).to_have_text(
        COMPLETED, timeout=30_000
    )
    expect(cells.nth(1).locator(RECORD)).to_have_count(1)
    recorded(page, name)  # the record's update is a message of its own, maybe after the view's
    page.evaluate(SAVE, name)
    assert "waiting for approval" not in saved_record(server, name, "completed")
    watch.check(known=front.known)


@FRONTS
def test_an_unnamed_call_is_answered_through_apply_patch_turn_after_a_reload(
    page: Page, request: pytest.FixtureRequest, watch: PageWatch, front: Front
) -> None:
    """A call stored in no variable: its record says `%apply_patch_turn` shows it; run in
    another cell after the reload, it shows the call live (its own copy of the record hidden),
    and the answer given there updates the first cell's record, in the page and the file."""
    server: JupyterServer = request.getfixturevalue(front.fixture)
    cells_text = [
        CELLS[0],
        f"%%apply_patch --approval-policy untrusted --stream-chunk 0\n{ASK}",
        "%apply_patch_turn",
    ]
    name = "reload-turn.ipynb"
    assert "%apply_patch_turn" in waiting_in(front, page, server, name, cells_text)
    page.reload()
    front.ready(page, name)
    front.run(page, name, [2])
    cells = front.cells(page)
    expect(cells.nth(2)).to_contain_text("1 call of this turn waits for an answer", timeout=30_000)
    again = answerable_again(cells.nth(2))  # a view of the same widget, its record hidden
    expect(cells.nth(1).locator(WIDGET)).to_have_count(1)  # the first cell's view is back too
    approve_there(again, server.root)
    expect(cells.nth(1).locator(WIDGET).get_by_test_id("applypatch-status")).to_have_text(COMPLETED)
    for index in (1, 2):  # both copies of the record: the same display id
        expect(cells.nth(index).locator(RECORD)).to_contain_text(COMPLETED, timeout=30_000)
        expect(cells.nth(index).locator(RECORD)).to_be_hidden()
    recorded(page, name)
    page.evaluate(SAVE, name)
    assert "waiting for approval" not in saved_record(server, name, "completed")
    watch.check(known=front.known)
