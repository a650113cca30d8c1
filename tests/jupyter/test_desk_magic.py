"""``%apply_patch_mcp``: the desk in the kernel, through the real IPython shell and the real
``mcp`` client: the printed configuration, each call's widget in the desk's output, answers from
the widget's buttons and from ``NAME.calls[-1].decide``, several waiting calls answered in any
order, the desk's turn shared with a person's cells, stop and status, the user errors."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.jupyter.live import desk as live_desk
from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.magics.desk import (
    DESKS,
    INTERRUPTED,
    STOPPED,
    DeskHandle,
    decline_waiting,
)

from ..desk.conftest import ADD_B, ADD_C, SUCCESS, UPDATE, text_of, wait_for
from .conftest import RecordingWidget
from .test_undo_magic import click


class Agent:
    """An MCP client in a thread of its own, calling the desk's tools as an agent would."""

    def __init__(self, handle: DeskHandle) -> None:
        self.handle = handle
        self.outputs: dict[str, str] = {}
        self.threads: list[threading.Thread] = []

    def call(self, key: str, tool: str, arguments: dict[str, Any]) -> None:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        async def run() -> None:
            headers = {"Authorization": f"Bearer {self.handle.token}"}
            http = create_mcp_http_client(headers=headers)
            async with http, Client(streamable_http_client(self.handle.url, http_client=http)) as c:
                self.outputs[key] = text_of(await c.call_tool(tool, arguments))

        thread = threading.Thread(target=anyio.run, args=(run,))
        thread.start()
        self.threads.append(thread)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(60)
            assert not thread.is_alive()


