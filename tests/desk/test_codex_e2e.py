"""The real Codex CLI (PyPI's ``openai-codex-cli-bin``, cached in ``.cache``) with the desk as
its MCP server, driven offline by the stand-in Responses API on 127.0.0.1: the scripted model
finds the desk's tools through Codex's tool search and calls ``apply_patch`` twice; the test
answers from the desk's side (approve, then decline with a reason), and Codex's rollout file
records, as each call's output, the text the desk returned."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.desk import clients, standin

from .conftest import make_desk, pending_call, serving, steady

REPO = Path(__file__).resolve().parents[2]
UPDATE = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n"
ADD = "*** Begin Patch\n*** Add File: notes.txt\n+a note\n*** End Patch\n"
REASON = "keep notes out of this folder"


def desk_call(call_id: str, patch: str) -> standin.Step:
    def step(body: dict[str, Any]) -> list[standin.Item]:
        namespace, name = standin.found_tool(body, "apply_patch", "desk")
        return [standin.function_call(call_id, name, {"patch": patch}, namespace)]

    return step


def texts_of(output: object) -> list[str]:
    """The text parts of a function call's output as the rollout keeps it."""
    if isinstance(output, str):
        return [output]
    assert isinstance(output, list)
    return [part["text"] for part in output if isinstance(part, dict) and "text" in part]


@pytest.mark.slow
def test_codex_calls_apply_patch_through_the_desk_and_records_its_answer(tmp_path: Path) -> None:
    binary = clients.codex_binary(REPO / ".cache")
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("one\ntwo\n")
    desk = make_desk(project, ["--review"])
    model = standin.ScriptedModel().start()
    model.play(
        [
            [standin.tool_search_call("search_1", "apply_patch desk")],
            desk_call("call_update", UPDATE),
            desk_call("call_add", ADD),
            [standin.message("Updated a.txt; the note was declined.")],
        ]
    )

    def answer() -> None:  # the person at the desk
        (first,) = pending_call(desk)
        first.decide("approve")
        first.wait()
        wait_second = [c for c in pending_call(desk) if c is not first]
        wait_second[0].decide("decline", reason=REASON)

    answering = threading.Thread(target=answer)
    try:
        with serving(desk) as server:
            home = clients.codex_home(
                tmp_path / "home" / ".codex",
                desk_name="desk",
                desk_url=server.url,
                model_url=model.base_url,
            )
            answering.start()
            run = clients.run_codex(binary, home, project, "Fix a.txt", server.token)
            answering.join(60)
    finally:
        model.stop()
    assert run.returncode == 0, run.stderr[-3000:]
    updated, added = desk.calls
    assert updated.status is CallStatus.COMPLETED and added.status is CallStatus.DECLINED
    assert (project / "a.txt").read_text() == "one\nTWO\n" and not (project / "notes.txt").exists()
    outputs = {
        item["call_id"]: texts_of(item["output"])
        for item in run.rollout_items()
        if item.get("type") == "function_call_output"
    }
    # Codex puts its own wall-time line first, then the tool's text exactly as the desk sent it
    assert outputs["call_update"][-1] == updated.output
    assert steady(updated.output) == (
        "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n"
        "M a.txt\n"
    )
    assert outputs["call_add"][-1] == added.output
    assert added.output == f"patch rejected by user\nThe user's reason: {REASON}"
    # and the model received the same
    sent = {
        key: texts_of(value)
        for r in model.requests
        for key, value in standin.call_outputs(r).items()
    }
    assert sent["call_update"][-1] == updated.output and sent["call_add"][-1] == added.output
