"""``python -m applypatch_ext replay``: JSON lines, replay_call lines, summary, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.__main__ import build_parser

from .rollouts import project_after, project_before, rollout_path
from .trees import snapshot_dir


def replay(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "replay", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


def test_replay_a_real_session(tmp_path: Path) -> None:
    project = project_before(tmp_path, "0.163.0", "session")
    code, lines, stderr = replay(str(rollout_path("0.163.0", "session")), "--cwd", str(project))
    assert code == 0 and stderr == ""
    kinds = [line["type"] for line in lines]
    calls = [line for line in lines if line["type"] == "replay_call"]
    assert [
        (c["call_id"], c["recorded_status"], c["replayed_status"], c["agrees"]) for c in calls
    ] == [
        ("call_add", "completed", "completed", True),
        ("call_mismatch", "error", "error", True),
        ("call_update", "completed", "completed", True),
        ("call_shell", "completed", "completed", True),
        ("call_turn2", "completed", "completed", True),
    ]
    assert kinds.count("call_result") == 5
    # the recorded failure is diagnosed beside its text (the failure atlas), the others not
    results = {line["call_id"]: line for line in lines if line["type"] == "call_result"}
    assert [k for k, r in results.items() if r["diagnosis"] is not None] == ["call_mismatch"]
    diagnosis = results["call_mismatch"]["diagnosis"]
    assert diagnosis["kind"] == "context_not_found" and diagnosis["path"] == "app.cfg"
    assert diagnosis["line_absent"] == "no similar line in the file"
    assert kinds.count("patch_diagnosis") == 1
    assert all(r["warnings"] == [] for r in results.values())
    assert kinds.count("patch_apply_begin") == kinds.count("patch_apply_end") == 4
    # one call_result, then its replay_call line
    for index, kind in enumerate(kinds):
        if kind == "replay_call":
            assert kinds[index - 1] == "call_result"
    turn_diffs = [line for line in lines if line["type"] == "turn_diff" and "turn" in line]
    # each turn's closing TurnDiff is that turn's final one
    assert [(t["turn"], t["final"]) for t in turn_diffs] == [(1, True), (2, True)]
    assert kinds[-3:] == ["turn_diff", "turn_diff", "replay_summary"]
    summary = lines[-1]
    assert summary["type"] == "replay_summary"
    assert (summary["turns"], summary["calls"], summary["agree"], summary["differ"]) == (2, 5, 5, 0)
    assert summary["cli_version"] == "0.163.0" and summary["problems"] == []
    assert summary["skipped_line_types"]["world_state"] == 1
    assert snapshot_dir(project) == snapshot_dir(project_after("0.163.0", "session"))


def test_refuses_without_a_directory(tmp_path: Path) -> None:
    code, lines, stderr = replay(str(rollout_path("0.47.0", "session")))
    assert code == 2 and lines == []
    assert stderr.startswith("replay: the session was recorded in /tmp/rollout-")
    assert "pass --cwd DIR, a copy of the project as it was before the session" in stderr
    code, _, stderr = replay(str(tmp_path / "nope.jsonl"), "--cwd", str(tmp_path))
    assert code == 2 and stderr.startswith(f"replay: cannot read {tmp_path}/nope.jsonl: ")
    code, _, stderr = replay(
        str(rollout_path("0.47.0", "session")), "--cwd", str(tmp_path), "--approval-policy", "x"
    )
    assert code == 2 and stderr.startswith("replay: --approval-policy: ")


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("README.md", "# A project\n\nIt has a README.\n" * 128 + "the end\n"),
        ("other.jsonl", '{"kind": "log", "n": 1}\n{"kind": "log", "n": 2}\n'),
        ("empty.jsonl", ""),
    ],
)
def test_a_file_that_is_not_a_session_is_refused(tmp_path: Path, name: str, text: str) -> None:
    source = tmp_path / name
    source.write_text(text)
    code, lines, stderr = replay(str(source), "--cwd", str(tmp_path))
    assert code == 2 and lines == []
    count = text.count("\n") + 1
    found = (
        "it is empty"
        if not text
        else f"none of its {count} lines is a session record, a JSON object whose 'type' is "
        "session_meta, turn_context, response_item, event_msg, compacted"
    )
    assert stderr.startswith(f"replay: {source}: not a Codex session file: {found}")
    assert stderr.endswith(
        "; expected a rollout-*.jsonl file or a JSON file of Responses API items\n"
    )
    assert stderr.count("\n") == 1  # one line, not one "skipped" line per line of the file
    if name == "README.md":
        assert "(line 1: not JSON (Expecting value: line 1 column 1 (char 0)))" in stderr


def test_help_names_only_options_replay_takes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "replay", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    named = set(re.findall(r"--[a-z][a-z-]*[a-z]", proc.stdout))
    assert "--writable-root" not in named
    commands = next(a for a in build_parser()._actions if a.dest == "command")
    assert isinstance(commands.choices, dict)  # the subcommands' parsers, by name
    takes = set(commands.choices["replay"]._option_string_actions)
    assert named <= takes, sorted(named - takes)


def test_malformed_lines_and_a_difference(tmp_path: Path) -> None:
    lines = rollout_path("0.47.0", "shell_forms").read_text().split("\n")
    edited = []
    for text in lines:
        if '"call_id":"call_cd"' in text.replace(" ", "") and "function_call_output" in text:
            record = json.loads(text)
            record["payload"]["output"] = json.dumps(
                {"output": "boom\n", "metadata": {"exit_code": 1, "duration_seconds": 0.0}}
            )
            text = json.dumps(record)
        edited.append(text)
    edited.insert(3, "{truncated")
    source = tmp_path / "r.jsonl"
    source.write_text("\n".join(edited))
    project = project_before(tmp_path, "0.47.0", "shell_forms")
    code, out, stderr = replay(str(source), "--cwd", str(project))
    assert code == 1
    assert stderr.startswith(f"replay: {source}: line 4: not JSON (")
    assert stderr.endswith("(skipped)\n") and stderr.count("\n") == 1
    calls = {c["call_id"]: c for c in out if c["type"] == "replay_call"}
    assert calls["call_cd"]["agrees"] is False
    assert calls["call_cd"]["reasons"][0] == "status: recorded failed, replayed completed"
    assert all(c["agrees"] for k, c in calls.items() if k != "call_cd")
    summary = out[-1]
    assert summary["differ"] == 1 and summary["agree"] == 3
    assert summary["problems"][0]["line"] == 4


def test_approval_requests_are_declined_unless_approved(tmp_path: Path) -> None:
    items = [
        {
            "type": "function_call",
            "name": "apply_patch",
            "call_id": "up",
            "arguments": json.dumps(
                {"input": "*** Begin Patch\n*** Add File: ../up.txt\n+x\n*** End Patch"}
            ),
        }
    ]
    source = tmp_path / "items.json"
    source.write_text(json.dumps(items))
    project = tmp_path / "p"
    project.mkdir()
    code, out, stderr = replay(str(source), "--cwd", str(project), "--exclude-tmp")
    assert code == 0  # nothing recorded, nothing differs
    assert stderr.startswith("replay: up: declined the approval request to write ")
    assert "rerun with --approve approve" in stderr
    assert [c["replayed_status"] for c in out if c["type"] == "replay_call"] == ["declined"]
    assert not (tmp_path / "up.txt").exists()
    code, out, stderr = replay(
        str(source), "--cwd", str(project), "--exclude-tmp", "--approve", "approve"
    )
    assert code == 0 and stderr == "" and (tmp_path / "up.txt").read_text() == "x\n"
    assert out[-1]["not_recorded"] == 1
