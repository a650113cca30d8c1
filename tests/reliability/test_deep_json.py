"""Deeply nested JSON in a session file is a malformed line like any other (issue 21, item 10).

A line, or a call's ``arguments``, nested 100,000 deep made ``json.loads`` raise
``RecursionError``, a traceback out of ``replay`` and ``%apply_patch_replay``. Now each such
line is skipped with its line number (the calls after it still replay), a JSON file of items
nested so is refused as no session file (exit 2, saying why), and the library's item reader
raises its ``ResponseItemError``.
The real command in a subprocess, the real IPython shell.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.agents._json import MAX_DEPTH
from applypatch_ext.core.agents.responses import ResponseItemError, run_item
from applypatch_ext.core.turn.turn import Turn

from ._ipython import ipython
from ._sessions import custom, line, patch, session

__all__ = ["ipython"]  # the fixture

DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH
TOO_DEEP = f"nested too deeply (more than {MAX_DEPTH} levels)"


def deep_session(recorded: str) -> str:
    arguments = '{"input": ' + DEEP + "}"
    function = {"type": "function_call", "name": "apply_patch", "call_id": "deep-args"}
    return session(
        recorded,
        '{"timestamp": "t", "type": "response_item", "payload": ' + DEEP + "}",  # line 4
        line("response_item", {**function, "arguments": arguments}),  # line 5
        custom("fine", patch("*** Add File: a.txt", "+a")),  # line 6
    )


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    rollout = tmp_path / "deep.jsonl"
    rollout.write_text(deep_session(str(project)))
    items = tmp_path / "items.json"
    items.write_text(DEEP)
    return project, rollout, items


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "replay", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_command_skips_deep_lines_with_their_numbers(files: tuple[Path, Path, Path]) -> None:
    project, rollout, items = files
    proc = replay(str(rollout), "--cwd", str(project))
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert f"line 4: not JSON ({TOO_DEEP}) (skipped)" in proc.stderr
    assert f"line 5: function_call 'apply_patch': arguments are not JSON ({TOO_DEEP})" in (
        proc.stderr
    )
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    calls = [x["call_id"] for x in lines if x["type"] == "replay_call"]
    assert calls == ["fine"] and (project / "a.txt").read_text() == "a\n"
    summary = lines[-1]
    assert [p["line"] for p in summary["problems"]] == [4, 5]
    # a JSON file nested so deep is no session file at all: one line says so and why, exit 2
    proc = replay(str(items), "--cwd", str(project))
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.returncode == 2 and "not a Codex session file" in proc.stderr
    assert f"(line 1: not JSON ({TOO_DEEP}))" in proc.stderr


def test_the_magic_lists_deep_lines_with_their_numbers(
    ipython: InteractiveShell, files: tuple[Path, Path, Path]
) -> None:
    project, rollout, _items = files
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_replay", f"{rollout} rep --cwd {project} --no-widget")
    result = ipython.user_ns["rep"]
    assert [c["call_id"] for c in result.comparisons] == ["fine"]
    shown = captured.outputs[-1].data["text/plain"]
    assert f"line 4: not JSON ({TOO_DEEP}) (skipped)" in shown
    assert "line 5: function_call 'apply_patch'" in shown


def test_an_item_with_deep_arguments_is_an_item_error(tmp_path: Path) -> None:
    item = {
        "type": "function_call",
        "name": "apply_patch",
        "call_id": "c",
        "arguments": '{"input": ' + DEEP + "}",
    }
    with pytest.raises(ResponseItemError, match="arguments are not JSON"):
        run_item(Turn(str(tmp_path)), item, "approve")
    # nested just past the limit (which Python itself could still parse): refused the same way
    shallow = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    item["arguments"] = '{"input": "x", "extra": ' + shallow + "}"
    with pytest.raises(ResponseItemError, match="nested too deeply"):
        run_item(Turn(str(tmp_path)), item, "approve")
    assert list(tmp_path.iterdir()) == []
