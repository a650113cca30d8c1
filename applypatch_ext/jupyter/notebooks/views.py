"""The notebooks a call or a turn touches, as cell diffs (proposed, committed, undo)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from ...core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
    ApplyPatchAction,
    FileAdd,
    FileDelete,
)
from ...core.turn.options import CallStatus
from ...core.turn.result import CallResult
from ...core.turn.turn_diff import TurnDiffTracker
from ._read import (
    is_notebook_path,
)
from .diff import (
    notebook_diff,
)


def delta_notebook_diffs(delta: AppliedPatchDelta) -> list[dict[str, Any]]:
    """The cell diff of every notebook a committed delta touched, in delta order."""
    views = []
    for change in delta.changes:
        if isinstance(change, AppliedAdd) and is_notebook_path(change.path):
            views.append(
                notebook_diff(change.overwritten_content, change.content, path=change.path)
            )
        elif isinstance(change, AppliedDelete) and is_notebook_path(change.path):
            views.append(notebook_diff(change.content, None, path=change.path))
        elif isinstance(change, AppliedUpdate):
            target = change.move_path or change.path
            if is_notebook_path(target) or is_notebook_path(change.path):
                view = notebook_diff(change.old_content, change.new_content, path=target)
                if change.move_path is not None:
                    view["moved_from"] = change.path
                views.append(view)
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
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
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
    committed = delta_notebook_diffs(result.delta)
    turn = [] if tracker is None else tracker_notebook_diffs(tracker)
    for view in turn:
        if any(_same_change(view, other) for other in committed):
            view["same_as"] = "committed"
    return {"proposed": proposed, "committed": committed, "turn": turn}


def _same_change(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """The same notebook changed from the same text to the same text (equal diffs of one
    file's texts: the lines outside the hunks are the new text's in both)."""
    keys = ("path", "moved_from", "kind", "raw_diff")
    return all(a.get(key) == b.get(key) for key in keys)


def tracker_notebook_diffs(tracker: TurnDiffTracker, *, undo: bool = False) -> list[dict[str, Any]]:
    """The cell diff of every notebook of the tracker's TurnDiff, in its block order, from the
    texts the blocks are the diff of (:meth:`TurnDiffTracker.file_texts`): one view per
    notebook block, at the absolute path of its right side (a renamed notebook's
    ``moved_from`` says where it was). ``undo=True`` gives the reverse, what undoing the turn
    would restore. Empty when the tracker is invalid (an inexact delta: the texts are
    unknown)."""
    views = []
    for side in tracker.file_texts():
        if not (is_notebook_path(side.absolute) or is_notebook_path(side.old_absolute)):
            continue
        before, after = (side.after, side.before) if undo else (side.before, side.after)
        view = notebook_diff(before, after, path=side.absolute)
        if side.old_absolute != side.absolute:
            view["moved_from"] = side.old_absolute
        views.append(view)
    return views


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
