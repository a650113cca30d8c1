"""The magic's :class:`PatchCallResult`: what ``%%apply_patch NAME`` stores, what
``stream_patch`` returns; updated when an approval resumes the call. It shows what the call's
widget shows (:mod:`.state`), and answers, undoes and redoes through what its view gives it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from ...core.diagnosis import Diagnosis
from ...core.turn.call import ApplyPatchCall
from ...core.turn.events import EventType
from ...core.turn.options import CallStatus, Decision
from ...core.turn.result import CallResult
from ...core.turn.turn_diff import TurnDiffTracker
from ...core.turn.undo_call import UndoCall
from ...notebooks import call_notebook_views
from ..records.diffs import turn_diff_files_json
from ..records.display import render_html, render_markdown, render_plain
from .state import fold


class PatchCallResult:
    """What the magic stores in its ``result`` variable; updated when an approval resumes."""

    def __init__(
        self,
        result: CallResult,
        decide: Callable[..., None] | None = None,
        tracker: TurnDiffTracker | None = None,
        *,
        call: ApplyPatchCall | None = None,
        undo: Callable[..., PatchCallResult] | None = None,
        undo_panel: Callable[[], dict[str, Any]] | None = None,
        show: Callable[[], bool] | None = None,
        shown: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        """``decide`` answers a pending approval; ``call`` is the core's call, ``undo`` runs
        an undo or redo of it and ``undo_panel`` gives its undo panel as its view shows it
        (the view that makes the result gives them: see :class:`~.view.UndoHooks`); ``show``
        shows the call's live view and record again (False when it has none); ``shown``
        gives what the view shows that the result cannot know (its name, its record's id)."""
        self._tracker = tracker
        self._update(result)
        self._decide = decide
        self._call = call
        self._undo = undo
        self._undo_panel = undo_panel
        self._show = show
        self._shown = shown

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
        of its TurnDiff (``turn``; see :func:`~...notebooks.call_notebook_views`)."""
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

    @property
    def diagnosis(self) -> Diagnosis | None:
        """Why the call failed, and where (the failure atlas: ``kind``, ``message``,
        ``patch_line``, ``line``, ``suggestion``...; docs/diagnosis.md); None unless it failed."""
        return self._result.diagnosis

    @property
    def warnings(self) -> tuple[Diagnosis, ...]:
        """What to check in a call that applies: diagnoses of the same shape."""
        return self._result.warnings

    def state_json(self) -> dict[str, Any]:
        """The displayed state: what the call's widget shows (see the module docstring)."""
        state = fold(
            self._result, self._files, self._notebooks, turn_valid=self._turn_valid
        ).displayed()
        if self._undo_panel is not None:  # its place in the turn and its undos: the view's
            state["undo"] = self._undo_panel()
        if self._shown is not None:
            state.update(self._shown())
        return state

    def _ipython_display_(self) -> None:
        """Displayed in IPython (the result evaluated in a cell): the call's live view again,
        answerable while it waits, with its record; a call shown without one, its static
        representations."""
        if self._show is not None and self._show():
            return
        state = self.state_json()
        display(
            {
                "text/html": render_html(state),
                "text/markdown": render_markdown(state),
                "text/plain": render_plain(state),
            },
            raw=True,
        )

    def _repr_html_(self) -> str:
        return render_html(self.state_json())

    def _repr_markdown_(self) -> str:
        return render_markdown(self.state_json())

    def __repr__(self) -> str:
        return render_plain(self.state_json())
