"""One call and its widget: :class:`CallView`.

It streams the call's input into the widget, maps each event the call emits onto the widget's
traits (batched with ``hold_sync``), lets the final result fill only what no event carries
(see :mod:`.result`), and resumes the call when an approval button is clicked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..core.turn.events import RecordedEvent
from ..core.turn.options import Accept, Answer, CallStatus, Decision
from ..core.turn.result import CallResult
from ..core.turn.turn import ApplyPatchCall
from . import undo
from .display import turn_diff_files_json
from .result import CallDisplay, PatchCallResult, identity
from .streams import cancel_on_interrupt
from .widget import ApplyPatchWidget

#: At most this many characters of the patch text go to the browser (the call gets all).
DISPLAY_LIMIT: Final = 200_000
#: Minimum interval between two updates of the widget while the patch streams, in seconds:
#: the streamed text and the previews of that interval go in one update (at most 20 a second,
#: what the view renders without falling behind, whatever the chunk, delay and throttle).
TEXT_UPDATE_INTERVAL: Final = 0.05


def _selection(accept: Accept) -> Accept:
    """A selection from JSON (the widget's message) or Python: lists of chunk indexes as
    tuples, so that the core's checks see one shape; anything else is left to them."""
    if not isinstance(accept, dict):
        raise ValueError(
            f"accept: give a dict of path to True, False or chunk indexes, not {accept!r}"
        )
    return {
        str(path): tuple(value) if isinstance(value, list | tuple | set | frozenset) else value
        for path, value in accept.items()
    }


class CallView:
    """Runs one call and mirrors it into a widget and a :class:`PatchCallResult`."""

    def __init__(self, call: ApplyPatchCall, widget: ApplyPatchWidget | None = None) -> None:
        self.call = call
        self.widget = widget
        self.result: PatchCallResult | None = None
        self.display = CallDisplay(call.call_id)
        self._text_parts: list[str] = []
        self._last_text_update = -TEXT_UPDATE_INTERVAL  # the first delta shows at once
        self._streaming = True  # the input is still coming: updates are coalesced
        self._pending: dict[str, Any] = {}  # the event updates of the coming text update
        self._approver: Callable[..., Any] | None = None
        self.display_handle: Any = None  # set by whoever displayed the widget
        self._unsubscribe = call.turn.recorder.subscribe(self._on_event)
        self._apply(self.display.update(identity(call.call_id, call.turn.cwd)))
        #: the undo this view's Undo button started, and what the view shows of it (jupyter/undo)
        self.pending_undo: CallView | None = None
        self._undo_last: dict[str, Any] = {}
        if widget is not None:
            widget.on_decision(self.decide)
            widget.on_undo(self._on_undo)
            undo.register(self)

    def _apply(self, updates: Mapping[str, Any]) -> None:
        widget = self.widget
        if widget is None or not updates:
            return
        with widget.hold_sync():
            for name, value in updates.items():
                setattr(widget, name, value)

    # -- streaming ------------------------------------------------------------------------------

    def push(self, delta: str) -> None:
        self.call.push_delta(delta)
        self._text_parts.append(delta)
        now = time.monotonic()
        if now - self._last_text_update >= TEXT_UPDATE_INTERVAL:
            self._show_text()
            self._last_text_update = now

    def _show_text(self, *, done: bool = False) -> None:
        """One update of the widget: the text so far and the previews that waited for it;
        ``done``: the input is complete (or abandoned), nothing is streaming any more."""
        if done:
            self._streaming = False
        pending, self._pending = self._pending, {}
        if self.widget is None:
            return
        text = "".join(self._text_parts)
        self._text_parts = [text]
        truncated = len(text) > DISPLAY_LIMIT
        shown = text[:DISPLAY_LIMIT] if truncated else text
        self._apply(
            {
                **pending,
                "patch_text": shown,
                "patch_truncated": truncated,
                "current_line": 0 if done else shown.count("\n") + 1,
                "stage": self.call.stage,
            }
        )

    # -- running --------------------------------------------------------------------------------

    def run(self, approver: Any = None, *, dry_run: bool = False) -> PatchCallResult:
        self._show_text(done=True)
        self._approver = approver
        core = self.call.dry_run() if dry_run else self.call.run(approver)
        return self._publish(core)

    def abandon(self, reason: str) -> PatchCallResult:
        """The input stopped before its end (an interrupt while streaming): nothing runs; the
        view stops saying that the text streams."""
        self._show_text(done=True)
        return self._publish(self.call.abandon(reason))

    def decide(
        self, decision: str, accept: Accept | None = None, reason: str | None = None
    ) -> None:
        """An approval button was clicked: resume the call with that decision.

        A message that cannot answer the request (an unknown decision, a selection the patch
        does not allow) is ignored: the call still waits, and the widget says why.
        """
        if self.call.result is None or self.call.result.status != CallStatus.AWAITING_APPROVAL:
            return
        try:
            self.answer(Decision(decision), accept, reason)
        except ValueError as exc:
            if self.widget is not None:
                # cleared first, so that the same refusal twice still reaches the view
                base = {k: v for k, v in self.widget.review.items() if k != "error"}
                self.widget.review = base
                self.widget.review = {**base, "error": str(exc)}

    def answer(
        self, decision: Decision, accept: Accept | None = None, reason: str | None = None
    ) -> None:
        """Resume the call with an answer; ``ValueError`` when it cannot answer the request.

        The resumed call runs under the same interrupt guard as a first run: a kernel interrupt
        while it writes cancels it between two files, and it ends ``cancelled``.
        """
        accept = None if accept is None else _selection(accept)
        self.call.check_answer(Answer(decision, accept, reason))
        with cancel_on_interrupt(self.call.cancel):
            try:
                core = self.call.resume(decision, self._approver, accept=accept, reason=reason)
            except BaseException:
                # The call recorded how it ended (cancelled): show that, not a stale request.
                if self.call.result is not None:
                    self._publish(self.call.result)
                raise
        self._publish(core)

    def _decide_from_code(
        self, decision: str, accept: Accept | None = None, reason: str | None = None
    ) -> None:
        self.answer(Decision(decision), accept, reason)

    def _publish(self, core: CallResult) -> PatchCallResult:
        """The call stopped (or waits): its result fills what no event carried."""
        if self.result is None:
            self.result = PatchCallResult(core, self._decide_from_code, self.call.turn.tracker)
            self.result._undo = self.undo_from_code
            self.result._call = self.call
            self.result._undo_panel = lambda: undo.undo_panel(self.call, self._undo_last)
        else:
            self.result._update(core)
        if core.status != CallStatus.AWAITING_APPROVAL:
            self._unsubscribe()
        updates = self.display.on_result(
            core,
            self.result.turn_diff_files,
            self.result.notebooks,
            turn_valid=self.call.turn.tracker.valid,
        )
        # the place in the turn and the Undo/Redo buttons, in the same message
        self._apply({**updates, "undo": undo.undo_panel(self.call, self._undo_last)})
        if self.widget is not None and self.display_handle is not None:
            # Refresh the call's static record (record.CallRecord), saved with the notebook; the
            # live view itself is never re-sent, so it keeps its DOM node and fold state.
            self.display_handle.update(self.widget)
        return self.result

    # -- undo and redo (jupyter/undo.py) -------------------------------------------------------

    def refresh_undo(self) -> None:
        """The widget's place in the turn and its Undo/Redo buttons, as they are now; the
        call's record shows them too (a saved notebook keeps the undo's outcome)."""
        if self.widget is None:
            return
        panel = undo.undo_panel(self.call, self._undo_last)
        if panel == self.widget.undo:
            return
        self.widget.undo = panel
        if self.display_handle is not None:
            self.display_handle.update(self.widget)

    def show_undo(self, last: Mapping[str, Any]) -> None:
        self._undo_last = dict(last)
        self.refresh_undo()

    def _on_undo(self, content: Mapping[str, Any]) -> None:
        undo.from_widget(self, content)

    def undo_from_code(self, kind: str, **options: Any) -> PatchCallResult:
        """``result.undo()`` / ``result.redo()``: the undo's result (its widget is shown)."""
        view = undo.start(
            self.call.turn,
            self.call.call_id,
            kind="redo" if kind == "redo" else "undo",
            where=f"result.{kind}()",
            **options,
        )
        self.pending_undo = view
        self.show_undo(undo.outcome(view))
        return undo.result_of(view)

    def _on_event(self, recorded: RecordedEvent) -> None:
        event = recorded.to_json()
        if not self.display.accepts(event):
            return
        tracker = self.call.turn.tracker
        updates = self.display.on_event(
            event, self.call.stage, lambda: turn_diff_files_json(tracker.file_diffs())
        )
        if self._streaming:  # a preview: it goes with the next text update (see push)
            self._pending.update(updates)
            return
        self._apply(updates)
