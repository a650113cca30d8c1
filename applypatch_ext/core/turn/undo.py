"""Undo, redo and the history of a turn (docs/behaviour.md §11).

Every call that committed changes can be undone: the inverse of its committed delta, read as
each file's state before the call and as the call left it (:func:`~..apply.revert.file_states`).
An undo is a call of the turn (:class:`UndoCall`), through the same pipeline as a patch: its
description as a patch streams into the preview, its check is its verification (a file that
changed since the call is a :class:`Conflict`: nothing is written), then safety, the FileChange
begin event, approval, the attempts (sandboxed like any call, journaled when atomic), the end
event and the TurnDiff. What it writes are the recorded bytes and modes
(:func:`~..apply.revert.apply_steps`), not the patch text, which cannot say them all.

A redo takes the files an undo put back to the state the call left them, with the same check.
:mod:`.history` gives the turn's calls as data for a front end; :mod:`..apply.inverse` the
undo's description as a patch.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..apply.fs import Filesystem, normalize_path
from ..apply.inverse import change_map, describe
from ..apply.revert import (
    FileRecord,
    FileState,
    RevertStep,
    apply_steps,
    describe_paths,
    file_states,
    read_state,
)
from ..apply.runtime import ApplyOutcome
from ..errors import ParseError
from ..interrupts import CancellationToken
from ..parse.model import Hunk
from ..parse.parser import parse_patch
from .options import Answer, Approver, CallStatus, Decision, PipelineOptions, Stage
from .result import CallResult, Stop
from .safety import Reject
from .stages import VERIFICATION_FAILED, Ending, Prepared
from .turn import ApplyPatchCall, Turn

Kind = Literal["undo", "redo"]


class UndoError(ValueError):
    """An undo or redo that cannot be asked for: unknown call, nothing to undo, an inexact
    delta without a pick of its known files. The message says what is valid; ``offered``
    are the files that can be picked (absolute paths), when some can."""

    def __init__(self, message: str, offered: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.offered = tuple(offered)


@dataclass(frozen=True)
class Conflict:
    """A file that is not as the undo expects it: the three versions.

    ``before``: before the call; ``left``: as the call left it; ``now``: on disk now (None when
    it cannot be read as a text file: a directory, a symlink, binary). ``path`` as the patch
    writes it, ``abs_path`` resolved.
    """

    path: str
    abs_path: str
    before: FileState
    left: FileState
    now: FileState | None
    kind: Kind = "undo"

    def reason(self) -> str:
        expected = "as the call left it" if self.kind == "undo" else "as the undo left it"
        now = "unreadable as text" if self.now is None else self.now.describe()
        return f"{self.path} is not {expected}: now {now}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "abs_path": self.abs_path,
            "kind": self.kind,
            "reason": self.reason(),
            "before": self.before.to_json(),
            "left": self.left.to_json(),
            "now": None if self.now is None else self.now.to_json(),
        }


def conflict_message(conflicts: Sequence[Conflict], kind: Kind, target: str) -> str:
    lines = [f"{kind} of {target}: {len(conflicts)} file(s) changed since; nothing was written"]
    lines += [f"  {c.reason()}" for c in conflicts]
    lines.append(
        f"{kind} only the other files (only=[...], --only PATH), or overwrite them (force=True, "
        "--force)"
    )
    return "\n".join(lines)


def later_message(
    conflicts: Sequence[Conflict], later: dict[str, ApplyPatchCall], kind: Kind, target: str
) -> str:
    """Why ``force`` does not overwrite a file a later turn's call changed, and the way on."""
    lines = [
        f"{kind} of {target}: {len(conflicts)} file(s) changed since by a later turn; "
        "--force does not overwrite those, nothing was written"
    ]
    for c in conflicts:
        call = later[c.abs_path]
        lines.append(f"  {c.path}: changed by {call.call_id} of {call.turn.turn_id}")
    lines.append(
        "undo those calls first, in their turn (%apply_patch_undo CALL_ID --turn TURN), or "
        f"{kind} the other files only (only=[...], --only PATH): each turn's diff then still "
        "says what its calls did"
    )
    return "\n".join(lines)


# -- what a call changed, and what is undone ----------------------------------------------------


