"""The Agents SDK editor driven by the SDK's own runner (``Runner.run`` with the SDK's
``ScriptedModel``: no network), its approval flow mapped to the SDK's hooks."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.editor import ApplyPatchOperation, ApplyPatchResult
from agents.items import TResponseOutputItem
from agents.testing import ScriptedModel, assistant_message

from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.options import PipelineOptions
from applypatch_ext.jupyter.magics.agents import PipelineEditor

set_tracing_disabled(True)  # no trace export: nothing leaves the machine


def patch_call(call_id: str, operation: dict[str, Any]) -> TResponseOutputItem:
    """An apply_patch_call output item as the wire has it: a dict, which ``ScriptedModel``
    converts itself (its step type names only the SDK's pydantic items)."""
    item = {
        "type": "apply_patch_call",
        "call_id": call_id,
        "status": "completed",
        "operation": operation,
    }
    return item  # type: ignore[return-value]


def outputs(model: ScriptedModel) -> list[dict[str, Any]]:
    """The apply_patch_call_output items the model received, in order."""
    found: dict[str, dict[str, Any]] = {}
    for call in model.calls:
        if isinstance(call.input, list):
            for item in call.input:
                if isinstance(item, dict) and item.get("type") == "apply_patch_call_output":
                    found[item["call_id"]] = item
    return list(found.values())


def run(agent: Agent[Any], start: Any) -> Any:
    return asyncio.run(Runner.run(agent, start, max_turns=10))


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.cfg").write_text("[server]\ndebug = true\n")
    (root / "old.txt").write_text("bye\n")
    return root


def options(root: Path) -> PipelineOptions:
    # tmp_path is under /tmp, a writable root by default: without it, ../ is outside
    return PipelineOptions.from_strings(str(root), exclude_tmp=True)


def test_the_runner_edits_through_the_pipeline(tmp_path: Path) -> None:
    root = project(tmp_path)
    editor = PipelineEditor(str(root), options=options(root))
    model = ScriptedModel(
        [
            [
                patch_call(
                    "c1", {"type": "create_file", "path": "notes.txt", "diff": "+one\n+two\n"}
                )
            ],
            [
                patch_call(
                    "c2",
                    {
                        "type": "update_file",
                        "path": "app.cfg",
                        "diff": "@@ [server]\n-debug = true\n+debug = false\n",
                    },
                )
            ],
            [
                patch_call(
                    "c3", {"type": "update_file", "path": "app.cfg", "diff": "-not there\n+x\n"}
                )
            ],
            [patch_call("c4", {"type": "delete_file", "path": "old.txt"})],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="editor", model=model, tools=[editor.tool()])
    result = run(agent, "edit the project")
    assert result.final_output == "done"
    assert (root / "notes.txt").read_text() == "one\ntwo\n"
    assert (root / "app.cfg").read_text() == "[server]\ndebug = false\n"
    assert not (root / "old.txt").exists()
    assert [r.status for r in editor.results] == ["completed", "completed", "error", "completed"]
    assert [r.call_id for r in editor.results] == ["c1", "c2", "c3", "c4"]
    sent = outputs(model)
    assert [(o["call_id"], o["status"]) for o in sent] == [
        ("c1", "completed"),
        ("c2", "completed"),
        ("c3", "failed"),
        ("c4", "completed"),
    ]
    assert sent[0]["output"].endswith("Success. Updated the following files:\nA notes.txt\n")
    assert sent[2]["output"].startswith("apply_patch verification failed: Failed to find expected")
    # one pipeline turn: its TurnDiff holds the whole run
    diff = editor.turn.turn_diff()
    assert "notes.txt" in diff and "app.cfg" in diff and "deleted file mode" in diff


OUTSIDE = {"type": "create_file", "path": "../outside.txt", "diff": "+x\n"}


def test_ask_interrupts_the_run_and_resumes_after_approval(tmp_path: Path) -> None:
    root = project(tmp_path)
    editor = PipelineEditor(str(root), options=options(root), approve="ask")
    model = ScriptedModel([[patch_call("out", OUTSIDE)], [assistant_message("written")]])
    agent = Agent(name="editor", model=model, tools=[editor.tool()])
    first = run(agent, "write outside")
    assert len(first.interruptions) == 1 and editor.results == []
    assert not (tmp_path / "outside.txt").exists()
    state = first.to_state()
    state.approve(first.interruptions[0])
    second = run(agent, state)
    assert second.final_output == "written"
    assert (tmp_path / "outside.txt").read_text() == "x\n"
    (call,) = editor.results
    kinds = [e["type"] for e in call.events]
    # the pipeline asked too, and got the SDK's approval
    assert "apply_patch_approval_request" in kinds
    assert [e["decision"] for e in call.events if e["type"] == "apply_patch_approval_decision"] == [
        "approve"
    ]


def test_ask_then_reject(tmp_path: Path) -> None:
    root = project(tmp_path)
    editor = PipelineEditor(str(root), options=options(root), approve="ask")
    model = ScriptedModel([[patch_call("out", OUTSIDE)], [assistant_message("ok")]])
    agent = Agent(name="editor", model=model, tools=[editor.tool()])
    first = run(agent, "write outside")
    state = first.to_state()
    state.reject(first.interruptions[0])
    run(agent, state)
    assert editor.results == [] and not (tmp_path / "outside.txt").exists()
    (sent,) = outputs(model)
    assert sent["status"] == "failed"


@pytest.mark.parametrize("answer", ["decline", "approve"])
def test_fixed_answers_go_through_on_approval(tmp_path: Path, answer: str) -> None:
    root = project(tmp_path)
    editor = PipelineEditor(str(root), options=options(root), approve=answer)
    model = ScriptedModel([[patch_call("out", OUTSIDE)], [assistant_message("ok")]])
    agent = Agent(name="editor", model=model, tools=[editor.tool()])
    result = run(agent, "write outside")
    assert result.interruptions == []
    (sent,) = outputs(model)
    if answer == "approve":
        assert sent["status"] == "completed" and (tmp_path / "outside.txt").exists()
    else:
        assert sent["status"] == "failed" and sent["output"] == "patch rejected by user"
        assert editor.results == [] and not (tmp_path / "outside.txt").exists()


def test_a_callable_sees_the_request(tmp_path: Path) -> None:
    root = project(tmp_path)
    seen: list[ApplyPatchApprovalRequest] = []

    def decide(request: ApplyPatchApprovalRequest) -> str:
        seen.append(request)
        return "decline"

    editor = PipelineEditor(str(root), options=options(root), approve=decide)
    model = ScriptedModel([[patch_call("out", OUTSIDE)], [assistant_message("ok")]])
    run(Agent(name="editor", model=model, tools=[editor.tool()]), "write outside")
    (request,) = seen
    assert request.call_id == "out" and request.files == ("../outside.txt",)
    assert "*** Add File: ../outside.txt" in request.patch


def test_inside_the_project_needs_no_approval(tmp_path: Path) -> None:
    root = project(tmp_path)
    editor = PipelineEditor(str(root), options=options(root), approve="ask")
    inside = ApplyPatchOperation(type="create_file", path="a.txt", diff="+a\n")
    outside = ApplyPatchOperation(type="create_file", path="../a.txt", diff="+a\n")
    assert editor.needs_approval(None, inside, "i") is False
    assert editor.needs_approval(None, outside, "o") is True
    assert not (root / "a.txt").exists() and not (tmp_path / "a.txt").exists()  # dry runs


def test_the_editor_alone_and_a_bad_answer(tmp_path: Path) -> None:
    root = project(tmp_path)
    editor = PipelineEditor(str(root))
    result = editor.create_file(ApplyPatchOperation(type="create_file", path="b.txt", diff="+b\n"))
    assert isinstance(result, ApplyPatchResult) and result.status == "completed"
    assert editor.results[0].call_id == "op-1"
    with pytest.raises(ValueError, match="'maybe' is not a valid Decision"):
        PipelineEditor(str(root), approve="maybe")


def test_widget_in_a_shell(ip: Any, tmp_path: Path) -> None:
    from IPython.utils.capture import capture_output

    root = project(tmp_path)
    editor = PipelineEditor(str(root), widget=True)
    with capture_output() as captured:
        editor.update_file(
            ApplyPatchOperation(
                type="update_file", path="app.cfg", diff="-debug = true\n+debug = 1\n"
            )
        )
    html = [o.data.get("text/html", "") for o in captured.outputs]
    assert any('class="applypatch-static"' in h for h in html)
    assert editor.results[0].status == "completed"
