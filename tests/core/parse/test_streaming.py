"""Tests of :mod:`applypatch_ext.core.parse.streaming` against docs/behaviour.md §2 (and 1.4-1.7).

The batch parser feeds the canonical text through the streaming parser, so most properties here
compare the two: any way of cutting the text into deltas must give exactly the batch result.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from applypatch_ext.core.errors import InvalidHunkError, InvalidPatchError, ParseError
from applypatch_ext.core.parse.model import (
    AddFile,
    DeleteFile,
    Hunk,
    UpdateFile,
    UpdateFileChunk,
    render_patch,
)
from applypatch_ext.core.parse.parser import canonical_patch_lines, parse_patch
from applypatch_ext.core.parse.streaming import HunkSnapshot, StreamingPatchParser

from ..spec_texts import (
    BEGIN,
    DUPLICATE_ENV,
    EMPTY_ENV,
    END,
    FIRST_LINE,
    LAST_LINE,
    NO_LINES,
    expected_marker,
    not_a_header,
    patch,
    unexpected,
)


def stream(deltas: Iterable[str]) -> tuple[list[HunkSnapshot], HunkSnapshot, str | None]:
    """Feed ``deltas`` to a fresh parser; the snapshot after each, ``finish()``'s and the env id."""
    parser = StreamingPatchParser()
    snapshots = [parser.push_delta(delta) for delta in deltas]
    return snapshots, parser.finish(), parser.environment_id


def split_at(text: str, cuts: Iterable[int]) -> list[str]:
    """``text`` cut at the given positions (in any order, repeats allowed: empty deltas)."""
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in pairwise(bounds)]


Outcome = tuple[object, ...]


def outcome(run: Callable[[], tuple[Sequence[Hunk], str | None]]) -> Outcome:
    """What a parse produced: its hunks and environment id, or its error (kind, text, line)."""
    try:
        hunks, environment_id = run()
    except ParseError as error:
        return ("error", type(error), str(error), error.cli_text, error.line_number)
    return ("ok", tuple(hunks), environment_id)


def batch_outcome(text: str) -> Outcome:
    def run() -> tuple[Sequence[Hunk], str | None]:
        parsed = parse_patch(text)
        return parsed.hunks, parsed.environment_id

    return outcome(run)


def stream_outcome(deltas: Iterable[str]) -> Outcome:
    def run() -> tuple[Sequence[Hunk], str | None]:
        _, final, environment_id = stream(deltas)
        return final, environment_id

    return outcome(run)


def update(path: str, *chunks: UpdateFileChunk, move: str | None = None) -> UpdateFile:
    return UpdateFile(path, move, tuple(chunks))


# --- partial shapes (docs/behaviour.md §2.2) ------------------------------------------------------

# (deltas, the snapshot returned after each delta)
PARTIAL_CASES = [
    pytest.param(
        [f"{BEGIN}\n*** Add File: a.txt\n+hel", "lo\n"],
        [(AddFile("a.txt", ""),), (AddFile("a.txt", "hello\n"),)],
        id="add-partial-plus-line-not-counted",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: src/hello.txt\n+hello\n+wor", "ld\n"],
        [(AddFile("src/hello.txt", "hello\n"),), (AddFile("src/hello.txt", "hello\nworld\n"),)],
        id="add-completed-lines-only",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Delete File: gone.txt", "\n"],
        [(), (DeleteFile("gone.txt"),)],
        id="delete-appears-when-line-ends",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: x\n"],
        [(UpdateFile("x", None, ()),)],
        id="update-header-gives-empty-update",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: old\n*** Move to: new\n@@\n-old\n+new\n"],
        [(update("old", UpdateFileChunk(None, ("old",), ("new",)), move="new"),)],
        id="move-example",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: src/one.txt\n+one\n*** Delete File: src/two.txt\n"],
        [(AddFile("src/one.txt", "one\n"), DeleteFile("src/two.txt"))],
        id="add-then-delete",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: f\n@@ ctx", "\n", " a\n-b", "\n+c\n"],
        [
            (UpdateFile("f", None, ()),),
            (update("f", UpdateFileChunk("ctx", (), ())),),
            (update("f", UpdateFileChunk("ctx", ("a",), ("a",), ((0, 0),))),),
            (update("f", UpdateFileChunk("ctx", ("a", "b"), ("a", "c"), ((0, 0),))),),
        ],
        id="update-chunk-grows-line-by-line",
    ),
    pytest.param(
        ["*** Begin", " Patch\n", ""],
        [(), (), ()],
        id="no-hunks-yet",
    ),
]


