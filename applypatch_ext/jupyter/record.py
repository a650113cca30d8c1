"""The static record of one call: an output of its own, beside the call's live widget.

A saved notebook must show every call's result without a kernel (JupyterLab, Notebook 7,
nbconvert, GitHub), and JupyterLab never falls back from a widget view whose model is gone to
another mime type of the same output ("Error displaying widget: model not found"). So a call
shows two outputs, each of which renders on its own:

* the **record**: a ``display_data`` of ``text/html``, ``text/markdown`` and ``text/plain`` with
  a display id of its own. It is displayed first, empty (nothing flashes while the widget
  loads), and updated with the call's state whenever the call publishes a result (its end, an
  approval request, a resumed call): what nbconvert, GitHub, a terminal, or a notebook reopened
  without a kernel show;
* the **live widget**: the widget view, displayed once and never updated, so the view it
  rendered lives as long as the call (its fold state too). While alive, its front end hides the
  record's output (found in the same output area by ``data-applypatch-record``), and shows it
  again when the view goes (a kernel restart, a closed widget).

Both carry ``metadata["applypatch_ext"]`` (``{"record": id}`` and ``{"live": id}``). When the
notebook is saved, the Jupyter server extension (:mod:`applypatch_ext.serverext`) leaves each
live output whose record is in the same cell out of the file, and its model out of any saved
widget state: the file holds the record only.
"""

from __future__ import annotations

import html
import uuid
from typing import Any

from IPython.display import display

from ..serverext import OUTPUT_KEY
from .display import render_html, render_markdown, render_plain
from .widget import ApplyPatchWidget


def record_bundle(record_id: str, state: dict[str, Any] | None) -> dict[str, str]:
    """The record's mime bundle: empty before the call published anything (``state`` None)."""
    attribute = f'data-applypatch-record="{html.escape(record_id, quote=True)}"'
    if state is None:
        return {"text/html": f"<div {attribute}></div>", "text/markdown": "", "text/plain": ""}
    return {
        # the file list's anchors: per record, the same in each update of it
        "text/html": f"<div {attribute}>{render_html(state, anchor=f'ap-{record_id[:12]}')}</div>",
        "text/markdown": render_markdown(state),
        "text/plain": render_plain(state),
    }


class CallRecord:
    """Displays a call's record and its live widget; :meth:`update` refreshes the record.

    It stands where a display handle of the widget stood (``CallView.display_handle``): the
    view calls ``update(widget)`` when the call publishes a result.
    """

    def __init__(self, widget: ApplyPatchWidget) -> None:
        self.record_id = uuid.uuid4().hex
        self.widget = widget
        widget.record_id = self.record_id
        self._metadata = {OUTPUT_KEY: {"record": self.record_id}}
        self._handle = display(
            record_bundle(self.record_id, None),
            raw=True,
            metadata=self._metadata,
            display_id=True,
        )
        display(widget, metadata={OUTPUT_KEY: {"live": self.record_id}})

    def update(self, widget: ApplyPatchWidget | None = None) -> None:
        """Show the (current) state of the widget in the record; the live view is untouched."""
        state = (widget or self.widget).state_json()
        self._handle.update(record_bundle(self.record_id, state), raw=True, metadata=self._metadata)


def show_call(widget: ApplyPatchWidget) -> CallRecord:
    """Display ``widget`` with its static record; the handle to give ``CallView``."""
    return CallRecord(widget)
