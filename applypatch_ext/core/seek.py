"""Locate a chunk's lines in a file: the ``seek_sequence`` cascade (spec 3.1-3.2).

Four passes, each over every candidate position, a later pass only if the earlier one found
nothing anywhere: exact, both sides right-trimmed, both sides trimmed, both sides trimmed with
typographic punctuation mapped to ASCII. The file's normalised lines are computed lazily, only
when an earlier pass has failed, and then cached for the next chunks of the same file.

This module only searches; it decides nothing about what is replaced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
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

_PUNCTUATION_PAIRS: Final = tuple(
    (chr(code), ascii_char) for code, ascii_char in PUNCTUATION_TABLE.items()
)


def _rstrip(line: str) -> str:
    return line.rstrip(RUST_WHITESPACE)


def _strip(line: str) -> str:
    return line.strip(RUST_WHITESPACE)


def _punctuation(line: str) -> str:
    return _map_punctuation(line.strip(RUST_WHITESPACE))


def _map_punctuation(text: str) -> str:
    """``text.translate(PUNCTUATION_TABLE)``, faster.

    ``str.translate`` takes a dictionary look-up per character of a non-ASCII text. The table
    sends single characters to single ASCII characters that it does not map again, so one
    C-level ``str.replace`` per mapped character that occurs gives the same text.
    """
    if text.isascii():
        return text
    for char, ascii_char in _PUNCTUATION_PAIRS:
        if char in text:
            text = text.replace(char, ascii_char)
    return text


NORMALISERS: Final[tuple[Callable[[str], str] | None, ...]] = (
    None,
    _rstrip,
    _strip,
    _punctuation,
)


class Haystack:
    """A file's lines plus their normalised forms, computed on first need.

    Two facts keep the fuzzy passes cheap. Each pass's normal form is computed for the whole
    file at once with C-level maps, and only when an earlier pass has failed. And equality under
    one pass implies equality under every later one (``a == b`` implies ``rstrip(a) ==
    rstrip(b)``, which implies equal ``strip``, which implies equal punctuation forms), so once a
    pass has failed somewhere, the set of the file's lines in that form can reject a later
    chunk's search in that pass, and in every earlier pass, without scanning the file.
    """

    __slots__ = ("_ascii", "_normalised", "_present", "lines")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._ascii: bool | None = None  # whether every line is ASCII, once asked
        self._normalised: list[Sequence[str] | None] = [lines, None, None, None]
        # Per pass, the set of the file's normalised lines, built after a search in it failed.
        self._present: list[frozenset[str] | None] = [None, None, None, None]

    def __len__(self) -> int:
        return len(self.lines)

    def normalised(self, pass_index: int) -> Sequence[str]:
        cached = self._normalised[pass_index]
        if cached is None:
            if pass_index == 3:
                cached = _punctuation_lines(self.normalised(2))
            else:
                # Pass 2 strips what pass 1 left: the right end is already clean.
                source = self.lines if pass_index == 1 else self.normalised(1)
                strip = str.rstrip if pass_index == 1 else str.lstrip
                cached = list(map(strip, source, repeat(RUST_WHITESPACE)))
            self._normalised[pass_index] = cached
        return cached

    def rejects(self, forms: list[Sequence[str] | None], pass_index: int) -> bool:
        """True if the sets prove that the pattern cannot match in pass ``pass_index``.

        ``forms[k]`` is the pattern in pass ``k``'s form (``forms[0]`` the pattern itself),
        computed here where a set needs it and missing.
        """
        for k in range(pass_index, 3):
            present = self._present[k]
            if present is None:
                continue
            form = forms[k]
            if form is None:
                form = forms[k] = _normalise_pattern(forms[0], k)
            if not present.issuperset(form):
                return True
        # Trimming keeps an ASCII line ASCII, so in passes 1-3 (not 4, which maps to ASCII) a
        # non-ASCII pattern line cannot match anywhere in an all-ASCII file.
        if pass_index < 3:
            form = forms[pass_index]
            if form is None:
                form = forms[pass_index] = _normalise_pattern(forms[0], pass_index)
            if not all(map(str.isascii, form)) and self.is_ascii():
                return True
        return False

    def is_ascii(self) -> bool:
        if self._ascii is None:
            self._ascii = all(map(str.isascii, self.lines))
        return self._ascii

    def failed(self, pass_index: int) -> None:
        """A search in ``pass_index`` failed: keep its set of lines for the next chunks."""
        if self._present[pass_index] is None and pass_index < 3:
            self._present[pass_index] = frozenset(self.normalised(pass_index))


def _normalise_pattern(pattern: Sequence[str] | None, pass_index: int) -> list[str]:
    normaliser = NORMALISERS[pass_index]
    assert pattern is not None and normaliser is not None
    return [normaliser(line) for line in pattern]


def _punctuation_lines(stripped: Sequence[str]) -> Sequence[str]:
    """Pass 4's form of already-trimmed lines: mapped all at once, joined into one text."""
    if all(map(str.isascii, stripped)):
        return stripped
    joined = "\n".join(stripped)
    if joined.count("\n") != len(stripped) - 1:  # a line with its own LF: not splittable back
        return list(map(_map_punctuation, stripped))
    return _map_punctuation(joined).split("\n")


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
    forms: list[Sequence[str] | None] = [pattern, None, None, None]
    for pass_index in range(len(NORMALISERS)):
        if hay.rejects(forms, pass_index):
            continue
        wanted = forms[pass_index]
        if wanted is None:
            wanted = forms[pass_index] = _normalise_pattern(pattern, pass_index)
        found = _find(hay.normalised(pass_index), wanted, first, last)
        if found is not None:
            return (found, pass_index)
        hay.failed(pass_index)
    return None