@pytest.mark.parametrize(("deltas", "expected"), PARTIAL_CASES)
def test_partial_shapes(deltas: list[str], expected: list[tuple[Hunk, ...]]) -> None:
    parser = StreamingPatchParser()
    seen = [tuple(parser.push_delta(delta)) for delta in deltas]
    assert seen == expected


# --- the 7-hunk patch, character by character (docs/behaviour.md §2.2, §9.2) ----------------------

SEVEN_HUNKS = """*** Begin Patch
*** Add File: docs/changelog.md
+# Changelog
+
+## 0.2.0
+- Streaming progress for apply_patch.
+- Snapshots are immutable views.
*** Update File: src/settings.py
@@ class Settings:
-    progress: bool = False
+    stream_progress: bool = True
     diagnostics: bool = False
@@ def default_interval():
-    return 0.5
+    return 0.25
*** Delete File: src/legacy_progress.py
*** Update File: src/cli/main.py
*** Move to: src/cli/entry.py
@@ def run():
-    args = parse_args()
-    return dispatch(args)
+    cli = Cli.parse()
+    return dispatch(cli)
*** Add File: tests/fixtures/progress.json
+{
+  "type": "apply_patch_progress",
+  "hunks": [
+    {"operation": "add", "path": "docs/changelog.md"}
+  ]
+}
*** Update File: README.md
@@ Development
 Run the tests before opening a pull request.
+When touching streamed tool calls, cover partial input.

+Prefer tests that check the exact payload.
*** End of File
*** Delete File: docs/old-progress.md
*** End Patch"""


def hunk_kind(hunk: Hunk) -> str:
    match hunk:
        case AddFile():
            return "add"
        case DeleteFile():
            return "delete"
        case UpdateFile(move_path=None):
            return "update"
        case UpdateFile():
            return "move-update"


def test_seven_hunks_char_by_char() -> None:
    parser = StreamingPatchParser()
    counts_seen: list[int] = []
    highest = 0
    snapshots = []
    for char in SEVEN_HUNKS:
        snapshot = parser.push_delta(char)
        snapshots.append(snapshot)
        assert len(snapshot) >= highest, "hunk count never decreases"
        if len(snapshot) > highest:
            highest = len(snapshot)
            counts_seen.append(highest)
    final = parser.finish()
    assert counts_seen == [1, 2, 3, 4, 5, 6, 7]
    assert [hunk_kind(h) for h in final] == [
        "add",
        "update",
        "delete",
        "move-update",
        "add",
        "update",
        "delete",
    ]
    assert tuple(final) == parse_patch(SEVEN_HUNKS).hunks
    # Every completed hunk of every snapshot is already final.
    for snapshot in snapshots:
        assert list(snapshot)[:-1] == list(final)[: max(len(snapshot) - 1, 0)]


def test_seven_hunks_snapshots_read_late_equal_fresh_parse_of_prefix() -> None:
    """Snapshots kept unread until the end describe the text as it was when they were taken."""
    parser = StreamingPatchParser()
    snapshots = [parser.push_delta(char) for char in SEVEN_HUNKS]
    parser.finish()
    for end, snapshot in enumerate(snapshots, start=1):
        assert snapshot == StreamingPatchParser().push_delta(SEVEN_HUNKS[:end]), end


# --- a large generated patch (docs/behaviour.md §2.2: work per delta, same result however cut) ----


def generate_patch(rng: random.Random, n_hunks: int) -> str:
    """A valid, varied patch of roughly ``12 * n_hunks`` lines."""
    words = ["alpha", "beta", "gamma", "delta", "value", "return", "self", "x", "  indent", "é✓"]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 5)))

    lines = [BEGIN]
    if rng.random() < 0.5:
        lines.append("*** Environment ID: generated")
    for index in range(n_hunks):
        path = f"pkg/mod_{index}/file_{rng.randint(0, 999)}.py"
        kind = rng.choice(["add", "delete", "update", "update", "update"])
        if kind == "add":
            lines.append(f"*** Add File: {path}")
            lines.extend("+" + text() for _ in range(rng.randint(0, 20)))
        elif kind == "delete":
            lines.append(f"*** Delete File: {path}")
        else:
            lines.append(f"*** Update File: {path}")
            if rng.random() < 0.3:
                lines.append(f"*** Move to: moved/{path}")
            for n_chunk in range(rng.randint(1, 4)):
                if n_chunk or rng.random() < 0.8:
                    lines.append(rng.choice(["@@", "@@ def f_" + str(n_chunk) + "():"]))
                for _ in range(rng.randint(1, 8)):
                    # A bare empty line is an empty context line (docs/behaviour.md §1.5 rule 8).
                    lines.append("" if rng.random() < 0.1 else rng.choice(" -+ ") + text())
                if rng.random() < 0.15:
                    lines.append("*** End of File")
                    if rng.random() < 0.5:
                        lines.append("")
    lines.append(END)
    return "\n".join(lines)


