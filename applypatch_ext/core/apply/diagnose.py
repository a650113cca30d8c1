"""The failure atlas on verification and application: which kind a failed chunk or file is.

Given the error of verification or application, the parsed patch and the near-miss explanation
of :mod:`.explain`, :func:`diagnose_error` returns one :class:`~..diagnosis.Diagnosis`: a file
that is missing or not UTF-8, a write the sandbox refused, or, for a chunk that did not match,
which kind of miss (its ``@@`` line in no line, or only part of one, or below the lines; lines
that differ only in invisible characters; a doubled prefix; a change made already ...), where
the chunk's lines come closest in the file (``line``), and a correction when it is certain.

It never decides the verdict nor changes a text the reference prints. It has no matcher of
its own: a correction is offered (``suggestion``) only when the call's own search places it
(:func:`~.placement.place`). Pure: the lines the failed search saw travel with the error.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from ..diagnosis import Diagnosis, DiagnosisKind
from ..errors import (
    ApplyPatchError,
    CancelledError,
    ComputeReplacementsError,
    DuplicatePathError,
    ErrorReason,
    InvalidPatchError,
    InvalidPathError,
    IoError,
    MatchFailure,
    MoveOntoItselfError,
    ParseError,
)
from ..parse.diagnose import (
    DOUBLED,
    FOREIGN,
    UNIFIED_LINE,
    UNIFIED_RANGE,
    chunk_rows,
    chunk_span,
    foreign,
    old_line_patch_line,
    unified,
)
from ..parse.model import EOF_MARKER, Hunk, ParsedPatch, UpdateFile, UpdateFileChunk
from ..parse.parser import parse_patch
from ..text import RUST_WHITESPACE, LineEndings, Utf8DecodeError, format_io_error, plural
from ..visible import describe_difference, only_invisible, shown
from .contents import ChunkMatch, compute_replacements
from .explain import ABSENT_REASONS, MatchExplanation, explain_match_failure
from .fs import WriteRefused
from .placement import loosest, place, with_file_lines

_K = DiagnosisKind
_R = ErrorReason

#: How many file lines holding a partial ``@@`` text are tried as its whole line.
MAX_ANCHOR_CANDIDATES: Final = 16


def diagnose_error(
    error: ApplyPatchError,
    parsed: ParsedPatch | None,
    explanation: MatchExplanation | None = None,
    line_endings: LineEndings = LineEndings.PRESERVE,
) -> Diagnosis:
    """The diagnosis of an error of verification or application; ``patch_line`` is a line of
    the canonical patch text (:func:`shifted` moves it into the call's text)."""
    hunk: Hunk | None = None
    if parsed is not None and error.hunk is not None and error.hunk < len(parsed.hunks):
        hunk = parsed.hunks[error.hunk]
    path = hunk.path if hunk is not None else None
    patch_line = (hunk.line or None) if hunk is not None else None
    failure = getattr(error, "failure", None)
    if isinstance(error, ComputeReplacementsError) and isinstance(failure, MatchFailure):
        if isinstance(hunk, UpdateFile) and failure.chunk is not None and parsed is not None:
            return _Match(failure, hunk, parsed, explanation, line_endings).diagnose()
        return Diagnosis(_K.CONTEXT_NOT_FOUND, f"{error.message}.", path, patch_line)
    if isinstance(error, CancelledError):
        return Diagnosis(_K.CANCELLED, f"{error.message}.", path, patch_line)
    if isinstance(error, DuplicatePathError):
        return Diagnosis(
            _K.DUPLICATE_PATH,
            f"Two hunks act on {path or 'the same file'}: merge them into one "
            "`*** Update File:` hunk with several `@@` chunks.",
            path,
            patch_line,
        )
    if isinstance(error, MoveOntoItselfError):
        return Diagnosis(_K.MOVE_ONTO_ITSELF, error.message + ".", path, patch_line)
    if isinstance(error, InvalidPathError):
        return Diagnosis(
            _K.MALFORMED,
            f"The path {shown(error.path)} cannot name a file here.",
            path,
            patch_line,
        )
    if isinstance(error, IoError):
        return _io(error, hunk, path, patch_line)
    if isinstance(error, InvalidPatchError):
        return Diagnosis(_K.MALFORMED, f"{error.message}.", path, patch_line)
    return Diagnosis(_K.UNEXPLAINED, f"{error.message}.", path, patch_line)


def _io(error: IoError, hunk: Hunk | None, path: str | None, patch_line: int | None) -> Diagnosis:
    """A file step that failed: reading the file to update or delete (missing, not a file,
    not UTF-8), or a write, a creation, a removal (the OS's reason, which the reference's text
    leaves out, or the sandbox's)."""
    cause = error.cause
    name = f"`{path}`" if path is not None else "the file"
    what = "update" if isinstance(hunk, UpdateFile) else "delete"
    # the reads of verification and the removal of a Delete act on an existing file
    on_the_file = error.reason in (_R.READ, _R.NOT_A_FILE, _R.DELETE)
    if isinstance(cause, Utf8DecodeError):
        return Diagnosis(
            _K.NOT_UTF8,
            f"{name} is not UTF-8 text ({cause}), so it cannot be patched line by line: "
            "replace it whole (`*** Delete File:` then `*** Add File:`) or leave it.",
            path,
            patch_line,
        )
    if isinstance(cause, WriteRefused):
        return Diagnosis(_K.SANDBOX_DENIED, f"{cause}.", path, patch_line)
    code = getattr(cause, "errno", None)
    if on_the_file and code == errno.ENOENT:
        return Diagnosis(
            _K.MISSING_FILE,
            f"There is no file {name} to {what}: check the path (it is relative to the working "
            "directory), or create the file with `*** Add File:`.",
            path,
            patch_line,
        )
    not_file = code == errno.EISDIR or error.reason is _R.NOT_A_FILE
    if on_the_file and (not_file or cause is None):
        return Diagnosis(
            _K.NOT_A_FILE,
            f"{name} is not a file (a directory, or something else): an Update or a Delete "
            "acts on one file.",
            path,
            patch_line,
        )
    if code in (errno.ENOTDIR, errno.EEXIST):
        reason = f"a folder on the way to {name} is a file"
    elif isinstance(cause, OSError):
        reason = format_io_error(cause)
    else:
        reason = "no reason given"
    return Diagnosis(_K.IO_ERROR, f"{error.message} ({reason}).", path, patch_line)


class _Match:
    """One chunk that did not match: which kind of miss it is, and a correction if certain."""

    def __init__(
        self,
        failure: MatchFailure,
        hunk: UpdateFile,
        parsed: ParsedPatch,
        explanation: MatchExplanation | None,
        line_endings: LineEndings,
    ) -> None:
        assert failure.chunk is not None
        self.failure = failure
        self.hunk = hunk
        self.index = failure.chunk
        self.chunk = hunk.chunks[failure.chunk]
        self.canonical = parsed.patch.split("\n")
        self.lines = failure.file_lines
        self.legacy = LineEndings(line_endings) is LineEndings.LF
        self.explanation = (
            explanation
            if explanation is not None
            else explain_match_failure(failure, failure.file_lines)
        )
        self.path = hunk.path

    # the correction, checked by the call's own search

    def placed(self, candidate: UpdateFileChunk) -> ChunkMatch | None:
        """Where ``candidate``, in this chunk's place after the chunks before it, matches:
        exactly and at one place only (else None)."""
        chunks = [*self.hunk.chunks[: self.index], candidate]
        return place(self.lines, self.path, chunks, self.legacy)

    def suggest(self, candidate: UpdateFileChunk) -> str | None:
        return str(candidate) if self.placed(candidate) is not None else None

    def region(self) -> tuple[int | None, str | None]:
        """Where the chunk's lines come closest (1-based), or None with the reason."""
        chunk = self.chunk
        explanation = self.explanation  # of the lines, or of a pure addition's @@ line
        if chunk.old_lines and self.failure.kind == "context":
            probe = MatchFailure(
                self.failure.path, "lines", chunk.old_lines, self.failure.start, False
            )
            explanation = explain_match_failure(probe, self.lines)
        if explanation.region_start is not None:
            return explanation.region_start + 1, None
        absent = next((p.absent for p in explanation.pairs if p.absent), "no-match")
        return None, ABSENT_REASONS[absent]

    def anchor_line(self, line: int | None) -> dict[str, object]:
        """``line`` for a miss of the ``@@`` line: where the chunk's lines come closest when
        it has any (where the change belongs), else the anchor's own ``line``."""
        return {} if self.chunk.old_lines else {"line": line, "line_absent": None}

    def at(self, kind: DiagnosisKind, message: str, **fields: object) -> Diagnosis:
        patch_line = fields.pop("patch_line", None) or self.chunk.line or self.hunk.line or None
        if fields.get("suggestion") is not None:
            fields["replaces"] = chunk_span(self.canonical, self.chunk)
        if "line" not in fields:
            fields["line"], fields["line_absent"] = self.region()
        return Diagnosis(kind, message, self.path, patch_line, **fields)  # type: ignore[arg-type]

    # the kinds

    def diagnose(self) -> Diagnosis:
        if self.failure.kind == "context":
            return self.context()
        return self.old_lines()

    def context(self) -> Diagnosis:
        chunk, lines, start = self.chunk, self.lines, self.failure.start
        text = chunk.change_context or ""
        header = f"@@ {text}"
        numbered = UNIFIED_RANGE.match(text)
        if numbered:
            tail = numbered.group(1).strip(RUST_WHITESPACE) or None
            suggestion = None
            for context in dict.fromkeys((tail, None)):
                if context is not None or chunk.old_lines:
                    suggestion = self.suggest(replace(chunk, change_context=context))
                if suggestion is not None:
                    break
            return self.at(
                _K.UNIFIED_DIFF_HEADER,
                unified(header, None).message,
                suggestion=suggestion,
            )
        if FOREIGN.match(text):
            return self.at(_K.FOREIGN_FORMAT, foreign(header, None).message)
        wanted = loosest(text)
        whole_before = [i for i in range(min(start, len(lines))) if loosest(lines[i]) == wanted]
        partial = [i for i in range(start, len(lines)) if wanted and wanted in loosest(lines[i])]
        if partial:
            return self.partial_anchor(text, partial)
        if whole_before:
            where = whole_before[-1]
            return self.at(
                _K.STALE_ANCHOR,
                f"The `@@` line {shown(text)} is line {where + 1} of {self.path}, above line "
                f"{start + 1} where this chunk's search began (after the chunk before): put the "
                "chunks in the order of the file.",
                **self.anchor_line(where + 1),
            )
        pair = self.explanation.pairs[0] if self.explanation.pairs else None
        if pair is not None and pair.actual is not None and only_invisible(text, pair.actual):
            suggestion = self.suggest(replace(chunk, change_context=pair.actual.strip()))
            return self.at(
                _K.WHITESPACE_MISMATCH,
                f"The `@@` line comes closest to line {pair.line_number} of {self.path}, which "
                f"{describe_difference(text, pair.actual)}.",
                suggestion=suggestion,
                **self.anchor_line(pair.line_number),
            )
        suggestion = self.suggest(replace(chunk, change_context=None)) if chunk.old_lines else None
        return self.at(
            _K.CHANGE_CONTEXT_NOT_FOUND,
            f"{shown(text)} is in no line of {self.path}: an `@@` line must repeat a whole line "
            "of the file above the change; write `@@` alone if the lines below it are enough.",
            suggestion=suggestion,
        )

    def partial_anchor(self, text: str, candidates: list[int]) -> Diagnosis:
        lines = self.lines
        working = []
        for i in candidates[:MAX_ANCHOR_CANDIDATES]:
            whole = lines[i].strip(RUST_WHITESPACE)
            candidate = replace(self.chunk, change_context=whole)
            if self.placed(candidate) is not None:
                working.append(candidate)
        suggestion = str(working[0]) if len(working) == 1 else None
        first = candidates[0]
        many = f" (and {len(candidates) - 1} more)" if len(candidates) > 1 else ""
        return self.at(
            _K.PARTIAL_ANCHOR,
            f"{shown(text)} is only part of line {first + 1} of {self.path}, "
            f"{shown(lines[first].strip(RUST_WHITESPACE))}{many}: an `@@` line must repeat a "
            "whole line of the file (indentation aside).",
            suggestion=suggestion,
            **self.anchor_line(first + 1),
        )

    def old_lines(self) -> Diagnosis:
        chunk = self.chunk
        rows = chunk_rows(self.canonical, chunk)
        for number, _prefix in rows:
            raw = self.canonical[number - 1]
            if UNIFIED_LINE.match(raw):
                return self.at(
                    _K.UNIFIED_DIFF_HEADER, unified(raw, None).message, patch_line=number
                )
        doubled = self.doubled_prefix(rows)
        if doubled is not None:
            return doubled
        applied = self.already_applied()
        if applied is not None:
            return applied
        elsewhere = self.elsewhere()
        if elsewhere is not None:
            return elsewhere
        return self.near_miss()

    def doubled_prefix(self, rows: list[tuple[int, str]]) -> Diagnosis | None:
        marked = [(n, DOUBLED.match(self.canonical[n - 1])) for n, _ in rows]
        found = [(n, m) for n, m in marked if m is not None]
        if not found:
            return None
        present = {loosest(line) for line in self.lines}
        if all(loosest(self.canonical[n - 1][1:]) in present for n, _ in found):
            return None  # lines like `- x` that the file really holds
        fixed = list(self.canonical)
        for n, m in found:
            fixed[n - 1] = m.group(1) + m.group(2)
        first = rows[0][0] - 1
        if self.chunk.line and self.canonical[self.chunk.line - 1].startswith("@@"):
            first = self.chunk.line - 1
        body = fixed[first : rows[-1][0]]
        suggestion = None
        candidate = _reparse(body, self.chunk.is_end_of_file)
        if candidate is not None:
            suggestion = self.suggest(replace(candidate, change_context=self.chunk.change_context))
        number, match = found[0]
        line = self.canonical[number - 1]
        return self.at(
            _K.DOUBLED_PREFIX,
            f"The line {shown(line)} has a second `{match.group(1)}` after its indentation, so "
            f"that `{match.group(1)}` is taken as text: write the prefix once, in the first "
            "column, followed by the file's own line.",
            patch_line=number,
            suggestion=suggestion,
        )

    def already_applied(self) -> Diagnosis | None:
        chunk = self.chunk
        added = set(chunk.new_lines) - set(chunk.old_lines)
        if not chunk.new_lines or not any(line.strip() for line in added):
            return None
        probe = UpdateFileChunk(None, chunk.new_lines, chunk.new_lines)
        matches: list[ChunkMatch] = []
        try:
            compute_replacements(
                self.lines, self.path, [probe], legacy=self.legacy, matches=matches
            )
        except ComputeReplacementsError:
            return None
        at = matches[0].start
        return self.at(
            _K.ALREADY_APPLIED,
            f"The chunk's lines are not in {self.path}, but the lines it would leave are, at "
            f"line {at + 1}: the change seems made already; read the file again before "
            "patching it.",
            line=at + 1,
            line_absent=None,
        )

    def elsewhere(self) -> Diagnosis | None:
        """The lines are in the file, but not where the search looked."""
        chunk, start = self.chunk, self.failure.start
        free = replace(chunk, change_context=None, is_end_of_file=False)
        matches: list[ChunkMatch] = []
        try:
            compute_replacements(self.lines, self.path, [free], legacy=self.legacy, matches=matches)
        except ComputeReplacementsError:
            return None
        at = matches[0].start
        if chunk.is_end_of_file:
            unmarked = replace(chunk, is_end_of_file=False)
            return self.at(
                _K.END_OF_FILE_MISMATCH,
                f"The chunk is marked `{EOF_MARKER}`, but its lines are at line {at + 1} of "
                f"{self.path}, not at its end (line {len(self.lines)}): drop the marker, or "
                "patch the file's last lines.",
                line=at + 1,
                line_absent=None,
                suggestion=self.suggest(unmarked),
            )
        if at >= start:  # pragma: no cover - the search would have found them
            return None
        unanchored = replace(chunk, change_context=None)
        suggestion = self.suggest(unanchored) if chunk.change_context is not None else None
        repeats = chunk.change_context is not None and loosest(chunk.change_context) == loosest(
            chunk.old_lines[0]
        )
        if repeats:
            reason = (
                "after its `@@` line, which repeats the chunk's first line: write `@@` alone, "
                "or `@@ ` and a line above the chunk"
            )
        elif chunk.change_context is not None and suggestion is not None:
            reason = f"after its `@@` line, which is line {start} of the file"
        else:
            reason = "after the chunk before it: put the chunks in the order of the file"
        return self.at(
            _K.STALE_ANCHOR,
            f"The chunk's lines are at line {at + 1} of {self.path}, above line {start + 1} "
            f"where its search began ({reason}).",
            line=at + 1,
            line_absent=None,
            suggestion=suggestion,
        )

    def near_miss(self) -> Diagnosis:
        explanation = self.explanation
        line, absent = self.region()
        pairs = explanation.pairs
        differing = [(i, p) for i, p in enumerate(pairs) if p.match_pass is None]
        if explanation.region_start is not None and not differing:
            # every line matches there, by some pass, yet not as the search looks for them
            summary = explanation.summary
            return self.at(_K.CONTEXT_NOT_FOUND, f"{summary[:1].upper()}{summary[1:]}.")
        if explanation.region_start is None or not differing:
            total = len(self.chunk.old_lines)
            which = (
                "The chunk's only context or removed line is not"
                if total == 1
                else f"None of the chunk's {total} context and removed lines is"
            )
            return self.at(
                _K.CONTEXT_NOT_FOUND,
                f"{which} in {self.path}, even ignoring whitespace and punctuation: read the "
                "file again and copy the lines to change as they are.",
                line=line,
                line_absent=absent,
            )
        index, first = differing[0]
        patch_line = old_line_patch_line(self.canonical, self.chunk, index)
        invisible = all(
            p.actual is not None and p.expected is not None and only_invisible(p.expected, p.actual)
            for _, p in differing
        )
        assert first.expected is not None
        if first.actual is None:
            detail = f"it ends at line {len(self.lines)}, before the chunk's last lines"
        else:
            detail = (
                f"its line {first.line_number} {describe_difference(first.expected, first.actual)}"
            )
        if invisible:
            file_old = [p.actual if p.actual is not None else p.expected or "" for p in pairs]
            suggestion = self.suggest(with_file_lines(self.chunk, file_old))
            return self.at(
                _K.WHITESPACE_MISMATCH,
                f"The chunk matches lines {line} to {line + len(pairs) - 1} of {self.path} but "  # type: ignore[operator]
                f"for invisible characters: {detail}; copy the file's lines as they are.",
                patch_line=patch_line,
                suggestion=suggestion,
            )
        return self.at(
            _K.CONTEXT_NOT_FOUND,
            f"The closest region of {self.path} starts at line {line} and matches "
            f"{explanation.matched} of the chunk's {plural(len(pairs), 'line')}; {detail}.",
            patch_line=patch_line,
        )


def _reparse(body: Sequence[str], end_of_file: bool) -> UpdateFileChunk | None:
    """The chunk that ``body`` (its lines, maybe with its ``@@`` line) parses to, or None."""
    lines = ["*** Begin Patch", "*** Update File: x", *body]
    if end_of_file:
        lines.append(EOF_MARKER)
    lines.append("*** End Patch")
    try:
        parsed = parse_patch("\n".join(lines))
    except ParseError:
        return None
    hunk = parsed.hunks[0]
    if not isinstance(hunk, UpdateFile) or len(hunk.chunks) != 1:
        return None
    return hunk.chunks[0]