def changed_later(later: Iterable[Turn], paths: Iterable[str]) -> dict[str, ApplyPatchCall]:
    """Which of ``paths`` a call of the ``later`` turns changed: the last such call of each."""
    wanted = set(paths)
    found: dict[str, ApplyPatchCall] = {}
    for turn in later:
        for call in turn.calls:
            for path in call_records(call):
                if path in wanted:
                    found[path] = call
    return found


def _a(kind: Kind) -> str:
    """``an undo``, ``a redo``."""
    return "an undo" if kind == "undo" else "a redo"


def _is_undo(call: ApplyPatchCall) -> bool:
    return isinstance(call, UndoCall)


def call_records(call: ApplyPatchCall) -> dict[str, FileRecord]:
    """The files ``call`` changed (none until it has a result)."""
    if call.result is None:
        return {}
    return file_states(call.result.delta)


def undone_paths(turn: Turn, call_id: str) -> set[str]:
    """The paths of ``call_id`` an undo put back and no redo took forward again."""
    undone: set[str] = set()
    for call in turn.calls:
        if not isinstance(call, UndoCall) or call.target_id != call_id:
            continue
        if call.kind == "undo":
            undone |= call.settled
        else:
            undone -= call.settled
    return undone


def _find(turn: Turn, call_id: str) -> ApplyPatchCall:
    for call in turn.calls:
        if call.call_id == call_id:
            return call
    known = ", ".join(c.call_id for c in turn.calls if not _is_undo(c)) or "none yet"
    raise UndoError(f"no call {call_id!r} in {turn.turn_id}; its calls: {known}")


def default_target(turn: Turn, kind: Kind) -> ApplyPatchCall:
    if kind == "undo":
        for call in reversed(turn.calls):
            if _is_undo(call):
                continue
            records = call_records(call)
            if set(records) - undone_paths(turn, call.call_id):
                return call
        raise UndoError(
            f"nothing to undo in {turn.turn_id}: no call has committed changes that are not "
            "undone yet"
        )
    for call in reversed(turn.calls):
        if isinstance(call, UndoCall) and call.kind == "undo":
            target = _find(turn, call.target_id)
            if undone_paths(turn, target.call_id):
                return target
    raise UndoError(f"nothing to redo in {turn.turn_id}: no undo is waiting to be redone")


def _resolve_only(only: Iterable[str], records: dict[str, FileRecord], cwd: str) -> set[str]:
    shown = describe_paths(records, cwd)
    picked: set[str] = set()
    for given in only:
        path = normalize_path(posixpath.join(cwd, given))
        if path not in records:
            valid = ", ".join(shown.values()) or "none"
            raise UndoError(f"{given!r} is not a file this call changed; its files: {valid}")
        picked.add(path)
    return picked


def _steps(
    records: dict[str, FileRecord], paths: set[str], kind: Kind, shown: dict[str, str]
) -> list[RevertStep]:
    """The steps, in an order that moves a file back before its destination is restored."""
    steps: list[RevertStep] = []
    ordered = list(records.values())
    if kind == "undo":
        ordered.reverse()
    for record in ordered:
        if record.path not in paths:
            continue
        if kind == "undo":
            expect, target = record.left, record.before
            move_from = None
            if not record.left.exists and record.moved_to in paths:
                move_from = record.moved_to
            dirs = tuple(reversed(record.created_dirs)) if not target.exists else ()
        else:
            expect, target, dirs = record.before, record.left, ()
            move_from = next(
                (
                    r.path
                    for r in records.values()
                    if r.moved_to == record.path and r.path in paths and record.left.exists
                ),
                None,
            )
        steps.append(
            RevertStep(record.path, shown[record.path], expect, target, False, move_from, dirs)
        )
    # A move back writes its file, then empties the destination: the step of the file that
    # comes back goes first.
    sources = {s.move_from: s for s in steps if s.move_from is not None}
    result: list[RevertStep] = []
    for step in steps:
        if step.path in sources:
            continue
        result.append(step)
        if step.move_from is not None:
            result.append(next(s for s in steps if s.path == step.move_from))
    return result


# -- the call ------------------------------------------------------------------------------------


