"""Locate a chunk's lines in a file: the ``seek_sequence`` cascade (docs/behaviour.md §3.1-3.2).

Four passes, each over every candidate position, a later pass only if the earlier one found
nothing anywhere: exact, both sides right-trimmed, both sides trimmed, both sides trimmed with
typographic punctuation mapped to ASCII. The file's normalised lines are computed lazily, only
when an earlier pass has failed, and then cached for the next chunks of the same file; pass 4
first searches the file's text instead and normalises only the lines where it finds a candidate.

This module only searches; it decides nothing about what is replaced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from itertools import accumulate, chain, repeat
from typing import Final

from ..interrupts import checkpoint
from ..text import RUST_WHITESPACE

#: Pass 4's mapping of typographic punctuation to ASCII (docs/behaviour.md §3.2).
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

#: What ``str.isspace`` counts as whitespace and Rust's ``char::is_whitespace`` does not. The
#: argument-less ``str.strip`` family, which is faster, trims exactly like Rust on a text
#: without these characters.
_PYTHON_ONLY_WHITESPACE: Final = "\x1c\x1d\x1e\x1f"


class _Forms:
    """Lines and their forms in passes 2-4, each form computed for all lines at once, on need.

    ``joined``, if the caller has it, is the lines joined by LF (a final LF allowed): it answers
    "ASCII?" and "trimmable like Python?" and gives pass 4 its text without a join.
    """

    __slots__ = ("_ascii", "_forms", "_joined", "_python_trim", "lines")

    def __init__(self, lines: Sequence[str], joined: str | None = None) -> None:
        self.lines = lines
        self._forms: list[Sequence[str] | None] = [lines, None, None, None]
        self._ascii: list[bool | None] = [None, None, None, None]
        self._python_trim: bool | None = None  # see _trims_like_python
        self._joined = joined

    def __len__(self) -> int:
        return len(self.lines)

    def form(self, pass_index: int) -> Sequence[str]:
        cached = self._forms[pass_index]
        if cached is None:
            if pass_index == 3:
                trimmed = self.form(2)
                cached = trimmed if self.is_ascii(2) else _punctuation_lines(trimmed)
            elif pass_index == 1:
                cached = self._trim(str.rstrip, self.lines)
            else:  # pass 3 trims both ends: only the left one if pass 2 already trimmed the right
                right = self._forms[1]
                cached = (
                    self._trim(str.strip, self.lines)
                    if right is None
                    else self._trim(str.lstrip, right)
                )
            self._forms[pass_index] = cached
        return cached

    def is_ascii(self, pass_index: int = 0) -> bool:
        known = self._ascii[pass_index]
        if known is None:
            if pass_index == 0:
                joined = self._joined
                lines = self.lines
                known = joined.isascii() if joined is not None else all(map(str.isascii, lines))
            else:  # trimming keeps ASCII lines ASCII
                known = self.is_ascii(0) or all(map(str.isascii, self.form(pass_index)))
            self._ascii[pass_index] = known
        return known

    def _trims_like_python(self) -> bool:
        """Whether the argument-less ``str.strip`` family trims these lines exactly."""
        if self._python_trim is None:
            text = self._joined if self._joined is not None else "\n".join(self.lines)
            self._python_trim = not any(char in text for char in _PYTHON_ONLY_WHITESPACE)
        return self._python_trim

    def _trim(self, method: Callable[..., str], lines: Sequence[str]) -> list[str]:
        if self._trims_like_python():
            return list(map(method, lines))
        return list(map(method, lines, repeat(RUST_WHITESPACE)))


class PatternBatch:
    """The patterns of one file's chunks, normalised together on first need.

    A chunk's pattern is a handful of lines; normalising each on its own costs a dozen small
    calls per chunk. The batch computes a form once for the lines of every pattern and hands
    out slices. Nothing is computed while exact matches suffice.
    """

    __slots__ = ("_patterns", "_starts", "_whole")

    def __init__(self, patterns: Sequence[Sequence[str]]) -> None:
        self._patterns = patterns
        self._whole: _Forms | None = None
        self._starts: list[int] = []

    def pattern(self, index: int, length: int | None = None) -> _Forms:
        """Pattern ``index``, or its first ``length`` lines."""
        lines = self._patterns[index]
        if length is not None:
            lines = lines[:length]
        return _BatchedForms(lines, self, index)

    def whole(self) -> tuple[_Forms, list[int]]:
        if self._whole is None:
            self._whole = _Forms(list(chain.from_iterable(self._patterns)))
            self._starts = [0, *accumulate(map(len, self._patterns))]
        return self._whole, self._starts


class _BatchedForms(_Forms):
    """One pattern of a :class:`PatternBatch`: its forms are slices of the batch's."""

    __slots__ = ("_batch", "_index", "_start", "_whole")

    def __init__(self, lines: Sequence[str], batch: PatternBatch, index: int) -> None:
        super().__init__(lines)
        self._batch = batch
        self._index = index
        self._whole: _Forms | None = None  # the batch's forms, and where this pattern starts
        self._start = 0

    def form(self, pass_index: int) -> Sequence[str]:
        cached = self._forms[pass_index]
        if cached is None:
            cached = self._forms[pass_index] = self._slice(self._batch_forms().form(pass_index))
        return cached

    def _batch_forms(self) -> _Forms:
        if self._whole is None:
            self._whole, starts = self._batch.whole()
            self._start = starts[self._index]
        return self._whole

    def _slice(self, whole_form: Sequence[str]) -> Sequence[str]:
        return whole_form[self._start : self._start + len(self.lines)]


