"""The desk in a real JupyterLab in Debian's Chromium: an agent's call (the real ``mcp``
client, from this test process) appears in the desk's output below ``%apply_patch_mcp start``,
its diff shown before anything is written; a click on Approve answers it, the file changes on
disk, and the agent receives Codex's text; saved and reopened without the kernel, the desk's
record shows the call. At a desk that asks for every write: a review with a chunk and a file
unticked approves the ticked part only, "Approve for session" lets the agent's next call of
the file through without a question, and a call's Undo button puts the file back."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from ..desk.conftest import SUCCESS, UPDATE, text_of, wait_for
from .conftest import JupyterServer, PageWatch
from .pages import (
    LAB_KERNEL_READY,
    WIDGET,
    expect,
    history,
    open_lab_notebook,
    run_lab_cells,
    saved_live_views,
)
from .test_saved_browser import LAB_PANEL_JS

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser


def call_desk(address: dict[str, str], outputs: list[str], patch: str = UPDATE) -> threading.Thread:
    """The agent: the real ``mcp`` client calling the desk's apply_patch with ``patch``, in a
    thread of its own; the text it receives is appended to ``outputs``."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> None:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {address['token']}"})
        async with http, Client(streamable_http_client(address["url"], http_client=http)) as c:
            outputs.append(text_of(await c.call_tool("apply_patch", {"patch": patch})))

    thread = threading.Thread(target=anyio.run, args=(run,))
    thread.start()
    return thread


def start_desk(
    page: Page, server: JupyterServer, name: str, options: str
) -> tuple[Locator, dict[str, str]]:
    """A notebook ``name`` that starts the desk (``%apply_patch_mcp start OPTIONS``), opened
    and run: the start cell's output area (the desk's calls appear there), and the desk's
    address (its URL and token, which the notebook writes into a file beside it)."""
    address_file = server.root / f"{Path(name).stem}-address.json"
    address_file.unlink(missing_ok=True)
    server.write_notebook(
        name,
        [
            "%load_ext applypatch_ext",
            f"%apply_patch_mcp start {options}",
            # written whole, then renamed: the test sees no file or the whole file, never
            # an empty one created before its text
            "import json, os, pathlib\n"
            "pathlib.Path('desk-address.part').write_text("
            "json.dumps({'url': desk.url, 'token': desk.token}))\n"
            f"os.replace('desk-address.part', {address_file.name!r})",
        ],
    )
    panel = open_lab_notebook(page, server.url, name)
    run_lab_cells(page, name, [0, 1, 2])
    start_output = panel.locator(".jp-Cell").nth(1).locator(".jp-Cell-outputArea")
    expect(start_output).to_contain_text("[mcp_servers.desk]", timeout=30_000)
    wait_for(address_file.is_file, "the notebook wrote the desk's address")
    address: dict[str, str] = json.loads(address_file.read_text())
    return start_output, address


