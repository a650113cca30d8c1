"""Exercises that check themselves, for the teaching notebooks and the JupyterLite site.

Three kinds: *write* a patch that turns the given files into the target files, *diagnose* a
real model's failing patch (the kind of failure and the patch line), *review* a patch with a
trap (what Codex really did). An exercise shows its task as a cell's value; ``check(answer)``
runs the answer against the real code at once and returns :class:`Feedback`, which says what
is wrong without giving the answer away::

    from applypatch_ext.exercises import exercise

    ex = exercise("review-pure-addition")
    ex              # the task
    ex.check("a")   # the feedback

Standard library and the core only (plus :mod:`applypatch_ext.markup` for display): no server,
no grader, no widget; the patches run on files in memory (:mod:`.scratch`), so a check writes
nothing.
"""

from __future__ import annotations

from .catalogue import EXERCISES, NOTEBOOK_OF
from .model import KIND_LABELS, VERDICTS, Exercise, ExerciseKind, Feedback, Verdict


def exercise(exercise_id: str) -> Exercise:
    """The exercise named ``exercise_id``; ``KeyError`` naming the ones there are."""
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        known = ", ".join(sorted(EXERCISES))
        raise KeyError(f"no exercise {exercise_id!r}: there are {known}") from None


__all__ = [
    "EXERCISES",
    "KIND_LABELS",
    "NOTEBOOK_OF",
    "VERDICTS",
    "Exercise",
    "ExerciseKind",
    "Feedback",
    "Verdict",
    "exercise",
]
