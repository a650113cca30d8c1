"""*Write a patch*: turn the given files into the target files.

The check runs the learner's patch through the real pipeline on the exercise's files in memory
(:mod:`.scratch`) and compares the result with the target, whole (every file, every byte). Its
feedback says what is wrong the way a reviewer would: the text Codex answered, what the call's
diagnosis says went wrong and the line of the answer it points to (the closest region of the
file when a chunk did not match), the files that differ from the target and their first
differing line. It never shows a patch, nor the diagnosis's suggestion.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.diagnosis import Diagnosis
from ..core.text import plural
from ..core.turn.options import CallStatus
from .document import Block, Code, Element, Items, Para, Text, say
from .model import Exercise, ExerciseKind, Feedback, Verdict
from .scratch import ROOT, Files, Outcome, run


def _text(data: str | bytes) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


def _ending(line: str) -> str:
    for ending, name in (("\r\n", "CRLF"), ("\n", "LF"), ("\r", "CR")):
        if line.endswith(ending):
            return name
    return "no line break"


def _body(line: str) -> str:
    return line.rstrip("\r\n")


def file_difference(path: str, got: bytes | None, want: bytes | None) -> Text | None:
    """How the file ``path`` after the patch (``got``) differs from the target (``want``), in
    one sentence; None when they are the same. Names the first differing line, never the fix."""
    where = say(Code(path), " (outside the project folder)" if path.startswith("/") else "")
    if got == want:
        return None
    if got is None:
        return say(*where, ": the target has this file; after your patch there is none")
    if want is None:
        return say(*where, ": after your patch this file exists; the target has none")
    mine, target = _text(got).splitlines(keepends=True), _text(want).splitlines(keepends=True)
    first = next(
        (i for i, (a, b) in enumerate(zip(mine, target, strict=False)) if a != b),
        min(len(mine), len(target)),
    )
    if [_body(line) for line in mine] == [_body(line) for line in target]:
        return say(
            *where,
            f": only the line endings differ, from line {first + 1}: yours ends with "
            f"{_ending(mine[first])}, the target's with {_ending(target[first])}",
        )
    changed = sum(
        max(i2 - i1, j2 - j1)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mine, target).get_opcodes()
        if tag != "equal"
    )
    count = f" ({changed} lines differ in all)" if changed > 1 else ""
    if first == len(mine):
        return say(
            *where,
            f": yours ends after line {first}, the target goes on with ",
            Code(_body(target[first])),
            count,
        )
    if first == len(target):
        return say(
            *where,
            f": the target ends after line {first}, yours goes on with ",
            Code(_body(mine[first])),
            count,
        )
    only_space = "".join(mine[first].split()) == "".join(target[first].split())
    return say(
        *where,
        f": line {first + 1} is ",
        Code(_body(mine[first])),
        " in yours and ",
        Code(_body(target[first])),
        " in the target",
        " (they differ only in whitespace)" if only_space else "",
        count,
    )


def tree_differences(got: Mapping[str, bytes], want: Mapping[str, bytes]) -> list[Text]:
    """One sentence per file that differs, in path order."""
    found = (file_difference(p, got.get(p), want.get(p)) for p in sorted({*got, *want}))
    return [text for text in found if text is not None]


def _diagnosis_details(answer: str, diagnosis: Diagnosis | None) -> list[Element]:
    """What went wrong, as the call's diagnosis says, and the line of the answer it points at
    (never its suggestion: that would be the answer)."""
    if diagnosis is None:
        return []
    shown: list[Element] = [
        Para(say("What went wrong (", Code(diagnosis.kind.value), "): ", diagnosis.message))
    ]
    lines = answer.split("\n")
    if diagnosis.patch_line is not None and diagnosis.patch_line <= len(lines):
        line = lines[diagnosis.patch_line - 1]
        shown.append(Para(say(f"Line {diagnosis.patch_line} of your patch is ", Code(line), ".")))
    return shown


def _outside(outcome: Outcome) -> list[str]:
    call = outcome.call
    proposed = call.proposed if call is not None else None
    paths = sorted(proposed.changes) if proposed is not None else []
    return [path for path in paths if not path.startswith(ROOT + "/")]


@dataclass(frozen=True, repr=False)
class WritePatch(Exercise):
    """Write a patch that turns ``before`` into ``after``."""

    id: str
    title: str
    goal: tuple[Text, ...]
    before: Files
    after: Files
    kind: ExerciseKind = field(default=ExerciseKind.WRITE, init=False)

    def task(self) -> list[Element]:
        shown: list[Element] = [Para(text) for text in self.goal]
        for path, data in sorted(self.before.items()):
            shown.append(Block(say("Now: ", Code(path)), _text(data), numbered=True))
        for path, data in sorted(self.after.items()):
            shown.append(Block(say("Target: ", Code(path)), _text(data), numbered=True))
        gone = sorted(set(self.before) - set(self.after))
        if gone:
            shown.append(Para(say("Not in the target: ", *_joined(gone), ".")))
        return shown

    def answer_form(self) -> tuple[str, str]:
        return 'r"""*** Begin Patch ... *** End Patch"""', "with your patch as a string"

    def how_to_answer(self) -> Text:
        """A patch cell (in Jupyter it edits as a patch: Enter does not indent), or a call."""
        arguments, what = self.answer_form()
        return say(
            "a cell that starts with ",
            Code(f"%%apply_patch --exercise {self.id}"),
            ", your patch below it; or ",
            Code(f'exercise("{self.id}").check({arguments})'),
            f", {what}.",
        )

    def check(self, answer: object) -> Feedback:
        """Run ``answer`` (the patch text) on the files and compare the result with the
        target."""
        if not isinstance(answer, str):
            return self.unanswered(
                f"give the patch as a string (text), not a value of type {type(answer).__name__}."
            )
        if not answer.strip():
            return self.unanswered("the patch is empty: write it and run the check again.")
        outcome = run(answer, self.before)
        call = outcome.call
        if call is not None and call.parsed is not None and not call.parsed.hunks:
            return self.unanswered("your patch has no hunk yet: write them between its markers.")
        if not outcome.ok:
            return self._failed(answer, outcome)
        target = {path: _text(data).encode() for path, data in self.after.items()}
        differences = tree_differences(outcome.after, target)
        if differences:
            return self.feedback(
                Verdict.WRONG,
                say(
                    "your patch applies, but the result is not the target: "
                    f"{plural(len(differences), 'file')} "
                    f"differ{'s' if len(differences) == 1 else ''}."
                ),
                Items(tuple(differences)),
            )
        return self.feedback(
            Verdict.RIGHT,
            say("Codex applies your patch and the files are exactly the target."),
            Block(say("Codex says"), outcome.says),
        )

    def _failed(self, answer: str, outcome: Outcome) -> Feedback:
        call = outcome.call
        assert call is not None
        says = Block(say("Codex says"), outcome.says)
        if call.status is CallStatus.DECLINED:
            outside = _outside(outcome)
            return self.feedback(
                Verdict.WRONG,
                say("your patch writes outside the project folder, which needs an approval."),
                Para(say("It writes ", *_joined(outside), ".")) if outside else says,
            )
        details = [says, *_diagnosis_details(answer, call.diagnosis)]
        if call.parsed is None:
            return self.feedback(Verdict.WRONG, say("Codex cannot read your patch."), *details)
        return self.feedback(
            Verdict.WRONG, say("your patch does not apply to these files."), *details
        )


def _joined(paths: list[str]) -> Text:
    parts: list[str | Code] = []
    for index, path in enumerate(paths):
        if index:
            parts.append(", ")
        parts.append(Code(path))
    return tuple(parts)


__all__ = ["WritePatch", "file_difference", "tree_differences"]
