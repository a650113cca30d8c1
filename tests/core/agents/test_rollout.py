"""Reading Codex session files: turns, calls in every form, recorded outcomes, bad lines."""

from __future__ import annotations

import json

import pytest

from applypatch_ext.core.agents.rollout import (
    parse_rollout,
    read_rollout,
    rollout_from_items,
    unwrap_output,
)

from ...rollouts import SCENARIOS, VERSIONS, rollout_path

EXPECTED_CALLS = {
    "session": [
        ("call_add", 1, "freeform", "completed"),
        ("call_mismatch", 1, "freeform", "error"),
        ("call_update", 1, "freeform", "completed"),
        ("call_shell", 1, "shell", "completed"),
        ("call_turn2", 2, "freeform", "completed"),
    ],
    "shell_forms": [
        ("call_heredoc", 1, "shell", "completed"),
        ("call_cd", 1, "shell", "completed"),
        ("call_workdir", 1, "shell", "completed"),
    ],
    "freeform_commands": [
        ("call_heredoc", 1, "freeform", "error"),
        ("call_cd", 1, "freeform", "error"),
        ("call_bash", 1, "freeform", "error"),
        ("call_bare", 1, "freeform", "completed"),
    ],
}


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("version", VERSIONS)
def test_real_rollouts_read_whole(version: str, scenario: str) -> None:
    rollout = read_rollout(str(rollout_path(version, scenario)))
    assert rollout.problems == ()
    assert rollout.cli_version == version
    assert rollout.cwd is not None and rollout.cwd.endswith("/project")
    expected = list(EXPECTED_CALLS[scenario])
    if version == "0.47.0" and scenario == "shell_forms":
        expected.append(("call_argv", 1, "shell", "completed"))
    got = [(c.call_id, c.turn, c.call.form, c.recorded.status) for c in rollout.calls if c.recorded]
    assert got == expected
    assert len(rollout.turns) == (2 if scenario == "session" else 1)
    if version == "0.47.0":
        # no turn_id before 0.147: the turns start at the user_message events
        assert [t.turn_id for t in rollout.turns] == [None] * len(rollout.turns)
        assert rollout.skipped_types == {}
    else:
        assert all(t.turn_id for t in rollout.turns)
        assert len({t.turn_id for t in rollout.turns}) == len(rollout.turns)
        assert rollout.skipped_types.get("world_state") == 1
    if version == "0.163.0":
        assert rollout.skipped_types.get("token_usage_record", 0) > 0
    assert all(t.approval_policy == "never" for t in rollout.turns)


@pytest.mark.parametrize("version", VERSIONS)
def test_recorded_outcomes_by_version(version: str) -> None:
    rollout = read_rollout(str(rollout_path(version, "session")))
    calls = {c.call_id: c for c in rollout.calls}
    add = calls["call_add"].recorded
    assert add is not None
    assert add.output == "Success. Updated the following files:\nA notes.txt\n"
    assert add.exit_code == 0
    shell = calls["call_shell"].recorded
    assert shell is not None
    # the success list's paths are relative to the directory after `cd sub`
    assert shell.output == "Success. Updated the following files:\nA extra.txt\nM lib.cfg\n"
    mismatch = calls["call_mismatch"].recorded
    assert mismatch is not None and mismatch.exit_code is None
    assert mismatch.output.startswith("apply_patch verification failed: Failed to find expected")
    if version == "0.47.0":
        assert add.raw_output.startswith('{"output":')  # the JSON form
        assert add.event_status is None
    else:
        assert add.raw_output.startswith("Exit code: 0\nWall time: ")
        assert add.event_status == "completed" and add.changes is not None
        assert add.changes[0].endswith("/project/notes.txt")
    if version == "0.163.0":
        assert shell.raw_output.startswith("Wall time: 0.0000 seconds\nOutput:\nExit code: 0")


def test_shell_call_with_workdir_is_folded_into_one_cd() -> None:
    rollout = read_rollout(str(rollout_path("0.163.0", "shell_forms")))
    call = {c.call_id: c for c in rollout.calls}["call_workdir"].call
    assert call.workdir == "sub" and call.name == "exec_command"
    assert call.pipeline_text(rollout.cwd).startswith("cd 'sub' && apply_patch <<'EOF'\n")