@pytest.fixture
def start(ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(live_desk, "ApplyPatchWidget", RecordingWidget)

    def started(line: str = "") -> tuple[DeskHandle, str]:
        with capture_output() as captured:
            ip.run_line_magic("apply_patch_mcp", f"start {line}")
        name = (line.split() or ["desk"])[0] if line and not line.startswith("-") else "desk"
        handle = ip.user_ns[name]
        assert isinstance(handle, DeskHandle)
        return handle, captured.stdout

    yield started
    for handle in list(DESKS.values()):
        handle.stop()
    DESKS.clear()


def pending(handle: DeskHandle, count: int = 1) -> list[Any]:
    wait_for(lambda: len(handle.pending) >= count, f"{count} call(s) waiting at the desk")
    return handle.pending


def test_start_prints_the_address_token_and_configurations(start: Any, tmp_path: Path) -> None:
    handle, printed = start("mydesk --review")
    assert handle.url.startswith("http://127.0.0.1:") and handle.url.endswith("/mcp")
    assert handle.token in printed and handle.url in printed
    assert "[mcp_servers.mydesk]" in printed and "bearer_token_env_var" in printed
    assert "claude mcp add --transport http mydesk" in printed
    # Jupyter AI's .jupyter/mcp_settings.json, in the schema its persona manager reads
    # (McpSettings: mcp_servers, each HTTP server with type, name, url, headers as name/value)
    assert ".jupyter/mcp_settings.json at the root of the workspace" in printed
    settings = json.loads(handle.jupyter_ai_config())
    assert settings == {
        "mcp_servers": [
            {
                "type": "http",
                "name": "mydesk",
                "url": handle.url,
                "headers": [{"name": "Authorization", "value": f"Bearer {handle.token}"}],
            }
        ]
    }
    assert handle.jupyter_ai_config() in printed
    assert handle.cwd == str(tmp_path)


def test_an_agents_call_is_a_widget_answered_by_its_button(
    start: Any, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    handle, _ = start("--review")
    before = len(RecordingWidget.instances)
    agent = Agent(handle)
    agent.call("update", "apply_patch", {"patch": UPDATE})
    (waiting,) = pending(handle)
    (widget,) = RecordingWidget.instances[before:]
    assert widget.patch_text == UPDATE  # the streamed preview shows the agent's patch
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"
    widget.approve("approve")  # what a click delivers, on the kernel's main thread
    agent.join()
    assert agent.outputs["update"] == SUCCESS + "M a.txt\n"
    assert waiting.status == CallStatus.COMPLETED and handle.calls == [waiting]
    assert (tmp_path / "a.txt").read_text() == "one\nTWO\n"
    # the output widget holds the call's widget
    (shown,) = handle.desk.output.outputs
    assert "application/vnd.jupyter.widget-view+json" in shown["data"]


def test_several_waiting_calls_are_answered_independently_from_code(
    start: Any, tmp_path: Path
) -> None:
    handle, _ = start("--review")
    agent = Agent(handle)
    agent.call("b", "apply_patch", {"patch": ADD_B})
    agent.call("c", "apply_patch", {"patch": ADD_C})
    pending(handle, 2)
    by_text = {r.raw.parsed.hunks[0].path: r for r in handle.calls}
    by_text["c.txt"].decide("decline", reason="not c")
    assert by_text["c.txt"].status == CallStatus.DECLINED  # decide() returns once it went on
    assert by_text["b.txt"].status == CallStatus.AWAITING_APPROVAL
    handle.calls[0 if by_text["b.txt"] is handle.calls[0] else 1].decide("approve")
    agent.join()
    assert agent.outputs == {
        "b": SUCCESS + "A b.txt\n",
        "c": "patch rejected by user\nThe user's reason: not c",
    }
    assert (tmp_path / "b.txt").is_file() and not (tmp_path / "c.txt").exists()


def test_the_desks_turn_is_the_notebooks(start: Any, ip: InteractiveShell, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    with capture_output():
        ip.run_cell_magic(
            "apply_patch",
            "--no-widget",
            "*** Begin Patch\n*** Add File: mine.txt\n+mine\n*** End Patch",
        )
    handle, _ = start()
    agent = Agent(handle)
    agent.call("update", "apply_patch", {"patch": UPDATE})
    agent.join()
    agent.call("diff", "turn_diff", {})
    agent.join()
    turn = SESSION.turn
    assert turn is not None and handle.desk.turn is turn
    # one TurnDiff: the person's file and the agent's change
    assert "+mine" in agent.outputs["diff"] and "+TWO" in agent.outputs["diff"]
    assert [c.call_id for c in turn.calls] == ["call-1", "call-2"]
    # and one undo history: the person undoes the agent's call from the notebook
    with capture_output():
        ip.run_line_magic("apply_patch_undo", "call-2")
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"


def test_a_desk_calls_widget_offers_undo_and_its_button_puts_the_file_back(
    start: Any, tmp_path: Path
) -> None:
    """The desk's calls share the notebook's undo history, and each call's widget is the one a
    cell shows: its Undo button undoes the agent's call (it had none: the desk's views were
    made without the undo machinery, so the panel stayed hidden and result.undo() was None)."""
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    handle, _ = start("--review")
    before = len(RecordingWidget.instances)
    agent = Agent(handle)
    agent.call("update", "apply_patch", {"patch": UPDATE})
    pending(handle)
    (widget,) = RecordingWidget.instances[before:]
    widget.approve("approve")
    agent.join()
    assert (tmp_path / "a.txt").read_text() == "one\nTWO\n"
    assert widget.undo["can_undo"] is True and widget.undo["can_redo"] is False
    assert {k: widget.undo["place"][k] for k in ("index", "count")} == {"index": 1, "count": 1}
    with capture_output() as captured:  # on the kernel's main thread, as a click
        click(widget, {"type": "undo", "kind": "undo"})
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"
    # the desk's record (what the saved notebook and nbconvert show) says so too
    plain = [o.data["text/plain"] for o in captured.outputs if o.update]
    assert any("undone: its files are back as before the call" in text for text in plain), plain
    assert widget.undo["last"]["status"] == "completed"
    assert widget.undo["last"]["call_id"] == "call-2"
    assert widget.undo["undone"] == "undone" and widget.undo["can_redo"] is True
    # result.undo() too: the call's result is undoable from code
    redone = handle.calls[0].redo()
    assert redone.status == CallStatus.COMPLETED
    assert (tmp_path / "a.txt").read_text() == "one\nTWO\n"


def test_a_desk_calls_undo_never_writes_through_a_link_planted_at_its_file(
    start: Any, tmp_path: Path
) -> None:
    """The attack on the desk's new Undo: after the agent's call wrote a.txt, a.txt becomes a
    link to precious.txt. Undo stops at the conflict, naming the link; its forced way replaces
    the link itself with the file as it was, and never writes (or reads) precious.txt."""
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "precious.txt").write_text("precious\n")
    handle, _ = start("--review")
    before = len(RecordingWidget.instances)
    agent = Agent(handle)
    agent.call("update", "apply_patch", {"patch": UPDATE})
    pending(handle)
    (widget,) = RecordingWidget.instances[before:]
    widget.approve("approve")
    agent.join()
    (tmp_path / "a.txt").unlink()
    (tmp_path / "a.txt").symlink_to("precious.txt")

    click(widget, {"type": "undo", "kind": "undo"})
    last = widget.undo["last"]
    assert last["status"] == "error"
    (conflict,) = last["conflicts"]
    assert conflict["found"] == "a symbolic link to precious.txt"
    assert (tmp_path / "a.txt").is_symlink()
    (way,) = [c for c in last["choices"] if c["message"].get("force")]
    click(widget, way["message"])
    assert widget.undo["last"]["status"] == "completed"
    assert not (tmp_path / "a.txt").is_symlink()
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"
    assert (tmp_path / "precious.txt").read_text() == "precious\n"


def test_stop_declines_what_waits_and_status_says_so(start: Any, ip: InteractiveShell) -> None:
    handle, _ = start("--review")
    agent = Agent(handle)
    agent.call("b", "apply_patch", {"patch": ADD_B})
    pending(handle)
    with capture_output() as captured:
        ip.run_line_magic("apply_patch_mcp", "stop")
    agent.join()
    assert "1 waiting call(s) declined" in captured.stdout and "stopped" in captured.stdout
    assert agent.outputs["b"] == "patch rejected by user\nThe user's reason: " + STOPPED
    assert handle.calls[0].status == CallStatus.DECLINED
    with capture_output() as captured:
        ip.run_line_magic("apply_patch_mcp", "status")
    assert "stopped" in captured.stdout and "1 declined" in captured.stdout


def test_an_interrupt_declines_what_waits(start: Any) -> None:
    handle, _ = start("--review")
    agent = Agent(handle)
    agent.call("b", "apply_patch", {"patch": ADD_B})
    pending(handle)
    decline_waiting(INTERRUPTED)  # what the SIGINT handler and the post-cell hook call
    agent.join()
    assert agent.outputs["b"] == "patch rejected by user\nThe user's reason: " + INTERRUPTED
    assert handle.running  # the desk goes on


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("status nodesk", "no desk named 'nodesk'"),
        ("start 1x", "NAME must be a Python identifier"),
        ("start --cwd /no/such/dir", "--cwd: no such directory"),
        ("start --answer-timeout 0", "--answer-timeout must be more than 0"),
        ("start --sandbox nope", "--sandbox"),
        ("launch", "argument action: invalid choice"),
    ],
    ids=["unknown", "bad-name", "bad-cwd", "bad-timeout", "bad-sandbox", "bad-action"],
)
def test_user_errors_are_usage_errors(ip: InteractiveShell, line: str, says: str) -> None:
    with pytest.raises(UsageError, match=says.replace("(", r"\(")):
        ip.run_line_magic("apply_patch_mcp", line)


def test_a_second_start_of_a_running_desk_is_refused(start: Any, ip: InteractiveShell) -> None:
    handle, _ = start()
    with pytest.raises(UsageError, match="is running at"):
        ip.run_line_magic("apply_patch_mcp", "start")
    assert handle.running
