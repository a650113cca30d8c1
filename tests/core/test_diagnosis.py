"""The failure atlas's vocabulary (core/diagnosis.py): one enum, one table, its JSON, and the
docs' table of kinds (docs/diagnosis.md) made from that table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from applypatch_ext.core.diagnosis import (
    KINDS,
    SUGGESTION_NOTE,
    Diagnosis,
    DiagnosisKind,
    Role,
    Severity,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "diagnosis.md"


def _cell(text: str) -> str:
    """A table cell: each line of ``text`` as code, lines apart, pipes escaped."""
    lines = []
    for line in text.split("\n"):
        fence = "``" if "`" in line else "`"
        pad = " " if line.startswith("`") or line.endswith("`") else ""
        lines.append(f"{fence}{pad}{line}{pad}{fence}".replace("|", "\\|"))
    return "<br>".join(lines)


def kinds_table() -> str:
    """The docs' table of kinds, as :data:`KINDS` has it."""
    rows = ["| kind | as | meaning | a real example | from |", "| --- | --- | --- | --- | --- |"]
    for kind, info in KINDS.items():
        meaning = info.meaning.replace("|", "\\|")
        rows.append(
            f"| `{kind.value}` | {info.severity.value} | {meaning} | {_cell(info.example)} | "
            f"{info.source} |"
        )
    return "\n".join(rows)


def test_every_kind_has_one_row_and_the_table_names_only_kinds() -> None:
    assert list(KINDS) == list(DiagnosisKind)


@pytest.mark.parametrize("kind", list(DiagnosisKind), ids=str)
def test_each_row_says_what_the_kind_means_and_where_its_example_is_from(
    kind: DiagnosisKind,
) -> None:
    info = KINDS[kind]
    assert info.meaning.endswith(".") and len(info.meaning) > 30
    assert info.example.strip() and info.source.strip()
    assert kind.value == kind.value.lower() and re.fullmatch(r"[a-z0-9_]+", kind.value)


def test_the_warning_kinds_are_those_of_the_issue() -> None:
    warnings = {kind for kind, info in KINDS.items() if info.warning}
    assert warnings == {
        DiagnosisKind.APPENDED_AT_END,
        DiagnosisKind.FUZZY_MATCH,
        DiagnosisKind.AMBIGUOUS_MATCH,
        DiagnosisKind.INVALID_CONTENT,
    }
    assert KINDS[DiagnosisKind.INVALID_CONTENT].severity is Severity.EITHER


def test_the_docs_table_is_the_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert kinds_table() in text, "docs/diagnosis.md: regenerate the table of kinds"


def test_a_diagnosis_round_trips_through_json() -> None:
    diagnosis = Diagnosis(
        DiagnosisKind.CONTEXT_NOT_FOUND,
        "line 3 of a.py has a tab where the patch has 4 spaces",
        path="a.py",
        patch_line=4,
        line=3,
        suggestion="@@\n-\tx\n+\ty",
        replaces=(3, 5),
    )
    assert diagnosis.to_json()["replaces"] == [3, 5]
    assert Diagnosis.from_json(diagnosis.to_json()) == diagnosis
    assert diagnosis.meaning == KINDS[DiagnosisKind.CONTEXT_NOT_FOUND].meaning


def test_a_diagnosis_says_where_it_points_and_what_it_is_in_one_set_of_words() -> None:
    kind = DiagnosisKind.CONTEXT_NOT_FOUND
    meaning = KINDS[kind].meaning
    full = Diagnosis(kind, "m", "a.py", 4, 3, suggestion="@@\n-x\n+y\n", replaces=(3, 5))
    assert full.where() == "patch line 4, a.py line 3"
    assert Diagnosis(kind, "m", "e.txt", 2, line_absent="the file is empty").where() == (
        "patch line 2, no line of e.txt: the file is empty"
    )
    assert Diagnosis(kind, "m", "a.py").where() == "a.py"
    assert Diagnosis(kind, "m", line=7).where() == "the file line 7"
    assert Diagnosis(DiagnosisKind.EMPTY_PATCH, "m").where() == ""
    assert (
        full.heading() == f"diagnosis: context_not_found ({meaning}), at patch line 4, a.py line 3"
    )
    assert Diagnosis(DiagnosisKind.EMPTY_PATCH, "m").heading(Role.WARNING) == (
        f"warning: empty_patch ({KINDS[DiagnosisKind.EMPTY_PATCH].meaning})"
    )
    assert full.describe() == [
        full.heading(),
        "  m",
        f"  {SUGGESTION_NOTE}:",
        "    @@",
        "    -x",
        "    +y",
    ]
    assert full.describe(Role.WARNING, indent="")[2:] == [f"{SUGGESTION_NOTE}:", "@@", "-x", "+y"]
    assert Diagnosis(kind, "m").describe() == [f"diagnosis: context_not_found ({meaning})", "  m"]


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "typo", "message": "m"},
        {"kind": "malformed", "message": 3},
        {"kind": "malformed", "message": "m", "line": 0},
        {"kind": "malformed", "message": "m", "patch_line": True},
        {"kind": "malformed", "message": "m", "suggestion": ["x"]},
        {"kind": "malformed", "message": "m", "replaces": [3]},
        {"kind": "malformed", "message": "m", "replaces": [5, 3]},
        {"kind": "malformed", "message": "m", "replaces": [0, 3]},
        {"kind": "malformed", "message": "m", "replaces": "3-5"},
    ],
    ids=[
        "unknown kind",
        "message",
        "line 0",
        "bool line",
        "suggestion",
        "replaces one number",
        "replaces backwards",
        "replaces line 0",
        "replaces text",
    ],
)
def test_untrusted_json_outside_the_vocabulary_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Diagnosis.from_json(data)


if __name__ == "__main__":  # print the table for docs/diagnosis.md
    print(kinds_table())
