"""Undo, redo and the history in a notebook (docs/behaviour.md §11).

``%apply_patch_undo [CALL_ID] [--turn TURN] [--force] [--only PATH ...]``,
``%apply_patch_redo [CALL_ID] [--turn TURN]``, ``result.undo()`` / ``result.redo()`` and the
widget's Undo and Redo buttons all come here:
each undo is a call of the turn (:class:`~applypatch_ext.core.turn.undo.UndoCall`) shown like
any call, in its own widget (or its rich fallback). A conflict is shown with its three versions
(:class:`ConflictView`), in the undo's widget and in the widget whose button asked for it.
``%apply_patch_turn --history`` is :class:`HistoryView` over the session's turns.
"""

from __future__ import annotations

import html
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from ..core.turn.history import HistoryEntry, turn_history
from ..core.turn.options import ASK, CallStatus, Decision, FrontEnd, argument_groups
from ..core.turn.turn import ApplyPatchCall, Turn
from ..core.turn.undo import (
    Conflict,
    Kind,
    UndoCall,
    UndoError,
    call_records,
    default_target,
    undo_call,
    undo_turn_summary,
    undone_paths,
)
from .display import md_text, visible
from .notebooks import (
    is_notebook_path,
    notebook_diff,
    revert_notebook_diffs,
)
from .panels import (
    bounded_conflict,
    conflicts_html,
    conflicts_markdown,
    conflicts_plain,
)
from .session import SESSION
from .widget import ApplyPatchWidget

if TYPE_CHECKING:
    from .result import PatchCallResult
    from .view import CallView

# The live views of each turn's calls, to refresh their Undo/Redo buttons after an undo.
_VIEWS: weakref.WeakValueDictionary[tuple[int, str], CallView] = weakref.WeakValueDictionary()


def register(view: CallView) -> None:
    _VIEWS[(id(view.call.turn), view.call.call_id)] = view


def refresh(turn: Turn) -> None:
    """Every live view of ``turn``: its place and its buttons again."""
    for (turn_key, _call), view in list(_VIEWS.items()):
        if turn_key == id(turn):
            view.refresh_undo()


# -- what a call's widget shows ------------------------------------------------------------------


def place(call: ApplyPatchCall) -> dict[str, Any]:
    """Where the call is in its turn: ``call 2 of 3 in turn-1``."""
    calls = call.turn.calls
    index = next((i for i, c in enumerate(calls, 1) if c is call), len(calls))
    return {"index": index, "count": len(calls), "turn_id": call.turn.turn_id}


def _undoable(call: ApplyPatchCall) -> tuple[list[str], list[str]]:
    """The files an Undo of the call would put back, and those a Redo would take forward."""
    result = call.result
    if isinstance(call, UndoCall) or result is None or not result.status.terminal:
        return [], []
    records = call_records(call)
    undone = undone_paths(call.turn, call.call_id) & set(records)
    pending = [p for p in records if p not in undone and (result.delta.exact or records[p].known)]
    return pending, [p for p in records if p in undone]


def can_undo(call: ApplyPatchCall) -> tuple[bool, bool]:
    """Whether the call's Undo and Redo buttons do something now."""
    pending, undone = _undoable(call)
    return bool(pending), bool(undone)


# Per call, the cell views of what its Undo and Redo would restore, by the files they take:
# a call's records never change once it ended, and every undo refreshes every view of a turn.
_RESTORE_VIEWS: weakref.WeakKeyDictionary[
    ApplyPatchCall, dict[tuple[bool, tuple[str, ...]], list[dict[str, Any]]]
] = weakref.WeakKeyDictionary()


def restore_views(
    call: ApplyPatchCall, paths: Sequence[str], *, redo: bool
) -> list[dict[str, Any]]:
    """The notebooks among ``paths`` as cells: what an undo (``redo``: a redo) of the call
    would write back (docs/behaviour.md §11.7). Empty when the call touched no notebook."""
    if not any(is_notebook_path(p) for p in paths):
        return []
    cache = _RESTORE_VIEWS.setdefault(call, {})
    key = (redo, tuple(paths))
    if key not in cache:
        cache[key] = revert_notebook_diffs(call_records(call), paths, redo=redo)
    return cache[key]


def edited_views(conflicts: Iterable[Conflict]) -> list[dict[str, Any]]:
    """The conflicting notebooks as cells: how each changed since the call (or the undo) left
    it, to what is on disk now; a notebook that cannot be read as text now has none."""
    views = []
    for c in conflicts:
        if c.now is None or not is_notebook_path(c.abs_path):
            continue
        expected = c.left if c.kind == "undo" else c.before
        views.append(notebook_diff(expected.content, c.now.content, path=c.abs_path))
    return views


