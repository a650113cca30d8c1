"""The stages of one apply_patch call, one function each (docs/behaviour.md §6).

:class:`~.call.ApplyPatchCall` runs them in order and keeps the call's
:class:`~.result.Progress`; each takes what it needs and returns a small record, or a
:class:`~.result.Stop` where the call ends. Each stage emits its own events, in the reference's
order.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol, TypeAlias

from ..apply.changes import AppliedPatchDelta, ApplyPatchAction
from ..apply.content_check import ContentProblem, InvalidContent, check_proposed_content
from ..apply.diagnose import diagnose_error
from ..apply.explain import explain
from ..apply.fs import Filesystem, LocalFilesystem, resolve_path
from ..apply.journal import DiskJournal, JournalBusy, JournalError, pending
from ..apply.runtime import AffectedPaths, ApplyOutcome, apply_hunks
from ..apply.transaction import JournalingFilesystem, RollbackError, Transaction
from ..apply.verify import verify_patch
from ..diagnosis import Diagnosis, DiagnosisKind
from ..errors import ApplyPatchError, CancelledError, IoError, ParseError
from ..interrupts import CancellationToken
from ..parse.diagnose import diagnose_parse_error, patch_offset
from ..parse.invocation import (
    ApplyPatchInvocation,
    ImplicitInvocation,
    InvocationParseError,
    parse_command_line,
)
from ..parse.model import Hunk, ParsedPatch
from ..parse.parser import parse_patch
from .events import (
    ApplyPatchApprovalDecision,
    ApplyPatchApprovalRequest,
    Event,
    EventRecorder,
    PatchApplyBegin,
    PatchApplyEnd,
    PatchApplyStatus,
    PatchSafetyAssessed,
    PatchWarning,
    TurnDiff,
    changes_to_json,
)
from .faults import FaultyFilesystem, parse_fault
from .options import Answer, CallStatus, Decision, PipelineOptions, RefusedWrites
from .recovery import Recovery, recover
from .result import Stop, _failure_detail, _is_sandbox_denial, model_output
from .review import Selection, clean_reason, declined_text
from .safety import (
    EMPTY_PATCH_REASON,
    AskUser,
    AutoApprove,
    Reject,
    SafetyCheck,
    assess_patch_safety,
    hunk_write_paths,
)
from .sandbox import Confinement
from .turn_diff import TurnDiffTracker

VERIFICATION_FAILED: Final = "apply_patch verification failed: "
PATCH_REJECTED: Final = "patch rejected: "
REJECTED_BY_USER: Final = "patch rejected by user"
ENVIRONMENT_UNAVAILABLE: Final = "apply_patch environment selection is unavailable for this turn"
RETRY_REASON: Final = "the sandbox denied a write; retry without the sandbox?"

Changes: TypeAlias = dict[str, dict[str, Any]]


class TurnParts(Protocol):
    """What the stages use of a call's turn (a :class:`~.turn.Turn` has it all): they never
    import the machine that runs them."""

    turn_id: str
    environments: dict[str, str]
    primary: str
    fs: Filesystem
    recorder: EventRecorder
    tracker: TurnDiffTracker
    session_approvals: set[tuple[str, str]]

    @property
    def multi_environment(self) -> bool: ...


@dataclass(frozen=True)
class CallContext:
    """What every stage may need: the call's id and options, and its turn.

    ``approvals``: the "approve for session" grants the call reads and adds to (the turn's
    session approvals, unless its caller keeps its own: the agent's desk does).
    """

    turn: TurnParts
    call_id: str
    options: PipelineOptions
    cancel: CancellationToken
    approvals: set[tuple[str, str]]

    def emit(self, event: Event) -> None:
        self.turn.recorder.emit(event)


@dataclass(frozen=True)
class Parsed:
    parsed: ParsedPatch
    workdir: str | None  # the shell form's ``cd`` directory
    #: lines of the call's text before the canonical patch text (a diagnosis counts from there)
    offset: int = 0


@dataclass(frozen=True)
class Environment:
    name: str
    root: str  # the environment's working directory: the sandbox's and the approvals' root


@dataclass(frozen=True)
class Prepared:
    """What the stages after safety need (the call got past verification and safety)."""

    parsed: ParsedPatch
    environment: str
    cwd: str  # where the patch's relative paths resolve (the shell form's `cd` directory)
    root: str
    action: ApplyPatchAction
    safety: AutoApprove | AskUser
    faulty: FaultyFilesystem  # the call's filesystem (faults, cancellation, dry-run view)


@dataclass(frozen=True)
class Approval:
    """The paths the attempts can write, their session keys, and whether to ask first."""

    paths: tuple[str, ...]
    keys: tuple[tuple[str, str], ...]
    ask: bool
    #: the call needs the user's approval (and has it once past the approval stage)
    approved: bool

    @property
    def granted(self) -> tuple[str, ...]:
        """The paths the user granted (none for an auto-approved call)."""
        return self.paths if self.approved else ()


@dataclass(frozen=True)
class Ending:
    """How the attempts ended, for the FileChange end event and the model's output."""

    status: CallStatus
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    error: str | None = None
    #: the model's output when it is not the exit code/wall time text
    output: str | None = None
    diagnosis: Diagnosis | None = None


# -- before anything: recovery and the pre-tool-use hook -------------------------------------


def recover_journals(ctx: CallContext) -> Stop | None:
    """Roll back an atomic call killed in the middle (its journal is still in one of the turn's
    working directories) and say so in a ``transaction_recovered`` event. A journal that cannot
    be fully restored stops the call; one held by a running call is left alone; one that this
    program did not write, or that fails a check, is moved aside and named in a
    ``transaction_journal_refused`` event, and the call goes on."""
    turn = ctx.turn
    if not isinstance(turn.fs, LocalFilesystem):
        return None  # journals are written for the real disk only
    for directory in dict.fromkeys(turn.environments.values()):
        if pending(directory) is None:
            continue
        try:
            recovery = recover(directory, turn.fs)
        except JournalBusy:
            continue
        except JournalError as exc:
            return Stop.because(
                CallStatus.ERROR,
                f"cannot recover {directory}: {exc.strerror}",
                DiagnosisKind.RECOVERY_FAILED,
            )
        if recovery is None:
            continue
        ctx.emit(recovery.event(ctx.call_id))
        if isinstance(recovery, Recovery) and not recovery.ok:
            report = recovery.report().rstrip("\n")
            return Stop.because(CallStatus.ERROR, report, DiagnosisKind.RECOVERY_FAILED)
    return None


# -- 1-4: parse, environment, verify, safety --------------------------------------------------


def parse_input(text: str, *, shell_forms: bool = True) -> Parsed | Stop:
    """A shell-form invocation first, then the freeform patch; without ``shell_forms``, the
    freeform patch only, as Codex's freeform apply_patch tool reads its input (an ``apply_patch
    <<'EOF'`` command is then an invalid patch). A parse error is diagnosed in the lines of the
    patch text (a shell form's: its heredoc's)."""
    body = text
    try:
        invocation = parse_command_line(text) if shell_forms else None
        if isinstance(invocation, ApplyPatchInvocation):
            parsed = invocation.parsed
            return Parsed(parsed, invocation.workdir, patch_offset(text, parsed.patch))
        if isinstance(invocation, InvocationParseError):
            body = invocation.body
            raise invocation.error
        if isinstance(invocation, ImplicitInvocation):
            return Stop.because(
                CallStatus.ERROR, invocation.message, DiagnosisKind.IMPLICIT_INVOCATION
            )
        parsed = parse_patch(text)
        return Parsed(parsed, None, patch_offset(text, parsed.patch))
    except ParseError as exc:
        diagnosis = diagnose_parse_error(exc, body)
        return Stop(
            CallStatus.ERROR, VERIFICATION_FAILED + str(exc), error=str(exc), diagnosis=diagnosis
        )


def select_environment(turn: TurnParts, parsed: ParsedPatch) -> Environment | Stop:
    """The environment the patch names (its ``environment_id``), or the turn's primary one."""
    env_id = parsed.environment_id
    unknown = DiagnosisKind.UNKNOWN_ENVIRONMENT
    if env_id is not None and not turn.multi_environment:
        return Stop.because(CallStatus.ERROR, ENVIRONMENT_UNAVAILABLE, unknown)
    if env_id is not None and env_id not in turn.environments:
        return Stop.because(CallStatus.ERROR, f"unknown turn environment id `{env_id}`", unknown)
    environment = env_id if env_id is not None else turn.primary
    return Environment(environment, turn.environments[environment])


def resolve_workdir(root: str, workdir: str) -> str | Stop:
    """The shell form's ``cd DIR``, absolute. It only moves where the patch's relative paths
    resolve: the writable roots, the carve-outs and the cwd shown to the user stay the
    environment's (Codex assesses and sandboxes with the turn's cwd, not the action's), so a
    patch does not choose its own sandbox (``cd .. &&``, ``cd .git &&``)."""
    try:
        return resolve_path(root, workdir)
    except ApplyPatchError as exc:
        return Stop(
            CallStatus.ERROR,
            VERIFICATION_FAILED + str(exc),
            error=str(exc),
            diagnosis=diagnose_error(exc, None),
        )


def open_filesystem(ctx: CallContext, root: str, *, read_only: bool) -> FaultyFilesystem:
    """The call's view of the turn's filesystem: faults, token, read only for a dry run."""
    fs = ctx.turn.fs
    faults = [parse_fault(spec, root) for spec in ctx.options.faults]
    return FaultyFilesystem(fs, faults, cancel=ctx.cancel, external=fs, read_only=read_only)


def verify(
    options: PipelineOptions, parsed: ParsedPatch, cwd: str, fs: FaultyFilesystem
) -> ApplyPatchAction | Stop:
    """Verify (read only); a failure to match says where the closest region is."""
    try:
        return verify_patch(
            parsed, cwd, fs, line_endings=options.line_endings, duplicates=options.duplicates
        )
    except CancelledError:
        raise
    except ApplyPatchError as exc:
        explanation = explain(exc)
        diagnosis = diagnose_error(exc, parsed, explanation, options.line_endings)
        message = VERIFICATION_FAILED + str(exc)
        return Stop(
            CallStatus.ERROR,
            message,
            error=str(exc),
            explanation=explanation,
            diagnosis=diagnosis,
        )


def check_content(
    ctx: CallContext, action: ApplyPatchAction, fs: Filesystem, parsed: ParsedPatch
) -> tuple[Diagnosis, ...] | Stop:
    """The call's warnings: the verification's (where chunks were placed) and the content
    validator's (apply/content_check) on the files the writes reach through ``fs``; a
    validator's objection is a verification error instead when the call refuses them. Each
    warning is also sent as a ``patch_warning`` event."""
    problems = check_proposed_content(action, ctx.options.content_validator, fs)
    if problems and ctx.options.invalid_content is InvalidContent.REFUSE:
        error = "\n".join(str(problem) for problem in problems)
        diagnosis = _invalid_content(problems[0], action, parsed)
        return Stop(CallStatus.ERROR, VERIFICATION_FAILED + error, error=error, diagnosis=diagnosis)
    warnings = (*action.warnings, *(_invalid_content(p, action, parsed) for p in problems))
    for warning in warnings:
        ctx.emit(PatchWarning(ctx.call_id, warning))
    return warnings


def _invalid_content(
    problem: ContentProblem, action: ApplyPatchAction, parsed: ParsedPatch
) -> Diagnosis:
    """A content validator's objection as a diagnosis, at the hunk that leaves the file."""
    hunk = next(
        (h for h in parsed.hunks if resolve_path(action.cwd, h.target_path) == problem.path),
        None,
    )
    return Diagnosis(
        DiagnosisKind.INVALID_CONTENT,
        f"The patch would leave {problem.path} invalid ({problem.message}); fix the lines "
        "that break it, or write the file whole.",
        None if hunk is None else hunk.target_path,
        None if hunk is None else hunk.line or None,
    )


def assess_safety(ctx: CallContext, action: ApplyPatchAction, root: str) -> SafetyCheck:
    """Assess the verified action and emit ``patch_safety_assessed``."""
    options = ctx.options
    safety = assess_patch_safety(action, options.approval_policy, options.sandbox, root)
    ctx.emit(
        PatchSafetyAssessed(
            ctx.call_id,
            safety.decision,
            safety.reason if isinstance(safety, Reject) else None,
            isinstance(safety, AutoApprove) and safety.sandboxed,
        )
    )
    return safety


def rejected(safety: Reject) -> Stop:
    """How a safety ``Reject`` ends the call (no begin/end events)."""
    if safety.reason == EMPTY_PATCH_REASON:
        diagnosis = Diagnosis(
            DiagnosisKind.EMPTY_PATCH,
            "The patch has no hunk: put `*** Add File:`, `*** Delete File:` or "
            "`*** Update File:` hunks between its first and last lines.",
        )
    else:
        diagnosis = Diagnosis(
            DiagnosisKind.REJECTED,
            f"The safety check refused the patch: {safety.reason}; nothing was written.",
        )
    return Stop(
        CallStatus.REJECTED,
        PATCH_REJECTED + safety.reason,
        error=safety.reason,
        diagnosis=diagnosis,
    )


# -- 5-6: begin, approval ----------------------------------------------------------------------


def begin(ctx: CallContext, prepared: Prepared) -> Changes:
    """Emit the FileChange begin event; returns its change map (the end event repeats it).
    A call run with ``--review`` is never auto-approved: the user is asked."""
    changes = changes_to_json(prepared.action.changes)
    auto = isinstance(prepared.safety, AutoApprove) and not ctx.options.review
    ctx.emit(PatchApplyBegin(ctx.call_id, ctx.turn.turn_id, auto, changes))
    return changes


def write_paths(prepared: Prepared) -> tuple[str, ...]:
    """The paths the attempts can write, read from the hunks that will run (the runtime
    re-parses the canonical text): a folded map (--duplicates fold) may hide a move
    destination (docs/behaviour.md §7.4)."""
    return tuple(hunk_write_paths(parse_patch(prepared.parsed.patch).hunks, prepared.cwd))


def plan_approval(
    approvals: set[tuple[str, str]], prepared: Prepared, *, review: bool = False
) -> Approval:
    """Every request lists, and every grant covers, the paths the attempts can write; computed
    only when someone is asked or a grant is given (an auto-approved call needs none). Paths
    among the call's session ``approvals`` are not asked again, unless ``review``
    (``--review``) asks for every call."""
    if not review and not isinstance(prepared.safety, AskUser):
        return Approval((), (), ask=False, approved=False)
    paths = write_paths(prepared)
    keys = tuple((prepared.environment, p) for p in paths)
    asked = review or not all(k in approvals for k in keys)
    return Approval(paths, keys, ask=asked, approved=True)


def request_approval(
    ctx: CallContext,
    prepared: Prepared,
    paths: Sequence[str],
    changes: Changes,
    *,
    retry: bool,
    reason: str | None = None,
    request_id: str = "",
) -> ApplyPatchApprovalRequest:
    """Emit (and return) an approval request for ``paths``; ``reason`` says why it is asked
    again (a file changed while the call waited, a selection of the patch); ``request_id``
    names it among the call's requests."""
    turn = ctx.turn
    request = ApplyPatchApprovalRequest(
        call_id=ctx.call_id,
        turn_id=turn.turn_id,
        environment_id=prepared.environment if turn.multi_environment else None,
        cwd=prepared.root,
        files=tuple(paths),
        patch=prepared.action.patch,
        changes=changes,
        reason=RETRY_REASON if retry else reason,
        retry=retry,
        request_id=request_id,
    )
    ctx.emit(request)
    return request


def record_decision(
    ctx: CallContext,
    answer: Answer,
    keys: Sequence[tuple[str, str]],
    *,
    retry: bool,
    accepted: Selection | None = None,
) -> bool:
    """Emit the decision (with the selection accepted, or the reason of a decline), remember a
    grant for the session; returns whether it approves."""
    decision = answer.decision
    reason = clean_reason(answer.reason)
    ctx.emit(
        ApplyPatchApprovalDecision(
            ctx.call_id,
            decision.value,
            retry=retry,
            accept=None if accepted is None or not decision.approved else accepted.to_json(),
            reason=None if decision.approved else reason,
            request_id=answer.request or "",
        )
    )
    if decision is Decision.APPROVE_FOR_SESSION:
        ctx.approvals.update(keys)
    return decision.approved


def _declined(reason: str | None = None) -> Diagnosis:
    because = "" if not reason else f" ({reason})"
    return Diagnosis(
        DiagnosisKind.DECLINED,
        f"The user declined the patch{because}; nothing was written: ask what to change "
        "before trying again.",
    )


DECLINED: Final = Ending(
    CallStatus.DECLINED,
    stderr=REJECTED_BY_USER,
    error=REJECTED_BY_USER,
    output=REJECTED_BY_USER,
    diagnosis=_declined(),
)
#: Why a call asks again after a file it touches changed while it waited (docs/behaviour.md
#: §6.8); the paths follow.
CHANGED_WHILE_WAITING: Final = "changed while the call waited for approval, so the diff is new: "
#: After :data:`CHANGED_WHILE_WAITING` and its paths, when the approval had a selection: it is
#: kept for the new request (docs/behaviour.md §6.8).
SELECTION_STANDS: Final = "; the selection already given stands, unless this answer gives another"
#: Why the selected hunks are asked for when, without the chunks left out, a kept chunk matches
#: other lines than the review showed (docs/behaviour.md §6.7); the chunks and lines follow.
SELECTION_MOVED: Final = "the selected hunks match other lines than the review showed: "


def declined(reason: str | None) -> Ending:
    """The user declined: the reference's text, then the user's reason if one was given."""
    text = declined_text(REJECTED_BY_USER, reason)
    diagnosis = _declined(clean_reason(reason))
    return Ending(CallStatus.DECLINED, stderr=text, error=text, output=text, diagnosis=diagnosis)


def nothing_selected(skipped: Sequence[str]) -> Ending:
    """The user approved with no hunk selected: nothing is applied, as for a decline."""
    text = "\n".join((REJECTED_BY_USER, *skipped))
    diagnosis = Diagnosis(
        DiagnosisKind.DECLINED,
        "The user approved none of the patch's hunks; nothing was written.",
    )
    return Ending(CallStatus.DECLINED, stderr=text, error=text, output=text, diagnosis=diagnosis)


def partial(ending: Ending, skipped: Sequence[str]) -> Ending:
    """The attempts' ending of a selection, with a line per file or chunk left out after the
    attempt's stdout (the model's output and the end event both say it)."""
    if not skipped:
        return ending
    return replace(ending, stdout=ending.stdout + "".join(f"{line}\n" for line in skipped))


def stale(stop: Stop) -> Ending:
    """A verification after the approval failed (a file changed meanwhile): nothing written."""
    error = stop.error or stop.output
    return Ending(
        CallStatus.FAILED,
        stderr=f"{error}\n",
        exit_code=1,
        error=error,
        output=stop.output,
        diagnosis=stop.diagnosis,
    )


def changed_paths(shown: Changes, now: Changes, cwd: str) -> str:
    """The paths whose proposed change differs between two change maps, relative to ``cwd``."""
    paths = [p for p in dict.fromkeys((*shown, *now)) if shown.get(p) != now.get(p)]
    prefix = cwd.rstrip("/") + "/"
    return ", ".join(p.removeprefix(prefix) for p in paths)


# -- 7: the attempts ----------------------------------------------------------------------------


#: What an attempt runs against its filesystem view: the runtime, or an undo's writer.
Writer: TypeAlias = Callable[[Sequence[Hunk], str, Filesystem], ApplyOutcome]


def attempt(
    ctx: CallContext,
    prepared: Prepared,
    *,
    sandboxed: bool,
    approved: Sequence[str] = (),
    writer: Writer | None = None,
) -> ApplyOutcome:
    """Apply the whole canonical patch once.

    Paths resolve against ``prepared.cwd``; the sandbox is rooted at ``prepared.root``.
    ``approved`` are the paths the user granted: writable in the sandboxed attempt, and the
    only ones an unsandboxed retry may change. An atomic attempt writes its journal first and
    rolls back on failure (its delta is then empty, or inexact when the rollback failed).
    ``writer``: what writes instead of the runtime (an undo's, docs/behaviour.md §11); the
    hunks still name the paths the journal records.
    """
    options, faulty, root = ctx.options, prepared.faulty, prepared.root
    # An escalated retry of a sandboxed call runs in no-follow mode (docs/behaviour.md §5.6),
    # and changes nothing but the paths it was granted; its journal records which.
    confinement = Confinement.of(options.sandbox, root, sandboxed=sandboxed, approved=approved)
    base: Filesystem = ctx.turn.fs
    journal = None
    if options.transaction is Transaction.ATOMIC:
        journal = JournalingFilesystem(base, _disk_journal(ctx, faulty, root, confinement))
        base = journal
    base = confinement.wrap(base)
    faulty.begin_attempt(base, sandboxed=sandboxed)
    hunks = parse_patch(prepared.parsed.patch).hunks  # the runtime re-parses the canonical text
    try:
        if journal is not None:
            try:
                journal.prepare(hunks, prepared.cwd)  # the write-ahead journal: before any change
            except JournalError as exc:  # nothing was changed
                error = IoError(exc.strerror or str(exc))
                return ApplyOutcome(AppliedPatchDelta(), AffectedPaths(), error)
        if writer is None:
            outcome = apply_hunks(hunks, prepared.cwd, faulty, options.line_endings)
        else:
            outcome = writer(hunks, prepared.cwd, faulty)
    except BaseException:
        # A KeyboardInterrupt outside the cancellation token, or a filesystem raising what
        # it should not: all or nothing still holds.
        if journal is not None:
            journal.rollback()
        raise
    if journal is None:
        return outcome
    if outcome.error is None:
        journal.commit()
        return outcome
    try:
        journal.rollback()
        return replace(outcome, delta=AppliedPatchDelta())
    except RollbackError as exc:
        error = IoError(f"{outcome.error}; {exc}", outcome.error)
        return replace(outcome, delta=replace(outcome.delta, exact=False), error=error)


def _disk_journal(
    ctx: CallContext, faulty: FaultyFilesystem, root: str, confinement: Confinement
) -> DiskJournal | None:
    """The on-disk journal of an atomic attempt on the real disk, keyed by ``root`` (the
    environment's working directory, where the next call looks for it), recording the
    attempt's ``confinement`` (all a recovery may change), with the ``journal:`` fault, if
    set, making its write fail as a full disk does."""
    if not isinstance(ctx.turn.fs, LocalFilesystem):
        return None
    full = next((f for f in faulty.faults if f.kind == "journal"), None)

    def disk_full() -> None:
        assert full is not None
        faulty.fired.append(full.spec)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return DiskJournal(
        root,
        ctx.call_id,
        confinement=confinement.to_json(),
        fail_write=None if full is None else disk_full,
    )


def may_retry(options: PipelineOptions, outcome: ApplyOutcome, *, sandboxed: bool) -> bool:
    """A sandboxed attempt the sandbox denied (a symlink leading out, a simulated denial) may
    be retried unsandboxed, when the approval policy allows asking for it."""
    return (
        outcome.error is not None
        and sandboxed
        and _is_sandbox_denial(outcome.error)
        and options.approval_policy.may_ask_for_retry
    )


def attempts_ending(options: PipelineOptions, outcome: ApplyOutcome, parsed: ParsedPatch) -> Ending:
    """The end of a call whose attempts ran to their end (not cancelled)."""
    if outcome.error is None:
        return Ending(CallStatus.COMPLETED, stdout=outcome.affected.summary())
    return Ending(
        CallStatus.FAILED,
        stderr=f"{outcome.error}\n",
        exit_code=1,
        error=_failure_detail(outcome.error),
        diagnosis=diagnose_error(outcome.error, parsed, None, options.line_endings),
    )


# -- 8-9: end, track, the post-tool-use hook ----------------------------------------------------


def end(ctx: CallContext, ending: Ending, changes: Changes) -> None:
    """Emit the FileChange end event."""
    status = PatchApplyStatus(ending.status.value)  # the three statuses an end event can carry
    turn_id = ctx.turn.turn_id
    ctx.emit(PatchApplyEnd(ctx.call_id, turn_id, ending.stdout, ending.stderr, changes, status))


def ending_stop(ending: Ending, duration: float) -> Stop:
    """The call's stop after its end event: the model sees the exit code and wall time."""
    output = ending.output
    if output is None:
        output = model_output(ending.exit_code, ending.stdout, ending.stderr, duration)
    return Stop(
        ending.status,
        output,
        error=ending.error,
        stdout=ending.stdout,
        stderr=ending.stderr,
        diagnosis=ending.diagnosis,
    )


def track(ctx: CallContext, delta: AppliedPatchDelta, environment: str) -> None:
    """Feed the call's delta to the tracker; emit a TurnDiff under the rules of 6.5."""
    tracker = ctx.turn.tracker
    if delta.is_empty() and delta.exact:
        return
    before = tracker.get_unified_diff()
    keep = ctx.options.refused_writes is RefusedWrites.KEEP
    changed = tracker.track_delta(delta, environment, keep_refused=keep)
    after = tracker.get_unified_diff()
    if changed and (before is not None or after is not None):
        ctx.emit(TurnDiff(after or ""))
