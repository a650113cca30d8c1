"""The agent's desk in the kernel, as the live floor sees it: each call of an agent a
:class:`DeskCallView` (the widget a cell shows, answered through the desk), the desk's static
record (:class:`DeskRecord`), and :class:`KernelDesk`, the desk that runs in the notebook's turn
under the session's lock. ``%apply_patch_mcp`` (magics/desk.py) starts and stops it.

Threads: a desk call runs in a worker thread of the server, under ``SESSION.lock``, which a
cell's call takes too; an answer from the kernel's main thread (a button, ``decide()``) only
hands the decision over and waits until the call's thread has shown what came of it.
"""

from __future__ import annotations

import threading
from typing import Any

from ...core.turn.options import Accept, Decision, PipelineOptions
from ...desk.desk import Desk, DeskCall
from ..records.record import RecordOutput
from .session import SESSION
from .undo import HOOKS
from .view import CallView, _selection
from .widget import ApplyPatchWidget


class DeskCallView(CallView):
    """A desk call's widget: the desk runs the call; an answer (a button, ``decide()``) is
    handed to the desk, and the view waits until the call's thread went on with it. Its Undo
    and Redo are a cell's (the desk's calls are in the notebook's undo history)."""

    def __init__(self, desk_call: DeskCall, widget: ApplyPatchWidget | None) -> None:
        super().__init__(desk_call.call, widget, undo=HOOKS)
        self.desk_call = desk_call

    def answer(
        self,
        decision: Decision,
        accept: Accept | None = None,
        reason: str | None = None,
        request: str | None = None,
    ) -> None:
        accept = None if accept is None else _selection(accept)
        previous = self.desk_call.request
        self.desk_call.decide(decision, accept=accept, reason=reason, request=request)
        self.desk_call.wait_settled(previous)


class DeskRecord(RecordOutput):
    """The desk's static record: one output in the ``start`` cell holding every call's record
    (what a saved notebook, nbconvert or GitHub shows), updated as each call publishes. While
    the calls' live views are on the page they hide it (each widget's ``record_id`` is the
    desk's), as a cell's live view hides its own record (records/record.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.widgets: list[ApplyPatchWidget] = []
        self._lock = threading.Lock()

    def _states(self) -> list[dict[str, Any]]:
        with self._lock:
            return [widget.state_json() for widget in self.widgets]

    def show(self) -> None:
        self.display_record(())

    def show_again(self, widget: ApplyPatchWidget) -> None:
        """The desk's record again (the same display id: updated with the first) and one call's
        live view below it, in the cell that runs (record.CallRecord.show_again)."""
        self.display_record(self._states())
        self.display_live(widget)

    def update(self, _widget: ApplyPatchWidget | None = None) -> None:
        """Every call's record, as the calls are now (a ``CallView.display_handle``)."""
        with self._lock:
            self.update_record([widget.state_json() for widget in self.widgets])


class KernelDesk(Desk):
    """The notebook's desk: the session's turn and lock, each call shown in ``output``."""

    def __init__(
        self, cwd: str, options: PipelineOptions, answer_timeout: float, output: Any
    ) -> None:
        super().__init__(
            lambda: SESSION.turn_for(cwd, options),
            options=options,
            answer_timeout=answer_timeout,
            lock=SESSION.lock,
        )
        self.output = output
        self.record = DeskRecord()
        self.views: list[DeskCallView] = []
        self.subscribe(self._publish)

    def feed(self, call: DeskCall, patch: str) -> None:
        widget = ApplyPatchWidget()
        widget.record_id = self.record.record_id
        view = DeskCallView(call, widget)
        view.display_handle = self.record
        self.views.append(view)
        self.record.widgets.append(widget)
        self.output.append_display_data(widget)
        view.push(patch)
        view._show_text(done=True)

    def _publish(self, call: DeskCall) -> None:
        # under the session's lock: the view reads the turn (its undo panel: every call's
        # undo state), which a cell or an Undo click on the main thread may be changing
        with self.lock:
            for view in self.views:
                if view.desk_call is call and call.result is not None:
                    view._publish(call.result)
