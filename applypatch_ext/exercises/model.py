"""The words of the exercises (kinds, verdicts) and the records every kind shares: a check's
:class:`Feedback` and the display of an exercise's task.

Both render themselves (``_repr_html_``, ``_repr_markdown_``, ``__repr__``), so a notebook
shows them as a cell's value, in JupyterLab, the JupyterLite site, nbconvert and a saved
notebook alike, with no widget and no import of the Jupyter layer's libraries.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from .document import Code, Element, Format, Heading, Para, Text, Tone, render, say


class ExerciseKind(StrEnum):
    """What the learner does."""

    WRITE = "write"
    DIAGNOSE = "diagnose"
    REVIEW = "review"


#: What each kind asks, as an exercise's heading says it.
KIND_LABELS: Final[Mapping[ExerciseKind, str]] = {
    ExerciseKind.WRITE: "Write a patch",
    ExerciseKind.DIAGNOSE: "Diagnose a failure",
    ExerciseKind.REVIEW: "Review a patch",
}


class Verdict(StrEnum):
    """What a check found: the answer is right, wrong, or not an answer yet."""

    RIGHT = "right"
    WRONG = "wrong"
    UNANSWERED = "unanswered"


@dataclass(frozen=True)
class VerdictMeaning:
    label: str
    symbol: str
    tone: Tone


#: How each verdict is shown: the one table.
VERDICTS: Final[Mapping[Verdict, VerdictMeaning]] = {
    Verdict.RIGHT: VerdictMeaning("Right", "\u2713", Tone.GOOD),
    Verdict.WRONG: VerdictMeaning("Not yet", "\u2717", Tone.BAD),
    Verdict.UNANSWERED: VerdictMeaning("No answer yet", "\u2026", Tone.NEUTRAL),
}


class Shown:
    """Something shown as a cell's value: its :meth:`elements`, rendered three ways."""

    def elements(self) -> Sequence[Element]:
        raise NotImplementedError

    def render(self, form: Format) -> str:
        return render(self.elements(), form)

    def _repr_html_(self) -> str:
        return self.render("html")

    def _repr_markdown_(self) -> str:
        return self.render("markdown")

    def __str__(self) -> str:
        return self.render("plain")

    def __repr__(self) -> str:
        return self.render("plain")


@dataclass(frozen=True, repr=False)
class Feedback(Shown):
    """What a check says: the verdict, one sentence, and what supports it (which file differs,
    which hunk failed and why, why a choice does not hold). It never holds the answer."""

    exercise: str
    verdict: Verdict
    summary: Text
    details: tuple[Element, ...] = ()

    @property
    def right(self) -> bool:
        return self.verdict is Verdict.RIGHT

    def elements(self) -> list[Element]:
        meaning = VERDICTS[self.verdict]
        head = say(f"{meaning.label}: ", *self.summary)
        return [Heading(head, meaning.tone, meaning.symbol), *self.details]


class Exercise(Shown, ABC):
    """One exercise: shown as its task; :meth:`check` gives the feedback on an answer."""

    id: str
    title: str
    kind: ExerciseKind

    @abstractmethod
    def task(self) -> list[Element]:
        """What the learner sees: the material and the question."""

    @abstractmethod
    def answer_form(self) -> tuple[str, str]:
        """The arguments of a call to :meth:`check`, as an example, and what to put there."""

    def how_to_answer(self) -> Text:
        """The call that answers (by the exercise's id: it holds wherever the cell is)."""
        arguments, what = self.answer_form()
        return say(Code(f'exercise("{self.id}").check({arguments})'), f", {what}.")

    def elements(self) -> list[Element]:
        heading = Heading(say(f"{KIND_LABELS[self.kind]}: {self.title}"), symbol="\u270e")
        answer = Para(say("Answer: ", *self.how_to_answer()))
        return [heading, *self.task(), answer]

    def feedback(self, verdict: Verdict, summary: Text, *details: Element) -> Feedback:
        return Feedback(self.id, verdict, summary, tuple(details))

    def unanswered(self, *why: object) -> Feedback:
        return self.feedback(
            Verdict.UNANSWERED, say(*why), Para(say("Answer: ", *self.how_to_answer()))
        )


__all__ = [
    "KIND_LABELS",
    "VERDICTS",
    "Exercise",
    "ExerciseKind",
    "Feedback",
    "Shown",
    "Verdict",
    "VerdictMeaning",
]
