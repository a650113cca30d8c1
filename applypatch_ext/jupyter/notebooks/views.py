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


def call_notebook_views(result: CallResult) -> dict[str, list[dict[str, Any]]]:
    """The cell views of one call, ready for a widget trait (plain JSON): ``proposed`` (what
    a call that wrote nothing would change, a refused one included) and ``committed`` (the
    delta's notebooks). Empty lists when the call touches no notebook."""
    proposed: list[dict[str, Any]] = []
    if result.proposed is not None and result.status in _NOTHING_WRITTEN:
        proposed = proposed_notebook_diffs(result.proposed)
    return {"proposed": proposed, "committed": delta_notebook_diffs(result.delta)}


def turn_notebook_diffs(
    deltas: Iterable[AppliedPatchDelta], *, undo: bool = False
) -> list[dict[str, Any]]:
    """The net cell diff of every notebook over the deltas of a turn (oldest first), from
    each notebook's text before the turn to its text now; ``undo=True`` gives the reverse,
    what undoing the turn would restore. A moved notebook shows at its new path (``moved_from``
    says where it was), and its old path as deleted."""
    state: dict[str, list[Any]] = {}  # path -> [before the turn, now, moved from]

    def touch(path: str, before: str | None) -> list[Any]:
        return state.setdefault(path, [before, before, None])

    for delta in deltas:
        for change in delta.changes:
            if isinstance(change, AppliedAdd):
                touch(change.path, change.overwritten_content)[1] = change.content
            elif isinstance(change, AppliedDelete):
                touch(change.path, change.content)[1] = None
            elif change.move_path is None:
                touch(change.path, change.old_content)[1] = change.new_content
            else:
                source = touch(change.path, change.old_content)
                source[1] = None
                dest = touch(change.move_path, change.overwritten_move_content)
                dest[1] = change.new_content
                if dest[0] is None:
                    dest[0], dest[2] = source[0], source[2] or change.path
                    source[0] = None
    views = []
    for path, (before, now, moved_from) in state.items():
        if not is_notebook_path(path) or before == now:
            continue
        view = (
            notebook_diff(now, before, path=path) if undo else notebook_diff(before, now, path=path)
        )
        if moved_from is not None:
            view["moved_from"] = moved_from
        views.append(view)
    return views
