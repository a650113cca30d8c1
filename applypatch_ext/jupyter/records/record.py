"""The static record of one call: an output of its own, beside the call's live widget.

A saved notebook must show every call's result without a kernel (JupyterLab, Notebook 7,
nbconvert, GitHub), and JupyterLab never falls back from a widget view whose model is gone to
another mime type of the same output ("Error displaying widget: model not found"). So a call
shows two outputs, each of which renders on its own:

* the **record**: a ``display_data`` of ``text/html``, ``text/markdown`` and ``text/plain`` whose
  display id is its record id. It is displayed first, empty (nothing flashes while the widget
  loads), and updated with the call's state whenever the call publishes a result (its end, an
  approval request, a resumed call): what nbconvert, GitHub, a terminal, or a notebook reopened
  without a kernel show. A page reloaded while the kernel runs no longer routes the display id
  to the output (the front end forgot which request displayed it): the package's labextension
  does, by the record id in the output's metadata (labextension/src/records.js);
* the **live widget**: the widget view, displayed once and never updated, so the view it
  rendered lives as long as the call (its fold state too). While alive, its front end hides the
  record's output (found in the same output area by ``data-applypatch-record``), and shows it
  again when the view goes (a kernel restart, a closed widget).

Both carry ``metadata["applypatch_ext"]`` (``{"record": id}`` and ``{"live": id}``). When the
notebook is saved (:mod:`applypatch_ext.live_views`): by the Jupyter server, where the kernel may
live on and a reloaded page should show the live view again, each live output whose record is
in the same cell is kept, its model saved as a placeholder that shows nothing (a page whose
kernel still has the model shows the live view, one without it the record); by nbconvert,
papermill and ``python -m applypatch_ext strip`` it is left out, with its model: the file holds
the record only. :meth:`CallRecord.show_again` displays the pair again in another cell
(``%apply_patch_turn`` shows a turn's waiting calls so; a result evaluated shows its call): the
new record has the same display id, so every copy is updated.
"""

from __future__ import annotations

import html
import uuid
from collections.abc import Sequence
from typing import Any, Protocol

from IPython.core.interactiveshell import InteractiveShell
from IPython.display import display

from ...live_views import live_mark, record_mark
from .display import render_html, render_markdown, render_plain


class Shown(Protocol):
    """What a record needs of the live widget it stands beside (an
    :class:`~..live.widget.ApplyPatchWidget`): its record id, and its displayed state."""

    record_id: str

    def state_json(self) -> dict[str, Any]: ...


def records_bundle(record_id: str, states: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The mime bundle of a record that shows ``states`` (a call's one, the desk's calls'), in
    order; empty before anything was published. Each state's file list has its own anchors,
    the same in each update of the record."""
    attribute = f'data-applypatch-record="{html.escape(record_id, quote=True)}"'
    anchor = f"ap-{record_id[:12]}"
    pages = "".join(
        render_html(state, anchor=f"{anchor}-{i}" if i else anchor)
        for i, state in enumerate(states)
    )
    return {
        "text/html": f"<div {attribute}>{pages}</div>",
        "text/markdown": "\n\n".join(render_markdown(state) for state in states),
        "text/plain": "\n\n".join(render_plain(state) for state in states),
    }


def record_bundle(record_id: str, state: dict[str, Any] | None) -> dict[str, str]:
    """One call's record's mime bundle: empty before the call published anything (``state``
    None)."""
    return records_bundle(record_id, () if state is None else (state,))


class RecordOutput:
    """A record's output: its id (the display id too) and mark, displayed and updated in place
    with a bundle of :func:`records_bundle`, and the live outputs it stands beside. A call's
    record (:class:`CallRecord`) and the desk's (``live.desk.DeskRecord``) are one."""

    def __init__(self) -> None:
        self.record_id = uuid.uuid4().hex
        self.metadata = record_mark(self.record_id)
        self._handle: Any = None

    def display_record(self, states: Sequence[dict[str, Any]]) -> None:
        """Display the record showing ``states`` (again: the same display id, so every copy is
        updated with the first)."""
        handle = display(
            records_bundle(self.record_id, states),
            raw=True,
            metadata=self.metadata,
            display_id=self.record_id,
        )
        if self._handle is None:
            self._handle = handle

    def update_record(self, states: Sequence[dict[str, Any]]) -> None:
        """Show ``states`` in the record displayed first (nothing before it is displayed)."""
        if self._handle is not None:
            self._handle.update(
                records_bundle(self.record_id, states), raw=True, metadata=self.metadata
            )

    def display_live(self, view: Any) -> None:
        """Display a live output (a widget, the desk's output area) beside the record."""
        display(view, metadata=live_mark(self.record_id))


class CallRecord(RecordOutput):
    """Displays a call's record and its live widget; :meth:`update` refreshes the record.

    It stands where a display handle of the widget stood (``CallView.display_handle``): the
    view calls ``update(widget)`` when the call publishes a result.
    """

    def __init__(self, widget: Shown) -> None:
        super().__init__()
        self.widget = widget
        widget.record_id = self.record_id
        if not InteractiveShell.initialized():  # see live(): nothing to show it in
            raise RuntimeError("a call's widget is shown in IPython only: see record.live()")
        self.display_record(())
        self.display_live(widget)

    def update(self, widget: Shown | None = None) -> None:
        """Show the (current) state of the widget in the record; the live view is untouched."""
        self.update_record(((widget or self.widget).state_json(),))

    def show_again(self, widget: Shown | None = None) -> None:
        """Display the record (as it is now, with the same display id: it is updated with the
        first) and the live view again, in the cell that runs."""
        self.display_record(((widget or self.widget).state_json(),))
        self.display_live(widget or self.widget)


def show_call(widget: Shown) -> CallRecord:
    """Display ``widget`` with its static record; the handle to give ``CallView``."""
    return CallRecord(widget)


def live(asked: bool) -> bool:
    """Whether a call is shown live in a widget: ``asked`` for, and in IPython. Plain Python
    (a script, the library without a kernel) has no front end to show a widget in, and
    IPython's ``display`` there prints a repr and gives no handle to update: the call runs
    without a widget, and its result (text, HTML) is what it returns."""
    return asked and InteractiveShell.initialized()
