"""The streaming API and the result object, without a browser."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.jupyter.live.streams import iter_deltas, stream_patch

PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"


def test_iter_deltas_follows_one_tool_call() -> None:
    events = [
        {"type": "response.created"},
        {"type": "response.custom_tool_call_input.delta", "item_id": "ct_1", "delta": "*** Begin"},
        {"type": "response.output_text.delta", "delta": "ignored"},
        {"type": "response.custom_tool_call_input.delta", "item_id": "ct_2", "delta": "other"},
        SimpleNamespace(
            type="response.custom_tool_call_input.delta", item_id="ct_1", delta=" Patch"
        ),
        {"type": "response.custom_tool_call_input.done", "item_id": "ct_2"},
        {"type": "response.custom_tool_call_input.done", "item_id": "ct_1"},
        {"type": "response.custom_tool_call_input.delta", "item_id": "ct_1", "delta": "late"},
    ]
    assert list(iter_deltas(events)) == ["*** Begin", " Patch"]


def test_iter_deltas_without_item_ids_and_plain_strings() -> None:
    events = ["a", {"type": "response.custom_tool_call_input.delta", "delta": "b"}]
    events.append({"type": "response.custom_tool_call_input.done"})
    events.append("never")
    assert list(iter_deltas(events)) == ["a", "b"]


def test_iter_deltas_rejects_a_delta_event_without_text() -> None:
    with pytest.raises(TypeError, match="without a string 'delta'"):
        list(iter_deltas([{"type": "response.custom_tool_call_input.delta", "delta": None}]))


def test_decide_resumes_a_pending_call_from_python(ip: InteractiveShell, tmp_path: Path) -> None:
    outside = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n"
    options_line = "--sandbox read-only --stream-delay 0 --no-widget pending"
    ip.run_cell_magic("apply_patch", options_line, outside)
    result = ip.user_ns["pending"]
    assert result.status == "awaiting-approval"
    with pytest.raises(ValueError):
        result.decide("maybe")
    # read-only: the approved call is still denied by the sandbox, and the retry is asked too
    result.decide("approve")
    if result.status == "awaiting-approval":
        result.decide("approve")
    assert result.status == "completed"
    assert (tmp_path.parent / "outside.txt").read_text() == "x\n"
    (tmp_path.parent / "outside.txt").unlink()
    with pytest.raises(RuntimeError, match="not waiting for approval"):
        result.decide("approve")


def test_result_shows_the_planned_changes(ip: InteractiveShell, tmp_path: Path) -> None:
    result = stream_patch(list(PATCH), cwd=str(tmp_path), approve="approve", widget=False)
    assert result.status == "completed"
    assert result.planned == {"a.txt": {"type": "add", "content": "hello\n"}}
    assert "a.txt" in repr(result)