def test_argv_form_of_the_old_shell_tool() -> None:
    rollout = read_rollout(str(rollout_path("0.47.0", "shell_forms")))
    call = {c.call_id: c for c in rollout.calls}["call_argv"].call
    assert call.command is not None and call.command[0] == "apply_patch"
    assert call.pipeline_text(rollout.cwd) == call.command[1]


def line(kind: str, payload: object) -> str:
    return json.dumps({"timestamp": "2026-01-01T00:00:00Z", "type": kind, "payload": payload})


PATCH = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"


def test_malformed_lines_are_reported_with_their_number_and_skipped() -> None:
    lines = [
        line("session_meta", {"id": "s", "cwd": "/nowhere", "cli_version": "9"}),
        "{not json",
        "[1, 2]",
        json.dumps({"type": 3, "payload": {}}),
        line("response_item", "a string payload"),
        line(
            "response_item",
            {"type": "function_call", "name": "apply_patch", "call_id": "c0", "arguments": "{x"},
        ),
        line(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": PATCH},
        ),
        "",
        line("something_new", {"whatever": 1}),
    ]
    rollout = parse_rollout(lines, source="s.jsonl")
    assert [p.line for p in rollout.problems] == [2, 3, 4, 5, 6]
    messages = [p.message for p in rollout.problems]
    assert messages[0].startswith("not JSON (")
    assert messages[1] == "expected a JSON object, got list"
    assert "no string 'type'" in messages[2] and "session_meta" in messages[2]
    assert messages[3] == "response_item line without an object payload"
    assert "arguments are not JSON" in messages[4] and messages[4].endswith("(call skipped)")
    assert str(rollout.problems[0]).startswith("line 2: not JSON")
    assert [c.call_id for c in rollout.calls] == ["c1"]
    assert rollout.calls[0].recorded is None
    assert rollout.skipped_types == {"something_new": 1}


