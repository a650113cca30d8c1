"""New file contents in both modes: the worked examples of docs/behaviour.md §3.4, §4.1 and §4.2."""

from __future__ import annotations

import pytest

from applypatch_ext.core.apply.contents import derive_new_contents
from applypatch_ext.core.errors import ComputeReplacementsError
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.text import LineEndings

PRESERVE, LF = LineEndings.PRESERVE, LineEndings.LF


def new(original: str, body: str, mode: LineEndings = PRESERVE) -> str:
    parsed = parse_patch(f"*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch")
    hunk = parsed.hunks[0]
    assert hunk.kind == "update"
    return derive_new_contents(original, "/w/f", hunk.chunks, mode)


@pytest.mark.parametrize(
    ("original", "body", "expected"),
    [
        (
            "one\r\ntwo\r\nthree\r\n",
            "@@\n-one\n+uno\n two\n+\n+between\n three",
            "uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n",
        ),
        (
            "one\rtwo\rthree\r",
            "@@\n-one\n+uno\n two\n+\n+between\n three",
            "uno\rtwo\r\rbetween\rthree\r",
        ),
        (
            "one\r\ntwo\rthree\nfour\r\n",
            "@@\n one\n two\n-three\n+THREE\n four",
            "one\r\ntwo\rTHREE\r\nfour\r\n",
        ),
        ("one\r\ntwo", "@@\n-one\n+ONE", "ONE\r\ntwo\r\n"),
        ("a\r\n\r\n", "@@\n+new", "a\r\n\r\nnew\r\n"),
        ("same\r\nsame\n", "@@\n-same\n same", "same\n"),
        ("a\nb\n", "@@\n-a\n-b\n+b\n+b\n+a", "b\nb\na\n"),
        ("", "@@\n+first", "first\n"),
        ("\ufeffhead\nx\n", "@@\n \ufeffhead\n-x\n+y", "\ufeffhead\ny\n"),
        ("no newline", "@@\n-no newline\n+replaced", "replaced\n"),
        ("a\nb", "@@\n+c", "a\nb\nc\n"),
    ],
    ids=[
        "crlf",
        "lone-cr",
        "mixed",
        "unterminated-last",
        "blank-line-then-addition",
        "context-keeps-own-ending",
        "reorder",
        "empty-file",
        "bom",
        "no-final-newline",
        "unterminated-last-moves-inward",
    ],
)
def test_preserve_mode_examples(original: str, body: str, expected: str) -> None:
    assert new(original, body) == expected


@pytest.mark.parametrize(
    ("original", "body", "expected"),
    [
        ("one\r\ntwo\r\n", "@@\n-one\n+uno", "uno\ntwo\r\n"),
        ("a\n\n", "@@\n-a\n+b", "b\n"),
        ("a\n\n", "@@\n+z", "a\nz\n"),
        ("old", "@@\n-old\n+new", "new\n"),
        ("one\r\ntwo\r\n", "@@\n one\n-two\n+2", "one\n2\n"),
    ],
    ids=[
        "crlf-outside-region-kept",
        "final-blank-lost",
        "addition-before-final-blank",
        "gains-newline",
        "context-rewritten",
    ],
)
def test_lf_mode_examples(original: str, body: str, expected: str) -> None:
    assert new(original, body, LF) == expected


def test_overlapping_eof_chunks_differ_between_modes() -> None:
    body = "@@\n-one\n+first\n@@\n-one\n+second\n*** End of File"
    assert new("one\n", body, LF) == "first\n"
    with pytest.raises(ComputeReplacementsError) as info:
        new("one\n", body)
    assert str(info.value) == "Failed to find expected lines in /w/f:\none"


@pytest.mark.parametrize("mode", [PRESERVE, LF])
def test_pure_addition_goes_to_end_even_before_a_replacement(mode: LineEndings) -> None:
    body = "@@\n+after-context\n+second-line\n@@ line1\n-line2\n-line3\n+line2-replacement"
    assert new("line1\nline2\nline3\n", body, mode) == (
        "line1\nline2-replacement\nafter-context\nsecond-line\n"
    )


@pytest.mark.parametrize("mode", [PRESERVE, LF])
def test_context_header_then_pure_addition_appends_at_eof(mode: LineEndings) -> None:
    assert new("def foo():\n    pass\nx = 1\n", "@@ def foo():\n+    return 1", mode) == (
        "def foo():\n    pass\nx = 1\n    return 1\n"
    )


def test_unicode_punctuation_match() -> None:
    original = "x\n# local import – avoids top‑level dep\ny\n"
    assert new(original, "@@\n-# local import - avoids top-level dep\n+z") == "x\nz\ny\n"


def test_trailing_empty_pattern_line_is_retried_without_it() -> None:
    assert new("a\nb\n", "@@\n-b\n+c\n") == "a\nc\n"
    assert new("a\nb", "@@\n a\n-b\n+B\n ") == "a\nB\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("@@ missing\n-a\n+b", "Failed to find context 'missing' in /w/f"),
        ("@@\n-x\n-y\n+z", "Failed to find expected lines in /w/f:\nx\ny"),
    ],
    ids=["context", "lines"],
)
def test_match_errors(body: str, message: str) -> None:
    with pytest.raises(ComputeReplacementsError) as info:
        new("a\nb\n", body)
    assert str(info.value) == message
    assert info.value.failure is not None and info.value.failure.path == "/w/f"


def test_context_header_found_by_fuzzy_match() -> None:
    assert new(
        "    def f():   \n        return 1\n", "@@ def f():\n-        return 1\n+        return 2"
    ) == ("    def f():   \n        return 2\n")
