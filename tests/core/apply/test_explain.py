"""Explaining a match failure: the closest region, per-line passes, differing characters."""

from __future__ import annotations

import pytest

from applypatch_ext.core.apply.contents import derive_new_contents
from applypatch_ext.core.apply.explain import (
    MAX_CHAR_DIFF,
    explain,
    explain_match_failure,
    explanation_lines,
)
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.verify import verify_patch
from applypatch_ext.core.errors import ComputeReplacementsError, IoError, MatchFailure
from applypatch_ext.core.parse.model import UpdateFileChunk
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.text import LineEndings
from applypatch_ext.core.visible import marked


def failure(*expected: str, kind: str = "lines", start: int = 0) -> MatchFailure:
    return MatchFailure("/w/f.py", kind, expected, start, False)


def test_region_with_a_pass_per_line_and_marked_characters() -> None:
    lines = ["def f():", "    x = \u201chi\u201d   ", "\treturn x", "end"]
    explained = explain_match_failure(failure("def f():", '    x = "hi"', "    return y"), lines)
    assert explained.region_start == 0
    assert [p.match_pass for p in explained.pairs] == [0, 3, None]
    assert explained.summary == (
        "closest region starts at line 1: 2 of 3 lines match (1 exact, 1 punctuation); 1 differs"
    )
    quotes = explained.pairs[1]
    assert [text for differs, text in quotes.actual_segments if differs] == ["\u201c", "\u201d   "]
    assert explained.after == ("end",)
    as_json = explained.to_json()
    assert as_json["matched"] == 2 and as_json["pairs"][2]["pass_name"] is None


def test_nearest_window_to_the_search_start_wins_a_tie() -> None:
    lines = ["a", "x", "a", "y", "a", "z"]
    assert explain_match_failure(failure("a", "b", start=4), lines).region_start == 4
    assert explain_match_failure(failure("a", "b", start=1), lines).region_start == 0


def test_nothing_close() -> None:
    explained = explain_match_failure(failure("zzz", "qqq"), ["a", "b"])
    assert explained.region_start is None
    assert "none of the expected lines occurs in the file (2 lines)" in explained.summary
    one = explain_match_failure(failure("zzz", "qqq"), ["a"])
    assert "none of the expected lines occurs in the file (1 line), even" in one.summary
    # nothing matches in a non-empty file: not "past the end of the file"
    assert {p.absent for p in explained.pairs} == {"no-match"}
    pairs = explained.to_json()["pairs"]
    assert [p["absent"] for p in pairs] == ["no similar line in the file"] * 2


def test_an_empty_file_says_so() -> None:
    explained = explain_match_failure(failure("zzz"), [])
    assert explained.summary.startswith("the file is empty")
    assert explained.to_json()["pairs"][0]["absent"] == "the file is empty"


def test_a_region_running_past_the_last_line_says_so() -> None:
    # the chunk is longer than the file: the region starts at line 1 and runs past its end
    explained = explain_match_failure(failure("a", "b", "c"), ["a", "b"])
    assert explained.region_start == 0
    assert [p.absent for p in explained.pairs] == [None, None, "past-end"]
    assert explained.to_json()["pairs"][2]["absent"] == "past the end of the file"
    assert explained.pairs[0].to_json()["absent"] is None


def test_single_context_line_found_by_similarity() -> None:
    lines = ["class A:", "    def method_one(self):", "    def method_two(self):"]
    explained = explain_match_failure(failure("def method_tow(self):", kind="context"), lines)
    assert explained.region_start == 2
    assert explained.pairs[0].match_pass is None


def test_all_lines_match_but_not_from_the_search_start() -> None:
    explained = explain_match_failure(failure("a", "b", start=2), ["a", "b", "c"])
    assert explained.summary.startswith("all 2 lines match at line 1")


def test_long_lines_are_compared_by_prefix_and_suffix() -> None:
    long_a = "x" * MAX_CHAR_DIFF + "A" + "y" * 50
    long_b = "x" * MAX_CHAR_DIFF + "BB" + "y" * 50
    explained = explain_match_failure(failure(long_a), [long_b])
    pair = explained.pairs[0]
    assert pair.expected_segments == (
        (False, "x" * MAX_CHAR_DIFF),
        (True, "A"),
        (False, "y" * 50),
    )
    assert [d for d, _ in pair.actual_segments] == [False, True, False]


@pytest.mark.parametrize(
    ("mode", "lines"),
    [(LineEndings.PRESERVE, ["a", "b", "c"]), (LineEndings.LF, ["a\r", "b", "c"])],
)
def test_a_failure_carries_the_lines_the_matcher_saw(mode: LineEndings, lines: list[str]) -> None:
    chunk = UpdateFileChunk(None, ("zzz",), ("yyy",))
    with pytest.raises(ComputeReplacementsError) as info:
        derive_new_contents("a\r\nb\nc", "/w/f.txt", (chunk,), mode)
    assert info.value.failure is not None
    assert list(info.value.failure.file_lines) == lines


def test_explain_uses_what_verification_read_and_never_the_disk() -> None:
    fs = MemoryFilesystem({"/w/f.py": "def f():\n    return  1\n"})
    parsed = parse_patch(
        "*** Begin Patch\n*** Update File: f.py\n@@\n def f():\n-    return 1\n+    return 2\n"
        "*** End Patch"
    )
    with pytest.raises(ComputeReplacementsError) as info:
        verify_patch(parsed, "/w", fs)
    fs.remove_file("/w/f.py")  # gone from the disk: the explanation does not need it
    explained = explain(info.value)
    assert explained is not None
    assert [p.match_pass for p in explained.pairs] == [0, None]
    assert [p.actual for p in explained.pairs] == ["def f():", "    return  1"]
    assert explain(IoError("Failed to write file /w/x")) is None


def test_counts_of_one_read_as_one() -> None:
    """Issue 23 item 10: "(1 lines)" and its kin, for a one-line chunk."""
    near = explain_match_failure(failure("alpha"), ["alphx"])
    assert near.summary == "closest region starts at line 1: 0 of 1 line matches; 1 differs"
    moved = explain_match_failure(MatchFailure("/w/f.py", "lines", ("a  ",), 0, True), ["x", "a"])
    assert moved.summary.startswith("its line matches at line 2 (up to the rstrip pass)")


def test_the_near_miss_in_plain_text_names_its_whitespace_as_a_diagnosis_does() -> None:
    failure = MatchFailure("/w/a.py", "lines", ("\tx = 1 ", "y"), 0, False)
    explanation = explain_match_failure(failure, ["    x = 1", "z"])
    assert explanation.describe() == explanation_lines(explanation.to_json())
    assert explanation.describe() == [
        explanation.summary,
        "  expected: `\\tx = 1·`",
        "     line 1: `····x = 1`  [trim]",
        "  expected: `y`",
        "     line 2: `z`  [differs]",
    ]
    # a pair without a file line says why; a saved copy with junk pairs is read as far as it goes
    saved = {"summary": "s", "pairs": [{"expected": "a", "absent": "past the end"}, 5]}
    assert explanation_lines(saved) == [
        "s",
        "  expected: `a`",
        "    no line: (past the end)  [differs]",
    ]


def test_marked_shows_tabs_and_edge_spaces_only() -> None:
    assert marked("\t  a b\t ") == "\u2192\t\u00b7\u00b7a b\u2192\t\u00b7"
    assert marked("a\tb") == "a\u2192\tb"
    assert marked("  ") == "\u00b7\u00b7"
    assert marked("") == ""
