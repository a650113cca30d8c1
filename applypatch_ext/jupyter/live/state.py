"""The displayed state of one call, defined once.

The state is the widget's displayed traits (:meth:`ApplyPatchWidget.displayed_traits`, from
their defaults). A :class:`CallDisplay` derives it in two steps, the same for the live widget
(:class:`~.view.CallView` sets the traits) and for the static views of a result
(:meth:`~.result.PatchCallResult.state_json`):

1. the call's events, each mapped onto the traits it carries (:meth:`CallDisplay.on_event`);
2. the final result, which fills only what no event carries (:meth:`CallDisplay.on_result`):
   the stage, the output, the error, the explanation, the diagnosis and warnings (which their
   events carry as the call runs), the delta, the status of a call that
   never reached an end event (or whose verdict a post-tool-use hook changed after it), the
   change map of a call that never began, and the turn's diff when the call emitted none.

A view accepts only its own call's events, and of the turn's events (a ``turn_diff`` carries
no call id) only those its own call emitted: a TurnDiff is emitted by the call of the event
just before it (the end event, or the last event of a cancelled attempt).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from ...core.diagnosis import Diagnosis
from ...core.turn.events import EventType
from ...core.turn.options import CallStatus
from ...core.turn.result import CallResult
from ...core.turn.safety import AutoApprove
from ..records.atlas import diagnosis_state
from ..records.display import TURN_DIFF_EMPTIED, TURN_DIFF_INVALIDATED
from ..records.sources import call_sources, turn_sources
from ..records.static_diff import diff_counts
from ..records.vocabulary import request_words
from .session import summarize_event
from .widget import ApplyPatchWidget

#: The keys of the ``safety`` and ``approval`` traits, picked from their events (``safety`` gets
#: ``review: True`` from the begin event when ``--review`` asks where the policy would not).
SAFETY_FIELDS: Final = ("decision", "reason", "sandboxed")
APPROVAL_FIELDS: Final = ("files", "reason", "retry", "cwd", "request_id")


def _pick(record: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: record.get(key) for key in keys}


def _diagnosis_fields(event: Mapping[str, Any]) -> dict[str, Any]:
    """A ``patch_diagnosis`` or ``patch_warning`` event's diagnosis, read back from its JSON,
    as the trait holds it (:func:`~..records.atlas.diagnosis_state`)."""
    fields = {key: value for key, value in event.items() if key not in ("type", "call_id", "time")}
    return diagnosis_state(Diagnosis.from_json(fields))


#: The fields of a committed change that no view shows (the call's result keeps them all): its
#: texts, and what only an undo reads (modes, created directories; docs/behaviour.md §11.1).
UNSHOWN_FIELDS: Final = (
    "old_content",
    "new_content",
    "overwritten_content",
    "overwritten_move_content",
    "mode",
    "move_mode",
    "overwritten_mode",
    "overwritten_move_mode",
    "created_dirs",
)


def view_delta(delta: Mapping[str, Any], proposed: Any = None) -> dict[str, Any]:
    """The ``delta`` trait: the committed delta without the file texts its views never show.

    A view shows a committed change by its type, path and move (and the verified change's
    own diff); only a change the verified map lacks (an ``extra``) shows its ``content``. So
    the old and new texts of an update, what an add overwrote, and the content of a change
    the map has are left out: for a 20,000-line file, 2.3 MB the browser would have parsed
    for nothing, and the saved record would have carried.
    """
    verified = set(proposed.changes) if proposed is not None else set()
    changes = []
    for change in delta.get("changes", []):
        kept = {k: v for k, v in change.items() if k not in UNSHOWN_FIELDS}
        if kept.get("path") in verified:
            kept.pop("content", None)
        changes.append(kept)
    return {**delta, "changes": changes}


#: At most this many characters of each text of a change (an add's or a delete's content, an
#: update's diff) and of each TurnDiff block go to the view, cut at a line's end: the view shows
#: a few hundred lines of a file at first and a thousand more per click, and a 2 MB text in
#: every trait that has it is what the browser stalls on parsing (make bench-browser).
VIEW_TEXT_LIMIT: Final = 200_000


def cut_text(text: str, limit: int = VIEW_TEXT_LIMIT) -> tuple[str, int]:
    """``text``, or its lines that fit in ``limit`` characters; and how many lines were cut."""
    if len(text) <= limit:
        return text, 0
    end = text.rfind("\n", 0, limit) + 1
    kept = text[:end]
    return kept, text.count("\n", end) + (0 if text.endswith("\n") else 1)


def cut_fields(text: str, kept: str, lines: int) -> dict[str, int]:
    """What a cut for the view left out: ``cut_lines`` and ``cut_bytes`` (UTF-8), which the
    static record adds to its own cut (docs: README, "In a notebook")."""
    size = len(text.encode("utf-8", "surrogatepass")) - len(kept.encode("utf-8", "surrogatepass"))
    return {"cut_lines": lines, "cut_bytes": size}


def view_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """The ``planned`` / ``proposed`` traits: a change map whose long texts are cut for the
    view (see :data:`VIEW_TEXT_LIMIT`); a cut change says how many lines (``cut_lines``)."""
    out: dict[str, Any] = {}
    for path, change in changes.items():
        for key in ("content", "unified_diff"):
            text = change.get(key) if isinstance(change, Mapping) else None
            if isinstance(text, str) and len(text) > VIEW_TEXT_LIMIT:
                kept, cut = cut_text(text)
                change = {**change, key: kept, **cut_fields(text, kept, cut)}
        out[path] = change
    return out


def view_blocks(blocks: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``turn_diff_files`` trait: the TurnDiff's blocks, each with its ``added`` and
    ``removed`` lines (a record's summary of the turn says them), and its ``diff`` cut for the
    view (``cut_lines`` then says how many lines); ``turn_diff`` keeps the whole text."""
    out = []
    for block in blocks:
        text = str(block.get("diff", ""))
        added, removed = diff_counts(text)
        kept, cut = cut_text(text)
        shown = {**block, "added": added, "removed": removed}
        out.append({**shown, "diff": kept, **cut_fields(text, kept, cut)} if cut else shown)
    return out