class Haystack(_Forms):
    """A file's lines plus their normal forms, computed on first need.

    Four facts keep the fuzzy passes cheap. Each pass's normal form is computed for the whole
    file at once with C-level maps, and only when an earlier pass has failed. Equality under one
    pass implies equality under every later one (``a == b`` implies ``rstrip(a) == rstrip(b)``,
    which implies equal ``strip``, which implies equal punctuation forms): so a pass that
    provably cannot match rules out every earlier pass too, and once a search in a pass has
    failed somewhere, the set of the file's lines in that form can rule out that pass for the
    next chunks without scanning the file. Trimming keeps an ASCII line ASCII, so passes 1-3
    (not 4, which maps to ASCII) cannot match a non-ASCII pattern line in an ASCII file. And a
    line whose pass-4 form is a pattern's longest line holds that line as a substring of its
    mapped text: pass 4 first looks for it in the file's text (:meth:`_find_in_text`), a
    C-level scan that normalises only the lines where it is found.
    """

    __slots__ = (
        "_counts",
        "_cursor_line",
        "_cursor_offset",
        "_joined_forms",
        "_present",
        "_text",
        "_text_known",
    )

    def __init__(self, lines: Sequence[str], joined: str | None = None) -> None:
        super().__init__(lines, joined)
        # Per pass, the set of the file's normalised lines, built after a search in it failed.
        self._present: list[frozenset[str] | None] = [None, None, None, None]
        self._text: str | None = None  # the lines joined by LF, punctuation mapped, on need
        self._text_known = False
        self._cursor_line = self._cursor_offset = 0  # a line index and its offset in ``_text``
        self._joined_forms: list[str | bool | None] = [None, None, None, None]  # see _joined_form
        # Per pass, how often each normalised line occurs, built when a match is checked for
        # a second occurrence (:meth:`find_again`).
        self._counts: list[Counter[str] | None] = [None, None, None, None]

    def ruled_out(self, pattern: _Forms) -> int:
        """The last pass in which ``pattern`` provably cannot match, or -1.

        Not a match in that pass means not a match in any earlier one either.
        """
        for pass_index in (2, 1, 0):
            present = self._present[pass_index]
            if present is not None and not present.issuperset(pattern.form(pass_index)):
                return pass_index
        if not pattern.is_ascii() and self.is_ascii():
            for pass_index in (2, 1):
                if not pattern.is_ascii(pass_index):
                    return pass_index
            return 0
        return -1

    def find(self, pattern: _Forms, pass_index: int, first: int, last: int) -> int | None:
        """First position in ``first..last`` where ``pattern`` matches in ``pass_index``."""
        if pass_index == 3 and self._forms[3] is None:
            found = self._find_in_text(pattern.form(3), first, last)
            if found != _GIVE_UP:
                return found
        found = _find(
            self.form(pass_index),
            pattern.form(pass_index),
            first,
            last,
            partial(self._joined_form, pass_index),
        )
        if found is None and pass_index < 3 and self._present[pass_index] is None:
            # Keep the set of lines in this form: it can rule this pass out for the next chunks.
            self._present[pass_index] = frozenset(self.form(pass_index))
        return found

    def find_again(self, pattern: _Forms, pass_index: int, found: int) -> int | None:
        """The next position after ``found`` where ``pattern`` matches in ``pass_index``, or
        None. A pattern holding a line that occurs once in the file's form cannot occur twice:
        that is answered from the counts of the file's lines, without a search. An empty
        pattern (a chunk whose only old line was the blank one dropped at the end) matches
        anywhere, so no other place is a second match of it: None."""
        if not len(pattern):
            return None
        counts = self._counts[pass_index]
        if counts is None:
            counts = self._counts[pass_index] = Counter(self.form(pass_index))
        if any(counts[line] < 2 for line in pattern.form(pass_index)):
            return None
        last = len(self) - len(pattern)
        return self.find(pattern, pass_index, found + 1, last) if found < last else None

    def _joined_form(self, pass_index: int) -> str | None:
        """The file's lines in that pass's form joined by LF (cached); None if a line holds an
        LF itself (its lines could not be counted back)."""
        cached = self._joined_forms[pass_index]
        if cached is None:
            form = self.form(pass_index)
            joined = "\n".join(form)
            cached = joined if joined.count("\n") == max(len(form) - 1, 0) else False
            self._joined_forms[pass_index] = cached
        return cached if isinstance(cached, str) else None

    def _find_in_text(self, wanted: Sequence[str], first: int, last: int) -> int | None:
        """Pass 4 by a text search: the first match, None, or ``_GIVE_UP``.

        A match at ``p`` puts the longest wanted line, the anchor, as a substring into line
        ``p + j`` of the mapped text. The first occurrence after line ``first + j`` gives the
        first candidate (no line before it can match); only the candidate's lines are
        normalised. After a few candidates that fail, or without an anchor, give up: the
        caller then normalises the whole file once.
        """
        anchor = max(wanted, key=len)
        text = self._mapped_text()
        if not anchor or text is None:
            return _GIVE_UP
        j = wanted.index(anchor)
        n = len(wanted)
        line = first + j  # ``line`` starts at ``offset`` in the text
        offset = self._offset(line)
        # An ASCII line's pass-4 form is the line trimmed.
        normalise = str.strip if self.is_ascii() and self._trims_like_python() else _punctuation
        for _ in range(_CANDIDATES):
            at = text.find(anchor, offset)
            if at < 0:
                return None
            skipped = text.count("\n", offset, at)
            if skipped:
                line += skipped
                offset = text.rfind("\n", offset, at) + 1
            self._cursor_line, self._cursor_offset = line, offset
            p = line - j
            if p > last:
                return None
            if list(map(normalise, self.lines[p : p + n])) == wanted:
                return p
            offset = text.find("\n", at) + 1  # on to the next line
            if not offset:
                return None
            line += 1
        return _GIVE_UP

    def _mapped_text(self) -> str | None:
        """The lines joined by LF, punctuation mapped; None if a line holds an LF itself."""
        if not self._text_known:
            self._text_known = True
            text: str | None = self._joined
            if text is None:
                text = "\n".join(self.lines)
                if text.count("\n") != len(self.lines) - 1:
                    return None  # lines would not be counted right
            self._text = text if self.is_ascii() else _map_punctuation(text)
        return self._text

    def _offset(self, index: int) -> int:
        """Offset of line ``index`` in ``_text``, counted on from the last line visited."""
        line, offset = self._cursor_line, self._cursor_offset
        if index < line:
            line = offset = 0
        offset += sum(map(len, self.lines[line:index])) + index - line
        self._cursor_line, self._cursor_offset = index, offset
        return offset


