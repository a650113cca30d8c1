"""The diffs a static view shows: a call's own changes, and its turn's diff.

A call's record (:mod:`.display`) holds the call's own changes, whole within its bound, and
the turn's diff as a **summary**: the turn's files with their +/- counts. (The turn's diff is
every call's so far: after one large change, each later record would save it again, ~190 KB
for a one-line call.) ``%apply_patch_turn`` shows the turn's diff **whole**, within a larger
bound (:data:`~.bound.TURN`). Each is rendered three ways: HTML (:mod:`.static_diff`'s view)
and plain text and Markdown (diff blocks, :func:`~.bound.bounded_blocks`); within a bound the
files share the room fairly (:func:`~.bound.fair_shares`: every file named with its counts,
small ones whole, large ones cut and the cut said).

Pure functions of the displayed state (the widget's traits), no IPython import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ...core.apply.fs import relative_path
from ...core.text import plural
from ...markup import esc, md_code, md_text, visible
from . import static_diff
from .bound import (
    LIST_ITEMS,
    RECORD,
    TURN,
    Bound,
    ByteBudget,
    bounded_blocks,
    counts_text,
    item,
    shared,
    size_of,
)
from .vocabulary import preview_words, status_meaning


def change_label(path: str, change: Mapping[str, Any], *, counts: bool = False) -> str:
    """``Add path``, ``Update path -> moved``; with ``counts``, its ``+N -M`` after it."""
    kind = change.get("type", "?")
    label = static_diff.CHANGE_LABELS.get(kind, kind)
    move = change.get("move_path")
    shown = item(f"{label} {path}" + (f" -> {move}" if move else ""))
    return f"{shown} {counts_text(*static_diff.change_counts(change))}" if counts else shown


def change_diff(change: Mapping[str, Any]) -> str:
    """The lines a change of the verified map (or a planned one) makes, as a diff body: an
    Update's radius-1 diff, an Add's lines as ``+``, a Delete's as ``-``."""
    kind = change.get("type")
    if kind == "update":
        return str(change.get("unified_diff") or "")
    sign = {"add": "+", "delete": "-"}.get(str(kind))
    if sign is None:
        return ""
    lines = str(change.get("content") or "").split("\n")  # its lines, as the file has them
    if lines[-1] == "":
        lines.pop()
    return "".join(f"{sign}{line}\n" for line in lines)


