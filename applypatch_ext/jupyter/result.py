"""The displayed state of one call, defined once, and the magic's :class:`PatchCallResult`.

The state is the widget's displayed traits (:meth:`ApplyPatchWidget.displayed_traits`, from
their defaults). A :class:`CallDisplay` derives it in two steps, the same for the live widget
(:class:`~.view.CallView` sets the traits) and for the static views of a result
(:meth:`PatchCallResult.state_json`):

1. the call's events, each mapped onto the traits it carries (:meth:`CallDisplay.on_event`);
2. the final result, which fills only what no event carries (:meth:`CallDisplay.on_result`):
   the stage, the output, the error, the explanation, the delta, the status of a call that
   never reached an end event (or whose verdict a post-tool-use hook changed after it), the
   change map of a call that never began, and the turn's diff when the call emitted none.

A view accepts only its own call's events, and of the turn's events (a ``turn_diff`` carries
no call id) only those its own call emitted: a TurnDiff is emitted by the call of the event
just before it (the end event, or the last event of a cancelled attempt).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from ..core.turn.events import EventType
from ..core.turn.options import CallStatus, Decision
from ..core.turn.result import CallResult
from ..core.turn.safety import AutoApprove
from ..core.turn.turn_diff import TurnDiffTracker
from .display import (
    TURN_DIFF_EMPTIED,
    TURN_DIFF_INVALIDATED,
    render_html,
    render_markdown,
    render_plain,
    turn_diff_files_json,
)
from .highlight import call_sources, turn_sources
from .notebooks import call_notebook_views
from .session import summarize_event
from .widget import ApplyPatchWidget

#: The keys of the ``safety`` and ``approval`` traits, picked from their events (``safety`` gets
#: ``review: True`` from the begin event when ``--review`` asks where the policy would not).
SAFETY_FIELDS: Final = ("decision", "reason", "sandboxed")
APPROVAL_FIELDS: Final = ("files", "reason", "retry", "cwd")


def _pick(record: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: record.get(key) for key in keys}


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
    """The ``turn_diff_files`` trait: the TurnDiff's blocks, each ``diff`` cut for the view
    (``cut_lines`` then says how many lines); ``turn_diff`` keeps the whole text."""
    out = []
    for block in blocks:
        text = str(block.get("diff", ""))
        kept, cut = cut_text(text)
        out.append({**block, "diff": kept, **cut_fields(text, kept, cut)} if cut else dict(block))
    return out


def identity(call_id: str, cwd: str) -> dict[str, Any]:
    """The traits that name a call (set once, before any event)."""
    return {"call_id": call_id, "cwd": cwd, "title": f"apply_patch {call_id}"}


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
            updates["approval"] = _pick(event, APPROVAL_FIELDS)
            # asked again (a file changed, a selection): the diff on screen is the one asked
            updates["proposed"] = view_changes(event["changes"])
        elif kind == EventType.APPLY_PATCH_APPROVAL_DECISION:
            updates["approval"] = {}
        elif kind == EventType.PATCH_APPLY_END:
            updates.update(status=event["status"], stdout=event["stdout"], stderr=event["stderr"])
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


class PatchCallResult:
    """What the magic stores in its ``result`` variable; updated when an approval resumes."""

    def __init__(
        self,
        result: CallResult,
        decide: Callable[..., None] | None = None,
        tracker: TurnDiffTracker | None = None,
    ) -> None:
        self._tracker = tracker
        self._update(result)
        self._decide = decide
        #: runs an undo or redo of this call, and the core's call (set by the view that made
        #: the result)
        self._undo: Callable[..., PatchCallResult] | None = None
        self._call: object = None
        #: the call's undo panel as its view shows it (jupyter/undo.undo_panel), set by the view
        self._undo_panel: Callable[[], dict[str, Any]] | None = None

    def _update(self, result: CallResult) -> None:
        self._result = result
        # The TurnDiff's blocks with their paths, from the tracker, while it still renders the
        # diff this result holds (a later call of the turn changes it).
        tracker = self._tracker
        self._turn_valid = tracker is None or tracker.valid  # as the call stopped
        diff = result.turn_diff
        if tracker is not None and diff is not None and tracker.get_unified_diff() == diff:
            self._files = turn_diff_files_json(tracker.file_diffs())
        else:
            self._files = []
            tracker = None  # its TurnDiff is not this result's any more: no notebooks of it
        # once: a proposal reads the disk now, and the tracker moves on with the next call
        self._notebooks = call_notebook_views(result, tracker)

    def decide(
        self,
        decision: str,
        *,
        accept: Mapping[str, bool | Sequence[int]] | None = None,
        reason: str | None = None,
    ) -> PatchCallResult:
        """Answer a pending approval from Python, as the widget's buttons do.

        ``decision`` is ``approve``, ``approve-for-session`` or ``decline``. ``accept`` (with an
        approval) applies only what it names: per path as the patch writes it, True, False or
        a list of 0-based chunk indexes, e.g. ``{"a.py": True, "b.py": [0, 2]}``; ``reason``
        (with a decline) is told to the model (docs/behaviour.md §6.7, §6.9). Returns self,
        updated. Raises ``RuntimeError`` when the call is not waiting for approval and
        ``ValueError`` for an answer that cannot answer it (the call still waits).
        """
        if self.status != CallStatus.AWAITING_APPROVAL or self._decide is None:
            raise RuntimeError(
                f"call {self.call_id} is not waiting for approval: it ended {self.status} "
                f"(stage {self._result.stage}); a decision can only answer a call whose status "
                f"is {CallStatus.AWAITING_APPROVAL}"
            )
        Decision(decision)  # a clear ValueError for a bad answer
        self._decide(decision, accept, reason)
        return self

    def undo(
        self, *, only: Sequence[str] | None = None, force: bool = False, approve: str = "ask"
    ) -> PatchCallResult:
        """Undo this call (docs/behaviour.md §11) as a new call of its turn; returns the undo's
        result (a conflict: status ``error``, nothing written; its ``conflicts`` list the three
        versions). ``only`` undoes these files only; ``force`` overwrites files changed since;
        ``approve`` answers the undo's approval request (``ask``: its buttons). Raises
        ``UsageError`` when there is nothing to undo."""
        return self._run_undo("undo", only=only, force=force, approve=approve)

    def redo(
        self, *, only: Sequence[str] | None = None, force: bool = False, approve: str = "ask"
    ) -> PatchCallResult:
        """Redo what an undo of this call put back, with the same checks as :meth:`undo`."""
        return self._run_undo("redo", only=only, force=force, approve=approve)

    def _run_undo(self, kind: str, **options: Any) -> PatchCallResult:
        if self._undo is None:
            from IPython.core.error import UsageError

            raise UsageError(
                f"result.{kind}(): call {self.call_id} was not run in this kernel's session "
                "(a result from a replay or a reloaded notebook has no turn to undo in)"
            )
        return self._undo(kind, **options)

    @property
    def conflicts(self) -> list[dict[str, Any]]:
        """For an undo or redo stopped by a conflict: each file with its three versions
        (before the call, as the call left it, now); empty otherwise."""
        return list(self._conflicts())

    def _conflicts(self) -> Iterable[dict[str, Any]]:
        from ..core.turn.undo import UndoCall

        if isinstance(self._call, UndoCall):
            return [c.to_json() for c in self._call.conflicts]
        return []

    @property
    def review(self) -> list[dict[str, Any]]:
        """While the call waits: every file and chunk of the request, with its diff and the seek
        pass that matched it (a fuzzy one shows the file's line beside the patch's)."""
        return list(self._result.review)

    @property
    def not_applied(self) -> list[str]:
        """A line per file or chunk the user left out (``not applied, by the user: ...``)."""
        return list(self._result.not_applied)

    @property
    def selected_patch(self) -> str | None:
        """The canonical text of the patch of the selected hunks, if some were left out."""
        selected = self._result.selected
        return None if selected is None else selected.patch

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
    def turn_diff_files(self) -> list[dict[str, Any]]:
        """The blocks of :attr:`turn_diff` with their paths (empty once the turn moved on)."""
        return self._files

    @property
    def notebooks(self) -> dict[str, Any]:
        """The notebooks the call touches, as cells (proposed and committed views), and those
        of its TurnDiff (``turn``; see :func:`~.notebooks.call_notebook_views`)."""
        return self._notebooks

    @property
    def planned(self) -> dict[str, Any]:
        """The planned changes of the call's last preview (PatchApplyUpdated) event."""
        for event in reversed(self._result.events):
            if event.event.type == EventType.PATCH_APPLY_UPDATED:
                changes: dict[str, Any] = event.to_json()["changes"]
                return changes
        return {}

    @property
    def explanation(self) -> dict[str, Any] | None:
        explanation = self._result.explanation
        return None if explanation is None else explanation.to_json()

    def state_json(self) -> dict[str, Any]:
        """The displayed state: what the call's widget shows (see the module docstring)."""
        state = fold(
            self._result, self._files, self._notebooks, turn_valid=self._turn_valid
        ).displayed()
        if self._undo_panel is not None:  # its place in the turn and its undos: the view's
            state["undo"] = self._undo_panel()
        return state

    def _repr_html_(self) -> str:
        return render_html(self.state_json())

    def _repr_markdown_(self) -> str:
        return render_markdown(self.state_json())

    def __repr__(self) -> str:
        return render_plain(self.state_json())
