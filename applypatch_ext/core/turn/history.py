"""The history of a turn: its calls as data for a front end (docs/behaviour.md §11.6)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..apply.diff import DiffTag, diff_ops, split_diff_lines
from ..apply.revert import FileRecord, describe_paths
from .turn import Turn
from .undo import undone_paths
from .undo_call import UndoCall
from .undo_conflicts import call_records


@dataclass(frozen=True)
class HistoryEntry:
    """One call of a turn as the history shows it."""

    turn_id: str
    call_id: str
    index: int  # 1-based, in the turn
    kind: Literal["patch", "undo", "redo"]
    target: str | None  # the call an undo or redo is of
    status: str
    files: tuple[str, ...]
    added: int
    removed: int
    exact: bool
    undone: Literal["", "undone", "partly undone"]

    def to_json(self) -> dict[str, Any]:
        return {
            "turn_id": self.turn_id,
            "call_id": self.call_id,
            "index": self.index,
            "kind": self.kind,
            "target": self.target,
            "status": self.status,
            "files": list(self.files),
            "added": self.added,
            "removed": self.removed,
            "exact": self.exact,
            "undone": self.undone,
        }


def line_counts(records: Iterable[FileRecord]) -> tuple[int, int]:
    """Lines added and removed from each file's state before to its state after."""
    added = removed = 0
    for record in records:
        old = split_diff_lines(record.before.content or "")
        new = split_diff_lines(record.left.content or "")
        for op in diff_ops(old, new):
            if op.tag in (DiffTag.INSERT, DiffTag.REPLACE):
                added += op.new_len
            if op.tag in (DiffTag.DELETE, DiffTag.REPLACE):
                removed += op.old_len
    return added, removed


def turn_history(turn: Turn) -> list[HistoryEntry]:
    """The turn's calls, oldest first: status, files, +/- lines, undone or not."""
    entries: list[HistoryEntry] = []
    for index, call in enumerate(turn.calls, 1):
        result = call.result
        records = call_records(call)
        root = result.cwd if result is not None and result.cwd else turn.cwd
        files = tuple(describe_paths(records, root).values())
        added, removed = line_counts(records.values())
        undone: Literal["", "undone", "partly undone"] = ""
        if isinstance(call, UndoCall):
            kind: Literal["patch", "undo", "redo"] = call.kind
            target: str | None = call.target_id
        else:
            kind, target = "patch", None
            back = undone_paths(turn, call.call_id) & set(records)
            if back:
                undone = "undone" if back == set(records) else "partly undone"
        entries.append(
            HistoryEntry(
                turn.turn_id,
                call.call_id,
                index,
                kind,
                target,
                "running" if result is None else str(result.status),
                files,
                added,
                removed,
                True if result is None else result.delta.exact,
                undone,
            )
        )
    return entries


__all__ = ["HistoryEntry", "line_counts", "turn_history"]
