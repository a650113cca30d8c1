"""Feeding a call from a stream: :func:`stream_patch`, the documented Python API.

:func:`stream_patch` feeds one call from an iterator of deltas, the way a model's streamed
tool-call arguments arrive: plain strings, or the OpenAI Responses API streaming events of a
custom tool call (``response.custom_tool_call_input.delta`` with its ``delta``, then
``response.custom_tool_call_input.done``), as SDK objects or as dicts (:func:`iter_deltas`). It
does not depend on the ``openai`` package. :func:`run_streamed` streams into a
:class:`~.view.CallView` under :func:`cancel_on_interrupt`: a kernel interrupt cancels the call.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..core.agents.responses import CUSTOM_DELTA, CUSTOM_DONE, field_of
from ..core.interrupts import CancellationToken
from ..core.turn.options import PipelineOptions
from ..core.turn.turn import Turn
from .notebooks import with_notebook_check
from .session import SESSION
from .widget import ApplyPatchWidget

if TYPE_CHECKING:  # view.py imports cancel_on_interrupt from here
    from .result import PatchCallResult
    from .view import CallView


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
        kind = field_of(item, "type")
        if kind not in (CUSTOM_DELTA, CUSTOM_DONE):
            continue
        this_id = field_of(item, "item_id")
        if item_id is None:
            item_id = this_id
        elif this_id is not None and this_id != item_id:
            continue
        if kind == CUSTOM_DONE:
            return
        delta = field_of(item, "delta")
        if not isinstance(delta, str):
            raise TypeError(f"{CUSTOM_DELTA} event without a string 'delta': {item!r}")
        yield delta


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


def run_streamed(
    view: CallView,
    deltas: Iterable[str],
    *,
    delay: float = 0.0,
    approver: Any = None,
    dry_run: bool = False,
) -> PatchCallResult:
    """Stream ``deltas`` into the view's call (sleeping ``delay`` between two of them, not
    after the last), then run it.

    A kernel interrupt while streaming or applying cancels the call: it keeps what it wrote and
    its result says ``cancelled``.
    """
    token = view.call.cancel
    with cancel_on_interrupt(token):
        for index, delta in enumerate(deltas):
            if index and delay > 0:
                _pause(delay, token)
            if token.cancelled:
                break
            view.push(delta)
        if token.cancelled and view.call.result is None:
            return view.abandon("cancelled while the patch was streaming: nothing was run")
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
    An ``.ipynb`` must stay a valid notebook (:func:`~.notebooks.with_notebook_check`, unless
    ``options`` carry a content validator of their own). Returns the
    :class:`~.result.PatchCallResult`.
    """
    from .view import CallView  # (view.py imports this module)

    active_turn = turn or SESSION.turn_for(cwd or os.getcwd(), with_notebook_check(options))
    call = active_turn.call(options=with_notebook_check(options or active_turn.options))
    view_widget = ApplyPatchWidget() if widget else None
    view = CallView(call, view_widget)
    if view_widget is not None:
        from .record import show_call  # (it imports IPython's display)

        view.display_handle = show_call(view_widget)  # the widget and its static record
    deltas = [source] if isinstance(source, str) else iter_deltas(source)
    approver = None if approve == "ask" else approve
    return run_streamed(view, deltas, delay=delay, approver=approver)
