"""The kernel side of the Jupyter layer: the session, its turns, and the events' summaries.

:class:`ApplyPatchSession` (one per kernel, :data:`SESSION`) keeps the current
:class:`~applypatch_ext.core.turn.turn.Turn` and the "approve for session" answers. One call
and its widget are a :class:`~.view.CallView`; the displayed state is defined in
:mod:`.result`; :func:`~.streams.stream_patch` feeds a call from a stream of deltas.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ...core.turn.events import EventType
from ...core.turn.options import PipelineOptions
from ...core.turn.turn import Turn


def summarize_event(event: dict[str, Any]) -> str:
    """A one-line summary of an event for the timeline."""
    kind = event.get("type")
    if kind == EventType.PATCH_APPLY_UPDATED:
        return f"{len(event.get('changes', {}))} planned change(s)"
    if kind == EventType.PATCH_SAFETY_ASSESSED:
        reason = f": {event['reason']}" if event.get("reason") else ""
        sandbox = " (sandboxed)" if event.get("sandboxed") else ""
        return f"{event.get('decision')}{sandbox}{reason}"
    if kind == EventType.PATCH_APPLY_BEGIN:
        approved = "auto-approved" if event.get("auto_approved") else "needs approval"
        return f"{len(event.get('changes', {}))} change(s), {approved}"
    if kind == EventType.APPLY_PATCH_APPROVAL_REQUEST:
        retry = "retry without sandbox: " if event.get("retry") else ""
        return retry + ", ".join(event.get("files", []))
    if kind == EventType.APPLY_PATCH_APPROVAL_DECISION:
        return str(event.get("decision"))
    if kind == EventType.PATCH_APPLY_END:
        return str(event.get("status"))
    if kind == EventType.TURN_DIFF:
        diff = str(event.get("unified_diff", ""))
        return f"{diff.count('diff --git ')} file(s)" if diff else "cleared"
    if kind == EventType.TRANSACTION_RECOVERED:
        restored, removed = len(event.get("restored", [])), len(event.get("removed", []))
        failed = len(event.get("failures", []))
        text = f"unfinished atomic call {event.get('interrupted_call_id')} rolled back: "
        text += f"{restored} restored, {removed} removed"
        skipped = len(event.get("skipped", []))
        text += f", {failed} could not be restored" if failed else ""
        return text + (
            f", {skipped} left alone (that call could not change them)" if skipped else ""
        )
    if kind == EventType.TRANSACTION_JOURNAL_REFUSED:
        moved = event.get("moved_to")
        where = f"moved aside to {moved}" if moved else f"not moved: {event.get('move_error')}"
        return f"refused the journal {event.get('journal')}: {event.get('reason')}; {where}"
    return ""


class ApplyPatchSession:
    """The kernel's state: the current turn (one working directory at a time)."""

    def __init__(self) -> None:
        self.turn: Turn | None = None
        # "Approve for session" answers, kept across turns as Codex keeps them for its session.
        self.approvals: set[tuple[str, str]] = set()
        #: every turn of the session, oldest first (the history lists them)
        self.turns: list[Turn] = []
        #: held while a call of the session's turn runs: the agent's desk runs its calls in
        #: threads of its own, on the same turn (jupyter/live/desk.py)
        self.lock = threading.RLock()

    def turn_for(self, cwd: str, options: PipelineOptions | None = None) -> Turn:
        cwd = os.path.abspath(cwd)
        if self.turn is None or self.turn.cwd != cwd:
            turn_id = f"turn-{len(self.turns) + 1}"
            self.turn = Turn(
                cwd, options=options, session_approvals=self.approvals, turn_id=turn_id
            )
            self.turns.append(self.turn)
        return self.turn

    def new_turn(self) -> None:
        self.turn = None


SESSION = ApplyPatchSession()
