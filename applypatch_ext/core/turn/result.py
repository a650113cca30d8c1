"""The result of one call: :class:`CallResult` and the model-visible output text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Any

from ..apply.changes import AppliedPatchDelta, ApplyPatchAction
from ..apply.explain import MatchExplanation
from ..diagnosis import Diagnosis, DiagnosisKind
from ..errors import ApplyPatchError
from ..parse.diagnose import shifted
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
    #: What to check in a call that applies (or would): a pure addition sent to the end of the
    #: file, a fuzzy match that rewrites lines, lines that occur twice, content the validator
    #: objected to and that was applied anyway (``InvalidContent.WARN``); the failure atlas's
    #: warnings, in patch order.
    warnings: tuple[Diagnosis, ...] = ()
    #: Why the call failed, and where: set for every call that ended without completing
    #: (error, failed, rejected, declined, cancelled), None otherwise.
    diagnosis: Diagnosis | None = None
    #: The patch of the hunks the user selected (docs/behaviour.md §6.7), None without one.
    selected: ParsedPatch | None = None
    #: A line per file or chunk the user left out (``not applied, by the user: ...``).
    not_applied: tuple[str, ...] = ()
    #: While the call waits: what the request asks about, file by file and chunk by chunk
    #: (:func:`~.review.review_files`), and whether it can be answered with a selection.
    review: tuple[dict[str, Any], ...] = ()
    selectable: bool = False
    #: The id the caller asked for when an earlier call of the turn had it: ``call_id`` is then
    #: that id made unique (``x#2``); None otherwise.
    requested_call_id: str | None = None

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
            "diagnosis": None if self.diagnosis is None else self.diagnosis.to_json(),
            "warnings": [warning.to_json() for warning in self.warnings],
            "selected_patch": None if self.selected is None else self.selected.patch,
            "not_applied": list(self.not_applied),
            "requested_call_id": self.requested_call_id,
            "events": [e.to_json() for e in self.events],
        }

    def line_json(self) -> dict[str, Any]:
        """The ``call_result`` line printed after each call (:class:`JsonLines`)."""
        return {
            "type": "call_result",
            "call_id": self.call_id,
            "status": self.status,
            "output": self.output,
            "delta": self.delta.to_json(),
            "diagnosis": None if self.diagnosis is None else self.diagnosis.to_json(),
            "warnings": [warning.to_json() for warning in self.warnings],
        }


@dataclass(frozen=True)
class JsonLines:
    """The one printer of JSON Lines: ``turn``, ``replay`` and the desk's stdio log write each
    event, and a :meth:`CallResult.line_json` line after each call, through it."""

    stream: IO[str]

    def write(self, obj: object) -> None:
        """``obj`` as one line of JSON (non-ASCII kept), flushed at once."""
        self.stream.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.stream.flush()

    def event(self, recorded: RecordedEvent) -> None:
        """A recorded event's line: a subscriber of a turn's recorder."""
        self.write(recorded.to_json())

    def call_result(self, result: CallResult) -> None:
        """The ``call_result`` line of a call that ended."""
        self.write(result.line_json())


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
    #: the atlas's warnings: the verification's and the content validator's (``warn``)
    warnings: tuple[Diagnosis, ...] = ()
    #: how many lines the call's text has before the canonical patch text: a diagnosis's
    #: ``patch_line`` counts in the canonical text until the result moves it by this
    patch_offset: int = 0
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
    #: why it failed, in the canonical patch's lines (:func:`call_diagnosis` completes it)
    diagnosis: Diagnosis | None = None

    @classmethod
    def because(cls, status: CallStatus, message: str, kind: DiagnosisKind | None = None) -> Stop:
        """A stop whose output and error are the same message, diagnosed as ``kind`` if
        given."""
        diagnosis = None if kind is None else Diagnosis(kind, _sentence(message))
        return cls(status, message, error=message, diagnosis=diagnosis)


#: The kind of a failure that no stage diagnosed, by the call's status.
_BY_STATUS: dict[CallStatus, DiagnosisKind] = {
    CallStatus.REJECTED: DiagnosisKind.REJECTED,
    CallStatus.DECLINED: DiagnosisKind.DECLINED,
    CallStatus.CANCELLED: DiagnosisKind.CANCELLED,
}
#: The statuses of a call that did not fail (no diagnosis).
_NOT_FAILED = frozenset((CallStatus.COMPLETED, CallStatus.AWAITING_APPROVAL, CallStatus.DRY_RUN))


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def call_diagnosis(progress: Progress, stop: Stop) -> Diagnosis | None:
    """The diagnosis a call's result carries: the stop's, or for a failure no stage diagnosed
    the kind its status names (``unexplained`` for an error or a failure); ``patch_line``
    moved from the canonical patch text into the call's own text."""
    if stop.status in _NOT_FAILED:
        return None
    diagnosis = stop.diagnosis
    if diagnosis is None:
        kind = _BY_STATUS.get(stop.status, DiagnosisKind.UNEXPLAINED)
        diagnosis = Diagnosis(kind, _sentence(stop.error or stop.output or stop.status))
    return shifted(diagnosis, progress.patch_offset)


def build_result(
    call_id: str,
    progress: Progress,
    stop: Stop,
    events: tuple[RecordedEvent, ...],
    turn_diff: str | None,
    requested_call_id: str | None = None,
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
        warnings=tuple(
            shifted(warning, progress.patch_offset) or warning for warning in progress.warnings
        ),
        diagnosis=call_diagnosis(progress, stop),
        selected=progress.selected,
        not_applied=progress.not_applied,
        review=stop.review,
        selectable=stop.selectable,
        requested_call_id=requested_call_id,
    )