LARGE_PATCH = generate_patch(random.Random(20260822), 300)


def test_large_patch_is_large_and_valid() -> None:
    assert LARGE_PATCH.count("\n") > 2000
    assert len(parse_patch(LARGE_PATCH).hunks) == 300


@pytest.mark.parametrize(
    "cut",
    [
        pytest.param("char", id="char-by-char"),
        pytest.param("random-1-64", id="random-chunks-1-to-64"),
        pytest.param("random-1-4096", id="random-chunks-1-to-4096"),
        pytest.param("lines", id="line-by-line"),
        pytest.param("whole", id="whole"),
    ],
)
def test_large_patch_equals_batch_parse(cut: str) -> None:
    if cut == "char":
        deltas = list(LARGE_PATCH)
    elif cut == "lines":
        deltas = LARGE_PATCH.splitlines(keepends=True)
    elif cut == "whole":
        deltas = [LARGE_PATCH]
    else:
        rng = random.Random(cut)
        high = int(cut.rsplit("-", 1)[1])
        deltas, pos = [], 0
        while pos < len(LARGE_PATCH):
            size = rng.randint(1, high)
            deltas.append(LARGE_PATCH[pos : pos + size])
            pos += size
    assert "".join(deltas) == LARGE_PATCH
    parsed = parse_patch(LARGE_PATCH)
    snapshots, final, environment_id = stream(deltas)
    assert tuple(final) == parsed.hunks
    assert environment_id == parsed.environment_id
    counts = [len(s) for s in snapshots]
    assert counts == sorted(counts)


# --- snapshots are immutable views --------------------------------------------------------------

# (text before the snapshot, text fed afterwards, snapshot then, snapshot at the end)
SNAPSHOT_CASES = [
    pytest.param(
        f"{BEGIN}\n*** Add File: a\n+hel\n",
        "+lo\n",
        (AddFile("a", "hel\n"),),
        (AddFile("a", "hel\nlo\n"),),
        id="add-contents",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n-a\n",
        "+b\n",
        (update("f", UpdateFileChunk(None, ("a",), ())),),
        (update("f", UpdateFileChunk(None, ("a",), ("b",))),),
        id="update-chunk-lines",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n a\n",
        " b\n",
        (update("f", UpdateFileChunk(None, ("a",), ("a",), ((0, 0),))),),
        (update("f", UpdateFileChunk(None, ("a", "b"), ("a", "b"), ((0, 0), (1, 1)))),),
        id="context-line-indices",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n-a\n",
        "@@ two\n-b\n",
        (update("f", UpdateFileChunk(None, ("a",), ())),),
        (update("f", UpdateFileChunk(None, ("a",), ()), UpdateFileChunk("two", ("b",), ())),),
        id="new-chunk",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n-a\n@@ two\n",
        "-b\n@@ three\n+c\n",
        (update("f", UpdateFileChunk(None, ("a",), ()), UpdateFileChunk("two", (), ())),),
        (
            update(
                "f",
                UpdateFileChunk(None, ("a",), ()),
                UpdateFileChunk("two", ("b",), ()),
                UpdateFileChunk("three", (), ("c",)),
            ),
        ),
        id="empty-new-chunk-then-more-chunks",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n+x\n",
        "*** End of File\n",
        (update("f", UpdateFileChunk(None, (), ("x",))),),
        (update("f", UpdateFileChunk(None, (), ("x",), (), True)),),
        id="end-of-file-flag",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n+x\n",
        "*** End of File\n@@\n-y\n",
        (update("f", UpdateFileChunk(None, (), ("x",))),),
        (
            update(
                "f",
                UpdateFileChunk(None, (), ("x",), (), True),
                UpdateFileChunk(None, ("y",), ()),
            ),
        ),
        id="end-of-file-flag-then-new-chunk",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: x\n",
        "*** Move to: y\n@@\n-a\n",
        (UpdateFile("x", None, ()),),
        (update("x", UpdateFileChunk(None, ("a",), ()), move="y"),),
        id="move-path",
    ),
    pytest.param(
        f"{BEGIN}\n*** Add File: a\n+x\n",
        "*** Delete File: d\n*** Add File: b\n+y\n",
        (AddFile("a", "x\n"),),
        (AddFile("a", "x\n"), DeleteFile("d"), AddFile("b", "y\n")),
        id="hunk-count",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n-a\n",
        "*** End Patch\n",
        (update("f", UpdateFileChunk(None, ("a",), ())),),
        (update("f", UpdateFileChunk(None, ("a",), ())),),
        id="completed-by-end-patch",
    ),
]


