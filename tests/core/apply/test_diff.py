"""Tests for applypatch_ext.core.apply.diff: byte-identical output of the crate ``similar`` 2.7.0.

Expected values come from docs/behaviour.md §4.5 / §8.5 / §8.6, from the crate's own tests and insta
snapshots (``src/algorithms/myers.rs``, ``replace.rs``, ``capture.rs``, ``src/udiff.rs``,
``src/text/mod.rs``), from Codex's ``file_update_tests``, and from outputs of the crate itself for
the compaction and CR cases (similar 2.2.1, whose Myers, compaction, replace and unified diff code
is unchanged up to 2.7.0).
"""

from __future__ import annotations

import random
import re
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from applypatch_ext.core.apply.diff import (
    NULL_OID,
    DiffOp,
    DiffTag,
    _conquer,
    _Deadline,
    _find_middle_snake,
    diff_ops,
    git_blob_oid,
    group_ops,
    split_diff_lines,
    unified_diff,
    unified_diff_with_status,
)

EQ, DEL, INS, REP = DiffTag.EQUAL, DiffTag.DELETE, DiffTag.INSERT, DiffTag.REPLACE


def op(tag: DiffTag, old_index: int, old_len: int, new_index: int, new_len: int) -> DiffOp:
    return DiffOp(tag, old_index, old_len, new_index, new_len)


def tokens(values: list[int]) -> list[str]:
    # The crate's algorithm tests diff integer slices; equal ints map to equal strings.
    return [str(v) for v in values]


def numbered(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------------------------------------
# Tokeniser


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "first\nsecond\rthird\r\nfourth\nlast",
            ["first\n", "second\r", "third\r\n", "fourth\n", "last"],
            id="crate-mixed-terminators",
        ),
        pytest.param("\n\n", ["\n", "\n"], id="crate-two-empty-lines"),
        pytest.param("\n", ["\n"], id="crate-one-newline"),
        pytest.param("", [], id="crate-empty"),
        pytest.param("a", ["a"], id="unterminated-only"),
        pytest.param("a\r\rb", ["a\r", "\r", "b"], id="lone-cr-twice"),
        pytest.param("a\r\n\r\n", ["a\r\n", "\r\n"], id="crlf-blank-line"),
        pytest.param("a\n\r\nb\r", ["a\n", "\r\n", "b\r"], id="lf-then-crlf"),
        pytest.param("x\x0by\x0cz\x85w\u2028v", ["x\x0by\x0cz\x85w\u2028v"], id="no-other-breaks"),
    ],
)
def test_split_diff_lines(text: str, expected: list[str]) -> None:
    assert split_diff_lines(text) == expected
    assert "".join(split_diff_lines(text)) == text


# ---------------------------------------------------------------------------------------------
# Myers


