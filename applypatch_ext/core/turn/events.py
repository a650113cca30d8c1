"""Events of one apply_patch tool call and a recorder for a whole turn (docs/behaviour.md §6.4,
§6.5).

The Codex events keep their names and JSON shapes (each object tagged by ``type``):
``patch_apply_updated`` (streaming preview), ``patch_apply_begin``, ``patch_apply_end`` (with
``status``) and ``turn_diff``. Ours, for what Codex shows in its UI rather than in events:
``patch_safety_assessed``, ``apply_patch_approval_request``,
``apply_patch_approval_decision``, ``transaction_recovered``, ``transaction_journal_refused``,
``patch_warning`` (what to check in a call that applies) and ``patch_diagnosis`` (why a call
failed: the failure atlas, docs/diagnosis.md).

The recorder keeps every event with a monotonic time offset (the clock is injectable so that
tests need no sleeps) and notifies subscribers, which is how the widget follows a call live.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, ClassVar, TypeAlias

from ..diagnosis import Diagnosis


#: FileChange end statuses (docs/behaviour.md §6.4).
class PatchApplyStatus(StrEnum):
    """The status of a FileChange end event (Codex's ``PatchApplyStatus``)."""

    COMPLETED = "completed"
    FAILED = "failed"
    DECLINED = "declined"


class EventType(StrEnum):
    """The ``type`` of every event, Codex's names and ours (see the module docstring)."""

    PATCH_APPLY_UPDATED = "patch_apply_updated"
    PATCH_SAFETY_ASSESSED = "patch_safety_assessed"
    PATCH_APPLY_BEGIN = "patch_apply_begin"
    APPLY_PATCH_APPROVAL_REQUEST = "apply_patch_approval_request"
    APPLY_PATCH_APPROVAL_DECISION = "apply_patch_approval_decision"
    PATCH_APPLY_END = "patch_apply_end"
    TURN_DIFF = "turn_diff"
    TRANSACTION_RECOVERED = "transaction_recovered"
    TRANSACTION_JOURNAL_REFUSED = "transaction_journal_refused"
    PATCH_WARNING = "patch_warning"
    PATCH_DIAGNOSIS = "patch_diagnosis"


JsonChanges: TypeAlias = dict[str, dict[str, Any]]


class _Event:
    """JSON of an event: ``type`` first, then every field (tuples as lists)."""

    type: ClassVar[EventType]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type}
        for item in fields(self):  # type: ignore[arg-type]
            value = getattr(self, item.name)
            data[item.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True)
class PatchApplyUpdated(_Event):
    """Streaming preview: the planned changes so far, keyed by path as written."""

    call_id: str
    changes: JsonChanges

    type: ClassVar[EventType] = EventType.PATCH_APPLY_UPDATED


@dataclass(frozen=True)
class PatchSafetyAssessed(_Event):
    """Ours: the safety decision (``auto-approve``, ``ask-user``, ``reject``) and its reason."""

    call_id: str
    decision: str
    reason: str | None
    sandboxed: bool

    type: ClassVar[EventType] = EventType.PATCH_SAFETY_ASSESSED


@dataclass(frozen=True)
class PatchApplyBegin(_Event):
    """FileChange begin: the verified change map, keyed by resolved absolute path."""

    call_id: str
    turn_id: str
    auto_approved: bool
    changes: JsonChanges

    type: ClassVar[EventType] = EventType.PATCH_APPLY_BEGIN


@dataclass(frozen=True)
class ApplyPatchApprovalRequest(_Event):
    """Ours (Codex sends an approval request op): what the user is asked to approve."""

    call_id: str
    turn_id: str
    environment_id: str | None
    cwd: str
    files: tuple[str, ...]
    patch: str
    changes: JsonChanges
    reason: str | None = None
    retry: bool = False
    #: names this request among the call's (``CALL_ID:N``, N counting its requests from 1):
    #: an answer that names another one is refused (a stale message from a second tab)
    request_id: str = ""

    type: ClassVar[EventType] = EventType.APPLY_PATCH_APPROVAL_REQUEST


@dataclass(frozen=True)
class ApplyPatchApprovalDecision(_Event):
    """Ours: the answer to an approval request."""

    call_id: str
    decision: str
    retry: bool = False
    #: the hunks accepted, per path as written (True, False or chunk indexes), when the user
    #: accepted only some of them; omitted from the JSON otherwise
    accept: Mapping[str, Any] | None = None
    #: the user's reason for a decline; omitted from the JSON when none was given
    reason: str | None = None
    #: the ``request_id`` of the request it answers
    request_id: str = ""

    type: ClassVar[EventType] = EventType.APPLY_PATCH_APPROVAL_DECISION

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        for optional in ("accept", "reason"):
            if data[optional] is None:
                del data[optional]
        if "accept" in data:
            data["accept"] = dict(data["accept"])
        return data