@pytest.mark.parametrize(
    "read_early", [pytest.param(True, id="read-early"), pytest.param(False, id="read-late")]
)
@pytest.mark.parametrize(("before", "after", "then", "now"), SNAPSHOT_CASES)
def test_snapshot_does_not_change(
    before: str, after: str, then: tuple[Hunk, ...], now: tuple[Hunk, ...], read_early: bool
) -> None:
    parser = StreamingPatchParser()
    snapshot = parser.push_delta(before)
    if read_early:
        assert tuple(snapshot) == then
    later = parser.push_delta(after)
    assert tuple(snapshot) == then
    assert tuple(later) == now
    assert tuple(snapshot) == then  # reading the later snapshot changed nothing either


def test_snapshot_is_a_read_only_sequence() -> None:
    parser = StreamingPatchParser()
    snapshot = parser.push_delta(f"{BEGIN}\n*** Delete File: a\n*** Add File: b\n+x\n")
    expected = (DeleteFile("a"), AddFile("b", "x\n"))
    assert isinstance(snapshot, Sequence)
    assert len(snapshot) == 2
    assert snapshot[0] == expected[0]
    assert snapshot[-1] == expected[1]
    assert list(snapshot[0:2]) == list(expected)
    assert list(snapshot[::-1]) == list(expected[::-1])
    assert snapshot == expected
    assert snapshot == list(expected)
    assert snapshot != (DeleteFile("a"),)
    assert snapshot != "not hunks"
    assert parser.hunks == snapshot
    assert "AddFile" in repr(snapshot)
    with pytest.raises(IndexError):
        snapshot[2]
    with pytest.raises(IndexError):
        snapshot[-3]
    with pytest.raises(TypeError):
        hash(snapshot)
    with pytest.raises(TypeError):
        snapshot[0] = DeleteFile("c")  # type: ignore[index]


# --- finish (docs/behaviour.md §2.3) --------------------------------------------------------------

# (deltas, hunks that finish() returns)
FINISH_OK_CASES = [
    pytest.param(
        [f"{BEGIN}\n*** Add File: file.txt\n+hello\n{END}"],
        (AddFile("file.txt", "hello\n"),),
        id="final-end-patch-without-newline",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: file.txt\n@@\n-old\n+new\n *** End Patch"],
        (update("file.txt", UpdateFileChunk(None, ("old",), ("new",))),),
        id="indented-end-patch-inside-update",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: f\n-a\n*** End Patch  \t"],
        (update("f", UpdateFileChunk(None, ("a",), ())),),
        id="padded-end-patch-inside-update",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: a\n+x\n{END}\n"],
        (AddFile("a", "x\n"),),
        id="end-patch-with-newline",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: a\n+x\n{END}\n \t\n  "],
        (AddFile("a", "x\n"),),
        id="whitespace-after-end-patch",
    ),
    pytest.param(
        [f"{BEGIN}\n{END}\n{END}"],
        (),
        id="second-end-patch-as-last-line",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: a", "\n+x\n", END[:5], END[5:]],
        (AddFile("a", "x\n"),),
        id="end-patch-split-across-deltas",
    ),
    pytest.param([END], (), id="lone-unterminated-end-patch-on-fresh-parser"),
]


@pytest.mark.parametrize(("deltas", "hunks"), FINISH_OK_CASES)
def test_finish_accepts(deltas: list[str], hunks: tuple[Hunk, ...]) -> None:
    _, final, _ = stream(deltas)
    assert tuple(final) == hunks


def test_finish_counts_the_unterminated_line() -> None:
    parser = StreamingPatchParser()
    parser.push_delta(f"{BEGIN}\n*** Add File: a\n+x\n{END}")
    assert parser.line_number == 3
    parser.finish()
    assert parser.line_number == 4


# (deltas, message, line number or None for an InvalidPatch error)
FINISH_ERROR_CASES = [
    pytest.param([], LAST_LINE, None, id="nothing-fed"),
    pytest.param([""], LAST_LINE, None, id="empty-delta"),
    pytest.param([BEGIN], LAST_LINE, None, id="unterminated-begin"),
    pytest.param([f"{BEGIN}\n"], LAST_LINE, None, id="begin-only"),
    pytest.param(
        [f"{BEGIN}\n*** Add File: file.txt\n+hello\n"], LAST_LINE, None, id="no-end-patch"
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: file.txt\n+hello"], LAST_LINE, None, id="unterminated-add-line"
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: f\n-a\n"], LAST_LINE, None, id="no-end-patch-in-update"
    ),
    pytest.param(
        [f"{BEGIN}\n*** Add File: a\n+x\n{END}\nextra"], LAST_LINE, None, id="content-after-end"
    ),
    pytest.param(["bad"], FIRST_LINE, None, id="unterminated-bad-first-line"),
    pytest.param([f"{BEGIN}\nbad"], not_a_header("bad"), 2, id="unterminated-bad-header"),
    pytest.param(
        [f"{BEGIN}\n*** Update File: f\n@@\n-a\nbad"],
        expected_marker("bad"),
        5,
        id="unterminated-bad-update-line",
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: f\n@@\n{END}"], NO_LINES, 4, id="end-patch-after-at-at"
    ),
    pytest.param(
        [f"{BEGIN}\n*** Update File: f\n {END}"],
        "Update file hunk for path 'f' is empty",
        2,
        id="end-patch-after-empty-update",
    ),
]


