"""Read a Codex session file (``rollout-*.jsonl``): its turns, apply_patch calls and outcomes.

Codex writes one JSON object a line, ``{"timestamp", "type", "payload"}``, with ``type`` one of
``session_meta`` (the session's ``id``, ``cwd``, ``cli_version``), ``turn_context`` (the turn's
``cwd``, ``approval_policy``, ``sandbox_policy``, and from 0.147 on its ``turn_id``),
``response_item`` (a Responses API item: messages, tool calls, their outputs), ``event_msg``
(protocol events: ``task_started``, ``user_message``, ``patch_apply_end``, ``item_completed``
...) and ``compacted`` (a summary replacing earlier history). Newer versions add line types such
as ``world_state`` or ``token_usage_record``; unknown types are counted and skipped.

Turns. 0.147 and later start a turn with an ``event_msg`` ``task_started`` (and a
``turn_context`` carrying the same ``turn_id``); older versions (0.47) repeat ``turn_context``
before every model request without a ``turn_id``, so there a turn starts at the ``user_message``
event. A file is read in the first way as soon as it shows a ``turn_id``.

Calls are found in order with :func:`~.responses.patch_call_from_item` (custom tool, function
tool, built-in tool, shell commands that invoke apply_patch). Each call's recorded outcome is
read from its output item and, when present, its ``patch_apply_end`` event (0.147) or
``item_completed`` ``FileChange`` event (0.163). Outputs come in two shapes: ``Exit code: N\\n
Wall time: ...\\nOutput:\\n...`` (0.147/0.163; ``exec_command`` wraps it once more in
``Wall time: ...\\nOutput:\\n``) and a JSON string ``{"output": ..., "metadata":
{"exit_code": N}}`` (0.47); a verification error is the bare ``apply_patch verification failed:
...`` text in every version.

A malformed line (not JSON, not an object, no ``type``/``payload``, an apply_patch call that
cannot be read) is recorded as a :class:`RolloutProblem` with its line number and skipped.
Reading never touches anything but the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..turn.options import CallStatus
from ._json import loads as json_loads
from .outputs import UNKNOWN, output_text, status_of, unwrap_output
from .responses import PatchCall, ResponseItemError, patch_call_from_item

__all__ = [
    "KNOWN_LINE_TYPES",
    "RecordedOutcome",
    "Rollout",
    "RolloutCall",
    "RolloutProblem",
    "RolloutTurn",
    "parse_rollout",
    "read_rollout",
    "rollout_from_items",
    "unwrap_output",
]

KNOWN_LINE_TYPES: Final = (
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
)
OUTPUT_TYPES: Final = (
    "function_call_output",
    "custom_tool_call_output",
    "apply_patch_call_output",
    "local_shell_call_output",
)


@dataclass(frozen=True)
class RolloutProblem:
    """A line that could not be read: 1-based ``line`` number and what was wrong."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class RecordedOutcome:
    """What Codex recorded for a call.

    ``status`` is one of the pipeline's statuses (``completed``, ``failed``, ``error`` for a
    verification error, ``declined``, ``rejected``) or ``unknown``; ``output`` is the innermost
    text the tool produced (the success list, the error text), ``exit_code`` when stated;
    ``event_status`` and ``changes`` (absolute paths) come from the ``patch_apply_end`` /
    ``item_completed`` event when there is one. ``line`` is the output item's line.
    """

    status: str
    output: str
    raw_output: str
    exit_code: int | None = None
    line: int = 0
    event_status: str | None = None
    event_line: int | None = None
    event_stdout: str | None = None
    event_stderr: str | None = None
    changes: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "output": self.output,
            "exit_code": self.exit_code,
            "line": self.line,
            "event_status": self.event_status,
            "event_line": self.event_line,
            "changes": None if self.changes is None else list(self.changes),
        }


@dataclass(frozen=True)
class RolloutCall:
    """One apply_patch call of the session, at ``line``, in turn ``turn`` (1-based)."""

    call: PatchCall
    line: int
    turn: int
    recorded: RecordedOutcome | None = None

    @property
    def call_id(self) -> str:
        return self.call.call_id


@dataclass(frozen=True)
class RolloutTurn:
    """One user turn: its 1-based ``index``, Codex's ``turn_id`` (None before 0.147), the line
    that started it, its recorded context (``cwd``, ``approval_policy``, ``sandbox_policy``)."""

    index: int
    turn_id: str | None
    line: int
    cwd: str | None = None
    approval_policy: str | None = None
    sandbox_policy: Any = None
    calls: tuple[RolloutCall, ...] = ()


