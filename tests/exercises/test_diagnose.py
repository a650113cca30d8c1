"""*Diagnose a failure* (applypatch_ext/exercises/diagnose.py): a real model's patch from the
corpus; the answer is the call's own diagnosis, never written down; a wrong kind gets what it
means and where to look, a right kind on a wrong line the direction, the right answer the
diagnosis's message."""

from __future__ import annotations

import pytest

from applypatch_ext.core.diagnosis import KINDS, DiagnosisKind
from applypatch_ext.exercises import EXERCISES, Verdict, exercise
from applypatch_ext.exercises.diagnose import Diagnose, DiagnoseDefect
from applypatch_ext.exercises.document import say

DIAGNOSES = sorted(key for key, ex in EXERCISES.items() if isinstance(ex, Diagnose))


def diagnose(exercise_id: str) -> Diagnose:
    ex = exercise(exercise_id)
    assert isinstance(ex, Diagnose)
    return ex


def test_there_are_diagnose_exercises() -> None:
    assert len(DIAGNOSES) >= 3


@pytest.mark.parametrize("exercise_id", DIAGNOSES)
def test_the_diagnosis_is_the_answer_and_every_other_pick_is_answered(exercise_id: str) -> None:
    ex = diagnose(exercise_id)
    key = ex.answer_key()
    assert key.patch_line is not None
    right = ex.check(kind=key.kind.value, line=key.patch_line)
    assert right.verdict is Verdict.RIGHT, str(right)
    assert str(right).startswith(f"\u2713 Right: `{key.kind}` at line {key.patch_line}")
    assert key.message in str(right)
    for other in ex.offered:
        if other is key.kind:
            continue
        wrong = ex.check(kind=other.value, line=key.patch_line)
        assert wrong.verdict is Verdict.WRONG
        text = str(wrong)
        assert text.startswith(f"\u2717 Not yet: it is not `{other}`.")
        assert KINDS[other].meaning in text
        assert f"`{key.kind}`" not in text and key.message not in text  # never the answer
    for line in (1, len(ex.patch_lines)):
        if line == key.patch_line:
            continue
        wrong = ex.check(kind=key.kind.value, line=line)
        where = "further down" if line < key.patch_line else "further up"
        assert wrong.verdict is Verdict.WRONG
        assert f"Line {line} is `" in str(wrong) and f"; look {where}." in str(wrong)


@pytest.mark.parametrize(
    ("kind", "line", "says"),
    [
        (None, None, "pick one of the kinds listed: "),
        ("not_a_kind", 3, "pick one of the kinds listed: "),
        (DiagnosisKind.UNEXPLAINED.value, 3, "pick one of the kinds listed: "),
        ("@offered", None, "give the patch's line too, a number from 1 to "),
        ("@offered", 0, "give the patch's line too"),
        ("@offered", "3", "give the patch's line too"),
        ("@offered", True, "give the patch's line too"),
        ("@offered", 10_000, "give the patch's line too"),
    ],
)
def test_an_incomplete_answer_says_what_is_missing(kind: object, line: object, says: str) -> None:
    ex = diagnose(DIAGNOSES[0])
    if kind == "@offered":
        kind = ex.offered[0].value
    feedback = ex.check(kind=kind, line=line)
    assert feedback.verdict is Verdict.UNANSWERED
    assert says in str(feedback)


def test_a_diagnosis_that_is_not_offered_is_a_defect() -> None:
    ex = diagnose(DIAGNOSES[0])
    others = tuple(kind for kind in KINDS if kind is not ex.answer_key().kind)[:3]
    broken = Diagnose(
        id="broken", title="broken", case=ex.case, setting=(), offered=others, hint=say("?")
    )
    with pytest.raises(DiagnoseDefect, match="is not offered"):
        broken.check(kind=others[0].value, line=3)


def test_the_task_shows_the_model_the_patch_codex_and_the_kinds() -> None:
    ex = diagnose(DIAGNOSES[0])
    text = str(ex)
    assert f"The model: `{ex.source.model}`" in text
    assert "The patch:\n     1  *** Begin Patch" in text
    assert f"What Codex says:\n    {ex.outcome.says.splitlines()[0]}" in text
    for kind in ex.offered:
        assert f"`{kind}`: {KINDS[kind].meaning}" in text
    assert f'exercise("{ex.id}").check(kind="...", line=N)' in text
    html = ex._repr_html_()
    assert "<details><summary>The file <code>" in html  # the long file, folded