class UndoCall(ApplyPatchCall):
    """An undo (or redo) of ``target_id``: a call of the turn whose verification is the check
    that each file is as expected, and whose writer puts back the recorded states."""

    def __init__(
        self,
        turn: Turn,
        call_id: str,
        options: PipelineOptions,
        cancel: CancellationToken,
        *,
        kind: Kind,
        target: ApplyPatchCall,
        records: dict[str, FileRecord],
        paths: set[str],
        force: bool,
        later: dict[str, ApplyPatchCall] | None = None,
    ) -> None:
        super().__init__(turn, call_id, options, cancel)
        #: the files a call of a later turn changed, with that call: ``force`` keeps off them
        self.later = dict(later or {})
        self.kind: Kind = kind
        self.target_id = target.call_id
        self.root = target.result.cwd if target.result is not None else turn.cwd
        self.records = records
        self.force = force
        self.shown = describe_paths(records, self.root)
        self.steps = _steps(records, paths, kind, self.shown)
        self.plan_paths = tuple(s.path for s in self.steps)
        self.conflicts: tuple[Conflict, ...] = ()
        #: the paths its attempts left in the state it puts them in: written, or found so
        #: (a file put back by hand), and not rolled back (docs/behaviour.md §11.5)
        self.settled: set[str] = set()
        self.patch = describe(self.steps)
        try:
            parse_patch(self.patch)
        except ParseError:
            self.patch = describe(self.steps, coarse=True)

    def finish_input(self) -> Any:
        """The undo's input is its description as a patch (streamed now unless a front end
        streamed it already)."""
        if not self.text:
            self.push_delta(self.patch)
        return super().finish_input()

    def _environment(self) -> str:
        for name, root in self.turn.environments.items():
            if root == self.root:
                return name
        return self.turn.primary

    def check(self, fs: Filesystem | None = None) -> tuple[Conflict, ...]:
        """The files that are neither as expected nor already as the undo leaves them."""
        reader = fs if fs is not None else self.turn.fs
        conflicts: list[Conflict] = []
        for step in self.steps:
            now = read_state(reader, step.path)
            if now is not None and (now.matches(step.expect) or now.matches(step.target)):
                continue
            record = self.records[step.path]
            conflicts.append(
                Conflict(step.shown, step.path, record.before, record.left, now, self.kind)
            )
        return tuple(conflicts)

    def _prepare(self, *, read_only: bool = False) -> Prepared | Stop:
        from . import stages

        ctx = self._ctx
        self._advance(stage=Stage.PARSING)
        parsed = parse_patch(self.patch)
        self._advance(parsed=parsed, cwd=self.root)
        faulty = stages.open_filesystem(ctx, self.root, read_only=read_only)
        self._advance(stage=Stage.VERIFYING)
        conflicts = self.check(faulty)
        self.conflicts = conflicts
        if conflicts and not self.force:
            message = conflict_message(conflicts, self.kind, self.target_id)
            return Stop(CallStatus.ERROR, VERIFICATION_FAILED + message, error=message)
        later = [c for c in conflicts if c.abs_path in self.later]
        if later:
            message = later_message(later, self.later, self.kind, self.target_id)
            return Stop(CallStatus.ERROR, VERIFICATION_FAILED + message, error=message)
        if conflicts:
            forced = {c.abs_path for c in conflicts}
            self.steps = [
                RevertStep(
                    s.path,
                    s.shown,
                    s.expect,
                    s.target,
                    s.path in forced,
                    s.move_from,
                    s.remove_dirs,
                )
                for s in self.steps
            ]
        action = change_map(self.steps, self.patch, self.root)
        self._advance(proposed=action, stage=Stage.SAFETY)
        safety = stages.assess_safety(ctx, action, self.root)
        self._advance(safety=safety)
        if isinstance(safety, Reject):
            return stages.rejected(safety)
        return Prepared(parsed, self._environment(), self.root, self.root, action, safety, faulty)

    def check_answer(self, answer: Answer) -> None:
        """An undo is answered whole: its files are picked before it runs (``only``), never
        by hunks, since its patch only describes the states it restores."""
        if answer.accept is not None:
            raise ValueError(
                f"{_a(self.kind)} restores whole files: it cannot apply a selection of hunks; "
                "pick its files with only= (%apply_patch_undo --only PATH) and approve or "
                "decline it whole"
            )
        super().check_answer(answer)

    @property
    def reviewable(self) -> bool:
        return False

    def _reverify(self, prepared: Prepared) -> Prepared | Ending:
        """An undo's approval covers the states it restores, not a diff of the files: its writer
        checks every file again just before the first write, and a file changed while the undo
        waited fails it with nothing written (docs/behaviour.md §11.2)."""
        return prepared

    def _write(self, _hunks: Sequence[Hunk], _cwd: str, fs: Filesystem) -> ApplyOutcome:
        return apply_steps(self.steps, fs)

    def _attempt(
        self, prepared: Prepared, *, sandboxed: bool, approved: Sequence[str]
    ) -> ApplyOutcome:
        from . import stages

        self._advance(stage=Stage.APPLYING, attempts=self._progress.attempts + 1)
        outcome = stages.attempt(
            self._ctx, prepared, sandboxed=sandboxed, approved=approved, writer=self._write
        )
        self._advance(delta=self._progress.delta.append(outcome.delta))
        # read after the attempt: an atomic one that failed has been rolled back by now
        for step in self.steps:
            now = read_state(self.turn.fs, step.path)
            if now is not None and now.matches(step.target):
                self.settled.add(step.path)
        return outcome


