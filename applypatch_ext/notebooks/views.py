"""The notebooks a call or a turn touches, as cell diffs (proposed, committed, undo)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeAlias

from ..core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
    ApplyPatchAction,
    FileAdd,
    FileDelete,
)
from ..core.apply.fs import LocalFilesystem
from ..core.apply.revert import FileRecord
from ..core.turn.options import CallStatus
from ..core.turn.result import CallResult
from ..core.turn.turn_diff import TurnDiffTracker
from ._read import (
    is_notebook_path,
)
from .diff import (
    notebook_diff,
)

#: A notebook's change as texts: (its path, where it was, the text before, the text after),
#: None for no file. A TurnDiff block and a committed change with equal sides are one change.
_Sides: TypeAlias = tuple[str, str, "str | None", "str | None"]


def _delta_sides(delta: AppliedPatchDelta) -> list[_Sides]:
    sides: list[_Sides] = []
    for change in delta.changes:
        if isinstance(change, AppliedAdd) and is_notebook_path(change.path):
            sides.append((change.path, change.path, change.overwritten_content, change.content))
        elif isinstance(change, AppliedDelete) and is_notebook_path(change.path):
            sides.append((change.path, change.path, change.content, None))
        elif isinstance(change, AppliedUpdate):
            target = change.move_path or change.path
            if is_notebook_path(target) or is_notebook_path(change.path):
                sides.append((target, change.path, change.old_content, change.new_content))
    return sides


def _view(sides: _Sides) -> dict[str, Any]:
    path, source, before, after = sides
    view = notebook_diff(before, after, path=path)
    if source != path:
        view["moved_from"] = source
    return view


def delta_notebook_diffs(delta: AppliedPatchDelta) -> list[dict[str, Any]]:
    """The cell diff of every notebook a committed delta touched, in delta order."""
    return [_view(sides) for sides in _delta_sides(delta)]


def revert_notebook_diffs(
    records: Mapping[str, FileRecord], paths: Iterable[str], *, redo: bool = False
) -> list[dict[str, Any]]:
    """The cell diff of every notebook an undo of these files would write back (from the state
    the call left each in to its state before the call), or with ``redo`` what a redo would
    put forward again, in the order of ``records`` (a call's ``file_states``) for ``paths``
    among them. A move whose destination did not exist before shows as one moved notebook,
    as the undo (or redo) writes it; any other file as its own change."""
    wanted = set(paths)
    picked = [r for p, r in records.items() if p in wanted]
    by_path = {r.path: r for r in picked}
    views: list[dict[str, Any]] = []
    paired: set[str] = set()
    for record in picked:
        if record.path in paired:
            continue
        dest = by_path.get(record.moved_to or "")
        if dest is not None and not dest.before.exists and not record.left.exists:
            if not (is_notebook_path(record.path) or is_notebook_path(dest.path)):
                continue
            paired.add(dest.path)
            if redo:  # forward again: the file goes from here to there
                sides = (dest.path, record.path, record.before.content, dest.left.content)
            else:  # back: the file at the destination comes home
                sides = (record.path, dest.path, dest.left.content, record.before.content)
            views.append(_view(sides))
            continue
        if not is_notebook_path(record.path):
            continue
        before, after = record.left.content, record.before.content
        if redo:
            before, after = after, before
        views.append(_view((record.path, record.path, before, after)))
    return views


def proposed_notebook_diffs(
    action: ApplyPatchAction, read: Callable[[str], str | None] | None = None
) -> list[dict[str, Any]]:
    """The cell diff of every notebook a verified (not yet applied) patch would change.

    The old texts are read now (``read(path)``, None for no file; by default from the disk),
    so call it before the patch is applied: for a refused, declined, waiting or dry-run call.
    After an application, :func:`delta_notebook_diffs` says what really changed.
    """
    reader = read or _read_disk
    views = []
    for path, change in action.changes.items():
        if isinstance(change, FileAdd):
            if is_notebook_path(path):
                views.append(notebook_diff(reader(path), change.content, path=path))
        elif isinstance(change, FileDelete):
            if is_notebook_path(path):
                views.append(notebook_diff(change.content, None, path=path))
        else:
            target = change.move_path or path
            if is_notebook_path(target) or is_notebook_path(path):
                view = notebook_diff(reader(path), change.new_content, path=target)
                if change.move_path is not None:
                    view["moved_from"] = path
                views.append(view)
    return views


def _read_disk(path: str) -> str | None:
    """The text at ``path`` as the pipeline reads a file (a FIFO or a device named ``.ipynb``
    is no file: opening it must not hang the call, or the desk's worker holding the kernel's
    lock), None if there is none, or it is not UTF-8."""
    try:
        return LocalFilesystem().read_bytes(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


#: Statuses of a call that wrote nothing: its proposal is still against the files as they are.
_NOTHING_WRITTEN: Final = (
    CallStatus.ERROR,
    CallStatus.DRY_RUN,
    CallStatus.AWAITING_APPROVAL,
    CallStatus.DECLINED,
    CallStatus.REJECTED,
)


def call_notebook_views(
    result: CallResult, tracker: TurnDiffTracker | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The cell views of one call, ready for a widget trait (plain JSON): ``proposed`` (what
    a call that wrote nothing would change, a refused one included), ``committed`` (the
    delta's notebooks) and ``turn`` (the notebooks of the turn's TurnDiff, from ``tracker``:
    pass it only while it still renders the call's ``turn_diff``). Empty lists when the call
    touches no notebook.

    A TurnDiff notebook whose change is exactly this call's committed one (the first call of a
    turn to touch it) carries ``same_as: "committed"``: the views show it once."""
    proposed: list[dict[str, Any]] = []
    if result.proposed is not None and result.status in _NOTHING_WRITTEN:
        proposed = proposed_notebook_diffs(result.proposed)
    sides = _delta_sides(result.delta)
    committed = [_view(each) for each in sides]
    own = dict(zip(sides, committed, strict=True))
    turn = []
    for key, view in [] if tracker is None else _tracker_views(tracker, False, own):
        if key in own:  # the same texts: the call's own change, diffed once
            view["same_as"] = "committed"
        turn.append(view)
    return {"proposed": proposed, "committed": committed, "turn": turn}


#: Per tracker (and direction), the views of its last :func:`tracker_notebook_diffs`, by their
#: texts: the calls of a turn that leave a notebook alone show its TurnDiff again without
#: diffing it (the tracker keeps the same str objects while a file is untouched, so a lookup
#: compares them by identity). Gone with the tracker; only what the last call used is kept.
_TRACKER_VIEWS: weakref.WeakKeyDictionary[
    TurnDiffTracker, dict[bool, dict[_Sides, dict[str, Any]]]
] = weakref.WeakKeyDictionary()


def _tracker_views(
    tracker: TurnDiffTracker, undo: bool, known: Mapping[_Sides, dict[str, Any]]
) -> list[tuple[_Sides, dict[str, Any]]]:
    """Each notebook block's texts and a copy of its view (a caller may add keys; the values
    are shared): from the last call's views, from ``known`` ones, or diffed now."""
    cached = _TRACKER_VIEWS.setdefault(tracker, {}).get(undo, {})
    kept: dict[_Sides, dict[str, Any]] = {}
    out = []
    for side in tracker.file_texts():
        if not (is_notebook_path(side.absolute) or is_notebook_path(side.old_absolute)):
            continue
        before, after = (side.after, side.before) if undo else (side.before, side.after)
        key = (side.absolute, side.old_absolute, before, after)
        view = cached.get(key) or known.get(key) or _view(key)
        kept[key] = view
        out.append((key, dict(view)))
    _TRACKER_VIEWS[tracker][undo] = kept
    return out


def tracker_notebook_diffs(tracker: TurnDiffTracker, *, undo: bool = False) -> list[dict[str, Any]]:
    """The cell diff of every notebook of the tracker's TurnDiff, in its block order, from the
    texts the blocks are the diff of (:meth:`TurnDiffTracker.file_texts`): one view per
    notebook block, at the absolute path of its right side (a renamed notebook's
    ``moved_from`` says where it was). ``undo=True`` gives the reverse, what undoing the turn
    would restore. Empty when the tracker is invalid (an inexact delta: the texts are
    unknown)."""
    return [view for _, view in _tracker_views(tracker, undo, {})]


def turn_notebook_diffs(
    deltas: Iterable[AppliedPatchDelta], *, undo: bool = False
) -> list[dict[str, Any]]:
    """The net cell diff of every notebook over the deltas of a turn (oldest first), from
    each notebook's text before the turn to its text now, folded as the TurnDiff folds them
    (a :class:`TurnDiffTracker`: see :func:`tracker_notebook_diffs`); ``undo=True`` gives the
    reverse, what undoing the turn would restore. A moved notebook shows at its new path
    (``moved_from`` says where it was)."""
    tracker = TurnDiffTracker(display_roots={"": "/"}, timeout=None)
    for delta in deltas:
        tracker.track_delta(delta)
    return tracker_notebook_diffs(tracker, undo=undo)