def assert_error(error: ParseError, message: str, line_number: int | None) -> None:
    assert error.message == message
    assert error.line_number == line_number
    if line_number is None:
        assert type(error) is InvalidPatchError
        assert str(error) == f"invalid patch: {message}"
    else:
        assert type(error) is InvalidHunkError
        assert str(error) == f"invalid hunk at line {line_number}, {message}"


@pytest.mark.parametrize(("deltas", "message", "line_number"), FINISH_ERROR_CASES)
def test_finish_rejects(deltas: list[str], message: str, line_number: int | None) -> None:
    parser = StreamingPatchParser()
    for delta in deltas:
        parser.push_delta(delta)
    with pytest.raises(ParseError) as info:
        parser.finish()
    assert_error(info.value, message, line_number)


# --- errors while pushing (docs/behaviour.md §1.7 table of streaming_parser.rs, §9.2) -------------

# (delta, message, line number or None)
PUSH_ERROR_CASES = [
    pytest.param("bad\n", FIRST_LINE, None, id="first-line"),
    pytest.param(f"{BEGIN}\nbad\n", not_a_header("bad"), 2, id="bad-header-after-begin"),
    pytest.param(
        f"{BEGIN}\n*** Add File: file.txt\nbad\n", not_a_header("bad"), 3, id="bad-line-in-add"
    ),
    pytest.param(
        f"{BEGIN}\n*** Delete File: file.txt\nbad\n",
        not_a_header("bad"),
        3,
        id="bad-line-after-delete",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: file.txt\n{END}\n",
        "Update file hunk for path 'file.txt' is empty",
        2,
        id="empty-update",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: old.txt\n*** Move to: new.txt\n*** Delete File: other.txt\n",
        "Update file hunk for path 'old.txt' is empty",
        2,
        id="empty-update-with-move",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: file.txt\n@@\n{END}\n", NO_LINES, 4, id="at-at-then-end"
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: file.txt\n@@\n*** End of File\n",
        NO_LINES,
        4,
        id="at-at-then-end-of-file",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: file.txt\n@@\n@@\n", unexpected("@@"), 4, id="two-at-at"
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: file.txt\n@@\n-old\nbad\n",
        expected_marker("bad"),
        5,
        id="bad-line-after-chunk",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: file.txt\n@@\n*** Update File: other.txt\n",
        unexpected("*** Update File: other.txt"),
        4,
        id="at-at-then-header",
    ),
    pytest.param(
        f"{BEGIN}\n*** Environment ID: first\n*** Environment ID: second\n",
        DUPLICATE_ENV,
        None,
        id="env-duplicate",
    ),
    pytest.param(f"{BEGIN}\n*** Environment ID:   \n", EMPTY_ENV, None, id="env-empty"),
    pytest.param(
        f"{BEGIN}\n*** Add File: file.txt\n+hello\n{END}\nextra\n",
        LAST_LINE,
        None,
        id="content-after-end-patch",
    ),
    pytest.param(
        f"{BEGIN}\r\n*** Update File: f\r\n@@\r\n-a\r\nbad\r\n",
        expected_marker("bad"),
        5,
        id="crlf-message-without-cr",
    ),
    pytest.param(
        f"{BEGIN}\n*** Update File: f\n@@\n-a\nbad\r\r\n",
        expected_marker("bad\r"),
        5,
        id="only-one-cr-dropped",
    ),
]


@pytest.mark.parametrize(
    "char_by_char", [pytest.param(False, id="whole"), pytest.param(True, id="chars")]
)
@pytest.mark.parametrize(("delta", "message", "line_number"), PUSH_ERROR_CASES)
def test_push_delta_rejects(
    delta: str, message: str, line_number: int | None, char_by_char: bool
) -> None:
    parser = StreamingPatchParser()
    deltas = list(delta) if char_by_char else [delta]
    with pytest.raises(ParseError) as info:
        for part in deltas:
            parser.push_delta(part)
    assert_error(info.value, message, line_number)