@dataclass(frozen=True)
class Rollout:
    """A read session file."""

    source: str
    session_id: str | None
    cwd: str | None
    cli_version: str | None
    turns: tuple[RolloutTurn, ...]
    problems: tuple[RolloutProblem, ...] = ()
    skipped_types: Mapping[str, int] = field(default_factory=dict)
    lines: int = 0
    compacted: int = 0
    #: the lines (the items, for Responses API items) that are records of a session: a JSON
    #: object with a known ``type`` (none: the file is not a session file)
    records: int = 0

    @property
    def calls(self) -> tuple[RolloutCall, ...]:
        return tuple(call for turn in self.turns for call in turn.calls)


def _event_status(payload: Mapping[str, Any]) -> str | None:
    status = payload.get("status")
    if isinstance(status, str):
        return status
    success = payload.get("success")
    if isinstance(success, bool):
        return CallStatus.COMPLETED if success else CallStatus.FAILED
    return None


@dataclass
class _TurnBuilder:
    index: int
    turn_id: str | None
    line: int
    cwd: str | None = None
    approval_policy: str | None = None
    sandbox_policy: Any = None
    calls: list[str] = field(default_factory=list)
    started: bool = False  # False for the lines before the first turn start


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.cli_version: str | None = None
        self.problems: list[RolloutProblem] = []
        self.skipped: dict[str, int] = {}
        self.turns: list[_TurnBuilder] = []
        self.calls: dict[str, tuple[PatchCall, int, int]] = {}
        self.order: list[str] = []
        self.outputs: dict[str, tuple[Any, int, Any]] = {}
        self.events: dict[str, tuple[Mapping[str, Any], int]] = {}
        self.with_turn_ids = False
        self.compacted = 0
        self.count = 0
        self.records = 0

    def turn(self, line: int) -> _TurnBuilder:
        if not self.turns:
            self.turns.append(_TurnBuilder(1, None, line, cwd=self.cwd))
        return self.turns[-1]

    def start_turn(self, turn_id: str | None, line: int) -> _TurnBuilder:
        current = self.turns[-1] if self.turns else None
        if current is not None and (
            (not current.started and not current.calls)
            or (turn_id is not None and current.turn_id == turn_id)
        ):
            # The lines before the first turn start belong to it; a task_started and the
            # turn_context of the same turn_id start one turn. A turn without calls still
            # counts, so that the numbers are the session's.
            if not current.started:
                current.line = line
                current.started = True
            current.turn_id = turn_id or current.turn_id
            return current
        builder = _TurnBuilder(len(self.turns) + 1, turn_id, line, cwd=self.cwd, started=True)
        if current is not None:
            builder.cwd = current.cwd
            builder.approval_policy = current.approval_policy
            builder.sandbox_policy = current.sandbox_policy
        self.turns.append(builder)
        return builder

    def read_line(self, number: int, text: str) -> None:
        self.count = number
        if not text.strip():
            return
        try:
            record = json_loads(text)
        except ValueError as exc:
            self.problems.append(RolloutProblem(number, f"not JSON ({exc})"))
            return
        if not isinstance(record, dict):
            found = type(record).__name__
            self.problems.append(RolloutProblem(number, f"expected a JSON object, got {found}"))
            return
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(kind, str):
            self.problems.append(
                RolloutProblem(
                    number, "no string 'type' (valid: " + ", ".join(KNOWN_LINE_TYPES) + ")"
                )
            )
            return
        if kind not in KNOWN_LINE_TYPES:
            self.skipped[kind] = self.skipped.get(kind, 0) + 1
            return
        self.records += 1
        if not isinstance(payload, dict):
            self.problems.append(RolloutProblem(number, f"{kind} line without an object payload"))
            return
        getattr(self, f"on_{kind}")(number, payload)

    def on_session_meta(self, number: int, payload: Mapping[str, Any]) -> None:
        meta = payload.get("meta") if isinstance(payload.get("meta"), dict) else payload
        assert isinstance(meta, Mapping)
        if isinstance(meta.get("id"), str):
            self.session_id = meta["id"]
        if isinstance(meta.get("cwd"), str):
            self.cwd = meta["cwd"]
            for builder in self.turns:
                builder.cwd = builder.cwd or self.cwd
        if isinstance(meta.get("cli_version"), str):
            self.cli_version = meta["cli_version"]

    def on_turn_context(self, number: int, payload: Mapping[str, Any]) -> None:
        turn_id = payload.get("turn_id")
        if isinstance(turn_id, str):
            self.with_turn_ids = True
            current = self.turns[-1] if self.turns else None
            builder = (
                current
                if current is not None and current.turn_id == turn_id
                else self.start_turn(turn_id, number)
            )
        else:
            builder = self.turn(number)
        if isinstance(payload.get("cwd"), str):
            builder.cwd = payload["cwd"]
        if isinstance(payload.get("approval_policy"), str):
            builder.approval_policy = payload["approval_policy"]
        if "sandbox_policy" in payload:
            builder.sandbox_policy = payload["sandbox_policy"]

    def on_compacted(self, number: int, payload: Mapping[str, Any]) -> None:
        # The history it replaces was read already: nothing to replay twice.
        self.compacted += 1

    def on_event_msg(self, number: int, payload: Mapping[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "task_started" or kind == "turn_started":
            turn_id = payload.get("turn_id")
            self.with_turn_ids = True
            self.start_turn(turn_id if isinstance(turn_id, str) else None, number)
        elif kind == "user_message" and not self.with_turn_ids:
            self.start_turn(None, number)
        elif kind == "patch_apply_end":
            call_id = payload.get("call_id")
            if isinstance(call_id, str):
                self.events[call_id] = (payload, number)
        elif kind == "item_completed":
            item = payload.get("item")
            if isinstance(item, dict) and item.get("type") == "FileChange":
                call_id = item.get("id")
                if isinstance(call_id, str):
                    self.events[call_id] = (item, number)

    def on_response_item(self, number: int, payload: Mapping[str, Any]) -> None:
        kind = payload.get("type")
        if kind in OUTPUT_TYPES:
            call_id = payload.get("call_id") or payload.get("id")
            if isinstance(call_id, str):
                self.outputs[call_id] = (payload.get("output"), number, payload.get("status"))
            return
        try:
            call = patch_call_from_item(payload)
        except ResponseItemError as exc:
            self.problems.append(RolloutProblem(number, f"{exc} (call skipped)"))
            return
        if call is None:
            return
        if call.call_id in self.calls:
            self.problems.append(
                RolloutProblem(number, f"call_id {call.call_id!r} seen twice (second skipped)")
            )
            return
        builder = self.turn(number)
        builder.calls.append(call.call_id)
        self.calls[call.call_id] = (call, number, builder.index)
        self.order.append(call.call_id)

    def recorded(self, call_id: str) -> RecordedOutcome | None:
        output = self.outputs.get(call_id)
        event = self.events.get(call_id)
        if output is None and event is None:
            return None
        event_fields: dict[str, Any] = {}
        if event is not None:
            payload, line = event
            changes = payload.get("changes")
            stdout, stderr = payload.get("stdout"), payload.get("stderr")
            event_fields = {
                "event_status": _event_status(payload),
                "event_line": line,
                "event_stdout": stdout if isinstance(stdout, str) else None,
                "event_stderr": stderr if isinstance(stderr, str) else None,
                "changes": tuple(changes) if isinstance(changes, dict) else None,
            }
        if output is None:
            status = str(event_fields.get("event_status") or UNKNOWN)
            text = str(event_fields.get("event_stdout") or event_fields.get("event_stderr") or "")
            return RecordedOutcome(status, text, "", **event_fields)
        raw, line, item_status = output
        text, exit_code = unwrap_output(raw)
        status = status_of(text, exit_code, item_status)
        return RecordedOutcome(status, text, output_text(raw), exit_code, line=line, **event_fields)

    def build(self) -> Rollout:
        turns = []
        for builder in self.turns:
            calls = []
            for call_id in builder.calls:
                call, line, index = self.calls[call_id]
                calls.append(RolloutCall(call, line, index, self.recorded(call_id)))
            turns.append(
                RolloutTurn(
                    builder.index,
                    builder.turn_id,
                    builder.line,
                    builder.cwd,
                    builder.approval_policy,
                    builder.sandbox_policy,
                    tuple(calls),
                )
            )
        return Rollout(
            self.source,
            self.session_id,
            self.cwd,
            self.cli_version,
            tuple(turns),
            tuple(self.problems),
            dict(self.skipped),
            self.count,
            self.compacted,
            self.records,
        )


def rollout_from_items(items: Iterable[Any], source: str = "<items>") -> Rollout:
    """A one-turn "rollout" from Responses API items (output items, or a request's input
    items; dicts or the ``openai`` package's typed objects): the calls in order, each with its
    output item among ``items`` when there is one. Item ``n`` (1-based) counts as line ``n``;
    items that are not objects are problems."""
    reader = _Reader(source)
    for number, item in enumerate(items, 1):
        reader.count = number
        dump = getattr(item, "model_dump", None)
        if not isinstance(item, Mapping) and callable(dump):
            item = dump()  # a typed object of the openai package (pydantic)
        if isinstance(item, Mapping):
            reader.records += 1
            reader.on_response_item(number, item)
        else:
            kind = type(item).__name__
            reader.problems.append(RolloutProblem(number, f"expected an item object, got {kind}"))
    return reader.build()


def parse_rollout(lines: Iterable[str], source: str = "<rollout>") -> Rollout:
    """Read rollout lines (with or without their newlines)."""
    reader = _Reader(source)
    for number, line in enumerate(lines, 1):
        reader.read_line(number, line)
    return reader.build()


def read_rollout(path: str) -> Rollout:
    """Read a rollout file; raises ``OSError`` when it cannot be opened, never for its content."""
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        return parse_rollout(handle.read().split("\n"), source=path)
