"""Notebook 10's atlas (applypatch_ext/exercises/atlas.py): the corpus through the pipeline,
a real case per kind with the patch, the file, Codex's text, the diagnosis and the patch that
works, and the kinds by model."""

from __future__ import annotations

import html
import re
from collections import Counter

import pytest

from applypatch_ext.core.diagnosis import KINDS, DiagnosisKind
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.exercises import EXERCISES
from applypatch_ext.exercises.atlas import (
    COMPLETED,
    AtlasEntry,
    CaseRun,
    fixed_patch,
    kinds_by_model,
    kinds_seen,
    representative,
    run_corpus,
)
from applypatch_ext.exercises.corpus import corpus
from applypatch_ext.exercises.diagnose import Diagnose
from applypatch_ext.exercises.document import Code
from applypatch_ext.exercises.scratch import run
from applypatch_ext.exercises.showcase import CASES, FIXES


def text_of(cell: str | Code) -> str:
    """A cell of words (the count columns of the table)."""
    assert isinstance(cell, str)
    return cell


@pytest.fixture(scope="module")
def runs() -> list[CaseRun]:
    """The whole corpus through the pipeline, once per module (not at collection)."""
    return run_corpus()


def test_every_failed_case_has_a_diagnosis_of_the_vocabulary(runs: list[CaseRun]) -> None:
    assert len(runs) == 814
    for case_run in runs:
        if case_run.outcome.ok:
            assert case_run.diagnosis is None
        else:
            diagnosis = case_run.diagnosis
            assert diagnosis is not None and diagnosis.kind in KINDS, case_run.case.id
    assert kinds_seen(runs) == [kind for kind in KINDS if kind in {r.kind for r in runs}]


def test_each_kind_has_a_representative_entry(runs: list[CaseRun]) -> None:
    for kind in kinds_seen(runs):
        chosen = representative(runs, kind)
        assert chosen.kind is kind
        if any(r.kind is kind and r.case.files() for r in runs):
            assert chosen.case.files(), kind
        entry = AtlasEntry(chosen)
        text = str(entry)
        assert text.startswith(f"`{kind}`: {KINDS[kind].meaning}")
        assert chosen.outcome.says.splitlines()[0] in text
        assert chosen.case.patch().splitlines()[2] in text.replace("\u00b7", " ")
        diagnosis = chosen.diagnosis
        assert diagnosis is not None
        # every form says the kind, its meaning, what Codex says and the diagnosis's sentence
        # and place, in the diagnosis's own words
        said = [kind.value, KINDS[kind].meaning, chosen.outcome.says.splitlines()[0]]
        said += [diagnosis.message[:30]] + ([diagnosis.where()] if diagnosis.where() else [])
        readable = {
            "plain": text,
            "markdown": entry.render("markdown").replace("\\", ""),
            "html": html.unescape(re.sub(r"<[^>]+>", "", entry.render("html"))),
        }
        for form, rendered in readable.items():
            for needle in said:
                wanted = needle.replace("\\", "") if form == "markdown" else needle
                assert wanted in rendered, (kind, form, needle)
        assert f"It points at {diagnosis.where()}." in text or not diagnosis.where()


def test_the_table_counts_every_case_once(runs: list[CaseRun]) -> None:
    table = kinds_by_model(runs)
    models = Counter(case.model for case in corpus().values())
    assert table.header == ("kind", *sorted(models, key=lambda m: (-models[m], m)), "all")
    *kinds, totals = table.rows
    assert totals == ("cases", *(str(models[m]) for m in table.header[1:-1]), "814")
    assert sum(int(text_of(row[-1])) for row in kinds) == 814
    for column, model in enumerate(table.header[1:-1], 1):
        assert sum(int(text_of(row[column]) or 0) for row in kinds) == models[model]
    labels = [row[0] if isinstance(row[0], str) else row[0].text for row in kinds]
    completed = [COMPLETED] if any(r.outcome.ok for r in runs) else []
    assert labels == [kind.value for kind in kinds_seen(runs)] + completed


def test_the_chosen_cases_show_their_kind_and_no_exercise_is_shown(runs: list[CaseRun]) -> None:
    by_id = {r.case.id: r for r in runs}
    for kind, case_id in CASES.items():
        assert by_id[case_id].kind is kind, case_id
        assert representative(runs, kind).case.id == case_id
    asked = {ex.case for ex in EXERCISES.values() if isinstance(ex, Diagnose)}
    assert asked and not asked & {representative(runs, k).case.id for k in kinds_seen(runs)}


def test_each_hand_fix_keeps_the_change_and_applies(runs: list[CaseRun]) -> None:
    """A fix written by hand applies to its case's file (or parses, without one), and adds
    only lines the model added."""
    by_id = {r.case.id: r for r in runs}
    for case_id, fix in FIXES.items():
        case = by_id[case_id].case
        parse_patch(fix)
        if case.files():
            outcome = run(fix, case.files())
            assert outcome.ok, (case_id, outcome.says)
            assert not outcome.call or not outcome.call.warnings, case_id  # no fuzzy match
        added = {line[1:].strip() for line in fix.split("\n") if line.startswith("+")}
        theirs = case.body.replace("\\n", "\n").split("\n")
        assert added <= {line[1:].strip() for line in theirs if line.startswith("+")}, case_id


def test_a_suggestion_takes_the_place_of_its_chunk(runs: list[CaseRun]) -> None:
    chosen = representative(runs, DiagnosisKind.WHITESPACE_MISMATCH)
    assert chosen.diagnosis is not None and chosen.diagnosis.suggestion
    fixed = fixed_patch(chosen)
    assert fixed is not None
    patch, how = fixed
    assert isinstance(how[0], str) and "the diagnosis's suggestion" in how[0]
    # exactly the patch lines it replaces, the rest of the patch as the model wrote it
    assert chosen.diagnosis.replaces is not None
    first, last = chosen.diagnosis.replaces
    lines = chosen.case.patch().split("\n")
    suggested = chosen.diagnosis.suggestion.rstrip("\n").split("\n")
    assert patch.split("\n") == [*lines[: first - 1], *suggested, *lines[last:]]
    assert patch.startswith("*** Begin Patch\n*** Update File: registerDevToolsEventLogger.js\n@@")
    assert run(patch, chosen.case.files()).ok
    assert "No fixed patch here" not in str(AtlasEntry(chosen))


def test_without_a_fix_the_entry_says_why(runs: list[CaseRun]) -> None:
    for kind in (DiagnosisKind.MISSING_FILE, DiagnosisKind.EMPTY_CHUNK):
        chosen = representative(runs, kind)
        assert fixed_patch(chosen) is None
        text = str(AtlasEntry(chosen))
        reason = "the corpus has no copy of the file" if not chosen.case.files() else "version"
        assert "No fixed patch here: " in text and reason in text
