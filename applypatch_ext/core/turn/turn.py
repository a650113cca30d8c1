"""One apply_patch tool call, from patch text to TurnDiff: the handler and orchestrator
(docs/behaviour.md §6).

A :class:`Turn` holds what lives for one user turn: its environments (named working
directories), the :class:`~.turn_diff.TurnDiffTracker`, the :class:`~.events.EventRecorder` and
the paths approved for the session. :meth:`Turn.call` starts an :class:`ApplyPatchCall`, which

1. streams its input into the preview consumer (``PatchApplyUpdated`` events), then
2. parses (a shell-form ``apply_patch <<'EOF'`` invocation is recognised; its ``cd DIR`` only
   moves where the patch's relative paths resolve, never the sandbox's roots), selects the
   environment, verifies (read only), assesses safety (``Reject``: no begin/end events),
3. emits the FileChange begin event, asks for approval when needed, runs the attempt(s) - the
   first one sandboxed when the profile asks for it; a sandbox denial may be retried
   unsandboxed after a second approval, replaying the whole canonical patch -
4. emits the FileChange end event, feeds the committed delta to the tracker and emits a
   ``TurnDiff`` snapshot when the aggregate changed.

Approval is a generator step: with an approver (a callable or a fixed answer) the call runs to
the end; without one it stops in ``awaiting-approval`` and :meth:`ApplyPatchCall.resume` goes on
(a kernel cannot read a button's message while a cell runs).

Cancellation is a token checked before every filesystem change: a cancelled call keeps what it
wrote (reported in its delta and tracked), and leaves a begin without an end, like the
reference when a turn is aborted. Hooks: a pre-tool-use hook may block or rewrite the patch; a
post-tool-use hook may replace the output but never undoes writes.
"""

from __future__ import annotations

import errno
import itertools
import os
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, TypeAlias

from ..apply.changes import AppliedPatchDelta, ApplyPatchAction
from ..apply.explain import explain_error
from ..apply.fs import Filesystem, LocalFilesystem, resolve_path
from ..apply.journal import DiskJournal, JournalBusy, JournalError, pending
from ..apply.runtime import AffectedPaths, ApplyOutcome, apply_hunks
from ..apply.transaction import JournalingFilesystem, RollbackError, Transaction, recover
from ..apply.verify import verify_patch
from ..errors import ApplyPatchError, CancelledError, IoError, ParseError
from ..interrupts import CancellationToken, cancellation
from ..parse.invocation import (
    ApplyPatchInvocation,
    ImplicitInvocation,
    InvocationParseError,
    parse_command_line,
)
from ..parse.model import ParsedPatch
from ..parse.parser import parse_patch
from .events import (
    ApplyPatchApprovalDecision,
    ApplyPatchApprovalRequest,
    Clock,
    EventRecorder,
    PatchApplyBegin,
    PatchApplyEnd,
    PatchApplyStatus,
    PatchApplyUpdated,
    PatchSafetyAssessed,
    RecordedEvent,
    TransactionRecovered,
    TurnDiff,
    changes_to_json,
)
from .faults import Fault, FaultyFilesystem, parse_fault
from .options import Approver, CallStatus, Decision, PipelineOptions, Stage, as_approver
from .preview import ApplyPatchArgumentDiffConsumer
from .result import CallResult, _failure_detail, _is_sandbox_denial, model_output
from .safety import AskUser, AutoApprove, Reject, SafetyCheck, assess_patch_safety, hunk_write_paths
from .sandbox import (
    GrantedFilesystem,
    NoFollowFilesystem,
    SandboxedFilesystem,
)
from .turn_diff import TurnDiffTracker

VERIFICATION_FAILED: Final = "apply_patch verification failed: "
PATCH_REJECTED: Final = "patch rejected: "
REJECTED_BY_USER: Final = "patch rejected by user"
ENVIRONMENT_UNAVAILABLE: Final = "apply_patch environment selection is unavailable for this turn"
RETRY_REASON: Final = "the sandbox denied a write; retry without the sandbox?"
PRE_HOOK_FAILED: Final = "pre-tool-use hook failed, nothing was written: "
POST_HOOK_FAILED: Final = "post-tool-use hook failed after the call ran: "


@dataclass(frozen=True)
class HookBlock:
    """Returned by a pre-tool-use hook to block the call; ``reason`` goes to the model."""

    reason: str


