"""Parse the Codex patch format (docs/behaviour.md §1).

Grammar, as accepted::

    patch   := BEGIN env_id? hunk* END
    BEGIN   := "*** Begin Patch"
    env_id  := "*** Environment ID:" value        (value trimmed, non-empty, at most once)
    END     := "*** End Patch"
    hunk    := add | delete | update
    add     := "*** Add File: " path NL ("+" text NL)*
    delete  := "*** Delete File: " path NL
    update  := "*** Update File: " path NL ("*** Move to: " path NL)? chunk+
    chunk   := ("@@" | "@@ " context)? NL? line+ ("*** End of File" NL)?
    line    := " " text | "+" text | "-" text | ""   (a bare empty line is empty context)

Only the first chunk of an update may omit its ``@@`` line. Begin and End markers, and hunk
headers outside an Update hunk, are matched after trimming whitespace on both sides; inside an
Update hunk markers are matched with only trailing whitespace removed, so an indented
``*** Update File:`` there is a context line.

:func:`parse_patch` trims the whole text, checks the Begin/End boundary (retrying once without a
``<<'EOF'`` heredoc wrapper), joins the kept lines into the canonical patch text and feeds it to
the one grammar implementation, :class:`~applypatch_ext.core.parse.streaming.StreamingPatchParser`.
The canonical text is computed from the first and last lines and one ``str.replace``
(:func:`canonical_patch_text`), without splitting the whole text into lines;
:func:`canonical_patch_lines` is the line-by-line statement of the same rules.
Errors carry the exact texts of docs/behaviour.md §1.7 and line numbers of the canonical text.

Parsing never touches the disk.
"""

from __future__ import annotations

from ..errors import ErrorReason, InvalidPatchError
from ..text import RUST_WHITESPACE, rust_lines
from .model import (
    BEGIN_PATCH_MARKER,
    END_PATCH_MARKER,
    FIRST_LINE_ERROR,
    LAST_LINE_ERROR,
    ParsedPatch,
)
from .streaming import StreamingPatchParser

HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')


def _boundary_error(lines: list[str]) -> InvalidPatchError | None:
    """The strict check: first line Begin Patch, last line End Patch (both trimmed)."""
    if lines:
        first = lines[0].strip(RUST_WHITESPACE)
        last = lines[-1].strip(RUST_WHITESPACE)
        if first == BEGIN_PATCH_MARKER and last == END_PATCH_MARKER:
            return None
        if first != BEGIN_PATCH_MARKER:
            return InvalidPatchError(FIRST_LINE_ERROR, ErrorReason.FIRST_LINE)
    return InvalidPatchError(LAST_LINE_ERROR, ErrorReason.LAST_LINE)


def canonical_patch_lines(text: str) -> list[str]:
    """Trim, split and unwrap a heredoc (docs/behaviour.md §1.2 steps 1-3); raise on a bad
    boundary."""
    lines = rust_lines(text.strip(RUST_WHITESPACE))
    error = _boundary_error(lines)
    if error is None:
        return lines
    if len(lines) >= 4 and lines[0] in HEREDOC_OPENERS and lines[-1].endswith("EOF"):
        inner = lines[1:-1]
        inner_error = _boundary_error(inner)
        if inner_error is not None:
            raise inner_error
        return inner
    raise error


def _edge_error(first: str, last: str) -> InvalidPatchError | None:
    """:func:`_boundary_error` given only the first and the last line."""
    first = first.strip(RUST_WHITESPACE)
    if first == BEGIN_PATCH_MARKER and last.strip(RUST_WHITESPACE) == END_PATCH_MARKER:
        return None
    if first != BEGIN_PATCH_MARKER:
        return InvalidPatchError(FIRST_LINE_ERROR, ErrorReason.FIRST_LINE)
    return InvalidPatchError(LAST_LINE_ERROR, ErrorReason.LAST_LINE)


def canonical_patch_text(text: str) -> str:
    """``"\\n".join(canonical_patch_lines(text))``, computed on the whole text at once.

    The trimmed text cannot end with a line break, so Rust-lines plus the join only turn every
    CRLF into LF; the boundary and heredoc checks need only the first and the last lines.
    """
    stripped = text.strip(RUST_WHITESPACE)
    if not stripped:
        raise InvalidPatchError(LAST_LINE_ERROR, ErrorReason.LAST_LINE)
    first_nl = stripped.find("\n")
    last_nl = stripped.rfind("\n")
    first = stripped if first_nl < 0 else stripped[:first_nl]
    last = stripped[last_nl + 1 :]
    error = _edge_error(first, last)
    if error is None:
        # The membership test runs at memchr speed, the replace (even with nothing to do) not.
        return stripped.replace("\r\n", "\n") if "\r" in stripped else stripped
    opener = first[:-1] if first.endswith("\r") else first
    # At least four lines: a third line break lies between the first and the last one.
    four_lines = stripped.find("\n", first_nl + 1, last_nl) >= 0
    if opener in HEREDOC_OPENERS and last.endswith("EOF") and four_lines:
        inner = stripped[first_nl + 1 : last_nl + 1].replace("\r\n", "\n")[:-1]
        inner_error = _edge_error(inner[: inner.find("\n")], inner[inner.rfind("\n") + 1 :])
        if inner_error is not None:
            raise inner_error
        return inner
    raise error


def parse_patch(text: str) -> ParsedPatch:
    """Parse patch text leniently, as the reference does for every entry point.

    Raises :class:`~applypatch_ext.core.errors.ParseError` (``InvalidPatchError`` or
    ``InvalidHunkError`` with a line number of the canonical text).
    """
    canonical = canonical_patch_text(text)
    parser = StreamingPatchParser()
    parser.push_delta(canonical)
    hunks = tuple(parser.finish())
    return ParsedPatch(hunks=hunks, patch=canonical, environment_id=parser.environment_id)