#: How many candidates a text search of pass 4 may reject before the whole file is normalised.
_CANDIDATES: Final = 8
_GIVE_UP: Final = -1  # no position is negative


def _punctuation_lines(stripped: Sequence[str]) -> Sequence[str]:
    """Pass 4's form of already-trimmed lines: mapped all at once, joined into one text."""
    joined = "\n".join(stripped)
    if joined.count("\n") != len(stripped) - 1:  # a line with its own LF: not splittable back
        return list(map(_map_punctuation, stripped))
    return _map_punctuation(joined).split("\n")


#: How many positions whose first line matches may fail before :func:`_find` switches from
#: comparing line lists (quick when the first line is rare) to a text search (linear always).
_LIST_CANDIDATES: Final = 32
#: A cancellation checkpoint every this many candidate positions of a list comparison.
_CHECK_EVERY: Final = 4096


def _find(
    lines: Sequence[str],
    pattern: Sequence[str],
    first: int,
    last: int,
    text: Callable[[], str | None] | None = None,
) -> int | None:
    """First position in ``first..last`` (inclusive) where ``pattern`` matches exactly.

    Comparing the pattern at each position where its first line occurs costs the pattern's
    length per position: a file of one repeated line and a long pattern of it that differs
    only at its end made that quadratic (a 6 KB patch against a 400 KB file: a minute). After
    :data:`_LIST_CANDIDATES` failed positions the rest is one C-level search of the lines
    joined by LF (``text``, if given, returns that joined text or None when a line holds an
    LF itself), which is linear in the file whatever the pattern.
    """
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
    failed = 0
    while True:
        try:
            pos = lines_list.index(head, pos, last + 1)
        except ValueError:
            return None
        if lines_list[pos : pos + n] == pattern_list:
            return pos
        pos += 1
        failed += 1
        if failed == _LIST_CANDIDATES and text is not None:
            joined = text()
            if joined is not None and pos <= last:
                found = _find_in_joined(joined, lines_list, pattern_list, pos)
                if found is not _NO_TEXT:
                    return found if found is not None and found <= last else None
        elif failed % _CHECK_EVERY == 0:
            checkpoint()