def undo_call(
    turn: Turn,
    call_id: str | None = None,
    *,
    kind: Kind = "undo",
    only: Iterable[str] | None = None,
    force: bool = False,
    options: PipelineOptions | None = None,
    later_turns: Sequence[Turn] = (),
) -> UndoCall:
    """The undo (or redo) of ``call_id`` (default: the last call not undone, or the last one
    undone), ready to run, with the target's options (its sandbox, approval policy,
    transaction) but none of its faults and no ``review``. Raises :class:`UndoError` for
    what cannot be asked for.

    The undo is a call of ``turn``, the target's turn, also when a later turn is the current
    one: its events, its place and its TurnDiff are that turn's (docs/behaviour.md §11.8).
    ``later_turns``, the turns that came after it, are what ``force`` may not overwrite: a
    file that a call of theirs changed since stays a conflict (their TurnDiffs, folded from
    their deltas, would no longer say what is on disk).
    """
    target = default_target(turn, kind) if call_id is None else _find(turn, call_id)
    if isinstance(target, UndoCall):
        raise UndoError(
            f"{target.call_id} is {_a(target.kind)} of {target.target_id}: "
            f"{'redo' if target.kind == 'undo' else 'undo'} {target.target_id} instead"
        )
    if target.result is None or target.result.status == CallStatus.AWAITING_APPROVAL:
        raise UndoError(f"{target.call_id} has not finished: it committed nothing yet")
    records = call_records(target)
    if not records:
        raise UndoError(
            f"{target.call_id} committed no changes (it ended {target.result.status}): there is "
            f"nothing to {kind}"
        )
    cwd = target.result.cwd
    undone = undone_paths(turn, target.call_id)
    candidates = set(records) - undone if kind == "undo" else undone
    exact = target.result.delta.exact
    known = {p for p in candidates if records[p].known}
    shown = describe_paths(records, cwd)
    if only is not None:
        picked = _resolve_only(only, records, cwd)
        if not picked:
            names = ", ".join(shown[p] for p in records)
            raise UndoError(f"{kind} of {target.call_id}: only= names no file; its files: {names}")
        stray = picked - candidates
        if stray:
            state = "already undone" if kind == "undo" else "not undone"
            names = ", ".join(sorted(shown[p] for p in stray))
            raise UndoError(f"{kind} of {target.call_id}: {names} {state}")
        paths = picked
    else:
        paths = candidates
    if not paths:
        state = "every file is undone already" if kind == "undo" else "no file is undone"
        raise UndoError(f"nothing to {kind} in {target.call_id}: {state}")
    if not exact and (only is None or paths - known):
        offered = ", ".join(sorted(shown[p] for p in known)) or "none"
        raise UndoError(
            f"{target.call_id}'s delta is inexact (exact=False): something was written that it "
            "cannot describe (a failed write, a symlink, a file it could not read), so it cannot "
            f"be {kind}ne blindly. Files whose state is known: {offered}; {kind} them by name "
            "(only=[...], --only PATH)",
            sorted(known),
        )
    call = UndoCall(
        turn,
        turn.fresh_call_id(),
        # --review is a review of the model's patch: an undo (the user's own request) asks
        # only where the safety check asks (docs/behaviour.md §11.3)
        options or replace(target.options, faults=(), review=False),
        CancellationToken(),
        kind=kind,
        target=target,
        records=records,
        paths=paths,
        force=force,
        later=changed_later(later_turns, paths),
    )
    turn.calls.append(call)
    return call


