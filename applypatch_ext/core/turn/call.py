"""One apply_patch tool call, from patch text to TurnDiff: :class:`ApplyPatchCall`, the small
state machine over the stage functions of :mod:`.stages` (docs/behaviour.md §6).

A call

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

A call knows its turn as :class:`CallTurn`, what it uses of it: the :class:`~.turn.Turn` that
starts calls (and undoes them, :mod:`.undo`) stands above this module.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import Any, Protocol

from ..apply.runtime import ApplyOutcome
from ..errors import CancelledError
from ..interrupts import CancellationToken, cancellation
from ..parse.model import ParsedPatch
from . import stages
from .events import (
    ApplyPatchApprovalRequest,
    Clock,
    Event,
    PatchApplyUpdated,
    PatchDiagnosis,
    changes_to_json,
)
from .hooks import PostToolUseHook, PreToolUseHook, post_hook, pre_hook
from .options import (
    Accept,
    Answer,
    Approver,
    CallStatus,
    Decision,
    PipelineOptions,
    Stage,
    as_approver,
)
from .preview import ApplyPatchArgumentDiffConsumer
from .result import CallResult, Progress, Stop, build_result, call_diagnosis
from .review import (
    moved_chunks,
    normalize_selection,
    not_applied,
    review_files,
    select_hunks,
)
from .safety import Reject, hunk_write_paths
from .stages import (
    PATCH_REJECTED,
    Approval,
    CallContext,
    Changes,
    Ending,
    Prepared,
    TurnParts,
)


class CallTurn(TurnParts, Protocol):
    """What a call (and an undo, :mod:`.undo`) uses of its turn: the stages' parts, the turn's
    working directory, clock and hooks, and its calls."""

    clock: Clock
    pre_tool_use: PreToolUseHook | None
    post_tool_use: PostToolUseHook | None
    calls: list[ApplyPatchCall]

    @property
    def cwd(self) -> str: ...

    def fresh_call_id(self) -> str: ...


class _Refused(Exception):
    """An approver gave an answer that cannot answer ``request``: ``error`` says why."""

    def __init__(self, request: ApplyPatchApprovalRequest, error: ValueError) -> None:
        super().__init__(str(error))
        self.request = request
        self.error = error


class ApplyPatchCall:
    """One tool call: a small state machine over the stage functions of :mod:`.stages`.

    Its progress is one :class:`~.result.Progress` record (replaced as each stage ends); how it
    ends is a :class:`~.result.Stop`; :meth:`_result` makes the :class:`CallResult` of both.
    """

    def __init__(
        self,
        turn: CallTurn,
        call_id: str,
        options: PipelineOptions,
        cancel: CancellationToken,
        approvals: set[tuple[str, str]] | None = None,
        *,
        shell_forms: bool = True,
    ) -> None:
        self.turn = turn
        self.call_id = call_id
        self.options = options
        self.cancel = cancel
        self.shell_forms = shell_forms
        grants = turn.session_approvals if approvals is None else approvals
        self._ctx = CallContext(turn, call_id, options, cancel, grants)
        self._progress = Progress(cwd=turn.cwd)
        self._text: list[str] = []
        self._first_event = len(turn.recorder.events)
        self._preview = ApplyPatchArgumentDiffConsumer(
            call_id,
            enabled=options.streaming_events,
            throttle=options.throttle,
            clock=turn.clock,
        )
        self._input_done = False
        self._steps: Generator[ApplyPatchApprovalRequest, Answer, CallResult] | None = None
        # what the pending request asks about, and whether it is a selection's or a retry's
        self._asked: Prepared | None = None
        self._asked_first = False
        # the last request asked (pending while the call waits), and how many were asked
        self._request: ApplyPatchApprovalRequest | None = None
        self._requests = 0
        self._started_at: float | None = None
        self.result: CallResult | None = None
        #: the id its caller asked for, when an earlier call of the turn had it (see Turn.call)
        self.requested_call_id: str | None = None

    @property
    def stage(self) -> Stage:
        """The stage the call is in (or stopped in)."""
        return self._progress.stage

    @property
    def progress(self) -> Progress:
        return self._progress

    def _advance(self, **fields: Any) -> None:
        self._progress = replace(self._progress, **fields)

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

    def run(self, approver: Approver | Answer | Decision | str | None = None) -> CallResult:
        """Run the pipeline; without an approver an approval request stops the call.

        A fixed :class:`Answer` with a selection (``accept``) implies ``review``: the call asks
        even where the policy would not, and the selection answers that request, so that it
        is applied, never dropped. Raises ``ValueError``, before anything runs, for a fixed
        answer that cannot answer any request (a selection with a decline, a reason with an
        approval, a reason that is not a string).
        """
        self.finish_input()
        if self._steps is None:
            if isinstance(approver, Answer):
                self.check_answer(approver)
                if approver.accept is not None and not self.options.review:
                    self.options = replace(self.options, review=True)
                    self._ctx = replace(self._ctx, options=self.options)
            self._started_at = self.turn.clock()
            self._steps = self._pipeline()
            return self._drive(None, as_approver(approver))
        if self.result is not None and self.result.status != CallStatus.AWAITING_APPROVAL:
            return self.result
        raise RuntimeError("the call is waiting for approval: use resume(decision)")

    def resume(
        self,
        decision: Decision | str,
        approver: Approver | Answer | Decision | str | None = None,
        *,
        accept: Accept | None = None,
        reason: str | None = None,
        request: str | None = None,
    ) -> CallResult:
        """Answer the pending approval request and go on.

        ``accept`` approves only some hunks (per path as written: True, False or chunk
        indexes; docs/behaviour.md §6.7); ``reason`` is a decline's reason, given to the model;
        ``request`` the ``request_id`` of the request answered (None: the pending one).
        Raises ``ValueError`` for an answer that cannot answer the pending request (an unknown
        decision, a selection the patch does not allow, a reason that is not a string, another
        request's id): the call still waits.
        """
        if self.result is None or self.result.status != CallStatus.AWAITING_APPROVAL:
            raise RuntimeError(f"call {self.call_id} is not waiting for approval")
        answer = Answer(Decision(decision), accept, reason, request)
        self.check_answer(answer)
        return self._drive(answer, as_approver(approver))

    @property
    def pending_request_id(self) -> str | None:
        """The ``request_id`` of the request the call waits for (None when it waits for none)."""
        if self.result is None or self.result.status != CallStatus.AWAITING_APPROVAL:
            return None
        return None if self._request is None else self._request.request_id

    def check_answer(self, answer: Answer) -> None:
        """Raise ``ValueError`` when ``answer`` cannot answer the pending request: a reason goes
        with a decline only, and is a string; an answer naming a request names the pending
        one; a selection answers only the first request of a call (not a retry's, not a
        selection's), and must fit its patch. Before the call runs, only what no request could
        take is refused (the selection is checked against the patch when it is asked)."""
        reason = answer.reason
        if reason is not None and not isinstance(reason, str):
            raise ValueError(
                f"reason: give a string (why the patch was declined, told to the model), not "
                f"{type(reason).__name__} {reason!r:.80}"
            )
        if reason is not None and answer.decision.approved:
            raise ValueError(
                f"a reason goes with a decline, not with {answer.decision.value}: the reason "
                "tells the model why the patch was declined"
            )
        pending = self._request.request_id if self._request is not None else None
        if answer.request is not None and answer.request != pending:
            raise ValueError(
                f"this answer is for request {answer.request!r:.80}, but {self.call_id} waits "
                f"for {pending!r}: it was asked again since (a file changed, a selection, a "
                "retry without the sandbox); answer the request shown now"
                if pending is not None
                else f"this answer is for request {answer.request!r:.80}, but {self.call_id} "
                "waits for none"
            )
        if answer.accept is None:
            return
        if not answer.decision.approved:
            raise ValueError("accept selects what to apply: give it with approve, not decline")
        if self._steps is None:
            return  # checked against the patch at the request it answers
        if self._asked is None or not self._asked_first:
            raise ValueError(
                "accept answers the first approval request of a call only: this request is a "
                "retry or the request for a selection already made; answer it with a decision"
            )
        normalize_selection(self._asked.parsed, answer.accept)

    def review(self) -> list[dict[str, Any]]:
        """What the pending approval request asks about, file by file and chunk by chunk, with
        the seek pass of each chunk (:func:`~.review.review_files`); empty when nothing waits.
        It reads the updated files once."""
        asked = self._asked
        if asked is None or self.stage != Stage.WAITING_FOR_APPROVAL:
            return []
        return review_files(asked.parsed, asked.cwd, self.turn.fs, self.options.line_endings)

    @property
    def reviewable(self) -> bool:
        """The pending request can be answered with a selection of hunks."""
        return self._asked is not None and self._asked_first

    def abandon(self, reason: str) -> CallResult:
        """Cancel a call whose input never completed: nothing runs, nothing is written."""
        if self._steps is not None:
            raise RuntimeError("the call has already run")
        self._input_done = True
        self.result = self._result(Stop.because(CallStatus.CANCELLED, reason))
        return self.result

    def dry_run(self) -> CallResult:
        """Parse, verify and assess safety; write nothing (status ``dry-run`` or an error)."""
        self.finish_input()
        if self._steps is not None:
            raise RuntimeError("the call has already run")
        prepared = self._prepare(read_only=True)
        if isinstance(prepared, Stop):
            self.result = self._conclude(prepared)
            return self.result
        self._advance(stage=Stage.DONE)
        self.result = self._result(Stop(CallStatus.DRY_RUN, "dry run: nothing was written"))
        return self.result

    def _drive(self, answer: Answer | None, approver: Approver | None) -> CallResult:
        assert self._steps is not None
        try:
            # The token is the current one for the checkpoints of parsing, verification and the
            # explanation (an interrupt there ends the call before anything is written).
            with cancellation(self.cancel):
                request = self._send(answer) if answer is not None else next(self._steps)
                while True:
                    if approver is None:
                        return self._wait(request)
                    given = approver(request)
                    try:
                        answer = Answer.of(given)
                        self.check_answer(answer)
                    except ValueError as exc:
                        raise _Refused(request, exc) from None
                    request = self._send(answer)
        except _Refused as refused:
            # An approver's answer that cannot answer this request (a selection for a retry,
            # a reason that is not text): refused, never dropped; the call waits for one
            # that can (resume).
            self._wait(refused.request)
            raise refused.error from None
        except CancelledError:
            # Cancelled before the begin event (parsing, verifying): nothing was written.
            reason = f"apply_patch was cancelled while {self.stage}: nothing was written"
            self.result = self._conclude(Stop.because(CallStatus.CANCELLED, reason))
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
                self._advance(delta=replace(self._progress.delta, exact=False))
            if isinstance(exc, KeyboardInterrupt):
                status, reason = CallStatus.CANCELLED, f"interrupted while {self.stage}"
            else:
                status, reason = (
                    CallStatus.FAILED,
                    f"{type(exc).__name__} while {self.stage}: {exc}",
                )
            self.result = self._result(Stop.because(status, reason))
            raise

    def _wait(self, request: ApplyPatchApprovalRequest) -> CallResult:
        """Stop, waiting for an answer to ``request``."""
        self._advance(stage=Stage.WAITING_FOR_APPROVAL)
        waiting = Stop(
            CallStatus.AWAITING_APPROVAL,
            "",
            pending_request=request,
            review=tuple(self.review()),
            selectable=self.reviewable,
        )
        self.result = self._result(waiting)
        return self.result

    def _send(self, answer: Answer) -> ApplyPatchApprovalRequest:
        """Give the steps a checked answer, naming the request it answers."""
        assert self._steps is not None and self._request is not None
        return self._steps.send(replace(answer, request=self._request.request_id))

    def _emit(self, event: Event) -> None:
        self.turn.recorder.emit(event)

    def _result(self, stop: Stop) -> CallResult:
        """The call's result: its progress and how it stopped (the one place it is made)."""
        events = tuple(self.turn.recorder.events[self._first_event :])
        diff = self.turn.tracker.get_unified_diff()
        return build_result(
            self.call_id, self._progress, stop, events, diff, self.requested_call_id
        )

    def _conclude(self, stop: Stop) -> CallResult:
        """The post-tool-use hook (it sees the result), then the final result: a completed
        call ends in stage ``done``; any other keeps the stage where it stopped."""
        hook = self.turn.post_tool_use
        if hook is not None:
            stop = post_hook(hook, self._result(stop), stop)
        if stop.status == CallStatus.COMPLETED:
            self._advance(stage=Stage.DONE)
        diagnosis = call_diagnosis(self._progress, stop)
        if diagnosis is not None:
            self._emit(PatchDiagnosis(self.call_id, diagnosis))
        return self._result(stop)

    # -- the stages -----------------------------------------------------------------------------

    def _prepare(self, *, read_only: bool = False) -> Prepared | Stop:
        """Hooks, parse, environment, verify, safety (no begin event yet)."""
        ctx = self._ctx
        text = pre_hook(self.turn.pre_tool_use, self.text)
        if isinstance(text, Stop):
            return text
        self._advance(stage=Stage.PARSING)
        parsed = stages.parse_input(text, shell_forms=self.shell_forms)
        if isinstance(parsed, Stop):
            return parsed
        self._advance(parsed=parsed.parsed, patch_offset=parsed.offset)
        env = stages.select_environment(self.turn, parsed.parsed)
        if isinstance(env, Stop):
            return env
        self._advance(cwd=env.root)
        cwd = env.root
        if parsed.workdir is not None:
            resolved = stages.resolve_workdir(env.root, parsed.workdir)
            if isinstance(resolved, Stop):
                return resolved
            cwd = resolved
            self._advance(workdir=cwd)
        faulty = stages.open_filesystem(ctx, env.root, read_only=read_only)
        self._advance(stage=Stage.VERIFYING)
        action = stages.verify(self.options, parsed.parsed, cwd, faulty)
        if isinstance(action, Stop):
            return action
        self._advance(proposed=action)
        warnings = stages.check_content(ctx, action, faulty, parsed.parsed)
        if isinstance(warnings, Stop):
            return warnings
        self._advance(warnings=warnings, stage=Stage.SAFETY)
        safety = stages.assess_safety(ctx, action, env.root)
        self._advance(safety=safety)
        if isinstance(safety, Reject):
            return stages.rejected(safety)
        return Prepared(parsed.parsed, env.name, cwd, env.root, action, safety, faulty)

    def _pipeline(self) -> Generator[ApplyPatchApprovalRequest, Answer, CallResult]:
        recovered = stages.recover_journals(self._ctx)
        if recovered is not None:
            return self._conclude(recovered)
        prepared = self._prepare()
        if isinstance(prepared, Stop):
            return self._conclude(prepared)
        changes = stages.begin(self._ctx, prepared)
        approval = stages.plan_approval(self._ctx.approvals, prepared, review=self.options.review)
        if approval.ask:
            approved = yield from self._approve(prepared, approval, changes)
            if isinstance(approved, Ending):
                return self._end(prepared, changes, approved)
            prepared, approval = approved
        outcome = yield from self._attempts(prepared, approval, changes)
        if isinstance(outcome.error, CancelledError):
            # Like an aborted turn: no end event; what was written is tracked honestly.
            stages.track(self._ctx, self._progress.delta, prepared.environment)
            return self._conclude(Stop.because(CallStatus.CANCELLED, str(outcome.error)))
        ending = stages.partial(
            stages.attempts_ending(self.options, outcome, prepared.parsed),
            self._progress.not_applied,
        )
        return self._end(prepared, changes, ending)

    def _approve(
        self, prepared: Prepared, approval: Approval, changes: Changes
    ) -> Generator[ApplyPatchApprovalRequest, Answer, tuple[Prepared, Approval] | Ending]:
        """Ask until an answer covers what was shown (docs/behaviour.md §6.7, §6.8).

        An approval verifies again first: if a file changed while the call waited and the diff
        is no longer the one shown, the call asks again with the new diff. An approval of some
        hunks only builds the patch of the selected hunks, verifies it and assesses its safety
        (a new patch, a Reject ends the call); the approval covers it (its grant is what the
        selection writes), unless a kept chunk now matches other lines than the request showed:
        that is asked for in its turn.
        Returns what the attempts run and their grant, or how the call ends without them.
        """
        shown, reason, first = changes, None, True
        standing: Accept | None = None  # a selection given before the diff changed: it stands
        while True:
            answer = yield self._ask(
                prepared, approval.paths, shown, retry=False, reason=reason, first=first
            )
            accept = answer.accept if answer.accept is not None else standing
            selection = None
            if first and accept is not None and answer.decision.approved:
                selection = normalize_selection(prepared.parsed, accept)
            keys = approval.keys
            if selection is not None and not selection.everything:
                # "for session" grants what the selection writes, not what it left out
                kept = select_hunks(prepared.parsed, selection)
                paths = () if kept is None else hunk_write_paths(kept.hunks, prepared.cwd)
                keys = tuple((prepared.environment, p) for p in paths)
            if not stages.record_decision(self._ctx, answer, keys, retry=False, accepted=selection):
                return stages.declined(answer.reason)
            fresh = self._reverify(prepared)
            if isinstance(fresh, Ending):
                return fresh
            now = changes_to_json(fresh.action.changes)
            if now != shown:
                reason = stages.CHANGED_WHILE_WAITING + stages.changed_paths(
                    shown, now, prepared.cwd
                )
                if selection is not None and not selection.everything:
                    standing = accept  # the same patch, the same chunks: it still fits
                    reason += stages.SELECTION_STANDS
                prepared, shown = fresh, now
                self._advance(proposed=fresh.action)
                continue
            if selection is None or selection.everything:
                return prepared, approval
            skipped = tuple(not_applied(selection))
            self._advance(not_applied=skipped)
            sub = select_hunks(prepared.parsed, selection)
            if sub is None:
                return stages.nothing_selected(skipped)
            selected = self._prepare_selection(prepared, sub)
            if isinstance(selected, Ending):
                return selected
            # a kept chunk that would match other lines than the review showed is asked about
            moved = moved_chunks(
                prepared.parsed,
                selection,
                sub,
                prepared.cwd,
                self.turn.fs,
                self.options.line_endings,
            )
            prepared, first = selected, False
            approval = stages.plan_approval(self._ctx.approvals, prepared, review=bool(moved))
            if not moved:
                # every kept hunk was shown, where it matches: the approval given covers them
                return prepared, replace(approval, ask=False)
            shown = changes_to_json(prepared.action.changes)
            reason = stages.SELECTION_MOVED + "; ".join(moved)

    def _reverify(self, prepared: Prepared) -> Prepared | Ending:
        """Verify the patch again, now (a file may have changed while the call waited)."""
        action = stages.verify(self.options, prepared.parsed, prepared.cwd, prepared.faulty)
        if isinstance(action, Stop):
            return stages.stale(action)
        return replace(prepared, action=action)

    def _prepare_selection(self, prepared: Prepared, selected: ParsedPatch) -> Prepared | Ending:
        """The selected hunks are a new patch: verify it, check its content, assess its safety
        (events as for any patch); a Reject ends the call declined with the rejection's text."""
        self._advance(selected=selected, stage=Stage.VERIFYING)
        action = stages.verify(self.options, selected, prepared.cwd, prepared.faulty)
        if isinstance(action, Stop):
            return stages.stale(action)
        warnings = stages.check_content(self._ctx, action, prepared.faulty, selected)
        if isinstance(warnings, Stop):
            return stages.stale(warnings)
        self._advance(proposed=action, warnings=warnings, stage=Stage.SAFETY)
        safety = stages.assess_safety(self._ctx, action, prepared.root)
        self._advance(safety=safety)
        if isinstance(safety, Reject):
            text = PATCH_REJECTED + safety.reason
            return Ending(CallStatus.DECLINED, stderr=text, error=safety.reason, output=text)
        return replace(prepared, parsed=selected, action=action, safety=safety)

    def _ask(
        self,
        prepared: Prepared,
        paths: Sequence[str],
        changes: Changes,
        *,
        retry: bool,
        reason: str | None = None,
        first: bool = False,
    ) -> ApplyPatchApprovalRequest:
        self._advance(stage=Stage.WAITING_FOR_APPROVAL)
        self._asked, self._asked_first = prepared, first and not retry
        self._requests += 1
        self._request = stages.request_approval(
            self._ctx,
            prepared,
            paths,
            changes,
            retry=retry,
            reason=reason,
            request_id=f"{self.call_id}:{self._requests}",
        )
        return self._request

    def _attempts(
        self, prepared: Prepared, approval: Approval, changes: Changes
    ) -> Generator[ApplyPatchApprovalRequest, Answer, ApplyOutcome]:
        """The first attempt (sandboxed when the profile asks for it) and, when the sandbox
        denied it, an unsandboxed retry, after a second approval unless the user already
        approved this call (Codex does not ask twice). An approval grants the approved paths
        to the sandboxed attempt (Codex requests them as extra permissions)."""
        sandboxed = not self.options.sandbox.has_full_disk_write()
        # The model's "Wall time" is the run's, as in Codex (its exec starts once approved):
        # the time a person took to answer is not part of it.
        self._started_at = self.turn.clock()
        outcome = self._attempt(prepared, sandboxed=sandboxed, approved=approval.granted)
        if not stages.may_retry(self.options, outcome, sandboxed=sandboxed):
            return outcome
        paths = approval.paths or stages.write_paths(prepared)
        if not approval.approved:
            answer = yield self._ask(prepared, paths, changes, retry=True)
            if not stages.record_decision(self._ctx, answer, (), retry=True):
                return outcome
        # Unsandboxed, but confined to the paths the request listed.
        return self._attempt(prepared, sandboxed=False, approved=paths)

    def _attempt(
        self, prepared: Prepared, *, sandboxed: bool, approved: Sequence[str]
    ) -> ApplyOutcome:
        """One attempt; its delta joins the call's (an exception loses it: see _drive)."""
        self._advance(stage=Stage.APPLYING, attempts=self._progress.attempts + 1)
        outcome = stages.attempt(self._ctx, prepared, sandboxed=sandboxed, approved=approved)
        self._advance(delta=self._progress.delta.append(outcome.delta))
        return outcome

    def _end(self, prepared: Prepared, changes: Changes, ending: Ending) -> CallResult:
        """The FileChange end event, the TurnDiff, then the model's output and the result."""
        stages.end(self._ctx, ending, changes)
        stages.track(self._ctx, self._progress.delta, prepared.environment)
        duration = self.turn.clock() - (self._started_at or self.turn.clock())
        return self._conclude(stages.ending_stop(ending, duration))
