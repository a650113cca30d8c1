"""*Review a patch* (applypatch_ext/exercises/review.py): every choice is a claim tested on the
real run, exactly one holds for each review, a wrong pick gets the reason it does not hold and
the right one the lesson; and each trap is what the issue names (openai/codex #30946, #30505, a
CRLF file, a partial commit)."""

from __future__ import annotations

import pytest

from applypatch_ext.exercises import EXERCISES, Verdict, exercise
from applypatch_ext.exercises.document import say
from applypatch_ext.exercises.review import Choice, Review, ReviewDefect
from applypatch_ext.exercises.scratch import Tool

REVIEWS = sorted(key for key, ex in EXERCISES.items() if isinstance(ex, Review))


def review(exercise_id: str) -> Review:
    ex = exercise(exercise_id)
    assert isinstance(ex, Review)
    return ex


def test_the_four_traps_are_there() -> None:
    assert REVIEWS == [
        "review-crlf-lf-mode",
        "review-fuzzy-indentation",
        "review-partial-commit",
        "review-pure-addition",
    ]


@pytest.mark.parametrize("exercise_id", REVIEWS)
def test_exactly_one_choice_holds_and_each_pick_is_answered(exercise_id: str) -> None:
    ex = review(exercise_id)
    right = ex.answer_key()
    for choice in ex.choices:
        feedback = ex.check(choice.key)
        text = str(feedback)
        if choice is right:
            assert feedback.verdict is Verdict.RIGHT
            assert text.startswith(f"\u2713 Right: ({choice.key}) is what happened.")
            assert all(isinstance(p, str) or p.text in text for t in ex.lesson for p in t)
        else:
            assert feedback.verdict is Verdict.WRONG
            assert text.startswith(f"\u2717 Not yet: ({choice.key}) does not hold.")
            assert choice.why_not, f"{exercise_id} ({choice.key}) needs a why_not"
            # the reason of this pick, never the lesson, never the right letter
            assert f"({right.key})" not in text
            assert not any(p in text for t in ex.lesson for p in t if isinstance(p, str))


@pytest.mark.parametrize("answer", ["B", " b ", "(b)", "b.", "b)"])
def test_a_letter_is_read_in_any_usual_form(answer: str) -> None:
    ex = review("review-partial-commit")
    assert ex.check(answer).verdict is Verdict.RIGHT


@pytest.mark.parametrize("answer", ["", "e", "ab", "the second", None, 2])
def test_anything_else_is_no_answer(answer: object) -> None:
    feedback = review("review-partial-commit").check(answer)
    assert feedback.verdict is Verdict.UNANSWERED
    assert "pick one of a, b, c, d, by its letter." in str(feedback)


def on_the_pure_addition(exercise_id: str, keys: str, holds: bool) -> Review:
    """A review of the pure addition's run whose choices ``keys`` all hold, or none."""
    base = review("review-pure-addition")
    return Review(
        id=exercise_id,
        title=exercise_id,
        setting=(),
        files=base.files,
        patch=base.patch,
        question=say("?"),
        choices=tuple(Choice(key, say(key), lambda _o: holds) for key in keys),
        lesson=(),
    )


@pytest.mark.parametrize(("holds", "holding"), [(True, "a, b"), (False, "none")])
def test_a_review_whose_choices_do_not_single_one_out_is_a_defect(
    holds: bool, holding: str
) -> None:
    broken = on_the_pure_addition("broken", "ab", holds)
    with pytest.raises(ReviewDefect, match=f"exactly one choice must hold, got {holding}"):
        broken.check("a")


@pytest.mark.parametrize("keys", ["", "aa", "aB", "a "])
def test_choices_are_distinct_letters(keys: str) -> None:
    with pytest.raises(ValueError, match="review 'bad': the choices' keys"):
        on_the_pure_addition("bad", keys, True)


def test_pure_addition_lands_at_the_end_and_codex_says_success() -> None:
    """openai/codex #30946: ``@@ def load(path):`` with only a ``+`` line."""
    outcome = review("review-pure-addition").outcome
    assert outcome.tool is Tool.PIPELINE and outcome.ok
    assert outcome.says == "Success. Updated the following files:\nM app.py\n"
    text = outcome.text("app.py")
    assert text is not None
    assert text.endswith('        f.write(text)\n    print("loading", path)\n')


def test_crlf_in_the_lf_mode_mixes_the_endings() -> None:
    outcome = review("review-crlf-lf-mode").outcome
    assert outcome.after == {"notes.txt": b"title\r\nalpha\nBETA\ngamma\r\nend\r\n"}


def test_fuzzy_match_rewrites_indentation_and_python_refuses_it() -> None:
    """openai/codex #30505: the trimmed pass matches, the replaced line keeps the patch's
    spaces under the file's tabs."""
    outcome = review("review-fuzzy-indentation").outcome
    assert outcome.ok
    text = outcome.text("settings.py")
    assert text is not None
    assert text.split("\n")[1:4] == ["\tif debug:", '        level = "trace"', "\telse:"]
    with pytest.raises(TabError):
        compile(text, "settings.py", "exec")


def test_partial_commit_keeps_the_first_hunk() -> None:
    outcome = review("review-partial-commit").outcome
    assert outcome.tool is Tool.STANDALONE and not outcome.ok
    assert outcome.says == "Failed to find expected lines in /project/b.py:\ny = 3\n"
    assert outcome.after == {"a.py": b"x = 10\n", "b.py": b"y = 2\n"}


def test_the_task_shows_the_whitespace_and_what_codex_says() -> None:
    text = str(review("review-fuzzy-indentation"))
    assert "    2  \u2192\tif debug:" in text  # the file's tab
    assert "    4  \u00b7\u00b7\u00b7\u00b7\u00b7if debug:" in text  # the patch's spaces
    assert "What Codex says:\n    Success. Updated the following files:" in text
    assert "(c) The changed line is indented with spaces" in text
    assert (
        'Answer: `exercise("review-fuzzy-indentation").check("x")`, with the letter of your '
        "choice for x." in text
    )
    crlf = str(review("review-crlf-lf-mode"))
    assert "    1  title\u240d" in crlf
