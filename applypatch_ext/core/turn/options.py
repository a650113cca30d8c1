"""The vocabulary of a call (statuses, stages, decisions) and its options."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum
from typing import Any, TypeAlias

from ..apply.content_check import ContentValidator, InvalidContent
from ..apply.fs import resolve_path
from ..apply.transaction import Transaction
from ..apply.verify import DuplicatePaths
from ..text import LineEndings
from .events import ApplyPatchApprovalRequest, PatchApplyStatus
from .faults import FaultSpecError, parse_fault
from .policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from .preview import DEFAULT_THROTTLE


class CallStatus(StrEnum):
    """How a call ended (or that it waits): the FileChange end statuses (docs/behaviour.md
    section 6.4) plus the outcomes that never reach an end event."""

    COMPLETED = PatchApplyStatus.COMPLETED.value
    FAILED = PatchApplyStatus.FAILED.value
    DECLINED = PatchApplyStatus.DECLINED.value
    #: a safety Reject or a blocking hook: no begin/end events
    REJECTED = "rejected"
    #: a parse, environment or verification error: no begin/end events
    ERROR = "error"
    #: a begin without an end (an interrupt, a cancelled token)
    CANCELLED = "cancelled"
    #: stopped at an approval request; ``resume`` goes on
    AWAITING_APPROVAL = "awaiting-approval"
    #: parsed, verified and assessed; nothing written
    DRY_RUN = "dry-run"

    @property
    def terminal(self) -> bool:
        """The call will not change any more."""
        return self is not CallStatus.AWAITING_APPROVAL

    @property
    def ended(self) -> bool:
        """The call emitted a FileChange end event (its status is the end event's)."""
        return self.value in PatchApplyStatus.__members__.values()

    @property
    def may_have_written(self) -> bool:
        """Something may have been written: the attempt ran, at least in part."""
        return self in (CallStatus.COMPLETED, CallStatus.FAILED, CallStatus.CANCELLED)


class Stage(StrEnum):
    """The stages of a call, in order (a front end shows its progress with them)."""

    STREAMING = "streaming"
    PARSING = "parsing"
    VERIFYING = "verifying"
    SAFETY = "safety"
    WAITING_FOR_APPROVAL = "waiting for approval"
    APPLYING = "applying"
    DONE = "done"


class Decision(StrEnum):
    """An answer to an approval request (Codex's ``ReviewDecision``)."""

    APPROVE = "approve"
    APPROVE_FOR_SESSION = "approve-for-session"
    DECLINE = "decline"

    @property
    def approved(self) -> bool:
        return self is not Decision.DECLINE


Approver: TypeAlias = Callable[[ApplyPatchApprovalRequest], "Decision | str"]


def as_approver(answer: Approver | Decision | str | None) -> Approver | None:
    """A callable approver from a callable, a fixed answer, or None (stop and wait)."""
    if answer is None or callable(answer):
        return answer
    fixed = Decision(answer)
    return lambda _request: fixed


@dataclass(frozen=True)
class PipelineOptions:
    """Every knob of a call; the defaults follow Codex, improved where upstream improved."""

    approval_policy: ApprovalPolicy = field(default_factory=ApprovalPolicy)
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy.from_environment)
    line_endings: LineEndings = LineEndings.PRESERVE
    duplicates: DuplicatePaths = DuplicatePaths.REJECT
    transaction: Transaction = Transaction.NONE
    streaming_events: bool = True
    throttle: float = DEFAULT_THROTTLE
    faults: tuple[str, ...] = ()
    #: Checks the content each Add/Update would leave (see content_check); None checks nothing.
    content_validator: ContentValidator | None = None
    #: What an objection does: refuse (a verification error) or warn (apply anyway).
    invalid_content: InvalidContent = InvalidContent.REFUSE

    def with_(self, **changes: Any) -> PipelineOptions:
        return replace(self, **changes)

    @classmethod
    def from_strings(
        cls,
        cwd: str,
        *,
        approval_policy: str = "on-request",
        sandbox: str = "workspace-write",
        writable_roots: Sequence[str] = (),
        exclude_tmp: bool = False,
        line_endings: str = "preserve",
        duplicates: str = "reject",
        transaction: str = "none",
        throttle_ms: int = 500,
        faults: Sequence[str] = (),
    ) -> PipelineOptions:
        """Options from the texts a user types (the magic's and the ``turn`` command's options).

        Relative writable roots and fault paths are resolved against ``cwd``. Raises
        ``ValueError`` whose message starts with the option's name and says what is valid.
        """

        def choice(name: str, value: str, enum: type[Enum]) -> Any:
            try:
                return enum(value)
            except ValueError:
                valid = ", ".join(str(member.value) for member in enum)
                raise ValueError(f"--{name} must be one of {valid}, got {value!r}") from None

        try:
            policy = ApprovalPolicy.parse(approval_policy)
        except ValueError as exc:
            raise ValueError(f"--approval-policy: {exc}") from None
        for spec in faults:
            try:
                parse_fault(spec, cwd)
            except FaultSpecError as exc:
                raise ValueError(f"--fault: {exc}") from None
        if throttle_ms < 0:
            raise ValueError("--throttle-ms must be 0 or more")
        roots = [resolve_path(cwd, os.path.expanduser(root)) for root in writable_roots]
        return cls(
            approval_policy=policy,
            sandbox=SandboxPolicy.from_environment(
                choice("sandbox", sandbox, PermissionProfile),
                writable_roots=roots,
                include_tmp=not exclude_tmp,
                include_tmpdir_env=not exclude_tmp,
            ),
            line_endings=choice("line-endings", line_endings, LineEndings),
            duplicates=choice("duplicates", duplicates, DuplicatePaths),
            transaction=choice("transaction", transaction, Transaction),
            throttle=throttle_ms / 1000,
            faults=tuple(faults),
        )