def undo_panel(call: ApplyPatchCall, last: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``undo`` trait: the call's place, its buttons, the last undo it asked for, and as
    cells the notebooks its Undo and Redo would restore and those its last undo found changed
    (``edited``, from :func:`outcome`)."""
    pending, undone = _undoable(call)
    shown = dict(last or {})
    edited = shown.pop("edited", [])
    panel: dict[str, Any] = {
        "place": place(call),
        "can_undo": bool(pending),
        "can_redo": bool(undone),
        "last": shown,
        "notebooks": {
            "undo": restore_views(call, pending, redo=False),
            "redo": restore_views(call, undone, redo=True),
            "edited": edited,
        },
    }
    if isinstance(call, UndoCall):
        panel["of"] = call.target_id
        panel["kind"] = call.kind
        panel["conflicts"] = [bounded_conflict(c.to_json()) for c in call.conflicts]
        panel["notebooks"]["edited"] = edited_views(call.conflicts)
    return panel


def outcome(view: CallView) -> dict[str, Any]:
    """What an undo's view shows in the widget that asked for it."""
    call = view.call
    result = call.result
    assert isinstance(call, UndoCall) and result is not None
    approval: dict[str, Any] = {}
    if result.pending_request is not None:
        approval = {
            "files": list(result.pending_request.files),
            "reason": result.pending_request.reason,
        }
    return {
        "call_id": call.call_id,
        "kind": call.kind,
        "status": str(result.status),
        "output": result.stdout if result.status == CallStatus.COMPLETED else "",
        "error": result.error or "",
        "conflicts": [bounded_conflict(c.to_json()) for c in call.conflicts],
        "approval": approval,
        "choices": choices(call),
        "edited": edited_views(call.conflicts),
    }


# -- running an undo -----------------------------------------------------------------------------


def start(
    turn: Turn,
    call_id: str | None,
    *,
    kind: Kind,
    only: Sequence[str] | None = None,
    force: bool = False,
    approve: str = ASK,
    widget: bool = True,
    show: bool = True,
    where: str = "%apply_patch_undo",
) -> CallView:
    """Make the undo (or redo) a call with its view, run it, and show it; ``UsageError`` for
    what cannot be asked for. Without a widget the result and any conflict are displayed as
    rich output (unless ``show`` is false: a button's undo shows in the widget that asked)."""
    from .record import show_call
    from .streams import run_streamed
    from .view import CallView

    try:
        call = undo_call(
            turn, call_id, kind=kind, only=only, force=force, later_turns=later_turns(turn)
        )
    except UndoError as exc:
        raise UsageError(f"{where}: {exc}") from exc  # (the widget reads what it offers)
    shown = ApplyPatchWidget() if widget else None
    view = CallView(call, shown)
    if shown is not None:
        view.display_handle = show_call(shown)
    # streamed like a patch (its description), under the same interrupt guard
    run_streamed(view, [call.patch], approver=None if approve == ASK else Decision(approve))
    if shown is None and show:
        display(view.result)  # with its undo panel: place, conflicts and their three versions
    refresh(turn)
    return view


def later_turns(turn: Turn) -> list[Turn]:
    """The session's turns after ``turn`` (none for a turn the session does not list)."""
    turns = SESSION.turns
    index = next((i for i, t in enumerate(turns) if t is turn), None)
    return [] if index is None else turns[index + 1 :]


def result_of(view: CallView) -> PatchCallResult:
    assert view.result is not None
    return view.result


def from_widget(source: CallView, content: Mapping[str, Any]) -> None:
    """A widget's Undo or Redo button (``{"type": "undo", "kind": ...}``), or its answer to
    the undo's approval request (``{"type": "undo-approval", "decision": ...}``)."""
    if content.get("type") == "undo-approval":
        pending = source.pending_undo
        if pending is not None:
            result = pending.call.result
            try:
                if result is None or result.status != CallStatus.AWAITING_APPROVAL:
                    raise ValueError(f"{pending.call.call_id} is not waiting for approval")
                pending.answer(Decision(str(content.get("decision", ""))))
            except ValueError as exc:  # not a decision, or the undo no longer waits: say so
                source.show_undo({**outcome(pending), "error": f"not sent: {exc}"})
                return
            source.show_undo(outcome(pending))
            refresh(source.call.turn)
        return
    problem = _malformed(content)
    if problem is not None:  # never widened to every file, never forced by a stray string
        source.show_undo({"kind": str(content.get("kind")), "status": "error", "error": problem})
        return
    kind: Kind = "redo" if content.get("kind") == "redo" else "undo"
    only = content.get("only")
    picked = list(only) if isinstance(only, list) else None
    try:
        view = start(
            source.call.turn,
            source.call.call_id,
            kind=kind,
            only=picked,
            force=content.get("force") is True,
            widget=False,
            show=False,
            where=f"{kind} of {source.call.call_id}",
        )
    except UsageError as exc:
        cause = exc.__cause__
        offered = cause.offered if isinstance(cause, UndoError) else ()
        last: dict[str, Any] = {"kind": kind, "status": "error", "error": str(exc)}
        if offered:
            last["choices"] = [_choice(f"{kind.capitalize()} these files only", kind, offered)]
        source.show_undo(last)
        return
    source.pending_undo = view
    source.show_undo(outcome(view))


def _malformed(content: Mapping[str, Any]) -> str | None:
    """What is wrong with an Undo / Redo message the widget would not send, or None."""
    kind, only, force = content.get("kind"), content.get("only"), content.get("force", False)
    if kind not in ("undo", "redo"):
        return f"kind: 'undo' or 'redo', not {kind!r:.80}"
    if only is not None and not (isinstance(only, list) and all(isinstance(p, str) for p in only)):
        return f"only: give a list of the call's files, not {only!r:.80}"
    if not isinstance(force, bool):
        return f"force: give true or false, not {force!r:.80}"
    return None


def _choice(
    label: str, kind: Kind, only: Sequence[str] = (), *, force: bool = False
) -> dict[str, Any]:
    """A way on that a button of the widget offers: its label and the message it sends."""
    message: dict[str, Any] = {"type": "undo", "kind": kind}
    if only:
        message["only"] = list(only)
    if force:
        message["force"] = True
    return {"label": label, "message": message}


def choices(call: UndoCall) -> list[dict[str, Any]]:
    """After a conflict: undo the other files only (if any), or overwrite the changed ones."""
    conflicting = {c.abs_path for c in call.conflicts}
    if not conflicting:
        return []
    others = [p for p in call.plan_paths if p not in conflicting]
    offered = []
    if others:
        offered.append(_choice(f"{call.kind.capitalize()} the other files only", call.kind, others))
    offered.append(_choice("Overwrite the changed files (force)", call.kind, force=True))
    return offered


# -- the static views ----------------------------------------------------------------------------


class ConflictView:
    """The conflicting files of an undo, each with its three versions (bounded: see
    :mod:`.panels`, which renders them in a call's record too)."""

    def __init__(self, conflicts: Iterable[Conflict]) -> None:
        conflicts = list(conflicts)
        self.conflicts = [bounded_conflict(c.to_json()) for c in conflicts]
        #: per conflicting notebook, its change since as cells (edited_views)
        self.cells = {view["path"]: view for view in edited_views(conflicts)}

    def _repr_html_(self) -> str:
        return conflicts_html(self.conflicts, self.cells)

    def _repr_markdown_(self) -> str:
        return "\n".join(conflicts_markdown(self.conflicts, self.cells))

    def __repr__(self) -> str:
        return "\n".join(conflicts_plain(self.conflicts))


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


# -- the magics ----------------------------------------------------------------------------------


def _table_option(name: str) -> tuple[str, dict[str, Any]]:
    """The call option ``name`` as the call magic has it (the one option table)."""
    for _title, entries in argument_groups(FrontEnd.MAGIC):
        for option, kwargs in entries:
            if option == name:
                return option, kwargs
    raise KeyError(name)


def _common(func: Any) -> Any:
    for name in reversed(("--approve", "--no-widget")):
        option, kwargs = _table_option(name)
        argument(option, **kwargs)(func)
    return func


def _turn_of(where: str, kind: Kind, call_id: str | None, name: str | None) -> Turn:
    """The turn a ``%apply_patch_undo`` / ``redo`` names: ``--turn``, else the current one. A
    CALL_ID the current turn lacks but an earlier turn has is refused with the way to name it
    (call ids restart at call-1 in every turn: the turn is never guessed)."""
    if name is not None:
        wanted = name if name.startswith("turn-") else f"turn-{name}"
        for turn in SESSION.turns:
            if turn.turn_id == wanted:
                return turn
        known = ", ".join(t.turn_id for t in SESSION.turns) or "none yet"
        raise UsageError(f"{where}: --turn {name}: no such turn in this session; turns: {known}")
    current = SESSION.turn
    if current is not None and (
        call_id is None or any(c.call_id == call_id for c in current.calls)
    ):
        return _current_turn(where)
    elsewhere = [
        t.turn_id
        for t in SESSION.turns
        if t is not current and any(c.call_id == call_id for c in t.calls)
    ]
    if call_id is not None and elsewhere:
        here = " has no call yet" if current is None else f", {current.turn_id}, has no {call_id}"
        how = " or ".join(f"%apply_patch_{kind} {call_id} --turn {t}" for t in elsewhere)
        raise UsageError(
            f"{where}: the current turn{here}; {', '.join(elsewhere)} has one: {how} "
            f"({kind}s it as a call of that turn, in that turn's diff)"
        )
    return _current_turn(where)


def _current_turn(where: str) -> Turn:
    turn = SESSION.turn
    if turn is None or not turn.calls:
        raise UsageError(f"{where}: no call has run in this session's turn yet: nothing to undo")
    return turn


@magics_class
class UndoMagics(Magics):
    """``%apply_patch_undo`` and ``%apply_patch_redo``."""

    @magic_arguments()
    @argument(
        "call_id",
        nargs="?",
        default=None,
        metavar="CALL_ID",
        help="The call to undo (default: the last call of the turn that is not undone yet).",
    )
    @argument(
        "--force",
        action="store_true",
        help="Undo files changed since the call too, overwriting those changes.",
    )
    @argument(
        "--only",
        nargs="+",
        metavar="PATH",
        default=None,
        help="Undo these files only (relative to the call's working directory).",
    )
    @argument(
        "--turn",
        default=None,
        metavar="TURN",
        help=(
            "The turn of CALL_ID, as %%apply_patch_turn --history names it (turn-1 or 1; "
            "default: the current turn). The undo is a call of that turn, in its TurnDiff."
        ),
    )
    @_common
    @line_magic
    def apply_patch_undo(self, line: str) -> None:
        """Undo a call: the inverse of its committed delta, as a new call of the turn.

        Every file it touches must still be exactly as the call left it (content, existence,
        mode); a file changed since is a conflict, shown with its three versions, and nothing
        is undone unless --only leaves it out or --force overwrites it.
        """
        self._run("%apply_patch_undo", "undo", line)

    @magic_arguments()
    @argument(
        "call_id",
        nargs="?",
        default=None,
        metavar="CALL_ID",
        help="The call to redo (default: the last call undone).",
    )
    @argument(
        "--force",
        action="store_true",
        help="Redo files changed since the undo too, overwriting those changes.",
    )
    @argument(
        "--only",
        nargs="+",
        metavar="PATH",
        default=None,
        help="Redo these files only (relative to the call's working directory).",
    )
    @argument(
        "--turn",
        default=None,
        metavar="TURN",
        help="The turn of CALL_ID (turn-1 or 1; default: the current turn).",
    )
    @_common
    @line_magic
    def apply_patch_redo(self, line: str) -> None:
        """Redo what an undo put back: the files go back to the state the call left them in,
        after the same check (a file changed since the undo is a conflict)."""
        self._run("%apply_patch_redo", "redo", line)

    def _run(self, where: str, kind: Kind, line: str) -> None:
        from .magic import parse_options

        magic = self.apply_patch_undo if kind == "undo" else self.apply_patch_redo
        args = parse_options(magic, where, line)
        turn = _turn_of(where, kind, args.call_id, args.turn)
        start(
            turn,
            args.call_id,
            kind=kind,
            only=args.only,
            force=args.force,
            approve=args.approve,
            widget=not args.no_widget,
            where=where,
        )


def undo_whole_turn(where: str = "%apply_patch_turn --undo") -> list[CallView]:
    """Every call of the current turn, newest first, each undone as a call with its view;
    stops at the first undo that does not complete (it shows why), then says what it undid,
    what it did not and how to go on (:func:`~..core.turn.undo.undo_turn_summary`)."""
    turn = _current_turn(where)
    views: list[CallView] = []
    while True:
        try:
            undo_call_check = _default_undo(turn)
        except UndoError as exc:
            if views:
                break
            raise UsageError(f"{where}: {exc}") from None
        if any(isinstance(v.call, UndoCall) and v.call.target_id == undo_call_check for v in views):
            break  # undone already and still offered: never loop
        view = start(turn, undo_call_check, kind="undo", where=where)
        views.append(view)
        result = view.call.result
        if result is None or result.status != CallStatus.COMPLETED:
            break
    summary = undo_turn_summary(turn, [v.call for v in views], where)
    markdown = "  \n".join(md_text(line) for line in summary.split("\n"))  # hard line breaks
    display({"text/plain": summary, "text/markdown": markdown}, raw=True)
    return views


def _default_undo(turn: Turn) -> str:
    return default_target(turn, "undo").call_id


__all__ = [
    "ConflictView",
    "HistoryView",
    "UndoMagics",
    "can_undo",
    "from_widget",
    "start",
    "undo_panel",
    "undo_whole_turn",
]