_NO_TEXT: Final = -2  # the pattern cannot be searched as text (a line holds an LF)


def _find_in_joined(joined: str, lines: list[str], pattern: list[str], first: int) -> int | None:
    """The first line index ``>= first`` where ``pattern`` starts in ``joined`` (the lines joined
    by LF), found by one text search of the pattern's lines between LFs; or :data:`_NO_TEXT`."""
    needle = "\n".join(pattern)
    if needle.count("\n") != len(pattern) - 1:
        return _NO_TEXT
    # Offset of line ``first`` in ``joined``; a match must start a line and end one.
    offset = sum(map(len, lines[:first])) + first
    size = len(joined)
    while True:
        at = joined.find(needle, offset)
        if at < 0:
            return None
        end = at + len(needle)
        starts_line = at == 0 or joined[at - 1] == "\n"
        if starts_line and (end == size or joined[end] == "\n"):
            return first + joined.count("\n", offset, at)
        # Not aligned on lines: go on from the next line start after ``at``.
        next_line = joined.find("\n", at) + 1
        if not next_line:
            return None
        first += joined.count("\n", offset, next_line)
        offset = next_line
        checkpoint()


def seek_sequence(
    haystack: Haystack | Sequence[str],
    pattern: Sequence[str] | _Forms,
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
    forms = pattern if isinstance(pattern, _Forms) else _Forms(pattern)
    n_lines = len(hay)
    n_pattern = len(forms)
    if not n_pattern:
        return (start, 0)
    if n_pattern > n_lines:
        return None
    last = n_lines - n_pattern
    first = (last if legacy else max(last, start)) if eof else start
    if first > last or first < 0:
        return None
    for pass_index in range(hay.ruled_out(forms) + 1, len(NORMALISERS)):
        found = hay.find(forms, pass_index, first, last)
        if found is not None:
            return (found, pass_index)
    return None
