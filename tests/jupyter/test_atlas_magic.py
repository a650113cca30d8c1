"""The failure atlas through ``%%apply_patch`` in a real IPython shell: each warning kind, and a
failure's diagnosis, on the result object, the live widget's traits (what the front end gets)
and the call's static record in all three forms (what a saved notebook keeps)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.core.diagnosis import KINDS, SUGGESTION_NOTE, Diagnosis, DiagnosisKind, Role
from applypatch_ext.jupyter.records import atlas
from applypatch_ext.jupyter.records.atlas import diagnosis_state
from applypatch_ext.jupyter.records.vocabulary import call_vocabulary

from .conftest import Magic, Run

K = DiagnosisKind
FILE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


def patch(*body: str) -> str:
    return "\n".join(("*** Begin Patch", *body, "*** End Patch"))


def record_of(run: Run) -> dict[str, str]:
    """The last version of the call's static record."""
    records: list[dict[str, str]] = [
        o["data"] for o in run.outputs if "applypatch_ext" in o["metadata"]
    ]
    return [d for d in records if "text/markdown" in d][-1]


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def shown_everywhere(run: Run, *needles: str) -> None:
    """Each text is in the record's plain text, its Markdown (escapes read) and its HTML."""
    record = record_of(run)
    markdown = record["text/markdown"].replace("\\", "")
    for needle in needles:
        assert needle in record["text/plain"], (needle, record["text/plain"])
        assert needle in markdown, (needle, markdown)
        assert needle in text_of(record["text/html"]), needle


WARNINGS = {
    K.APPENDED_AT_END: (
        {"a.py": FILE},
        patch("*** Update File: a.py", "@@ def f():", "+    print('f')"),
        "",
    ),
    K.FUZZY_MATCH: (
        {"a.py": FILE},
        patch("*** Update File: a.py", "@@", " def f():", "-  return 1", "+  return 0"),
        "",
    ),
    K.AMBIGUOUS_MATCH: (
        {"b.txt": "a {\n}\nb {\n}\n"},
        patch("*** Update File: b.txt", "@@", "-}", "+};"),
        "",
    ),
    K.INVALID_CONTENT: (
        {"n.ipynb": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'},
        patch(
            "*** Update File: n.ipynb",
            "@@",
            '-{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
            "+{}",
        ),
        "--invalid-notebooks warn",
    ),
}


@pytest.mark.parametrize("kind", list(WARNINGS), ids=str)
def test_each_warning_kind_through_the_magic(
    kind: DiagnosisKind, run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    files, text, options = WARNINGS[kind]
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    run = run_magic(f"res --stream none {options}", text)
    result = ip.user_ns["res"]
    assert result.status == "completed" and result.diagnosis is None
    assert [w.kind for w in result.warnings] == [kind]
    [warning] = result.warnings
    # the live widget: the warnings trait, sent to the front end, with where it points in
    # the diagnosis's words (Diagnosis.where); no diagnosis
    state = diagnosis_state(warning)
    assert state == {**warning.to_json(), "where": warning.where()} and state["where"]
    assert run.widget.warnings == [state] and run.widget.diagnosis == {}
    assert any(update.get("warnings") == [state] for update in run.widget.updates())
    # its kind's meaning, for the front end to show, comes from Python's table
    assert run.widget.vocabulary["diagnoses"][kind.value]["meaning"] == KINDS[kind].meaning
    # the record, in its three forms
    shown_everywhere(run, kind.value, KINDS[kind].meaning, warning.message[:40])
    # the plain record is the warning's own plain text (Diagnosis.describe)
    plain = record_of(run)["text/plain"]
    assert "\n".join(warning.describe(Role.WARNING)) in plain


def test_a_failure_is_diagnosed_with_its_suggestion_everywhere(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text(FILE)
    text = patch("*** Update File: a.py", "@@ g", "-    return 2", "+    return 3")
    run = run_magic("res --stream none", text)
    result = ip.user_ns["res"]
    assert result.status == "error"
    diagnosis = result.diagnosis
    assert (diagnosis.kind, diagnosis.patch_line, diagnosis.line) == (K.PARTIAL_ANCHOR, 3, 6)
    assert diagnosis.suggestion == "@@ def g():\n-    return 2\n+    return 3"
    # the reference's text is what the model reads, unchanged
    assert result.output == (
        f"apply_patch verification failed: Failed to find context 'g' in {tmp_path}/a.py"
    )
    assert run.widget.diagnosis == {**diagnosis.to_json(), "where": "patch line 3, a.py line 6"}
    assert diagnosis.replaces == (3, 5)  # the chunk, which the suggestion stands in for
    assert run.widget.events[-1]["type"] == "patch_diagnosis"
    shown_everywhere(
        run,
        "partial_anchor",
        KINDS[K.PARTIAL_ANCHOR].meaning,
        "patch line 3, a.py line 6",
        "is only part of line 5 of a.py",
        SUGGESTION_NOTE,
        "@@ def g():",
    )
    # the HTML record keeps the suggestion's lines as lines
    assert "@@ def g():\n-    return 2\n+    return 3" in html.unescape(record_of(run)["text/html"])


def test_hostile_text_in_a_diagnosis_is_made_harmless(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("safe\n")
    text = patch("*** Update File: a.txt", "@@", "-\x1b[31m<script>alert(1)</script>", "+x")
    run = run_magic("--stream none", text)
    record = record_of(run)
    assert "\x1b" not in record["text/plain"] and "<script>" not in record["text/html"]
    assert run.widget.diagnosis["kind"] == "context_not_found"


def test_the_vocabulary_names_every_kind() -> None:
    diagnoses = call_vocabulary()["diagnoses"]
    assert list(diagnoses) == [kind.value for kind in DiagnosisKind]
    assert all(
        entry["meaning"] == KINDS[DiagnosisKind(k)].meaning for k, entry in diagnoses.items()
    )


def test_a_saved_state_the_atlas_cannot_read_is_said_so_in_every_form() -> None:
    """A record made again from a saved widget state (a notebook from elsewhere, or a kind of
    a later version): an entry that is no diagnosis is named, not shown as one, and made
    harmless; a good one beside it is shown in full."""
    good = Diagnosis(K.EMPTY_CHUNK, "`@@` has no line\nunder it.", "a.py", 3)
    state = {
        "diagnosis": {"kind": "a_kind_from_the_future", "message": "<b>m</b>"},
        "warnings": [diagnosis_state(good), {"kind": "fuzzy_match", "message": 3}],
    }
    plain = "\n".join(atlas.why_plain(state))
    assert plain.startswith(
        "diagnosis: unreadable ('a_kind_from_the_future' is not a valid DiagnosisKind)\n"
        f"warning: empty_chunk ({KINDS[K.EMPTY_CHUNK].meaning}), at patch line 3, a.py\n"
        "  `@@` has no line\u240aunder it.\n"  # one line: its line feed made visible
        "warning: unreadable (a diagnosis's message must be a string)"
    ), plain
    markup = atlas.why_html(state)
    assert "<b>m</b>" not in markup and "unreadable (&#x27;a_kind_from_the_future&#x27;" in markup
    assert "unreadable" in "\n".join(atlas.why_markdown(state))