def test_middle_snake_crate_vector() -> None:
    old = [ord(c) for c in "ABCABBA"]
    new = [ord(c) for c in "CBABAC"]
    size = 2 * ((len(old) + len(new) + 1) // 2 + 1) + 2
    snake = _find_middle_snake(
        old, 0, len(old), new, 0, len(new), [0] * size, [0] * size, _Deadline(None)
    )
    assert snake == (4, 1)


def test_raw_myers_ops_crate_pat_snapshot() -> None:
    # myers.rs test_pat: the raw ops (Capture only, neither compaction nor replace merging).
    old, new = [0, 1, 3, 4, 5], [0, 1, 4, 5, 8, 9]
    size = 2 * ((len(old) + len(new) + 1) // 2 + 1) + 2
    raw: list[list[int]] = []
    _conquer(old, 0, len(old), new, 0, len(new), [0] * size, [0] * size, _Deadline(None), raw)
    assert raw == [
        [0, 0, 2, 0, 2],
        [1, 2, 1, 2, 0],
        [0, 3, 2, 2, 2],
        [2, 5, 0, 4, 1],
        [2, 5, 0, 5, 1],
    ]


OP_VECTORS = [
    pytest.param(
        tokens([0, 1, 2, 3, 4]),
        tokens([0, 1, 2, 9, 4]),
        [op(EQ, 0, 3, 0, 3), op(REP, 3, 1, 3, 1), op(EQ, 4, 1, 4, 1)],
        id="myers-test_diff",
    ),
    pytest.param(
        tokens([0, 1, 2, 3, 4, 4, 4, 5]),
        tokens([0, 1, 2, 8, 9, 4, 4, 7]),
        [op(EQ, 0, 3, 0, 3), op(REP, 3, 1, 3, 2), op(EQ, 4, 2, 5, 2), op(REP, 6, 2, 7, 1)],
        id="myers-test_contiguous",
    ),
    pytest.param(
        tokens([0, 1, 2, 3, 4]),
        tokens([0, 1, 2, 7, 8, 9]),
        [op(EQ, 0, 3, 0, 3), op(REP, 3, 2, 3, 3)],
        id="replace-test_replace",
    ),
    pytest.param(
        [
            ">" * 32 + "\n",
            "a\n",
            "b\n",
            "c\n",
            "=" * 32 + "\n",
            "d\n",
            "e\n",
            "f\n",
            "<" * 32 + "\n",
        ],
        [
            ">" * 32 + "\n",
            "x\n",
            "b\n",
            "c\n",
            "=" * 32 + "\n",
            "y\n",
            "e\n",
            "f\n",
            "<" * 32 + "\n",
        ],
        [
            op(EQ, 0, 1, 0, 1),
            op(REP, 1, 1, 1, 1),
            op(EQ, 2, 3, 2, 3),
            op(REP, 5, 1, 5, 1),
            op(EQ, 6, 3, 6, 3),
        ],
        id="replace-test_mayers_replace",
    ),
    pytest.param(
        split_diff_lines("Hello World\nsome stuff here\nsome more stuff here\n"),
        split_diff_lines("Hello World\nsome amazing stuff here\nsome more stuff here\n"),
        [op(EQ, 0, 1, 0, 1), op(REP, 1, 1, 1, 1), op(EQ, 2, 1, 2, 1)],
        id="text-test_captured_ops",
    ),
    pytest.param(
        split_diff_lines(
            "Hello World\nsome stuff here\nsome more stuff here\n\nAha stuff here\nand more stuff"
        ),
        split_diff_lines("Stuff\nHello World\nsome amazing stuff here\nsome more stuff here\n"),
        [
            op(INS, 0, 0, 0, 1),
            op(EQ, 0, 1, 1, 1),
            op(REP, 1, 1, 2, 1),
            op(EQ, 2, 1, 3, 1),
            op(DEL, 3, 3, 4, 0),
        ],
        id="text-test_serde_ops",
    ),
    pytest.param(
        split_diff_lines("a\nb"),
        split_diff_lines("a\nc\n"),
        [op(EQ, 0, 1, 0, 1), op(REP, 1, 1, 1, 1)],
        id="text-test_virtual_newlines",
    ),
    pytest.param([], [], [], id="both-empty"),
    pytest.param(["a\n"], [], [op(DEL, 0, 1, 0, 0)], id="delete-all"),
    pytest.param([], ["a\n"], [op(INS, 0, 0, 0, 1)], id="insert-all"),
    # Compaction: the inserted block slides to the lowest position it can take.
    pytest.param(
        split_diff_lines("a\nb\n"),
        split_diff_lines("b\na\na\nb\nb\n"),
        [op(INS, 0, 0, 0, 2), op(EQ, 0, 2, 2, 2), op(INS, 2, 0, 4, 1)],
        id="compact-insert-slides-up",
    ),
    pytest.param(
        split_diff_lines("a\nb\nb\nb\na\n"),
        split_diff_lines("b\nb\na\na\n"),
        [op(DEL, 0, 2, 0, 0), op(EQ, 2, 3, 0, 3), op(INS, 5, 0, 3, 1)],
        id="compact-deletes-merge",
    ),
    pytest.param(
        split_diff_lines("a\nb\na\na\n"),
        split_diff_lines("b\nb\nb\na\n"),
        # The swapped Delete keeps its stale new_index (2), exactly like the crate.
        [op(DEL, 0, 1, 2, 0), op(EQ, 1, 1, 0, 1), op(REP, 2, 1, 1, 2), op(EQ, 3, 1, 3, 1)],
        id="compact-stale-delete-index",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), OP_VECTORS)
def test_diff_ops(old: list[str], new: list[str], expected: list[DiffOp]) -> None:
    assert diff_ops(old, new) == expected


def test_diff_ops_deadline_crate_snapshot() -> None:
    # myers.rs test_deadline_reached: once the deadline is gone, the part between the common
    # prefix and suffix becomes one replace.
    old = list(range(100))
    new = list(range(100))
    new[10] = new[25] = new[50] = 99
    ops = diff_ops(tokens(old), tokens(new), deadline=time.monotonic() - 1.0)
    assert ops == [op(EQ, 0, 10, 0, 10), op(REP, 10, 41, 10, 41), op(EQ, 51, 49, 51, 49)]
    assert diff_ops(tokens(old), tokens(new)) == [
        op(EQ, 0, 10, 0, 10),
        op(REP, 10, 1, 10, 1),
        op(EQ, 11, 14, 11, 14),
        op(REP, 25, 1, 25, 1),
        op(EQ, 26, 24, 26, 24),
        op(REP, 50, 1, 50, 1),
        op(EQ, 51, 49, 51, 49),
    ]


# ---------------------------------------------------------------------------------------------
# Grouping


def test_group_ops_crate_capture_hook_grouping() -> None:
    old = list(range(1, 100))
    new = list(old)
    for index in (10, 13, 16, 34):
        new[index] = 1000
    groups = group_ops(diff_ops(tokens(old), tokens(new)), 3)
    ranges = [
        [(o.tag, o.old_index, o.old_end, o.new_index, o.new_end) for o in group] for group in groups
    ]
    assert ranges == [
        [
            (EQ, 7, 10, 7, 10),
            (REP, 10, 11, 10, 11),
            (EQ, 11, 13, 11, 13),
            (REP, 13, 14, 13, 14),
            (EQ, 14, 16, 14, 16),
            (REP, 16, 17, 16, 17),
            (EQ, 17, 20, 17, 20),
        ],
        [(EQ, 31, 34, 31, 34), (REP, 34, 35, 34, 35), (EQ, 35, 38, 35, 38)],
    ]


@pytest.mark.parametrize(
    ("ops", "radius", "expected"),
    [
        pytest.param([], 3, [], id="no-ops"),
        pytest.param([op(EQ, 0, 10, 0, 10)], 3, [], id="only-equal"),
        pytest.param([op(EQ, 0, 10, 0, 10)], 0, [], id="only-equal-radius-0"),
        pytest.param(
            [op(EQ, 0, 10, 0, 10), op(DEL, 10, 1, 10, 0)],
            0,
            [[op(EQ, 10, 0, 10, 0), op(DEL, 10, 1, 10, 0)]],
            id="radius-0-keeps-empty-equal",
        ),
        pytest.param(
            [op(EQ, 0, 4, 0, 4), op(REP, 4, 1, 4, 1), op(EQ, 5, 4, 5, 4), op(INS, 9, 0, 9, 1)],
            2,
            [[op(EQ, 2, 2, 2, 2), op(REP, 4, 1, 4, 1), op(EQ, 5, 4, 5, 4), op(INS, 9, 0, 9, 1)]],
            id="equal-of-exactly-2n-joins",
        ),
        pytest.param(
            [op(EQ, 0, 4, 0, 4), op(REP, 4, 1, 4, 1), op(EQ, 5, 5, 5, 5), op(INS, 10, 0, 10, 1)],
            2,
            [
                [op(EQ, 2, 2, 2, 2), op(REP, 4, 1, 4, 1), op(EQ, 5, 2, 5, 2)],
                [op(EQ, 8, 2, 8, 2), op(INS, 10, 0, 10, 1)],
            ],
            id="equal-longer-than-2n-splits",
        ),
    ],
)
def test_group_ops(ops: list[DiffOp], radius: int, expected: list[list[DiffOp]]) -> None:
    assert group_ops(ops, radius) == expected


def test_group_ops_rejects_negative_radius() -> None:
    with pytest.raises(ValueError, match="context_radius"):
        group_ops([op(DEL, 0, 1, 0, 0)], -1)


# ---------------------------------------------------------------------------------------------
# Unified diff rendering

ALPHABET_OLD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
ALPHABET_NEW = ALPHABET_OLD.replace("s", "S").replace("O", "o")

UDIFF_VECTORS = [
    # docs/behaviour.md §4.5 and Codex's file_update_tests (radius 1, no header).
    pytest.param(
        "foo\nbar\nbaz\nqux\n",
        "foo\nBAR\nbaz\nQUX\n",
        1,
        None,
        "@@ -1,4 +1,4 @@\n foo\n-bar\n+BAR\n baz\n-qux\n+QUX\n",
        id="behaviour-4.5-two-changes",
    ),
    pytest.param(
        "foo\nbar\nbaz\n",
        "foo\nbar\nbaz\nquux\n",
        1,
        None,
        "@@ -3 +3,2 @@\n baz\n+quux\n",
        id="behaviour-4.5-append",
    ),
    pytest.param(
        "foo\nbar\nbaz\n",
        "FOO\nbar\nbaz\n",
        1,
        None,
        "@@ -1,2 +1,2 @@\n-foo\n+FOO\n bar\n",
        id="codex-first-line",
    ),
    pytest.param(
        "foo\nbar\nbaz\n",
        "foo\nbar\nBAZ\n",
        1,
        None,
        "@@ -2,2 +2,2 @@\n bar\n-baz\n+BAZ\n",
        id="codex-last-line",
    ),
    pytest.param(
        "a\nb\nc\nd\ne\nf\n",
        "a\nB\nc\nd\nE\nf\ng\n",
        1,
        None,
        "@@ -1,6 +1,7 @@\n a\n-b\n+B\n c\n d\n-e\n+E\n f\n+g\n",
        id="codex-interleaved",
    ),
    pytest.param(
        "session directory content\n",
        "updated session directory content\n",
        1,
        None,
        "@@ -1 +1 @@\n-session directory content\n+updated session directory content\n",
        id="codex-single-line",
    ),
    # docs/behaviour.md §8.6 and the crate's udiff.rs / text/mod.rs tests.
    pytest.param(
        "a\n",
        "b",
        3,
        None,
        "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
        id="behaviour-8.6-newline-hint",
    ),
    pytest.param(
        "a\n",
        "b",
        3,
        ("a.txt", "b.txt"),
        "--- a.txt\n+++ b.txt\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n",
        id="crate-unified_diff_newline_hint",
    ),
    pytest.param(
        "\n".join(ALPHABET_OLD),
        "\n".join(ALPHABET_NEW),
        3,
        ("a.txt", "b.txt"),
        "--- a.txt\n+++ b.txt\n"
        "@@ -16,7 +16,7 @@\n p\n q\n r\n-s\n+S\n t\n u\n v\n"
        "@@ -38,7 +38,7 @@\n L\n M\n N\n-O\n+o\n P\n Q\n R\n",
        id="crate-udiff-test_unified_diff",
    ),
    pytest.param("abc", "abc", 3, ("a.txt", "b.txt"), "", id="crate-test_empty_unified_diff"),
    pytest.param(
        "Hello World\nsome stuff here\nsome more stuff here\n",
        "Hello World\nsome amazing stuff here\nsome more stuff here\n",
        3,
        ("old", "new"),
        "--- old\n+++ new\n@@ -1,3 +1,3 @@\n Hello World\n-some stuff here\n"
        "+some amazing stuff here\n some more stuff here\n",
        id="crate-text-test_unified_diff",
    ),
    pytest.param(
        "\x18\n\n",
        "\n\n\r",
        0,
        None,
        "@@ -1 +1,0 @@\n-\x18\n@@ -2,0 +2,2 @@\n+\n+\r",
        id="crate-test_regression_issue_37",
    ),
    # docs/behaviour.md §8.5: the hunks of the TurnDiff worked examples (radius 3, a/ b/ header).
    pytest.param(
        "",
        "foo\nbar\n",
        3,
        ("/dev/null", "b/a.txt"),
        "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+foo\n+bar\n",
        id="behaviour-8.5-add-then-update",
    ),
    pytest.param(
        "line\n",
        "line2\n",
        3,
        ("a/src.txt", "b/dst.txt"),
        "--- a/src.txt\n+++ b/dst.txt\n@@ -1 +1 @@\n-line\n+line2\n",
        id="behaviour-8.5-move-and-change",
    ),
    pytest.param(
        "from\n",
        "",
        3,
        ("a/a.txt", "/dev/null"),
        "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-from\n",
        id="behaviour-8.5-deleted-source",
    ),
    pytest.param(
        "existing\n",
        "new\n",
        3,
        ("a/b.txt", "b/b.txt"),
        "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-existing\n+new\n",
        id="behaviour-8.5-overwritten-destination",
    ),
    pytest.param("", "", 3, ("/dev/null", "b/e.txt"), "", id="behaviour-8.5-empty-add-no-hunk"),
    pytest.param(
        "old",
        "new\n",
        3,
        ("a/n.txt", "b/n.txt"),
        "--- a/n.txt\n+++ b/n.txt\n@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n",
        id="behaviour-8.5-old-without-newline",
    ),
    # CR characters are part of the tokens and are written verbatim.
    pytest.param(
        "one\r\ntwo\r\nthree\r\n",
        "uno\r\ntwo\r\n\r\nbetween\r\nthree\r\n",
        3,
        None,
        "@@ -1,3 +1,5 @@\n-one\r\n+uno\r\n two\r\n+\r\n+between\r\n three\r\n",
        id="crlf-kept",
    ),
    pytest.param(
        "b\nb\rb\n",
        "b\nb\nb\n",
        0,
        None,
        "@@ -2 +1,0 @@\n-b\r@@ -3,0 +3 @@\n+b\n",
        id="lone-cr-token-runs-into-next-line",
    ),
    pytest.param(
        "a\r\na\n",
        "a\na\na",
        0,
        None,
        # The swapped Delete keeps new_index 1; the crate saturates the length of 1..0 at 0.
        "@@ -1 +1,0 @@\n-a\r\n@@ -2,0 +2,2 @@\n+a\n+a\n\\ No newline at end of file\n",
        id="radius-0-saturated-range",
    ),
    pytest.param(
        "a\nb\na\na\n",
        "b\nb\nb\na\n",
        1,
        None,
        # Faithful to the crate: the new start comes from the stale index of the first Delete.
        "@@ -1,4 +3,2 @@\n-a\n b\n-a\n+b\n+b\n a\n",
        id="stale-index-in-header",
    ),
    pytest.param(
        "a\nb\nb\nb\na\n",
        "b\nb\nb\nb\na\na\n",
        3,
        None,
        "@@ -1,5 +2,5 @@\n-a\n b\n b\n b\n+b\n+a\n a\n",
        id="compacted-insert",
    ),
    pytest.param(
        "x\ny\n",
        "x\ny",
        3,
        None,
        "@@ -1,2 +1,2 @@\n x\n-y\n+y\n\\ No newline at end of file\n",
        id="newline-removed",
    ),
    pytest.param(
        "x\ny",
        "x\ny\n",
        3,
        None,
        "@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n",
        id="newline-added",
    ),
    pytest.param(
        "a\nb",
        "",
        3,
        None,
        "@@ -1,2 +0,0 @@\n-a\n-b\n\\ No newline at end of file\n",
        id="delete-unterminated",
    ),
    pytest.param(
        "a\n\n", "b\n", 1, None, "@@ -1,2 +1 @@\n-a\n-\n+b\n", id="blank-last-line-replaced"
    ),
    pytest.param(
        numbered([str(i) for i in range(20)]),
        numbered([str(i) for i in range(20) if i not in (3, 10)]),
        2,
        None,
        "@@ -2,5 +2,4 @@\n 1\n 2\n-3\n 4\n 5\n@@ -9,5 +8,4 @@\n 8\n 9\n-10\n 11\n 12\n",
        id="gap-longer-than-2n-two-hunks",
    ),
    pytest.param(
        numbered([str(i) for i in range(20)]),
        numbered([str(i) for i in range(20) if i not in (3, 8)]),
        2,
        None,
        "@@ -2,10 +2,8 @@\n 1\n 2\n-3\n 4\n 5\n 6\n 7\n-8\n 9\n 10\n",
        id="gap-of-2n-one-hunk",
    ),
]


@pytest.mark.parametrize(("old", "new", "radius", "header", "expected"), UDIFF_VECTORS)
def test_unified_diff(
    old: str, new: str, radius: int, header: tuple[str, str] | None, expected: str
) -> None:
    assert unified_diff(old, new, context_radius=radius, header=header) == expected
    assert unified_diff_with_status(old, new, context_radius=radius, header=header) == (
        expected,
        False,
    )


def test_status_reports_expired_deadline() -> None:
    old, new = "a\nb\nc\n", "a\nB\nc\n"
    text, hit = unified_diff_with_status(old, new, context_radius=1, timeout=-1.0)
    assert hit
    assert text == "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    # A pure insertion needs no middle-snake search, so an expired deadline changes nothing.
    assert unified_diff_with_status(old, old + "d\n", context_radius=1, timeout=-1.0) == (
        "@@ -3 +3,2 @@\n c\n+d\n",
        False,
    )


def test_expired_deadline_gives_coarse_diff() -> None:
    old = numbered(["a", "x", "b", "c", "y", "d"])
    new = numbered(["a", "X", "b", "c", "Y", "d"])
    assert unified_diff(old, new, context_radius=0) == "@@ -2 +2 @@\n-x\n+X\n@@ -5 +5 @@\n-y\n+Y\n"
    assert unified_diff(old, new, context_radius=0, timeout=-1.0) == (
        "@@ -2,4 +2,4 @@\n-x\n-b\n-c\n-y\n+X\n+b\n+c\n+Y\n"
    )


# ---------------------------------------------------------------------------------------------
# Properties: the hunks turn the old text into the new one.

_PIECE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def apply_hunks(old: str, diff: str) -> str:
    """Apply rendered hunks to ``old`` using only the old start of each header and the body."""
    old_lines = _PIECE.findall(old)
    pieces = _PIECE.findall(diff)
    if pieces[:1] and pieces[0].startswith("--- "):
        pieces = pieces[2:]
    result: list[str] = []
    cursor = 0
    i = 0
    while i < len(pieces):
        header = _HEADER.fullmatch(pieces[i])
        assert header, pieces[i]
        i += 1
        body: list[str] = []
        while i < len(pieces) and not pieces[i].startswith("@@ "):
            if pieces[i] == "\\ No newline at end of file\n":
                assert body and body[-1].endswith("\n")
                body[-1] = body[-1][:-1]
            else:
                body.append(pieces[i])
            i += 1
        has_old = any(line[0] in " -" for line in body)
        start = int(header[1]) - (1 if has_old else 0)
        assert start >= cursor
        result.extend(old_lines[cursor:start])
        cursor = start
        for line in body:
            kind, text = line[0], line[1:]
            if kind in " -":
                assert old_lines[cursor] == text
                cursor += 1
            if kind in " +":
                result.append(text)
    result.extend(old_lines[cursor:])
    return "".join(result)


def assert_ops_tile(ops: list[DiffOp], old: list[str], new: list[str]) -> None:
    old_pos = new_pos = 0
    rebuilt: list[str] = []
    for o in ops:
        if o.old_len:
            assert o.old_index == old_pos
            old_pos = o.old_end
        if o.new_len:
            assert o.new_index == new_pos
            new_pos = o.new_end
        if o.tag is DiffTag.EQUAL:
            assert old[o.old_index : o.old_end] == new[o.new_index : o.new_end]
        if o.tag is not DiffTag.DELETE:
            rebuilt.extend(new[o.new_index : o.new_end])
    assert (old_pos, new_pos) == (len(old), len(new))
    assert rebuilt == new


_line = st.builds(
    lambda body, end: body + end,
    st.sampled_from(["a", "b", "c", ""]),
    st.sampled_from(["\n", "\n", "\r\n", "\r"]),
)
_text = st.builds(
    lambda lines, tail: "".join(lines) + tail,
    st.lists(_line, max_size=14),
    st.sampled_from(["", "", "a", "b"]),
)


@settings(derandomize=True, max_examples=400, deadline=None, database=None)
@given(old=_text, new=_text, radius=st.integers(0, 4))
def test_property_hunks_rebuild_new_text(old: str, new: str, radius: int) -> None:
    diff = unified_diff(old, new, context_radius=radius)
    assert apply_hunks(old, diff) == new
    assert (diff == "") == (old == new)


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(old=_text, new=_text)
def test_property_ops_tile_both_texts(old: str, new: str) -> None:
    old_lines, new_lines = split_diff_lines(old), split_diff_lines(new)
    assert_ops_tile(diff_ops(old_lines, new_lines), old_lines, new_lines)


@settings(derandomize=True, max_examples=200, deadline=None, database=None)
@given(old=_text, new=_text, radius=st.integers(0, 3))
def test_property_expired_deadline_still_correct(old: str, new: str, radius: int) -> None:
    old_lines, new_lines = split_diff_lines(old), split_diff_lines(new)
    past = time.monotonic() - 1.0
    assert_ops_tile(diff_ops(old_lines, new_lines, deadline=past), old_lines, new_lines)
    diff = unified_diff(old, new, context_radius=radius, timeout=-1.0)
    assert apply_hunks(old, diff) == new


def test_git_apply_accepts_the_diff(tmp_path: Path) -> None:
    rng = random.Random(5)
    old_lines = [f"line {rng.randrange(30)}\n" for _ in range(300)]
    new_lines = list(old_lines)
    for j in range(25):
        k = rng.randrange(len(new_lines))
        new_lines[k : k + rng.randrange(3)] = [f"edit {j}\r\n"] * rng.randrange(3)
    old, new = "".join(old_lines), "".join(new_lines) + "tail without newline"
    (tmp_path / "x").write_bytes(old.encode())
    patch = unified_diff(old, new, context_radius=3, header=("a/x", "b/x"))
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    assert (tmp_path / "x").read_bytes() == new.encode()


# ---------------------------------------------------------------------------------------------
# Large inputs: the deadline path and a many-edit file stay correct (timings live in bench/)


@pytest.mark.slow
def test_complete_rewrite_respects_deadline() -> None:
    old = numbered([f"line {i}" for i in range(48_000)])
    new = numbered([f"rewritten {i}" for i in range(48_000)])
    text, hit = unified_diff_with_status(
        old, new, context_radius=3, header=("a/x", "b/x"), timeout=0.1
    )
    assert hit
    assert text.startswith("--- a/x\n+++ b/x\n@@ -1,48000 +1,48000 @@\n-line 0\n")
    assert apply_hunks(old, text) == new


@pytest.mark.slow
def test_many_small_edits_diff_correctly() -> None:
    rng = random.Random(11)
    base = [
        rng.choice(["\n", "    }\n", f"    call({rng.randrange(10**6)});\n"]) for _ in range(20_000)
    ]
    lines = list(base)
    for j in range(200):
        k = rng.randrange(len(lines))
        lines[k] = f"    edited({j});\n"
    old, new = "".join(base), "".join(lines)
    text, hit = unified_diff_with_status(old, new, context_radius=3, timeout=5.0)
    assert not hit
    assert apply_hunks(old, text) == new


# ---------------------------------------------------------------------------------------------
# Git blob ids


@pytest.mark.parametrize(
    ("text", "oid"),
    [
        pytest.param("", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", id="empty"),
        pytest.param("foo\nbar\n", "3bd1f0e29744a1f32b08d5650e62e2e62afb177c", id="foo-bar"),
        pytest.param("line\n", "a999a0c211215fd28e77d6a7c66ade6ec76ccbcb", id="line"),
        pytest.param("line2\n", "8a6a2d098ecaf90105f1cf2fa90fc4608bb08067", id="line2"),
        pytest.param("from\n", "3940df7cd8791c48c101a7543b3a9fd7ef930e78", id="from"),
        pytest.param("existing\n", "cbaf024e5e7fa87bdd8ad76b1393d9973585bc97", id="existing"),
        pytest.param("new\n", "3e757656cf36eca53338e520d134963a44f793f8", id="new"),
        pytest.param("old", "489ce0f857e7634a0eb9f328265a3e91fad49f61", id="old-no-newline"),
    ],
)
def test_git_blob_oid_spec_values(text: str, oid: str) -> None:
    assert git_blob_oid(text) == oid


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("hello\n", id="ascii"),
        pytest.param("naïve café ✅\r\nsecond\rthird", id="unicode-cr"),
        pytest.param("\ufeffbom first\n", id="bom"),
    ],
)
def test_git_blob_oid_matches_git(text: str) -> None:
    out = subprocess.run(
        ["git", "hash-object", "--stdin"], input=text.encode(), capture_output=True, check=True
    )
    assert git_blob_oid(text) == out.stdout.decode().strip()


def test_null_oid() -> None:
    assert NULL_OID == "0" * 40