@pytest.mark.parametrize(
    "later",
    [
        pytest.param(lambda p: p.push_delta(""), id="empty-delta"),
        pytest.param(lambda p: p.push_delta("+more"), id="partial-line"),
        pytest.param(lambda p: p.push_delta("\n"), id="newline"),
        pytest.param(lambda p: p.push_delta(f"{BEGIN}\n*** Add File: z\n"), id="valid-lines"),
        pytest.param(lambda p: p.finish(), id="finish"),
    ],
)
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("bad\n", id="invalid-patch"),
        pytest.param(f"{BEGIN}\n*** Update File: f\n@@\n@@\n", id="invalid-hunk"),
        pytest.param(f"{BEGIN}\n*** Update File: f\n@@\n{END}", id="invalid-hunk-in-finish"),
        pytest.param(f"{BEGIN}\n*** Add File: a\n+x\n", id="missing-end-in-finish"),
    ],
)
def test_error_is_sticky(text: str, later: Callable[[StreamingPatchParser], object]) -> None:
    parser = StreamingPatchParser()
    with pytest.raises(ParseError) as info:
        parser.push_delta(text)
        parser.finish()
    first = info.value
    for _ in range(2):
        with pytest.raises(ParseError) as again:
            later(parser)
        assert type(again.value) is type(first)
        assert str(again.value) == str(first)
        assert again.value.line_number == first.line_number


# --- line endings (docs/behaviour.md §2.2) --------------------------------------------------------

CRLF_STREAM = f"{BEGIN}\r\n*** Update File: file.txt\r\n@@\r\n-old\r\n+new\r\n{END}\r\n"


@pytest.mark.parametrize(
    ("text", "old_line"),
    [
        pytest.param(CRLF_STREAM, "old", id="crlf"),
        pytest.param(CRLF_STREAM.replace("-old\r\n", "-old\r\r\n"), "old\r", id="cr-cr-lf"),
        pytest.param(CRLF_STREAM.replace("-old\r\n", "-old\r\r\r\n"), "old\r\r", id="cr-cr-cr-lf"),
    ],
)
@pytest.mark.parametrize(
    "char_by_char", [pytest.param(False, id="whole"), pytest.param(True, id="chars")]
)
def test_push_delta_drops_one_carriage_return(text: str, old_line: str, char_by_char: bool) -> None:
    _, final, _ = stream(list(text) if char_by_char else [text])
    assert tuple(final) == (update("file.txt", UpdateFileChunk(None, (old_line,), ("new",))),)


def test_parse_patch_drops_two_carriage_returns() -> None:
    text = CRLF_STREAM.replace("-old\r\n", "-old\r\r\n")
    assert parse_patch(text).hunks == (
        update("file.txt", UpdateFileChunk(None, ("old",), ("new",))),
    )


def test_add_contents_always_end_with_lf() -> None:
    _, final, _ = stream([f"{BEGIN}\r\n*** Add File: a\r\n+one\r\n+two\r\n{END}\r\n"])
    assert tuple(final) == (AddFile("a", "one\ntwo\n"),)


# --- streaming and batch agree on errors (docs/behaviour.md §1.7) ---------------------------------

# Canonical texts (Begin first, End last, no outer whitespace): (text, message, line or None)
AGREEMENT_CASES = [
    pytest.param(patch("bad"), not_a_header("bad"), 2, id="bad-header"),
    pytest.param(patch("", "*** Add File: a"), not_a_header(""), 2, id="blank-after-begin"),
    pytest.param(patch("*** Add File: a", "+x", "", "+y"), not_a_header(""), 4, id="blank-in-add"),
    pytest.param(patch("*** Delete File: a", "x"), not_a_header("x"), 3, id="line-after-delete"),
    pytest.param(
        patch("*** Update File: f"), "Update file hunk for path 'f' is empty", 2, id="empty-update"
    ),
    pytest.param(
        patch("*** Update File: f", "*** Move to: g"),
        "Update file hunk for path 'f' is empty",
        2,
        id="update-with-only-move",
    ),
    pytest.param(patch("*** Update File: f", "@@"), NO_LINES, 4, id="at-at-then-end"),
    pytest.param(
        patch("*** Update File: f", "@@", "*** End of File"), NO_LINES, 4, id="at-at-then-eof"
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "@@", "-a"), unexpected("@@"), 4, id="two-at-at"
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "*** Add File: g  "),
        unexpected("*** Add File: g"),
        4,
        id="at-at-then-padded-header",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** End of File", "x"),
        expected_marker("x"),
        5,
        id="line-after-eof",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** Move to: g"),
        expected_marker("*** Move to: g"),
        4,
        id="late-move",
    ),
    pytest.param(patch("*** Update File: f", "\t"), unexpected("\t"), 3, id="tab-line"),
    pytest.param(
        patch("*** Environment ID: a", "*** Environment ID: b"),
        DUPLICATE_ENV,
        None,
        id="env-duplicate",
    ),
    pytest.param(patch("*** Environment ID: "), EMPTY_ENV, None, id="env-empty"),
    pytest.param("\n".join([BEGIN, END, "x", END]), LAST_LINE, None, id="content-after-end-patch"),
    pytest.param(
        "\n".join([BEGIN, "*** Update File: f", "@@", " *** End Patch"]),
        NO_LINES,
        4,
        id="indented-final-end-patch-after-at-at",
    ),
]


