"""One tool call through the whole pipeline: every row of the failure table (docs/behaviour.md §6),
asserting the event sequence, the statuses, the delta, the tree and the TurnDiff."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.apply.changes import AppliedAdd, AppliedPatchDelta, AppliedUpdate
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.interrupts import CancellationToken
from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest, PatchApplyBegin
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import format_wall_time
from applypatch_ext.core.turn.turn import HookBlock, Turn

ROOT = "/work"
WORKSPACE = SandboxPolicy(
    PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
)


def patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch"


class Clock:
    def __init__(self) -> None:
        self.ticks = itertools.count()

    def __call__(self) -> float:
        return next(self.ticks) * 0.001


def make_turn(files: dict[str, str] | None = None, **options: Any) -> tuple[Turn, MemoryFilesystem]:
    fs = MemoryFilesystem({f"{ROOT}/{k}": v for k, v in (files or {}).items()})
    fs.create_dirs(ROOT)
    opts = PipelineOptions(**{"sandbox": WORKSPACE, **options})
    return Turn(ROOT, options=opts, filesystem=fs, clock=Clock()), fs


def types(result: Any) -> list[str]:
    return [e.event.type for e in result.events]


def files(fs: MemoryFilesystem) -> dict[str, Any]:
    return {k[len(ROOT) + 1 :]: v for k, v in fs.tree().items() if k.startswith(ROOT + "/")}


def test_completed_call_emits_begin_end_and_turn_diff() -> None:
    turn, fs = make_turn({"a.txt": "one\n"})
    result = turn.run(patch("*** Update File: a.txt\n@@\n-one\n+uno"), Decision.APPROVE)
    assert result.status == CallStatus.COMPLETED
    assert types(result) == [
        "patch_apply_updated",
        "patch_safety_assessed",
        "patch_apply_begin",
        "patch_apply_end",
        "turn_diff",
    ]
    begin = result.events[2].event.to_json()
    assert begin["auto_approved"] is True
    assert begin["changes"] == {
        f"{ROOT}/a.txt": {
            "type": "update",
            "unified_diff": "@@ -1 +1 @@\n-one\n+uno\n",
            "move_path": None,
        }
    }
    end = result.events[3].event.to_json()
    assert end["status"] == "completed" and end["success"] is True
    assert end["changes"] == begin["changes"]
    assert end["stdout"] == "Success. Updated the following files:\nM a.txt\n"
    assert result.output.startswith("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.")
    assert files(fs) == {"a.txt": b"uno\n"}
    assert result.turn_diff is not None
    assert result.turn_diff.startswith("diff --git a/a.txt b/a.txt\nindex ")
    assert result.turn_diff is not None and "-one\n+uno\n" in result.turn_diff


def test_parse_error_has_no_begin_or_end() -> None:
    turn, fs = make_turn({"a.txt": "x\n"})
    result = turn.run("*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch", "approve")
    assert result.status == CallStatus.ERROR
    assert result.output == (
        "apply_patch verification failed: invalid hunk at line 2, '*** Frobnicate File: a.txt' is "
        "not a valid hunk header. Valid hunk headers: '*** Add File: {path}', "
        "'*** Delete File: {path}', '*** Update File: {path}'"
    )
    assert "patch_apply_begin" not in types(result)
    assert result.delta == AppliedPatchDelta()
    assert files(fs) == {"a.txt": b"x\n"}
    assert result.turn_diff is None


def test_verify_error_before_begin_even_when_the_first_hunk_would_apply() -> None:
    turn, fs = make_turn({"a.txt": "x\n"})
    result = turn.run(
        patch("*** Add File: new.txt\n+n\n*** Update File: a.txt\n@@\n-missing\n+y"), "approve"
    )
    assert result.status == CallStatus.ERROR
    assert result.output == (
        f"apply_patch verification failed: Failed to find expected lines in {ROOT}/a.txt:\nmissing"
    )
    assert types(result) == ["patch_apply_updated", "patch_diagnosis"]
    assert files(fs) == {"a.txt": b"x\n"}
    diagnosis = result.diagnosis
    assert diagnosis is not None
    # the second hunk's chunk, its first line: line 5 of the patch
    assert (diagnosis.kind, diagnosis.path, diagnosis.patch_line) == (
        "context_not_found",
        "a.txt",
        5,
    )
    assert (diagnosis.line, diagnosis.line_absent) == (None, "no similar line in the file")


def test_safety_reject_emits_no_begin_or_end() -> None:
    turn, fs = make_turn(approval_policy=ApprovalPolicy("never"))
    result = turn.run(patch("*** Add File: ../outside.txt\n+x"), "approve")
    assert result.status == CallStatus.REJECTED
    assert result.output == (
        "patch rejected: writing outside of the project; rejected by user approval settings"
    )
    assert types(result) == ["patch_apply_updated", "patch_safety_assessed", "patch_diagnosis"]
    assert result.diagnosis is not None and result.diagnosis.kind == "rejected"
    assert files(fs) == {}
    assert "/outside.txt" not in fs.tree()


def test_empty_patch_is_rejected_by_safety() -> None:
    turn, _ = make_turn()
    result = turn.run("*** Begin Patch\n*** End Patch", "approve")
    assert (result.status, result.output) == (CallStatus.REJECTED, "patch rejected: empty patch")
    assert result.diagnosis is not None and result.diagnosis.kind == "empty_patch"


def test_approval_declined() -> None:
    turn, fs = make_turn()
    result = turn.run(patch("*** Add File: ../outside.txt\n+x"), Decision.DECLINE)
    assert result.status == CallStatus.DECLINED
    assert result.output == "patch rejected by user"
    assert types(result) == [
        "patch_apply_updated",
        "patch_safety_assessed",
        "patch_apply_begin",
        "apply_patch_approval_request",
        "apply_patch_approval_decision",
        "patch_apply_end",
        "patch_diagnosis",
    ]
    assert result.diagnosis is not None and result.diagnosis.kind == "declined"
    end = result.events[-2].event.to_json()
    assert (end["status"], end["stdout"], end["stderr"]) == (
        "declined",
        "",
        "patch rejected by user",
    )
    assert result.events[2].event.to_json()["auto_approved"] is False
    assert "/outside.txt" not in fs.tree()
    assert result.delta == AppliedPatchDelta()


def test_awaiting_approval_then_resume() -> None:
    turn, fs = make_turn()
    call = turn.call()
    call.push_delta(patch("*** Add File: ../outside.txt\n+x"))
    waiting = call.run()
    assert waiting.status == CallStatus.AWAITING_APPROVAL
    assert waiting.pending_request is not None
    assert waiting.pending_request.files == ("/outside.txt",)
    assert "/outside.txt" not in fs.tree()
    # a user approval: the sandboxed first attempt is denied, the retry is approved too
    done = call.resume("approve", approver="approve")
    assert done.status == CallStatus.COMPLETED
    assert fs.read_bytes("/outside.txt") == b"x\n"


def test_approved_write_outside_the_roots_runs_in_the_sandbox_with_a_grant() -> None:
    turn, fs = make_turn()
    result = turn.run(patch("*** Add File: ../outside.txt\n+out"), Decision.APPROVE)
    assert result.status == CallStatus.COMPLETED
    assert types(result).count("apply_patch_approval_request") == 1
    assert result.attempts == 1
    assert result.delta == AppliedPatchDelta((AppliedAdd("/outside.txt", "out\n"),))
    assert types(result)[-1] == "turn_diff"
    assert fs.read_bytes("/outside.txt") == b"out\n"


@pytest.mark.parametrize("retry", ["approve", "decline"])
def test_sandbox_denial_and_retry(retry: str) -> None:
    # Auto-approved (inside the root), but the sandbox denies keep.txt (eperm: a simulated
    # denial, as for a symlink leading out): the user is asked whether to retry unsandboxed.
    turn, fs = make_turn({"keep.txt": "k\n"}, faults=("eperm:keep.txt",))
    answers = iter([retry])
    result = turn.run(
        patch("*** Add File: inside.txt\n+in\n*** Update File: keep.txt\n@@\n-k\n+K"),
        lambda request: next(answers),
    )
    kinds = types(result)
    requests = [e.event for e in result.events if isinstance(e.event, ApplyPatchApprovalRequest)]
    assert [r.retry for r in requests] == [True]
    if retry == "approve":
        assert result.status == CallStatus.COMPLETED
        assert result.attempts == 2
        assert files(fs) == {"inside.txt": b"in\n", "keep.txt": b"K\n"}
        # both attempts are in the delta: the first wrote inside.txt before the denial
        assert [c.path for c in result.delta.changes] == [
            f"{ROOT}/inside.txt",
            f"{ROOT}/inside.txt",
            f"{ROOT}/keep.txt",
        ]
    else:
        assert result.status == CallStatus.FAILED
        assert result.attempts == 1
        assert files(fs) == {"inside.txt": b"in\n", "keep.txt": b"k\n"}
        assert result.delta.changes == (AppliedAdd(f"{ROOT}/inside.txt", "in\n"),)
        assert result.stderr == f"Failed to write file {ROOT}/keep.txt\n"
    # A denied write counts as a failed write (docs/behaviour.md §5.4): the delta is inexact, so the
    # tracker is invalidated and no TurnDiff follows the end event.
    assert not result.delta.exact
    if retry == "approve":
        assert kinds[-1] == "patch_apply_end" and result.diagnosis is None
    else:
        assert kinds[-2:] == ["patch_apply_end", "patch_diagnosis"]
        assert result.diagnosis is not None and result.diagnosis.kind == "sandbox_denied"
    assert result.turn_diff is None


def test_an_approved_call_is_retried_without_asking_twice() -> None:
    turn, fs = make_turn(
        {"keep.txt": "k\n"}, approval_policy=ApprovalPolicy("untrusted"), faults=("eperm:keep.txt",)
    )
    result = turn.run(patch("*** Update File: keep.txt\n@@\n-k\n+K"), Decision.APPROVE)
    assert result.status == CallStatus.COMPLETED
    assert types(result).count("apply_patch_approval_request") == 1
    assert result.attempts == 2
    assert files(fs) == {"keep.txt": b"K\n"}


def test_session_approvals_can_outlive_a_turn() -> None:
    approvals: set[tuple[str, str]] = set()
    fs = MemoryFilesystem()
    fs.create_dirs(ROOT)
    options = PipelineOptions(sandbox=WORKSPACE, approval_policy=ApprovalPolicy("untrusted"))
    first = Turn(ROOT, options=options, filesystem=fs, session_approvals=approvals)
    assert first.run(patch("*** Add File: a.txt\n+1"), "approve-for-session").ok
    second = Turn(ROOT, options=options, filesystem=fs, session_approvals=approvals)
    result = second.run(patch("*** Add File: a.txt\n+2"), "decline")
    assert result.ok and "apply_patch_approval_request" not in types(result)


def test_never_policy_does_not_retry_a_denial() -> None:
    turn, fs = make_turn(
        {"a.txt": "a\n"}, approval_policy=ApprovalPolicy("never"), faults=("eperm:a.txt",)
    )
    result = turn.run(patch("*** Update File: a.txt\n@@\n-a\n+b"))
    assert result.status == CallStatus.FAILED
    assert "apply_patch_approval_request" not in types(result)
    assert files(fs) == {"a.txt": b"a\n"}


def test_runtime_failure_after_a_prefix_keeps_the_prefix() -> None:
    turn, fs = make_turn({"a.txt": "a\n", "b.txt": "b\n"}, faults=("write:2",))
    result = turn.run(
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    assert result.status == CallStatus.FAILED
    assert result.stderr == f"Failed to write file {ROOT}/b.txt\n"
    assert result.output.startswith("Exit code: 1\n")
    assert result.delta == AppliedPatchDelta(
        (AppliedUpdate(f"{ROOT}/a.txt", None, "a\n", None, "A\n"),), False
    )
    assert files(fs) == {"a.txt": b"A\n", "b.txt": b"b\n"}
    # an inexact delta invalidates the tracker: no TurnDiff (none had been shown)
    assert result.turn_diff is None
    assert types(result)[-2:] == ["patch_apply_end", "patch_diagnosis"]
    # what failed and where, beside the reference's text: the second hunk, b.txt
    assert result.diagnosis is not None
    assert (result.diagnosis.kind, result.diagnosis.path) == ("io_error", "b.txt")


@pytest.mark.parametrize(
    ("body", "decision", "faults", "status", "stage"),
    [
        pytest.param(
            "*** Add File: a.txt\n+x", "approve", (), CallStatus.COMPLETED, "done", id="completed"
        ),
        pytest.param(
            "*** Frob File: a.txt", "approve", (), CallStatus.ERROR, "parsing", id="parse-error"
        ),
        pytest.param(
            "*** Update File: a.txt\n@@\n-missing\n+y",
            "approve",
            (),
            CallStatus.ERROR,
            "verifying",
            id="verify-error",
        ),
        pytest.param(
            "*** Add File: ../o.txt\n+x",
            "decline",
            (),
            CallStatus.DECLINED,
            "waiting for approval",
            id="declined",
        ),
        pytest.param(
            "*** Update File: a.txt\n@@\n-x\n+y",
            "approve",
            ("write:1",),
            CallStatus.FAILED,
            "applying",
            id="apply-failed",
        ),
    ],
)
def test_the_stage_says_where_a_call_stopped(
    body: str, decision: str, faults: tuple[str, ...], status: str, stage: str
) -> None:
    turn, _ = make_turn({"a.txt": "x\n"}, faults=faults)
    result = turn.run(patch(body), decision)
    assert (result.status, result.stage) == (status, stage)


def test_write_n_counts_a_write_retried_in_a_new_directory_once() -> None:
    turn, fs = make_turn(faults=("write:2",))
    result = turn.run(patch("*** Add File: new/a.txt\n+a\n*** Add File: new/b.txt\n+b"), "approve")
    assert result.status == CallStatus.FAILED
    assert result.stderr == f"Failed to write file {ROOT}/new/b.txt\n"
    assert files(fs) == {"new": None, "new/a.txt": b"a\n"}


def test_atomic_transaction_rolls_back() -> None:
    turn, fs = make_turn(
        {"a.txt": "a\n", "b.txt": "b\n"}, faults=("write:3",), transaction=Transaction.ATOMIC
    )
    result = turn.run(
        patch(
            "*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new/dir/n.txt\n+n\n"
            "*** Update File: b.txt\n@@\n-b\n+B"
        ),
        "approve",
    )
    assert result.status == CallStatus.FAILED
    assert result.delta == AppliedPatchDelta()
    assert files(fs) == {"a.txt": b"a\n", "b.txt": b"b\n"}


def test_content_drift_is_recomputed_and_reported_truthfully() -> None:
    turn, fs = make_turn({"a.txt": "one\ntwo\n"}, faults=("drift:a.txt",))
    result = turn.run(patch("*** Update File: a.txt\n@@\n-one\n+uno"), "approve")
    assert result.status == CallStatus.COMPLETED
    drifted = "one\ntwo\ndrifted: this line was added between verify and apply\n"
    assert result.delta.changes == (
        AppliedUpdate(f"{ROOT}/a.txt", None, drifted, None, drifted.replace("one", "uno")),
    )
    assert fs.read_bytes(f"{ROOT}/a.txt").decode() == drifted.replace("one", "uno")
    assert result.turn_diff is not None and "+drifted" not in result.turn_diff


def test_cancellation_leaves_a_begin_without_an_end() -> None:
    turn, fs = make_turn(faults=("cancel:2",))
    result = turn.run(patch("*** Add File: a.txt\n+a\n*** Add File: b.txt\n+b"), "approve")
    assert result.status == CallStatus.CANCELLED
    kinds = types(result)
    assert "patch_apply_begin" in kinds and "patch_apply_end" not in kinds
    assert result.delta == AppliedPatchDelta((AppliedAdd(f"{ROOT}/a.txt", "a\n"),))
    assert files(fs) == {"a.txt": b"a\n"}
    assert result.turn_diff is not None and "b/a.txt" in result.turn_diff


def test_cancel_token_before_the_run() -> None:
    turn, fs = make_turn()
    token = CancellationToken()
    token.cancel()
    result = turn.run(patch("*** Add File: a.txt\n+a"), "approve", cancel=token)
    assert result.status == CallStatus.CANCELLED
    assert files(fs) == {}


def test_fold_mode_reproduces_the_duplicate_path_gap() -> None:
    gap = patch(
        "*** Update File: a.txt\n*** Move to: ../outside/evil.txt\n@@\n-x\n+y\n"
        "*** Add File: a.txt\n+z"
    )
    turn, fs = make_turn(
        {"a.txt": "x\n"},
        duplicates="fold",
        sandbox=SandboxPolicy(PermissionProfile.DANGER_FULL_ACCESS),
    )
    result = turn.run(gap, "decline")
    # the safety check saw only {a.txt: Add}: auto-approved, the destination never shown
    assert result.status == CallStatus.COMPLETED
    assert "apply_patch_approval_request" not in types(result)
    begin = next(e.event for e in result.events if isinstance(e.event, PatchApplyBegin))
    assert list(begin.changes) == [f"{ROOT}/a.txt"]
    assert fs.read_bytes("/outside/evil.txt") == b"y\n"

    turn2, fs2 = make_turn({"a.txt": "x\n"})
    rejected = turn2.run(gap, "approve")
    assert rejected.status == CallStatus.ERROR
    assert rejected.output == (
        f"apply_patch verification failed: invalid patch: multiple operations target {ROOT}/a.txt"
    )
    assert "/outside/evil.txt" not in fs2.tree()


def test_approve_for_session_skips_later_requests_for_the_same_paths() -> None:
    turn, fs = make_turn(
        sandbox=SandboxPolicy(
            PermissionProfile.WORKSPACE_WRITE,
            writable_roots=("/other",),
            include_tmp=False,
            include_tmpdir_env=False,
        ),
        approval_policy=ApprovalPolicy("untrusted"),
    )
    first = turn.run(patch("*** Add File: a.txt\n+1"), "approve-for-session")
    second = turn.run(patch("*** Add File: a.txt\n+2"), "decline")
    assert first.status == second.status == CallStatus.COMPLETED
    assert "apply_patch_approval_request" not in types(second)
    assert files(fs) == {"a.txt": b"2\n"}


def test_hooks_block_rewrite_and_replace_output() -> None:
    turn, fs = make_turn()
    turn.pre_tool_use = lambda text: (
        HookBlock("no adds today") if "blocked" in text else text.replace("+1", "+one")
    )
    turn.post_tool_use = lambda result: f"post: {result.status}"
    blocked = turn.run(patch("*** Add File: blocked.txt\n+1"), "approve")
    assert (blocked.status, blocked.output) == (CallStatus.REJECTED, "post: rejected")
    rewritten = turn.run(patch("*** Add File: a.txt\n+1"), "approve")
    assert rewritten.output == "post: completed"
    assert files(fs) == {"a.txt": b"one\n"}


def test_environment_selection() -> None:
    fs = MemoryFilesystem()
    fs.create_dirs("/l")
    fs.create_dirs("/r")
    single = Turn("/l", filesystem=fs, options=PipelineOptions(sandbox=WORKSPACE))
    text = "*** Begin Patch\n*** Environment ID: remote\n*** Add File: a.txt\n+x\n*** End Patch"
    assert single.run(text, "approve").output == (
        "apply_patch environment selection is unavailable for this turn"
    )
    multi = Turn(
        environments={"local": "/l", "remote": "/r"},
        filesystem=fs,
        options=PipelineOptions(sandbox=WORKSPACE),
    )
    assert multi.run(text, "approve").status == CallStatus.COMPLETED
    assert fs.read_bytes("/r/a.txt") == b"x\n"
    unknown = multi.run(text.replace("remote", "mars"), "approve")
    assert unknown.output == "unknown turn environment id `mars`"


def test_shell_form_invocation_with_cd() -> None:
    turn, fs = make_turn()
    fs.create_dirs(f"{ROOT}/sub")
    body = "cd sub && apply_patch <<'EOF'\n" + patch("*** Add File: a.txt\n+x") + "\nEOF\n"
    result = turn.run(body, "approve")
    assert result.status == CallStatus.COMPLETED, result.output
    assert fs.read_bytes(f"{ROOT}/sub/a.txt") == b"x\n"


def test_net_zero_patch_emits_an_empty_turn_diff() -> None:
    turn, _ = make_turn({"a.txt": "a\n"})
    first = turn.run(patch("*** Update File: a.txt\n@@\n-a\n+b"), "approve")
    assert types(first)[-1] == "turn_diff"
    back = turn.run(patch("*** Update File: a.txt\n@@\n-b\n+a"), "approve")
    assert back.events[-1].event.to_json() == {"type": "turn_diff", "unified_diff": ""}
    assert back.turn_diff is None


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.0, "0"), (0.04, "0"), (0.12, "0.1"), (2.0, "2"), (1.96, "2")]
)
def test_wall_time_is_formatted_like_rust(seconds: float, text: str) -> None:
    assert format_wall_time(seconds) == text


def test_options_from_strings() -> None:
    options = PipelineOptions.from_strings(
        "/w",
        approval_policy="granular:no-sandbox-approval",
        sandbox="read-only",
        writable_roots=["extra", "/abs"],
        exclude_tmp=True,
        line_endings="lf",
        duplicates="fold",
        transaction="atomic",
        throttle_ms=0,
        faults=["write:1"],
    )
    assert options.approval_policy == ApprovalPolicy("granular", sandbox_approval=False)
    assert options.sandbox.profile is PermissionProfile.READ_ONLY
    assert options.sandbox.writable_roots == ("/w/extra", "/abs")
    assert not options.sandbox.include_tmp and not options.sandbox.include_tmpdir_env
    assert (options.line_endings, options.duplicates, options.transaction) == (
        "lf",
        "fold",
        "atomic",
    )
    assert options.throttle == 0 and options.faults == ("write:1",)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("sandbox", "open", "--sandbox must be one of danger-full-access, external, "),
        ("line_endings", "crlf", "--line-endings must be one of preserve, lf, got 'crlf'"),
        ("approval_policy", "sometimes", "--approval-policy: unknown approval policy"),
        ("faults", ["boom:1"], "--fault: unknown fault kind 'boom'"),
        ("throttle_ms", -1, "--throttle-ms must be 0 or more"),
    ],
)
def test_options_from_strings_errors(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        PipelineOptions.from_strings("/w", **{field: value})  # type: ignore[arg-type]
    assert str(info.value).startswith(message)


def test_the_wall_time_is_the_runs_not_the_wait_for_an_answer(tmp_path: Path) -> None:
    """Codex's exec starts once the call is approved: a person's minutes of review are not in
    the model's ``Wall time`` (issue 26: an agent's call waits at the desk)."""
    now = [100.0]
    (tmp_path / "a.txt").write_text("one\n")
    turn = Turn(str(tmp_path), options=PipelineOptions(review=True), clock=lambda: now[0])
    call = turn.call()
    call.push_delta("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch")
    assert call.run(None).status == "awaiting-approval"
    now[0] += 42.0  # the person reads the diff
    result = call.resume("approve")
    assert result.output.startswith("Exit code: 0\nWall time: 0 seconds\n")
