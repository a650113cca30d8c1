"""``%apply_patch_undo`` and ``%apply_patch_redo`` (docs/behaviour.md §11), and the undo of a
whole turn (``%apply_patch_turn --undo``).

``%apply_patch_undo [CALL_ID] [--turn TURN] [--force] [--only PATH ...]`` and
``%apply_patch_redo [CALL_ID] [--turn TURN]`` name the call and its turn; the undo itself is a
call with its view (:func:`~..live.undo.start`).
"""

from __future__ import annotations

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from ...core.turn.options import CallStatus
from ...core.turn.turn import Turn
from ...core.turn.undo import UndoError, default_target, undo_turn_summary
from ...core.turn.undo_call import UndoCall
from ...core.turn.undo_conflicts import Kind
from ...markup import md_text
from ..live.session import SESSION
from ..live.undo import start
from ..live.view import CallView
from .arguments import parse_options, undo_arguments


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
    @undo_arguments
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
    @undo_arguments
    @line_magic
    def apply_patch_redo(self, line: str) -> None:
        """Redo what an undo put back: the files go back to the state the call left them in,
        after the same check (a file changed since the undo is a conflict)."""
        self._run("%apply_patch_redo", "redo", line)

    def _run(self, where: str, kind: Kind, line: str) -> None:
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
    what it did not and how to go on (:func:`~...core.turn.undo.undo_turn_summary`)."""
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


__all__ = ["UndoMagics", "undo_whole_turn"]