def own_change_diffs(state: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(label with counts, diff)`` per file of the call's own verified changes."""
    cwd = str(state.get("cwd") or "")
    changes = state.get("proposed") or {}
    return [
        (change_label(relative_path(str(path), cwd), change, counts=True), change_diff(change))
        for path, change in changes.items()
        if isinstance(change, Mapping) and change_diff(change)
    ]


def view_cut(change: Mapping[str, Any]) -> tuple[int, int]:
    """The lines and bytes a view's cut left out of a change or a block (``cut_lines``,
    ``cut_bytes``: jupyter/live/state.py)."""
    return int(change.get("cut_lines") or 0), int(change.get("cut_bytes") or 0)


def turn_diff_files(state: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(label, text)`` per file of the state's TurnDiff.

    The paths come from the tracker (``turn_diff_files``: each block with the display paths it
    was rendered from), never from the ``diff --git`` header, which is ambiguous once a path
    contains `` b/``. A state without them shows the diff as one block.
    """
    files = state.get("turn_diff_files") or []
    if files:
        out = []
        for file in files:
            old, new = str(file.get("old_path", "")), str(file.get("path", ""))
            out.append((new if old in ("", new) else f"{old} → {new}", str(file.get("diff", ""))))
        return out
    diff = str(state.get("turn_diff") or "")
    return [("turn diff", diff)] if diff else []


def turn_counts(state: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """``(label, added, removed)`` per file of the TurnDiff: the counts of the whole block
    (``added``, ``removed``: jupyter/live/state.py ``view_blocks``), else of its text."""
    blocks = state.get("turn_diff_files") or []
    out = []
    for (label, text), block in zip(turn_diff_files(state), [*blocks, {}], strict=False):
        if "added" in block and "removed" in block:
            out.append((label, int(block["added"]), int(block["removed"])))
        else:
            out.append((label, *static_diff.diff_counts(text)))
    return out


def turn_diff_files_json(files: Sequence[Any]) -> list[dict[str, str]]:
    """:class:`~...core.turn.turn_diff.FileDiff` records as the plain JSON of a state."""
    return [{"old_path": f.old_path, "path": f.path, "diff": f.text} for f in files]


# -- the turn's summary ----------------------------------------------------------------------

#: What a record says its turn summary is, and where the turn's whole diff is.
TURN_SUMMARY: Final = "the whole turn, every call so far"
TURN_SHOWN_BY: Final = "`%apply_patch_turn` shows its diff"


def _total(counts: Sequence[tuple[str, int, int]]) -> tuple[int, int]:
    return sum(a for _, a, _ in counts), sum(r for _, _, r in counts)


def _more(rest: Sequence[tuple[str, int, int]]) -> str:
    """What a list says of the files it does not name: ``… and 3 more files``."""
    return f"… and {plural(len(rest), 'more file')}"


def _listed(counts: Sequence[tuple[str, int, int]]) -> list[str]:
    """Each file with its counts, at most LIST_ITEMS of them, then the rest counted."""
    shown, rest = counts[:LIST_ITEMS], counts[LIST_ITEMS:]
    lines = [f"{item(label)} {counts_text(a, r)}" for label, a, r in shown]
    if rest:
        lines.append(f"{_more(rest)} {counts_text(*_total(rest))}")
    return lines


def _turn_heading(counts: Sequence[tuple[str, int, int]]) -> str:
    return (
        f"turn diff: {plural(len(counts), 'file')} {counts_text(*_total(counts))} "
        f"({TURN_SUMMARY}; {TURN_SHOWN_BY})"
    )


def turn_summary_plain(state: Mapping[str, Any]) -> list[str]:
    """The turn's diff in a record's plain text: each file with its counts."""
    counts = turn_counts(state)
    if not counts:
        return []
    return [f"{_turn_heading(counts)}:", *(f"  {visible(line)}" for line in _listed(counts))]


def turn_summary_markdown(state: Mapping[str, Any]) -> list[str]:
    """The same in Markdown."""
    counts = turn_counts(state)
    if not counts:
        return []
    listed = [f"- {md_code(line)}" for line in _listed(counts)]
    return ["", md_text(_turn_heading(counts)) + ":", "", *listed]


def turn_summary_html(state: Mapping[str, Any], *, open_: bool) -> str:
    """The same in HTML: the files with their counts and bars, in a "Turn diff" that folds."""
    counts = turn_counts(state)
    if not counts:
        return ""
    shown, rest = counts[:LIST_ITEMS], counts[LIST_ITEMS:]
    entries = [
        f"<li><code>{esc(item(label))}</code>{static_diff.counts_html(a, r, bar=False)}</li>"
        for label, a, r in shown
    ]
    if rest:
        more = static_diff.counts_html(*_total(rest), bar=False)
        entries.append(f"<li>{esc(_more(rest))}{more}</li>")
    totals = static_diff.counts_html(*_total(counts))
    note = f" · {plural(len(counts), 'file')}{totals}: {esc(TURN_SUMMARY)}"
    body = (
        '<ul aria-label="turn files" style="margin:4px 0;padding-left:20px;font-size:12px">'
        f"{''.join(entries)}</ul><div>{esc(TURN_SHOWN_BY)}.</div>"
    )
    return section("Turn diff", body, open_=open_, note=note)


# -- the diffs as text --------------------------------------------------------------------------


def text_diffs(
    state: Mapping[str, Any],
    room: int,
    name: Callable[[str], str] = visible,
    *,
    whole_turn: bool = False,
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """The call's own changes and, with ``whole_turn``, the TurnDiff, bounded for the text
    representations (:func:`~.bound.bounded_blocks`, the files of each shared fairly): the own
    changes first, within half of ``room`` when a TurnDiff follows."""
    bound = TURN if whole_turn else RECORD
    own_blocks = own_change_diffs(state)
    turn_blocks = turn_diff_files(state) if whole_turn else []
    own_room = room // 2 if turn_blocks else room
    own = bounded_blocks(own_blocks, own_room, name, _own_cuts(state), bound) if own_blocks else []
    spent = sum(shared([label, kept, marker]) for label, kept, marker in own)
    turn_labels = [
        (f"{label} {counts_text(a, r)}", text)
        for (label, text), (_, a, r) in zip(turn_blocks, turn_counts(state), strict=False)
    ]
    cuts = [view_cut(block) for block in state.get("turn_diff_files") or []]
    turn = bounded_blocks(turn_labels, room - spent, name, cuts, bound) if turn_blocks else []
    return own, turn


def turn_diff_text(state: Mapping[str, Any]) -> str:
    """The turn's diff as plain text (``%apply_patch_turn``): the diff itself, what ``git
    apply`` takes, within the text share of :data:`~.bound.TURN`; past it, each cut block is
    followed by its marker, and the blocks left out by one marker."""
    cuts = [view_cut(block) for block in state.get("turn_diff_files") or []]
    kept = bounded_blocks(turn_diff_files(state), TURN.text, visible, cuts, TURN)
    return "".join(text + (f"{marker}\n" if marker else "") for _, text, marker in kept)


def _own_cuts(state: Mapping[str, Any]) -> list[tuple[int, int]]:
    changes = state.get("proposed") or {}
    return [
        view_cut(change)
        for change in changes.values()
        if isinstance(change, Mapping) and change_diff(change)
    ]


def preview(state: Mapping[str, Any]) -> dict[str, str]:
    """What the planned preview says it is: while the call runs, or once it has ended."""
    ended = bool(status_meaning(str(state.get("status", ""))).get("terminal"))
    return preview_words()["ended" if ended else "running"]


# -- the diffs as HTML --------------------------------------------------------------------------


def section(title: str, body: str, *, open_: bool, note: str = "", style: str = "") -> str:
    """A part of the record that folds: a ``<details>`` with its title and a note."""
    return (
        f'<details{" open" if open_ else ""} style="margin-top:6px;{style}">'
        f'<summary style="cursor:pointer"><b>{title}</b>{note}</summary>{body}</details>'
    )


_PREVIEW_BADGE: Final = (
    '<span style="border:1px dashed #c49102;color:#c49102;border-radius:8px;'
    'padding:0 6px;margin-right:6px;font-size:11px">preview</span>'
)


def _own_html(state: Mapping[str, Any], budget: ByteBudget, anchor: str, bound: Bound) -> str:
    cwd = str(state.get("cwd", ""))
    proposed = state.get("proposed") or {}
    changes = proposed or state.get("planned") or {}
    if not changes:
        return ""
    files = static_diff.change_files(
        changes, lambda p: relative_path(p, cwd), preview=not proposed, limit=bound.file_lines
    )
    count = f" · {plural(len(files), 'file')}"
    body = static_diff.files_html(files, f"{anchor}-c", budget, visible, bound)
    if proposed:
        return section("Verified changes", body, open_=True, note=count)
    words = preview(state)
    note = f'<div style="margin:4px 0;font-style:italic;color:#8b949e">{esc(words["text"])}</div>'
    return section(
        f"{_PREVIEW_BADGE}Planned changes",
        note + body,
        open_=True,
        note=f"{count}: {esc(words['note'])}",
        style="border-left:3px dashed #c49102;padding-left:6px",
    )


def diff_sections_html(
    state: Mapping[str, Any], budget: ByteBudget, anchor: str, *, whole_turn: bool = False
) -> tuple[str, str]:
    """The call's own changes (verified, or the planned preview) and the turn's diff: a
    summary under the call's own changes, folded unless it is all there is; with
    ``whole_turn`` (``%apply_patch_turn``) the whole diff, open, within the larger bound."""
    bound = TURN if whole_turn else RECORD
    blocks = turn_diff_files(state)
    turn = ""
    if blocks and not whole_turn:
        # folded under the call's own changes, if it has any; its room is taken first
        turn = turn_summary_html(state, open_=not (state.get("proposed") or state.get("planned")))
        budget.left -= size_of(turn)
    own = _own_html(state, budget, anchor, bound)
    if blocks and whole_turn:
        cuts = [view_cut(block) for block in state.get("turn_diff_files") or []]
        files = static_diff.block_files(
            [(label, label, text) for label, text in blocks], bound.file_lines, cuts
        )
        added = sum(f.added for f in files)
        removed = sum(f.removed for f in files)
        counts = static_diff.counts_html(added, removed)
        note = f" · {plural(len(files), 'file')}{counts}: {esc(TURN_SUMMARY)}"
        body = static_diff.files_html(files, f"{anchor}-t", budget, visible, bound)
        turn = section("Turn diff", body, open_=True, note=note)
    elif state.get("turn_diff_note"):
        turn = f"<div>turn diff: {esc(state['turn_diff_note'])}</div>"
    return own, turn
