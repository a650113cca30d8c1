"""Notebook 10's atlas of real failures: the corpus through the pipeline, one real case per
kind, and the kinds by model.

Every case of the corpus (:mod:`.corpus`) runs through the pipeline on its file in memory
(:mod:`.scratch`); its call's diagnosis (the failure atlas's, :mod:`applypatch_ext.core.
diagnosis`) says the kind. :class:`AtlasEntry` shows one case of a kind the way a reviewer reads
it: the patch, the file where it went wrong, what Codex says, what the diagnosis says and why,
and its fixed lines where a fix is certain; :func:`kinds_by_model` counts the kinds per model.
Nothing here decides a kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..core.diagnosis import KINDS, Diagnosis, DiagnosisKind
from .catalogue import EXERCISES
from .corpus import CorpusCase, corpus
from .diagnose import Diagnose, diagnosis_elements
from .document import Block, Code, Element, Heading, Para, Table, Text, say
from .model import Shown
from .scratch import Outcome, run
from .showcase import CASES, FIXES

#: Lines of the file shown before and after where the diagnosis points.
AROUND = 3
#: The row of the calls that completed (no diagnosis) in :func:`kinds_by_model`.
COMPLETED = "(completed)"


@dataclass(frozen=True)
class CaseRun:
    """A corpus case and its run through the pipeline."""

    case: CorpusCase
    outcome: Outcome

    @property
    def diagnosis(self) -> Diagnosis | None:
        call = self.outcome.call
        return None if call is None else call.diagnosis

    @property
    def warnings(self) -> tuple[Diagnosis, ...]:
        call = self.outcome.call
        return () if call is None else call.warnings

    @property
    def kind(self) -> DiagnosisKind | None:
        diagnosis = self.diagnosis
        return None if diagnosis is None else diagnosis.kind


def run_corpus(cases: Iterable[CorpusCase] | None = None) -> list[CaseRun]:
    """Every case (default: the whole corpus) through the pipeline, in order."""
    chosen = corpus().values() if cases is None else cases
    return [CaseRun(case, run(case.patch(), case.files())) for case in chosen]


def kinds_seen(runs: Sequence[CaseRun]) -> list[DiagnosisKind]:
    """The kinds the runs show, in the vocabulary's order."""
    seen = {r.kind for r in runs}
    return [kind for kind in KINDS if kind in seen]


def representative(runs: Sequence[CaseRun], kind: DiagnosisKind) -> CaseRun:
    """The case that shows ``kind``: the one chosen for it (:data:`.showcase.CASES`), else
    the first run against its file with a suggestion, else the first against its file, else
    the first; never a case a diagnose exercise asks about."""
    asked = {ex.case for ex in EXERCISES.values() if isinstance(ex, Diagnose)}
    of_kind = [r for r in runs if r.kind is kind and r.case.id not in asked]
    chosen = [r for r in of_kind if r.case.id == CASES.get(kind)]
    with_file = [r for r in of_kind if r.case.files()]
    suggested = [r for r in with_file if r.diagnosis and r.diagnosis.suggestion]
    found = chosen or suggested or with_file or of_kind
    if not found:
        raise ValueError(f"no case of the kind {kind} to show")
    return found[0]


def fixed_patch(case_run: CaseRun) -> tuple[str, Text] | None:
    """The patch fixed, and how: the diagnosis's suggestion in place of the patch lines it
    ``replaces``, or the fix written for the case (:data:`.showcase.FIXES`); None without
    either."""
    diagnosis, case = case_run.diagnosis, case_run.case
    if diagnosis is not None and diagnosis.suggestion and diagnosis.replaces is not None:
        lines = case.patch().split("\n")
        first, last = diagnosis.replaces
        lines[first - 1 : last] = diagnosis.suggestion.rstrip("\n").split("\n")
        how = say("the diagnosis's suggestion in place of the chunk it corrects")
        return "\n".join(lines), how
    if case.id in FIXES:
        return FIXES[case.id], say("written by hand: the model's change, in lines the file has")
    return None


def _models(runs: Sequence[CaseRun]) -> list[str]:
    counts = Counter(r.case.model for r in runs)
    return sorted(counts, key=lambda model: (-counts[model], model))


