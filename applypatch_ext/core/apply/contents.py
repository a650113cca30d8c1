"""Compute an updated file's new contents from its chunks (docs/behaviour.md §3.3 and §4).

Two modes. ``preserve`` (the default): the file is split into lines that remember their own
terminator; untouched lines, including a chunk's context lines, keep it; inserted lines take the
file's preferred terminator (its first one, LF if none); every line ends with a terminator.
``lf`` (legacy): split on LF only, replace whole regions, join with LF and end with one.

This module is pure: it neither reads nor writes files (see :mod:`.verify` and :mod:`.runtime`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ..errors import ComputeReplacementsError, MatchFailure
from ..interrupts import checkpoint
from ..parse.model import UpdateFileChunk
from ..text import LineEndings, split_terminated_lines
from .seek import PASS_NAMES, Haystack, PatternBatch, seek_sequence

Replacement = tuple[int, int, Sequence[str]]


@dataclass(frozen=True, slots=True)
class ChunkMatch:
    """Where one chunk was placed and by which pass of the seek cascade
    (:data:`~.seek.PASS_NAMES`): ``lines`` are the file's lines there, ``found`` the patch's
    lines they matched (equal to ``lines`` only for the ``exact`` pass).

    A pure addition (no old lines) has neither: ``start`` is where its lines go. ``anchor`` is
    the line its ``@@`` context matched (None without one), ``search_from`` where the search
    for its lines began (after the anchor or the chunk before), ``again`` the next position
    where its lines match as well, in the same pass (None: nowhere)."""

    index: int
    start: int
    pass_name: str
    found: tuple[str, ...]
    lines: tuple[str, ...]
    anchor: int | None = None
    search_from: int = 0
    again: int | None = None

    @property
    def fuzzy(self) -> bool:
        return self.pass_name != PASS_NAMES[0]

    @property
    def pure_addition(self) -> bool:
        return not self.found

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.start + 1,
            "pass": self.pass_name,
            "fuzzy": self.fuzzy,
            "pairs": [
                {"patch": want, "file": have}
                for want, have in zip(self.found, self.lines, strict=True)
                if want != have
            ],
        }


def compute_replacements(
    lines: Sequence[str],
    path: str,
    chunks: Sequence[UpdateFileChunk],
    *,
    legacy: bool,
    joined: str | None = None,
    matches: list[ChunkMatch] | None = None,
) -> list[Replacement]:
    """Locate every chunk in order and return ``(start, old_len, new_lines)``, sorted by start.

    ``joined``, if the caller has it, is ``lines`` joined by LF (a final LF allowed).
    ``matches``, if given, receives a :class:`ChunkMatch` per chunk, with the next place its
    lines match as well (which costs a search only for lines that occur more than once). Raises
    :class:`ComputeReplacementsError` with the reference's text when a chunk's context or lines
    cannot be found.
    """
    hay = Haystack(lines, joined)
    patterns = PatternBatch([chunk.old_lines for chunk in chunks])
    replacements: list[Replacement] = []
    line_index = 0
    for index, chunk in enumerate(chunks):
        checkpoint()
        anchor = None
        if chunk.change_context is not None:
            anchor = _find_context(hay, chunk.change_context, line_index, path, index, legacy)
            line_index = anchor + 1

        old = chunk.old_lines
        new = chunk.new_lines
        if not old:
            # A pure addition goes at the end of the file, whatever @@ context was found.
            at = len(lines) - 1 if legacy and lines and lines[-1] == "" else len(lines)
            replacements.append((at, 0, new))
            if matches is not None:
                matches.append(ChunkMatch(index, at, PASS_NAMES[0], (), (), anchor, line_index))
            continue

        p = len(old)
        eof = chunk.is_end_of_file
        found = seek_sequence(hay, patterns.pattern(index), line_index, eof, legacy=legacy)
        if found is None and old[-1] == "":
            p -= 1
            if new and new[-1] == "":
                new = new[:-1]
            found = seek_sequence(hay, patterns.pattern(index, p), line_index, eof, legacy=legacy)
        if found is None:
            raise ComputeReplacementsError(
                f"Failed to find expected lines in {path}:\n" + "\n".join(old),
                MatchFailure(
                    path, "lines", tuple(old), line_index, chunk.is_end_of_file, lines, index
                ),
            )
        start = found[0]
        if matches is not None:
            again = None if eof else hay.find_again(patterns.pattern(index, p), found[1], start)
            matches.append(
                ChunkMatch(
                    index,
                    start,
                    PASS_NAMES[found[1]],
                    tuple(old[:p]),
                    tuple(lines[start : start + p]),
                    anchor,
                    line_index,
                    again,
                )
            )
        if legacy:
            replacements.append((start, p, new))
        else:
            replacements.extend(_split_around_context(start, p, new, chunk))
        line_index = start + p

    replacements.sort(key=lambda r: r[0])
    return replacements


def _find_context(
    hay: Haystack, context: str, start: int, path: str, index: int, legacy: bool
) -> int:
    """Where chunk ``index``'s ``@@`` context line is, from ``start`` on (§3.3 step 1)."""
    found = seek_sequence(hay, [context], start, False, legacy=legacy)
    if found is None:
        raise ComputeReplacementsError(
            f"Failed to find context '{context}' in {path}",
            MatchFailure(path, "context", (context,), start, False, hay.lines, index),
        )
    return found[0]


