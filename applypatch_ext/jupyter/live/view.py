"""One call and its widget: :class:`CallView`.

It streams the call's input into the widget (:meth:`CallView.stream`: a kernel interrupt
cancels the call, :func:`cancel_on_interrupt`), maps each event the call emits onto the
widget's traits (batched with ``hold_sync``), lets the final result fill only what no event
carries (see :mod:`.result`), and resumes the call when an approval button is clicked.

Its Undo and Redo buttons, its undo panel and ``result.undo()`` are the undo machinery's
(:mod:`.undo`, a floor above): the view takes them as :class:`UndoHooks`.
"""

from __future__ import annotations

import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ...core.interrupts import CancellationToken
from ...core.turn.call import ApplyPatchCall
from ...core.turn.events import RecordedEvent
from ...core.turn.options import Accept, Answer, CallStatus, Decision
from ...core.turn.result import CallResult
from ..records.diffs import turn_diff_files_json
from .result import PatchCallResult
from .session import SESSION
from .state import CallDisplay, identity
from .widget import ApplyPatchWidget

#: At most this many characters of the patch text go to the browser (the call gets all).
DISPLAY_LIMIT: Final = 200_000
#: Minimum interval between two updates of the widget while the patch streams, in seconds:
#: the streamed text and the previews of that interval go in one update (at most 20 a second,
#: what the view renders without falling behind, whatever the chunk, delay and throttle).
TEXT_UPDATE_INTERVAL: Final = 0.05


@contextmanager
def cancel_on_interrupt(token: CancellationToken) -> Iterator[None]:
    """While inside, SIGINT (a kernel interrupt) cancels ``token`` instead of raising."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(_signum: int, _frame: Any) -> None:
        token.cancel()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


#: How often a pause between two deltas looks at the cancellation token, in seconds.
_PAUSE_STEP = 0.05


def _pause(seconds: float, token: CancellationToken) -> None:
    """Sleep ``seconds``, ending early once ``token`` is cancelled: a kernel interrupt only
    cancels the token (its handler returns), and ``time.sleep`` would sleep on to the end."""
    end = time.monotonic() + seconds
    while not token.cancelled:
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, _PAUSE_STEP))


@dataclass(frozen=True)
class UndoHooks:
    """What a view asks of the undo machinery (:data:`.undo.HOOKS`), which it never imports:
    the ``undo`` trait of a call (its place, its buttons, its last undo), what an Undo or Redo
    button's message does, and ``result.undo()`` / ``result.redo()``."""

    panel: Callable[[ApplyPatchCall, Mapping[str, Any]], dict[str, Any]]
    clicked: Callable[[CallView, Mapping[str, Any]], None]
    run: Callable[..., PatchCallResult]


class RecordHandle(Protocol):
    """Where a view's call is shown beside its widget (records.record.CallRecord, the desk's
    DeskRecord): refreshed when the call publishes, and shown again in another cell."""

    def update(self, widget: ApplyPatchWidget | None = None) -> None: ...

    def show_again(self, widget: ApplyPatchWidget) -> None: ...


# Every live view, by its turn and its call: an undo refreshes the others of its turn (.undo),
# and ``%apply_patch_turn`` shows a turn's waiting calls again. A widget holds its view (its
# handlers), the comm its widget: a view lives as long as its widget does.
_VIEWS: weakref.WeakValueDictionary[tuple[int, str], CallView] = weakref.WeakValueDictionary()