@pytest.mark.parametrize(("text", "message", "line_number"), AGREEMENT_CASES)
def test_streaming_errors_agree_with_parse_patch(
    text: str, message: str, line_number: int | None
) -> None:
    assert "\n".join(canonical_patch_lines(text)) == text
    with pytest.raises(ParseError) as batch:
        parse_patch(text)
    assert_error(batch.value, message, line_number)
    assert stream_outcome(list(text)) == batch_outcome(text)


# --- property: any split of any text gives the batch result -------------------------------------

_TEXT = st.text(alphabet="ab *@+-\t\r", max_size=5)
_PATH = st.sampled_from(["a.txt", "dir/b.py", " c", "/abs/d", "e f"])
_NOISE = st.sampled_from(
    [
        "",
        "  ",
        "\t",
        "bad",
        "@@",
        "@@ x",
        "@@@",
        "*** End of File",
        "*** Move to: m",
        "*** Frobnicate File: f",
        " *** Add File: i",
        "*** Add File:x",
        "*** Environment ID: e",
        "*** Environment ID:",
        "*** End Patch",
        " *** End Patch ",
        "*** Begin Patch",
        "*** Delete File: z",
        "+p",
        "-m",
        " c",
        "<<EOF",
        "EOF",
    ]
)


@st.composite
def _hunk_lines(draw: st.DrawFn) -> list[str]:
    kind = draw(st.sampled_from(["add", "delete", "update"]))
    header_pad = draw(st.sampled_from(["", "", "  "]))
    if kind == "add":
        lines = [f"{header_pad}*** Add File: {draw(_PATH)}"]
        lines += ["+" + t for t in draw(st.lists(_TEXT, max_size=3))]
        return lines
    if kind == "delete":
        return [f"{header_pad}*** Delete File: {draw(_PATH)}"]
    lines = [f"{header_pad}*** Update File: {draw(_PATH)}"]
    if draw(st.booleans()):
        lines.append(f"*** Move to: {draw(_PATH)}")
    for index in range(draw(st.integers(1, 3))):
        if index or draw(st.booleans()):
            lines.append(draw(st.sampled_from(["@@", "@@ ", "@@ ctx", "@@   spaced  "])))
        body = st.one_of(st.just(""), st.tuples(st.sampled_from(" +-"), _TEXT).map("".join))
        lines += draw(st.lists(body, min_size=1, max_size=4))
        if draw(st.integers(0, 3)) == 0:
            lines.append("*** End of File")
            lines += draw(st.lists(st.sampled_from(["", "  "]), max_size=2))
    return lines


@st.composite
def patch_texts(draw: st.DrawFn) -> str:
    lines = [draw(st.sampled_from([BEGIN, BEGIN, f" {BEGIN} "]))]
    if draw(st.integers(0, 3)) == 0:
        lines.append("*** Environment ID: " + draw(st.sampled_from(["remote", " x ", ""])))
    for hunk in draw(st.lists(_hunk_lines(), max_size=4)):
        lines += hunk
    lines.append(draw(st.sampled_from([END, END, f"{END}  ", f" {END}"])))
    # Slightly invalid variants: insert, drop or replace a few lines.
    for _ in range(draw(st.integers(0, 2))):
        op = draw(st.sampled_from(["insert", "drop", "replace"]))
        pos = draw(st.integers(0, len(lines)))
        if op == "insert":
            lines.insert(pos, draw(_NOISE))
        elif pos < len(lines):
            if op == "drop":
                del lines[pos]
            else:
                lines[pos] = draw(_NOISE)
    separator = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = separator.join(lines)
    wrapper = draw(st.sampled_from(["none", "none", "newline", "padded", "heredoc"]))
    if wrapper == "newline":
        text += separator
    elif wrapper == "padded":
        text = f"\n  \n{text}\n \t\n"
    elif wrapper == "heredoc":
        opener = draw(st.sampled_from(["<<EOF", "<<'EOF'", '<<"EOF"']))
        text = f"{opener}\n{text}\nEOF\n"
    return text


