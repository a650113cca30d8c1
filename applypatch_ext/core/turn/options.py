"""The vocabulary of a call (statuses, stages, decisions), the one option table of its front
ends (``OPTIONS``: the magics, ``turn`` and ``replay`` build their parsers from it; the record
type is in :mod:`.option_spec`) and :class:`PipelineOptions`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Final, TypeAlias

from ..apply.content_check import ContentValidator, InvalidContent
from ..apply.fs import resolve_path
from ..apply.transaction import Transaction
from ..apply.verify import DuplicatePaths
from ..text import LineEndings
from .events import ApplyPatchApprovalRequest, PatchApplyStatus
from .faults import FAULT_SPECS, FaultSpecError, parse_fault
from .option_spec import CHOICE_ERROR as CHOICE_ERROR  # the front ends import them from here
from .option_spec import FrontEnd as FrontEnd
from .option_spec import Option as Option
from .option_spec import OptionKind as OptionKind
from .pacing import BOUNDED_INTERVAL, BOUNDED_STEPS, MODEL_CHUNK, MODEL_DELAY, StreamPace
from .policy import (
    APPROVAL_KINDS,
    GRANULAR,
    ON_REQUEST,
    ApprovalPolicy,
    PermissionProfile,
    SandboxPolicy,
)
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


class Stage(StrEnum):
    """The stages of a call, in order (a front end shows its progress with them)."""

    STREAMING = "streaming"
    PARSING = "parsing"
    VERIFYING = "verifying"
    SAFETY = "safety"
    WAITING_FOR_APPROVAL = "waiting for approval"
    APPLYING = "applying"
    DONE = "done"


class RefusedWrites(StrEnum):
    """What a write refused before it reached the disk (the sandbox, no-follow mode) does to
    the TurnDiff: the reference calls the delta inexact and the TurnDiff is gone for the rest of
    the turn (``invalidate``); ``keep`` folds what was written, since nothing else was (the
    agent's desk, so that an agent's refused call never blanks the person's TurnDiff)."""

    INVALIDATE = "invalidate"
    KEEP = "keep"


class Decision(StrEnum):
    """An answer to an approval request (Codex's ``ReviewDecision``)."""

    APPROVE = "approve"
    APPROVE_FOR_SESSION = "approve-for-session"
    DECLINE = "decline"

    @property
    def approved(self) -> bool:
        return self is not Decision.DECLINE

    @property
    def label(self) -> str:
        """What a button or a form offering this answer says (``Approve for session``)."""
        return _DECISION_LABELS[self]


_DECISION_LABELS: Final[dict[Decision, str]] = {
    Decision.APPROVE: "Approve",
    Decision.APPROVE_FOR_SESSION: "Approve for session",
    Decision.DECLINE: "Decline",
}


#: A selection of a patch's hunks: per path as the patch writes it, True (all of it), False
#: (none of it) or the 0-based indexes of the chunks to apply; a path it does not name is not
#: applied (docs/behaviour.md §6.7).
Accept: TypeAlias = Mapping[str, "bool | Sequence[int]"]


@dataclass(frozen=True)
class Answer:
    """A full answer to an approval request: the decision, and with an approval the hunks
    accepted (None: all of them), with a decline the user's reason (docs/behaviour.md §6.7);
    ``request``, the ``request_id`` of the request it answers (None: the one pending)."""

    decision: Decision
    accept: Accept | None = None
    reason: str | None = None
    request: str | None = None

    @classmethod
    def of(cls, answer: Answer | Decision | str) -> Answer:
        if isinstance(answer, Answer):
            return answer
        return cls(Decision(answer))


Approver: TypeAlias = Callable[[ApplyPatchApprovalRequest], "Answer | Decision | str"]


def as_approver(answer: Approver | Answer | Decision | str | None) -> Approver | None:
    """A callable approver from a callable, a fixed answer, or None (stop and wait).

    A fixed :class:`Answer` with a selection answers the call's first request with it; the
    requests after it (the selection's own, a retry) get its decision alone."""
    if answer is None or callable(answer):
        return answer
    fixed = Answer.of(answer)
    if fixed.accept is None:
        return lambda _request: fixed
    plain = Answer(fixed.decision, reason=fixed.reason)
    first = [True]

    def approver(_request: ApplyPatchApprovalRequest) -> Answer:
        if first[0]:
            first[0] = False
            return fixed
        return plain

    return approver


# -- the one option table ---------------------------------------------------------------------


#: The approval policies a help lists (:meth:`ApprovalPolicy.parse` reads a few more spellings,
#: so :meth:`PipelineOptions.from_strings` checks them, not argparse).
APPROVAL_POLICIES: Final = (*APPROVAL_KINDS, str(ApprovalPolicy(GRANULAR, sandbox_approval=False)))
#: ``ask``: show the approval buttons; where nobody can be asked, decline and say so on stderr.
ASK: Final = "ask"
#: How the magic streams a cell by default (see :mod:`.pacing`).
DEFAULT_STREAM: Final = StreamPace.BOUNDED.value
_ALL = frozenset(FrontEnd)
_CALLS = frozenset((FrontEnd.MAGIC, FrontEnd.TURN))
_DESKS = frozenset((FrontEnd.DESK, FrontEnd.DESK_MAGIC))
#: what runs calls through the pipeline: the magic, ``turn`` and both desks
_PIPELINES = _CALLS | _DESKS
_REPLAYS = frozenset((FrontEnd.REPLAY, FrontEnd.REPLAY_MAGIC))


def _values(enum: type[Enum]) -> tuple[str, ...]:
    return tuple(str(member.value) for member in enum)


def _for_replays(text: str) -> tuple[tuple[FrontEnd, str], ...]:
    """A help for the replays, which take no ``--writable-root``."""
    return tuple((front_end, text) for front_end in sorted(_REPLAYS))


_SAFETY = "Safety and approval"
_BEHAVIOUR = "Behaviour"
_STREAMING = "Streaming"
_FAULTS = "Faults"
#: The group of the options that say what the call is (a front end adds its own to it).
CALL_GROUP: Final = "The call"
_DISPLAY = "Display"

OPTIONS: Final[tuple[Option, ...]] = (
    Option(
        "--cwd",
        OptionKind.VALUE,
        "Run against this directory (the primary environment).",
        CALL_GROUP,
        _CALLS,
        metavar="DIR",
        default_text="the current working directory",
    ),
    Option(
        "--cwd",
        OptionKind.VALUE,
        "Replay in this directory: a copy of the project as it was before the session. "
        "Required: the directory the session file records is never used (the file is "
        "untrusted and chooses nothing).",
        CALL_GROUP,
        _REPLAYS,
        metavar="DIR",
    ),
    Option(
        "--cwd",
        OptionKind.VALUE,
        "The desk's working directory: the patches' paths resolve there and it roots the "
        "writable roots; no client can change it.",
        CALL_GROUP,
        _DESKS,
        metavar="DIR",
        default_text="the current working directory",
    ),
    Option(
        "--port",
        OptionKind.INT,
        "The port the desk listens on, on 127.0.0.1 only (0 picks a free one).",
        CALL_GROUP,
        frozenset((FrontEnd.DESK_MAGIC,)),
        default=0,
        metavar="N",
    ),
    Option(
        "--answer-timeout",
        OptionKind.FLOAT,
        "Seconds a call waits for its approval; with no answer by then it is declined, and the "
        "model is told so.",
        _SAFETY,
        _DESKS,
        default=300.0,
        metavar="SECONDS",
    ),
    Option(
        "--approve",
        OptionKind.VALUE,
        "The answer when the client cannot ask its user (it has no MCP elicitation): decline "
        "(each declined call tells the model why) or approve, approve-for-session.",
        _SAFETY,
        frozenset((FrontEnd.DESK,)),
        default=Decision.DECLINE.value,
        choices=_values(Decision),
    ),
    Option(
        "--log",
        OptionKind.VALUE,
        "Write the JSON events (one object per line) to FILE instead of stderr.",
        _DISPLAY,
        frozenset((FrontEnd.DESK,)),
        metavar="FILE",
        default_text="stderr",
    ),
    Option(
        "--environment",
        OptionKind.APPEND,
        "A named environment, NAME=DIR (repeat for several); the first one is the primary "
        "environment.",
        CALL_GROUP,
        frozenset((FrontEnd.TURN,)),
        metavar="NAME=DIR",
    ),
    Option(
        "--turn",
        OptionKind.APPEND,
        "Replay only turn N (1-based; repeat for several); the directory should hold the "
        "project as it was before it.",
        CALL_GROUP,
        _REPLAYS,
        metavar="N",
        item_type=int,
    ),
    Option(
        "--dry-run",
        OptionKind.FLAG,
        "Parse, verify and assess safety, show the planned changes, and write nothing.",
        CALL_GROUP,
        frozenset((FrontEnd.MAGIC,)),
    ),
    Option(
        "--new-turn",
        OptionKind.FLAG,
        "Start a new turn before this call (the TurnDiff starts empty).",
        CALL_GROUP,
        frozenset((FrontEnd.MAGIC,)),
    ),
    Option(
        "--approval-policy",
        OptionKind.VALUE,
        f"When to ask for approval (Codex's AskForApproval): {', '.join(APPROVAL_POLICIES)}.",
        _SAFETY,
        _ALL,
        default=ON_REQUEST,
        metavar="POLICY",
        field="approval_policy",
    ),
    Option(
        "--sandbox",
        OptionKind.VALUE,
        "The permission profile; with workspace-write the writable roots are the working "
        "directory, the --writable-root ones and the temp dir.",
        _SAFETY,
        _ALL,
        default=PermissionProfile.WORKSPACE_WRITE.value,
        choices=_values(PermissionProfile),
        field="sandbox",
        helps=_for_replays(
            "The permission profile; with workspace-write the writable roots are the working "
            "directory and the temp dir."
        ),
    ),
    Option(
        "--writable-root",
        OptionKind.APPEND,
        "An extra writable root for workspace-write; repeat for several.",
        _SAFETY,
        _PIPELINES,
        metavar="DIR",
        field="writable_roots",
    ),
    Option(
        "--exclude-tmp",
        OptionKind.FLAG,
        "Do not count /tmp and $TMPDIR as writable roots (Codex's exclude_slash_tmp and "
        "exclude_tmpdir_env_var), so that only the working directory and --writable-root are.",
        _SAFETY,
        _ALL,
        field="exclude_tmp",
        helps=_for_replays(
            "Do not count /tmp and $TMPDIR as writable roots (Codex's exclude_slash_tmp and "
            "exclude_tmpdir_env_var), so that only the working directory is."
        ),
    ),
    Option(
        "--approve",
        OptionKind.VALUE,
        "How approval requests are answered: ask shows Approve / Approve for session / "
        "Decline buttons in a notebook, and where nobody can be asked (turn) by default each "
        "request is declined and stderr names it, so pass --approve approve to let a patch "
        "write outside the writable roots or into .git, .agents, .codex; approve, "
        "approve-for-session and decline answer every request.",
        _SAFETY,
        _CALLS,
        default=ASK,
        choices=(ASK, *_values(Decision)),
    ),
    Option(
        "--approve",
        OptionKind.VALUE,
        "The answer to every approval request (a replay runs its calls in order, so it cannot "
        "wait for a click); the replay command names each declined request on stderr.",
        _SAFETY,
        _REPLAYS,
        default=Decision.DECLINE.value,
        choices=_values(Decision),
    ),
    Option(
        "--review",
        OptionKind.FLAG,
        "Ask for approval even where the policy would auto-approve, so that every file and "
        "chunk can be reviewed (and some left out) before anything is written.",
        _SAFETY,
        _PIPELINES,
        field="review",
    ),
    Option(
        "--accept",
        OptionKind.APPEND,
        "With --approve approve or approve-for-session: apply only what is named - PATH (the "
        "whole file), PATH:0,2 (those 0-based chunks of an Update), PATH:all, PATH:none; "
        "repeat for several (a path not named is not applied). The patch of the selection is "
        "verified and assessed again, and the model is told what was left out.",
        _SAFETY,
        frozenset((FrontEnd.MAGIC,)),
        metavar="PATH[:N,M]",
    ),
    Option(
        "--reason",
        OptionKind.VALUE,
        "With --approve decline: why, told to the model after 'patch rejected by user'.",
        _SAFETY,
        frozenset((FrontEnd.MAGIC,)),
        metavar="TEXT",
    ),
    Option(
        "--line-endings",
        OptionKind.VALUE,
        "preserve keeps each untouched line's terminator; lf is the legacy normalisation to LF.",
        _BEHAVIOUR,
        _PIPELINES,
        default=LineEndings.PRESERVE.value,
        choices=_values(LineEndings),
        field="line_endings",
    ),
    Option(
        "--duplicates",
        OptionKind.VALUE,
        "Two hunks on one path: reject them, or fold them (legacy, with the gap of the safety "
        "check).",
        _BEHAVIOUR,
        _PIPELINES,
        default=DuplicatePaths.REJECT.value,
        choices=_values(DuplicatePaths),
        field="duplicates",
    ),
    Option(
        "--transaction",
        OptionKind.VALUE,
        "none keeps what was written when a change fails (Codex); atomic rolls everything back "
        "on any failure, and its write-ahead journal on disk lets the next call, or `python -m "
        "applypatch_ext recover`, restore the tree after a crash.",
        _BEHAVIOUR,
        _PIPELINES,
        default=Transaction.NONE.value,
        choices=_values(Transaction),
        field="transaction",
    ),
    Option(
        "--invalid-notebooks",
        OptionKind.VALUE,
        "What a patch that would leave an .ipynb that is not a valid notebook does: refuse makes "
        "it a verification error (nothing is written, the model is told why); warn keeps the "
        "reference behaviour (apply anyway, with a warning).",
        _BEHAVIOUR,
        _PIPELINES,
        default=InvalidContent.REFUSE.value,
        choices=_values(InvalidContent),
        field="invalid_content",
    ),
    Option(
        "--refused-writes",
        OptionKind.VALUE,
        "A write the sandbox refused before it reached the disk: invalidate empties the "
        "TurnDiff for the rest of the turn, as the reference does (it cannot tell what "
        "happened); keep folds what was written, since nothing else was, and says so.",
        _BEHAVIOUR,
        _PIPELINES,
        default=RefusedWrites.INVALIDATE.value,
        choices=_values(RefusedWrites),
        field="refused_writes",
        defaults=(
            (FrontEnd.DESK, RefusedWrites.KEEP.value),
            (FrontEnd.DESK_MAGIC, RefusedWrites.KEEP.value),
        ),
    ),
    Option(
        "--stream",
        OptionKind.VALUE,
        "How the cell streams into the preview before it runs: bounded feeds the whole cell in "
        f"about a second at most (at most {BOUNDED_STEPS} deltas, {BOUNDED_INTERVAL * 1000:g} ms "
        "apart, sized from its length; a small cell in fewer); model-speed at a model's pace "
        f"({MODEL_CHUNK} characters every {MODEL_DELAY * 1000:g} ms, at most "
        f"{MODEL_CHUNK / MODEL_DELAY:,.0f} a second: a 1,300-line cell takes a minute or more); "
        "none runs it at once.",
        _STREAMING,
        frozenset((FrontEnd.MAGIC,)),
        default=DEFAULT_STREAM,
        choices=_values(StreamPace),
    ),
    Option(
        "--stream-chunk",
        OptionKind.INT,
        "Feed the patch to the pipeline in deltas of N characters (0 feeds it whole).",
        _STREAMING,
        _CALLS,
        default=0,
        metavar="N",
        defaults=((FrontEnd.MAGIC, None),),
        default_text="the --stream pace's",
    ),
    Option(
        "--stream-delay",
        OptionKind.FLOAT,
        "Pause between two deltas instead of the --stream pace's (0 for no pause).",
        _STREAMING,
        frozenset((FrontEnd.MAGIC,)),
        metavar="SECONDS",
        default_text="the --stream pace's",
    ),
    Option(
        "--throttle-ms",
        OptionKind.INT,
        "Minimum interval between two preview (PatchApplyUpdated) events, in milliseconds, as "
        "in Codex (0 sends every change).",
        _STREAMING,
        _PIPELINES,
        default=round(DEFAULT_THROTTLE * 1000),
        metavar="N",
        field="throttle_ms",
    ),
    Option(
        "--fault",
        OptionKind.APPEND,
        f"Inject a fault: {', '.join(spec for spec, _ in FAULT_SPECS)} (the fault specs below); "
        "repeat for several.",
        _FAULTS,
        _PIPELINES,
        metavar="SPEC",
        field="faults",
    ),
    Option(
        "--no-widget",
        OptionKind.FLAG,
        "Show rich output (HTML, Markdown, text) instead of the live widget.",
        _DISPLAY,
        frozenset((FrontEnd.MAGIC,)),
    ),
    Option(
        "--no-widget",
        OptionKind.FLAG,
        "Show the summary table instead of the step-through widget.",
        _DISPLAY,
        frozenset((FrontEnd.REPLAY_MAGIC,)),
    ),
)


def options_of(front_end: FrontEnd) -> tuple[Option, ...]:
    """The options of ``front_end``, in the table's order."""
    return tuple(option for option in OPTIONS if front_end in option.front_ends)


def argument_groups(
    front_end: FrontEnd,
    types: Mapping[str, Callable[[str], Any]] | None = None,
    own: tuple[Option, ...] = (),
) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """``(group title, [(option name, add_argument keywords)])`` for ``front_end``, groups in
    the order they first appear in the table; ``types`` gives some options a converter; ``own``
    are options the front end keeps itself (the magic's ``--exercise``), after the table's in
    their groups (they feed no :class:`PipelineOptions` field)."""
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for option in (*options_of(front_end), *own):
        kwargs = option.argparse_kwargs(front_end)
        if types and option.name in types:
            kwargs["type"] = types[option.name]
        groups.setdefault(option.group, []).append((option.name, kwargs))
    return list(groups.items())


def add_arguments(
    parser: argparse.ArgumentParser,
    front_end: FrontEnd,
    types: Mapping[str, Callable[[str], Any]] | None = None,
) -> None:
    """Add the options of ``front_end`` to an argparse parser, in argument groups."""
    for title, entries in argument_groups(front_end, types):
        group = parser.add_argument_group(title)
        for name, kwargs in entries:
            group.add_argument(name, **kwargs)


#: The defaults of :meth:`PipelineOptions.from_strings`, from the table.
_FIELD_DEFAULTS: Final[dict[str, Any]] = {
    option.field: () if option.kind is OptionKind.APPEND else option.default
    for option in OPTIONS
    if option.field is not None
}


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
    #: Ask for approval even where the policy would auto-approve (``--review``).
    review: bool = False
    #: What a write refused before it reached the disk does to the TurnDiff.
    refused_writes: RefusedWrites = RefusedWrites.INVALIDATE

    @classmethod
    def from_strings(
        cls,
        cwd: str,
        *,
        approval_policy: str = _FIELD_DEFAULTS["approval_policy"],
        sandbox: str = _FIELD_DEFAULTS["sandbox"],
        writable_roots: Sequence[str] = (),
        exclude_tmp: bool = False,
        line_endings: str = _FIELD_DEFAULTS["line_endings"],
        duplicates: str = _FIELD_DEFAULTS["duplicates"],
        transaction: str = _FIELD_DEFAULTS["transaction"],
        throttle_ms: int = _FIELD_DEFAULTS["throttle_ms"],
        faults: Sequence[str] = (),
        invalid_content: str = _FIELD_DEFAULTS["invalid_content"],
        review: bool = False,
        refused_writes: str = _FIELD_DEFAULTS["refused_writes"],
    ) -> PipelineOptions:
        """Options from the texts a user types (the defaults are the option table's).

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
            invalid_content=choice("invalid-notebooks", invalid_content, InvalidContent),
            review=bool(review),
            refused_writes=choice("refused-writes", refused_writes, RefusedWrites),
        )

    @classmethod
    def from_namespace(cls, cwd: str, args: argparse.Namespace) -> PipelineOptions:
        """Options from the parsed namespace of any front end (the magic, ``turn``,
        ``replay``): every option of the table that feeds :meth:`from_strings` and that the
        front end has. Raises ``ValueError`` naming the option, as :meth:`from_strings`."""
        given = vars(args)
        values: dict[str, Any] = {}
        for option in OPTIONS:
            if option.field is None or option.dest not in given:
                continue
            value = given[option.dest]
            values[option.field] = (
                () if value is None and option.kind is OptionKind.APPEND else value
            )
        return cls.from_strings(cwd, **values)
