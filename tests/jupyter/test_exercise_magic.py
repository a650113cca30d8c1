"""``%%apply_patch --exercise ID`` through a real IPython shell: the cell (a patch, edited as
one) is checked as the answer to a write-a-patch exercise, on the exercise's files in memory;
the feedback is displayed (and stored under NAME); nothing runs in the working directory; the
user's mistakes are exactly ``UsageError``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.exercises import EXERCISES, Feedback, Verdict

from ..exercises.test_write import SOLUTIONS, write_exercise
from .conftest import Magic

EXERCISE = "write-update-and-add"


def test_a_patch_cell_answers_at_once(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    wrong = SOLUTIONS[EXERCISE].replace('"Linus"]', '"Linus", "Ken"]')
    run = run_magic(f"fb --exercise {EXERCISE}", wrong)
    assert run._widget is None  # no call ran: the feedback only
    (shown,) = run.outputs
    assert shown["data"]["text/plain"].startswith("\u2717 Not yet: your patch applies, but")
    assert 'class="applypatch-exercise"' in shown["data"]["text/html"]
    assert "text/markdown" in shown["data"]
    feedback = ip.user_ns["fb"]
    assert isinstance(feedback, Feedback) and feedback.verdict is Verdict.WRONG
    assert feedback == write_exercise(EXERCISE).check(wrong)

    run = run_magic(f"--exercise {EXERCISE}", SOLUTIONS[EXERCISE])
    assert run.outputs[0]["data"]["text/plain"].startswith("\u2713 Right: ")
    assert os.listdir(tmp_path) == []  # the working directory: nothing ran there


def test_the_stored_starter_is_no_answer_yet(run_magic: Magic) -> None:
    run = run_magic(f"--exercise {EXERCISE}", "*** Begin Patch\n*** End Patch")
    assert run.outputs[0]["data"]["text/plain"].startswith("\u2026 No answer yet: ")


def test_the_line_magic_takes_it_too(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "answer.patch").write_text(SOLUTIONS[EXERCISE])
    captured = run_magic.line("apply_patch", f"answer.patch --exercise {EXERCISE}")
    assert captured.outputs[0].data["text/plain"].startswith("\u2713 Right: ")


def usage_error(run_magic: Magic, line: str) -> str:
    with pytest.raises(UsageError) as info:
        run_magic(line, SOLUTIONS[EXERCISE])
    assert type(info.value) is UsageError
    return str(info.value)


def test_an_unknown_exercise_names_those_there_are(run_magic: Magic) -> None:
    message = usage_error(run_magic, "--exercise nope")
    known = ", ".join(sorted(EXERCISES))
    assert message == f"--exercise: no exercise 'nope': there are {known}"
    assert EXERCISE in known


def test_an_exercise_of_another_kind_says_how_to_answer_it(run_magic: Magic) -> None:
    message = usage_error(run_magic, "--exercise review-pure-addition")
    assert message == (
        "--exercise review-pure-addition: a review exercise is answered in Python, not with a "
        'patch: `exercise("review-pure-addition").check("x")`, with the letter of your choice '
        "for x."
    )


@pytest.mark.parametrize("option", ["--dry-run", "--new-turn", "--stream none", "--cwd /tmp"])
def test_no_other_option_applies(run_magic: Magic, option: str) -> None:
    message = usage_error(run_magic, f"--exercise {EXERCISE} {option}")
    assert message == (
        "--exercise checks the cell on the exercise's files in memory; no other option applies "
        f"to it, got {option.split()[0]}"
    )
