"""Feeding a call from a stream: :func:`stream_patch`, the documented Python API.

:func:`stream_patch` feeds one call from an iterator of deltas, the way a model's streamed
tool-call arguments arrive: plain strings, or the OpenAI Responses API streaming events of a
custom tool call (``response.custom_tool_call_input.delta`` with its ``delta``, then
``response.custom_tool_call_input.done``), as SDK objects or as dicts (:func:`iter_deltas`). It
does not depend on the ``openai`` package. The call streams through its
:class:`~.view.CallView` (:meth:`~.view.CallView.stream`): a kernel interrupt cancels it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...core.agents.responses import CUSTOM_DELTA, CUSTOM_DONE, field_of
from ...core.turn.options import PipelineOptions
from ...core.turn.turn import Turn
from ...notebooks import with_notebook_check
from ..records.record import live, show_call
from .result import PatchCallResult
from .session import SESSION
from .undo import HOOKS
from .view import CallView
from .widget import ApplyPatchWidget


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
    approval request. With ``widget=True`` the live widget is displayed in IPython; in plain
    Python (no IPython shell) there is nothing to display it in, so the call runs without one,
    as with ``widget=False``, and its result says what it did (``print(result)``).
    An ``.ipynb`` must stay a valid notebook (:func:`~...notebooks.with_notebook_check`, unless
    ``options`` carry a content validator of their own). Returns the
    :class:`~.result.PatchCallResult`.
    """
    active_turn = turn or SESSION.turn_for(cwd or os.getcwd(), with_notebook_check(options))
    call = active_turn.call(options=with_notebook_check(options or active_turn.options))
    view_widget = ApplyPatchWidget() if live(widget) else None
    view = CallView(call, view_widget, undo=HOOKS)
    if view_widget is not None:
        view.display_handle = show_call(view_widget)  # the widget and its static record
    deltas = [source] if isinstance(source, str) else iter_deltas(source)
    approver = None if approve == "ask" else approve
    return view.stream(deltas, delay=delay, approver=approver)
