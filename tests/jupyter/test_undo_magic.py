"""Undo, redo and the history through a real IPython shell: ``%apply_patch_undo``,
``%apply_patch_redo``, ``%apply_patch_turn --undo/--history``, ``result.undo()``, and the
widget's Undo button driven through its message handler (docs/behaviour.md §11). Every undo is
checked against the whole tree before the call, modes included (tests/trees.py)."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.jupyter.live import undo as undo_module
from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.records.display import render_html, render_markdown, render_plain

from ..trees import snapshot_dir_with_modes
from .conftest import Magic, RecordingWidget


def text_of(page: str) -> str:
    """The HTML's text as a reader sees it (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch\n"


@pytest.fixture
def magic(run_magic: Magic, monkeypatch: pytest.MonkeyPatch) -> Magic:
    monkeypatch.setattr(undo_module, "ApplyPatchWidget", RecordingWidget)
    SESSION.turns.clear()  # a fresh session's history: its first turn is turn-1
    return run_magic


def line(ip: InteractiveShell, name: str, text: str = "") -> Any:
    before = len(RecordingWidget.instances)
    with capture_output() as captured:
        ip.run_line_magic(name, text)
    return captured, RecordingWidget.instances[before:]


def click(widget: RecordingWidget, content: dict[str, Any]) -> None:
    """What a click on the Undo / Redo button (or the undo's approval) delivers to the kernel."""
    if content.get("type") == "undo-approval":  # it names the request the widget shows
        approval = widget.undo.get("last", {}).get("approval", {})
        content = {"request": approval.get("request_id"), **content}
    widget._handle_custom_msg(content, [])


def test_undo_magic_restores_the_tree_and_empties_the_turn_diff(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"one\r\ntwo\r\nend")
    (tmp_path / "run.sh").write_bytes(b"#!/bin/sh\n")
    os.chmod(tmp_path / "run.sh", 0o755)
    (tmp_path / "src.txt").write_bytes(b"src\n")
    (tmp_path / "dst.txt").write_bytes(b"dst\n")
    before = snapshot_dir_with_modes(tmp_path)
    body = (
        "*** Update File: crlf.txt\n@@\n-two\n+TWO\n*** Delete File: run.sh\n"
        "*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-src\n+moved\n"
        "*** Add File: new/dir/a.txt\n+a"
    )
    run = magic("result --stream-chunk 0", patch(body))
    assert ip.user_ns["result"].status == "completed"
    assert run.widget.undo["place"] == {"index": 1, "count": 1, "turn_id": "turn-1"}
    assert run.widget.undo["can_undo"] is True and run.widget.undo["can_redo"] is False

    _captured, [undo_widget] = line(ip, "apply_patch_undo")
    assert undo_widget.status == "completed"
    assert undo_widget.undo["of"] == "call-1" and undo_widget.undo["kind"] == "undo"
    assert undo_widget.undo["place"]["index"] == 2
    assert snapshot_dir_with_modes(tmp_path) == before
    assert SESSION.turn is not None and SESSION.turn.turn_diff() == ""
    # the original widget now offers Redo, not Undo, and says the call is undone: its badge
    # (the vocabulary's `undone`) and its record (issue 23 item 10)
    assert run.widget.undo["can_undo"] is False and run.widget.undo["can_redo"] is True
    assert run.widget.undo["undone"] == "undone" and run.widget.status == "completed"
    state = ip.user_ns["result"].state_json()
    assert state["undo"]["undone"] == "undone"
    for shown in (render_plain(state), render_markdown(state), text_of(render_html(state))):
        text = shown.replace("\\", "")  # Markdown escapes
        assert re.search(r"call-1`?( in [^:]*)?: \**undone\** \(stage: done\)", text), text[:200]
        assert "undone: its files are back as before the call" in text

    line(ip, "apply_patch_redo", "call-1")
    assert (tmp_path / "dst.txt").read_bytes() == b"moved\n"
    assert not (tmp_path / "run.sh").exists()


