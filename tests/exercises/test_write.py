"""*Write a patch* (applypatch_ext/exercises/write.py): the answer runs through the real
pipeline on the exercise's files in memory, the result is compared whole with the target, and
the feedback says what is wrong (the line Codex points to, the closest region of a chunk that
did not match, the files that differ and their first differing line) without showing a patch."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.exercises import EXERCISES, Verdict, exercise
from applypatch_ext.exercises.document import say
from applypatch_ext.exercises.scratch import run
from applypatch_ext.exercises.write import WritePatch, file_difference

#: A right answer to each write exercise of the catalogue (kept out of the package: the
#: exercises never hold a solution).
SOLUTIONS = {
    "write-update-and-add": """*** Begin Patch
*** Update File: greet.py
@@ def greet(name):
-    print("Hello, " + name)
+    print(f"Hello, {name}!")
@@ def main():
-    for name in ["Ada", "Grace"]:
+    for name in ["Ada", "Grace", "Linus"]:
*** Add File: README.md
+# Greeter
+
+Says hello.
*** End Patch""",
    "write-move-and-delete": '''*** Begin Patch
*** Update File: src/util.py
*** Move to: src/text.py
@@
-"""Small helpers."""
+"""Text helpers."""
*** Delete File: TODO.txt
*** End Patch''',
}

SMALL = WritePatch(
    id="test-small",
    title="small",
    goal=(say("Change b to B."),),
    before={"x.txt": "a\nb\nc\n"},
    after={"x.txt": "a\nB\nc\n"},
)


def write_exercise(exercise_id: str) -> WritePatch:
    """The catalogue's write exercise ``exercise_id``, typed as one (so ``check`` takes a patch)."""
    ex = exercise(exercise_id)
    assert isinstance(ex, WritePatch)
    return ex


def exercise_outcome(answer: str) -> CallResult:
    call = run(answer, SMALL.before).call
    assert call is not None
    return call


def plain(ex: WritePatch, answer: object) -> tuple[Verdict, str]:
    feedback = ex.check(answer)
    return feedback.verdict, str(feedback)


def test_every_write_exercise_has_a_tested_solution() -> None:
    writes = {key for key, ex in EXERCISES.items() if isinstance(ex, WritePatch)}
    assert writes == set(SOLUTIONS)


@pytest.mark.parametrize("exercise_id", sorted(SOLUTIONS))
def test_the_solution_is_right(exercise_id: str) -> None:
    feedback = write_exercise(exercise_id).check(SOLUTIONS[exercise_id])
    assert feedback.verdict is Verdict.RIGHT, str(feedback)
    assert "Success. Updated the following files:" in str(feedback)


@pytest.mark.parametrize("exercise_id", sorted(SOLUTIONS))
def test_the_files_as_given_are_not_the_target(exercise_id: str) -> None:
    """A patch that changes nothing else leaves a difference for the check to name."""
    ex = exercise(exercise_id)
    assert isinstance(ex, WritePatch)
    assert ex.before != ex.after


@pytest.mark.parametrize(
    "answer", ["", "   \n", None, 42, b"*** Begin Patch", "*** Begin Patch\n*** End Patch"]
)
def test_no_answer_says_how_to_answer(answer: object) -> None:
    verdict, text = plain(SMALL, answer)
    assert verdict is Verdict.UNANSWERED
    assert text.endswith(
        "Answer: a cell that starts with `%%apply_patch --exercise test-small`, your patch below "
        'it; or `exercise("test-small").check(r"""*** Begin Patch ... *** End Patch""")`, with '
        "your patch as a string."
    )


def test_a_parse_error_names_the_line_of_the_patch() -> None:
    """The diagnosis's kind and sentence, and the line of the answer as written (two blank
    lines before the patch count)."""
    answer = "\n\n*** Begin Patch\n*** Update File: x.txt\n@@\n a\n-b\n+B\noops\n*** End Patch"
    verdict, text = plain(SMALL, answer)
    assert verdict is Verdict.WRONG
    assert text.startswith("\u2717 Not yet: Codex cannot read your patch.")
    assert "invalid hunk at line 7" in text  # Codex counts from *** Begin Patch
    assert "What went wrong (`missing_prefix`): The line `oops` has no prefix" in text
    assert "Line 9 of your patch is `oops`." in text


def test_a_chunk_that_does_not_match_shows_the_closest_region() -> None:
    answer = "*** Begin Patch\n*** Update File: x.txt\n@@\n a\n-bee\n+B\n*** End Patch"
    verdict, text = plain(SMALL, answer)
    assert verdict is Verdict.WRONG
    assert "your patch does not apply to these files." in text
    assert "Failed to find expected lines in /project/x.txt" in text
    assert "What went wrong (`context_not_found`): The closest region of x.txt starts at" in text
    assert "its line 2 reads `b` where the patch has `bee`" in text
    assert "Line 5 of your patch is `-bee`." in text


