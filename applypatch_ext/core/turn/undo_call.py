"""An undo (or redo) as a call of the turn (docs/behaviour.md §11): :class:`UndoCall`.

It goes through the same pipeline as a patch: its description as a patch streams into the
preview, its check is its verification (a file that changed since the call is a
:class:`~.undo_conflicts.Conflict`: nothing is written), then safety, the FileChange begin event,
approval, the attempts (sandboxed like any call, journaled when atomic), the end event and the
TurnDiff. What it writes are the recorded bytes and modes, in its steps' order
(:func:`~..apply.revert.apply_steps`), not the patch text, which cannot say them all;
:mod:`..apply.inverse` gives its description as a patch. :mod:`.undo` asks for one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..apply.found import found_at, linked_ancestor, other_names, shared_text
from ..apply.fs import Filesystem
from ..apply.inverse import change_map, describe
from ..apply.revert import FileRecord, RevertStep, apply_steps, describe_paths, read_state
from ..apply.runtime import ApplyOutcome
from ..diagnosis import Diagnosis, DiagnosisKind
from ..errors import ParseError
from ..interrupts import CancellationToken
from ..parse.model import Hunk
from ..parse.parser import parse_patch
from . import stages
from .call import ApplyPatchCall, CallTurn
from .options import Answer, CallStatus, PipelineOptions, Stage
from .result import Stop
from .safety import Reject
from .stages import VERIFICATION_FAILED, Ending, Prepared
from .undo_conflicts import (
    Conflict,
    Kind,
    conflict_message,
    later_message,
    linked_message,
    with_article,
)

# -- its steps -------------------------------------------------------------------------------------


def _steps(
    records: dict[str, FileRecord], paths: set[str], kind: Kind, shown: dict[str, str]
) -> list[RevertStep]:
    """The steps, in an order that moves a file back before its destination is restored."""
    steps: list[RevertStep] = []
    ordered = list(records.values())
    if kind == "undo":
        ordered.reverse()
    for record in ordered:
        if record.path not in paths:
            continue
        if kind == "undo":
            expect, target = record.left, record.before
            move_from = None
            if not record.left.exists and record.moved_to in paths:
                move_from = record.moved_to
            dirs = tuple(reversed(record.created_dirs)) if not target.exists else ()
        else:
            expect, target, dirs = record.before, record.left, ()
            move_from = next(
                (
                    r.path
                    for r in records.values()
                    if r.moved_to == record.path and r.path in paths and record.left.exists
                ),
                None,
            )
        steps.append(
            RevertStep(record.path, shown[record.path], expect, target, False, move_from, dirs)
        )
    # A move back writes its file, then empties the destination: the step of the file that
    # comes back goes first.
    sources = {s.move_from: s for s in steps if s.move_from is not None}
    result: list[RevertStep] = []
    for step in steps:
        if step.path in sources:
            continue
        result.append(step)
        if step.move_from is not None:
            result.append(next(s for s in steps if s.path == step.move_from))
    return result


# -- the call --------------------------------------------------------------------------------------


class UndoCall(ApplyPatchCall):
    """An undo (or redo) of ``target_id``: a call of the turn whose verification is the check
    that each file is as expected, and whose writer puts back the recorded states."""

    def __init__(
        self,
        turn: CallTurn,
        call_id: str,
        options: PipelineOptions,
        cancel: CancellationToken,
        *,
        kind: Kind,
        target: ApplyPatchCall,
        records: dict[str, FileRecord],
        paths: set[str],
        force: bool,
        later: dict[str, ApplyPatchCall] | None = None,
    ) -> None:
        super().__init__(turn, call_id, options, cancel)
        #: the files a call of a later turn changed, with that call: ``force`` keeps off them
        self.later = dict(later or {})
        self.kind: Kind = kind
        self.target_id = target.call_id
        self.root = target.result.cwd if target.result is not None else turn.cwd
        self.records = records
        self.force = force
        self.shown = describe_paths(records, self.root)
        self.steps = _steps(records, paths, kind, self.shown)
        self.plan_paths = tuple(s.path for s in self.steps)
        self.conflicts: tuple[Conflict, ...] = ()
        #: the paths its attempts left in the state it puts them in: written, or found so
        #: (a file put back by hand), and not rolled back (docs/behaviour.md §11.5)
        self.settled: set[str] = set()
        self.patch = describe(self.steps)
        try:
            parse_patch(self.patch)
        except ParseError:
            self.patch = describe(self.steps, coarse=True)

    def finish_input(self) -> Any:
        """The undo's input is its description as a patch (streamed now unless a front end
        streamed it already)."""
        if not self.text:
            self.push_delta(self.patch)
        return super().finish_input()

    def _environment(self) -> str:
        for name, root in self.turn.environments.items():
            if root == self.root:
                return name
        return self.turn.primary

    def check(self, fs: Filesystem | None = None) -> tuple[Conflict, ...]:
        """The files that are neither as expected nor already as the undo leaves them."""
        reader = fs if fs is not None else self.turn.fs
        conflicts: list[Conflict] = []
        for step in self.steps:
            # a directory on the way swapped for a link: what it reads is another file
            through = linked_ancestor(reader, step.path, self.root)
            now = None if through is not None else read_state(reader, step.path)
            if now is not None and (now.matches(step.expect) or now.matches(step.target)):
                continue
            found = None if now is not None or through else found_at(reader, step.path)
            if now is not None and (names := other_names(reader, step.path)):
                found = shared_text(names)  # e.g. swapped for a hard link of another file
            record = self.records[step.path]
            conflicts.append(
                Conflict(
                    step.shown,
                    step.path,
                    record.before,
                    record.left,
                    now,
                    self.kind,
                    found=found,
                    through=through,
                )
            )
        return tuple(conflicts)

    def _prepare(self, *, read_only: bool = False) -> Prepared | Stop:
        ctx = self._ctx
        self._advance(stage=Stage.PARSING)
        parsed = parse_patch(self.patch)
        self._advance(parsed=parsed, cwd=self.root)
        faulty = stages.open_filesystem(ctx, self.root, read_only=read_only)
        self._advance(stage=Stage.VERIFYING)
        conflicts = self.check(faulty)
        self.conflicts = conflicts
        if conflicts and not self.force:
            message = conflict_message(conflicts, self.kind, self.target_id)
            return _conflict(message)
        linked = [c for c in conflicts if c.through is not None]
        if linked:
            message = linked_message(linked, self.kind, self.target_id)
            return _conflict(message)
        later = [c for c in conflicts if c.abs_path in self.later]
        if later:
            message = later_message(later, self.later, self.kind, self.target_id)
            return _conflict(message)
        if conflicts:
            forced = {c.abs_path for c in conflicts}
            self.steps = [
                RevertStep(
                    s.path,
                    s.shown,
                    s.expect,
                    s.target,
                    s.path in forced,
                    s.move_from,
                    s.remove_dirs,
                )
                for s in self.steps
            ]
        action = change_map(self.steps, self.patch, self.root)
        self._advance(proposed=action, stage=Stage.SAFETY)
        safety = stages.assess_safety(ctx, action, self.root)
        self._advance(safety=safety)
        if isinstance(safety, Reject):
            return stages.rejected(safety)
        return Prepared(parsed, self._environment(), self.root, self.root, action, safety, faulty)

    def check_answer(self, answer: Answer) -> None:
        """An undo is answered whole: its files are picked before it runs (``only``), never
        by hunks, since its patch only describes the states it restores."""
        if answer.accept is not None:
            raise ValueError(
                f"{with_article(self.kind)} restores whole files: it cannot apply a selection of "
                "hunks; pick its files with only= (%apply_patch_undo --only PATH) and approve or "
                "decline it whole"
            )
        super().check_answer(answer)

    @property
    def reviewable(self) -> bool:
        return False

    def _reverify(self, prepared: Prepared) -> Prepared | Ending:
        """An undo's approval covers the states it restores, not a diff of the files: its writer
        checks every file again just before the first write, and a file changed while the undo
        waited fails it with nothing written (docs/behaviour.md §11.2)."""
        return prepared

    def _write(self, _hunks: Sequence[Hunk], _cwd: str, fs: Filesystem) -> ApplyOutcome:
        return apply_steps(self.steps, fs, self.root)

    def _attempt(
        self, prepared: Prepared, *, sandboxed: bool, approved: Sequence[str]
    ) -> ApplyOutcome:
        self._advance(stage=Stage.APPLYING, attempts=self._progress.attempts + 1)
        outcome = stages.attempt(
            self._ctx, prepared, sandboxed=sandboxed, approved=approved, writer=self._write
        )
        self._advance(delta=self._progress.delta.append(outcome.delta))
        # read after the attempt: an atomic one that failed has been rolled back by now
        for step in self.steps:
            now = read_state(self.turn.fs, step.path)
            if now is not None and now.matches(step.target):
                self.settled.add(step.path)
        if self.force:  # what the forced undo wrote over, for every view of its conflicts
            self.conflicts = tuple(
                replace(c, forced=True, written=c.abs_path in self.settled) for c in self.conflicts
            )
        return outcome


def _conflict(message: str) -> Stop:
    """An undo stopped before writing: a file is not as the call it reverts left it."""
    return Stop(
        CallStatus.ERROR,
        VERIFICATION_FAILED + message,
        error=message,
        diagnosis=Diagnosis(DiagnosisKind.UNDO_CONFLICT, message.split("\n")[0].rstrip(":.") + "."),
    )


__all__ = ["UndoCall"]
