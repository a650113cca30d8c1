"""The seek_sequence cascade (docs/behaviour.md §3.1, §3.2)."""

from __future__ import annotations

import pytest

from applypatch_ext.core.apply.seek import Haystack, seek_sequence


@pytest.mark.parametrize(
    ("lines", "pattern", "expected"),
    [
        (["a", "b", "c"], ["b", "c"], (1, 0)),
        (["a  ", "b\t", "c"], ["a", "b"], (0, 1)),
        (["  a", "\tb  "], ["a", "b"], (0, 2)),
        (["x", "  foo – bar “q” ‘s’\u00a0y"], ["foo - bar \"q\" 's' y"], (1, 3)),
        (["a  ", "z", "a"], ["a"], (2, 0)),  # an exact match far down beats a fuzzy one on top
        (["a"], ["a", "b"], None),
        (["a", "b"], [], (0, 0)),
    ],
    ids=[
        "exact",
        "rstrip",
        "trim",
        "punctuation",
        "exact-beats-earlier-fuzzy",
        "too-long",
        "empty",
    ],
)
def test_cascade_passes(
    lines: list[str], pattern: list[str], expected: tuple[int, int] | None
) -> None:
    assert seek_sequence(lines, pattern, 0, False) == expected


def test_start_is_respected() -> None:
    assert seek_sequence(["a", "b", "a"], ["a"], 1, False) == (2, 0)
    assert seek_sequence(["a", "b"], ["a"], 1, False) is None


def test_unchanged_characters_of_pass_four() -> None:
    # U+2000 and U+2001 are trimmed as whitespace but not mapped inside a line.
    assert seek_sequence(["a\u2000b"], ["a b"], 0, False) is None
    assert seek_sequence(["a\u2002b"], ["a b"], 0, False) == (0, 3)


@pytest.mark.parametrize(
    ("legacy", "start", "expected"),
    [(True, 3, (1, 0)), (False, 3, None), (False, 0, (1, 0)), (False, 1, (1, 0))],
    ids=["legacy-ignores-start", "preserve-respects-start", "preserve-from-0", "preserve-at-end"],
)
def test_eof_has_one_candidate(legacy: bool, start: int, expected: tuple[int, int] | None) -> None:
    lines = ["x", "y", "x", "y"][:3]  # ["x", "y", "x"]
    assert seek_sequence(lines, ["y", "x"], start, True, legacy=legacy) == expected


def test_eof_does_not_fall_back_to_a_normal_search() -> None:
    assert seek_sequence(["a", "b", "c"], ["a"], 0, True) is None


def test_haystack_normalises_lazily_and_caches() -> None:
    hay = Haystack(["a ", "b"])
    assert hay._forms[1] is None
    assert seek_sequence(hay, ["b"], 0, False) == (1, 0)
    assert hay._forms[1] is None  # exact pass sufficed
    assert seek_sequence(hay, ["a"], 0, False) == (0, 1)
    cached = hay._forms[1]
    assert cached == ["a", "b"]
    assert seek_sequence(hay, ["a"], 0, False) == (0, 1)
    assert hay._forms[1] is cached


def test_pass_four_searches_the_text_without_normalising_the_file() -> None:
    lines = ["x = 'a'", "    y = 'b' - 1", "z"]
    hay = Haystack(lines, "\n".join(lines) + "\n")
    assert seek_sequence(hay, ["    y = \u2018b\u2019 \u2013 1"], 0, False) == (1, 3)
    assert seek_sequence(hay, ["y = \u2018b\u2019 \u2013 1"], 0, False) == (1, 3)  # indent
    assert hay._forms[2] is None and hay._forms[3] is None


def test_pass_four_takes_the_first_candidate_whatever_its_indentation() -> None:
    lines = ["y = 'b'", "other", "    y = 'b'"]
    hay = Haystack(lines)
    assert seek_sequence(hay, ["    y = \u2019b\u2019"], 0, False) == (0, 3)
    assert seek_sequence(hay, ["    y = \u2019b\u2019"], 1, False) == (2, 3)
    assert hay._forms[3] is None


def test_pass_four_normalises_the_file_after_too_many_candidates() -> None:
    lines = ["a 'q'"] * 20 + ["a 'q'", "end"]
    hay = Haystack(lines)
    assert seek_sequence(hay, ["a \u2018q\u2019", "end"], 0, False) == (20, 3)
    assert hay._forms[3] is not None


def test_pass_four_without_a_text_for_lines_holding_a_line_feed() -> None:
    lines = ["a\n'b'", "'b'"]
    hay = Haystack(lines)
    assert seek_sequence(hay, ["\u2019b\u2019"], 0, False) == (1, 3)
    assert hay._forms[3] is not None