PreToolUseHook: TypeAlias = Callable[[str], "HookBlock | str | None"]
PostToolUseHook: TypeAlias = Callable[["CallResult"], "str | None"]


@dataclass(frozen=True)
class _Prepared:
    parsed: ParsedPatch
    environment: str
    cwd: str  # where the patch's relative paths resolve (the shell form's `cd` directory)
    root: str  # the environment's working directory: the sandbox's and the approvals' root
    action: ApplyPatchAction
    safety: AutoApprove | AskUser


class Turn:
    """One user turn: environments, TurnDiff tracker, event recorder, session approvals."""

    def __init__(
        self,
        cwd: str | None = None,
        *,
        environments: Mapping[str, str] | None = None,
        options: PipelineOptions | None = None,
        filesystem: Filesystem | None = None,
        clock: Clock = time.monotonic,
        turn_id: str = "turn-1",
        pre_tool_use: PreToolUseHook | None = None,
        post_tool_use: PostToolUseHook | None = None,
        session_approvals: set[tuple[str, str]] | None = None,
    ) -> None:
        if environments:
            self.environments = dict(environments)
        elif cwd is not None:
            self.environments = {"": cwd}
        else:
            raise ValueError("a turn needs a cwd or at least one environment")
        self.primary = next(iter(self.environments))
        self.options = options or PipelineOptions()
        self.fs = filesystem if filesystem is not None else LocalFilesystem()
        self.clock = clock
        self.turn_id = turn_id
        self.recorder = EventRecorder(clock)
        self.tracker = TurnDiffTracker(self.environments, filesystem=self.fs)
        # (environment, path) pairs approved "for session"; pass the same set to every turn of
        # a session so that they outlive the turn, as in Codex.
        self.session_approvals = session_approvals if session_approvals is not None else set()
        self.pre_tool_use = pre_tool_use
        self.post_tool_use = post_tool_use
        self.calls: list[ApplyPatchCall] = []
        self._ids = itertools.count(1)

    @property
    def cwd(self) -> str:
        return self.environments[self.primary]

    @property
    def multi_environment(self) -> bool:
        return len(self.environments) > 1

    def call(
        self,
        *,
        call_id: str | None = None,
        options: PipelineOptions | None = None,
        cancel: CancellationToken | None = None,
    ) -> ApplyPatchCall:
        """Start a call whose input will be streamed with ``push_delta``."""
        call = ApplyPatchCall(
            self,
            call_id or f"call-{next(self._ids)}",
            options or self.options,
            cancel or CancellationToken(),
        )
        self.calls.append(call)
        return call

    def run(
        self,
        patch: str | Iterable[str],
        approver: Approver | Decision | str | None = None,
        **call_options: Any,
    ) -> CallResult:
        """Feed a whole patch (or an iterable of deltas) as one call and run it."""
        call = self.call(**call_options)
        deltas = [patch] if isinstance(patch, str) else patch
        for delta in deltas:
            call.push_delta(delta)
        return call.run(approver)

    def turn_diff(self) -> str:
        return self.tracker.get_unified_diff() or ""