@dataclass(frozen=True)
class PatchApplyEnd(_Event):
    """FileChange end: the same change map as begin, plus status and the attempt's output."""

    call_id: str
    turn_id: str
    stdout: str
    stderr: str
    changes: JsonChanges
    status: PatchApplyStatus

    type: ClassVar[EventType] = EventType.PATCH_APPLY_END

    @property
    def success(self) -> bool:
        return self.status == PatchApplyStatus.COMPLETED

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        data["success"] = self.success
        return data


@dataclass(frozen=True)
class TurnDiff(_Event):
    """A snapshot of the whole turn's diff (never an increment); ``""`` clears the view."""

    unified_diff: str

    type: ClassVar[EventType] = EventType.TURN_DIFF


@dataclass(frozen=True)
class _AtlasEvent(_Event):
    """A diagnosis of the failure atlas as an event: its fields, beside the call's id."""

    call_id: str
    diagnosis: Diagnosis

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "call_id": self.call_id, **self.diagnosis.to_json()}


@dataclass(frozen=True)
class PatchWarning(_AtlasEvent):
    """Ours: something to check in a call that applies (a warning of the failure atlas: a pure
    addition sent to the end of the file, a fuzzy match, lines that occur twice, content the
    validator objected to and that is applied anyway)."""

    type: ClassVar[EventType] = EventType.PATCH_WARNING


@dataclass(frozen=True)
class PatchDiagnosis(_AtlasEvent):
    """Ours: why the call failed and where (the failure atlas), sent as it ends; the
    reference's texts are unchanged, this is beside them."""

    type: ClassVar[EventType] = EventType.PATCH_DIAGNOSIS


@dataclass(frozen=True)
class TransactionRecovered(_Event):
    """Ours: before running, the call found the journal of an atomic call that did not finish
    (its process was killed) in ``cwd`` and put the tree back as it was before that call.

    ``restored``: files and symlinks put back; ``removed``: what that call had created (a
    directory ends in ``/``); ``failures``: ``"PATH: reason"`` for what could not be restored
    (the journal is then kept and the call does not run); ``skipped``: ``"PATH: reason"`` for
    paths the journal names that the interrupted call could not change, left as they are.
    """

    call_id: str
    cwd: str
    journal: str
    interrupted_call_id: str | None
    restored: tuple[str, ...]
    removed: tuple[str, ...]
    failures: tuple[str, ...]
    skipped: tuple[str, ...] = ()

    type: ClassVar[EventType] = EventType.TRANSACTION_RECOVERED


@dataclass(frozen=True)
class TransactionJournalRefused(_Event):
    """Ours: before running, the call found a journal in ``cwd``'s place that this program did
    not write, or that fails a check (``reason``): nothing was restored from it, it was moved
    aside to ``moved_to`` (None: it could not be, ``move_error`` says why), and the call goes
    on."""

    call_id: str
    cwd: str
    journal: str
    reason: str
    moved_to: str | None
    move_error: str | None = None

    type: ClassVar[EventType] = EventType.TRANSACTION_JOURNAL_REFUSED


Event: TypeAlias = (
    PatchApplyUpdated
    | PatchSafetyAssessed
    | PatchWarning
    | PatchDiagnosis
    | PatchApplyBegin
    | ApplyPatchApprovalRequest
    | ApplyPatchApprovalDecision
    | PatchApplyEnd
    | TurnDiff
    | TransactionRecovered
    | TransactionJournalRefused
)


@dataclass(frozen=True)
class RecordedEvent:
    """An event with its time offset (seconds since the recorder started)."""

    time: float
    event: Event

    def to_json(self) -> dict[str, Any]:
        return {**self.event.to_json(), "time": round(self.time, 6)}


Clock = Callable[[], float]
Subscriber = Callable[[RecordedEvent], None]


@dataclass
class EventRecorder:
    """Keeps every event of a turn, in order, with monotonic time offsets."""

    clock: Clock = time.monotonic
    events: list[RecordedEvent] = field(default_factory=list)
    subscribers: list[Subscriber] = field(default_factory=list)
    start: float = field(init=False)

    def __post_init__(self) -> None:
        self.start = self.clock()

    def emit(self, event: Event) -> RecordedEvent:
        recorded = RecordedEvent(self.clock() - self.start, event)
        self.events.append(recorded)
        for subscriber in list(self.subscribers):
            subscriber(recorded)
        return recorded

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber`` for every later event; returns a function that unsubscribes."""
        self.subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self.subscribers:
                self.subscribers.remove(subscriber)

        return unsubscribe

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.events]


def changes_to_json(changes: Mapping[str, Any]) -> JsonChanges:
    """A change map (values with ``to_json``) as protocol JSON."""
    return {path: change.to_json() for path, change in changes.items()}
