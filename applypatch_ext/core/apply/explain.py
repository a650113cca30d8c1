"""Explain a match failure: the closest region of the file and why it did not match.

When a chunk fails with ``Failed to find expected lines`` or ``Failed to find context``, the
reference only prints what it looked for. :func:`explain_match_failure` finds the region of the
file that comes closest, using the same four comparison passes as ``seek_sequence`` (exact,
right-trimmed, trimmed, punctuation-mapped), and describes every line pair: which pass (if any)
makes them equal, and which characters differ (trailing spaces, tabs, typographic quotes and
dashes, CR), so that a front end can show at once why the patch did not apply.

Pure: it works on the lines the failed search saw (``MatchFailure.file_lines``, filled by
:func:`~.contents.compute_replacements`) and never touches the disk.
"""

from __future__ import annotations

import difflib
import heapq
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import MatchFailure
from ..interrupts import checkpoint
from .seek import NORMALISERS, PASS_NAMES

#: Lines shown around the region for orientation.
CONTEXT_LINES: Final = 2
#: Single-line fuzzy search gives up on files longer than this.
MAX_FUZZY_LINES: Final = 20_000
#: Character-level comparison (difflib, quadratic in the line length) only for lines up to this
#: length; longer lines are compared by their common prefix and suffix, which is linear.
MAX_CHAR_DIFF: Final = 200


def _pass_of(expected: str, actual: str) -> int | None:
    """The first pass under which the two lines are equal, or None."""
    for index, normaliser in enumerate(NORMALISERS):
        if normaliser is None:
            if expected == actual:
                return 0
        elif normaliser(expected) == normaliser(actual):
            return index
    return None


