"""The corpus the package ships for the diagnose exercises and notebook 10
(applypatch_ext/exercises/corpus.py): the same cases as the project's shared copy, and each
case's patch and file as the corpus's README says."""

from __future__ import annotations

import json
from pathlib import Path

from applypatch_ext.exercises.corpus import corpus

from .. import model_patches

#: The project's test copy of the corpus (issue 25 item 3).
SHARED = Path(__file__).resolve().parents[1] / "data" / "model-patches"


def test_every_case_and_file_is_there() -> None:
    cases = corpus()
    assert len(cases) == 814
    assert {case.model for case in cases.values()} == {
        "claude-haiku-4-5",
        "deepseek-v3_2",
        "gemini-2_5-flash-lite",
        "glm-4_5-air",
        "grok-4-fast-non-reasoning",
        "kimi-k2_5",
        "qwen-turbo",
    }
    with_file = [case for case in cases.values() if case.fixtures]
    assert len(with_file) == 271
    assert all(list(case.files()) == [case.file] for case in with_file)
    assert all(case.files() == {} for case in cases.values() if not case.fixtures)


def test_a_case_wraps_its_body_as_the_readme_says() -> None:
    case = corpus()["c0274"]
    assert case.model == "gemini-2_5-flash-lite"
    patch = case.patch()
    assert patch.startswith("*** Begin Patch\n*** Update File: code-path.js\n@@ -219,7 +219,7 @@\n")
    assert patch.endswith(f"{case.body}\n*** End Patch\n")


def test_the_same_data_as_the_tests_corpus() -> None:
    """The package's copy and tests/data/model-patches hold the same cases and files, and
    pair each body with the same task (so notebook 10 shows what make bench counts)."""
    shared = [json.loads(line) for line in (SHARED / "cases.jsonl").read_text().splitlines()]
    cases = corpus()
    tests_cases = {case.id: case for case in model_patches.cases()}
    assert list(cases) == [case["id"] for case in shared]
    for case in shared:
        ours = cases[case["id"]]
        assert (ours.model, ours.task, ours.file, ours.body) == (
            case["model"],
            case["task"],
            case["file"],
            case["body"],
        )
        assert list(ours.fixtures) == case["fixtures"]
        assert ours.fixture == tests_cases[case["id"]].fixture
        for fixture in case["fixtures"]:
            path = SHARED / "fixtures" / fixture / "input" / case["file"]
            assert ours.texts[f"{fixture}/input/{case['file']}"] == path.read_text()
