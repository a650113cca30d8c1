"""The result of one call: :class:`CallResult` and the model-visible output text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..apply.changes import AppliedPatchDelta, ApplyPatchAction
from ..apply.explain import MatchExplanation
from ..errors import ApplyPatchError
from ..parse.model import ParsedPatch
from ..text import format_io_error
from .events import (
    ApplyPatchApprovalRequest,
    RecordedEvent,
)
from .options import CallStatus, Stage
from .safety import SafetyCheck
from .sandbox import (
    SandboxDenied,
    SymlinkRefused,
)


def format_wall_time(seconds: float) -> str:
    """Rust's formatting of a duration rounded to one decimal: ``0``, ``0.1``, ``2``."""
    rounded = round(seconds, 1)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)


def model_output(exit_code: int, stdout: str, stderr: str, duration: float) -> str:
    """The text the model receives for an attempt (docs/behaviour.md §6.2)."""
    return (
        f"Exit code: {exit_code}\nWall time: {format_wall_time(duration)} seconds\n"
        f"Output:\n{stdout}{stderr}"
    )


@dataclass(frozen=True)
class CallResult:
    """Everything one call did; the Jupyter layer shows it, the ``turn`` command prints it.

    ``stage`` is ``done`` for a completed call and otherwise the stage (of :data:`STAGES`) where
    the call stopped: ``verifying`` for a verification error, ``waiting for approval`` for a
    call that waits or was declined, ``applying`` for a failed application.
    """

    call_id: str
    status: CallStatus
    stage: Stage
    output: str
    stdout: str = ""
    stderr: str = ""
    events: tuple[RecordedEvent, ...] = ()
    parsed: ParsedPatch | None = None
    proposed: ApplyPatchAction | None = None
    safety: SafetyCheck | None = None
    delta: AppliedPatchDelta = field(default_factory=AppliedPatchDelta)
    turn_diff: str | None = None
    error: str | None = None
    pending_request: ApplyPatchApprovalRequest | None = None
    attempts: int = 0
    cwd: str = ""
    explanation: MatchExplanation | None = None
    #: The shell form's ``cd`` directory, absolute (None without one): the patch's relative
    #: paths resolve there, while ``cwd`` (the environment's) roots the sandbox.
    workdir: str | None = None
    #: The content validator's objections to content applied anyway (``InvalidContent.WARN``).
    warnings: tuple[str, ...] = ()
    #: The patch of the hunks the user selected (docs/behaviour.md §6.7), None without one.
    selected: ParsedPatch | None = None
    #: A line per file or chunk the user left out (``not applied, by the user: ...``).
    not_applied: tuple[str, ...] = ()
    #: While the call waits: what the request asks about, file by file and chunk by chunk
    #: (:func:`~.review.review_files`), and whether it can be answered with a selection.
    review: tuple[dict[str, Any], ...] = ()
    selectable: bool = False

    @property
    def ok(self) -> bool:
        return self.status == CallStatus.COMPLETED

    def to_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "status": self.status,
            "stage": self.stage,
            "output": self.output,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "error": self.error,
            "safety": None if self.safety is None else self.safety.to_json(),
            "proposed": None if self.proposed is None else self.proposed.to_json(),
            "delta": self.delta.to_json(),
            "turn_diff": self.turn_diff,
            "attempts": self.attempts,
            "cwd": self.cwd,
            "workdir": self.workdir,
            "explanation": None if self.explanation is None else self.explanation.to_json(),
            "warnings": list(self.warnings),
            "selected_patch": None if self.selected is None else self.selected.patch,
            "not_applied": list(self.not_applied),
            "events": [e.to_json() for e in self.events],
        }


def _is_sandbox_denial(error: ApplyPatchError) -> bool:
    cause = getattr(error, "cause", None)
    return isinstance(cause, SandboxDenied)


def _failure_detail(error: ApplyPatchError) -> str:
    """The error of a failed attempt with its reason, for ``CallResult.error``.

    The reference's write and delete errors name only the path (docs/behaviour.md §5.3), and that
    text stays the stderr; the detail adds why: the sandbox's denial (which path, which rule) or the
    OS error, unless the text already says it.
    """
    text = str(error)
    cause = getattr(error, "cause", None)
    if isinstance(cause, SandboxDenied | SymlinkRefused):
        reason = str(cause)
    elif isinstance(cause, OSError):
        reason = format_io_error(cause)
    else:
        return text
    return text if reason in text else f"{text} ({reason})"


@dataclass(frozen=True)
class Progress:
    """How far a call got: the stage it is in and what its stages found so far.

    The call keeps one (replaced, never mutated, as each stage ends); :func:`build_result`
    reads it with the call's :class:`Stop`.
    """

    stage: Stage = Stage.STREAMING
    #: the environment's working directory (the turn's until an environment is selected)
    cwd: str = ""
    workdir: str | None = None
    parsed: ParsedPatch | None = None
    proposed: ApplyPatchAction | None = None
    safety: SafetyCheck | None = None
    delta: AppliedPatchDelta = field(default_factory=AppliedPatchDelta)
    attempts: int = 0
    #: the content validator's objections, when the call applies anyway (``warn``)
    warnings: tuple[str, ...] = ()
    #: the patch of the hunks the user selected, and what was left out (§6.7)
    selected: ParsedPatch | None = None
    not_applied: tuple[str, ...] = ()


@dataclass(frozen=True)
class Stop:
    """How a call ends (or pauses at an approval request): what its result says besides the
    :class:`Progress`."""

    status: CallStatus
    output: str
    error: str | None = None
    stdout: str = ""
    stderr: str = ""
    explanation: MatchExplanation | None = None
    pending_request: ApplyPatchApprovalRequest | None = None
    review: tuple[dict[str, Any], ...] = ()
    selectable: bool = False

    @classmethod
    def because(cls, status: CallStatus, message: str) -> Stop:
        """A stop whose output and error are the same message."""
        return cls(status, message, error=message)


def build_result(
    call_id: str,
    progress: Progress,
    stop: Stop,
    events: tuple[RecordedEvent, ...],
    turn_diff: str | None,
) -> CallResult:
    """The one place a call's :class:`CallResult` is made."""
    return CallResult(
        call_id=call_id,
        status=stop.status,
        stage=progress.stage,
        output=stop.output,
        stdout=stop.stdout,
        stderr=stop.stderr,
        events=events,
        parsed=progress.parsed,
        proposed=progress.proposed,
        safety=progress.safety,
        delta=progress.delta,
        turn_diff=turn_diff,
        error=stop.error,
        pending_request=stop.pending_request,
        attempts=progress.attempts,
        cwd=progress.cwd,
        explanation=stop.explanation,
        workdir=progress.workdir,
        warnings=progress.warnings,
        selected=progress.selected,
        not_applied=progress.not_applied,
        review=stop.review,
        selectable=stop.selectable,
    )
