"""The kernel side of the Jupyter layer: one session per kernel, one view per call.

:class:`ApplyPatchSession` keeps the current :class:`~applypatch_ext.core.turn.turn.Turn`.
:class:`CallView` ties one call to its widget (if any) and to its :class:`PatchCallResult`:
it streams the input, mirrors every recorded event into the widget's traits (batched with
``hold_sync``), and resumes the call when an approval button is clicked.

:func:`stream_patch` is the documented Python API for feeding a call from an iterator of deltas,
the way a model's streamed tool-call arguments arrive: plain strings, or the OpenAI Responses API
streaming events of a custom tool call (``response.custom_tool_call_input.delta`` with its
``delta``, then ``response.custom_tool_call_input.done``), as SDK objects or as dicts. It does not
depend on the ``openai`` package.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from ..core.interrupts import CancellationToken
from ..core.turn.options import CallStatus, Decision, PipelineOptions
from ..core.turn.result import CallResult
from ..core.turn.turn import ApplyPatchCall, Turn
from ..core.turn.turn_diff import TurnDiffTracker
from .display import render_html, render_markdown, render_plain, turn_diff_files_json
from .highlight import call_sources, turn_sources
from .widget import ApplyPatchWidget

#: At most this many characters of the patch text go to the browser (the call gets all).
DISPLAY_LIMIT: Final = 200_000
#: Minimum interval between two updates of the streamed text in the widget, in seconds.
TEXT_UPDATE_INTERVAL: Final = 0.05

#: The keys of the ``safety`` and ``approval`` traits (from an event or from a result alike).
SAFETY_FIELDS: Final = ("decision", "reason", "sandboxed")
APPROVAL_FIELDS: Final = ("files", "reason", "retry", "cwd")

DELTA_EVENT: Final = "response.custom_tool_call_input.delta"
DONE_EVENT: Final = "response.custom_tool_call_input.done"


def _field(item: Any, name: str) -> Any:
    if isinstance(item, dict):
        return item.get(name)
    return getattr(item, name, None)


def iter_deltas(source: Iterable[Any]) -> Iterator[str]:
    """The text deltas of ``source``: strings as they are; OpenAI custom-tool-call input events
    (objects or dicts) by their ``delta``; any other event (other output items, reasoning, text)
    is skipped.

    The first custom-tool-call input event fixes the tool call followed (its ``item_id``, when
    the events carry one): deltas of another call in the same response are skipped, and that
    call's ``...done`` event ends the stream.
    """
    item_id: Any = None
    for item in source:
        if isinstance(item, str):
            yield item
            continue
        kind = _field(item, "type")
        if kind not in (DELTA_EVENT, DONE_EVENT):
            continue
        this_id = _field(item, "item_id")
        if item_id is None:
            item_id = this_id
        elif this_id is not None and this_id != item_id:
            continue
        if kind == DONE_EVENT:
            return
        delta = _field(item, "delta")
        if not isinstance(delta, str):
            raise TypeError(f"{DELTA_EVENT} event without a string 'delta': {item!r}")
        yield delta


def summarize_event(event: dict[str, Any]) -> str:
    """A one-line summary of an event for the timeline."""
    kind = event.get("type")
    if kind == "patch_apply_updated":
        return f"{len(event.get('changes', {}))} planned change(s)"
    if kind == "patch_safety_assessed":
        reason = f": {event['reason']}" if event.get("reason") else ""
        sandbox = " (sandboxed)" if event.get("sandboxed") else ""
        return f"{event.get('decision')}{sandbox}{reason}"
    if kind == "patch_apply_begin":
        approved = "auto-approved" if event.get("auto_approved") else "needs approval"
        return f"{len(event.get('changes', {}))} change(s), {approved}"
    if kind == "apply_patch_approval_request":
        retry = "retry without sandbox: " if event.get("retry") else ""
        return retry + ", ".join(event.get("files", []))
    if kind == "apply_patch_approval_decision":
        return str(event.get("decision"))
    if kind == "patch_apply_end":
        return str(event.get("status"))
    if kind == "turn_diff":
        diff = str(event.get("unified_diff", ""))
        return f"{diff.count('diff --git ')} file(s)" if diff else "cleared"
    if kind == "transaction_recovered":
        restored, removed = len(event.get("restored", [])), len(event.get("removed", []))
        failed = len(event.get("failures", []))
        text = f"unfinished atomic call {event.get('interrupted_call_id')} rolled back: "
        text += f"{restored} restored, {removed} removed"
        return text + (f", {failed} could not be restored" if failed else "")
    return ""


def _pick(record: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: record.get(key) for key in keys}


class PatchCallResult:
    """What the magic stores in its ``result`` variable; updated when an approval resumes."""

    def __init__(
        self,
        result: CallResult,
        decide: Callable[[str], None] | None = None,
        tracker: TurnDiffTracker | None = None,
    ) -> None:
        self._tracker = tracker
        self._update(result)
        self._decide = decide

    def _update(self, result: CallResult) -> None:
        self._result = result
        # The TurnDiff's blocks with their paths, from the tracker, while it still renders the
        # diff this result holds (a later call of the turn changes it).
        tracker = self._tracker
        diff = result.turn_diff
        if tracker is not None and diff is not None and tracker.get_unified_diff() == diff:
            self._files = turn_diff_files_json(tracker.file_diffs())
        else:
            self._files = []

    def decide(self, decision: str) -> PatchCallResult:
        """Answer a pending approval from Python, as the widget's buttons do.

        ``decision`` is ``approve``, ``approve-for-session`` or ``decline``. Returns self,
        updated. Raises ``RuntimeError`` when the call is not waiting for approval.
        """
        if self.status != CallStatus.AWAITING_APPROVAL or self._decide is None:
            raise RuntimeError(
                f"call {self.call_id} is not waiting for approval: it ended {self.status} "
                f"(stage {self._result.stage}); a decision can only answer a call whose status "
                f"is {CallStatus.AWAITING_APPROVAL}"
            )
        Decision(decision)  # a clear ValueError for a bad answer
        self._decide(decision)
        return self

    @property
    def raw(self) -> CallResult:
        """The core's result record."""
        return self._result

    @property
    def status(self) -> str:
        return self._result.status

    @property
    def call_id(self) -> str:
        return self._result.call_id

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e.to_json() for e in self._result.events]

    @property
    def delta(self) -> dict[str, Any]:
        return self._result.delta.to_json()

    @property
    def proposed(self) -> dict[str, Any] | None:
        return None if self._result.proposed is None else self._result.proposed.to_json()

    @property
    def stdout(self) -> str:
        return self._result.stdout

    @property
    def stderr(self) -> str:
        return self._result.stderr

    @property
    def output(self) -> str:
        return self._result.output

    @property
    def error(self) -> str | None:
        return self._result.error

    @property
    def turn_diff(self) -> str:
        return self._result.turn_diff or ""

    @property
    def planned(self) -> dict[str, Any]:
        """The planned changes of the call's last preview (PatchApplyUpdated) event."""
        for event in reversed(self._result.events):
            if event.event.type == "patch_apply_updated":
                changes: dict[str, Any] = event.to_json()["changes"]
                return changes
        return {}

    @property
    def explanation(self) -> dict[str, Any] | None:
        explanation = self._result.explanation
        return None if explanation is None else explanation.to_json()

    def state_json(self) -> dict[str, Any]:
        result = self._result
        request = result.pending_request
        safety = {} if result.safety is None else _pick(result.safety.to_json(), SAFETY_FIELDS)
        return {
            "call_id": result.call_id,
            "cwd": result.cwd,
            "stage": result.stage,
            "status": result.status,
            "safety": safety,
            "approval": {} if request is None else _pick(request.to_json(), APPROVAL_FIELDS),
            "proposed": self.proposed or {},
            "planned": self.planned,
            "delta": self.delta,
            "stdout": result.stdout,
            "stderr": result.stderr,
            "error": result.error or "",
            "turn_diff": self.turn_diff,
            "turn_diff_files": self._files,
            "explanation": self.explanation or {},
            "events": [{**e, "summary": summarize_event(e)} for e in self.events],
        }

    def _repr_html_(self) -> str:
        return render_html(self.state_json())

    def _repr_markdown_(self) -> str:
        return render_markdown(self.state_json())

    def __repr__(self) -> str:
        return render_plain(self.state_json())