def undo(
    turn: Turn,
    call_id: str | None = None,
    *,
    only: Iterable[str] | None = None,
    force: bool = False,
    approver: Approver | Decision | str | None = None,
    later_turns: Sequence[Turn] = (),
) -> CallResult:
    """Undo ``call_id`` (default: the last call not undone) and return the undo's result;
    without an ``approver`` an approval request stops it, as :meth:`Turn.run` does;
    ``later_turns``: see :func:`undo_call`."""
    return undo_call(turn, call_id, only=only, force=force, later_turns=later_turns).run(approver)


def redo(
    turn: Turn,
    call_id: str | None = None,
    *,
    only: Iterable[str] | None = None,
    force: bool = False,
    approver: Approver | Decision | str | None = None,
    later_turns: Sequence[Turn] = (),
) -> CallResult:
    """Redo what an undo of ``call_id`` put back (default: the last call undone)."""
    return undo_call(
        turn, call_id, kind="redo", only=only, force=force, later_turns=later_turns
    ).run(approver)


def undo_turn(
    turn: Turn,
    *,
    force: bool = False,
    approver: Approver | Decision | str | None = None,
) -> list[CallResult]:
    """Undo every call of the turn, newest first, each as its own call; stops at the first undo
    that does not complete (a conflict, a decline, a failure, a wait for approval)."""
    results: list[CallResult] = []
    targets: set[str] = set()
    while True:
        try:
            call = undo_call(turn, force=force)
        except UndoError:
            if results:
                return results
            raise
        if call.target_id in targets:  # undone already and still offered: never loop
            turn.calls.remove(call)
            return results
        targets.add(call.target_id)
        result = call.run(approver)
        results.append(result)
        if result.status != CallStatus.COMPLETED:
            return results


def not_undone(turn: Turn) -> list[str]:
    """The calls of ``turn`` with committed changes not undone yet, newest first."""
    return [
        call.call_id
        for call in reversed(turn.calls)
        if not _is_undo(call) and set(call_records(call)) - undone_paths(turn, call.call_id)
    ]


def undo_turn_summary(turn: Turn, undos: Sequence[ApplyPatchCall], where: str) -> str:
    """What undoing a whole turn did (docs/behaviour.md §11.3): the calls undone, and when an
    undo did not complete, where it stopped, why, the calls not undone and how to go on."""
    done = [
        call.target_id
        for call in undos
        if isinstance(call, UndoCall)
        and call.result is not None
        and call.result.status == CallStatus.COMPLETED
    ]
    last = undos[-1] if undos else None
    if last is None or (last.result is not None and last.result.status == CallStatus.COMPLETED):
        left = not_undone(turn)
        rest = (
            f"nothing of {turn.turn_id} is left to undo"
            if not left
            else f"not undone: {', '.join(left)}"
        )
        return f"{where}: undone: {', '.join(done) or 'nothing'}; {rest}"
    assert isinstance(last, UndoCall)
    result = last.result
    if result is None or result.status == CallStatus.AWAITING_APPROVAL:
        why = "waits for approval"
        way = f"answer it, then run {where} again for the rest"
    else:
        first = (result.error or "").strip().split("\n", 1)[0]
        why = f"ended {result.status}" + (f" ({first})" if first else "")
        way = (
            f"undo {last.target_id} by itself (%apply_patch_undo {last.target_id} with --only PATH "
            f"or --force), then run {where} again for the rest"
        )
    return "\n".join(
        [
            f"{where} stopped at {last.target_id}: its undo {last.call_id} {why}",
            f"undone: {', '.join(done) or 'nothing'}",
            f"not undone: {', '.join(not_undone(turn)) or 'nothing'}",
            way,
        ]
    )


__all__ = [
    "Conflict",
    "UndoCall",
    "UndoError",
    "not_undone",
    "redo",
    "undo",
    "undo_call",
    "undo_turn",
    "undo_turn_summary",
]
