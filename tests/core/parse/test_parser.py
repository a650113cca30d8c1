"""Tests of :mod:`applypatch_ext.core.parse.parser` against docs/behaviour.md §1 and §9.2.

Expected texts are written out from docs/behaviour.md §1.7 rather than imported from the code, so
that a wrong constant in the parser shows up here. Line numbers are those of the canonical text:
after the outer trim and after removal of a heredoc wrapper (§1.7).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from applypatch_ext.core.errors import InvalidHunkError, InvalidPatchError, ParseError
from applypatch_ext.core.parse.model import (
    AddFile,
    DeleteFile,
    Hunk,
    ParsedPatch,
    UpdateFile,
    UpdateFileChunk,
    render_patch,
)
from applypatch_ext.core.parse.parser import canonical_patch_lines, parse_patch

from ...scenarios import REFERENCE_SCENARIOS, reference_params
from ..spec_texts import (
    BEGIN,
    DUPLICATE_ENV,
    EMPTY_ENV,
    END,
    FIRST_LINE,
    LAST_LINE,
    NO_LINES,
    empty_update,
    expected_marker,
    not_a_header,
    patch,
    unexpected,
)


def chunk(*diff_lines: str, context: str | None = None, eof: bool = False) -> UpdateFileChunk:
    """The chunk that the given ``' '``/``'-'``/``'+'``/empty lines describe (docs/behaviour.md
    §1.8)."""
    old: list[str] = []
    new: list[str] = []
    indices: list[tuple[int, int]] = []
    for line in diff_lines:
        kind, text = line[:1], line[1:]
        if kind in ("", " "):
            indices.append((len(old), len(new)))
            old.append(text)
            new.append(text)
        elif kind == "-":
            old.append(text)
        elif kind == "+":
            new.append(text)
        else:  # pragma: no cover - a mistake in a test table
            raise AssertionError(f"not a diff line: {line!r}")
    return UpdateFileChunk(context, tuple(old), tuple(new), tuple(indices), eof)


def update(path: str, *chunks: UpdateFileChunk, move: str | None = None) -> UpdateFile:
    return UpdateFile(path, move, tuple(chunks))


# --- errors (docs/behaviour.md §1.2, §1.5, §1.6, §1.7) --------------------------------------------

# (text, message, line number); a line number of None means an InvalidPatch (whole-patch) error.
ERROR_CASES = [
    # 1.2 boundary rules
    pytest.param("bad", FIRST_LINE, None, id="first-line-bad"),
    pytest.param(f"{BEGIN}\nbad", LAST_LINE, None, id="begin-then-bad-is-last-line-error"),
    pytest.param("", LAST_LINE, None, id="empty-text"),
    pytest.param(" \n\t\n  ", LAST_LINE, None, id="whitespace-only-text"),
    pytest.param(BEGIN, LAST_LINE, None, id="lone-begin"),
    pytest.param(f"{BEGIN}\n", LAST_LINE, None, id="lone-begin-with-newline"),
    pytest.param(END, FIRST_LINE, None, id="lone-end"),
    pytest.param(f"{END}\n{BEGIN}", FIRST_LINE, None, id="end-before-begin"),
    pytest.param(f"{BEGIN}\n*** Add File: a\n+x", LAST_LINE, None, id="missing-end"),
    pytest.param(f"{BEGIN}\n{END}x", LAST_LINE, None, id="end-marker-with-suffix"),
    pytest.param(f"{BEGIN}\r{END}", FIRST_LINE, None, id="lone-cr-is-not-a-line-break"),
    pytest.param(f"x{BEGIN}\n{END}", FIRST_LINE, None, id="begin-marker-with-prefix"),
    # 1.2 step 3: the lenient heredoc retry
    pytest.param(
        "<<EOF\n*** Begin Patch\n*** Update File: f\nEOF\n",
        LAST_LINE,
        None,
        id="heredoc-inner-missing-end",
    ),
    pytest.param(
        "<<EOF\nbad\n*** End Patch\nEOF", FIRST_LINE, None, id="heredoc-inner-missing-begin"
    ),
    pytest.param(
        "<<\"EOF'\n*** Begin Patch\n*** End Patch\nEOF",
        FIRST_LINE,
        None,
        id="heredoc-mismatched-quotes-not-unwrapped",
    ),
    pytest.param(
        "<<EOF \n*** Begin Patch\n*** End Patch\nEOF",
        FIRST_LINE,
        None,
        id="heredoc-opener-with-trailing-space-not-unwrapped",
    ),
    pytest.param(
        "<<-EOF\n*** Begin Patch\n*** End Patch\nEOF", FIRST_LINE, None, id="heredoc-dash"
    ),
    pytest.param(
        "<<EOF\n*** Begin Patch\n*** End Patch\nEND",
        FIRST_LINE,
        None,
        id="heredoc-closer-not-ending-with-eof",
    ),
    pytest.param("<<EOF\n*** Begin Patch\nEOF", FIRST_LINE, None, id="heredoc-three-lines"),
    pytest.param("<<EOF\nEOF", FIRST_LINE, None, id="heredoc-two-lines"),
    # environment id (1.4)
    pytest.param(
        patch("*** Environment ID:   ", "*** Add File: a", "+x"), EMPTY_ENV, None, id="env-blank"
    ),
    pytest.param(patch("*** Environment ID:"), EMPTY_ENV, None, id="env-empty-no-space"),
    pytest.param(
        patch("*** Environment ID: first", "*** Environment ID: second"),
        DUPLICATE_ENV,
        None,
        id="env-duplicate",
    ),
    pytest.param(
        patch("*** Environment ID: same", "*** Environment ID: same"),
        DUPLICATE_ENV,
        None,
        id="env-duplicate-same-value",
    ),
    pytest.param(
        patch("*** Add File: a", "+x", "*** Environment ID: remote"),
        not_a_header("*** Environment ID: remote"),
        4,
        id="env-after-add-hunk",
    ),
    pytest.param(
        patch("*** Delete File: a", "*** Environment ID: remote"),
        not_a_header("*** Environment ID: remote"),
        3,
        id="env-after-delete-hunk",
    ),
    pytest.param(
        patch("*** Update File: a", "-x", "*** Environment ID: remote"),
        expected_marker("*** Environment ID: remote"),
        4,
        id="env-after-update-hunk",
    ),
    # 1.6 header mode: right after Begin (and after an Environment line)
    pytest.param(patch("bad"), not_a_header("bad"), 2, id="bad-header-after-begin"),
    pytest.param(
        patch("*** Frobnicate File: foo"),
        not_a_header("*** Frobnicate File: foo"),
        2,
        id="unknown-marker",
    ),
    pytest.param(
        patch("*** Add File:a"), not_a_header("*** Add File:a"), 2, id="add-marker-without-space"
    ),
    pytest.param(patch("", "*** Add File: a"), not_a_header(""), 2, id="blank-line-after-begin"),
    pytest.param(patch("  bad \t"), not_a_header("bad"), 2, id="header-error-shows-trimmed-line"),
    pytest.param(
        patch("*** Environment ID: r", "bad"), not_a_header("bad"), 3, id="bad-header-after-env"
    ),
    pytest.param(patch(BEGIN), not_a_header(BEGIN), 2, id="second-begin"),
    pytest.param(
        patch("\x1c*** Add File: a"),
        not_a_header("\x1c*** Add File: a"),
        2,
        id="rust-trim-keeps-information-separator",
    ),
    # 1.6 Add and Delete modes
    pytest.param(patch("*** Add File: a", "bad"), not_a_header("bad"), 3, id="add-bad-line"),
    pytest.param(
        patch("*** Add File: a", "+x", "", "+y"), not_a_header(""), 4, id="blank-line-in-add"
    ),
    pytest.param(
        patch("*** Add File: a", "+x", "", "*** Delete File: b"),
        not_a_header(""),
        4,
        id="blank-line-after-add",
    ),
    pytest.param(patch("*** Add File: a", " x"), not_a_header("x"), 3, id="context-line-in-add"),
    pytest.param(patch("*** Delete File: a", "bad"), not_a_header("bad"), 3, id="delete-bad-line"),
    pytest.param(
        patch("*** Delete File: a", "", "*** Delete File: b"),
        not_a_header(""),
        3,
        id="blank-line-after-delete",
    ),
    pytest.param(
        patch("*** Delete File: a", "+x"), not_a_header("+x"), 3, id="plus-line-after-delete"
    ),
    # 1.6 closing checks of an Update hunk
    pytest.param(
        patch("*** Update File: file.txt"), empty_update("file.txt"), 2, id="empty-update-at-end"
    ),
    pytest.param(
        patch("*** Update File: old.txt", "*** Move to: new.txt", "*** Delete File: other.txt"),
        empty_update("old.txt"),
        2,
        id="empty-update-with-only-move-then-header",
    ),
    pytest.param(
        patch("*** Update File: old.txt", "*** Move to: new.txt"),
        empty_update("old.txt"),
        2,
        id="empty-update-with-only-move-then-end",
    ),
    pytest.param(
        patch("*** Add File: a", "+x", "*** Update File: b", "*** Update File: c", " y"),
        empty_update("b"),
        4,
        id="empty-update-reported-at-its-header-line",
    ),
    pytest.param(patch("*** Update File: f", "@@"), NO_LINES, 4, id="at-at-then-end-patch"),
    pytest.param(
        patch("*** Update File: f", "@@ ctx", "-a", "@@"),
        NO_LINES,
        6,
        id="second-at-at-then-end-patch",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "*** Update File: other.txt", "-x"),
        unexpected("*** Update File: other.txt"),
        4,
        id="at-at-then-update-header",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "*** Add File: x  \t", "+y"),
        unexpected("*** Add File: x"),
        4,
        id="at-at-then-padded-add-header-shown-right-trimmed",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "*** Delete File: x"),
        unexpected("*** Delete File: x"),
        4,
        id="at-at-then-delete-header",
    ),
    # 1.5 rules 2-10
    pytest.param(
        patch("*** Update File: f", "@@", "+quux", "*** End of File", "+more"),
        expected_marker("+more"),
        6,
        id="rule2-diff-line-after-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "+quux", "*** End of File", "", "  ", "bad"),
        expected_marker("bad"),
        8,
        id="rule2-bad-line-after-skipped-blanks",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** End of File", " b"),
        expected_marker(" b"),
        5,
        id="rule2-context-line-after-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** End of File", "*** End of File"),
        expected_marker("*** End of File"),
        5,
        id="rule2-second-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** End of File", "@@@"),
        expected_marker("@@@"),
        5,
        id="rule2-triple-at-after-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** End of File", "*** Move to: g"),
        expected_marker("*** Move to: g"),
        5,
        id="rule2-move-after-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: f", "*** Move to: g", "*** Move to: h", "-a"),
        unexpected("*** Move to: h"),
        4,
        id="rule3-second-move-without-chunk",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "*** Move to: g", "-a"),
        unexpected("*** Move to: g"),
        4,
        id="rule3-move-after-empty-chunk",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a", "*** Move to: g"),
        expected_marker("*** Move to: g"),
        5,
        id="rule3-move-after-chunk-lines",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "@@", "-a"), unexpected("@@"), 4, id="rule4-two-at-at"
    ),
    pytest.param(
        patch("*** Update File: f", "@@ one", "@@ two", "-a"),
        unexpected("@@ two"),
        4,
        id="rule4-two-at-at-with-context",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a", "@@ x", "@@ y  ", "-b"),
        unexpected("@@ y  "),
        6,
        id="rule4-two-at-at-later-shows-raw-line",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "*** End of File"),
        NO_LINES,
        4,
        id="rule7-end-of-file-right-after-at-at",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a", "@@ c", "*** End of File  "),
        NO_LINES,
        6,
        id="rule7-end-of-file-right-after-second-at-at",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-old", "bad"),
        expected_marker("bad"),
        5,
        id="rule10-bad-line-after-chunk-lines",
    ),
    pytest.param(
        patch("*** Update File: f", "bad"), unexpected("bad"), 3, id="rule10-bad-first-line"
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "bad"),
        unexpected("bad"),
        4,
        id="rule10-bad-line-in-empty-chunk",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a", "\t"),
        expected_marker("\t"),
        5,
        id="rule10-tab-line-is-not-context",
    ),
    pytest.param(
        patch("*** Update File: f", "\t"), unexpected("\t"), 3, id="rule10-tab-line-first"
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "@@@"), expected_marker("@@@"), 4, id="rule10-triple-at"
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "@@x"), expected_marker("@@x"), 4, id="rule10-at-at-x"
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** Frobnicate File: g"),
        expected_marker("*** Frobnicate File: g"),
        4,
        id="rule10-unknown-marker-inside-update",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** Add File:x"),
        expected_marker("*** Add File:x"),
        4,
        id="rule10-add-marker-without-space-inside-update",
    ),
    # content after End Patch (1.6)
    pytest.param(
        "\n".join([BEGIN, "*** Add File: a", "+x", END, "extra", END]),
        LAST_LINE,
        None,
        id="content-after-end-patch",
    ),
    pytest.param(
        "\n".join([BEGIN, END, "*** Add File: a", END]),
        LAST_LINE,
        None,
        id="header-after-end-patch",
    ),
    # line numbers count the canonical text only (1.7)
    pytest.param(
        "\n\n  \n" + patch("bad") + "\n\n", not_a_header("bad"), 2, id="leading-blank-lines"
    ),
    pytest.param(
        "<<'EOF'\n" + patch("*** Add File: a", "+x", "", "+y") + "\nEOF\n",
        not_a_header(""),
        4,
        id="line-number-after-heredoc-removal",
    ),
    pytest.param(
        "  <<EOF\n" + patch("*** Update File: f") + "\nEOF",
        empty_update("f"),
        2,
        id="heredoc-after-outer-trim",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a", "bad").replace("\n", "\r\n") + "\r\n",
        expected_marker("bad"),
        5,
        id="crlf-error-text-without-cr",
    ),
]


@pytest.mark.parametrize(("text", "message", "line_number"), ERROR_CASES)
def test_parse_errors(text: str, message: str, line_number: int | None) -> None:
    with pytest.raises(ParseError) as info:
        parse_patch(text)
    error = info.value
    assert error.message == message
    assert error.line_number == line_number
    if line_number is None:
        assert type(error) is InvalidPatchError
        assert str(error) == f"invalid patch: {message}"
        assert error.cli_text == f"Invalid patch: {message}"
    else:
        assert type(error) is InvalidHunkError
        assert str(error) == f"invalid hunk at line {line_number}, {message}"
        assert error.cli_text == f"Invalid patch hunk on line {line_number}: {message}"


def test_error_texts_byte_for_byte() -> None:
    """Two full texts written out once, so that the helpers above cannot hide a typo."""
    with pytest.raises(InvalidHunkError) as info:
        parse_patch("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n")
    assert str(info.value) == (
        "invalid hunk at line 2, '*** Frobnicate File: foo' is not a valid hunk header. "
        "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', "
        "'*** Update File: {path}'"
    )
    with pytest.raises(InvalidHunkError) as info:
        parse_patch("*** Begin Patch\n*** Update File: f\n@@\n@@\n*** End Patch")
    assert info.value.cli_text == (
        "Invalid patch hunk on line 4: Unexpected line found in update hunk: '@@'. Every line "
        "should start with ' ' (context line), '+' (added line), or '-' (removed line)"
    )
    with pytest.raises(InvalidPatchError) as patch_info:
        parse_patch("bad")
    assert patch_info.value.cli_text == (
        "Invalid patch: The first line of the patch must be '*** Begin Patch'"
    )


@pytest.mark.parametrize(
    "error_type",
    [
        pytest.param(ParseError, id="ParseError"),
        pytest.param(InvalidPatchError, id="InvalidPatchError"),
        pytest.param(InvalidHunkError, id="InvalidHunkError"),
    ],
)
def test_parse_errors_are_value_errors(error_type: type[ParseError]) -> None:
    assert issubclass(error_type, ValueError)
    assert issubclass(error_type, ParseError)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("bad", id="invalid-patch"),
        pytest.param(patch("bad"), id="invalid-hunk"),
    ],
)
def test_parse_errors_can_be_caught_as_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_patch(text)


# --- valid patches ------------------------------------------------------------------------------

FULL_EXAMPLE = """*** Begin Patch
*** Add File: path/add.py
+abc
+def
*** Delete File: path/delete.py
*** Update File: path/update.py
*** Move to: path/update2.py
@@ def f():
-    pass
+    return 123
*** End Patch"""

# (text, hunks, environment id)
VALID_CASES = [
    pytest.param(patch(), (), None, id="begin-end-only"),
    pytest.param(
        FULL_EXAMPLE,
        (
            AddFile("path/add.py", "abc\ndef\n"),
            DeleteFile("path/delete.py"),
            UpdateFile(
                "path/update.py",
                "path/update2.py",
                (
                    UpdateFileChunk(
                        change_context="def f():",
                        old_lines=("    pass",),
                        new_lines=("    return 123",),
                        context_line_indices=(),
                        is_end_of_file=False,
                    ),
                ),
            ),
        ),
        None,
        id="behaviour-9.2-full-example",
    ),
    pytest.param(
        patch("*** Update File: file2.py", " import foo", "+bar", "*** Add File: other.py", "+x"),
        (
            UpdateFile(
                "file2.py",
                None,
                (UpdateFileChunk(None, ("import foo",), ("import foo", "bar"), ((0, 0),)),),
            ),
            AddFile("other.py", "x\n"),
        ),
        None,
        id="update-followed-by-add",
    ),
    pytest.param(
        patch("*** Update File: file2.py", " import foo", "+bar"),
        (update("file2.py", chunk(" import foo", "+bar")),),
        None,
        id="first-chunk-without-at-at",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "+b", "@@ next", "-c", "+d"),
        (update("f", chunk("-a", "+b"), chunk("-c", "+d", context="next")),),
        None,
        id="first-chunk-without-at-at-then-second-with",
    ),
    pytest.param(
        patch("*** Update File: mix.txt", "@@", " a", "-x", "+x", "+y", " b", "-z", " c", "+tail"),
        (
            UpdateFile(
                "mix.txt",
                None,
                (
                    UpdateFileChunk(
                        change_context=None,
                        old_lines=("a", "x", "b", "z", "c"),
                        new_lines=("a", "x", "y", "b", "c", "tail"),
                        context_line_indices=((0, 0), (2, 3), (4, 4)),
                        is_end_of_file=False,
                    ),
                ),
            ),
        ),
        None,
        id="context-line-indices-tell-context-from-minus-plus-pair",
    ),
    # 1.4 whitespace-padded markers
    pytest.param(
        " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch ",
        (update("file.txt", chunk("-one", "+two")),),
        None,
        id="padded-begin-and-end-outer",
    ),
    pytest.param(
        "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch",
        (update("file.txt", chunk("-one", "+two")),),
        None,
        id="padded-begin-and-end-inner-end-inside-update",
    ),
    pytest.param(
        patch("  *** Update File: foo.txt", "@@", "-old", "+new"),
        (update("foo.txt", chunk("-old", "+new")),),
        None,
        id="indented-update-header-after-begin",
    ),
    pytest.param(
        patch("*** Add File: a", "+x", "\t*** Delete File: b  ", "\u3000*** Add File: c\u2003"),
        (AddFile("a", "x\n"), DeleteFile("b"), AddFile("c", "")),
        None,
        id="padded-headers-after-add-and-delete",
    ),
    pytest.param(
        "\n".join([BEGIN, "*** Add File: a", "+x", "  *** End Patch"]),
        (AddFile("a", "x\n"),),
        None,
        id="indented-end-patch-after-add",
    ),
    pytest.param(
        patch("*** Add File: a\r+x", "+y\x0bz\x0c\x1c\x85\u2028w"),
        (AddFile("a\r+x", "y\x0bz\x0c\x1c\x85\u2028w\n"),),
        None,
        id="only-lf-breaks-lines",
    ),
    pytest.param(
        patch("*** Add File:  x"), (AddFile(" x", ""),), None, id="path-keeps-extra-leading-space"
    ),
    pytest.param(
        patch("*** Delete File: x \t", "*** Add File: y  "),
        (DeleteFile("x"), AddFile("y", "")),
        None,
        id="path-trailing-whitespace-dropped",
    ),
    pytest.param(
        patch("*** Update File: f  ", "*** Move to:  g \t", "-a"),
        (update("f", chunk("-a"), move=" g"),),
        None,
        id="move-path-keeps-leading-drops-trailing-space",
    ),
    pytest.param(
        patch("*** Update File: a", "-x", "*** Update File: b  ", "-y"),
        (update("a", chunk("-x")), update("b", chunk("-y"))),
        None,
        id="header-inside-update-right-trimmed",
    ),
    pytest.param(
        patch("*** Add File: a b/c d.txt", "+x"),
        (AddFile("a b/c d.txt", "x\n"),),
        None,
        id="path-with-inner-spaces",
    ),
    # inside an Update hunk indented markers are context lines (1.4)
    pytest.param(
        patch(
            "*** Update File: a.txt",
            "@@",
            "-old a",
            "+new a",
            " *** Update File: b.txt",
            "@@",
            "-old b",
            "+new b",
        ),
        (
            update(
                "a.txt",
                chunk("-old a", "+new a", " *** Update File: b.txt"),
                chunk("-old b", "+new b"),
            ),
        ),
        None,
        id="indented-update-header-is-context",
    ),
    pytest.param(
        patch(
            "*** Update File: f",
            "-a",
            " *** Add File: g",
            " *** Delete File: h",
            " *** End Patch",
            " *** End of File",
            " *** Move to: i",
            "  @@",
            " @@ x",
        ),
        (
            update(
                "f",
                chunk(
                    "-a",
                    " *** Add File: g",
                    " *** Delete File: h",
                    " *** End Patch",
                    " *** End of File",
                    " *** Move to: i",
                    "  @@",
                    " @@ x",
                ),
            ),
        ),
        None,
        id="indented-markers-are-context",
    ),
    pytest.param(
        patch("*** Update File: f", "*** Move to: g", "@@", "-a", "+b"),
        (update("f", chunk("-a", "+b"), move="g"),),
        None,
        id="move-as-first-line",
    ),
    pytest.param(
        patch("*** Update File: f", "*** Move to: g", "-a"),
        (update("f", chunk("-a"), move="g"),),
        None,
        id="move-then-chunk-without-at-at",
    ),
    # 1.5 rules 5-9
    pytest.param(
        patch("*** Update File: f", "@@   def f():  \t", " x"),
        (update("f", chunk(" x", context="  def f():")),),
        None,
        id="rule6-context-keeps-leading-spaces",
    ),
    pytest.param(
        patch("*** Update File: f", "@@ ", "-a", "@@\t", "-b"),
        (update("f", chunk("-a"), chunk("-b")),),
        None,
        id="rule5-at-at-with-trailing-whitespace-has-no-context",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", " context before", "", " context after"),
        (update("f", chunk(" context before", "", " context after")),),
        None,
        id="rule8-blank-line-is-empty-context",
    ),
    pytest.param(
        patch("*** Update File: f", "", "-a"),
        (update("f", chunk("", "-a")),),
        None,
        id="rule8-blank-line-starts-first-chunk",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "  ", " ", "-a"),
        (update("f", chunk("  ", " ", "-a")),),
        None,
        id="rule9-whitespace-only-lines-are-context",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "+", "-", " "),
        (update("f", chunk("+", "-", " ")),),
        None,
        id="rule9-bare-markers-are-empty-lines",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a  ", "+b\t", " c "),
        (update("f", chunk("-a  ", "+b\t", " c ")),),
        None,
        id="rule9-diff-lines-keep-trailing-whitespace",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "+quux", "*** End of File", "", "  "),
        (update("f", chunk("+quux", eof=True)),),
        None,
        id="rule2-blank-lines-after-end-of-file-skipped",
    ),
    pytest.param(
        patch(
            "*** Update File: f",
            "@@",
            "-a",
            "*** End of File",
            "",
            "@@ again",
            "-b",
            "*** End of File",
        ),
        (update("f", chunk("-a", eof=True), chunk("-b", context="again", eof=True)),),
        None,
        id="rule2-new-chunk-after-end-of-file",
    ),
    pytest.param(
        patch("*** Update File: f", "-a", "*** End of File  ", "*** Delete File: g"),
        (update("f", chunk("-a", eof=True)), DeleteFile("g")),
        None,
        id="rule7-end-of-file-right-trimmed-then-header",
    ),
    pytest.param(
        patch("*** Update File: f", "*** End of File", "@@", "-a"),
        (update("f", chunk("-a")),),
        None,
        id="rule7-end-of-file-without-chunk-ignored",
    ),
    pytest.param(
        patch("*** Update File: f", "@@", "-a", "+b", "", "*** Delete File: g"),
        (update("f", chunk("-a", "+b", "")), DeleteFile("g")),
        None,
        id="blank-separator-becomes-trailing-empty-context",
    ),
    # Add hunks
    pytest.param(
        patch("*** Add File: empty.txt"), (AddFile("empty.txt", ""),), None, id="add-zero-lines"
    ),
    pytest.param(
        patch("*** Add File: e1", "*** Add File: e2"),
        (AddFile("e1", ""), AddFile("e2", "")),
        None,
        id="two-empty-adds",
    ),
    pytest.param(
        patch("*** Add File: a", "+", "+  x  ", "++y", "+*** End Patch", "+-z"),
        (AddFile("a", "\n  x  \n+y\n*** End Patch\n-z\n"),),
        None,
        id="add-lines-verbatim",
    ),
    pytest.param(
        patch("*** Add File: a", "+naïve café ✅"),
        (AddFile("a", "naïve café ✅\n"),),
        None,
        id="add-unicode",
    ),
    # paths
    pytest.param(
        patch(
            "*** Add File: rel/a.txt",
            "+x",
            "*** Delete File: /abs/b.txt",
            "*** Update File: ../up/c.txt",
            "*** Move to: /abs/d.txt",
            "-y",
        ),
        (
            AddFile("rel/a.txt", "x\n"),
            DeleteFile("/abs/b.txt"),
            update("../up/c.txt", chunk("-y"), move="/abs/d.txt"),
        ),
        None,
        id="relative-and-absolute-paths",
    ),
    # environment id
    pytest.param(
        patch("*** Environment ID: remote", "*** Add File: src/hello.txt", "+hello"),
        (AddFile("src/hello.txt", "hello\n"),),
        "remote",
        id="env-id",
    ),
    pytest.param(
        patch("*** Environment ID:remote"), (), "remote", id="env-id-without-space-after-colon"
    ),
    pytest.param(
        patch("  *** Environment ID: \t my env \u3000", "*** Delete File: a"),
        (DeleteFile("a"),),
        "my env",
        id="env-id-trimmed",
    ),
    # content after End Patch: whitespace-only lines are allowed (1.6)
    pytest.param(
        "\n".join([BEGIN, "*** Add File: a", "+x", END, " \t", "", END]),
        (AddFile("a", "x\n"),),
        None,
        id="whitespace-lines-after-end-patch",
    ),
]


@pytest.mark.parametrize(("text", "hunks", "environment_id"), VALID_CASES)
def test_parse_valid(text: str, hunks: tuple[Hunk, ...], environment_id: str | None) -> None:
    parsed = parse_patch(text)
    assert parsed.hunks == hunks
    assert parsed.environment_id == environment_id
    assert parsed.workdir is None


EOF_EXAMPLE = patch("*** Update File: f", "@@", "+quux", "*** End of File", "")


def test_canonical_patch_of_end_of_file_example_equals_input() -> None:
    parsed = parse_patch(EOF_EXAMPLE)
    assert parsed.hunks == (update("f", chunk("+quux", eof=True)),)
    assert parsed.patch == EOF_EXAMPLE
    assert str(parsed) == EOF_EXAMPLE


def test_parsed_patch_is_a_sequence_of_its_hunks() -> None:
    parsed = parse_patch(FULL_EXAMPLE)
    assert len(parsed) == 3
    assert tuple(parsed) == parsed.hunks
    assert [h.kind for h in parsed] == ["add", "delete", "update"]
    assert [h.target_path for h in parsed] == ["path/add.py", "path/delete.py", "path/update2.py"]


# --- outer normalisation and the canonical text (docs/behaviour.md §1.2) --------------------------

INNER = patch("*** Add File: a.txt", "+hello")

# (text, canonical text)
CANONICAL_CASES = [
    pytest.param(INNER, INNER, id="already-canonical"),
    pytest.param(INNER + "\n", INNER, id="trailing-newline"),
    pytest.param("\n\n \t" + INNER + "\n \n", INNER, id="outer-whitespace"),
    pytest.param(INNER.replace("\n", "\r\n") + "\r\n", INNER, id="crlf"),
    pytest.param(INNER.replace("\n", "\r\n", 1), INNER, id="mixed-crlf-lf"),
    pytest.param(f"<<EOF\n{INNER}\nEOF\n", INNER, id="heredoc-unquoted"),
    pytest.param(f"<<'EOF'\n{INNER}\nEOF\n", INNER, id="heredoc-single-quoted"),
    pytest.param(f'<<"EOF"\n{INNER}\nEOF', INNER, id="heredoc-double-quoted"),
    pytest.param(f"<<'EOF'\r\n{INNER}\r\nEOF\r\n", INNER, id="heredoc-crlf"),
    pytest.param(f"  <<EOF\n{INNER}\nEOF  \n", INNER, id="heredoc-outer-whitespace"),
    pytest.param(f"<<EOF\n{INNER}\nxEOF", INNER, id="heredoc-closer-only-ends-with-eof"),
    pytest.param(f"<<EOF\n  {INNER}  \nEOF", f"  {INNER}  ", id="heredoc-inner-padding-kept"),
    pytest.param(f"<<EOF\n{patch()}\nEOF", patch(), id="heredoc-exactly-four-lines"),
    pytest.param(EOF_EXAMPLE, EOF_EXAMPLE, id="inner-blank-line-kept"),
]


@pytest.mark.parametrize(("text", "canonical"), CANONICAL_CASES)
def test_canonical_patch_text(text: str, canonical: str) -> None:
    assert "\n".join(canonical_patch_lines(text)) == canonical
    parsed = parse_patch(text)
    assert parsed.patch == canonical
    assert str(parsed) == canonical
    assert parsed.hunks == parse_patch(canonical).hunks


CRLF_TEXT = (
    "*** Begin Patch\r\n*** Update File: file.txt\r\n@@\r\n-old\r\n+new\r\n*** End Patch\r\n"
)


def test_crlf_patch_text_loses_carriage_returns() -> None:
    parsed = parse_patch(CRLF_TEXT)
    assert parsed.hunks == (update("file.txt", chunk("-old", "+new")),)
    assert parsed.patch == CRLF_TEXT.replace("\r\n", "\n").rstrip("\n")


def cr_text(line_end: str) -> str:
    return f"*** Begin Patch\n*** Update File: f\n@@\n-old{line_end}+new\n*** End Patch\n"


# (line end after "-old", the old line parsed)
CR_CASES = [
    pytest.param("\n", "old", id="lf"),
    pytest.param("\r\n", "old", id="crlf"),
    pytest.param("\r\r\n", "old", id="two-cr-both-dropped"),
    pytest.param("\r\r\r\n", "old\r", id="three-cr-one-kept"),
]


@pytest.mark.parametrize(("line_end", "expected_old"), CR_CASES)
def test_carriage_returns_before_newline(line_end: str, expected_old: str) -> None:
    # Rust-lines drops one CR (docs/behaviour.md §1.2 step 1), the streaming parser another (§2.2).
    assert parse_patch(cr_text(line_end)).hunks == (
        UpdateFile("f", None, (UpdateFileChunk(None, (expected_old,), ("new",)),)),
    )


# --- render_patch round trip and str() ---------------------------------------------------------

ALL_VALID_TEXTS = [
    *(pytest.param(p.values[0], id=f"valid-{p.id}") for p in VALID_CASES),
    *(pytest.param(p.values[0], id=f"canonical-{p.id}") for p in CANONICAL_CASES),
    *(pytest.param(cr_text(str(p.values[0])), id=f"cr-{p.id}") for p in CR_CASES),
    pytest.param(CRLF_TEXT, id="crlf-text"),
    pytest.param(
        patch("*** Add File: a", "+x\r\r\r", "+\r\r\r", "+y\r"), id="add-lines-ending-with-cr"
    ),
]


@pytest.mark.parametrize("text", ALL_VALID_TEXTS)
def test_render_patch_round_trip(text: str) -> None:
    parsed = parse_patch(text)
    rendered = render_patch(parsed.hunks, parsed.environment_id)
    again = parse_patch(rendered)
    assert again.hunks == parsed.hunks
    assert again.environment_id == parsed.environment_id
    # Rendering is a fixed point after one round.
    assert render_patch(again.hunks, again.environment_id) == rendered


@pytest.mark.parametrize("text", ALL_VALID_TEXTS)
def test_str_of_parsed_patch_is_canonical_text(text: str) -> None:
    parsed = parse_patch(text)
    assert str(parsed) == parsed.patch
    assert isinstance(parsed, ParsedPatch)


def test_canonical_text_reparsed_loses_another_carriage_return() -> None:
    # The canonical text keeps "-old\r\r" (Rust-lines dropped one CR); parsing it again drops
    # one CR per pass (docs/behaviour.md §1.2 step 1 and §2.2), as the reference does when it
    # re-parses.
    parsed = parse_patch(cr_text("\r\r\r\n"))
    assert "-old\r\r\n" in parsed.patch
    assert parse_patch(parsed.patch).hunks == (update("f", chunk("-old", "+new")),)


def test_render_patch_text_of_full_example() -> None:
    parsed = parse_patch(FULL_EXAMPLE)
    assert render_patch(parsed.hunks) == FULL_EXAMPLE
    assert render_patch(parsed.hunks, "remote").splitlines()[1] == "*** Environment ID: remote"


# --- the reference scenarios, read in place (docs/behaviour.md §9.1) ------------------------------

# Scenarios whose patch does not parse: message and line number (docs/behaviour.md §9.1).
CONFORMANCE_PARSE_ERRORS = {
    "008_rejects_empty_update_hunk": (empty_update("foo.txt"), 2),
    "013_rejects_invalid_hunk_header": (not_a_header("*** Frobnicate File: foo"), 2),
}

CONFORMANCE_PATCHES = sorted(REFERENCE_SCENARIOS.glob("*/patch.txt"))


@pytest.mark.reference
def test_conformance_scenarios_present() -> None:
    names = {path.parent.name for path in CONFORMANCE_PATCHES}
    assert len(names) == 25
    assert set(CONFORMANCE_PARSE_ERRORS) <= names


@pytest.mark.parametrize(
    "patch_path",
    reference_params([pytest.param(path, id=path.parent.name) for path in CONFORMANCE_PATCHES]),
)
def test_conformance_patch_parses_and_round_trips(patch_path: Path) -> None:
    # Bytes, so that no newline translation happens (the runner passes the text verbatim).
    text = patch_path.read_bytes().decode("utf-8")
    expected_error = CONFORMANCE_PARSE_ERRORS.get(patch_path.parent.name)
    if expected_error is not None:
        with pytest.raises(InvalidHunkError) as info:
            parse_patch(text)
        assert (info.value.message, info.value.line_number) == expected_error
        return
    parsed = parse_patch(text)
    assert str(parsed) == parsed.patch
    again = parse_patch(render_patch(parsed.hunks, parsed.environment_id))
    assert again.hunks == parsed.hunks
    assert again.environment_id == parsed.environment_id
