"""Where verified chunks were placed, and what a call that applies should be told about it.

:func:`match_warnings` turns the placements of an Update's chunks (:class:`~.contents.ChunkMatch`,
made by the call's own search) into the failure atlas's warnings: a pure addition under an
``@@`` line that goes to the end of the file (openai/codex#30946), a fuzzy match that writes
the patch's text over lines it differs from (#30505), lines that occur twice (the first taken).
:func:`place` is the one test of a correction, here and in :mod:`.diagnose`: the call's search
places it exactly, at one place, after the chunks before it; :func:`with_file_lines` the one
correction of lines that differ from the file's only in whitespace or punctuation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from ..diagnosis import Diagnosis, DiagnosisKind
from ..errors import ComputeReplacementsError
from ..parse.diagnose import chunk_span
from ..parse.model import UpdateFile, UpdateFileChunk
from ..text import LineEndings, plural
from ..visible import describe_difference, shown
from .contents import ChunkMatch, compute_replacements, file_lines
from .seek import NORMALISERS

_K = DiagnosisKind

#: Context lines a re-anchored pure addition takes above its lines, at most.
ANCHOR_LINES: Final = 3
_PASS_WORDS: Final = {
    "rstrip": "ignoring trailing whitespace",
    "trim": "ignoring leading and trailing whitespace",
    "punctuation": "ignoring whitespace and reading typographic punctuation as ASCII",
}


def loosest(line: str) -> str:
    normalise = NORMALISERS[-1]
    assert normalise is not None
    return normalise(line)


def place(
    lines: Sequence[str], path: str, chunks: Sequence[UpdateFileChunk], legacy: bool
) -> ChunkMatch | None:
    """Where the last of ``chunks`` matches after the ones before it, as the call's search
    places it, if that is certain: exactly, at one place only, and not as a pure addition."""
    matches: list[ChunkMatch] = []
    try:
        compute_replacements(lines, path, chunks, legacy=legacy, matches=matches)
    except ComputeReplacementsError:
        return None
    match = matches[-1]
    if match.fuzzy or match.again is not None or match.pure_addition:
        return None
    return match


def with_file_lines(chunk: UpdateFileChunk, old: Sequence[str]) -> UpdateFileChunk:
    """``chunk`` with its context and removed lines as the file writes them (``old``, one per
    old line of the chunk), its added lines as the patch has them."""
    new = list(chunk.new_lines)
    for old_index, new_index in chunk.context_line_indices:
        if old_index < len(old):
            new[new_index] = old[old_index]
    return replace(chunk, old_lines=tuple(old), new_lines=tuple(new))


def match_warnings(
    hunk: UpdateFile,
    matches: Sequence[ChunkMatch],
    original: str,
    line_endings: LineEndings = LineEndings.PRESERVE,
    patch: str = "",
) -> list[Diagnosis]:
    """What to check in an Update that will apply: its chunks' placements (``matches``, as
    :func:`~.contents.compute_replacements` made them on ``original``); ``patch_line`` (and a
    suggestion's ``replaces``) are lines of the canonical text ``patch``."""
    warnings = _Warnings(hunk, original, LineEndings(line_endings), patch)
    for match in matches:
        warnings.add(match)
    return warnings.out


class _Warnings:
    def __init__(
        self, hunk: UpdateFile, original: str, line_endings: LineEndings, patch: str
    ) -> None:
        self.hunk = hunk
        self.patch = patch
        self.original = original
        self.line_endings = line_endings
        self.legacy = line_endings is LineEndings.LF
        self._lines: list[str] | None = None
        self.out: list[Diagnosis] = []
        self.previous_end = 0  # where the chunk before the current one ended

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = file_lines(self.original, self.line_endings)
        return self._lines

    def replaces(self, chunk: UpdateFileChunk) -> tuple[int, int] | None:
        """The patch lines a suggestion for ``chunk`` stands in for."""
        return chunk_span(self.patch.split("\n"), chunk) if self.patch else None

    def placed(self, index: int, candidate: UpdateFileChunk) -> int | None:
        """Where ``candidate``, in the place of chunk ``index``, matches (:func:`place`)."""
        chunks = [*self.hunk.chunks[:index], candidate]
        match = place(self.lines, self.hunk.path, chunks, self.legacy)
        return None if match is None else match.start

    def add(self, match: ChunkMatch) -> None:
        chunk = self.hunk.chunks[match.index]
        if match.pure_addition:
            anchored = chunk.change_context is not None or match.index > 0
            if anchored and match.search_from < match.start:
                self.out.append(self.appended(chunk, match))
            return
        if match.fuzzy:
            warning = self.fuzzy(chunk, match)
            if warning is not None:
                self.out.append(warning)
        if match.again is not None:
            self.out.append(
                Diagnosis(
                    _K.AMBIGUOUS_MATCH,
                    f"The chunk's lines are at line {match.start + 1} of {self.hunk.path} and "
                    f"again at line {match.again + 1}; the first was changed, as Codex does: "
                    "add a context line that is only where you mean.",
                    self.hunk.path,
                    chunk.line or None,
                    match.start + 1,
                )
            )
        self.previous_end = match.start + len(match.found)

    def appended(self, chunk: UpdateFileChunk, match: ChunkMatch) -> Diagnosis:
        meant = match.search_from  # the line after the anchor (or the chunk before)
        if chunk.change_context is not None:
            under = f"under the `@@` line {shown(chunk.change_context)} (line {meant} of the file)"
        else:
            under = f"after the chunk before it (line {meant} of the file)"
        context = tuple(self.lines[max(self.previous_end, meant - ANCHOR_LINES) : meant])
        suggestion = None
        candidate = UpdateFileChunk(
            None, context, context + chunk.new_lines, tuple((i, i) for i in range(len(context)))
        )
        if context and self.placed(match.index, candidate) == meant - len(context):
            suggestion = str(candidate)
        added = len(chunk.new_lines)
        return Diagnosis(
            _K.APPENDED_AT_END,
            f"The {plural(added, 'added line')} {under} went to the end of "
            f"{self.hunk.path}, after line {match.start}: a chunk without context or removed "
            "lines is appended there; give it context lines to place it.",
            self.hunk.path,
            chunk.line or None,
            meant or None,
            suggestion=suggestion,
            replaces=None if suggestion is None else self.replaces(chunk),
        )

    def fuzzy(self, chunk: UpdateFileChunk, match: ChunkMatch) -> Diagnosis | None:
        """A fuzzy match that writes the patch's text over lines it differs from: context
        lines in the lf mode (the reference's legacy mode rewrites the whole region), and
        removed lines, whose replacement takes the patch's whitespace."""
        context = {old for old, _ in chunk.context_line_indices}
        rewritten = [
            i
            for i, (want, have) in enumerate(zip(match.found, match.lines, strict=True))
            if want != have and (self.legacy or i not in context)
        ]
        if not rewritten:
            return None
        i = rewritten[0]
        line = match.start + i + 1
        role = "a context line" if i in context else "a removed line"
        effect = (
            "is rewritten with the patch's text"
            if i in context
            else "is replaced by added lines that keep the patch's whitespace"
        )
        suggestion = None
        candidate = with_file_lines(chunk, match.lines)
        exactly = len(match.found) == len(chunk.old_lines)
        if exactly and self.placed(match.index, candidate) == match.start:
            suggestion = str(candidate)
        end = match.start + len(match.found)
        return Diagnosis(
            _K.FUZZY_MATCH,
            f"The chunk matched lines {match.start + 1} to {end} of {self.hunk.path} only "
            f"{_PASS_WORDS.get(match.pass_name, match.pass_name)}, and line {line}, {role}, "
            f"{effect}: it {describe_difference(match.found[i], match.lines[i])}.",
            self.hunk.path,
            chunk.line or None,
            line,
            suggestion=suggestion,
            replaces=None if suggestion is None else self.replaces(chunk),
        )
