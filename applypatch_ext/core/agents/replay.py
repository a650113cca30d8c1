"""Replay a recorded session's apply_patch calls through the pipeline and compare the outcomes.

:func:`load_replay_source` reads a Codex rollout file (JSON Lines, :mod:`.rollout`) or a JSON
file holding Responses API items (a list of items, or an object with an ``output`` or ``input``
list). :func:`replay_rollout` runs every call in order, one pipeline :class:`~..turn.turn.Turn` per
recorded turn (the recorded ``turn_id`` and ``call_id`` are kept), against a directory, and
compares each replayed call with its recorded outcome (:func:`compare`): the status, the text
the tool produced (the success list, the error; the recorded session directory is read as the
replay directory in paths), and the changed paths of the recorded FileChange event.

A session file is untrusted data. A replay does not take the recorded approval policy, sandbox or
working directory: it runs with the options it is given (the defaults are the pipeline's:
on-request, workspace-write) in the directory its caller names (:func:`replay_cwd` refuses to
guess), and with no "approve for session" grant of the caller's session, so a file cannot write
outside that directory without someone approving it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..turn.options import Approver, CallStatus, Decision, PipelineOptions
from ..turn.result import CallResult
from ..turn.turn import Turn
from ._json import loads as json_loads
from .outputs import UNKNOWN
from .responses import ResponseItemError, output_item
from .rollout import (
    KNOWN_LINE_TYPES,
    RecordedOutcome,
    Rollout,
    RolloutCall,
    RolloutTurn,
    parse_rollout,
    rollout_from_items,
)

__all__ = [
    "Comparison",
    "ReplayError",
    "ReplayReport",
    "ReplayedCall",
    "ReplayedTurn",
    "compare",
    "load_replay_source",
    "replay_cwd",
    "replay_rollout",
]

NOT_RECORDED: Final = "not-recorded"
#: How :func:`replay_cwd`'s refusal says to replay into a copy, from a shell.
REPLAY_INTO_A_COPY: Final = (
    'copy=$(mktemp -d) && cp -a {recorded}/. "$copy" && '
    'python -m applypatch_ext replay {file} --cwd "$copy"'
)


class ReplayError(ValueError):
    """A replay that cannot start: no usable directory, no such turn, an unreadable file."""


@dataclass(frozen=True)
class Comparison:
    """How a replayed call compares with the recording: ``agrees`` is None when nothing was
    recorded; ``reasons`` say what differs (empty when it agrees)."""

    agrees: bool | None
    recorded_status: str
    replayed_status: str
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplayedCall:
    call: RolloutCall
    result: CallResult
    comparison: Comparison
    #: The output item answering the call, as the model would receive it from this pipeline.
    answer: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        recorded = self.call.recorded
        return {
            "type": "replay_call",
            "call_id": self.call.call_id,
            "turn": self.call.turn,
            "line": self.call.line,
            "form": self.call.call.form,
            "tool": self.call.call.name,
            "recorded_status": self.comparison.recorded_status,
            "replayed_status": self.comparison.replayed_status,
            "agrees": self.comparison.agrees,
            "reasons": list(self.comparison.reasons),
            "recorded_output": None if recorded is None else recorded.output,
            "replayed_output": self.result.output,
        }


@dataclass(frozen=True)
class ReplayedTurn:
    turn: RolloutTurn
    calls: tuple[ReplayedCall, ...]
    turn_diff: str


@dataclass(frozen=True)
class ReplayReport:
    rollout: Rollout
    cwd: str
    turns: tuple[ReplayedTurn, ...]

    @property
    def calls(self) -> tuple[ReplayedCall, ...]:
        return tuple(call for turn in self.turns for call in turn.calls)

    @property
    def agree(self) -> int:
        return sum(1 for c in self.calls if c.comparison.agrees is True)

    @property
    def differ(self) -> int:
        return sum(1 for c in self.calls if c.comparison.agrees is False)

    @property
    def unrecorded(self) -> int:
        return sum(1 for c in self.calls if c.comparison.agrees is None)

    @property
    def all_agree(self) -> bool:
        return self.differ == 0

    def summary_json(self) -> dict[str, Any]:
        rollout = self.rollout
        return {
            "type": "replay_summary",
            "source": rollout.source,
            "session_id": rollout.session_id,
            "cli_version": rollout.cli_version,
            "recorded_cwd": rollout.cwd,
            "cwd": self.cwd,
            "turns": len(self.turns),
            "calls": len(self.calls),
            "agree": self.agree,
            "differ": self.differ,
            "not_recorded": self.unrecorded,
            "problems": [{"line": p.line, "message": p.message} for p in rollout.problems],
            "skipped_line_types": dict(rollout.skipped_types),
        }


def load_replay_source(path: str) -> Rollout:
    """A rollout file (JSON Lines), or a JSON file of Responses API items, read as a rollout.

    Raises ``OSError`` when the file cannot be read and :class:`ReplayError` when it is JSON of
    another shape or has no line a session file has; a rollout's bad lines are problems of the
    result, never exceptions.
    """
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        text = handle.read()
    try:
        whole = json_loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict) and not ("type" in whole and "payload" in whole):
        for key in ("output", "input", "items"):
            if isinstance(whole.get(key), list):
                return rollout_from_items(whole[key], source=path)
        raise ReplayError(
            f"{path}: a JSON object without an 'output', 'input' or 'items' list; expected a "
            "rollout (JSON Lines) or Responses API items"
        )
    if isinstance(whole, list):
        return rollout_from_items(whole, source=path)
    rollout = parse_rollout(text.split("\n"), source=path)
    if not rollout.records:
        raise ReplayError(_not_a_session(rollout))
    return rollout


def _not_a_session(rollout: Rollout) -> str:
    """Why a file none of whose lines is a session record is refused, with its first problem
    (rather than one "skipped" line per line of, say, a README)."""
    if not rollout.problems and not rollout.skipped_types:
        found = "it is empty"
    else:
        lines = "its line is" if rollout.lines == 1 else f"its {rollout.lines} lines is"
        found = f"none of {lines} a session record, a JSON object whose 'type' is " + ", ".join(
            KNOWN_LINE_TYPES
        )
        if rollout.problems:
            found += f" (line {rollout.problems[0].line}: {rollout.problems[0].message})"
    return (
        f"{rollout.source}: not a Codex session file: {found}; expected a rollout-*.jsonl file "
        "or a JSON file of Responses API items"
    )


def replay_cwd(rollout: Rollout, cwd: str | None, *, how: str = REPLAY_INTO_A_COPY) -> str:
    """The directory to replay in: ``cwd``, which the user gives; never the file's own.

    A session file is untrusted data: its recorded ``cwd`` (a victim's home, in a file "from a
    bug report") would let it choose where the replay writes. Without ``cwd`` this refuses,
    naming the recorded directory and how to replay into a copy of it: ``how``, the front
    end's commands, with ``{recorded}`` and ``{file}`` (quoted for a shell). An empty ``cwd``
    (``--cwd "$copy"`` with the variable unset) is refused too, never read as the current
    directory.
    """
    if cwd is not None:
        if not cwd.strip():
            # `--cwd "$copy"` with $copy unset: never the current directory by default
            raise ReplayError(
                f"--cwd is empty ({cwd!r}; an unset shell variable?): a replay writes only "
                "where you say; pass --cwd DIR, a copy of the project as it was before the session"
            )
        directory = os.path.abspath(cwd)
        if not os.path.isdir(directory):
            raise ReplayError(f"working directory not found: {directory}")
        return directory
    if rollout.cwd is None:
        raise ReplayError(
            f"{rollout.source} records no working directory, and a replay writes only where "
            "you say: pass --cwd DIR, a copy of the project as it was before the session"
        )
    recorded = shown_path(rollout.cwd)
    example = how.format(recorded=recorded, file=shown_path(rollout.source))
    raise ReplayError(
        f"the session was recorded in {recorded}; a replay never writes where the file says "
        "(a session file is untrusted): pass --cwd DIR, a copy of the project as it was "
        f"before the session, e.g. {example}"
    )


def shown_path(path: str) -> str:
    """A path from a file, quoted for a shell command a user may copy: its control characters
    escaped (a newline in a recorded ``cwd`` must not start a line of its own), then quoted."""
    visible = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in path
    )
    return shlex.quote(visible)


def _map_paths(text: str, recorded_cwd: str | None, cwd: str) -> str:
    if not recorded_cwd or recorded_cwd == cwd:
        return text
    return text.replace(recorded_cwd.rstrip("/") + "/", cwd.rstrip("/") + "/")


def _replayed_changes(result: CallResult) -> tuple[str, ...] | None:
    for recorded in result.events:
        event = recorded.event
        if event.type == "patch_apply_end":
            changes: dict[str, Any] = event.to_json()["changes"]
            return tuple(changes)
    return None


def _short(text: str, limit: int = 160) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def compare(
    recorded: RecordedOutcome | None, result: CallResult, recorded_cwd: str | None, cwd: str
) -> Comparison:
    """Compare one replayed call with its recording (see the module docstring)."""
    if recorded is None:
        return Comparison(None, NOT_RECORDED, result.status, ("no recorded outcome",))
    if recorded.status == UNKNOWN and not recorded.output and recorded.changes is None:
        return Comparison(None, UNKNOWN, result.status, ("the recorded outcome is empty",))
    reasons: list[str] = []
    if recorded.status != UNKNOWN and recorded.status != result.status:
        reasons.append(f"status: recorded {recorded.status}, replayed {result.status}")
    if result.status == CallStatus.COMPLETED:
        replayed_text = result.stdout
    elif result.stderr:
        replayed_text = result.stderr
    else:
        replayed_text = result.output
    recorded_text = _map_paths(recorded.output, recorded_cwd, cwd)
    if recorded.output and recorded_text != replayed_text:
        reasons.append(
            f"output: recorded {_short(recorded_text)}, replayed {_short(replayed_text)}"
        )
    event_status = recorded.event_status
    if event_status is not None and event_status not in (result.status, recorded.status):
        reasons.append(f"FileChange end status: recorded {event_status}, replayed {result.status}")
    if recorded.changes is not None:
        mine = _replayed_changes(result)
        theirs = sorted(_map_paths(path, recorded_cwd, cwd) for path in recorded.changes)
        if mine is not None and sorted(mine) != theirs:
            reasons.append(f"changed paths: recorded {theirs}, replayed {sorted(mine)}")
    return Comparison(not reasons, recorded.status, result.status, tuple(reasons))


def replay_rollout(
    rollout: Rollout,
    cwd: str,
    *,
    options: PipelineOptions | None = None,
    approver: Approver | Decision | str = Decision.DECLINE,
    turns: Sequence[int] | None = None,
    on_turn: Callable[[Turn, RolloutTurn], None] | None = None,
    on_call: Callable[[ReplayedCall], None] | None = None,
    run_call: Callable[[Turn, RolloutCall, str], CallResult] | None = None,
) -> ReplayReport:
    """Run the rollout's calls in ``cwd``, one pipeline turn per recorded turn.

    ``turns`` picks turns by their 1-based index (all by default; ``cwd`` should then hold the
    project as it was before the first picked turn). ``approver`` answers every approval
    request (declined by default). ``on_turn`` is called with each new pipeline turn before its
    first call (to subscribe to its events), ``on_call`` after each call. ``run_call(turn,
    call, text)`` runs one call instead of ``turn.run`` (a front end that streams the text into
    its own view); it must run ``text`` as a call of ``turn`` with the recorded ``call_id``, a
    shell command only for a shell call (``RolloutCall.call.shell_forms``).

    A replay starts with no grants: no "approve for session" of the caller's session reaches
    it (an untrusted file would write a path granted for the user's own work without asking).
    An "approve for session" answered during the replay holds for its later calls and turns,
    and is forgotten when it ends: an undo of a replayed call asks again.
    """
    wanted = list(turns) if turns is not None else [t.index for t in rollout.turns]
    known = {t.index for t in rollout.turns}
    for index in wanted:
        if index not in known:
            valid = f"1 to {len(rollout.turns)}" if rollout.turns else "none: it has no turn"
            raise ReplayError(f"{rollout.source} has no turn {index} (turns: {valid})")
    approvals: set[tuple[str, str]] = set()  # the replay's own grants (see above)
    replayed_turns = []
    try:
        for recorded_turn in rollout.turns:
            if recorded_turn.index not in wanted:
                continue
            turn = Turn(
                cwd,
                options=options,
                turn_id=recorded_turn.turn_id or f"turn-{recorded_turn.index}",
                session_approvals=approvals,
            )
            if on_turn is not None:
                on_turn(turn, recorded_turn)
            replayed = []
            for call in recorded_turn.calls:
                try:
                    text = call.call.pipeline_text(rollout.cwd)
                except ResponseItemError as exc:
                    text = f"*** Begin Patch\n*** {exc}"  # parses as an error naming the reason
                if run_call is not None:
                    result = run_call(turn, call, text)
                else:
                    result = turn.run(
                        text, approver, call_id=call.call_id, shell_forms=call.call.shell_forms
                    )
                comparison = compare(call.recorded, result, rollout.cwd, cwd)
                entry = ReplayedCall(call, result, comparison, output_item(call.call, result))
                replayed.append(entry)
                if on_call is not None:
                    on_call(entry)
            replayed_turns.append(ReplayedTurn(recorded_turn, tuple(replayed), turn.turn_diff()))
    finally:
        approvals.clear()
    return ReplayReport(rollout, cwd, tuple(replayed_turns))
