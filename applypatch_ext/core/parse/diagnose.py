"""The failure atlas on the patch text: which kind a patch that does not parse is, and where.

Given a parse error and the patch text the call got, :func:`diagnose_parse_error` returns one
:class:`~..diagnosis.Diagnosis` (a stray fence, another tool's format, a unified diff's header,
a line without its prefix, an empty chunk ...), its ``patch_line`` a line of that text. The
shapes it recognises (:data:`UNIFIED_RANGE`, :data:`FENCE`, :data:`FOREIGN`, :data:`DOUBLED`)
and where a chunk's lines are in the patch (:func:`chunk_rows`) serve the diagnosis of
verification too (:mod:`..apply.diagnose`). It never changes the error nor its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from ..diagnosis import Diagnosis, DiagnosisKind
from ..errors import ErrorReason, InvalidHunkError, ParseError
from ..text import RUST_WHITESPACE
from ..visible import shown
from .model import (
    BEGIN_PATCH_MARKER,
    END_PATCH_MARKER,
    EOF_MARKER,
    UpdateFileChunk,
)
from .parser import canonical_patch_text

_K = DiagnosisKind
_R = ErrorReason

#: ``@@ -69,7 +69,8 @@ text`` and its variants without signs (``@@ 6,7 @@``), as context text
#: (what follows ``@@ ``): the range, and the text after the second ``@@``.
UNIFIED_RANGE: Final = re.compile(r"^\s*-?\d+(?:,\d+)?(?:\s+\+?\d+(?:,\d+)?)?\s*@@\s?(.*)$")
#: A whole unified-diff header line of a patch.
UNIFIED_LINE: Final = re.compile(
    r"^(?:@@ -?\d+(?:,\d+)?(?: \+?\d+(?:,\d+)?)? @@|--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null)"
    r"|diff --git |index [0-9a-f]+\.\.[0-9a-f]+)"
)
FENCE: Final = re.compile(r"^\s*(?:```|~~~)")
#: Another tool's shapes: hash-line anchors (``61:f9e7|``), line numbers and a tab (``cat -n``),
#: tool-call markup, JSON edit lists.
FOREIGN: Final = re.compile(
    r"^(?:\s*\d+:[0-9a-f]{2,}\|"
    r"|\s*\d+\t"
    r"|\s*</?[A-Za-z_][\w:-]*>\s*$"
    r'|\s*[\[{]\s*(?:$|")|\s*"(?:path|op|diff|old_string|new_string|content)"\s*:)'
)
#: A line whose diff marker is repeated after its indentation (`` \t   -\t   x``).
DOUBLED: Final = re.compile(r"^[ +-][ \t]+([+-])([ \t].*)$")


def patch_offset(text: str, canonical: str) -> int:
    """How many lines the patch as the call got it has before its canonical text (leading
    blank lines, a heredoc's opener): canonical line ``n`` is line ``n + offset`` of the text.
    0 when the canonical text is not in the text as such (a shell-form call's JSON)."""
    normal = text.replace("\r\n", "\n") if "\r" in text else text
    at = normal.find(canonical) if canonical else -1
    return normal.count("\n", 0, at) if at > 0 else 0


def shifted(diagnosis: Diagnosis | None, offset: int) -> Diagnosis | None:
    """``diagnosis`` with its canonical ``patch_line`` (and ``replaces``) moved to the lines of
    the call's text."""
    if diagnosis is None or not offset:
        return diagnosis
    patch_line = None if diagnosis.patch_line is None else diagnosis.patch_line + offset
    span = diagnosis.replaces
    replaces = None if span is None else (span[0] + offset, span[1] + offset)
    return replace(diagnosis, patch_line=patch_line, replaces=replaces)


def chunk_rows(canonical: Sequence[str], chunk: UpdateFileChunk) -> list[tuple[int, str]]:
    """``(patch line, prefix)`` of each line of ``chunk`` after its ``@@`` line, as the
    parser read them (a space, ``-``, ``+``, or ``""`` for an empty context line)."""
    if not chunk.line:
        return []
    index = chunk.line - 1
    if index < len(canonical) and canonical[index].startswith("@@"):
        index += 1
    rows: list[tuple[int, str]] = []
    while index < len(canonical):
        first = canonical[index][:1]
        if first not in ("", " ", "-", "+"):
            break
        rows.append((index + 1, first))
        index += 1
    return rows


def chunk_span(canonical: Sequence[str], chunk: UpdateFileChunk) -> tuple[int, int] | None:
    """The first and last patch lines of ``chunk`` (1-based): its ``@@`` line (or first line)
    to its last line, its ``*** End of File`` marker included; what a corrected chunk (a
    suggestion) stands in for. None for a chunk that was not parsed from ``canonical``."""
    rows = chunk_rows(canonical, chunk)
    if not chunk.line:
        return None
    last = rows[-1][0] if rows else chunk.line
    if last < len(canonical) and canonical[last].rstrip(RUST_WHITESPACE) == EOF_MARKER:
        last += 1
    return chunk.line, last


def old_line_patch_line(
    canonical: Sequence[str], chunk: UpdateFileChunk, old_index: int
) -> int | None:
    """The patch line of ``chunk.old_lines[old_index]``."""
    seen = -1
    for number, prefix in chunk_rows(canonical, chunk):
        if prefix != "+":
            seen += 1
            if seen == old_index:
                return number
    return None


def _first_content_line(lines: Sequence[str], reverse: bool = False) -> tuple[int, str] | None:
    order = range(len(lines) - 1, -1, -1) if reverse else range(len(lines))
    for index in order:
        if lines[index].strip(RUST_WHITESPACE):
            return index, lines[index]
    return None


def _boundary(error: ParseError, lines: list[str]) -> Diagnosis:
    """The first-line or last-line error: what stands there instead."""
    first = error.reason is _R.FIRST_LINE
    found = _first_content_line(lines, reverse=not first)
    if found is None:
        return Diagnosis(
            _K.MISSING_BEGIN if first else _K.MISSING_END,
            "The patch is empty: write `*** Begin Patch`, the hunks, then `*** End Patch`.",
        )
    index, line = found
    marker = BEGIN_PATCH_MARKER if first else END_PATCH_MARKER
    if FENCE.match(line):
        return Diagnosis(
            _K.STRAY_FENCE,
            f"The patch {'starts' if first else 'ends'} with the Markdown fence {shown(line)}: "
            f"send the patch alone, from `{BEGIN_PATCH_MARKER}` to `{END_PATCH_MARKER}`, "
            "without the fence.",
            patch_line=index + 1,
        )
    if FOREIGN.match(line):
        return foreign(line, index + 1)
    if first and UNIFIED_LINE.match(line):
        return unified(line, index + 1)
    trimmed = [candidate.strip(RUST_WHITESPACE) for candidate in lines]
    if marker in trimmed:
        at = trimmed.index(marker) if first else len(trimmed) - 1 - trimmed[::-1].index(marker)
        where = "before" if first else "after"
        return Diagnosis(
            _K.MISSING_BEGIN if first else _K.MISSING_END,
            f"Line {index + 1} of the patch, {shown(line)}, stands {where} `{marker}` (line "
            f"{at + 1}): send nothing {where} that line.",
            patch_line=index + 1,
        )
    if first and line.strip(RUST_WHITESPACE).lower().replace(" ", "").startswith("***beginpatch"):
        return Diagnosis(
            _K.MISSING_BEGIN,
            f"The first line reads {shown(line)}: it must be exactly `{BEGIN_PATCH_MARKER}`.",
            patch_line=index + 1,
        )
    return Diagnosis(
        _K.MISSING_BEGIN if first else _K.MISSING_END,
        f"The {'first' if first else 'last'} line of the patch is {shown(line)}: "
        + (
            f"a patch starts with `{BEGIN_PATCH_MARKER}`."
            if first
            else f"a patch ends with `{END_PATCH_MARKER}` (was it cut off?)."
        ),
        patch_line=index + 1,
    )


def foreign(line: str, patch_line: int | None) -> Diagnosis:
    return Diagnosis(
        _K.FOREIGN_FORMAT,
        f"{shown(line)} belongs to another tool's format: write this tool's patch, "
        "`*** Update File: <path>`, then `@@` chunks of lines starting with a space, `-` or `+`.",
        patch_line=patch_line,
    )


def unified(line: str, patch_line: int | None) -> Diagnosis:
    return Diagnosis(
        _K.UNIFIED_DIFF_HEADER,
        f"{shown(line)} is a unified diff's header: this format takes no line numbers and no "
        "`---`/`+++` lines; write `@@` alone, or `@@ ` and a line copied from the file above "
        "the change.",
        patch_line=patch_line,
    )


def _last_marker(
    canonical: Sequence[str], before: int, markers: tuple[str, ...] = ("@@", "*** ")
) -> int | None:
    """The index of the last line before index ``before`` that starts with one of
    ``markers`` (an ``@@`` line, a ``***`` marker)."""
    for index in range(min(before, len(canonical)) - 1, -1, -1):
        if canonical[index].rstrip(RUST_WHITESPACE).startswith(markers):
            return index
    return None


def diagnose_parse_error(error: ParseError, text: str) -> Diagnosis:
    """The diagnosis of a patch that does not parse; ``patch_line`` is a line of ``text``."""
    if error.reason in (_R.FIRST_LINE, _R.LAST_LINE):
        return _boundary(error, text.replace("\r\n", "\n").split("\n"))
    if not isinstance(error, InvalidHunkError):
        return Diagnosis(_K.MALFORMED, f"{error.message}.")
    try:
        canonical_text = canonical_patch_text(text)
    except ParseError:  # pragma: no cover - a hunk error means the boundary passed
        canonical_text = text
    offset = patch_offset(text, canonical_text)
    canonical = canonical_text.split("\n")
    number = error.line_number or 1
    index = number - 1
    raw = canonical[index] if index < len(canonical) else ""
    diagnosis = _hunk_error(error, canonical, index, raw)
    return shifted(diagnosis, offset) or diagnosis


def _hunk_error(
    error: InvalidHunkError, canonical: Sequence[str], index: int, raw: str
) -> Diagnosis:
    number = index + 1
    reason = error.reason
    if FENCE.match(raw):
        return Diagnosis(
            _K.STRAY_FENCE,
            f"The Markdown fence {shown(raw)} is inside the patch: remove it.",
            patch_line=number,
        )
    if FOREIGN.match(raw):
        return foreign(raw, number)
    two_markers = reason is _R.UNEXPECTED_LINE and raw.rstrip(RUST_WHITESPACE).startswith("@@")
    if reason in (_R.EMPTY_CHUNK, _R.EMPTY_UPDATE):
        return _empty(canonical, index, raw, two_markers=False)
    if two_markers:
        return _empty(canonical, index, raw, two_markers=True)
    if UNIFIED_LINE.match(raw):
        return unified(raw, number)
    if reason in (_R.UNEXPECTED_LINE, _R.EXPECTED_CONTEXT_MARKER):
        return _unprefixed(canonical, index, raw, reason)
    if reason is _R.INVALID_HUNK_HEADER:
        hint = (
            "a blank line inside an Add must be written `+`"
            if not raw.strip(RUST_WHITESPACE)
            else "a hunk starts with `*** Add File: `, `*** Delete File: ` or `*** Update File: `"
        )
        return Diagnosis(
            _K.INVALID_HUNK_HEADER,
            f"The line {shown(raw)} is not part of any hunk: {hint}.",
            patch_line=number,
        )
    return Diagnosis(_K.MALFORMED, f"{error.message}.", patch_line=number)


def _empty(canonical: Sequence[str], index: int, raw: str, *, two_markers: bool) -> Diagnosis:
    """An ``@@`` (or an Update) with no line under it: at the End Patch or the header that
    closes it, or at the second of two ``@@`` lines in a row (``two_markers``)."""
    if two_markers:
        marker = _last_marker(canonical, index)
        at = marker if marker is not None else index
    else:
        opener = _last_marker(canonical, index, ("@@", "*** Update File: "))
        at = index if raw.startswith("@@") or opener is None else opener
    line = canonical[at]
    if UNIFIED_LINE.match(line):
        return unified(line, at + 1)
    if UNIFIED_LINE.match(raw):
        return unified(raw, index + 1)
    if two_markers and raw.rstrip(RUST_WHITESPACE) != "@@" and not raw.startswith("@@ "):
        return _context_marker(raw, index + 1)
    where = " before the next `@@`" if two_markers else ""
    return Diagnosis(
        _K.EMPTY_CHUNK,
        f"{shown(line)} has no line under it{where}: give each `@@` (and each "
        "`*** Update File:`) the lines of its change, or remove it.",
        patch_line=at + 1,
    )


def _unprefixed(
    canonical: Sequence[str], index: int, raw: str, reason: ErrorReason | None
) -> Diagnosis:
    """A line inside an Update that is no diff line: after ``*** End of File``, an ``@@``
    glued to text, or a line without its prefix."""
    number = index + 1
    marker = _last_marker(canonical, index)
    previous = canonical[index - 1].rstrip(RUST_WHITESPACE) if index > 0 else ""
    after_end = marker is not None and canonical[marker].rstrip(RUST_WHITESPACE) == EOF_MARKER
    if reason is _R.EXPECTED_CONTEXT_MARKER and after_end:
        return Diagnosis(
            _K.MALFORMED,
            f"{shown(raw)} follows `{EOF_MARKER}`: only a new `@@` chunk may follow it.",
            patch_line=number,
        )
    if raw.startswith("@@"):
        return _context_marker(raw, number)
    if previous.endswith("@@") and not previous.startswith("@@"):
        return _context_marker(previous, number - 1)
    if raw.startswith("\t"):
        return Diagnosis(
            _K.MISSING_PREFIX,
            f"The line {shown(raw)} starts with a tab: a context line starts with a space "
            "(then the file's own indentation), an added one with `+`, a removed one with `-`.",
            patch_line=number,
        )
    return Diagnosis(
        _K.MISSING_PREFIX,
        f"The line {shown(raw)} has no prefix: start a context line with a space, an added "
        "line with `+`, a removed line with `-`.",
        patch_line=number,
    )


def _context_marker(raw: str, number: int) -> Diagnosis:
    """An ``@@`` line in a shape the grammar does not know: glued to its text, or to a line."""
    text = raw.rstrip(RUST_WHITESPACE)
    if text.startswith("@@") and not text.startswith("@@ "):
        corrected = "@@ " + text[2:].lstrip(" ")
        if UNIFIED_RANGE.match(corrected[3:]):
            return unified(text, number)
        return Diagnosis(
            _K.BAD_CONTEXT_MARKER,
            f"{shown(text)} lacks the space after `@@`: write {shown(corrected)}.",
            patch_line=number,
            suggestion=corrected,
            replaces=(number, number),
        )
    return Diagnosis(
        _K.BAD_CONTEXT_MARKER,
        f"`@@` is glued to the end of {shown(text)}: put each `@@` on a line of its own.",
        patch_line=number,
    )