def views_of(turn: Any) -> list[CallView]:
    """The live views of ``turn``'s calls, in the order of its calls."""
    order = {id(call): index for index, call in enumerate(turn.calls)}
    views = [view for (key, _call), view in list(_VIEWS.items()) if key == id(turn)]
    return sorted(views, key=lambda view: order.get(id(view.call), len(order)))


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

    def __init__(
        self,
        call: ApplyPatchCall,
        widget: ApplyPatchWidget | None = None,
        *,
        undo: UndoHooks | None = None,
        name: str = "",
    ) -> None:
        """``name``: the variable the call's result is stored in (``%%apply_patch NAME``)."""
        self.call = call
        self.widget = widget
        self.undo_hooks = undo
        self.name = name
        self.result: PatchCallResult | None = None
        self.display = CallDisplay(call.call_id)
        self._text_parts: list[str] = []
        self._last_text_update = -TEXT_UPDATE_INTERVAL  # the first delta shows at once
        self._streaming = True  # the input is still coming: updates are coalesced
        self._pending: dict[str, Any] = {}  # the event updates of the coming text update
        self._approver: Callable[..., Any] | None = None
        self.display_handle: RecordHandle | None = None  # set by whoever displayed the widget
        self._unsubscribe = call.turn.recorder.subscribe(self._on_event)
        self._apply(
            self.display.update(
                {
                    **identity(call.call_id, call.turn.cwd, call.requested_call_id),
                    "result_name": name,
                }
            )
        )
        #: the undo this view's Undo button started, and what the view shows of it (.undo)
        self.pending_undo: CallView | None = None
        self._undo_last: dict[str, Any] = {}
        if widget is not None:
            widget.on_decision(self.decide)
            widget.on_undo(self._on_undo)
            _VIEWS[(id(call.turn), call.call_id)] = self

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

    def stream(
        self,
        deltas: Iterable[str],
        *,
        delay: float = 0.0,
        approver: Any = None,
        dry_run: bool = False,
    ) -> PatchCallResult:
        """Stream ``deltas`` into the call (sleeping ``delay`` between two of them, not after
        the last), then run it.

        A kernel interrupt while streaming or applying cancels the call: it keeps what it wrote
        and its result says ``cancelled``.
        """
        token = self.call.cancel
        # the agent's desk runs calls of the same turn in threads of its own (live/desk.py)
        with SESSION.lock, cancel_on_interrupt(token):
            for index, delta in enumerate(deltas):
                if index and delay > 0:
                    _pause(delay, token)
                if token.cancelled:
                    break
                self.push(delta)
            if token.cancelled and self.call.result is None:
                return self.abandon("cancelled while the patch was streaming: nothing was run")
            return self.run(approver, dry_run=dry_run)

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
        self,
        decision: str,
        accept: Accept | None = None,
        reason: str | None = None,
        request: Any = None,
    ) -> None:
        """An approval button was clicked: resume the call with that decision.

        The message names the request it answers (``request``: its ``request_id``); one that
        names none or another (a stale message from a second tab, a scripted one), or that
        cannot answer the request (an unknown decision, a selection the patch does not allow,
        a reason that is not text) is refused: the call still waits, and the widget says why.
        """
        if self.call.result is None or self.call.result.status != CallStatus.AWAITING_APPROVAL:
            return
        try:
            if not isinstance(request, str):
                raise ValueError(
                    f"the message names no request (request: {request!r:.80}); an answer names "
                    f"the request it answers, {self.call.pending_request_id!r} now"
                )
            self.answer(Decision(decision), accept, reason, request)
        except ValueError as exc:
            if self.widget is not None:
                # cleared first, so that the same refusal twice still reaches the view
                base = {k: v for k, v in self.widget.review.items() if k != "error"}
                self.widget.review = base
                self.widget.review = {**base, "error": str(exc)}

    def answer(
        self,
        decision: Decision,
        accept: Accept | None = None,
        reason: str | None = None,
        request: str | None = None,
    ) -> None:
        """Resume the call with an answer; ``ValueError`` when it cannot answer the request.

        The resumed call runs under the same interrupt guard as a first run: a kernel interrupt
        while it writes cancels it between two files, and it ends ``cancelled``.
        """
        accept = None if accept is None else _selection(accept)
        self.call.check_answer(Answer(decision, accept, reason, request))
        with SESSION.lock, cancel_on_interrupt(self.call.cancel):
            try:
                core = self.call.resume(
                    decision, self._approver, accept=accept, reason=reason, request=request
                )
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
            self.result = PatchCallResult(
                core,
                self._decide_from_code,
                self.call.turn.tracker,
                call=self.call,
                undo=None if self.undo_hooks is None else self.undo_from_code,
                undo_panel=None if self.undo_hooks is None else self.undo_panel,
                show=self.show_again,
                shown=self.shown,
            )
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
        if self.undo_hooks is not None:
            updates = {**updates, "undo": self.undo_panel()}
        self._apply(updates)
        if self.widget is not None and self.display_handle is not None:
            # Refresh the call's static record (record.CallRecord), saved with the notebook; the
            # live view itself is never re-sent, so it keeps its DOM node and fold state.
            self.display_handle.update(self.widget)
        return self.result

    def shown(self) -> dict[str, Any]:
        """What the view shows that its call's result cannot know: the result's name, and its
        record's id (empty: no live view shows the call)."""
        record = self.widget.record_id if self.widget is not None else ""
        return {"result_name": self.name, "record_id": record}

    def show_again(self) -> bool:
        """Display the call's record and live view again, in the cell that runs (a new view of
        the same widget, answerable); False when it has no widget shown."""
        if self.widget is None or self.display_handle is None:
            return False
        self.display_handle.show_again(self.widget)
        return True

    # -- undo and redo (the hooks of .undo) ---------------------------------------------------

    def undo_panel(self) -> dict[str, Any]:
        """The ``undo`` trait as it is now (the hooks' panel of the call and its last undo)."""
        assert self.undo_hooks is not None
        return self.undo_hooks.panel(self.call, self._undo_last)

    def refresh_undo(self) -> None:
        """The widget's place in the turn and its Undo/Redo buttons, as they are now; the
        call's record shows them too (a saved notebook keeps the undo's outcome)."""
        if self.widget is None or self.undo_hooks is None:
            return
        panel = self.undo_panel()
        if panel == self.widget.undo:
            return
        self.widget.undo = panel
        if self.display_handle is not None:
            self.display_handle.update(self.widget)

    def show_undo(self, last: Mapping[str, Any]) -> None:
        self._undo_last = dict(last)
        self.refresh_undo()

    def _on_undo(self, content: Mapping[str, Any]) -> None:
        if self.undo_hooks is not None:
            self.undo_hooks.clicked(self, content)

    def undo_from_code(self, kind: str, **options: Any) -> PatchCallResult:
        """``result.undo()`` / ``result.redo()``: the undo's result (its widget is shown)."""
        assert self.undo_hooks is not None
        return self.undo_hooks.run(self, kind, **options)

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