def test_an_at_line_that_is_not_found_says_so_without_the_fix() -> None:
    answer = "*** Begin Patch\n*** Update File: x.txt\n@@ def nowhere():\n-b\n+B\n*** End Patch"
    feedback = SMALL.check(answer)
    text = str(feedback)
    assert feedback.verdict is Verdict.WRONG
    assert "Failed to find context 'def nowhere():'" in text
    assert "What went wrong (`change_context_not_found`)" in text
    assert "Line 3 of your patch is `@@ def nowhere():`." in text
    call = exercise_outcome(answer)
    assert call.diagnosis is not None and call.diagnosis.suggestion == "@@\n-b\n+B"
    for form in ("plain", "markdown", "html"):
        assert "@@\n-b" not in feedback.render(form)  # the suggestion is the answer: not shown


def test_a_result_that_differs_names_the_file_and_the_line() -> None:
    answer = "*** Begin Patch\n*** Update File: x.txt\n@@\n a\n-b\n+BB\n*** End Patch"
    verdict, text = plain(SMALL, answer)
    assert verdict is Verdict.WRONG
    assert "the result is not the target: 1 file differs." in text
    assert "`x.txt`: line 2 is `BB` in yours and `B` in the target" in text


def test_missing_and_extra_files_are_named() -> None:
    answer = "*** Begin Patch\n*** Delete File: x.txt\n*** Add File: y.txt\n+a\n*** End Patch"
    verdict, text = plain(SMALL, answer)
    assert verdict is Verdict.WRONG
    assert "2 files differ" in text
    assert "`x.txt`: the target has this file; after your patch there is none" in text
    assert "`y.txt`: after your patch this file exists; the target has none" in text


@pytest.mark.parametrize(
    ("got", "want", "says"),
    [
        (
            b"a\r\nb\r\n",
            b"a\r\nb\n",
            "only the line endings differ, from line 2: yours ends with CRLF, the target's with LF",
        ),
        (b"a\n", b"a\nb\n", "yours ends after line 1, the target goes on with `b`"),
        (
            b"a\nb\nc\n",
            b"a\n",
            "the target ends after line 1, yours goes on with `b` (2 lines differ in all)",
        ),
        (
            b"a\n\tb\n",
            b"a\n    b\n",
            "line 2 is `\tb` in yours and `    b` in the target (they differ only in whitespace)",
        ),
    ],
    ids=["line-endings", "shorter", "longer", "whitespace"],
)
def test_file_difference(got: bytes, want: bytes, says: str) -> None:
    text = file_difference("f.txt", got, want)
    assert text is not None
    assert "".join(part if isinstance(part, str) else f"`{part.text}`" for part in text) == (
        f"`f.txt`: {says}"
    )
    assert file_difference("f.txt", got, got) is None


def test_a_write_outside_the_folder_is_declined_and_named() -> None:
    answer = "*** Begin Patch\n*** Add File: ../../etc/evil\n+x\n*** End Patch"
    verdict, text = plain(SMALL, answer)
    assert verdict is Verdict.WRONG
    assert "writes outside the project folder, which needs an approval" in text
    assert "It writes `/etc/evil`." in text


def test_a_check_touches_no_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every answer runs in memory: nothing appears in the working directory or at an
    absolute path the answer names."""
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "outside.txt"
    answers = [
        f"*** Begin Patch\n*** Add File: {target}\n+x\n*** End Patch",
        "*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch",
        SOLUTIONS["write-update-and-add"],
    ]
    for answer in answers:
        write_exercise("write-update-and-add").check(answer)
        SMALL.check(answer)
    assert os.listdir(tmp_path) == []


def test_the_feedback_never_shows_a_patch() -> None:
    """A wrong answer's feedback holds Codex's texts and the files' lines, not patch lines of
    the solution."""
    solution_lines = {
        line for line in SOLUTIONS["write-update-and-add"].splitlines() if line[:1] in "+-"
    }
    ex = write_exercise("write-update-and-add")
    for answer in (
        "*** Begin Patch\n*** Update File: greet.py\n@@\n-x\n+y\n*** End Patch",
        "*** Begin Patch\n*** Add File: README.md\n+# Greeter\n*** End Patch",
    ):
        feedback = ex.check(answer)
        assert not feedback.right
        for form in ("plain", "markdown", "html"):
            shown = feedback.render(form)
            assert not [line for line in solution_lines if f"\n{line}\n" in shown], form


def test_the_task_shows_the_files_and_how_to_answer() -> None:
    ex = exercise("write-move-and-delete")
    text = str(ex)
    assert text.startswith("\u270e Write a patch: a move, an edit and a deletion")
    assert "Now: `src/util.py`:" in text and "Target: `src/text.py`:" in text
    assert "Not in the target: `TODO.txt`, `src/util.py`." in text
    assert (
        "Answer: a cell that starts with `%%apply_patch --exercise write-move-and-delete`" in text
    )
    assert ex._repr_html_().startswith('<div class="applypatch-exercise">')
    assert "**\u270e Write a patch" in ex._repr_markdown_()
