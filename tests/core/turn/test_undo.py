"""Undo and redo of a call (docs/behaviour.md §11), on the real disk: after every undo the whole
tree, modes included, is compared with the tree before the call (tests/trees.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.turn.events import EventType
from applypatch_ext.core.turn.history import turn_history
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.core.turn.undo import UndoError, undo_call
from applypatch_ext.core.turn.undo_call import UndoCall

from ...trees import ModedTree, snapshot_dir_with_modes

WORKSPACE = SandboxPolicy(
    PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
)


def patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


def turn_in(root: Path, **options: object) -> Turn:
    return Turn(str(root), options=PipelineOptions(sandbox=WORKSPACE, **options))  # type: ignore[arg-type]


def tree(root: Path) -> ModedTree:
    return snapshot_dir_with_modes(root)


def event_types(result: CallResult) -> list[str]:
    return [e.event.type for e in result.events]


@pytest.mark.parametrize(
    ("setup", "body"),
    [
        ({}, "*** Add File: new/deeper/a.txt\n+hello"),
        ({"a.txt": b"old\n"}, "*** Add File: a.txt\n+overwritten"),
        ({"a.txt": b"one\ntwo\n"}, "*** Delete File: a.txt"),
        ({"a.txt": b"one\ntwo\n"}, "*** Update File: a.txt\n@@\n-two\n+TWO"),
        ({"a.txt": b"one\n"}, "*** Update File: a.txt\n*** Move to: b/moved.txt\n@@\n-one\n+1"),
        (
            {"a.txt": b"one\n", "b.txt": b"was here\n"},
            "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+1",
        ),
        ({"crlf.txt": b"a\r\nb\r\nc"}, "*** Update File: crlf.txt\n@@\n-b\n+B"),
        ({"n.txt": b"no final newline"}, "*** Delete File: n.txt"),
    ],
    ids=[
        "add",
        "add-overwrote",
        "delete",
        "update",
        "move",
        "move-onto-existing",
        "crlf",
        "no-eol",
    ],
)
def test_undo_restores_the_tree_byte_for_byte(
    root: Path, setup: dict[str, bytes], body: str
) -> None:
    for rel, data in setup.items():
        (root / rel).write_bytes(data)
    before = tree(root)
    turn = turn_in(root)
    done = turn.run(patch(body), Decision.APPROVE)
    assert done.status == CallStatus.COMPLETED
    assert tree(root) != before
    after_call = tree(root)

    undone = turn.undo()
    assert undone.status == CallStatus.COMPLETED, undone.error
    assert tree(root) == before
    assert turn.turn_diff() == ""
    # the undo is a call of its own, through the pipeline: events with its own id, a delta
    assert undone.call_id == "call-2"
    assert EventType.PATCH_APPLY_BEGIN in event_types(undone)
    assert EventType.PATCH_APPLY_END in event_types(undone)
    assert undone.delta.exact and not undone.delta.is_empty()

    redone = turn.redo()
    assert redone.status == CallStatus.COMPLETED, redone.error
    assert tree(root) == after_call
    assert turn.turn_diff() == done.turn_diff


def test_an_executable_deleted_then_restored_keeps_its_mode(root: Path) -> None:
    script = root / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(script, 0o755)
    before = tree(root)
    turn = turn_in(root)
    done = turn.run(patch("*** Delete File: run.sh"), Decision.APPROVE)
    assert done.delta.changes[0].to_json()["mode"] == "0o755"
    assert not script.exists()
    turn.undo("call-1")
    assert tree(root) == before
    assert os.stat(script).st_mode & 0o777 == 0o755


def test_a_file_edited_by_hand_is_a_conflict_and_nothing_is_undone(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    (root / "b.txt").write_bytes(b"b\n")
    turn = turn_in(root)
    turn.run(
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    (root / "b.txt").write_bytes(b"B\nedited by hand\n")
    edited = tree(root)

    call = undo_call(turn)
    result = call.run(Decision.APPROVE)
    assert result.status == CallStatus.ERROR
    assert "b.txt is not as the call left it" in (result.error or "")
    assert "nothing was written" in (result.error or "")
    assert tree(root) == edited  # a.txt, which had no conflict, is not undone either
    assert EventType.PATCH_APPLY_BEGIN not in event_types(result)
    [conflict] = call.conflicts
    assert conflict.path == "b.txt"
    assert conflict.before.content == "b\n"
    assert conflict.left.content == "B\n"
    assert conflict.now is not None and conflict.now.content == "B\nedited by hand\n"
    assert conflict.to_json()["now"]["sha256"] == conflict.now.sha256

    # per file: only a.txt
    only = turn.undo("call-1", only=["a.txt"])
    assert only.status == CallStatus.COMPLETED
    assert (root / "a.txt").read_bytes() == b"a\n"
    assert (root / "b.txt").read_bytes() == b"B\nedited by hand\n"
    history = {h.call_id: h for h in turn_history(turn)}
    assert history["call-1"].undone == "partly undone"

    # force overwrites the edit by hand with the state before the call
    forced = turn.undo("call-1", force=True)
    assert forced.status == CallStatus.COMPLETED
    assert (root / "b.txt").read_bytes() == b"b\n"
    assert {h.call_id: h for h in turn_history(turn)}["call-1"].undone == "undone"


def test_undo_after_a_partial_failure_with_an_exact_delta(root: Path) -> None:
    (root / "keep.txt").write_bytes(b"keep\n")
    before = tree(root)
    turn = turn_in(root, faults=("delete:keep.txt",))
    failed = turn.run(patch("*** Add File: first.txt\n+1\n*** Delete File: keep.txt"), "approve")
    assert failed.status == CallStatus.FAILED
    assert failed.delta.exact and len(failed.delta.changes) == 1
    assert (root / "first.txt").exists()
    result = turn.undo()  # the committed prefix: the add
    assert result.status == CallStatus.COMPLETED, result.error
    assert tree(root) == before


def test_an_inexact_delta_is_refused_unless_its_known_files_are_picked(root: Path) -> None:
    (root / "b.txt").write_bytes(b"b\n")
    turn = turn_in(root, faults=("write:2",))
    failed = turn.run(
        patch("*** Add File: a.txt\n+a\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    assert failed.status == CallStatus.FAILED
    assert not failed.delta.exact
    with pytest.raises(UndoError) as refused:
        undo_call(turn)
    message = str(refused.value)
    assert "inexact (exact=False)" in message
    assert "Files whose state is known: a.txt" in message
    with pytest.raises(UndoError, match=r"is not a file this call changed; its files: a\.txt"):
        undo_call(turn, "call-1", only=["b.txt"])
    result = turn.undo("call-1", only=["a.txt"])
    assert result.status == CallStatus.COMPLETED
    assert not (root / "a.txt").exists()


def test_undo_every_call_of_a_turn_newest_first_leaves_an_empty_turn_diff(root: Path) -> None:
    (root / "a.txt").write_bytes(b"1\n")
    before = tree(root)
    turn = turn_in(root, transaction=Transaction.ATOMIC)
    turn.run(patch("*** Update File: a.txt\n@@\n-1\n+2"), "approve")
    turn.run(patch("*** Update File: a.txt\n@@\n-2\n+3\n*** Add File: b.txt\n+b"), "approve")
    turn.run(patch("*** Update File: a.txt\n*** Move to: c.txt\n@@\n-3\n+4"), "approve")
    assert turn.turn_diff() != ""
    results = turn.undo_all()
    assert [r.status for r in results] == [CallStatus.COMPLETED] * 3
    targets = [c.target_id for c in turn.calls if isinstance(c, UndoCall)]
    assert targets == ["call-3", "call-2", "call-1"]
    assert tree(root) == before
    assert turn.turn_diff() == ""
    assert [h.undone for h in turn_history(turn)][:3] == ["undone"] * 3
    with pytest.raises(UndoError, match="nothing to undo in turn-1"):
        turn.undo()


def test_redo_conflicts_when_the_file_changed_since_the_undo(root: Path) -> None:
    (root / "a.txt").write_bytes(b"1\n")
    turn = turn_in(root)
    turn.run(patch("*** Update File: a.txt\n@@\n-1\n+2"), "approve")
    turn.undo()
    (root / "a.txt").write_bytes(b"1\nby hand\n")
    call = undo_call(turn, kind="redo")
    result = call.run("approve")
    assert result.status == CallStatus.ERROR
    assert "a.txt is not as the undo left it" in (result.error or "")
    assert (root / "a.txt").read_bytes() == b"1\nby hand\n"
    assert call.conflicts[0].now is not None
    forced = turn.redo(force=True)
    assert forced.status == CallStatus.COMPLETED
    assert (root / "a.txt").read_bytes() == b"2\n"
    with pytest.raises(UndoError, match="nothing to redo"):
        turn.redo()


def test_undo_of_a_write_outside_the_root_asks_for_approval_like_the_call(
    root: Path, tmp_path: Path
) -> None:
    before = snapshot_dir_with_modes(tmp_path)
    turn = turn_in(root)
    call = turn.call()
    call.push_delta(patch("*** Add File: ../outside.txt\n+out"))
    waiting = call.run()
    assert waiting.status == CallStatus.AWAITING_APPROVAL
    call.resume(Decision.APPROVE)
    assert (tmp_path / "outside.txt").read_bytes() == b"out\n"

    undo = undo_call(turn)
    asked = undo.run()
    assert asked.status == CallStatus.AWAITING_APPROVAL
    assert asked.pending_request is not None
    assert asked.pending_request.files == (str(tmp_path / "outside.txt"),)
    assert (tmp_path / "outside.txt").exists()  # nothing written while it waits
    done = undo.resume(Decision.APPROVE)
    assert done.status == CallStatus.COMPLETED, done.error
    assert snapshot_dir_with_modes(tmp_path) == before

    # the redo asks too; a declined undo writes nothing
    assert turn.redo().status == CallStatus.AWAITING_APPROVAL
    assert not (tmp_path / "outside.txt").exists()
    assert turn.redo(approver=Decision.APPROVE).status == CallStatus.COMPLETED
    declined = turn.undo(approver=Decision.DECLINE)
    assert declined.status == CallStatus.DECLINED
    assert (tmp_path / "outside.txt").exists()


def test_bad_requests_say_what_is_valid(root: Path) -> None:
    turn = turn_in(root)
    with pytest.raises(UndoError, match="nothing to undo in turn-1"):
        turn.undo()
    turn.run(patch("*** Add File: a.txt\n+a"), "approve")
    with pytest.raises(UndoError, match="no call 'call-9' in turn-1; its calls: call-1"):
        turn.undo("call-9")
    turn.undo()
    with pytest.raises(UndoError, match="call-2 is an undo of call-1: redo call-1 instead"):
        turn.undo("call-2")
    with pytest.raises(UndoError, match="nothing to undo in call-1: every file is undone"):
        turn.undo("call-1")


def test_the_undo_patch_describes_the_inverse(root: Path) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    (root / "b.txt").write_bytes(b"dest\n")
    turn = turn_in(root)
    turn.run(patch("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+1"), "approve")
    call = undo_call(turn)
    assert (
        call.patch
        == patch(
            "*** Update File: b.txt\n*** Move to: a.txt\n@@\n-1\n+one\n*** Add File: b.txt\n+dest"
        )
        + "\n"
    )
    result = call.run("approve")
    moved_back = result.delta.changes[0]
    assert moved_back.to_json()["move_path"] == str(root / "a.txt")
    assert result.stdout.startswith("Success. Updated the following files:\nA b.txt\nM a.txt")


def test_history_lists_calls_with_lines_and_state(root: Path) -> None:
    (root / "a.txt").write_bytes(b"1\n2\n")
    turn = turn_in(root)
    turn.run(patch("*** Update File: a.txt\n@@\n-2\n+two\n+three"), "approve")
    turn.run(patch("*** Add File: b.txt\n+b"), "approve")
    turn.undo()
    entries = [h.to_json() for h in turn_history(turn)]
    assert [(e["call_id"], e["kind"], e["target"], e["undone"]) for e in entries] == [
        ("call-1", "patch", None, ""),
        ("call-2", "patch", None, "undone"),
        ("call-3", "undo", "call-2", ""),
    ]
    assert (entries[0]["files"], entries[0]["added"], entries[0]["removed"]) == (["a.txt"], 2, 1)
    assert entries[2]["status"] == "completed" and entries[2]["removed"] == 1


def test_a_file_edited_while_the_undo_waits_for_approval_stops_it(
    root: Path, tmp_path: Path
) -> None:
    turn = turn_in(root)
    turn.run(patch("*** Add File: ../outside.txt\n+out"), Decision.APPROVE)
    undo = undo_call(turn)
    assert undo.run().status == CallStatus.AWAITING_APPROVAL
    (tmp_path / "outside.txt").write_bytes(b"edited while the undo waited\n")
    ended = undo.resume(Decision.APPROVE)
    assert ended.status == CallStatus.FAILED
    outside = tmp_path / "outside.txt"
    assert f"changed since the undo was checked: {outside}; nothing was written" in ended.stderr
    assert ended.delta.is_empty() and ended.delta.exact
    assert (tmp_path / "outside.txt").read_bytes() == b"edited while the undo waited\n"


def test_an_atomic_undo_that_fails_midway_changes_nothing(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    (root / "b.txt").write_bytes(b"b\n")
    before = tree(root)
    turn = turn_in(root, transaction=Transaction.ATOMIC)
    turn.run(
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    after_call = tree(root)
    options = PipelineOptions(
        sandbox=WORKSPACE, transaction=Transaction.ATOMIC, faults=("write:2",)
    )
    failed = undo_call(turn, options=options).run()
    assert failed.status == CallStatus.FAILED
    assert failed.delta.is_empty() and failed.delta.exact  # rolled back by its journal
    assert tree(root) == after_call
    assert turn.undo().status == CallStatus.COMPLETED
    assert tree(root) == before
    assert turn.turn_diff() == ""


def test_a_cancelled_undo_keeps_what_it_wrote_and_the_next_one_finishes(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    (root / "b.txt").write_bytes(b"b\n")
    before = tree(root)
    turn = turn_in(root)
    turn.run(
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    cancelled = undo_call(
        turn, options=PipelineOptions(sandbox=WORKSPACE, faults=("cancel:2",))
    ).run()
    assert cancelled.status == CallStatus.CANCELLED
    assert len(cancelled.delta.changes) == 1 and cancelled.delta.exact
    assert {h.call_id: h.undone for h in turn_history(turn)}["call-1"] == "partly undone"
    finished = turn.undo()
    assert finished.status == CallStatus.COMPLETED
    assert tree(root) == before
    assert turn.turn_diff() == ""


def test_an_undo_denied_by_the_sandbox_is_retried_after_approval(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    before = tree(root)
    turn = turn_in(root)
    turn.run(patch("*** Update File: a.txt\n@@\n-a\n+A"), "approve")
    options = PipelineOptions(sandbox=WORKSPACE, faults=("eperm:a.txt",))
    call = undo_call(turn, options=options)
    asked = call.run()
    assert asked.status == CallStatus.AWAITING_APPROVAL
    assert asked.pending_request is not None and asked.pending_request.retry
    done = call.resume(Decision.APPROVE)
    assert done.status == CallStatus.COMPLETED, done.error
    assert done.attempts == 2
    assert tree(root) == before


def test_an_undo_waiting_for_approval_takes_no_selection_of_hunks(
    root: Path, tmp_path: Path
) -> None:
    turn = turn_in(root)
    turn.run(patch("*** Add File: ../outside.txt\n+out"), Decision.APPROVE)
    undo = undo_call(turn)
    assert undo.run().status == CallStatus.AWAITING_APPROVAL
    assert not undo.reviewable
    with pytest.raises(ValueError, match="restores whole files"):
        undo.resume(Decision.APPROVE, accept={"../outside.txt": True})
    assert undo.result is not None and undo.result.status == CallStatus.AWAITING_APPROVAL
    assert undo.resume(Decision.APPROVE).status == CallStatus.COMPLETED
    assert not (tmp_path / "outside.txt").exists()


def test_undo_calls_are_numbered_by_the_turns_public_counter(root: Path) -> None:
    turn = turn_in(root)
    assert turn.fresh_call_id() == "call-1"  # handed out once: the next call is call-2
    turn.run(patch("*** Add File: a.txt\n+a"), "approve")
    call = undo_call(turn)
    assert [c.call_id for c in turn.calls] == ["call-2", "call-3"]
    assert call.call_id == "call-3" and call.target_id == "call-2"
    assert turn.fresh_call_id() == "call-4"


def test_an_earlier_turns_call_is_undone_in_its_turn_and_force_spares_later_turns(
    root: Path,
) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    first = Turn(str(root), options=PipelineOptions(sandbox=WORKSPACE), turn_id="turn-1")
    first.run(
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    second = Turn(str(root), options=PipelineOptions(sandbox=WORKSPACE), turn_id="turn-2")
    second.run(patch("*** Update File: b.txt\n@@\n-B\n+BB"), "approve")
    later_diff = second.turn_diff()

    # b.txt changed by turn-2: a conflict, and --force does not overwrite it
    forced = undo_call(first, "call-1", force=True, later_turns=[second]).run("approve")
    assert forced.status == CallStatus.ERROR
    assert forced.error is not None
    assert "b.txt: changed by call-1 of turn-2" in forced.error
    assert "--force does not overwrite those, nothing was written" in forced.error
    assert (root / "a.txt").read_text() == "A\n" and (root / "b.txt").read_text() == "BB\n"

    # the other file only: the undo is a call of turn-1, its TurnDiff shrinks, turn-2's stays
    undone = undo_call(first, "call-1", only=["a.txt"], later_turns=[second]).run("approve")
    assert undone.status == CallStatus.COMPLETED
    assert (root / "a.txt").read_text() == "a\n"
    assert [c.call_id for c in first.calls] == ["call-1", "call-2", "call-3"]
    assert "a.txt" not in first.turn_diff() and "b.txt" in first.turn_diff()
    assert second.turn_diff() == later_diff and len(second.calls) == 1

    # once turn-2's call is undone in turn-2, b.txt is as turn-1 left it: undone from turn-1
    second.undo("call-1", approver="approve")
    assert undo_call(first, "call-1", later_turns=[second]).run("approve").status == "completed"
    assert (root / "b.txt").read_text() == "b\n" and first.turn_diff() == ""


def test_the_undo_of_a_reviewed_call_asks_only_where_safety_asks(
    root: Path, tmp_path: Path
) -> None:
    """--review asks about the model's patch; its undo is the user's and is not reviewed."""
    (root / "a.txt").write_text("a\n")
    before = tree(root)
    turn = turn_in(root, review=True)
    reviewed = turn.run(patch("*** Update File: a.txt\n@@\n-a\n+A"), Decision.APPROVE)
    assert reviewed.status == CallStatus.COMPLETED
    assert EventType.APPLY_PATCH_APPROVAL_REQUEST in [e.event.type for e in reviewed.events]
    undone = turn.undo()  # no approver: a request would stop it
    assert undone.status == CallStatus.COMPLETED, undone.error
    assert tree(root) == before
    assert turn.redo().status == CallStatus.COMPLETED
    # outside the root the safety check still asks, as for any undo
    turn.run(patch("*** Add File: ../out.txt\n+out"), Decision.APPROVE)
    assert turn.undo().status == CallStatus.AWAITING_APPROVAL
    assert (tmp_path / "out.txt").exists()