class ApplyPatchCall:
    """One tool call; see the module docstring for the stages."""

    def __init__(
        self,
        turn: Turn,
        call_id: str,
        options: PipelineOptions,
        cancel: CancellationToken,
    ) -> None:
        self.turn = turn
        self.call_id = call_id
        self.options = options
        self.cancel = cancel
        self.stage = Stage.STREAMING
        self._text: list[str] = []
        self._first_event = len(turn.recorder.events)
        self._preview = ApplyPatchArgumentDiffConsumer(
            call_id,
            enabled=options.streaming_events,
            throttle=options.throttle,
            clock=turn.clock,
        )
        self._input_done = False
        self._steps: Generator[ApplyPatchApprovalRequest, Decision, CallResult] | None = None
        self._started_at: float | None = None
        self.result: CallResult | None = None
        # Filled in while running, read by _result().
        self._parsed: ParsedPatch | None = None
        self._action: ApplyPatchAction | None = None
        self._safety: SafetyCheck | None = None
        self._delta = AppliedPatchDelta()
        self._attempts = 0
        self._cwd = turn.cwd
        self._workdir: str | None = None
        self._faulty: FaultyFilesystem | None = None
        self._dry_run = False  # set by dry_run(): the call's filesystem view is read only

    # -- input --------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        return "".join(self._text)

    def push_delta(self, delta: str) -> PatchApplyUpdated | None:
        """Stream a piece of the patch text; returns the preview event if one was sent."""
        if self._input_done:
            raise RuntimeError("the call's input is already complete")
        self._text.append(delta)
        event = self._preview.push_delta(delta)
        if event is not None:
            self._emit(event)
        return event

    def finish_input(self) -> PatchApplyUpdated | None:
        """The input is complete: flush the pending preview event."""
        if self._input_done:
            return None
        self._input_done = True
        event = self._preview.finish()
        if event is not None:
            self._emit(event)
        return event

    # -- running --------------------------------------------------------------------------------

    def run(self, approver: Approver | Decision | str | None = None) -> CallResult:
        """Run the pipeline; without an approver an approval request stops the call."""
        self.finish_input()
        if self._steps is None:
            self._started_at = self.turn.clock()
            self._steps = self._pipeline()
            return self._drive(None, as_approver(approver))
        if self.result is not None and self.result.status != CallStatus.AWAITING_APPROVAL:
            return self.result
        raise RuntimeError("the call is waiting for approval: use resume(decision)")

    def resume(
        self, decision: Decision | str, approver: Approver | Decision | str | None = None
    ) -> CallResult:
        """Answer the pending approval request and go on."""
        if self.result is None or self.result.status != CallStatus.AWAITING_APPROVAL:
            raise RuntimeError(f"call {self.call_id} is not waiting for approval")
        return self._drive(Decision(decision), as_approver(approver))

    def _drive(self, answer: Decision | None, approver: Approver | None) -> CallResult:
        assert self._steps is not None
        try:
            # The token is the current one for the checkpoints of parsing, verification and the
            # explanation (an interrupt there ends the call before anything is written).
            with cancellation(self.cancel):
                request = self._steps.send(answer) if answer is not None else next(self._steps)
                while True:
                    if approver is None:
                        self.stage = Stage.WAITING_FOR_APPROVAL
                        self.result = self._result(
                            CallStatus.AWAITING_APPROVAL, "", pending_request=request
                        )
                        return self.result
                    request = self._steps.send(Decision(approver(request)))
        except CancelledError:
            # Cancelled before the begin event (parsing, verifying): nothing was written.
            reason = f"apply_patch was cancelled while {self.stage}: nothing was written"
            self.result = self._finish(self._result(CallStatus.CANCELLED, reason, error=reason))
            return self.result
        except StopIteration as stop:
            result: CallResult = stop.value
            self.result = result
            return result
        except BaseException as exc:
            # A KeyboardInterrupt outside the cancellation token (or a bug) killed the steps:
            # the call can never resume. Record how it ended; an exception while applying
            # loses the attempt's record, so the delta is then only a lower bound.
            if self.stage == Stage.APPLYING:
                self._delta = replace(self._delta, exact=False)
            if isinstance(exc, KeyboardInterrupt):
                status, reason = CallStatus.CANCELLED, f"interrupted while {self.stage}"
            else:
                status, reason = (
                    CallStatus.FAILED,
                    f"{type(exc).__name__} while {self.stage}: {exc}",
                )
            self.result = self._result(status, reason, error=reason)
            raise

    def _emit(self, event: Any) -> None:
        self.turn.recorder.emit(event)

    def _events(self) -> tuple[RecordedEvent, ...]:
        return tuple(self.turn.recorder.events[self._first_event :])

    def _result(self, status: CallStatus, output: str, **fields: Any) -> CallResult:
        return CallResult(
            call_id=self.call_id,
            status=status,
            stage=self.stage,
            output=output,
            events=self._events(),
            parsed=self._parsed,
            proposed=self._action,
            safety=self._safety,
            delta=self._delta,
            turn_diff=self.turn.tracker.get_unified_diff(),
            attempts=self._attempts,
            cwd=self._cwd,
            workdir=self._workdir,
            **fields,
        )

    def _finish(self, result: CallResult) -> CallResult:
        hook = self.turn.post_tool_use
        if hook is not None:
            # A hook that raises (or returns something that is not a text) cannot lose the
            # result: the call fails with the hook's error, its delta still says what was written.
            try:
                replacement = hook(result)
            except Exception as exc:  # any hook error becomes the call's error
                return self._hook_failed(result, POST_HOOK_FAILED + _exception_text(exc))
            if replacement is not None and not isinstance(replacement, str):
                message = (
                    f"{POST_HOOK_FAILED}it returned {type(replacement).__name__}; expected a str "
                    "(the output to give the model instead) or None (keep the output)"
                )
                return self._hook_failed(result, message)
            if replacement is not None:
                result = replace(result, output=replacement)
        if result.status != CallStatus.COMPLETED:
            return result  # its stage says where the call stopped
        self.stage = Stage.DONE
        return replace(result, stage=Stage.DONE)

    def _hook_failed(self, result: CallResult, message: str) -> CallResult:
        """The call as failed by a hook; what it had committed stays in ``result.delta``."""
        if result.status not in (CallStatus.COMPLETED, CallStatus.FAILED) and result.error:
            message = f"{message} (the call had ended {result.status}: {result.error})"
        return replace(result, status=CallStatus.FAILED, output=message, error=message)

    # -- the pipeline ---------------------------------------------------------------------------

    def abandon(self, reason: str) -> CallResult:
        """Cancel a call whose input never completed: nothing runs, nothing is written."""
        if self._steps is not None:
            raise RuntimeError("the call has already run")
        self._input_done = True
        self.result = self._result(CallStatus.CANCELLED, reason, error=reason)
        return self.result

    def dry_run(self) -> CallResult:
        """Parse, verify and assess safety; write nothing (status ``dry-run`` or an error)."""
        self.finish_input()
        if self._steps is not None:
            raise RuntimeError("the call has already run")
        self._dry_run = True
        prepared = self._prepare()
        if isinstance(prepared, CallResult):
            self.result = prepared
            return prepared
        self.stage = Stage.DONE
        self.result = self._result(CallStatus.DRY_RUN, "dry run: nothing was written")
        return self.result

    def _prepare(self) -> _Prepared | CallResult:
        """Steps 1-4: hooks, parse, environment, verify, safety (no begin event yet)."""
        turn = self.turn
        options = self.options
        text = self.text

        hook = turn.pre_tool_use
        if hook is not None:
            try:
                verdict = hook(text)
            except Exception as exc:  # any hook error becomes the call's error
                message = PRE_HOOK_FAILED + _exception_text(exc)
                return self._finish(self._result(CallStatus.FAILED, message, error=message))
            if verdict is not None and not isinstance(verdict, HookBlock | str):
                message = (
                    f"{PRE_HOOK_FAILED}it returned {type(verdict).__name__}; expected a HookBlock "
                    "(block the call), a str (the patch to run instead) or None (run it as is)"
                )
                return self._finish(self._result(CallStatus.FAILED, message, error=message))
            if isinstance(verdict, HookBlock):
                message = f"blocked by hook: {verdict.reason}"
                return self._finish(
                    self._result(CallStatus.REJECTED, message, error=verdict.reason)
                )
            if isinstance(verdict, str):
                text = verdict

        # 1. parse (a shell-form invocation first, then the freeform patch)
        self.stage = Stage.PARSING
        workdir: str | None = None
        try:
            invocation = parse_command_line(text)
            if isinstance(invocation, ApplyPatchInvocation):
                parsed, workdir = invocation.parsed, invocation.workdir
            elif isinstance(invocation, InvocationParseError):
                raise invocation.error
            elif isinstance(invocation, ImplicitInvocation):
                message = invocation.message
                return self._finish(self._result(CallStatus.ERROR, message, error=message))
            else:
                parsed = parse_patch(text)
        except ParseError as exc:
            message = VERIFICATION_FAILED + str(exc)
            return self._finish(self._result(CallStatus.ERROR, message, error=str(exc)))
        self._parsed = parsed

        # 2. environment
        env_id = parsed.environment_id
        if env_id is not None and not turn.multi_environment:
            return self._finish(
                self._result(
                    CallStatus.ERROR, ENVIRONMENT_UNAVAILABLE, error=ENVIRONMENT_UNAVAILABLE
                )
            )
        if env_id is not None and env_id not in turn.environments:
            message = f"unknown turn environment id `{env_id}`"
            return self._finish(self._result(CallStatus.ERROR, message, error=message))
        # The shell form's `cd DIR` only moves where the patch's relative paths resolve. The
        # writable roots, the carve-outs and the cwd shown to the user stay the environment's
        # (Codex assesses and sandboxes with the turn's cwd, not the action's): a patch must
        # not choose its own sandbox (`cd .. &&`, `cd .git &&`).
        environment = env_id if env_id is not None else turn.primary
        root = cwd = turn.environments[environment]
        self._cwd = root
        if workdir is not None:
            try:
                cwd = resolve_path(root, workdir)
            except ApplyPatchError as exc:
                message = VERIFICATION_FAILED + str(exc)
                return self._finish(self._result(CallStatus.ERROR, message, error=str(exc)))
            self._workdir = cwd
        self._faulty = FaultyFilesystem(
            turn.fs,
            self._faults(root),
            cancel=self.cancel,
            external=turn.fs,
            read_only=self._dry_run,
        )

        # 3. verify (read only)
        self.stage = Stage.VERIFYING
        try:
            action = verify_patch(
                parsed,
                cwd,
                self._faulty,
                line_endings=options.line_endings,
                duplicates=options.duplicates,
            )
        except CancelledError:
            raise
        except ApplyPatchError as exc:
            message = VERIFICATION_FAILED + str(exc)
            explanation = explain_error(exc, self._faulty, options.line_endings)
            return self._finish(
                self._result(CallStatus.ERROR, message, error=str(exc), explanation=explanation)
            )
        self._action = action

        # 4. safety
        self.stage = Stage.SAFETY
        safety = assess_patch_safety(action, options.approval_policy, options.sandbox, root)
        self._safety = safety
        self._emit(
            PatchSafetyAssessed(
                self.call_id,
                safety.decision,
                safety.reason if isinstance(safety, Reject) else None,
                isinstance(safety, AutoApprove) and safety.sandboxed,
            )
        )
        if isinstance(safety, Reject):
            message = PATCH_REJECTED + safety.reason
            return self._finish(self._result(CallStatus.REJECTED, message, error=safety.reason))
        return _Prepared(parsed, environment, cwd, root, action, safety)

    def _recover(self) -> CallResult | None:
        """Before anything else: an atomic call killed in the middle (its journal is still on
        disk) in one of the turn's working directories is rolled back, and said so in a
        ``transaction_recovered`` event. A journal that cannot be fully restored stops the call
        (an error result); one still held by a running call is left alone."""
        if not isinstance(self.turn.fs, LocalFilesystem):
            return None  # journals are written for the real disk only
        for directory in dict.fromkeys(self.turn.environments.values()):
            if pending(directory) is None:
                continue
            try:
                recovery = recover(directory, self.turn.fs)
            except JournalBusy:
                continue
            except JournalError as exc:
                message = f"cannot recover {directory}: {exc.strerror}"
                return self._finish(self._result(CallStatus.ERROR, message, error=message))
            if recovery is None:
                continue
            self._emit(
                TransactionRecovered(
                    self.call_id,
                    recovery.cwd,
                    recovery.journal,
                    recovery.call_id,
                    recovery.restored,
                    recovery.removed,
                    tuple(f"{path}: {why}" for path, why in recovery.failures),
                )
            )
            if not recovery.ok:
                message = recovery.report().rstrip("\n")
                return self._finish(self._result(CallStatus.ERROR, message, error=message))
        return None

    def _pipeline(self) -> Generator[ApplyPatchApprovalRequest, Decision, CallResult]:
        recovered = self._recover()
        if recovered is not None:
            return recovered
        prepared = self._prepare()
        if isinstance(prepared, CallResult):
            return prepared
        turn, options = self.turn, self.options
        parsed, environment, cwd, root, action, safety = (
            prepared.parsed,
            prepared.environment,
            prepared.cwd,
            prepared.root,
            prepared.action,
            prepared.safety,
        )

        # 5. begin
        changes = changes_to_json(action.changes)
        self._emit(
            PatchApplyBegin(self.call_id, turn.turn_id, isinstance(safety, AutoApprove), changes)
        )

        # 6. approval. Every request lists, and every grant covers, the paths the attempts can
        # write, read from the hunks that will run (the runtime re-parses the canonical text):
        # a folded map (--duplicates fold) may hide a move destination (docs/behaviour.md §7.4).
        # Computed only when someone is asked or a grant is given (an auto-approved call needs
        # none).
        paths: list[str] = []
        keys: list[tuple[str, str]] = []
        if isinstance(safety, AskUser):
            paths = hunk_write_paths(parse_patch(parsed.patch).hunks, cwd)
            keys = [(environment, p) for p in paths]
        approved = isinstance(safety, AskUser) and all(k in turn.session_approvals for k in keys)
        if isinstance(safety, AskUser) and not approved:
            self.stage = Stage.WAITING_FOR_APPROVAL
            decision = yield self._request(environment, root, paths, action, changes, retry=False)
            self._emit(ApplyPatchApprovalDecision(self.call_id, decision.value))
            if decision is Decision.APPROVE_FOR_SESSION:
                turn.session_approvals.update(keys)
            if not decision.approved:
                return self._end(
                    CallStatus.DECLINED,
                    "",
                    REJECTED_BY_USER,
                    REJECTED_BY_USER,
                    changes,
                    environment,
                    error=REJECTED_BY_USER,
                )
            approved = True

        # 7. attempts. An approval grants the approved paths to the sandboxed attempt (Codex
        # requests them as extra permissions), so a patch approved for writing outside the
        # writable roots is not denied there.
        self.stage = Stage.APPLYING
        sandboxed = not options.sandbox.has_full_disk_write()
        grants = paths if approved else []
        outcome = self._attempt(parsed, cwd, root, sandboxed=sandboxed, approved=grants)
        if (
            outcome.error is not None
            and sandboxed
            and _is_sandbox_denial(outcome.error)
            and options.approval_policy.may_ask_for_retry
        ):
            # Denied anyway (a symlink leading out, a simulated denial): retry unsandboxed,
            # asking first unless the user already approved this call (Codex does not ask twice).
            retry = True
            paths = paths or hunk_write_paths(parse_patch(parsed.patch).hunks, cwd)
            if not approved:
                self.stage = Stage.WAITING_FOR_APPROVAL
                decision = yield self._request(
                    environment, root, paths, action, changes, retry=True
                )
                self._emit(ApplyPatchApprovalDecision(self.call_id, decision.value, retry=True))
                retry = decision.approved
            if retry:
                # Unsandboxed, but confined to the paths the request listed.
                self.stage = Stage.APPLYING
                outcome = self._attempt(parsed, cwd, root, sandboxed=False, approved=paths)

        if isinstance(outcome.error, CancelledError):
            # Like an aborted turn: no end event; what was written is tracked honestly.
            self._track(environment)
            return self._finish(
                self._result(CallStatus.CANCELLED, str(outcome.error), error=str(outcome.error))
            )
        if outcome.error is not None:
            stderr = f"{outcome.error}\n"
            return self._end(
                CallStatus.FAILED,
                "",
                stderr,
                None,
                changes,
                environment,
                exit_code=1,
                error=_failure_detail(outcome.error),
            )
        return self._end(
            CallStatus.COMPLETED,
            outcome.affected.summary(),
            "",
            None,
            changes,
            environment,
            exit_code=0,
        )

    def _faults(self, cwd: str) -> list[Fault]:
        return [parse_fault(spec, cwd) for spec in self.options.faults]

    def _request(
        self,
        environment: str,
        cwd: str,
        files: Sequence[str],
        action: ApplyPatchAction,
        changes: dict[str, dict[str, Any]],
        *,
        retry: bool,
    ) -> ApplyPatchApprovalRequest:
        request = ApplyPatchApprovalRequest(
            call_id=self.call_id,
            turn_id=self.turn.turn_id,
            environment_id=environment if self.turn.multi_environment else None,
            cwd=cwd,
            files=tuple(files),
            patch=action.patch,
            changes=changes,
            reason=RETRY_REASON if retry else None,
            retry=retry,
        )
        self._emit(request)
        return request

    def _attempt(
        self,
        parsed: ParsedPatch,
        cwd: str,
        root: str,
        *,
        sandboxed: bool,
        approved: Sequence[str] = (),
    ) -> ApplyOutcome:
        """Apply the whole canonical patch once; append its delta to the call's delta.

        Paths resolve against ``cwd``; the sandbox is rooted at ``root`` (the environment's
        working directory). ``approved`` are the paths the user granted: writable in the
        sandboxed attempt, and the only ones an unsandboxed retry may change.
        """
        assert self._faulty is not None
        self._attempts += 1
        base: Filesystem = self.turn.fs
        journal = None
        if self.options.transaction is Transaction.ATOMIC:
            journal = JournalingFilesystem(base, self._disk_journal(root))
            base = journal
        if sandboxed:
            base = SandboxedFilesystem(base, self.options.sandbox, root, approved=approved)
        elif not self.options.sandbox.has_full_disk_write():
            # An escalated retry of a sandboxed call runs in no-follow mode (docs/behaviour.md
            # §5.6), and changes nothing but the paths it was granted.
            base = NoFollowFilesystem(GrantedFilesystem(base, approved))
        self._faulty.begin_attempt(base, sandboxed=sandboxed)
        hunks = parse_patch(parsed.patch).hunks  # the runtime re-parses the canonical text
        try:
            if journal is not None:
                try:
                    journal.prepare(hunks, cwd)  # the write-ahead journal: before any change
                except JournalError as exc:  # nothing was changed
                    error = IoError(exc.strerror or str(exc))
                    return ApplyOutcome(AppliedPatchDelta(), AffectedPaths(), error)
            outcome = apply_hunks(hunks, cwd, self._faulty, self.options.line_endings)
        except BaseException:
            # A KeyboardInterrupt outside the cancellation token, or a filesystem raising what
            # it should not: all or nothing still holds.
            if journal is not None:
                journal.rollback()
            raise
        if journal is not None:
            if outcome.error is None:
                journal.commit()
            else:
                try:
                    journal.rollback()
                    outcome = replace(outcome, delta=AppliedPatchDelta())
                except RollbackError as exc:
                    outcome = replace(
                        outcome,
                        delta=replace(outcome.delta, exact=False),
                        error=IoError(f"{outcome.error}; {exc}", outcome.error),
                    )
        self._delta = self._delta.append(outcome.delta)
        return outcome

    def _disk_journal(self, root: str) -> DiskJournal | None:
        """The on-disk journal of an atomic attempt on the real disk, keyed by ``root`` (the
        environment's working directory, where the next call looks for it), with the
        ``journal:`` fault, if set, making its write fail as a full disk does."""
        if not isinstance(self.turn.fs, LocalFilesystem):
            return None
        assert self._faulty is not None
        faulty = self._faulty
        full = next((f for f in faulty.faults if f.kind == "journal"), None)

        def disk_full() -> None:
            assert full is not None
            faulty.fired.append(full.spec)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        return DiskJournal(root, self.call_id, fail_write=None if full is None else disk_full)

    def _track(self, environment: str) -> None:
        """Feed the accumulated delta to the tracker; emit a TurnDiff under the rules of 6.5."""
        tracker = self.turn.tracker
        delta = self._delta
        if delta.is_empty() and delta.exact:
            return
        before = tracker.get_unified_diff()
        changed = tracker.track_delta(delta, environment)
        after = tracker.get_unified_diff()
        if changed and (before is not None or after is not None):
            self._emit(TurnDiff(after or ""))

    def _end(
        self,
        status: CallStatus,
        stdout: str,
        stderr: str,
        output: str | None,
        changes: dict[str, dict[str, Any]],
        environment: str,
        *,
        exit_code: int | None = None,
        error: str | None = None,
    ) -> CallResult:
        end = PatchApplyStatus(status.value)  # the three statuses an end event can carry
        self._emit(PatchApplyEnd(self.call_id, self.turn.turn_id, stdout, stderr, changes, end))
        self._track(environment)
        if output is None:
            duration = self.turn.clock() - (self._started_at or self.turn.clock())
            output = model_output(exit_code or 0, stdout, stderr, duration)
        return self._finish(self._result(status, output, stdout=stdout, stderr=stderr, error=error))


def _exception_text(exc: BaseException) -> str:
    """``ValueError: text``, or the type alone when the exception has no text."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def run_patch(
    patch: str,
    cwd: str,
    *,
    approver: Approver | Decision | str | None = Decision.APPROVE,
    options: PipelineOptions | None = None,
    filesystem: Filesystem | None = None,
) -> CallResult:
    """One call in a fresh turn: the whole pipeline for a single patch."""
    return Turn(cwd, options=options, filesystem=filesystem).run(patch, approver)


__all__: Sequence[str] = (
    "ApplyPatchCall",
    "CallResult",
    "CancellationToken",
    "Decision",
    "HookBlock",
    "PipelineOptions",
    "Turn",
    "run_patch",
)
