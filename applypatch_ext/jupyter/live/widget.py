"""The live widget of one ``%%apply_patch`` call (an ``anywidget.AnyWidget``).

Python owns the state; the front end (``applypatch_ext/js/widget.js``, one ES module that
``make widget`` bundles from ``js/src/``) only renders the traits below and sends messages
back: an approval decision naming the request it answers (with, while some hunks of a review
are unticked, the hunks accepted, and for a decline, the user's reason), and the Undo / Redo
buttons' requests.
Synced containers are always replaced, never mutated in place, and related updates are batched
with ``hold_sync()`` by :class:`~applypatch_ext.jupyter.live.view.CallView`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from ...core.turn.options import Stage
from ..records.display import render_html, render_plain
from ..records.vocabulary import RUNNING, call_vocabulary
from .assets import asset_path

__all__ = ["RUNNING", "ApplyPatchWidget", "call_vocabulary"]

# The tag of a displayed trait: synced, and part of state_json (what the static views render).
SHOWN: dict[str, Any] = {"sync": True, "displayed": True}


class ApplyPatchWidget(anywidget.AnyWidget):
    """Shows one apply_patch tool call live: stream, plan, safety, approval, result, TurnDiff."""

    _esm = asset_path("widget.js")
    _css = asset_path("widget.css")

    # what the front end reads instead of hard-coding statuses and stages
    vocabulary = traitlets.Dict(
        call_vocabulary(), help="What each status and stage means (see call_vocabulary)."
    ).tag(sync=True)

    title = traitlets.Unicode("", help="A short label: call id and working directory.").tag(**SHOWN)
    call_id = traitlets.Unicode("", help="The tool call's id.").tag(**SHOWN)
    cwd = traitlets.Unicode("", help="The working directory the call runs against.").tag(**SHOWN)
    dry_run = traitlets.Bool(False, help="True for --dry-run: nothing is written.").tag(**SHOWN)
    result_name = traitlets.Unicode(
        "",
        help="The variable that holds the call's result (``%%apply_patch NAME``), if any: the "
        "record of a waiting call says how to answer it from code (``NAME.decide(...)``).",
    ).tag(**SHOWN)

    patch_text = traitlets.Unicode("", help="The streamed patch text so far (display copy).").tag(
        **SHOWN
    )
    patch_truncated = traitlets.Bool(
        False, help="True when patch_text was cut for display (never for application)."
    ).tag(**SHOWN)
    current_line = traitlets.Int(0, help="1-based line being streamed; 0 when done.").tag(sync=True)
    stage = traitlets.Unicode(Stage.STREAMING.value, help="The current pipeline stage.").tag(
        **SHOWN
    )

    planned = traitlets.Dict(
        help="Planned changes from the latest PatchApplyUpdated event (path as written)."
    ).tag(**SHOWN)
    safety = traitlets.Dict(
        help=(
            "The safety decision: decision, reason, sandboxed; and review: True when the policy "
            "would auto-approve but --review asks (docs/behaviour.md §6.7)."
        )
    ).tag(**SHOWN)
    approval = traitlets.Dict(
        help="The pending approval request (files, reason, retry, and the words above its "
        "files: heading, writes), or {} when none."
    ).tag(**SHOWN)
    proposed = traitlets.Dict(help="The verified change map of the begin event.").tag(**SHOWN)
    review = traitlets.Dict(
        help=(
            "While the call waits: {'files': review.review_files(...), 'selectable': bool, "
            "'patch': str} - every file and chunk of the request with its label (the words "
            "every view shows), diff and seek pass, whether it can be answered with a "
            "selection, and the patch text it asks for "
            "(docs/behaviour.md §6.7); {} otherwise. Displayed: the record of a waiting call "
            "lists them (panels.review_plain)."
        )
    ).tag(**SHOWN)

    status = traitlets.Unicode("", help="The call status; empty while running.").tag(**SHOWN)
    output = traitlets.Unicode("", help="The text the model would receive.").tag(**SHOWN)
    stdout = traitlets.Unicode("", help="The attempt's stdout.").tag(**SHOWN)
    stderr = traitlets.Unicode("", help="The attempt's stderr.").tag(**SHOWN)
    error = traitlets.Unicode("", help="The error that stopped the call, if any.").tag(**SHOWN)
    delta = traitlets.Dict(
        help=(
            "The committed delta: changes and exact, without the file texts no view shows "
            "(state.view_delta; the call's result has them)."
        )
    ).tag(**SHOWN)
    turn_diff = traitlets.Unicode("", help="The cumulative TurnDiff of the turn.").tag(**SHOWN)
    turn_diff_files: traitlets.List[Any] = traitlets.List(
        help="The TurnDiff's blocks with the paths they were rendered from: old_path, path, diff."
    ).tag(**SHOWN)
    turn_diff_note = traitlets.Unicode(
        "",
        help="Why the TurnDiff shows nothing though this call's turn changed files (emptied "
        "again, or invalidated by an inexact delta); empty otherwise.",
    ).tag(**SHOWN)
    sources = traitlets.Dict(
        help=(
            "The lines the diff view of the call's own changes shows, syntax-coloured: "
            "sources.call_sources(result.proposed, result.delta), keyed as proposed."
        )
    ).tag(sync=True)
    turn_sources = traitlets.Dict(
        help=(
            "The TurnDiff's lines, syntax-coloured: sources.turn_sources(turn_diff), keyed by "
            "the path of each of the tracker's file blocks (turn_diff_files)."
        )
    ).tag(sync=True)
    events: traitlets.List[Any] = traitlets.List(
        help="The timeline: type, time and a one-line summary."
    ).tag(**SHOWN)
    explanation = traitlets.Dict(
        help="For a 'Failed to find ...' error: the closest region of the file."
    ).tag(**SHOWN)
    diagnosis = traitlets.Dict(
        help=(
            "Why the call failed, and where (the failure atlas, docs/diagnosis.md): kind, "
            "message, path, patch_line, line, line_absent, suggestion; {} for a call that did "
            "not fail. The kind's meaning is in the vocabulary's diagnoses."
        )
    ).tag(**SHOWN)
    warnings: traitlets.List[Any] = traitlets.List(
        help=(
            "What to check in a call that applies (a pure addition sent to the end of the file, "
            "a fuzzy match that rewrites lines, lines that occur twice, content the validator "
            "objected to): diagnoses of the same shape, in patch order."
        )
    ).tag(**SHOWN)
    notebooks = traitlets.Dict(
        help=(
            "The call's notebooks as cells: notebooks.call_notebook_views(result, tracker), "
            "{'proposed': [...], 'committed': [...], 'turn': [...]}, one notebook_diff per "
            ".ipynb (turn: the notebooks of the call's TurnDiff)."
        )
    ).tag(**SHOWN)
    undo = traitlets.Dict(
        help=(
            "Undo and redo (docs/behaviour.md §11): the call's place in its turn (index, count, "
            "turn_id), whether its Undo and Redo buttons apply (can_undo, can_redo), the last "
            "undo they ran (last: status, output, error, conflicts with three versions, a "
            "pending approval) and, for an undo's own view, what it undoes and its conflicts "
            "(each version cut: panels.bounded_conflict). Displayed: the record shows it."
        )
    ).tag(**SHOWN)
    record_id = traitlets.Unicode(
        "",
        help=(
            "The id of the call's static record (record.CallRecord), an output of its own that "
            "the view hides while it is alive; empty when the widget has none. Displayed: the "
            "record of a waiting call says its buttons answer it (there is a live view)."
        ),
    ).tag(**SHOWN)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._decision_handlers: list[Callable[..., None]] = []
        self._undo_handlers: list[Callable[[dict[str, Any]], None]] = []
        self.on_msg(self._on_message)

    def on_decision(self, handler: Callable[..., None]) -> None:
        """Call ``handler(decision, accept=..., reason=..., request=...)`` when the user clicks
        an approval button (``accept``: the hunks left ticked when some of a review are not,
        per path True, False or chunk indexes; ``reason``: the text beside Decline; each None
        when not given; ``request``: the ``request_id`` of the ``approval`` the button
        answers, as the message names it)."""
        self._decision_handlers.append(handler)

    def on_undo(self, handler: Callable[[dict[str, Any]], None]) -> None:
        """Call ``handler(message)`` when the user clicks Undo or Redo (``{"type": "undo",
        "kind": "undo" | "redo"}``) or answers the undo's approval (``{"type":
        "undo-approval", "decision": ...}``)."""
        self._undo_handlers.append(handler)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "approval":
            decision = str(content.get("decision", ""))
            accept = content.get("accept")
            answer = {
                "accept": accept if isinstance(accept, dict) else None,
                # as sent: a reason that is not text is refused, never dropped (nor stringified)
                "reason": content.get("reason"),
                "request": content.get("request"),
            }
            for handler in list(self._decision_handlers):
                handler(decision, **answer)
        elif isinstance(content, dict) and content.get("type") in ("undo", "undo-approval"):
            for undo_handler in list(self._undo_handlers):
                undo_handler(dict(content))

    def state_json(self) -> dict[str, Any]:
        """The displayed state as plain JSON (what the fallback representations render)."""
        return {name: getattr(self, name) for name in self.displayed_traits()}

    @classmethod
    def displayed_traits(cls) -> list[str]:
        """The synced traits tagged ``displayed``, in the order the class defines them."""
        tagged = cls.class_traits(sync=True, displayed=True)
        order = [name for klass in reversed(cls.__mro__) for name in vars(klass)]
        return sorted(tagged, key=order.index)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data or {})
        if self.record_id:
            # The static record is an output of its own (record.py): the view alone here.
            data["text/plain"] = f"apply_patch {self.call_id}: live view (record: {self.record_id})"
            return data, metadata
        state = self.state_json()
        data["text/html"] = render_html(state)
        data["text/plain"] = render_plain(state)
        return data, metadata
