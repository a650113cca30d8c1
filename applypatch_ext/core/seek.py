"""Locate a chunk's lines in a file: the ``seek_sequence`` cascade (spec 3.1-3.2).

Four passes, each over every candidate position, a later pass only if the earlier one found
nothing anywhere: exact, both sides right-trimmed, both sides trimmed, both sides trimmed with
typographic punctuation mapped to ASCII. The file's normalised lines are computed lazily, only
when an earlier pass has failed, and then cached for the next chunks of the same file.

This module only searches; it decides nothing about what is replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from .text import RUST_WHITESPACE

#: Pass 4's mapping of typographic punctuation to ASCII (spec 3.2).
PUNCTUATION_TABLE: Final[dict[int, str]] = {
    **dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-"),
    **dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b"), "'"),
    **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f"), '"'),
    **dict.fromkeys(
        map(
            ord,
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000",
        ),
        " ",
    ),
}

PASS_NAMES: Final = ("exact", "rstrip", "trim", "punctuation")


def _rstrip(line: str) -> str:
    return line.rstrip(RUST_WHITESPACE)


def _strip(line: str) -> str:
    return line.strip(RUST_WHITESPACE)


def _punctuation(line: str) -> str:
    return line.strip(RUST_WHITESPACE).translate(PUNCTUATION_TABLE)


NORMALISERS: Final[tuple[Callable[[str], str] | None, ...]] = (
    None,
    _rstrip,
    _strip,
    _punctuation,
)


class Haystack:
    """A file's lines plus their normalised forms, computed on first need."""

    __slots__ = ("_normalised", "lines")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._normalised: list[Sequence[str] | None] = [lines, None, None, None]

    def __len__(self) -> int:
        return len(self.lines)

    def normalised(self, pass_index: int) -> Sequence[str]:
        cached = self._normalised[pass_index]
        if cached is None:
            normaliser = NORMALISERS[pass_index]
            assert normaliser is not None
            cached = list(map(normaliser, self.lines))
            self._normalised[pass_index] = cached
        return cached


def _find(lines: Sequence[str], pattern: Sequence[str], first: int, last: int) -> int | None:
    """First position in ``first..last`` (inclusive) where ``pattern`` matches exactly."""
    if first > last:
        return None
    head = pattern[0]
    n = len(pattern)
    if n == 1:
        try:
            return lines.index(head, first, last + 1)
        except ValueError:
            return None
    lines_list = lines if isinstance(lines, list) else list(lines)
    pattern_list = list(pattern)
    pos = first
    while True:
        try:
            pos = lines_list.index(head, pos, last + 1)
        except ValueError:
            return None
        if lines_list[pos : pos + n] == pattern_list:
            return pos
        pos += 1


def seek_sequence(
    haystack: Haystack | Sequence[str],
    pattern: Sequence[str],
    start: int,
    eof: bool,
    *,
    legacy: bool = False,
) -> tuple[int, int] | None:
    """Find ``pattern`` in the file's lines; return ``(index, pass)`` or None.

    ``pass`` is 0 for exact, 1 for right-trimmed, 2 for trimmed, 3 for punctuation-mapped.
    With ``eof`` the only candidate is the end of the file: ``len - len(pattern)`` in legacy
    mode even if before ``start``, else only if it is not before ``start``.
    """
    hay = haystack if isinstance(haystack, Haystack) else Haystack(haystack)
    n_lines = len(hay)
    if not pattern:
        return (start, 0)
    if len(pattern) > n_lines:
        return None
    last = n_lines - len(pattern)
    first = (last if legacy else max(last, start)) if eof else start
    if first > last or first < 0:
        return None
    for pass_index, normaliser in enumerate(NORMALISERS):
        lines = hay.normalised(pass_index)
        wanted = pattern if normaliser is None else [normaliser(p) for p in pattern]
        found = _find(lines, wanted, first, last)
        if found is not None:
            return (found, pass_index)
    return None