def identity(call_id: str, cwd: str, requested: str | None = None) -> dict[str, Any]:
    """The traits that name a call (set once, before any event); ``requested``: the id its
    caller asked for, when an earlier call of the turn had it (the title says so)."""
    title = f"apply_patch {call_id}"
    if requested is not None:
        title += f" ({requested} is an earlier call's id in this turn)"
    return {"call_id": call_id, "cwd": cwd, "title": title}


class CallDisplay:
    """Derives one call's displayed state from its events, then from its result.

    ``state`` holds the widget's traits as the updates left them (the displayed ones plus the
    synced ``sources`` and ``turn_sources``); each ``on_...`` method returns the updates it
    made, for a live widget to apply in one ``hold_sync``.
    """

    def __init__(self, call_id: str) -> None:
        self.call_id = call_id
        traits = ApplyPatchWidget.class_traits(sync=True)
        names = [*ApplyPatchWidget.displayed_traits(), "sources", "turn_sources"]
        self.state: dict[str, Any] = {name: traits[name].default() for name in names}
        self._last_call_id: str | None = None  # the call of the last event with a call id
        self._own_turn_diff = False  # the call emitted a TurnDiff

    def accepts(self, event: Mapping[str, Any]) -> bool:
        """The call's own events, and the TurnDiffs it emitted (see the module docstring)."""
        call_id = event.get("call_id")
        if call_id is not None:
            self._last_call_id = str(call_id)
            return bool(call_id == self.call_id)
        return event.get("type") == EventType.TURN_DIFF and self._last_call_id == self.call_id

    def update(self, updates: Mapping[str, Any]) -> dict[str, Any]:
        self.state.update(updates)
        return dict(updates)

    def on_event(
        self,
        event: Mapping[str, Any],
        stage: str,
        turn_blocks: Callable[[], list[dict[str, Any]]],
    ) -> dict[str, Any]:
        """The traits an accepted event carries; ``turn_blocks`` gives the TurnDiff's blocks."""
        kind = event["type"]
        entry = {"type": kind, "time": event["time"], "summary": summarize_event(dict(event))}
        updates: dict[str, Any] = {"events": [*self.state["events"], entry], "stage": stage}
        if kind == EventType.PATCH_APPLY_UPDATED:
            updates["planned"] = view_changes(event["changes"])
        elif kind == EventType.PATCH_SAFETY_ASSESSED:
            updates["safety"] = _pick(event, SAFETY_FIELDS)
        elif kind == EventType.PATCH_APPLY_BEGIN:
            updates["proposed"] = view_changes(event["changes"])
            safety = self.state["safety"]
            if not event["auto_approved"] and safety.get("decision") == AutoApprove.decision:
                # the policy would apply it, yet the call asks: --review (docs/behaviour.md §6.7)
                updates["safety"] = {**safety, "review": True}
        elif kind == EventType.APPLY_PATCH_APPROVAL_REQUEST:
            updates["approval"] = {
                **_pick(event, APPROVAL_FIELDS),
                **request_words(len(event["files"]), retry=bool(event.get("retry"))),
            }
            # asked again (a file changed, a selection): the diff on screen is the one asked
            updates["proposed"] = view_changes(event["changes"])
        elif kind == EventType.APPLY_PATCH_APPROVAL_DECISION:
            updates["approval"] = {}
        elif kind == EventType.PATCH_APPLY_END:
            updates.update(status=event["status"], stdout=event["stdout"], stderr=event["stderr"])
        elif kind == EventType.PATCH_WARNING:
            updates["warnings"] = [*self.state["warnings"], _diagnosis_fields(event)]
        elif kind == EventType.PATCH_DIAGNOSIS:
            updates["diagnosis"] = _diagnosis_fields(event)
        elif kind == EventType.TURN_DIFF:
            self._own_turn_diff = True
            blocks = turn_blocks()
            updates.update(
                turn_diff=event["unified_diff"],
                turn_diff_files=view_blocks(blocks),
                turn_sources=turn_sources(blocks),
            )
        return self.update(updates)

    def on_result(
        self,
        result: CallResult,
        files: list[dict[str, Any]],
        notebooks: dict[str, Any],
        *,
        turn_valid: bool = True,
    ) -> dict[str, Any]:
        """What no event carries; ``files`` are the blocks of ``result.turn_diff``,
        ``notebooks`` the call's notebooks as cells (``call_notebook_views``), ``turn_valid``
        whether the turn's tracker was still valid when the call stopped."""
        explanation = result.explanation
        updates: dict[str, Any] = {
            "stage": result.stage,
            "output": result.output,
            "error": result.error or "",
            "explanation": {} if explanation is None else explanation.to_json(),
            "diagnosis": {} if result.diagnosis is None else diagnosis_state(result.diagnosis),
            "warnings": [diagnosis_state(warning) for warning in result.warnings],
            "delta": view_delta(result.delta.to_json(), result.proposed),
            "sources": call_sources(result.proposed, result.delta),
            "notebooks": notebooks,
        }
        if self.state["status"] != result.status:
            updates["status"] = result.status
        if result.status == CallStatus.DRY_RUN:
            updates["dry_run"] = True
        if result.proposed is not None and not self.state["proposed"]:
            updates["proposed"] = view_changes(result.proposed.to_json())  # never begun
        elif result.proposed is not None and result.selected is not None:
            # what ran is the selection (its own verified map): the diff shown next to the
            # delta is that one, not the begin event's, which has the hunks left out
            updates["proposed"] = view_changes(result.proposed.to_json())
        if result.status.terminal and self.state["approval"]:
            updates["approval"] = {}  # nothing waits any more
        request = result.pending_request
        updates["review"] = (
            {
                "files": list(result.review),
                "selectable": result.selectable,
                "patch": request.patch,  # the text asked for (a selection's own)
            }
            if result.status == CallStatus.AWAITING_APPROVAL and request is not None
            else {}
        )
        if not self._own_turn_diff:
            updates.update(
                turn_diff=result.turn_diff or "",
                turn_diff_files=view_blocks(files),
                turn_sources=turn_sources(files),
            )
        self.update(updates)
        updates["turn_diff_note"] = self._turn_diff_note(result, turn_valid)
        return self.update(updates)

    def _turn_diff_note(self, result: CallResult, turn_valid: bool) -> str:
        """Why the TurnDiff shows nothing, when there is a reason to say: an inexact delta
        (this call's, or an earlier one's) invalidated it, or this call emptied it again."""
        if self.state["turn_diff"]:
            return ""
        if not turn_valid or not result.delta.exact:
            return TURN_DIFF_INVALIDATED
        return TURN_DIFF_EMPTIED if self._own_turn_diff else ""

    def displayed(self) -> dict[str, Any]:
        """The displayed traits' values, in the widget's order."""
        return {name: self.state[name] for name in ApplyPatchWidget.displayed_traits()}


def fold(
    result: CallResult,
    files: list[dict[str, Any]],
    notebooks: dict[str, Any],
    *,
    turn_valid: bool = True,
) -> CallDisplay:
    """The display of a finished (or waiting) call, from its recorded events and result."""
    display = CallDisplay(result.call_id)
    display.update(identity(result.call_id, result.cwd))

    def blocks_of(diff: str) -> Callable[[], list[dict[str, Any]]]:
        # The tracker's blocks are known for the result's diff only (the latest of the call).
        return lambda: files if diff == (result.turn_diff or "") else []

    events: Iterable[dict[str, Any]] = (e.to_json() for e in result.events)
    for event in events:
        if display.accepts(event):
            display.on_event(event, result.stage, blocks_of(str(event.get("unified_diff", ""))))
    display.on_result(result, files, notebooks, turn_valid=turn_valid)
    return display
