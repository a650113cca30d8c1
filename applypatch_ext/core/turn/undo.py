"""Undo, redo and the history of a turn (docs/behaviour.md §11): asking for them.

Every call that committed changes can be undone: the inverse of its committed delta, read as
each file's state before the call and as the call left it (:func:`~..apply.revert.file_states`).
:func:`undo_call` makes the undo (or redo) of one call, an :class:`~.undo_call.UndoCall` of the
turn, after checking what can be asked for (the target, the files picked, an inexact delta:
:class:`UndoError`); :func:`undo`, :func:`redo` and :func:`undo_turn` run them;
:func:`undo_turn_summary` says what undoing a whole turn did. A file that changed since is a
:class:`~.undo_conflicts.Conflict`.

A redo takes the files an undo put back to the state the call left them, with the same check.
:mod:`.history` gives the turn's calls as data for a front end.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..apply.fs import normalize_path
from ..apply.revert import FileRecord, describe_paths
from ..interrupts import CancellationToken
from .call import ApplyPatchCall, CallTurn
from .options import Approver, CallStatus, Decision, PipelineOptions
from .result import CallResult
from .undo_call import UndoCall
from .undo_conflicts import Kind, call_records, changed_later, with_article


class UndoError(ValueError):
    """An undo or redo that cannot be asked for: unknown call, nothing to undo, an inexact
    delta without a pick of its known files. The message says what is valid; ``offered``
    are the files that can be picked (absolute paths), when some can."""

    def __init__(self, message: str, offered: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.offered = tuple(offered)


# -- what is undone --------------------------------------------------------------------------------


def _is_undo(call: ApplyPatchCall) -> bool:
    return isinstance(call, UndoCall)


def undone_paths(turn: CallTurn, call_id: str) -> set[str]:
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


def _find(turn: CallTurn, call_id: str) -> ApplyPatchCall:
    for call in turn.calls:
        if call.call_id == call_id:
            return call
    known = ", ".join(c.call_id for c in turn.calls if not _is_undo(c)) or "none yet"
    raise UndoError(f"no call {call_id!r} in {turn.turn_id}; its calls: {known}")


def default_target(turn: CallTurn, kind: Kind) -> ApplyPatchCall:
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


# -- asking for an undo ----------------------------------------------------------------------------


def undo_call(
    turn: CallTurn,
    call_id: str | None = None,
    *,
    kind: Kind = "undo",
    only: Iterable[str] | None = None,
    force: bool = False,
    options: PipelineOptions | None = None,
    later_turns: Sequence[CallTurn] = (),
    target: ApplyPatchCall | None = None,
) -> UndoCall:
    """The undo (or redo) of ``call_id`` (default: the last call not undone, or the last one
    undone), or of the call ``target`` itself (a widget's Undo button: its own call, never an
    id looked up), ready to run, with the target's options (its sandbox, approval policy,
    transaction) but none of its faults and no ``review``. Raises :class:`UndoError` for
    what cannot be asked for.

    The undo is a call of ``turn``, the target's turn, also when a later turn is the current
    one: its events, its place and its TurnDiff are that turn's (docs/behaviour.md §11.8).
    ``later_turns``, the turns that came after it, are what ``force`` may not overwrite: a
    file that a call of theirs changed since stays a conflict (their TurnDiffs, folded from
    their deltas, would no longer say what is on disk).
    """
    target, result = _finished_target(turn, kind, call_id, target)
    records = call_records(target)
    if not records:
        raise UndoError(
            f"{target.call_id} committed no changes (it ended {result.status}): there is "
            f"nothing to {kind}"
        )
    paths = _picked_paths(turn, target.call_id, result, records, kind, only)
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


def _finished_target(
    turn: CallTurn, kind: Kind, call_id: str | None, target: ApplyPatchCall | None
) -> tuple[ApplyPatchCall, CallResult]:
    """The call to undo or redo (``target`` itself, the call ``call_id`` names, or the default)
    and its result: a call of ``turn`` that is no undo and has finished."""
    if target is None:
        target = default_target(turn, kind) if call_id is None else _find(turn, call_id)
    elif target not in turn.calls:
        raise UndoError(f"{target.call_id} is not a call of {turn.turn_id}")
    if isinstance(target, UndoCall):
        raise UndoError(
            f"{target.call_id} is {with_article(target.kind)} of {target.target_id}: "
            f"{'redo' if target.kind == 'undo' else 'undo'} {target.target_id} instead"
        )
    if target.result is None or target.result.status == CallStatus.AWAITING_APPROVAL:
        raise UndoError(f"{target.call_id} has not finished: it committed nothing yet")
    return target, target.result


def _picked_paths(
    turn: CallTurn,
    call_id: str,
    result: CallResult,
    records: dict[str, FileRecord],
    kind: Kind,
    only: Iterable[str] | None,
) -> set[str]:
    """The files of ``call_id`` to undo or redo: those ``only`` names (each one not undone, or
    undone for a redo), else every such file; all of them known unless the delta is exact."""
    cwd = result.cwd
    undone = undone_paths(turn, call_id)
    candidates = set(records) - undone if kind == "undo" else undone
    known = {p for p in candidates if records[p].known}
    shown = describe_paths(records, cwd)
    if only is not None:
        picked = _resolve_only(only, records, cwd)
        if not picked:
            names = ", ".join(shown[p] for p in records)
            raise UndoError(f"{kind} of {call_id}: only= names no file; its files: {names}")
        stray = picked - candidates
        if stray:
            state = "already undone" if kind == "undo" else "not undone"
            names = ", ".join(sorted(shown[p] for p in stray))
            raise UndoError(f"{kind} of {call_id}: {names} {state}")
        paths = picked
    else:
        paths = candidates
    if not paths:
        state = "every file is undone already" if kind == "undo" else "no file is undone"
        raise UndoError(f"nothing to {kind} in {call_id}: {state}")
    if not result.delta.exact and (only is None or paths - known):
        offered = ", ".join(sorted(shown[p] for p in known)) or "none"
        raise UndoError(
            f"{call_id}'s delta is inexact (exact=False): something was written that it "
            "cannot describe (a failed write, a symlink, a file it could not read), so it cannot "
            f"be {kind}ne blindly. Files whose state is known: {offered}; {kind} them by name "
            "(only=[...], --only PATH)",
            sorted(known),
        )
    return paths


def undo(
    turn: CallTurn,
    call_id: str | None = None,
    *,
    only: Iterable[str] | None = None,
    force: bool = False,
    approver: Approver | Decision | str | None = None,
    later_turns: Sequence[CallTurn] = (),
) -> CallResult:
    """Undo ``call_id`` (default: the last call not undone) and return the undo's result;
    without an ``approver`` an approval request stops it, as :meth:`~.turn.Turn.run` does;
    ``later_turns``: see :func:`undo_call`."""
    return undo_call(turn, call_id, only=only, force=force, later_turns=later_turns).run(approver)


def redo(
    turn: CallTurn,
    call_id: str | None = None,
    *,
    only: Iterable[str] | None = None,
    force: bool = False,
    approver: Approver | Decision | str | None = None,
    later_turns: Sequence[CallTurn] = (),
) -> CallResult:
    """Redo what an undo of ``call_id`` put back (default: the last call undone)."""
    return undo_call(
        turn, call_id, kind="redo", only=only, force=force, later_turns=later_turns
    ).run(approver)


def undo_turn(
    turn: CallTurn,
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


def not_undone(turn: CallTurn) -> list[str]:
    """The calls of ``turn`` with committed changes not undone yet, newest first."""
    return [
        call.call_id
        for call in reversed(turn.calls)
        if not _is_undo(call) and set(call_records(call)) - undone_paths(turn, call.call_id)
    ]


def undo_turn_summary(turn: CallTurn, undos: Sequence[ApplyPatchCall], where: str) -> str:
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
    "UndoError",
    "default_target",
    "not_undone",
    "redo",
    "undo",
    "undo_call",
    "undo_turn",
    "undo_turn_summary",
    "undone_paths",
]
