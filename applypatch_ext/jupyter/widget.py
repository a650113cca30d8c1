"""The live widget of one ``%%apply_patch`` call (an ``anywidget.AnyWidget``).

Python owns the state; the front end (``js/widget.js``, one plain ES module, no build step)
only renders the traits below and sends one kind of message back: an approval decision.
Synced containers are always replaced, never mutated in place, and related updates are batched
with ``hold_sync()`` by :class:`~applypatch_ext.jupyter.session.CallView`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets

from ..core.pipeline import CALL_STATUSES, STAGES
from .assets import asset_path
from .display import render_html, render_plain


class ApplyPatchWidget(anywidget.AnyWidget):
    """Shows one apply_patch tool call live: stream, plan, safety, approval, result, TurnDiff."""

    _esm = asset_path("widget.js")
    _css = asset_path("widget.css")

    # constants the front end reads instead of hard-coding them
    stages = traitlets.List(list(STAGES), help="The pipeline stages, in order.").tag(sync=True)
    statuses = traitlets.List(list(CALL_STATUSES), help="Every call status.").tag(sync=True)

    title = traitlets.Unicode("", help="A short label: call id and working directory.").tag(
        sync=True
    )
    call_id = traitlets.Unicode("", help="The tool call's id.").tag(sync=True)
    cwd = traitlets.Unicode("", help="The working directory the call runs against.").tag(sync=True)
    dry_run = traitlets.Bool(False, help="True for --dry-run: nothing is written.").tag(sync=True)

    patch_text = traitlets.Unicode("", help="The streamed patch text so far (display copy).").tag(
        sync=True
    )
    patch_truncated = traitlets.Bool(
        False, help="True when patch_text was cut for display (never for application)."
    ).tag(sync=True)
    current_line = traitlets.Int(0, help="1-based line being streamed; 0 when done.").tag(sync=True)
    stage = traitlets.Unicode("streaming", help="The current pipeline stage.").tag(sync=True)

    planned = traitlets.Dict(
        help="Planned changes from the latest PatchApplyUpdated event (path as written)."
    ).tag(sync=True)
    safety = traitlets.Dict(help="The safety decision: decision, reason, sandboxed.").tag(sync=True)
    approval = traitlets.Dict(
        help="The pending approval request (files, reason, retry), or {} when none."
    ).tag(sync=True)
    proposed = traitlets.Dict(help="The verified change map of the begin event.").tag(sync=True)

    status = traitlets.Unicode("", help="The call status; empty while running.").tag(sync=True)
    output = traitlets.Unicode("", help="The text the model would receive.").tag(sync=True)
    stdout = traitlets.Unicode("", help="The attempt's stdout.").tag(sync=True)
    stderr = traitlets.Unicode("", help="The attempt's stderr.").tag(sync=True)
    error = traitlets.Unicode("", help="The error that stopped the call, if any.").tag(sync=True)
    delta = traitlets.Dict(help="The committed delta: changes and exact.").tag(sync=True)
    turn_diff = traitlets.Unicode("", help="The cumulative TurnDiff of the turn.").tag(sync=True)
    turn_diff_files: traitlets.List[Any] = traitlets.List(
        help="The TurnDiff's blocks with the paths they were rendered from: old_path, path, diff."
    ).tag(sync=True)
    events: traitlets.List[Any] = traitlets.List(
        help="The timeline: type, time and a one-line summary."
    ).tag(sync=True)
    explanation = traitlets.Dict(
        help="For a 'Failed to find ...' error: the closest region of the file."
    ).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._decision_handlers: list[Callable[[str], None]] = []
        self.on_msg(self._on_message)

    def on_decision(self, handler: Callable[[str], None]) -> None:
        """Call ``handler(decision)`` when the user clicks an approval button."""
        self._decision_handlers.append(handler)

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "approval":
            decision = str(content.get("decision", ""))
            for handler in list(self._decision_handlers):
                handler(decision)

    def state_json(self) -> dict[str, Any]:
        """The displayed state as plain JSON (what the fallback representations render)."""
        names = [
            "title",
            "call_id",
            "cwd",
            "dry_run",
            "patch_text",
            "patch_truncated",
            "stage",
            "planned",
            "safety",
            "approval",
            "proposed",
            "status",
            "output",
            "stdout",
            "stderr",
            "error",
            "delta",
            "turn_diff",
            "turn_diff_files",
            "events",
            "explanation",
        ]
        return {name: getattr(self, name) for name in names}

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        state = self.state_json()
        data = dict(data or {})
        data["text/html"] = render_html(state)
        data["text/plain"] = render_plain(state)
        return data, metadata