def _common_prefix_length(a: str, b: str) -> int:
    """Length of the common prefix, by bisection over C-level slice comparisons."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _affix_segments(a: str, b: str) -> tuple[list[tuple[bool, str]], list[tuple[bool, str]]]:
    """Common prefix and suffix equal, the middle of each side differing: linear time."""
    prefix = _common_prefix_length(a, b)
    limit = min(len(a), len(b)) - prefix
    suffix = min(_common_prefix_length(a[::-1], b[::-1]), limit)

    def split(text: str) -> list[tuple[bool, str]]:
        end = len(text) - suffix
        parts = [(False, text[:prefix]), (True, text[prefix:end]), (False, text[end:])]
        return [part for part in parts if part[1]]

    return split(a), split(b)


def _segments(a: str, b: str) -> tuple[list[tuple[bool, str]], list[tuple[bool, str]]]:
    """Split both strings into (differs, text) runs, character by character."""
    if max(len(a), len(b)) > MAX_CHAR_DIFF:
        return _affix_segments(a, b)
    left: list[tuple[bool, str]] = []
    right: list[tuple[bool, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        differs = tag != "equal"
        if i2 > i1:
            left.append((differs, a[i1:i2]))
        if j2 > j1:
            right.append((differs, b[j1:j2]))
    return left, right


#: Why a line pair has no file line (``LinePair.absent``), in words a front end can show.
ABSENT_REASONS: Final = {
    "past-end": "past the end of the file",
    "no-match": "no similar line in the file",
    "empty-file": "the file is empty",
    "gave-up": "not searched: the search gave up",
}


@dataclass(frozen=True)
class LinePair:
    """One expected line next to the file line it was compared with.

    Without a file line (``actual`` None), ``absent`` says why: ``past-end`` (the closest
    region ends past the file's last line), ``no-match`` (no region at all: nothing in the
    file is close), ``empty-file`` or ``gave-up`` (see :data:`ABSENT_REASONS`)."""

    expected: str | None
    actual: str | None
    line_number: int | None  # 1-based line of the file
    match_pass: int | None  # 0..3, None if no pass makes them equal
    expected_segments: tuple[tuple[bool, str], ...] = ()
    actual_segments: tuple[tuple[bool, str], ...] = ()
    absent: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "expected": self.expected,
            "actual": self.actual,
            "absent": None if self.absent is None else ABSENT_REASONS[self.absent],
            "line_number": self.line_number,
            "match_pass": self.match_pass,
            "pass_name": None if self.match_pass is None else PASS_NAMES[self.match_pass],
            "expected_segments": [list(s) for s in self.expected_segments],
            "actual_segments": [list(s) for s in self.actual_segments],
        }


@dataclass(frozen=True)
class MatchExplanation:
    """The closest region for a failed chunk, line by line."""

    path: str
    kind: str  # "lines" or "context"
    region_start: int | None  # 0-based index of the first file line of the region
    pairs: tuple[LinePair, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]
    summary: str

    @property
    def matched(self) -> int:
        return sum(p.match_pass is not None for p in self.pairs)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "kind": self.kind,
            "region_start": self.region_start,
            "pairs": [p.to_json() for p in self.pairs],
            "before": list(self.before),
            "after": list(self.after),
            "summary": self.summary,
            "matched": self.matched,
        }


#: Seconds the explanation may take. It is a courtesy to the user, never part of the verdict:
#: past this it says that it gave up and why.
EXPLAIN_TIMEOUT: Final = 2.0
#: Votes (a file line equal to a chunk line under the loosest pass) counted for the window
#: search; past this the chunk's remaining, most common lines are not counted, and the best
#: windows so far are scored exactly instead. Keeps the search linear in the file.
MAX_VOTES: Final = 1_000_000
#: How many of the best windows by partial votes are scored exactly.
RESCORED_WINDOWS: Final = 32
#: How many lines of the single-line search, those with the highest bound, get difflib's ratio.
RATIO_CANDIDATES: Final = 64
#: A deadline and cancellation check every this many lines of a loop over the file.
_CHECK_EVERY: Final = 2048


class _GaveUp(Exception):
    """The deadline passed (internal: becomes a "gave up" explanation)."""


class _Deadline:
    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self._end = None if timeout is None else time.monotonic() + timeout

    def check(self) -> None:
        """Honour an interrupt (the call's token), then the deadline."""
        checkpoint()
        if self._end is not None and time.monotonic() > self._end:
            raise _GaveUp()

    def passed(self) -> bool:
        return self._end is not None and time.monotonic() > self._end


def _loosest_lines(lines: Sequence[str], deadline: _Deadline) -> list[str]:
    loosest = NORMALISERS[-1]
    assert loosest is not None
    out: list[str] = []
    for begin in range(0, len(lines), _CHECK_EVERY):
        deadline.check()
        out.extend(map(loosest, lines[begin : begin + _CHECK_EVERY]))
    return out


def _best_window(
    lines: Sequence[str], expected: Sequence[str], start: int, deadline: _Deadline
) -> int | None:
    """Start of the window of ``len(expected)`` lines sharing the most lines with ``expected``.

    Lines are compared under the most lenient pass. Ties go to the window nearest ``start``.
    Each file line equal to a chunk line votes for the window that would align them; the
    chunk's rarest lines vote first, and after :data:`MAX_VOTES` votes (a chunk of lines that
    fill the file, like blank ones) the best windows so far are scored exactly: linear in the
    file and the chunk, where counting every vote was their product.
    """
    normal = _loosest_lines(lines, deadline)
    positions: dict[str, list[int]] = defaultdict(list)
    for begin in range(0, len(normal), _CHECK_EVERY):
        deadline.check()
        for index in range(begin, min(begin + _CHECK_EVERY, len(normal))):
            positions[normal[index]].append(index)
    loosest = NORMALISERS[-1]
    assert loosest is not None
    wanted = [loosest(line) for line in expected]
    last_start = max(len(lines) - len(expected), 0)
    scores: dict[int, int] = defaultdict(int)
    votes = 0
    complete = True
    by_rarity = sorted(range(len(wanted)), key=lambda o: len(positions.get(wanted[o], ())))
    for offset in by_rarity:
        found = positions.get(wanted[offset], ())
        if votes + len(found) > MAX_VOTES:
            complete = False
            break
        votes += len(found)
        deadline.check()
        for index in found:
            window = index - offset
            if 0 <= window <= last_start:
                scores[window] += 1
    if not complete:
        if not scores:  # every chunk line is too common to vote: the windows around start
            scores = dict.fromkeys(range(max(start - 1, 0), min(start + 2, last_start + 1)), 0)
        best = sorted(scores, key=lambda w: (-scores[w], abs(w - start), w))[:RESCORED_WINDOWS]
        scores = {}
        for window in best:
            deadline.check()
            scores[window] = sum(map(str.__eq__, wanted, normal[window : window + len(wanted)]))
    if not scores or not any(scores.values()):
        return None
    return max(scores, key=lambda w: (scores[w], -abs(w - start), -w))


def _closest_single_line(lines: Sequence[str], wanted: str, deadline: _Deadline) -> int | None:
    """The line most similar to ``wanted`` (difflib's ratio at least 0.4), the first of equals.

    ``ratio()`` is quadratic in the line length, ``quick_ratio()`` (an upper bound of it) is
    linear: every line gets the bound, and only the :data:`RATIO_CANDIDATES` lines with the
    highest bounds get the ratio, so a file of similar lines costs linear time, not a ratio
    per line.
    """
    loosest = NORMALISERS[-1]
    assert loosest is not None
    target = loosest(wanted)
    bounds: list[tuple[float, int]] = []
    # The bounds are symmetric: with the wanted line as the second sequence, difflib counts
    # its characters once for all lines.
    bounding = difflib.SequenceMatcher(None, "", target, autojunk=False)
    for index, line in enumerate(lines[:MAX_FUZZY_LINES]):
        if index % 256 == 0:
            deadline.check()
        bounding.set_seq1(loosest(line))
        if bounding.real_quick_ratio() < 0.4:
            continue
        upper = bounding.quick_ratio()
        if upper >= 0.4:
            bounds.append((upper, index))
    best: tuple[float, int] | None = None
    for upper, index in heapq.nlargest(RATIO_CANDIDATES, bounds, key=lambda b: (b[0], -b[1])):
        if best is not None and upper < best[0]:
            break  # sorted by bound: no later line can beat the best
        deadline.check()
        candidate = loosest(lines[index])
        long = max(len(target), len(candidate)) > MAX_CHAR_DIFF
        matcher = difflib.SequenceMatcher(None, target, candidate, autojunk=False)
        ratio = upper if long else matcher.ratio()
        if ratio >= 0.4 and (best is None or (ratio, -index) > (best[0], -best[1])):
            best = (ratio, index)
    return None if best is None else best[1]


def _gave_up(
    failure: MatchFailure, lines: Sequence[str], timeout: float | None
) -> MatchExplanation:
    expected = failure.expected
    summary = (
        f"gave up looking for the closest region after {timeout:g} s (the file has "
        f"{len(lines)} lines, the chunk {len(expected)}); the error above is the verdict, "
        "this explanation only a help"
    )
    pairs = tuple(LinePair(line, None, None, None, absent="gave-up") for line in expected)
    return MatchExplanation(failure.path, failure.kind, None, pairs, (), (), summary)


def explain_match_failure(
    failure: MatchFailure, lines: Sequence[str], *, timeout: float | None = EXPLAIN_TIMEOUT
) -> MatchExplanation:
    """Find and describe the region of ``lines`` closest to what the chunk expected.

    Near-linear in the file and the chunk. Past ``timeout`` seconds (None: no limit) it gives up
    and says so; an interrupt (the current call's cancellation token) raises
    :class:`~.errors.CancelledError`.
    """
    deadline = _Deadline(timeout)
    try:
        return _explain(failure, lines, deadline)
    except _GaveUp:
        return _gave_up(failure, lines, timeout)


def _explain(failure: MatchFailure, lines: Sequence[str], deadline: _Deadline) -> MatchExplanation:
    expected = list(failure.expected)
    start = _best_window(lines, expected, failure.start, deadline)
    if start is None and len(expected) == 1:
        start = _closest_single_line(lines, expected[0], deadline)
    if start is None:
        noun = "context line" if failure.kind == "context" else "expected lines"
        if lines:
            summary = (
                f"none of the {noun} occurs in the file ({len(lines)} lines), even ignoring "
                "whitespace and punctuation"
            )
        else:
            summary = f"the file is empty: there is no line to match the {noun} against"
        absent = "no-match" if lines else "empty-file"
        pairs = tuple(LinePair(line, None, None, None, absent=absent) for line in expected)
        return MatchExplanation(failure.path, failure.kind, None, pairs, (), (), summary)

    pairs_list: list[LinePair] = []
    for offset, wanted in enumerate(expected):
        if offset % 256 == 0:
            checkpoint()
        index = start + offset
        actual = lines[index] if index < len(lines) else None
        if actual is None:
            pairs_list.append(LinePair(wanted, None, None, None, absent="past-end"))
            continue
        match_pass = _pass_of(wanted, actual)
        left: list[tuple[bool, str]]
        right: list[tuple[bool, str]]
        if match_pass == 0:
            left, right = [], []
        elif deadline.passed():  # past the deadline: the linear comparison only
            left, right = _affix_segments(wanted, actual)
        else:
            left, right = _segments(wanted, actual)
        pairs_list.append(
            LinePair(wanted, actual, index + 1, match_pass, tuple(left), tuple(right))
        )
    pairs = tuple(pairs_list)
    matched = [p.match_pass for p in pairs if p.match_pass is not None]
    total = len(pairs)
    if len(matched) == total:
        loosest = max(matched)
        summary = (
            f"all {total} lines match at line {start + 1} (up to the {PASS_NAMES[loosest]} pass), "
            "but not as a block from where the search started (an earlier chunk or @@ context "
            "moved the search past it, or an End of File chunk must end at the last line)"
        )
    else:
        by_pass = ", ".join(
            f"{matched.count(i)} {PASS_NAMES[i]}" for i in range(len(PASS_NAMES)) if i in matched
        )
        summary = (
            f"closest region starts at line {start + 1}: {len(matched)} of {total} lines match"
            + (f" ({by_pass})" if matched else "")
            + f"; {total - len(matched)} differ"
        )
    end = start + len(expected)
    return MatchExplanation(
        failure.path,
        failure.kind,
        start,
        pairs,
        tuple(lines[max(start - CONTEXT_LINES, 0) : start]),
        tuple(lines[end : end + CONTEXT_LINES]),
        summary,
    )


def explain(
    error: BaseException, *, timeout: float | None = EXPLAIN_TIMEOUT
) -> MatchExplanation | None:
    """The explanation of a ``Failed to find ...`` error, from the lines it carries; else None."""
    failure = getattr(error, "failure", None)
    if not isinstance(failure, MatchFailure):
        return None
    return explain_match_failure(failure, failure.file_lines, timeout=timeout)