class CallView:
    """Runs one call and mirrors it into a widget and a :class:`PatchCallResult`."""

    def __init__(self, call: ApplyPatchCall, widget: ApplyPatchWidget | None = None) -> None:
        self.call = call
        self.widget = widget
        self.result: PatchCallResult | None = None
        self._text_parts: list[str] = []
        self._text_length = 0
        self._last_text_update = 0.0
        self._approver: Callable[..., Any] | None = None
        self.display_handle: Any = None  # set by whoever displayed the widget
        self._unsubscribe = call.turn.recorder.subscribe(self._on_event)
        if widget is not None:
            with widget.hold_sync():
                widget.call_id = call.call_id
                widget.cwd = call.turn.cwd
                widget.title = f"apply_patch {call.call_id}"
            widget.on_decision(self.decide)

    # -- streaming ------------------------------------------------------------------------------

    def push(self, delta: str) -> None:
        self.call.push_delta(delta)
        self._text_parts.append(delta)
        self._text_length += len(delta)
        now = time.monotonic()
        if now - self._last_text_update >= TEXT_UPDATE_INTERVAL:
            self._show_text()
            self._last_text_update = now

    def _show_text(self, *, done: bool = False) -> None:
        if self.widget is None:
            return
        text = "".join(self._text_parts)
        self._text_parts = [text]
        truncated = len(text) > DISPLAY_LIMIT
        shown = text[:DISPLAY_LIMIT] if truncated else text
        with self.widget.hold_sync():
            self.widget.patch_text = shown
            self.widget.patch_truncated = truncated
            self.widget.current_line = 0 if done else shown.count("\n") + 1
            self.widget.stage = self.call.stage

    # -- running --------------------------------------------------------------------------------

    def run(self, approver: Any = None, *, dry_run: bool = False) -> PatchCallResult:
        self._show_text(done=True)
        self._approver = approver
        core = self.call.dry_run() if dry_run else self.call.run(approver)
        return self._publish(core)

    def decide(self, decision: str) -> None:
        """An approval button was clicked: resume the call with that decision.

        The resumed call runs under the same interrupt guard as a first run: a kernel interrupt
        while it writes cancels it between two files, and it ends ``cancelled``.
        """
        if self.call.result is None or self.call.result.status != CallStatus.AWAITING_APPROVAL:
            return
        try:
            parsed = Decision(decision)
        except ValueError:
            return
        with cancel_on_interrupt(self.call.cancel):
            try:
                core = self.call.resume(parsed, self._approver)
            except BaseException:
                # The call recorded how it ended (cancelled): show that, not a stale request.
                if self.call.result is not None:
                    self._publish(self.call.result)
                raise
        self._publish(core)

    def _publish(self, core: CallResult) -> PatchCallResult:
        if self.result is None:
            self.result = PatchCallResult(core, self.decide, self.call.turn.tracker)
        else:
            self.result._update(core)
        if core.status != CallStatus.AWAITING_APPROVAL:
            self._unsubscribe()
        widget = self.widget
        if widget is not None:
            state = self.result.state_json()
            with widget.hold_sync():
                widget.stage = core.stage
                widget.status = core.status
                widget.output = core.output
                widget.stdout = core.stdout
                widget.stderr = core.stderr
                widget.error = core.error or ""
                widget.delta = state["delta"]
                widget.turn_diff = state["turn_diff"]
                widget.turn_diff_files = state["turn_diff_files"]
                widget.sources = call_sources(core.proposed, core.delta)
                widget.turn_sources = turn_sources(state["turn_diff_files"])
                widget.explanation = state["explanation"]
                widget.approval = state["approval"]
                if core.proposed is not None:
                    widget.proposed = state["proposed"]
                if core.safety is not None:
                    widget.safety = state["safety"]
            if self.display_handle is not None:
                # Refresh the static record saved with the notebook (record.CallRecord); the
                # live view is never re-displayed.
                self.display_handle.update(widget)
        return self.result

    def _on_event(self, recorded: Any) -> None:
        event = recorded.to_json()
        if event.get("call_id", self.call.call_id) != self.call.call_id:
            return
        widget = self.widget
        if widget is None:
            return
        kind = event["type"]
        entry = {"type": kind, "time": event["time"], "summary": summarize_event(event)}
        with widget.hold_sync():
            widget.events = [*widget.events, entry]
            widget.stage = self.call.stage
            if kind == "patch_apply_updated":
                widget.planned = event["changes"]
            elif kind == "patch_safety_assessed":
                widget.safety = _pick(event, SAFETY_FIELDS)
            elif kind == "patch_apply_begin":
                widget.proposed = event["changes"]
            elif kind == "apply_patch_approval_request":
                widget.approval = _pick(event, APPROVAL_FIELDS)
            elif kind == "apply_patch_approval_decision":
                widget.approval = {}
            elif kind == "turn_diff":
                blocks = turn_diff_files_json(self.call.turn.tracker.file_diffs())
                widget.turn_diff = event["unified_diff"]
                widget.turn_diff_files = blocks
                widget.turn_sources = turn_sources(blocks)


