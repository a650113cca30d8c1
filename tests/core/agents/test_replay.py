"""Replaying the real Codex sessions: same trees as Codex left, agreement, edited recordings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.agents.replay import (
    ReplayError,
    load_replay_source,
    replay_cwd,
    replay_rollout,
)
from applypatch_ext.core.agents.rollout import read_rollout
from applypatch_ext.core.turn.options import PipelineOptions

from ...rollouts import ROLLOUTS, SCENARIOS, VERSIONS, project_after, project_before, rollout_path
from ...trees import snapshot_dir


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("version", VERSIONS)
def test_replay_reproduces_the_session(tmp_path: Path, version: str, scenario: str) -> None:
    project = project_before(tmp_path, version, scenario)
    rollout = read_rollout(str(rollout_path(version, scenario)))
    report = replay_rollout(rollout, str(project))
    assert [c.comparison.agrees for c in report.calls] == [True] * len(rollout.calls)
    assert report.all_agree and report.differ == 0 and report.agree == len(rollout.calls)
    # what Codex left on disk, byte for byte
    assert snapshot_dir(project) == snapshot_dir(project_after(version, scenario))
    for replayed in report.calls:
        assert replayed.result.call_id == replayed.call.call_id
        assert replayed.answer["call_id"] == replayed.call.call_id
    if scenario == "session":
        first, second = report.turns
        assert [t.turn.turn_id for t in report.turns] == [t.turn_id for t in rollout.turns]
        assert "notes.txt" in first.turn_diff and "sub/extra.txt" in first.turn_diff
        assert "old.txt" not in first.turn_diff
        assert "deleted file mode" in second.turn_diff and "old.txt" in second.turn_diff
        mismatch = report.calls[1]
        assert mismatch.comparison.recorded_status == mismatch.comparison.replayed_status
        assert mismatch.result.output == (
            f"apply_patch verification failed: Failed to find expected lines in {project}/app.cfg:"
            "\nthis line is not in the file"
        )


def edited(tmp_path: Path, version: str, edit: dict[str, str]) -> Path:
    """The session file with some outputs' texts replaced (a recording that differs)."""
    lines = rollout_path(version, "session").read_text().split("\n")
    out = []
    for text in lines:
        if text:
            record = json.loads(text)
            payload = record["payload"]
            if payload.get("type", "").endswith("_output") and payload["call_id"] in edit:
                payload["output"] = edit[payload["call_id"]]
            text = json.dumps(record)
        out.append(text)
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(out))
    return path


@pytest.mark.parametrize("version", VERSIONS)
def test_an_edited_recording_differs(tmp_path: Path, version: str) -> None:
    success = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n"
    path = edited(
        tmp_path,
        version,
        {
            # the mismatch "succeeded", the update "changed" another file
            "call_mismatch": success + "M app.cfg\n",
            "call_update": success + "M other.py\n",
        },
    )
    project = project_before(tmp_path, version, "session")
    report = replay_rollout(load_replay_source(str(path)), str(project))
    by_id = {c.call.call_id: c.comparison for c in report.calls}
    assert by_id["call_mismatch"].agrees is False
    assert by_id["call_mismatch"].reasons[0] == "status: recorded completed, replayed error"
    assert by_id["call_update"].agrees is False
    assert by_id["call_update"].reasons == (
        "output: recorded 'Success. Updated the following files:\\nM other.py\\n', "
        "replayed 'Success. Updated the following files:\\nM app.cfg\\n'",
    )
    assert by_id["call_add"].agrees is True
    assert report.differ == 2 and not report.all_agree


def test_changed_paths_of_the_file_change_event_are_compared(tmp_path: Path) -> None:
    out = []
    for text in rollout_path("0.147.0", "session").read_text().split("\n"):
        record = json.loads(text) if text else None
        payload = record and record["payload"]
        if (
            payload
            and payload.get("type") == "patch_apply_end"
            and payload["call_id"] == "call_add"
        ):
            # the recorded FileChange end of call_add names another path
            (path,) = payload["changes"]
            payload["changes"] = {path.replace("notes.txt", "n.txt"): payload["changes"][path]}
            text = json.dumps(record)
        out.append(text)
    source = tmp_path / "s.jsonl"
    source.write_text("\n".join(out))
    project = project_before(tmp_path, "0.147.0", "session")
    report = replay_rollout(load_replay_source(str(source)), str(project))
    reasons = report.calls[0].comparison.reasons
    assert len(reasons) == 1 and reasons[0].startswith("changed paths: recorded [")
    assert f"{project}/n.txt" in reasons[0] and f"{project}/notes.txt" in reasons[0]


def test_one_turn_only(tmp_path: Path) -> None:
    rollout = read_rollout(str(rollout_path("0.47.0", "session")))
    project = project_after("0.47.0", "session")
    copy = tmp_path / "p"
    # the state before turn 2: Codex's end state with turn 2 undone
    shutil.copytree(project, copy)
    (copy / "notes.txt").write_text("first note\nsecond note\n")
    (copy / "old.txt").write_text("to be deleted\n")
    report = replay_rollout(rollout, str(copy), turns=[2])
    assert [t.turn.index for t in report.turns] == [2]
    assert [c.call.call_id for c in report.calls] == ["call_turn2"] and report.all_agree
    with pytest.raises(ReplayError, match=r"has no turn 3 \(turns: 1 to 2\)"):
        replay_rollout(rollout, str(copy), turns=[3])


