"""*Diagnose a failure*: a real model's patch that Codex refused; the learner names the kind of
failure and the line of the patch where it goes wrong.

The patch and its file come from the corpus (:mod:`.corpus`); the answer is never written
down: the check runs the patch through the pipeline on the file in memory (:mod:`.scratch`) and
compares the learner's kind and line with the call's diagnosis, the failure atlas's
(:mod:`applypatch_ext.core.diagnosis`), whose vocabulary also gives the meaning of each kind
offered. A wrong kind gets what that kind means and where to look; a right kind on a wrong line
gets the direction; the right answer gets the diagnosis's message and, when it has one, the
fixed patch it suggests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..core.diagnosis import KINDS, SUGGESTION_NOTE, Diagnosis, DiagnosisKind
from .corpus import CorpusCase, corpus
from .document import Block, Code, Element, Items, Para, Text, say
from .model import Exercise, ExerciseKind, Feedback, Verdict
from .scratch import Outcome, run


class DiagnoseDefect(RuntimeError):
    """The real run does not give what the exercise asks for (a diagnosis with a patch line,
    of a kind it offers): the exercise is wrong."""


@dataclass(frozen=True, repr=False)
class Diagnose(Exercise):
    """The corpus case ``case``, with ``offered`` kinds to pick from and a ``hint`` (where to
    look, never the answer) for a wrong pick."""

    id: str
    title: str
    case: str
    setting: tuple[Text, ...]
    offered: tuple[DiagnosisKind, ...]
    hint: Text
    kind: ExerciseKind = field(default=ExerciseKind.DIAGNOSE, init=False)

    def __post_init__(self) -> None:
        if len(self.offered) < 2 or len(set(self.offered)) != len(self.offered):
            raise ValueError(f"diagnose {self.id!r}: offer two or more distinct kinds")

    @cached_property
    def source(self) -> CorpusCase:
        return corpus()[self.case]

    @cached_property
    def outcome(self) -> Outcome:
        """The real run (once): the case's patch on its file."""
        return run(self.source.patch(), self.source.files())

    @property
    def patch_lines(self) -> list[str]:
        return self.source.patch().rstrip("\n").split("\n")

    def answer_key(self) -> Diagnosis:
        """The call's diagnosis; :class:`DiagnoseDefect` when it cannot be the answer."""
        call = self.outcome.call
        diagnosis = None if call is None else call.diagnosis
        if diagnosis is None or diagnosis.patch_line is None:
            raise DiagnoseDefect(f"diagnose {self.id!r}: the run has no diagnosis with a line")
        if diagnosis.kind not in self.offered:
            raise DiagnoseDefect(
                f"diagnose {self.id!r}: the run's kind {diagnosis.kind} is not offered"
            )
        return diagnosis

    def task(self) -> list[Element]:
        source = self.source
        whole = f'print(exercise("{self.id}").source.files()["{source.file}"])'
        shown: list[Element] = [Para(text) for text in self.setting]
        shown.append(Para(say("The model: ", Code(source.model), "; its task: ", source.task, ".")))
        for path, text in source.files().items():
            title = say("The file ", Code(path))
            shown.append(Block(title, text, numbered=True, whitespace=True, whole=whole))
        shown.append(Block(say("The patch"), source.patch(), numbered=True, whitespace=True))
        shown.append(Block(say("What Codex says"), self.outcome.says))
        shown.append(
            Para(
                say("What kind of failure is it, and on which line of the patch does it go wrong?")
            )
        )
        shown.append(
            Items(tuple(say(Code(kind.value), ": ", KINDS[kind].meaning) for kind in self.offered))
        )
        return shown

    def answer_form(self) -> tuple[str, str]:
        return (
            'kind="...", line=N',
            "with one of the kinds above and the number of the patch's line",
        )

    def check(self, kind: object = None, line: object = None) -> Feedback:
        """Whether ``kind`` and ``line`` are the call's diagnosis."""
        names = [offered.value for offered in self.offered]
        if kind not in names:
            return self.unanswered("pick one of the kinds listed: ", ", ".join(names), ".")
        count = len(self.patch_lines)
        if type(line) is not int or not 1 <= line <= count:
            return self.unanswered(f"give the patch's line too, a number from 1 to {count}.")
        key = self.answer_key()
        assert key.patch_line is not None  # answer_key checked it
        if kind != key.kind:
            return self.feedback(
                Verdict.WRONG,
                say("it is not ", Code(str(kind)), "."),
                Para(say(Code(str(kind)), " means: ", KINDS[DiagnosisKind(kind)].meaning)),
                Para(self.hint),
            )
        if line != key.patch_line:
            where = "further down" if line < key.patch_line else "further up"
            return self.feedback(
                Verdict.WRONG,
                say(f"the kind is right, but line {line} is not where the patch goes wrong."),
                Para(say(f"Line {line} is ", Code(self.patch_lines[line - 1]), f"; look {where}.")),
            )
        return self.feedback(
            Verdict.RIGHT,
            say(Code(key.kind.value), f" at line {line} of the patch."),
            *diagnosis_elements(key),
        )


def diagnosis_elements(diagnosis: Diagnosis) -> list[Element]:
    """What the diagnosis says, in its own words: its message, where it points (the patch's
    line, the file's), the patch text it suggests and the patch lines that text replaces."""
    shown: list[Element] = [Para(say("The diagnosis says: ", diagnosis.message))]
    place = diagnosis.where()
    if place:
        shown.append(Para(say("It points at ", place, ".")))
    if diagnosis.suggestion:
        span = diagnosis.replaces
        instead = "" if span is None else f", in place of patch lines {span[0]} to {span[1]}"
        note = SUGGESTION_NOTE[:1].upper() + SUGGESTION_NOTE[1:]
        shown.append(Block(say(note, instead), diagnosis.suggestion))
    return shown


__all__ = ["Diagnose", "DiagnoseDefect", "diagnosis_elements"]