class ApplyPatchSession:
    """The kernel's state: the current turn (one working directory at a time)."""

    def __init__(self) -> None:
        self.turn: Turn | None = None
        # "Approve for session" answers, kept across turns as Codex keeps them for its session.
        self.approvals: set[tuple[str, str]] = set()

    def turn_for(self, cwd: str, options: PipelineOptions | None = None) -> Turn:
        cwd = os.path.abspath(cwd)
        if self.turn is None or self.turn.cwd != cwd:
            self.turn = Turn(cwd, options=options, session_approvals=self.approvals)
        return self.turn

    def new_turn(self) -> None:
        self.turn = None


SESSION = ApplyPatchSession()


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


def run_streamed(
    view: CallView,
    deltas: Iterable[str],
    *,
    delay: float = 0.0,
    approver: Any = None,
    dry_run: bool = False,
) -> PatchCallResult:
    """Stream ``deltas`` into the view's call (sleeping ``delay`` between them), then run it.

    A kernel interrupt while streaming or applying cancels the call: it keeps what it wrote and
    its result says ``cancelled``.
    """
    token = view.call.cancel
    with cancel_on_interrupt(token):
        for delta in deltas:
            if token.cancelled:
                break
            view.push(delta)
            if delay > 0:
                time.sleep(delay)
        if token.cancelled and view.call.result is None:
            reason = "cancelled while the patch was streaming: nothing was run"
            return view._publish(view.call.abandon(reason))
        return view.run(approver, dry_run=dry_run)


