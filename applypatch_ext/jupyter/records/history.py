"""The history of a session's turns as a table (``%apply_patch_turn --history``,
docs/behaviour.md §11.6): :class:`HistoryView`, in HTML, Markdown and text."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any, Final

from ...core.turn.history import HistoryEntry, turn_history
from ...core.turn.turn import Turn
from ...markup import md_text, visible

_COLUMNS: Final = ("turn", "#", "call", "kind", "status", "files", "+", "-", "undone")


def _row(entry: HistoryEntry) -> list[str]:
    kind = entry.kind if entry.target is None else f"{entry.kind} of {entry.target}"
    undone = entry.undone or ("" if entry.kind != "patch" else "no")
    exact = "" if entry.exact else " (inexact)"
    return [
        entry.turn_id,
        str(entry.index),
        entry.call_id,
        kind,
        entry.status + exact,
        ", ".join(entry.files) or "—",
        str(entry.added),
        str(entry.removed),
        undone,
    ]


class HistoryView:
    """The turns of the session and their calls: status, files, +/- lines, undone or not."""

    def __init__(self, turns: Iterable[Turn]) -> None:
        self.entries = [entry for turn in turns for entry in turn_history(turn)]

    def to_json(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self.entries]

    def _repr_html_(self) -> str:
        if not self.entries:
            return "<p>No call yet in this session.</p>"
        head = "".join(f"<th>{html.escape(c)}</th>" for c in _COLUMNS)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(visible(cell))}</td>" for cell in _row(e)) + "</tr>"
            for e in self.entries
        )
        return f'<table class="applypatch-history"><tr>{head}</tr>{body}</table>'

    def _repr_markdown_(self) -> str:
        if not self.entries:
            return "No call yet in this session."
        lines = ["| " + " | ".join(_COLUMNS) + " |", "|" + " --- |" * len(_COLUMNS)]
        for e in self.entries:
            cells = [md_text(cell).replace("|", "\\|") for cell in _row(e)]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        if not self.entries:
            return "No call yet in this session."
        rows = [list(_COLUMNS), *(_row(e) for e in self.entries)]
        widths = [max(len(visible(r[i])) for r in rows) for i in range(len(_COLUMNS))]
        return "\n".join(
            "  ".join(visible(cell).ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
            for r in rows
        )
