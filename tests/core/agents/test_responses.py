"""Responses API items and stream events <-> pipeline calls: the three forms, dicts and the
``openai`` package's typed objects, incremental decoding of function-call arguments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai.types.responses import (
    ResponseApplyPatchToolCall,
    ResponseCustomToolCall,
    ResponseCustomToolCallInputDeltaEvent,
    ResponseCustomToolCallInputDoneEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
)

from applypatch_ext.core.agents.responses import (
    ArgumentsInputDecoder,
    ResponseItemError,
    iter_patch_deltas,
    operations_to_patch,
    patch_call_from_item,
    run_item,
    run_stream,
)
from applypatch_ext.core.agents.rollout import rollout_from_items
from applypatch_ext.core.turn.turn import Turn

PATCH = '*** Begin Patch\n*** Add File: hello.py\n+print("héllo \\u2603 😀")\n*** End Patch\n'


def work(tmp_path: Path) -> Turn:
    (tmp_path / "app.py").write_text("def main():\n    run(debug=True)\n")
    return Turn(str(tmp_path))


def test_custom_tool_call_typed_object(tmp_path: Path) -> None:
    turn = work(tmp_path)
    item = ResponseCustomToolCall(
        type="custom_tool_call", call_id="c1", name="apply_patch", input=PATCH, id="ctc_1"
    )
    ran = run_item(turn, item, "decline")
    assert ran is not None
    result, answer = ran
    assert result.status == "completed" and result.call_id == "c1"
    assert (tmp_path / "hello.py").read_text() == 'print("héllo \\u2603 😀")\n'
    assert answer == {"type": "custom_tool_call_output", "call_id": "c1", "output": result.output}
    assert answer["output"].startswith("Exit code: 0\nWall time: ")


def test_function_tool_form_typed_object(tmp_path: Path) -> None:
    turn = work(tmp_path)
    item = ResponseFunctionToolCall(
        type="function_call",
        call_id="f1",
        name="apply_patch",
        arguments=json.dumps({"input": PATCH}),
        id="fc_1",
    )
    ran = run_item(turn, item, "decline")
    assert ran is not None
    result, answer = ran
    assert result.ok and answer["type"] == "function_call_output" and answer["call_id"] == "f1"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("{not json", "arguments are not JSON"),
        ('["input"]', "arguments must be a JSON object, got list"),
        ('{"patch": "x"}', 'arguments must be {"input": "<patch>"}'),
    ],
    ids=["not-json", "not-object", "no-input"],
)
def test_function_tool_form_bad_arguments(arguments: str, message: str) -> None:
    item = {"type": "function_call", "name": "apply_patch", "call_id": "f", "arguments": arguments}
    with pytest.raises(ResponseItemError, match=r"^function_call ") as info:
        patch_call_from_item(item)
    assert message in str(info.value)


def test_builtin_tool_operations_typed_objects(tmp_path: Path) -> None:
    turn = work(tmp_path)
    (tmp_path / "old.txt").write_text("bye\n")
    items = [
        ResponseApplyPatchToolCall.model_validate(
            {
                "type": "apply_patch_call",
                "id": "apc_1",
                "call_id": "a1",
                "status": "completed",
                "operation": {"type": "create_file", "path": "new.txt", "diff": "+one\n+two\n"},
            }
        ),
        ResponseApplyPatchToolCall.model_validate(
            {
                "type": "apply_patch_call",
                "id": "apc_2",
                "call_id": "a2",
                "status": "completed",
                "operation": {
                    "type": "update_file",
                    "path": "app.py",
                    "diff": "@@ def main():\n-    run(debug=True)\n+    run(debug=False)\n",
                },
            }
        ),
        ResponseApplyPatchToolCall.model_validate(
            {
                "type": "apply_patch_call",
                "id": "apc_3",
                "call_id": "a3",
                "status": "completed",
                "operation": {"type": "delete_file", "path": "old.txt"},
            }
        ),
        ResponseApplyPatchToolCall.model_validate(
            {
                "type": "apply_patch_call",
                "id": "apc_4",
                "call_id": "a4",
                "status": "completed",
                "operation": {"type": "update_file", "path": "app.py", "diff": "-not there\n+x\n"},
            }
        ),
    ]
    answers = []
    for item in items:
        ran = run_item(turn, item, "decline")
        assert ran is not None
        answers.append(ran[1])
    assert (tmp_path / "new.txt").read_text() == "one\ntwo\n"
    assert (tmp_path / "app.py").read_text() == "def main():\n    run(debug=False)\n"
    assert not (tmp_path / "old.txt").exists()
    assert [a["status"] for a in answers] == ["completed", "completed", "completed", "failed"]
    assert all(a["type"] == "apply_patch_call_output" for a in answers)
    assert answers[3]["output"].startswith("apply_patch verification failed: Failed to find")
    assert answers[0]["output"].endswith("Success. Updated the following files:\nA new.txt\n")
    assert "diff --git a/new.txt b/new.txt" in turn.turn_diff()


def test_operations_to_patch_forms_and_errors() -> None:
    patch = operations_to_patch(
        [
            {"type": "create_file", "path": "a", "diff": "+x\r\n"},
            {"type": "update_file", "path": "b", "diff": "@@\n-y\n+z", "move_to": "c"},
            {"type": "delete_file", "path": "d"},
        ]
    )
    assert patch == (
        "*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n@@\n-y\n+z\n"
        "*** Delete File: d\n*** End Patch"
    )
    with pytest.raises(ResponseItemError, match=r"operation 1 has type 'rename'; valid: "):
        operations_to_patch([{"type": "rename", "path": "a"}])
    with pytest.raises(ResponseItemError, match=r"operation 1 \(create_file a\) has no diff"):
        operations_to_patch([{"type": "create_file", "path": "a"}])
    with pytest.raises(ResponseItemError, match="operation 2 has no path"):
        operations_to_patch([{"type": "delete_file", "path": "a"}, {"type": "delete_file"}])


def test_typed_items_read_as_a_rollout() -> None:
    items = [
        ResponseCustomToolCall(
            type="custom_tool_call", call_id="c1", name="apply_patch", input=PATCH
        ),
        ResponseFunctionToolCall(
            type="function_call", call_id="c2", name="get_weather", arguments="{}"
        ),
    ]
    rollout = rollout_from_items(items)
    assert [c.call_id for c in rollout.calls] == ["c1"] and rollout.problems == ()


# --- streaming ---------------------------------------------------------------------------------


def arguments_events(arguments: str, size: int, item_id: str = "fc_1") -> list[object]:
    events: list[object] = [
        ResponseOutputItemAddedEvent.model_validate(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "sequence_number": 0,
                "item": {
                    "type": "function_call",
                    "id": item_id,
                    "call_id": "call_f",
                    "name": "apply_patch",
                    "arguments": "",
                    "status": "in_progress",
                },
            }
        )
    ]
    for n, start in enumerate(range(0, len(arguments), size), 1):
        events.append(
            ResponseFunctionCallArgumentsDeltaEvent(
                type="response.function_call_arguments.delta",
                delta=arguments[start : start + size],
                item_id=item_id,
                output_index=0,
                sequence_number=n,
            )
        )
    # (validated from a dict, as the wire has it: this SDK's model declares no `name`)
    events.append(
        ResponseFunctionCallArgumentsDoneEvent.model_validate(
            {
                "type": "response.function_call_arguments.done",
                "arguments": arguments,
                "item_id": item_id,
                "output_index": 0,
                "sequence_number": len(events),
                "name": "apply_patch",
            }
        )
    )
    return events


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_function_call_arguments_decode_incrementally(size: int) -> None:
    arguments = json.dumps({"other": {"a": [1, "}"]}, "input": PATCH, "n": 2}, ensure_ascii=True)
    events = arguments_events(arguments, size)
    deltas = list(iter_patch_deltas(events))
    assert "".join(deltas) == PATCH
    if size < 10:
        # the preview streams: the patch arrives in many pieces, not at the done event
        assert len(deltas) > len(PATCH) // (size * 10)


def test_decoder_escapes_split_anywhere() -> None:
    text = json.dumps({"input": 'a\\"b\n\t\u00e9\U0001f600/'}, ensure_ascii=True)
    for cut in range(len(text) + 1):
        decoder = ArgumentsInputDecoder()
        got = decoder.feed(text[:cut]) + decoder.feed(text[cut:])
        assert got == 'a\\"b\n\t\u00e9\U0001f600/'
        assert decoder.close() == got


def test_decoder_close_reports_bad_arguments() -> None:
    decoder = ArgumentsInputDecoder()
    decoder.feed('{"input": 3}')
    with pytest.raises(ResponseItemError, match=r'must be \{"input": "<patch>"\}'):
        decoder.close()


def test_custom_tool_call_events_typed_and_other_calls_skipped() -> None:
    events = [
        ResponseCustomToolCallInputDeltaEvent(
            type="response.custom_tool_call_input.delta",
            delta=PATCH[:10],
            item_id="ctc_1",
            output_index=0,
            sequence_number=1,
        ),
        {"type": "response.custom_tool_call_input.delta", "delta": "zzz", "item_id": "ctc_2"},
        ResponseCustomToolCallInputDeltaEvent(
            type="response.custom_tool_call_input.delta",
            delta=PATCH[10:],
            item_id="ctc_1",
            output_index=0,
            sequence_number=2,
        ),
        ResponseCustomToolCallInputDoneEvent(
            type="response.custom_tool_call_input.done",
            input=PATCH,
            item_id="ctc_1",
            output_index=0,
            sequence_number=3,
        ),
        {"type": "response.custom_tool_call_input.delta", "delta": "after", "item_id": "ctc_1"},
    ]
    assert "".join(iter_patch_deltas(events)) == PATCH


def test_run_stream_function_form_previews_and_answers(tmp_path: Path) -> None:
    turn = work(tmp_path)
    events = arguments_events(json.dumps({"input": PATCH}), 5)
    ran = run_stream(turn, events, "decline")
    assert ran is not None
    result, answer = ran
    assert result.ok and answer == {
        "type": "function_call_output",
        "call_id": "call_f",
        "output": result.output,
    }
    kinds = [e.event.type for e in result.events]
    assert kinds[0] == "patch_apply_updated" and "patch_apply_end" in kinds
    assert (tmp_path / "hello.py").exists()


def test_run_stream_without_a_patch_call(tmp_path: Path) -> None:
    turn = work(tmp_path)
    events = arguments_events(json.dumps({"city": "Paris"}), 4)
    added = events[0]
    assert isinstance(added, ResponseOutputItemAddedEvent)
    assert isinstance(added.item, ResponseFunctionToolCall)
    added.item.name = "get_weather"
    assert run_stream(turn, events, "decline") is None
    assert turn.calls == []


def test_run_stream_builtin_call_arrives_whole(tmp_path: Path) -> None:
    turn = work(tmp_path)
    item = {
        "type": "apply_patch_call",
        "id": "apc_9",
        "call_id": "call_b",
        "status": "completed",
        "operation": {"type": "create_file", "path": "b.txt", "diff": "+b\n"},
    }
    events = [
        {"type": "response.created", "response": {"id": "r"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": "r"}},
    ]
    ran = run_stream(turn, events, "decline")
    assert ran is not None
    result, answer = ran
    assert (tmp_path / "b.txt").read_text() == "b\n"
    assert answer == {
        "type": "apply_patch_call_output",
        "call_id": "call_b",
        "status": "completed",
        "output": result.output,
    }


#: What Codex's freeform apply_patch answers a shell command (tests/data/rollouts/*/
#: freeform_commands.jsonl, every version): the command is an invalid patch.
NOT_A_PATCH = (
    "apply_patch verification failed: invalid patch: The first line of the patch must be "
    "'*** Begin Patch'"
)
COMMAND = f"cd sub && apply_patch <<'EOF'\n{PATCH}EOF\n"


def test_an_apply_patch_tool_given_a_command_refuses_it_as_codex_does(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    custom = {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": COMMAND}
    ran = run_item(work(tmp_path), custom, "approve")
    assert ran is not None and ran[0].status == "error" and ran[0].output == NOT_A_PATCH
    streamed = arguments_events(json.dumps({"input": COMMAND}), 5)
    ran = run_stream(work(tmp_path), streamed, "approve")
    assert ran is not None and ran[0].status == "error" and ran[0].output == NOT_A_PATCH
    # the same command in a shell call runs in sub/
    shell = {
        "type": "function_call",
        "call_id": "s1",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": COMMAND}),
    }
    ran = run_item(work(tmp_path), shell, "approve")
    assert ran is not None and ran[0].ok and (tmp_path / "sub" / "hello.py").exists()
    assert not (tmp_path / "hello.py").exists()