def test_compacted_lines_are_not_replayed_twice() -> None:
    lines = [
        line("session_meta", {"id": "s", "cwd": "/p"}),
        line("event_msg", {"type": "user_message", "message": "hi"}),
        line(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": PATCH},
        ),
        line(
            "compacted",
            {
                "message": "summary",
                "replacement_history": [
                    {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1"}
                ],
            },
        ),
    ]
    rollout = parse_rollout(lines)
    assert rollout.compacted == 1 and [c.call_id for c in rollout.calls] == ["c1"]


def test_every_call_form_is_found() -> None:
    items = [
        {"type": "message", "role": "assistant", "content": []},
        {"type": "custom_tool_call", "name": "apply_patch", "call_id": "custom", "input": PATCH},
        {
            "type": "function_call",
            "name": "apply_patch",
            "call_id": "function",
            "arguments": json.dumps({"input": PATCH}),
        },
        {
            "type": "function_call",
            "name": "shell",
            "call_id": "shell",
            "arguments": json.dumps(
                {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEOF"]}
            ),
        },
        {
            "type": "function_call",
            "name": "container.exec",
            "call_id": "container",
            "arguments": json.dumps({"command": ["apply_patch", PATCH]}),
        },
        {
            "type": "function_call",
            "name": "shell_command",
            "call_id": "shell_command",
            "arguments": json.dumps({"command": f"cd d && apply_patch <<'EOF'\n{PATCH}\nEOF"}),
        },
        {
            "type": "function_call",
            "name": "exec_command",
            "call_id": "exec",
            "arguments": json.dumps({"cmd": f"apply_patch <<EOF\n{PATCH}\nEOF\n", "workdir": "w"}),
        },
        {
            "type": "local_shell_call",
            "call_id": "local",
            "id": "lsc_1",
            "status": "completed",
            "action": {"type": "exec", "command": ["apply_patch", PATCH], "env": {}},
        },
        {
            "type": "apply_patch_call",
            "call_id": "builtin",
            "status": "completed",
            "operation": {"type": "create_file", "path": "b.txt", "diff": "+b\n"},
        },
        # shell commands that are not apply_patch calls are not calls
        {
            "type": "function_call",
            "name": "shell",
            "call_id": "ls",
            "arguments": json.dumps({"command": ["bash", "-lc", "ls -la"]}),
        },
        {"type": "function_call", "name": "other", "call_id": "o", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "custom", "output": "Exit code: 0\nOutput:\nx"},
        {"type": "apply_patch_call_output", "call_id": "builtin", "status": "failed"},
    ]
    rollout = rollout_from_items(items)
    assert [(c.call_id, c.call.form) for c in rollout.calls] == [
        ("custom", "freeform"),
        ("function", "function"),
        ("shell", "shell"),
        ("container", "shell"),
        ("shell_command", "shell"),
        ("exec", "shell"),
        ("local", "shell"),
        ("builtin", "operations"),
    ]
    calls = {c.call_id: c for c in rollout.calls}
    assert calls["custom"].recorded is not None and calls["custom"].recorded.status == "completed"
    assert calls["builtin"].recorded is not None and calls["builtin"].recorded.status == "failed"
    assert calls["shell_command"].call.pipeline_text() == calls["shell_command"].call.text
    assert calls["exec"].call.pipeline_text().startswith("cd 'w' && apply_patch <<'EOF'")


@pytest.mark.parametrize(
    ("raw", "text", "code"),
    [
        ("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n", "Success.\n", 0),
        (
            "Wall time: 0.0000 seconds\nOutput:\n"
            "Exit code: 1\nWall time: 0 seconds\nOutput:\nbad\n",
            "bad\n",
            1,
        ),
        ('{"output":"ok\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}', "ok\n", 0),
        ("Chunk ID: 1\nProcess exited with code 2\nOriginal token count: 3\nOutput:\nx", "x", 2),
        ("apply_patch verification failed: nope", "apply_patch verification failed: nope", None),
        ("Output:\nnot a header", "Output:\nnot a header", None),
        ([{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}], "ab", None),
    ],
    ids=[
        "exit-code",
        "exec-command-wrapped",
        "json-0.47",
        "unified-exec",
        "bare",
        "no-header",
        "list",
    ],
)
def test_unwrap_output(raw: object, text: str, code: int | None) -> None:
    assert unwrap_output(raw) == (text, code)


def test_absolute_directories_inside_the_session_become_relative() -> None:
    script = f"cd /rec/sub && apply_patch <<'EOF'\n{PATCH}\nEOF"
    items = [
        {
            "type": "function_call",
            "name": "shell",
            "call_id": "abs",
            "arguments": json.dumps({"command": ["bash", "-lc", script]}),
        },
        {
            "type": "function_call",
            "name": "shell",
            "call_id": "wd",
            "arguments": json.dumps(
                {
                    "command": ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEOF"],
                    "workdir": "/rec",
                }
            ),
        },
    ]
    absolute, workdir = (c.call for c in rollout_from_items(items).calls)
    assert absolute.pipeline_text("/rec").startswith("cd 'sub' && apply_patch <<'EOF'\n")
    assert absolute.pipeline_text("/elsewhere") == absolute.text  # left as it was
    assert workdir.pipeline_text("/rec") == PATCH  # the session's own directory: no cd


def test_turns_without_calls_keep_the_session_numbers() -> None:
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c", "input": PATCH}
    legacy = [
        line("session_meta", {"id": "s", "cwd": "/p"}),
        line("turn_context", {"cwd": "/p", "approval_policy": "never"}),
        line("event_msg", {"type": "user_message", "message": "hi"}),
        line("turn_context", {"cwd": "/p"}),
        line("event_msg", {"type": "user_message", "message": "now edit"}),
        line("turn_context", {"cwd": "/p"}),
        line("response_item", call),
    ]
    rollout = parse_rollout(legacy)
    assert [(t.index, t.line, len(t.calls)) for t in rollout.turns] == [(1, 3, 0), (2, 5, 1)]
    assert rollout.calls[0].turn == 2
    assert rollout.turns[1].approval_policy == "never"  # carried over from the turn before
    with_ids = [
        line("session_meta", {"id": "s", "cwd": "/p"}),
        line("event_msg", {"type": "task_started", "turn_id": "t1"}),
        line("turn_context", {"turn_id": "t1", "cwd": "/p"}),
        line("event_msg", {"type": "user_message", "message": "hi"}),
        line("event_msg", {"type": "task_started", "turn_id": "t2"}),
        line("turn_context", {"turn_id": "t2", "cwd": "/p"}),
        line("event_msg", {"type": "user_message", "message": "edit"}),
        line("response_item", call),
    ]
    rollout = parse_rollout(with_ids)
    assert [(t.index, t.turn_id, t.line) for t in rollout.turns] == [(1, "t1", 2), (2, "t2", 5)]
    assert rollout.calls[0].turn == 2
