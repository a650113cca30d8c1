"""The desk in a real JupyterLab in Debian's Chromium: an agent's call (the real ``mcp``
client, from this test process) appears in the desk's output below ``%apply_patch_mcp start``,
its diff shown before anything is written; a click on Approve answers it, the file changes on
disk, and the agent receives Codex's text; saved and reopened without the kernel, the desk's
record shows the call."""

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
    open_lab_notebook,
    run_lab_cells,
    saved_live_views,
)
from .test_saved_browser import LAB_PANEL_JS

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def call_desk(address: dict[str, str], outputs: list[str]) -> threading.Thread:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> None:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {address['token']}"})
        async with http, Client(streamable_http_client(address["url"], http_client=http)) as c:
            outputs.append(text_of(await c.call_tool("apply_patch", {"patch": UPDATE})))

    thread = threading.Thread(target=anyio.run, args=(run,))
    thread.start()
    return thread


def test_an_agents_call_appears_at_the_desk_and_approve_answers_it(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    root = jupyter_lab.root
    (root / "a.txt").write_text("one\ntwo\n")
    address_file = root / "desk-address.json"
    address_file.unlink(missing_ok=True)
    name = jupyter_lab.write_notebook(
        "desk.ipynb",
        [
            "%load_ext applypatch_ext",
            "%apply_patch_mcp start --review",
            # written whole, then renamed: the test sees no file or the whole file, never
            # an empty one created before its text
            "import json, os, pathlib\n"
            "pathlib.Path('desk-address.part').write_text("
            "json.dumps({'url': desk.url, 'token': desk.token}))\n"
            "os.replace('desk-address.part', 'desk-address.json')",
        ],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1, 2])
    start_output = panel.locator(".jp-Cell").nth(1).locator(".jp-Cell-outputArea")
    expect(start_output).to_contain_text("[mcp_servers.desk]", timeout=30_000)
    wait_for(address_file.is_file, "the notebook wrote the desk's address")
    address = json.loads(address_file.read_text())

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