def kinds_by_model(runs: Sequence[CaseRun]) -> Table:
    """How many cases of each model end in each kind (the vocabulary's order), the calls
    that completed, and each model's total."""
    models = _models(runs)
    counts = Counter((r.kind, r.case.model) for r in runs)

    def row(label: str | Code, kind: DiagnosisKind | None) -> tuple[str | Code, ...]:
        cells = [counts[(kind, model)] for model in models]
        return (label, *(str(n) if n else "" for n in cells), str(sum(cells)))

    rows = [row(Code(kind.value), kind) for kind in kinds_seen(runs)]
    if any(r.kind is None for r in runs):
        rows.append(row(COMPLETED, None))
    totals = Counter(r.case.model for r in runs)
    rows.append(("cases", *(str(totals[m]) for m in models), str(len(runs))))
    return Table(("kind", *models, "all"), tuple(rows))


def _excerpt(case: CorpusCase, line: int) -> Block:
    text = case.files()[case.file]
    lines = text.split("\n")
    start = max(1, line - AROUND)
    end = min(len(lines), line + AROUND)
    shown = "\n".join(lines[start - 1 : end])
    title = say("The file ", Code(case.file), f", lines {start} to {end}")
    return Block(title, shown, numbered=True, whitespace=True, first=start)


@dataclass(frozen=True, repr=False)
class AtlasEntry(Shown):
    """One kind, shown on one real case."""

    case_run: CaseRun

    def elements(self) -> list[Element]:
        case, outcome, diagnosis = (
            self.case_run.case,
            self.case_run.outcome,
            self.case_run.diagnosis,
        )
        if diagnosis is None:
            raise ValueError(f"case {case.id} completed: it has no diagnosis to show")
        shown: list[Element] = [
            Heading(say(Code(diagnosis.kind.value), ": ", KINDS[diagnosis.kind].meaning)),
            Para(
                say(
                    "A patch by ",
                    Code(case.model),
                    " for ",
                    Code(case.file),
                    f" (corpus case {case.id}; its task: {case.task}).",
                )
            ),
            Block(say("The patch"), case.patch(), numbered=True, whitespace=True),
        ]
        if not case.files():
            shown.append(Para(say("The corpus has no task with ", Code(case.file), ".")))
        elif diagnosis.line is not None:
            shown.append(_excerpt(case, diagnosis.line))
        shown.append(Block(say("What Codex says"), outcome.says))
        shown.append(Para(self._where(diagnosis)))
        shown += diagnosis_elements(diagnosis)
        shown += self._fixed()
        return shown

    def _fixed(self) -> list[Element]:
        """The fixed patch and what Codex says to it, or why there is none."""
        case = self.case_run.case
        fixed = fixed_patch(self.case_run)
        if fixed is None:
            why = (
                "the corpus has no copy of the file"
                if not case.files()
                else "the corpus's copy of the file is not the version the model read, so no "
                "fix of its lines can be checked; the diagnosis says what to change"
            )
            return [Para(say("No fixed patch here: ", why, "."))]
        patch, how = fixed
        title = say("The fixed patch (", *how, ")")
        shown: list[Element] = [Block(title, patch, numbered=True, whitespace=True)]
        if case.files():
            shown.append(Block(say("What Codex says to it"), run(patch, case.files()).says))
        else:
            shown.append(Para(say("(The corpus has no copy of the file to run it on.)")))
        return shown

    def _where(self, diagnosis: Diagnosis) -> Text:
        """Why this kind: the patch's line the diagnosis points at."""
        if diagnosis.patch_line is None:
            return say("The diagnosis points at the patch as a whole.")
        lines = self.case_run.case.patch().split("\n")
        line = lines[diagnosis.patch_line - 1] if diagnosis.patch_line <= len(lines) else ""
        return say(f"Line {diagnosis.patch_line} of the patch reads ", Code(line), ".")


__all__ = [
    "AROUND",
    "COMPLETED",
    "AtlasEntry",
    "CaseRun",
    "fixed_patch",
    "kinds_by_model",
    "kinds_seen",
    "representative",
    "run_corpus",
]