def _cuts(text: str) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, len(text)), max_size=12)


PROPERTY_SETTINGS = settings(
    derandomize=True,
    max_examples=200,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY_SETTINGS
@given(text=patch_texts(), data=st.data())
def test_any_split_gives_the_batch_result(text: str, data: st.DataObject) -> None:
    # parse_patch only ever raises ParseError: anything else fails the test here.
    batch = batch_outcome(text)
    try:
        canonical = "\n".join(canonical_patch_lines(text))
    except ParseError as error:
        # A boundary error of docs/behaviour.md §1.2: no streaming involved.
        assert batch == ("error", type(error), str(error), error.cli_text, None)
        return
    cuts = data.draw(_cuts(canonical), label="cuts")
    assert stream_outcome(split_at(canonical, cuts)) == batch
    assert stream_outcome(list(canonical)) == batch
    if batch[0] == "ok":
        parsed = parse_patch(text)
        again = parse_patch(render_patch(parsed.hunks, parsed.environment_id))
        assert (again.hunks, again.environment_id) == (parsed.hunks, parsed.environment_id)


@PROPERTY_SETTINGS
@given(text=patch_texts(), data=st.data())
def test_raw_text_split_does_not_matter(text: str, data: st.DataObject) -> None:
    """Fed without normalisation, the result still depends on the text only, not on the cuts."""
    whole = stream_outcome([text])
    final = whole[1] if whole[0] == "ok" else None
    cuts = data.draw(_cuts(text), label="cuts")
    assert stream_outcome(split_at(text, cuts)) == whole
    # Every snapshot's completed hunks are final, and the count never decreases.
    parser = StreamingPatchParser()
    counts = []
    try:
        for delta in split_at(text, cuts):
            snapshot = parser.push_delta(delta)
            counts.append(len(snapshot))
            if isinstance(final, tuple):
                assert tuple(snapshot)[:-1] == final[: max(len(snapshot) - 1, 0)]
    except ParseError:
        assert whole[0] == "error"
    assert counts == sorted(counts)


# --- feed: text taken in now, processed at the next read ------------------------------------


@PROPERTY_SETTINGS
@given(text=patch_texts(), data=st.data())
def test_feed_with_reads_anywhere_gives_what_push_delta_gives(
    text: str, data: st.DataObject
) -> None:
    """Each delta is fed or pushed, and the hunks are read at random points in between."""
    deltas = split_at(text, data.draw(_cuts(text), label="cuts"))
    how = data.draw(
        st.lists(st.sampled_from(["feed", "feed+read", "push"]), min_size=len(deltas)),
        label="how",
    )
    eager = StreamingPatchParser()
    lazy = StreamingPatchParser()
    eager_error = lazy_error = None
    for delta, way in zip(deltas, how, strict=False):
        if eager_error is None:
            try:
                eager.push_delta(delta)
            except ParseError as exc:
                eager_error = exc
        try:
            got: HunkSnapshot | None
            if way == "push":
                got = lazy.push_delta(delta)
            else:
                lazy.feed(delta)
                got = lazy.snapshot() if way == "feed+read" else None
            if got is not None and eager_error is None:
                assert list(got) == list(eager.snapshot())
        except ParseError as exc:
            lazy_error = exc
            break
    if lazy_error is None:
        try:
            lazy.finish()
        except ParseError as exc:
            lazy_error = exc
    if eager_error is None:
        try:
            eager.finish()
        except ParseError as exc:
            eager_error = exc
    assert (type(lazy_error), str(lazy_error)) == (type(eager_error), str(eager_error))
    if lazy_error is None:
        assert list(lazy.snapshot()) == list(eager.snapshot())
        assert lazy.line_number == eager.line_number


def test_feed_keeps_text_until_read_and_raises_there() -> None:
    parser = StreamingPatchParser()
    for char in f"{BEGIN}\n*** Add File: a\n+x\nbad\n":
        parser.feed(char)
    assert parser._buffer  # nothing processed yet
    with pytest.raises(InvalidHunkError) as info:
        parser.snapshot()
    assert info.value.line_number == 4
    with pytest.raises(InvalidHunkError):
        parser.finish()


def test_a_snapshot_read_before_more_feeding_does_not_change() -> None:
    parser = StreamingPatchParser()
    parser.feed(f"{BEGIN}\n*** Add File: a\n+1\n")
    before = parser.snapshot()
    parser.feed("+2\n")
    parser.feed("+3\n*** End Patch\n")
    assert list(before) == [AddFile("a", "1\n")]
    assert list(parser.finish()) == [AddFile("a", "1\n2\n3\n")]