def test_an_agents_call_appears_at_the_desk_and_approve_answers_it(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    root = jupyter_lab.root
    (root / "a.txt").write_text("one\ntwo\n")
    name = "desk.ipynb"
    start_output, address = start_desk(page, jupyter_lab, name, "--review")

    outputs: list[str] = []
    agent = call_desk(address, outputs)
    widget = start_output.locator(WIDGET)
    expect(widget).to_have_count(1, timeout=30_000)
    expect(widget.get_by_test_id("applypatch-review")).to_contain_text("+TWO", timeout=30_000)
    assert (root / "a.txt").read_text() == "one\ntwo\n"  # nothing written before the answer
    widget.screenshot(path=str(artifacts_dir / "desk-call.png"))
    widget.get_by_test_id("applypatch-approve").click()
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    agent.join(60)
    # the desk's static record (what the saved notebook keeps) stays hidden while the live
    # view is on the page, also after its updates
    record = start_output.locator("[data-applypatch-record]")
    expect(record).to_contain_text("completed", timeout=30_000)
    expect(record).to_be_hidden()
    assert outputs == [SUCCESS + "M a.txt\n"]
    assert (root / "a.txt").read_text() == "one\nTWO\n"
    watch.check()

    # saved, the kernel shut down, reopened: the desk's record shows the call, no live view
    page.evaluate(f"async (path) => {{ await ({LAB_PANEL_JS})(path).context.save(); }}", name)
    saved = _saved_outputs(root / name)
    # the desk's live view kept as a placeholder (its kernel's model fills it after a reload)
    assert len(saved_live_views(json.loads((root / name).read_text()))) == 1
    (saved_record,) = [
        o for o in saved if "record" in o.get("metadata", {}).get("applypatch_ext", {})
    ]
    assert "completed" in "".join(saved_record["data"]["text/plain"])
    page.evaluate(
        f"async (path) => {{ await ({LAB_PANEL_JS})(path).sessionContext.shutdown(); }}", name
    )
    page.goto(f"{jupyter_lab.url}/lab/tree/{name}?reset")
    page.wait_for_function(LAB_KERNEL_READY, arg=name, timeout=90_000, polling=100)
    reopened = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    shown = reopened.locator(".jp-Cell").nth(1).locator("[data-applypatch-record]")
    expect(shown).to_be_visible(timeout=30_000)
    expect(shown).to_contain_text("completed")
    expect(reopened.locator(WIDGET)).to_have_count(0)


def _saved_outputs(path: Path) -> list[dict[str, Any]]:
    """The outputs of the saved file once the desk's record in it is final (saving is async)."""
    deadline = time.monotonic() + 30
    while True:
        nb = json.loads(path.read_text())
        outputs = [o for cell in nb["cells"] for o in cell.get("outputs", [])]
        plain = [
            "".join(o["data"].get("text/plain", ""))
            for o in outputs
            if "record" in o.get("metadata", {}).get("applypatch_ext", {})
        ]
        if plain and "completed" in plain[0]:
            return outputs
        assert time.monotonic() < deadline, f"never saved with the desk's final record: {plain}"
        time.sleep(0.2)


SIX = "one\ntwo\nthree\nfour\nfive\nsix\n"
#: The agent's three calls: two chunks of a.txt and a new b.txt; then the chunk left out;
#: then another change of a.txt, the file granted for the session by the answer to the second.
FIRST = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: a.txt",
        "@@",
        "-one",
        "+ONE",
        "@@",
        "-six",
        "+SIX",
        "*** Add File: b.txt",
        "+bee",
        "*** End Patch",
    ]
)
SECOND = "*** Begin Patch\n*** Update File: a.txt\n@@\n-six\n+SIX\n*** End Patch"
THIRD = "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch"


