"""*Review a patch*: a patch with a trap, what Codex said about it, and the question what it
really did.

The learner sees the files, the patch and what the tool answered, and picks the statement that
is true of the files afterwards. Which one that is, is never written down: every choice is a
claim about the real run (:mod:`.scratch`: the patch through the pipeline or the drop-in tool,
on the files in memory), tested on it at check time, and exactly one holds
(``tests/exercises/test_review.py`` checks that for every review). A wrong pick gets the reason
it does not hold, pointing at what to look at; the right one gets the lesson.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from ..core.text import LineEndings
from .document import Block, Code, Element, Items, Para, Text, say
from .model import Exercise, ExerciseKind, Feedback, Verdict
from .scratch import TOOL_NAMES, Files, Outcome, Tool, run

_KEY = re.compile(r"^\W*([a-z])\W*$")
#: Under the blocks of a review: how their whitespace is shown.
WHITESPACE_NOTE = (
    "In the file and the patch, \u2192 is a tab and \u00b7 a space at the start or the end of "
    "a line; \u240d is a carriage return (CR)."
)


class ReviewDefect(RuntimeError):
    """Not exactly one choice of a review holds on the real run: the exercise is wrong."""


@dataclass(frozen=True)
class Choice:
    """A statement about the run; ``holds`` tests it on the outcome, ``why_not`` says where
    to look when it was picked and does not hold (the choice that holds needs none)."""

    key: str
    says: Text
    holds: Callable[[Outcome], bool]
    why_not: Text = ()


@dataclass(frozen=True, repr=False)
class Review(Exercise):
    """Run ``patch`` on ``files`` with ``tool``; ask ``question`` with ``choices``."""

    id: str
    title: str
    setting: tuple[Text, ...]
    files: Files
    patch: str
    question: Text
    choices: tuple[Choice, ...]
    lesson: tuple[Text, ...]
    tool: Tool = Tool.PIPELINE
    line_endings: LineEndings = LineEndings.PRESERVE
    kind: ExerciseKind = field(default=ExerciseKind.REVIEW, init=False)

    def __post_init__(self) -> None:
        keys = [choice.key for choice in self.choices]
        if (
            len(keys) < 2
            or len(set(keys)) != len(keys)
            or not all(re.fullmatch("[a-z]", k) for k in keys)
        ):
            raise ValueError(
                f"review {self.id!r}: the choices' keys must be two or more distinct lowercase "
                f"letters, got {keys}"
            )

    @cached_property
    def outcome(self) -> Outcome:
        """The real run (once)."""
        return run(self.patch, self.files, self.tool, self.line_endings)

    def answer_key(self) -> Choice:
        """The one choice that holds on the run; :class:`ReviewDefect` if not exactly one."""
        holding = [choice for choice in self.choices if choice.holds(self.outcome)]
        if len(holding) != 1:
            keys = ", ".join(choice.key for choice in holding) or "none"
            raise ReviewDefect(f"review {self.id!r}: exactly one choice must hold, got {keys}")
        return holding[0]

    def task(self) -> list[Element]:
        shown: list[Element] = [Para(text) for text in self.setting]
        for path, data in sorted(self.files.items()):
            text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
            title = say("The file ", Code(path))
            shown.append(Block(title, text, numbered=True, whitespace=True))
        shown.append(Block(say("The patch"), self.patch, numbered=True, whitespace=True))
        shown.append(Block(say(f"What {TOOL_NAMES[self.tool]} says"), self.outcome.says))
        shown.append(Para(say(WHITESPACE_NOTE)))
        shown.append(Para(self.question))
        shown.append(Items(tuple(say(f"({choice.key}) ", *choice.says) for choice in self.choices)))
        return shown

    def answer_form(self) -> tuple[str, str]:
        return '"x"', "with the letter of your choice for x"

    def check(self, answer: object) -> Feedback:
        """Whether the choice ``answer`` (its letter) is the one that holds."""
        keys = {choice.key: choice for choice in self.choices}
        match = _KEY.match(answer.strip().lower()) if isinstance(answer, str) else None
        picked = keys.get(match.group(1)) if match else None
        if picked is None:
            letters = ", ".join(keys)
            return self.unanswered(f"pick one of {letters}, by its letter.")
        right = self.answer_key()
        if picked is not right:
            why = picked.why_not or say("It is not what the run did: look at the files again.")
            return self.feedback(Verdict.WRONG, say(f"({picked.key}) does not hold."), Para(why))
        return self.feedback(
            Verdict.RIGHT, say(f"({picked.key}) is what happened."), *(Para(t) for t in self.lesson)
        )


__all__ = ["Choice", "Review", "ReviewDefect"]