def locate_chunks(
    original: str,
    path: str,
    chunks: Sequence[UpdateFileChunk],
    line_endings: LineEndings = LineEndings.PRESERVE,
) -> list[ChunkMatch]:
    """Where each chunk of an Update with old lines matches in ``original`` and by which
    pass, as :func:`derive_new_contents` finds them (a review marks the fuzzy ones; a pure
    addition, which matches nothing, is not among them). Raises
    :class:`ComputeReplacementsError` as it does."""
    matches: list[ChunkMatch] = []
    legacy = LineEndings(line_endings) is LineEndings.LF
    joined = original if legacy or "\r" not in original else None
    lines = file_lines(original, line_endings)
    compute_replacements(lines, path, chunks, legacy=legacy, joined=joined, matches=matches)
    return [match for match in matches if not match.pure_addition]


def _split_around_context(
    start: int, p: int, new: Sequence[str], chunk: UpdateFileChunk
) -> list[Replacement]:
    """Preserve mode: replace only the gaps between context lines, so those stay untouched."""
    out: list[Replacement] = []
    old_start = new_start = 0
    for oc, nc in chunk.context_line_indices:
        if oc >= p or nc >= len(new):
            break
        if oc > old_start or nc > new_start:
            out.append((start + old_start, oc - old_start, new[new_start:nc]))
        old_start = oc + 1
        new_start = nc + 1
    if old_start < p or new_start < len(new):
        out.append((start + old_start, p - old_start, new[new_start:]))
    return out


def derive_new_contents(
    original: str,
    path: str,
    chunks: Sequence[UpdateFileChunk],
    line_endings: LineEndings = LineEndings.PRESERVE,
    matches: list[ChunkMatch] | None = None,
) -> str:
    """The new text of a file whose current text is ``original``; ``matches``, if given,
    receives where each chunk was placed (:func:`compute_replacements`)."""
    if line_endings is LineEndings.LF:
        return _derive_lf(original, path, chunks, matches)
    return _derive_preserve(original, path, chunks, matches)


def file_lines(original: str, line_endings: LineEndings = LineEndings.PRESERVE) -> list[str]:
    """The lines chunks are matched against, as :func:`derive_new_contents` splits them (a
    :class:`ChunkMatch`'s positions index them)."""
    if LineEndings(line_endings) is LineEndings.LF:
        lines = original.split("\n")
        if lines[-1] == "":
            lines.pop()
        return lines
    return split_terminated_lines(original)[0]


def _derive_lf(
    original: str,
    path: str,
    chunks: Sequence[UpdateFileChunk],
    matches: list[ChunkMatch] | None = None,
) -> str:
    lines = file_lines(original, LineEndings.LF)
    replacements = compute_replacements(
        lines, path, chunks, legacy=True, joined=original, matches=matches
    )
    for start, old_len, new in reversed(replacements):
        lines[start : start + old_len] = new
    if not lines or lines[-1] != "":
        lines.append("")
    return "\n".join(lines)


def _derive_preserve(
    original: str,
    path: str,
    chunks: Sequence[UpdateFileChunk],
    matches: list[ChunkMatch] | None = None,
) -> str:
    lines, terminators = split_terminated_lines(original)
    preferred = next((t for t in terminators if t), "\n")
    if terminators and not terminators[-1]:
        # Every line ends with a terminator, also a formerly last line that moves inward.
        terminators[-1] = preferred
    joined = original if "\r" not in original else None  # then split on LF alone
    replacements = compute_replacements(
        lines, path, chunks, legacy=False, joined=joined, matches=matches
    )
    # With one terminator throughout (the common case), a run of untouched lines is copied with
    # one C-level join; otherwise lines and terminators are interleaved at C level.
    uniform = preferred if terminators.count(preferred) == len(terminators) else None
    out: list[str] = []
    pos = 0
    for start, old_len, new in replacements:
        if start > pos:
            _copy_lines(out, lines, terminators, uniform, pos, start)
            pos = start
        if new:
            out.append(preferred.join(new))
            out.append(preferred)
        pos = max(pos, start + old_len)
    if pos < len(lines):
        _copy_lines(out, lines, terminators, uniform, pos, len(lines))
    return "".join(out)


def _copy_lines(
    out: list[str],
    lines: list[str],
    terminators: list[str],
    uniform: str | None,
    start: int,
    end: int,
) -> None:
    """Append ``lines[start:end]``, each followed by its own terminator."""
    if uniform is not None:
        out.append(uniform.join(lines[start:end]))
        out.append(uniform)
    else:
        out.extend(chain.from_iterable(zip(lines[start:end], terminators[start:end], strict=True)))
