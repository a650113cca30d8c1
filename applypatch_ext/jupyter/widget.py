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

from ..core.turn.events import ApplyPatchApprovalRequest, PatchApplyBegin, PatchSafetyAssessed
from ..core.turn.options import CallStatus, Stage
from ..core.turn.safety import AskUser, AutoApprove, Reject
from .assets import asset_path
from .display import render_html, render_plain

# The status trait while the call runs (it has no status yet).
RUNNING = ""


def _meaning(
    label: str,
    tone: str,
    summary: str,
    *,
    terminal: bool = True,
    wrote: bool = False,
    success: bool = False,
    dry_run: bool = False,
    user_declined: bool = False,
) -> dict[str, Any]:
    return {
        "label": label,
        "tone": tone,
        "terminal": terminal,
        "wrote": wrote,
        "success": success,
        "dry_run": dry_run,
        "user_declined": user_declined,
        "summary": summary,
    }


def call_vocabulary() -> dict[str, Any]:
    """What each call status and stage means to the front end (the ``vocabulary`` trait).

    The front end branches on these meanings, never on a status or stage name, and its CSS
    styles tones, so a renamed or added status is one change here. Per status:

    - ``label``: the words shown; ``tone``: ``ok``, ``bad``, ``waiting``, ``neutral`` or
      ``running`` (what the CSS styles);
    - ``terminal``: the call will not change any more; ``wrote``: something can have been
      written (a declined retry or a pending one may follow a sandboxed attempt that wrote);
    - ``success``: the call went where it should (its last stage is done, not failed);
      ``dry_run``: verified only, nothing written by design; ``user_declined``: the user said no;
    - ``summary``: which form the header's one-line summary takes (``progress``,
      ``approval``, ``verified-only``, ``changed``, ``committed-of-proposed``, ``nothing-written``
      or ``error``).

    ``unknown`` is the meaning of a status missing from the table (shown as itself). Per stage,
    in order: its ``label``, the ``evidence`` (the event type that proves a call went through
    a stage it may skip) and whether it ``writes``. Per safety decision: its ``label`` and
    ``tone``.
    """
    return {
        "statuses": _status_meanings(),
        "unknown": _meaning("", "bad", "error", wrote=True),
        "stages": _stage_meanings(),
        "safety": _safety_meanings(),
    }


def _status_meanings() -> dict[str, dict[str, Any]]:
    statuses = {
        RUNNING: _meaning("running", "running", "progress", terminal=False, wrote=True),
        CallStatus.COMPLETED: _meaning(
            CallStatus.COMPLETED, "ok", "changed", wrote=True, success=True
        ),
        CallStatus.FAILED: _meaning(CallStatus.FAILED, "bad", "committed-of-proposed", wrote=True),
        CallStatus.DECLINED: _meaning(
            CallStatus.DECLINED, "bad", "nothing-written", wrote=True, user_declined=True
        ),
        CallStatus.REJECTED: _meaning(CallStatus.REJECTED, "bad", "error"),
        CallStatus.ERROR: _meaning(CallStatus.ERROR, "bad", "error"),
        CallStatus.CANCELLED: _meaning(
            CallStatus.CANCELLED, "bad", "committed-of-proposed", wrote=True
        ),
        CallStatus.AWAITING_APPROVAL: _meaning(
            CallStatus.AWAITING_APPROVAL, "waiting", "approval", terminal=False, wrote=True
        ),
        CallStatus.DRY_RUN: _meaning(
            CallStatus.DRY_RUN, "neutral", "verified-only", success=True, dry_run=True
        ),
    }
    missing = set(CallStatus) - set(statuses)
    if missing:  # a status added to the core without saying what it means
        raise ValueError(
            f"call_vocabulary() in {__name__} gives no meaning for the call status(es) "
            f"{sorted(map(str, missing))}: add one per CallStatus {[str(s) for s in CallStatus]}"
        )
    return statuses


def _stage_meanings() -> list[dict[str, Any]]:
    evidence = {
        Stage.SAFETY: PatchSafetyAssessed.type,
        Stage.WAITING_FOR_APPROVAL: ApplyPatchApprovalRequest.type,
        Stage.APPLYING: PatchApplyBegin.type,
    }
    return [
        {
            "name": name,
            "label": name,
            "evidence": evidence.get(name),
            "writes": name == Stage.APPLYING,
        }
        for name in tuple(Stage)
    ]


def _safety_meanings() -> dict[str, dict[str, str]]:
    return {
        decision.decision: {"label": decision.decision, "tone": tone}
        for decision, tone in ((AutoApprove, "ok"), (AskUser, "waiting"), (Reject, "bad"))
    }


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
    safety = traitlets.Dict(help="The safety decision: decision, reason, sandboxed.").tag(**SHOWN)
    approval = traitlets.Dict(
        help="The pending approval request (files, reason, retry), or {} when none."
    ).tag(**SHOWN)
    proposed = traitlets.Dict(help="The verified change map of the begin event.").tag(**SHOWN)

    status = traitlets.Unicode("", help="The call status; empty while running.").tag(**SHOWN)
    output = traitlets.Unicode("", help="The text the model would receive.").tag(**SHOWN)
    stdout = traitlets.Unicode("", help="The attempt's stdout.").tag(**SHOWN)
    stderr = traitlets.Unicode("", help="The attempt's stderr.").tag(**SHOWN)
    error = traitlets.Unicode("", help="The error that stopped the call, if any.").tag(**SHOWN)
    delta = traitlets.Dict(help="The committed delta: changes and exact.").tag(**SHOWN)
    turn_diff = traitlets.Unicode("", help="The cumulative TurnDiff of the turn.").tag(**SHOWN)
    turn_diff_files: traitlets.List[Any] = traitlets.List(
        help="The TurnDiff's blocks with the paths they were rendered from: old_path, path, diff."
    ).tag(**SHOWN)
    sources = traitlets.Dict(
        help=(
            "The lines the diff view of the call's own changes shows, syntax-coloured: "
            "highlight.call_sources(result.proposed, result.delta), keyed as proposed."
        )
    ).tag(sync=True)
    turn_sources = traitlets.Dict(
        help=(
            "The TurnDiff's lines, syntax-coloured: highlight.turn_sources(turn_diff), keyed by "
            "the path of each of the tracker's file blocks (turn_diff_files)."
        )
    ).tag(sync=True)
    events: traitlets.List[Any] = traitlets.List(
        help="The timeline: type, time and a one-line summary."
    ).tag(**SHOWN)
    explanation = traitlets.Dict(
        help="For a 'Failed to find ...' error: the closest region of the file."
    ).tag(**SHOWN)
    record_id = traitlets.Unicode(
        "",
        help=(
            "The id of the call's static record (record.CallRecord), an output of its own that "
            "the view hides while it is alive; empty when the widget has none."
        ),
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