def test_at_the_desk_approve_the_ticked_part_then_for_session_then_undo(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    """An agent's three calls at a desk that asks for every write (``untrusted``): the first
    approved with a chunk and a file unticked (only the ticked chunk is written, and the agent
    is told what was left out), the second approved for the session, the third then written
    without a question; the third's Undo (approved, as the policy asks) puts a.txt back as the
    second left it."""
    project = jupyter_lab.root / "desk-session"
    project.mkdir(exist_ok=True)
    (project / "a.txt").write_text(SIX)
    (project / "b.txt").unlink(missing_ok=True)
    start_output, address = start_desk(
        page, jupyter_lab, "desk-session.ipynb", "--approval-policy untrusted --cwd desk-session"
    )
    widgets = start_output.locator(WIDGET)
    outputs: list[str] = []

    # 1. a chunk and a file unticked: Approve approves the ticked chunk only
    agent = call_desk(address, outputs, FIRST)
    first = widgets.nth(0)
    status = first.get_by_test_id("applypatch-status")
    expect(status).to_have_text("waiting for approval", timeout=60_000)
    expect(first.get_by_role("checkbox")).to_have_count(4)  # a.txt, its 2 chunks, b.txt
    first.get_by_role("checkbox", name="a.txt chunk 2 of 2, line 6", exact=True).click()
    first.get_by_role("checkbox", name="b.txt (added, all or nothing)", exact=True).click()
    approve = first.get_by_test_id("applypatch-approve")
    expect(approve).to_have_text("Approve selected (1 of 3)")
    expect(first.get_by_test_id("applypatch-ticks-note")).to_have_text(
        "Approving applies the ticked 1 of 3 only; not applied: a.txt chunk 2 of 2, b.txt"
    )
    first.screenshot(path=str(artifacts_dir / "desk-ticked.png"))
    assert (project / "a.txt").read_bytes() == SIX.encode()  # nothing written while it waits
    approve.click()
    expect(status).to_have_text("completed", timeout=60_000)
    agent.join(60)
    assert outputs == [
        SUCCESS + "M a.txt\n"
        "not applied, by the user: a.txt chunk 2 of 2\n"
        "not applied, by the user: b.txt\n"
    ]
    after_first = SIX.replace("one", "ONE").encode()
    assert (project / "a.txt").read_bytes() == after_first
    assert not (project / "b.txt").exists()
    expect(first).to_contain_text("not applied, by the user: a.txt chunk 2 of 2")

    # 2. the chunk left out, approved for the session (a.txt is granted to the desk's calls)
    agent = call_desk(address, outputs, SECOND)
    second = widgets.nth(1)
    status = second.get_by_test_id("applypatch-status")
    expect(status).to_have_text("waiting for approval", timeout=60_000)
    assert (project / "a.txt").read_bytes() == after_first
    second.get_by_test_id("applypatch-approve-session").click()
    expect(status).to_have_text("completed", timeout=60_000)
    agent.join(60)
    assert outputs[1:] == [SUCCESS + "M a.txt\n"]
    after_second = SIX.replace("one", "ONE").replace("six", "SIX").encode()
    assert (project / "a.txt").read_bytes() == after_second

    # 3. a.txt again: written at once, no question, nobody clicks
    agent = call_desk(address, outputs, THIRD)
    agent.join(60)
    assert not agent.is_alive()
    assert outputs[2:] == [SUCCESS + "M a.txt\n"]
    after_third = after_second.replace(b"two", b"TWO")
    assert (project / "a.txt").read_bytes() == after_third
    expect(widgets).to_have_count(3, timeout=60_000)
    third = widgets.nth(2)
    status = third.get_by_test_id("applypatch-status")
    expect(status).to_have_text("completed", timeout=60_000)
    expect(third.get_by_test_id("applypatch-approve")).to_be_hidden()  # nothing to answer
    third.screenshot(path=str(artifacts_dir / "desk-no-question.png"))
    # the stage of the question passed over (struck through: no approval request was made),
    # and no view of the call ever said it waited
    stages = third.get_by_test_id("applypatch-stage")
    expect(stages.locator(".applypatch-stage-skipped")).to_have_text(["waiting for approval"])
    shown = {entry["v"] for entry in history(third) if entry["k"] == "status"}
    assert "awaiting-approval" not in shown, shown

    # 4. the third call's Undo: a.txt as the second call left it
    section = third.get_by_test_id("applypatch-undo-panel")
    expect(section.get_by_test_id("applypatch-place")).to_have_text("call 3 of 3 in turn-1")
    undo = section.get_by_test_id("applypatch-undo")
    expect(undo).to_be_visible()
    undo.click()
    # the undo is a call of the notebook's turn, under the desk's policy: it asks the person
    # too (the session's grant was the agent's, for its own calls)
    last = section.locator(".applypatch-undo-last")
    expect(last).to_contain_text("undo call-4: waiting for approval", timeout=60_000)
    assert (project / "a.txt").read_bytes() == after_third
    section.get_by_test_id("applypatch-undo-approve").click()
    expect(last).to_contain_text("undo call-4: completed", timeout=60_000)
    assert (project / "a.txt").read_bytes() == after_second
    expect(status).to_have_text("undone")
    expect(section.get_by_test_id("applypatch-place")).to_have_text("call 3 of 4 in turn-1")
    expect(undo).to_be_hidden()
    expect(section.get_by_test_id("applypatch-redo")).to_be_visible()
    third.screenshot(path=str(artifacts_dir / "desk-undone.png"))
    watch.check()