def stream_patch(
    source: Iterable[Any] | str,
    *,
    cwd: str | None = None,
    approve: str | Callable[..., Any] | None = "ask",
    options: PipelineOptions | None = None,
    widget: bool = True,
    delay: float = 0.0,
    turn: Turn | None = None,
) -> PatchCallResult:
    """Feed one apply_patch tool call from a stream of deltas and run the pipeline.

    ``source`` is a string or an iterable of strings or OpenAI Responses API events of a custom
    tool call (``response.custom_tool_call_input.delta`` / ``.done``, objects or dicts).
    ``approve`` is ``"ask"`` (show buttons; the call waits in ``awaiting-approval``), a fixed
    answer (``"approve"``, ``"approve-for-session"``, ``"decline"``) or a callable receiving the
    approval request. With ``widget=True`` the live widget is displayed (needs IPython).
    Returns the :class:`PatchCallResult`.
    """
    active_turn = turn or SESSION.turn_for(cwd or os.getcwd(), options)
    call = active_turn.call(options=options)
    view_widget = ApplyPatchWidget() if widget else None
    view = CallView(call, view_widget)
    if view_widget is not None:
        from .record import show_call

        view.display_handle = show_call(view_widget)  # the widget and its static record
    deltas = [source] if isinstance(source, str) else iter_deltas(source)
    approver = None if approve == "ask" else approve
    return run_streamed(view, deltas, delay=delay, approver=approver)