def test_the_working_directory(tmp_path: Path) -> None:
    rollout = read_rollout(str(rollout_path("0.163.0", "session")))
    assert rollout.cwd is not None
    # never the file's own directory (it is untrusted), even when it exists here
    with pytest.raises(ReplayError, match=r"the session was recorded in /tmp/rollout-.*--cwd"):
        replay_cwd(rollout, None)
    with pytest.raises(ReplayError, match="working directory not found: "):
        replay_cwd(rollout, str(tmp_path / "missing"))
    assert replay_cwd(rollout, str(tmp_path)) == str(tmp_path)


def test_writes_outside_are_declined_by_default(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = [
        {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "call_id": "out",
            "input": "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch",
        }
    ]
    source = tmp_path / "items.json"
    source.write_text(json.dumps(items))
    project = tmp_path / "p"
    project.mkdir()
    options = PipelineOptions.from_strings(str(project), exclude_tmp=True)
    report = replay_rollout(load_replay_source(str(source)), str(project), options=options)
    (call,) = report.calls
    assert call.result.status == "declined" and not (tmp_path / "outside.txt").exists()
    assert call.comparison.agrees is None and call.comparison.recorded_status == "not-recorded"


def test_requests_of_the_fixture_replay_as_items(tmp_path: Path) -> None:
    """The input items Codex sent back in its last request of turn 1 (calls and outputs)."""
    requests = json.loads((ROLLOUTS / "0.163.0" / "session.requests.json").read_text())
    source = tmp_path / "response.json"
    source.write_text(json.dumps({"input": requests[4]["input"]}))
    rollout = load_replay_source(str(source))
    assert [c.call_id for c in rollout.calls] == [
        "call_add",
        "call_mismatch",
        "call_update",
        "call_shell",
    ]
    project = project_before(tmp_path, "0.163.0", "session")
    report = replay_rollout(rollout, str(project))
    # without the session's cwd, the verification error's path cannot be mapped: it differs
    statuses = [(c.comparison.recorded_status, c.comparison.replayed_status) for c in report.calls]
    assert statuses == [("completed", "completed"), ("error", "error")] + [("completed",) * 2] * 2
    assert [c.comparison.agrees for c in report.calls] == [True, False, True, True]


def test_a_json_object_of_another_shape(tmp_path: Path) -> None:
    source = tmp_path / "x.json"
    source.write_text('{"hello": 1}')
    with pytest.raises(ReplayError, match="without an 'output', 'input' or 'items' list"):
        load_replay_source(str(source))


def test_our_own_answers_replay_as_agreeing_recordings(tmp_path: Path) -> None:
    """Items and the output items this pipeline answered them with: a recording that agrees."""
    from applypatch_ext.core.agents.responses import run_item
    from applypatch_ext.core.turn.turn import Turn

    def fresh(name: str) -> Path:
        root = tmp_path / name
        root.mkdir()
        (root / "a.txt").write_text("one\n")
        return root

    items: list[dict[str, Any]] = [
        {
            "type": "apply_patch_call",
            "call_id": "b1",
            "status": "completed",
            "operation": {"type": "update_file", "path": "a.txt", "diff": "-one\n+uno\n"},
        },
        {
            "type": "apply_patch_call",
            "call_id": "b2",
            "status": "completed",
            "operation": {"type": "update_file", "path": "a.txt", "diff": "-nope\n+x\n"},
        },
        {
            "type": "function_call",
            "name": "apply_patch",
            "call_id": "f1",
            "arguments": json.dumps(
                {"input": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}
            ),
        },
        {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "call_id": "c1",
            "input": "*** Begin Patch\n*** Add File: ../up.txt\n+x\n*** End Patch",
        },
    ]
    first = fresh("first")
    turn = Turn(str(first), options=PipelineOptions.from_strings(str(first), exclude_tmp=True))
    recording: list[dict[str, Any]] = []
    for item in items:
        ran = run_item(turn, item, "decline")
        assert ran is not None
        recording += [item, ran[1]]
    assert [r["status"] for r in recording[1:4:2]] == ["completed", "failed"]
    source = tmp_path / "recording.json"
    source.write_text(json.dumps(recording))
    second = fresh("second")
    options = PipelineOptions.from_strings(str(second), exclude_tmp=True)
    report = replay_rollout(load_replay_source(str(source)), str(second), options=options)
    statuses = [(c.comparison.recorded_status, c.comparison.agrees) for c in report.calls]
    # the verification error's text names the first directory: mapped only for a rollout
    # (which records its cwd), so that one differs by its path alone
    assert statuses == [
        ("completed", True),
        ("error", False),
        ("completed", True),
        ("declined", True),
    ]
    (reason,) = report.calls[1].comparison.reasons
    assert reason.startswith("output: ") and str(first) in reason and str(second) in reason
