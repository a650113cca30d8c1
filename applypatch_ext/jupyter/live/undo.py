"""Undo and redo as calls with their views (docs/behaviour.md §11).

``result.undo()`` / ``result.redo()``, the widget's Undo and Redo buttons and the undo magics
(:mod:`..magics.undo`) all come here: each undo is a call of the turn
(:class:`~applypatch_ext.core.turn.undo_call.UndoCall`) shown like any call, in its own widget
(or its rich fallback); a conflict shows its three versions in the undo's widget and in the
widget whose button asked for it. The ``undo`` trait of every call (its place in the turn, its
buttons, its last undo) is :func:`undo_panel`. A view gets all of this as :data:`HOOKS`.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from IPython.core.error import UsageError
from IPython.display import display

from ...core.turn.call import ApplyPatchCall, CallTurn
from ...core.turn.options import ASK, CallStatus, Decision
from ...core.turn.turn import Turn
from ...core.turn.undo import UndoError, undo_call, undone_paths
from ...core.turn.undo_call import UndoCall
from ...core.turn.undo_conflicts import Conflict, Kind, call_records
from ...notebooks import is_notebook_path, notebook_diff, revert_notebook_diffs
from ..records.conflicts import bounded_conflict
from ..records.record import live, show_call
from ..records.vocabulary import request_words
from .result import PatchCallResult
from .session import SESSION
from .view import CallView, UndoHooks, views_of
from .widget import ApplyPatchWidget


def refresh(turn: CallTurn) -> None:
    """Every live view of ``turn``: its place and its buttons again."""
    for view in views_of(turn):
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
        # what the call is shown as once an undo put files back (vocabulary's ``undone``)
        "undone": ("partly undone" if pending else "undone") if undone else "",
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
            "request_id": result.pending_request.request_id,
            **request_words(len(result.pending_request.files)),
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
    turn: CallTurn,
    call_id: str | None,
    *,
    kind: Kind,
    only: Sequence[str] | None = None,
    force: bool = False,
    approve: str = ASK,
    widget: bool = True,
    show: bool = True,
    where: str = "%apply_patch_undo",
    target: ApplyPatchCall | None = None,
) -> CallView:
    """Make the undo (or redo) a call with its view, run it, and show it; ``UsageError`` for
    what cannot be asked for. Without a widget the result and any conflict are displayed as
    rich output (unless ``show`` is false: a button's undo shows in the widget that asked).
    ``target``: the call itself (a button's own call), instead of ``call_id``."""
    try:
        call = undo_call(
            turn,
            call_id,
            kind=kind,
            only=only,
            force=force,
            later_turns=later_turns(turn),
            target=target,
        )
    except UndoError as exc:
        raise UsageError(f"{where}: {exc}") from exc  # (the widget reads what it offers)
    shown = ApplyPatchWidget() if live(widget) else None
    view = CallView(call, shown, undo=HOOKS)
    if shown is not None:
        view.display_handle = show_call(shown)
    # streamed like a patch (its description), under the same interrupt guard
    view.stream([call.patch], approver=None if approve == ASK else Decision(approve))
    if shown is None and show and live(True):  # (plain Python: the result is returned only)
        display(view.result)  # with its undo panel: place, conflicts and their three versions
    refresh(turn)
    return view


def later_turns(turn: CallTurn) -> list[Turn]:
    """The session's turns after ``turn`` (none for a turn the session does not list)."""
    turns = SESSION.turns
    index = next((i for i, t in enumerate(turns) if t is turn), None)
    return [] if index is None else turns[index + 1 :]


def result_of(view: CallView) -> PatchCallResult:
    assert view.result is not None
    return view.result


def from_widget(source: CallView, content: Mapping[str, Any]) -> None:
    """A widget's Undo or Redo button (``{"type": "undo", "kind": ...}``), or its answer to
    the undo's approval request (``{"type": "undo-approval", "decision": ..., "request":
    ...}``, naming the request it answers: one naming none or another is refused)."""
    if content.get("type") == "undo-approval":
        pending = source.pending_undo
        if pending is not None:
            result = pending.call.result
            request = content.get("request")
            try:
                if result is None or result.status != CallStatus.AWAITING_APPROVAL:
                    raise ValueError(f"{pending.call.call_id} is not waiting for approval")
                if not isinstance(request, str):
                    raise ValueError(
                        f"the message names no request (request: {request!r:.80}); an answer "
                        f"names the request it answers, {pending.call.pending_request_id!r} now"
                    )
                pending.answer(Decision(str(content.get("decision", ""))), request=request)
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
            None,
            target=source.call,  # its own call, never one found by its id
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


def run_from_code(view: CallView, kind: str, **options: Any) -> PatchCallResult:
    """``result.undo()`` / ``result.redo()`` of ``view``'s call: the undo's result (its widget
    is shown), and ``view`` shows its outcome."""
    undo = start(
        view.call.turn,
        None,
        target=view.call,  # its own call, never one found by its id
        kind="redo" if kind == "redo" else "undo",
        where=f"result.{kind}()",
        **options,
    )
    view.pending_undo = undo
    view.show_undo(outcome(undo))
    return result_of(undo)


#: What every view of a call is given (:class:`~.view.UndoHooks`).
HOOKS: Final = UndoHooks(panel=undo_panel, clicked=from_widget, run=run_from_code)