def test_conflict_shows_three_versions_and_undoes_nothing(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    magic(
        "--stream-chunk 0",
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"),
    )
    (tmp_path / "b.txt").write_text("B\nmine\n")
    edited = snapshot_dir_with_modes(tmp_path)

    captured, _ = line(ip, "apply_patch_undo", "--no-widget")
    assert snapshot_dir_with_modes(tmp_path) == edited
    # the undo's result: its undo panel shows the conflict's three versions; call-1's record
    # is updated in place with its new place in the turn
    shown, record = captured.outputs
    assert record.data["text/plain"].startswith("apply_patch call-1 ")
    assert "undo: call 1 of 2 in turn-1" in record.data["text/plain"]
    conflict = shown.data["text/plain"]
    assert "undo: call 2 of 2 in turn-1 · undo of call-1" in conflict
    assert "Undo conflict: nothing was written\nb.txt: b.txt is not as the call left it" in conflict
    assert "--- before the call\nb\n--- as the call left it\nB\n--- now\nB\nmine" in conflict
    html = shown.data["text/html"]
    assert "Undo conflict" in html and "as the call left it" in html and "mine" in html
    assert "**Undo conflict**: nothing was written" in shown.data["text/markdown"]

    line(ip, "apply_patch_undo", "call-1 --only a.txt")
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert (tmp_path / "b.txt").read_text() == "B\nmine\n"
    line(ip, "apply_patch_undo", "call-1 --force")
    assert (tmp_path / "b.txt").read_text() == "b\n"


def test_bad_input_raises_usage_error(magic: Magic, ip: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="no call has run in this session's turn yet"):
        ip.run_line_magic("apply_patch_undo", "")
    magic("--stream-chunk 0", patch("*** Add File: a.txt\n+a"))
    with pytest.raises(
        UsageError, match=r"%apply_patch_undo: no call 'call-7' in turn-1; its calls: call-1"
    ):
        ip.run_line_magic("apply_patch_undo", "call-7")
    with pytest.raises(UsageError, match=r"not a file this call changed; its files: a\.txt"):
        ip.run_line_magic("apply_patch_undo", "--only other.txt")
    with pytest.raises(UsageError, match="nothing to redo in turn-1"):
        ip.run_line_magic("apply_patch_redo", "")
    with pytest.raises(UsageError, match="--approve"):
        ip.run_line_magic("apply_patch_undo", "--approve maybe")
    line(ip, "apply_patch_undo")
    with pytest.raises(UsageError, match="nothing to undo in turn-1"):
        ip.run_line_magic("apply_patch_undo", "")


def test_turn_undo_newest_first_and_the_history(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("1\n")
    before = snapshot_dir_with_modes(tmp_path)
    magic("--stream-chunk 0", patch("*** Update File: a.txt\n@@\n-1\n+2"))
    magic("--stream-chunk 0", patch("*** Update File: a.txt\n@@\n-2\n+3\n*** Add File: b.txt\n+b"))
    _captured, widgets = line(ip, "apply_patch_turn", "--undo")
    assert [w.undo["of"] for w in widgets] == ["call-2", "call-1"]
    assert snapshot_dir_with_modes(tmp_path) == before
    captured, _ = line(ip, "apply_patch_turn", "--history")
    [shown] = captured.outputs
    plain = shown.data["text/plain"]
    assert plain.splitlines()[0].split() == [
        "turn",
        "#",
        "call",
        "kind",
        "status",
        "files",
        "+",
        "-",
        "undone",
    ]
    assert "call-2  patch" in plain and "a.txt, b.txt  2  1  undone" in plain
    assert "undo of call-2" in plain
    assert "<table" in shown.data["text/html"]
    assert (
        r"| turn\-1 | 1 | call\-1 | patch | completed | a\.txt | 1 | 1 | undone |"
        in shown.data["text/markdown"]
    )
    # a second turn is listed too
    magic("--new-turn --stream-chunk 0", patch("*** Add File: c.txt\n+c"))
    captured, _ = line(ip, "apply_patch_turn", "--history")
    assert "turn-2" in captured.outputs[0].data["text/plain"]


def test_result_undo_and_redo(magic: Magic, ip: InteractiveShell, tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_bytes(b"no newline")
    before = snapshot_dir_with_modes(tmp_path)
    magic("result --stream-chunk 0", patch("*** Delete File: n.txt"))
    result = ip.user_ns["result"]
    with capture_output():
        undone = result.undo()
    assert undone.status == "completed"
    assert snapshot_dir_with_modes(tmp_path) == before
    with capture_output():
        redone = result.redo()
    assert redone.status == "completed" and not (tmp_path / "n.txt").exists()
    with capture_output():
        result.undo()
    (tmp_path / "n.txt").write_bytes(b"changed")
    with capture_output():
        conflicted = result.redo()
    assert conflicted.status == "error"
    [conflict] = conflicted.conflicts
    assert conflict["before"]["content"] == "no newline"
    assert conflict["left"]["exists"] is False
    assert conflict["now"]["content"] == "changed"


def test_the_undo_button_runs_the_undo_and_shows_the_conflict(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    before = snapshot_dir_with_modes(tmp_path)
    run = magic("--stream-chunk 0", patch("*** Update File: a.txt\n@@\n-a\n+A"))
    widget = run.widget
    (tmp_path / "a.txt").write_text("A\nby hand\n")
    click(widget, {"type": "undo", "kind": "undo"})
    last = widget.undo["last"]
    assert last["status"] == "error" and last["kind"] == "undo"
    [conflict] = last["conflicts"]
    assert conflict["now"]["content"] == "A\nby hand\n"
    assert conflict["left"]["content"] == "A\n" and conflict["before"]["content"] == "a\n"
    assert (tmp_path / "a.txt").read_text() == "A\nby hand\n"
    assert widget.undo["can_undo"] is True

    (tmp_path / "a.txt").write_text("A\n")
    click(widget, {"type": "undo", "kind": "undo"})
    assert widget.undo["last"]["status"] == "completed"
    assert "M a.txt" in widget.undo["last"]["output"]
    assert snapshot_dir_with_modes(tmp_path) == before
    assert widget.undo["can_undo"] is False and widget.undo["can_redo"] is True
    assert widget.undo["place"]["count"] == 3  # the call, the failed undo, the undo

    click(widget, {"type": "undo", "kind": "redo"})
    assert widget.undo["last"]["status"] == "completed"
    assert (tmp_path / "a.txt").read_text() == "A\n"
    # nothing left to redo: the button's message says so in the widget, no exception
    click(widget, {"type": "undo", "kind": "redo"})
    assert widget.undo["last"]["status"] == "error"
    assert "nothing to redo in call-1" in widget.undo["last"]["error"]


def test_an_undo_outside_the_root_asks_like_the_call(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    before = snapshot_dir_with_modes(tmp_path)
    run = magic(
        f"--cwd {project} --exclude-tmp --stream-chunk 0", patch("*** Add File: ../out.txt\n+out")
    )
    widget = run.widget
    assert widget.status == "awaiting-approval"
    with capture_output():
        widget.approve("approve")
    assert (tmp_path / "out.txt").exists()

    click(widget, {"type": "undo", "kind": "undo"})
    last = widget.undo["last"]
    assert last["status"] == "awaiting-approval"
    assert last["approval"]["files"] == [str(tmp_path / "out.txt")]
    assert last["approval"]["writes"] == "It writes 1 path:"
    assert (tmp_path / "out.txt").exists()
    # an answer the widget never sends is shown as not sent, and the undo still waits
    click(widget, {"type": "undo-approval", "decision": "yes please"})
    assert widget.undo["last"]["status"] == "awaiting-approval"
    assert widget.undo["last"]["error"].startswith("not sent: ")
    assert (tmp_path / "out.txt").exists()
    click(widget, {"type": "undo-approval", "decision": "approve"})
    assert widget.undo["last"]["status"] == "completed"
    assert snapshot_dir_with_modes(tmp_path) == before
    # a second answer, once the undo ended, is refused the same way: nothing runs again
    click(widget, {"type": "undo-approval", "decision": "decline"})
    assert widget.undo["last"]["status"] == "completed"
    assert "not waiting for approval" in widget.undo["last"]["error"]


def test_partial_failure_and_inexact_delta_through_the_shell(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "keep.txt").write_text("keep\n")
    before = snapshot_dir_with_modes(tmp_path)
    run = magic(
        "result --fault delete:keep.txt --stream-chunk 0",
        patch("*** Add File: first.txt\n+1\n*** Delete File: keep.txt"),
    )
    assert run.widget.status == "failed" and run.widget.delta["exact"] is True
    assert run.widget.undo["can_undo"] is True
    line(ip, "apply_patch_undo")  # the committed prefix, exactly
    assert snapshot_dir_with_modes(tmp_path) == before

    (tmp_path / "b.txt").write_text("b\n")
    magic(
        "--fault write:2 --stream-chunk 0",
        patch("*** Add File: a.txt\n+a\n*** Update File: b.txt\n@@\n-b\n+B"),
    )
    with pytest.raises(UsageError) as refused:
        ip.run_line_magic("apply_patch_undo", "")
    assert "inexact (exact=False)" in str(refused.value)
    assert "Files whose state is known: a.txt" in str(refused.value)
    line(ip, "apply_patch_undo", "--only a.txt")
    assert not (tmp_path / "a.txt").exists()


def test_the_widget_offers_the_ways_on_after_a_conflict_and_a_refusal(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    run = magic(
        "--stream-chunk 0",
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"),
    )
    widget = run.widget
    (tmp_path / "b.txt").write_text("mine\n")
    click(widget, {"type": "undo", "kind": "undo"})
    others, force = widget.undo["last"]["choices"]
    assert others["label"] == "Undo the other files only"
    assert others["message"] == {"type": "undo", "kind": "undo", "only": [str(tmp_path / "a.txt")]}
    assert force["message"] == {"type": "undo", "kind": "undo", "force": True}
    click(widget, others["message"])  # what the button sends
    assert widget.undo["last"]["status"] == "completed"
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert (tmp_path / "b.txt").read_text() == "mine\n"

    # an inexact delta: the refusal offers the known files
    (tmp_path / "c.txt").write_text("c\n")
    inexact = magic(
        "--fault write:2 --stream-chunk 0",
        patch("*** Add File: d.txt\n+d\n*** Update File: c.txt\n@@\n-c\n+C"),
    )
    click(inexact.widget, {"type": "undo", "kind": "undo"})
    last = inexact.widget.undo["last"]
    assert "inexact (exact=False)" in last["error"]
    [known] = last["choices"]
    assert known["message"]["only"] == [str(tmp_path / "d.txt")]
    click(inexact.widget, known["message"])
    assert inexact.widget.undo["last"]["status"] == "completed"
    assert not (tmp_path / "d.txt").exists()


def test_undo_a_call_of_an_earlier_turn_with_turn(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    first = magic(
        "--stream-chunk 0",
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"),
    )
    magic("--stream-chunk 0", patch("*** Add File: c.txt\n+c"))
    magic("--new-turn --stream-chunk 0", patch("*** Update File: b.txt\n@@\n-B\n+BB"))
    turn_1, turn_2 = SESSION.turns
    assert SESSION.turn is turn_2
    later_diff = turn_2.turn_diff()

    # call-1 is turn-2's own: never another turn's by guess; a missing id says how to name it
    with pytest.raises(
        UsageError,
        match=r"the current turn, turn-2, has no call-2; turn-1 has one: "
        r"%apply_patch_undo call-2 --turn turn-1",
    ):
        ip.run_line_magic("apply_patch_undo", "call-2")
    with pytest.raises(UsageError, match=r"--turn 9: no such turn in this session; turns: turn-1"):
        ip.run_line_magic("apply_patch_undo", "call-1 --turn 9")

    # --force spares what the later turn changed: b.txt stays, nothing is written
    _captured, [forced] = line(ip, "apply_patch_undo", "call-1 --turn 1 --force --approve approve")
    assert forced.status == "error"
    assert "b.txt: changed by call-1 of turn-2" in forced.error
    assert (tmp_path / "a.txt").read_text() == "A\n"

    _captured, [undone] = line(ip, "apply_patch_undo", "call-1 --turn turn-1 --only a.txt")
    assert undone.status == "completed" and (tmp_path / "a.txt").read_text() == "a\n"
    # a call of turn-1: its place, turn-1's TurnDiff; turn-2 and its diff are untouched
    assert undone.undo["place"] == {"index": 4, "count": 4, "turn_id": "turn-1"}
    assert undone.undo["of"] == "call-1"
    assert "a.txt" not in undone.turn_diff and "b.txt" in undone.turn_diff
    assert [c.call_id for c in turn_1.calls] == ["call-1", "call-2", "call-3", "call-4"]
    assert len(turn_2.calls) == 1 and turn_2.turn_diff() == later_diff
    assert SESSION.turn is turn_2
    assert first.widget.undo["can_redo"] is True  # its widget knows, through refresh
    captured, _ = line(ip, "apply_patch_turn", "--history")
    assert "turn-1  4  call-4  undo of call-1" in captured.outputs[0].data["text/plain"]

    line(ip, "apply_patch_redo", "call-1 --turn turn-1")
    assert (tmp_path / "a.txt").read_text() == "A\n"


def _last_record(captured: Any, call_id: str) -> dict[str, str]:
    """The last record update of ``call_id`` among the captured outputs (what is saved)."""
    records = [
        o.data
        for o in captured.outputs
        if "record" in o.metadata.get("applypatch_ext", {})
        and o.data["text/plain"].startswith(f"apply_patch {call_id} ")
    ]
    assert records, f"no record of {call_id} was displayed or updated"
    data: dict[str, str] = records[-1]
    return data


def test_the_record_keeps_the_undo_panel_bounded(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    from applypatch_ext.jupyter.records.conflicts import VERSION_LINES

    long = "".join(f"line {i}\n" for i in range(VERSION_LINES + 50))
    (tmp_path / "a.txt").write_text(long)
    run = magic("--stream-chunk 0", patch("*** Update File: a.txt\n@@\n-line 0\n+LINE 0"))
    widget = run.widget
    assert "undo" in widget.state_json()  # displayed: the record renders it
    assert "undo: call 1 of 1 in turn-1" in _last_record(run.captured, "call-1")["text/plain"]

    (tmp_path / "a.txt").write_text(long + "by hand\n")
    with capture_output() as captured:
        click(widget, {"type": "undo", "kind": "undo"})
    # the trait is bounded too: each version cut, the lines left out counted
    [conflict] = widget.undo["last"]["conflicts"]
    assert conflict["now"]["content"].count("\n") == VERSION_LINES
    assert conflict["now"]["more_lines"] == 51
    record = _last_record(captured, "call-1")
    plain = record["text/plain"]
    assert "undo: call 1 of 2 in turn-1" in plain
    assert "last undo (call-2): error" in plain
    assert "Undo conflict: nothing was written\na.txt: a.txt is not as the call left it" in plain
    assert "--- before the call\nline 0\nline 1\n" in plain
    assert f"line {VERSION_LINES - 1}\n… 50 more lines\n--- as the call left it\nLINE 0" in plain
    assert f"line {VERSION_LINES}\n" not in plain and "… 51 more lines" in plain
    assert "by hand" not in plain
    assert "**Undo conflict**" in record["text/markdown"]
    assert "as the call left it" in record["text/html"] and "… 51 more lines" in record["text/html"]

    (tmp_path / "a.txt").write_text(long.replace("line 0", "LINE 0", 1))
    with capture_output() as captured:
        click(widget, {"type": "undo", "kind": "undo"})
    plain = _last_record(captured, "call-1")["text/plain"]
    assert "last undo (call-3): completed" in plain and "M a.txt" in plain
    assert "undone: its files are back as before the call" in plain
    assert "Undo conflict" not in plain
