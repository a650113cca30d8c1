"""``%apply_patch_replay`` in a real IPython shell: widgets per call, stepping, user errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.jupyter.magics import replay as replay_module
from applypatch_ext.jupyter.magics.replay import ReplayResult, ReplayStepper

from ..rollouts import project_after, project_before, rollout_path
from ..trees import snapshot_dir
from .conftest import RecordingWidget

README = Path(__file__).resolve().parents[2] / "README.md"


def run(ip: InteractiveShell, line: str) -> list[dict[str, Any]]:
    with capture_output() as captured:
        ip.run_line_magic("apply_patch_replay", line)
    return [o.data for o in captured.outputs]


def test_replay_shows_one_widget_per_call_and_steps(
    ip: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = project_before(tmp_path, "0.147.0", "session")
    before = len(RecordingWidget.instances)
    monkeypatch.setattr(replay_module, "ApplyPatchWidget", RecordingWidget)
    outputs = run(ip, f"{rollout_path('0.147.0', 'session')} rep --cwd {project}")
    widgets = RecordingWidget.instances[before:]
    result = ip.user_ns["rep"]
    assert isinstance(result, ReplayResult)
    assert [w.status for w in widgets] == [
        "completed",
        "error",
        "completed",
        "completed",
        "completed",
    ]
    assert [w.call_id for w in widgets] == [c.call.call_id for c in result.report.calls]
    # every call's widget streamed its text and saw its events live
    assert all(w.patch_text and w.events for w in widgets)
    assert widgets[1].explanation  # the context mismatch explains the closest region
    assert "sub/extra.txt" in widgets[3].turn_diff and "old.txt" in widgets[4].turn_diff
    # each turn has its own TurnDiff: turn 2's does not hold turn 1's files
    assert "app.cfg" in widgets[3].turn_diff and "app.cfg" not in widgets[4].turn_diff
    # the comm messages the front end received end in each call's final state
    assert [u["status"] for u in widgets[1].updates() if "status" in u] == ["error"]
    assert result.agree == 5 and result.differ == 0
    assert snapshot_dir(project) == snapshot_dir(project_after("0.147.0", "session"))
    assert len(result.turn_diffs) == 2 and "deleted file mode" in result.turn_diffs[1]
    assert [a["type"] for a in result.answers] == ["custom_tool_call_output"] * 3 + [
        "function_call_output",
        "custom_tool_call_output",
    ]

    stepper = result.stepper
    assert isinstance(stepper, ReplayStepper)
    assert stepper.index == 0 and stepper.previous_button.disabled
    assert stepper.children[2] is widgets[0]
    stepper.next_button.click()
    assert stepper.index == 1 and stepper.children[2] is widgets[1]
    assert "call 2 of 5 (call_mismatch" in stepper.header.value
    assert "recorded error, replayed error: agrees" in stepper.header.value
    for _ in range(10):
        stepper.next_button.click()
    assert stepper.index == 4 and stepper.next_button.disabled
    assert "turn 2 of 2" in stepper.header.value
    stepper.previous_button.click()
    assert stepper.index == 3
    result.show(0)
    assert stepper.children[2] is widgets[0]
    # the static fallback saved with the notebook: the current call and where it stands
    shown = [o for o in outputs if "text/html" in o]
    assert shown and 'class="applypatch-static"' in shown[0]["text/html"]
    bundle, _ = stepper._repr_mimebundle_()
    assert bundle["text/plain"].splitlines()[0].endswith(": completed (stage: done)")
    assert "call 1 of 5 (call_add" in bundle["text/plain"]


def test_no_widget_shows_the_table(ip: InteractiveShell, tmp_path: Path) -> None:
    project = project_before(tmp_path, "0.47.0", "shell_forms")
    outputs = run(ip, f"{rollout_path('0.47.0', 'shell_forms')} r --cwd {project} --no-widget")
    result = ip.user_ns["r"]
    assert result.stepper is None and len(outputs) == 1
    html = str(outputs[0]["text/html"])
    assert "4 call(s) in 1 turn(s), 4 agree, 0 differ, 0 not recorded" in html
    assert html.count("<tr>") == 5 and "shell shell" in html
    assert repr(result).startswith(
        f"replay of {rollout_path('0.47.0', 'shell_forms')} (Codex 0.47.0)"
    )


def test_turn_option_and_edited_recording(ip: InteractiveShell, tmp_path: Path) -> None:
    lines = rollout_path("0.163.0", "session").read_text().split("\n")
    edited = []
    for text in lines:
        if text:
            record = json.loads(text)
            payload = record["payload"]
            if (
                payload.get("type") == "custom_tool_call_output"
                and payload["call_id"] == "call_turn2"
            ):
                payload["output"] = payload["output"].replace("D old.txt", "D other.txt")
            text = json.dumps(record)
        edited.append(text)
    edited.insert(5, "[]")
    source = tmp_path / "edited.jsonl"
    source.write_text("\n".join(edited))
    project = tmp_path / "p"
    project.mkdir()
    (project / "notes.txt").write_text("first note\nsecond note\n")
    (project / "old.txt").write_text("x\n")
    outputs = run(ip, f"{source} r --cwd {project} --turn 2 --no-widget")
    result = ip.user_ns["r"]
    assert [c["call_id"] for c in result.comparisons] == ["call_turn2"]
    (call,) = result.comparisons
    assert call["agrees"] is False and call["reasons"][0].startswith("output: recorded ")
    html = str(outputs[0]["text/html"])
    assert "1 differ" in html and "line 6: expected a JSON object, got list (skipped)" in html


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("missing.jsonl --cwd .", "%apply_patch_replay: cannot read missing.jsonl: "),
        ("{rollout}", "%apply_patch_replay: the session was recorded in /tmp/"),
        ("{rollout} --cwd nowhere", "%apply_patch_replay: working directory not found: "),
        ("{rollout} --cwd . --turn 7", "%apply_patch_replay: "),
        (
            "{rollout} --cwd . --approve maybe",
            "%apply_patch_replay: --approve must be one of approve, ",
        ),
        ("{rollout} --cwd . --sandbox open", "%apply_patch_replay: --sandbox must be one of "),
        (
            "{readme} --cwd .",
            "%apply_patch_replay: {readme}: not a Codex session file: none of its ",
        ),
    ],
    ids=[
        *("no-file", "no-recorded-cwd", "bad-cwd", "no-turn", "bad-approve", "bad-sandbox"),
        "not-a-session",
    ],
)
def test_user_errors_are_usage_errors(ip: InteractiveShell, line: str, message: str) -> None:
    names = {"rollout": rollout_path("0.163.0", "session"), "readme": README}
    line, message = line.format(**names), message.format(**names)
    with pytest.raises(UsageError) as info:
        run(ip, line)
    assert type(info.value) is UsageError
    assert str(info.value).startswith(message)
    if "--turn 7" in line:
        assert str(info.value).endswith("has no turn 7 (turns: 1 to 2)")
