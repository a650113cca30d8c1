"""The mishap: a post-tool-use hook that raises (an audit log that is unreachable, a bug).

It used to lose the result: ``call.result`` stayed None, the exception escaped, and the writes
were done. The hook's exception now becomes a failed result that carries its text, with the
delta still reporting the writes (and the TurnDiff tracking them). A pre-tool-use hook that
raises fails the call the same way, before anything is written. A hook that returns something
that is not one of its documented answers fails the call too, saying what was expected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from applypatch_ext.core.turn.events import EventType
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import HookBlock, Turn

ADD = (
    "*** Begin Patch\n*** Add File: a.txt\n+alpha\n"
    "*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch\n"
)


class AuditLogDown(RuntimeError):
    pass


def unreachable(_: object) -> str:
    raise AuditLogDown("audit log unreachable: connection refused")


def test_a_raising_post_hook_becomes_a_failed_result_with_the_writes(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("b\n")
    turn = Turn(str(tmp_path), post_tool_use=unreachable)
    call = turn.call()
    call.push_delta(ADD)
    result = call.run("approve")  # no exception escapes
    assert call.result is result
    assert result.status == CallStatus.FAILED
    message = (
        "post-tool-use hook failed after the call ran: "
        "AuditLogDown: audit log unreachable: connection refused"
    )
    assert (result.output, result.error) == (message, message)
    # The writes happened; the delta says so, and the turn tracks them.
    assert (tmp_path / "a.txt").read_text() == "alpha\n"
    assert (tmp_path / "b.txt").read_text() == "B\n"
    assert [(c.type, c.path) for c in result.delta.changes] == [
        ("add", f"{tmp_path}/a.txt"),
        ("update", f"{tmp_path}/b.txt"),
    ]
    assert result.delta.exact
    assert "+alpha" in turn.turn_diff() and "+B" in turn.turn_diff()
    types = [e.event.type for e in result.events]
    assert types.count(EventType.PATCH_APPLY_BEGIN) == types.count(EventType.PATCH_APPLY_END) == 1
    assert result.stdout == "Success. Updated the following files:\nA a.txt\nM b.txt\n"


def test_a_raising_post_hook_on_a_failed_call_keeps_the_call_error(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path), post_tool_use=unreachable)
    result = turn.run(ADD, "approve")  # b.txt is missing: verification fails
    assert result.status == CallStatus.FAILED
    assert result.error is not None
    assert result.error.startswith("post-tool-use hook failed after the call ran: AuditLogDown")
    assert "(the call had ended error: Failed to read file to update" in result.error
    assert not (tmp_path / "a.txt").exists()


def test_a_raising_post_hook_after_a_resumed_approval(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    work = tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    options = PipelineOptions.from_strings(str(work), exclude_tmp=True)  # /tmp is not writable
    turn = Turn(str(work), options=options, post_tool_use=unreachable)
    call = turn.call()
    call.push_delta(f"*** Begin Patch\n*** Add File: {outside}/x.txt\n+x\n*** End Patch\n")
    assert call.run().status == "awaiting-approval"
    result = call.resume("approve")
    assert call.result is result
    assert result.status == CallStatus.FAILED and "AuditLogDown" in (result.error or "")
    assert (outside / "x.txt").read_text() == "x\n"
    assert [c.path for c in result.delta.changes] == [f"{outside}/x.txt"]


def test_a_raising_pre_hook_fails_the_call_and_writes_nothing(tmp_path: Path) -> None:
    seen: list[str] = []

    def broken(text: str) -> str:
        raise KeyError("policy")

    turn = Turn(str(tmp_path), pre_tool_use=broken, post_tool_use=lambda r: seen.append(r.status))
    call = turn.call()
    call.push_delta(ADD.replace("*** Update File: b.txt\n@@\n-b\n+B\n", ""))
    result = call.run("approve")
    assert call.result is result
    message = "pre-tool-use hook failed, nothing was written: KeyError: 'policy'"
    assert (result.status, result.output, result.error) == (CallStatus.FAILED, message, message)
    assert result.delta.is_empty()
    assert list(tmp_path.iterdir()) == []
    assert [e.event.type for e in result.events] == ["patch_apply_updated", "patch_diagnosis"]
    assert result.diagnosis is not None and result.diagnosis.kind == "hook_failed"
    assert seen == [CallStatus.FAILED]  # the post hook still sees the outcome


@pytest.mark.parametrize(
    ("hook", "expected"),
    [
        (
            "pre",
            "pre-tool-use hook failed, nothing was written: it returned int; expected a "
            "HookBlock (block the call), a str (the patch to run instead) or None (run it as is)",
        ),
        (
            "post",
            "post-tool-use hook failed after the call ran: it returned int; expected a str "
            "(the output to give the model instead) or None (keep the output)",
        ),
    ],
)
def test_a_hook_returning_nonsense_fails_the_call_clearly(
    tmp_path: Path, hook: str, expected: str
) -> None:
    turn = Turn(
        str(tmp_path),
        pre_tool_use=(lambda text: 42) if hook == "pre" else None,  # type: ignore[arg-type, return-value]
        post_tool_use=(lambda result: 42) if hook == "post" else None,  # type: ignore[arg-type, return-value]
    )
    result = turn.run("*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n", "approve")
    assert (result.status, result.error) == (CallStatus.FAILED, expected)
    assert (tmp_path / "a.txt").exists() is (hook == "post")


def test_working_hooks_are_unchanged(tmp_path: Path) -> None:
    turn = Turn(
        str(tmp_path),
        pre_tool_use=lambda text: HookBlock("frozen") if "b.txt" in text else None,
        post_tool_use=lambda result: None,
    )
    blocked = turn.run(ADD, "approve")
    assert (blocked.status, blocked.output) == (CallStatus.REJECTED, "blocked by hook: frozen")
    fine = turn.run("*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n", "approve")
    assert fine.status == CallStatus.COMPLETED
