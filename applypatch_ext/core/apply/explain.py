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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import MatchFailure
from ..interrupts import checkpoint
from ..visible import shown
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

    def describe(self) -> list[str]:
        """The near miss in plain text (:func:`explanation_lines`)."""
        return explanation_lines(self.to_json())

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


def explanation_lines(explanation: Mapping[str, Any]) -> list[str]:
    """A near miss (:meth:`MatchExplanation.to_json`, or a saved copy of it) in plain text: its
    summary, then each expected line beside the file's, with the pass that makes them equal;
    the one text of it for the records and the desk's tools. Each line is shown whole, its
    invisible characters escaped as a diagnosis's message shows them (:func:`~..visible.shown`)."""
    lines = [str(explanation.get("summary", ""))]
    for pair in explanation.get("pairs", []):
        if not isinstance(pair, Mapping):
            continue
        number = pair.get("line_number")
        place = f"line {number}" if number else "no line"
        verdict = pair.get("pass_name") or "differs"
        actual = pair.get("actual")
        text = f"({pair.get('absent') or 'no line'})" if actual is None else _whole(actual)
        lines.append(f"  expected: {_whole(pair.get('expected'))}")
        lines.append(f"  {place:>9}: {text}  [{verdict}]")
    return lines


def _whole(line: object) -> str:
    text = str(line)
    return shown(text, limit=max(len(text), 1))


#: Steps of work the explanation may take (a step: a file line visited, a vote counted, a
#: character compared). It is a courtesy to the user, never part of the verdict: past this it
#: says that it gave up and why. A count, not a time, so that the explanation (and the
#: diagnosis built on it) is the same on any machine, however busy.
WORK_BUDGET: Final = 10_000_000
#: Votes (a file line equal to a chunk line under the loosest pass) counted for the window
#: search; past this the chunk's remaining, most common lines are not counted, and the best
#: windows so far are scored exactly instead. Keeps the search linear in the file.
MAX_VOTES: Final = 1_000_000
#: How many of the best windows by partial votes are scored exactly.
RESCORED_WINDOWS: Final = 32
#: How many lines of the single-line search, those with the highest bound, get difflib's ratio.
RATIO_CANDIDATES: Final = 64
#: How many lines of a chunk none of whose lines is in the file are looked for by similarity.
SIMILAR_LINES: Final = 8
#: A budget and cancellation check every this many lines of a loop over the file.
_CHECK_EVERY: Final = 2048


class _GaveUp(Exception):
    """The work budget is spent (internal: becomes a "gave up" explanation)."""


class _Budget:
    """The steps of work left to the explanation (None: no limit), and the call's interrupt."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self, steps: int) -> None:
        """Honour an interrupt (the call's token), then count ``steps``: past the budget, give
        up."""
        checkpoint()
        self.spent += steps
        if self.limit is not None and self.spent > self.limit:
            raise _GaveUp()

    def charge(self, steps: int) -> None:
        """Count ``steps`` of a part that does not give up (it takes a cheaper way instead)."""
        self.spent += steps

    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit


def _loosest_lines(lines: Sequence[str], budget: _Budget) -> list[str]:
    loosest = NORMALISERS[-1]
    assert loosest is not None
    out: list[str] = []
    for begin in range(0, len(lines), _CHECK_EVERY):
        block = lines[begin : begin + _CHECK_EVERY]
        budget.spend(len(block))
        out.extend(map(loosest, block))
    return out


def _best_window(
    lines: Sequence[str], expected: Sequence[str], start: int, budget: _Budget
) -> int | None:
    """Start of the window of ``len(expected)`` lines sharing the most lines with ``expected``.

    Lines are compared under the most lenient pass. Ties go to the window nearest ``start``.
    Each file line equal to a chunk line votes for the window that would align them, with the
    weight of its characters plus one (a blank line or a ``}`` says little of where a chunk
    belongs, a long line much); the
    chunk's rarest lines vote first, and after :data:`MAX_VOTES` votes (a chunk of lines that
    fill the file, like blank ones) the best windows so far are scored exactly: linear in the
    file and the chunk, where counting every vote was their product.
    """
    normal = _loosest_lines(lines, budget)
    positions: dict[str, list[int]] = defaultdict(list)
    for begin in range(0, len(normal), _CHECK_EVERY):
        budget.spend(min(_CHECK_EVERY, len(normal) - begin))
        for index in range(begin, min(begin + _CHECK_EVERY, len(normal))):
            positions[normal[index]].append(index)
    loosest = NORMALISERS[-1]
    assert loosest is not None
    wanted = [loosest(line) for line in expected]
    last_start = max(len(lines) - len(expected), 0)
    scores: dict[int, int] = defaultdict(int)
    weights = [len(line) + 1 for line in wanted]
    votes = 0
    complete = True
    by_rarity = sorted(range(len(wanted)), key=lambda o: len(positions.get(wanted[o], ())))
    for offset in by_rarity:
        found = positions.get(wanted[offset], ())
        if votes + len(found) > MAX_VOTES:
            complete = False
            break
        votes += len(found)
        budget.spend(len(found) + 1)
        weight = weights[offset]
        for index in found:
            window = index - offset
            if 0 <= window <= last_start:
                scores[window] += weight
    if not complete:
        if not scores:  # every chunk line is too common to vote: the windows around start
            scores = dict.fromkeys(range(max(start - 1, 0), min(start + 2, last_start + 1)), 0)
        best = sorted(scores, key=lambda w: (-scores[w], abs(w - start), w))[:RESCORED_WINDOWS]
        scores = {}
        for window in best:
            budget.spend(len(wanted))
            region = normal[window : window + len(wanted)]
            scores[window] = sum(
                w for w, a, b in zip(weights, wanted, region, strict=False) if a == b
            )
    if not scores or not any(scores.values()):
        return None
    return max(scores, key=lambda w: (scores[w], -abs(w - start), -w))


def _closest_single_line(lines: Sequence[str], wanted: str, budget: _Budget) -> int | None:
    """The line most similar to ``wanted`` (difflib's ratio at least 0.4), the first of equals."""
    best = _closest_line(lines, wanted, budget)
    return None if best is None else best[1]


def _closest_by_similarity(
    lines: Sequence[str], expected: Sequence[str], budget: _Budget
) -> int | None:
    """For a chunk none of whose lines is in the file: the window aligned on the file line
    most similar to one of the chunk's first :data:`SIMILAR_LINES` lines that are not blank,
    a similarity weighted by the chunk line's length (a short line, ``}``, is similar to too
    many; ties: the earlier chunk line)."""
    best: tuple[float, int, int] | None = None
    tried = 0
    for offset, wanted in enumerate(expected):
        if tried == SIMILAR_LINES:
            break
        if not wanted.strip():
            continue
        tried += 1
        found = _closest_line(lines, wanted, budget)
        score = None if found is None else found[0] * len(wanted.strip())
        if found is not None and score is not None and (best is None or score > best[0]):
            best = (score, found[1], offset)
    if best is None:
        return None
    return min(max(best[1] - best[2], 0), max(len(lines) - 1, 0))


def _closest_line(lines: Sequence[str], wanted: str, budget: _Budget) -> tuple[float, int] | None:
    """The ratio and index of the line most similar to ``wanted`` (difflib's ratio at least
    0.4), the first of equals.

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
    cost = 0
    for index, line in enumerate(lines[:MAX_FUZZY_LINES]):
        cost += len(line) + 1
        if index % 256 == 255:
            budget.spend(cost)
            cost = 0
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
        candidate = loosest(lines[index])
        long = max(len(target), len(candidate)) > MAX_CHAR_DIFF
        budget.spend(len(target) + len(candidate) if long else len(target) * len(candidate) + 1)
        matcher = difflib.SequenceMatcher(None, target, candidate, autojunk=False)
        ratio = upper if long else matcher.ratio()
        if ratio >= 0.4 and (best is None or (ratio, -index) > (best[0], -best[1])):
            best = (ratio, index)
    return best


def _lines(count: int) -> str:
    """``1 line``, ``2 lines``."""
    return f"{count} line{'' if count == 1 else 's'}"


def _gave_up(failure: MatchFailure, lines: Sequence[str], budget: int | None) -> MatchExplanation:
    expected = failure.expected
    summary = (
        f"gave up looking for the closest region after {budget:,} steps of work (the file has "
        f"{_lines(len(lines))}, the chunk {len(expected)}); the error above is the verdict, "
        "this explanation only a help"
    )
    pairs = tuple(LinePair(line, None, None, None, absent="gave-up") for line in expected)
    return MatchExplanation(failure.path, failure.kind, None, pairs, (), (), summary)


def explain_match_failure(
    failure: MatchFailure, lines: Sequence[str], *, budget: int | None = WORK_BUDGET
) -> MatchExplanation:
    """Find and describe the region of ``lines`` closest to what the chunk expected.

    Near-linear in the file and the chunk. Past ``budget`` steps of work (None: no limit) it
    gives up and says so, the same on every machine; an interrupt (the current call's
    cancellation token) raises :class:`~..errors.CancelledError`.
    """
    work = _Budget(budget)
    try:
        return _explain(failure, lines, work)
    except _GaveUp:
        return _gave_up(failure, lines, budget)


def _explain(failure: MatchFailure, lines: Sequence[str], budget: _Budget) -> MatchExplanation:
    expected = list(failure.expected)
    start = _best_window(lines, expected, failure.start, budget)
    if start is None and len(expected) == 1:
        start = _closest_single_line(lines, expected[0], budget)
    elif start is None and lines:
        start = _closest_by_similarity(lines, expected, budget)
    if start is None:
        noun = "context line" if failure.kind == "context" else "expected lines"
        if lines:
            summary = (
                f"none of the {noun} occurs in the file ({_lines(len(lines))}), even ignoring "
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
        short = max(len(wanted), len(actual)) <= MAX_CHAR_DIFF
        if match_pass == 0:
            left, right = [], []
        elif budget.exhausted() or not short:  # the linear comparison only
            budget.charge(len(wanted) + len(actual))
            left, right = _affix_segments(wanted, actual)
        else:
            budget.charge(len(wanted) * len(actual) + 1)
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
            f"{'its line matches' if total == 1 else f'all {total} lines match'} at line "
            f"{start + 1} (up to the {PASS_NAMES[loosest]} pass), "
            "but not as a block from where the search started (an earlier chunk or @@ context "
            "moved the search past it, or an End of File chunk must end at the last line)"
        )
    else:
        by_pass = ", ".join(
            f"{matched.count(i)} {PASS_NAMES[i]}" for i in range(len(PASS_NAMES)) if i in matched
        )
        summary = (
            f"closest region starts at line {start + 1}: {len(matched)} of {_lines(total)} "
            f"match{'es' if total == 1 else ''}"
            + (f" ({by_pass})" if matched else "")
            + f"; {total - len(matched)} differ{'s' if total - len(matched) == 1 else ''}"
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


def explain(error: BaseException, *, budget: int | None = WORK_BUDGET) -> MatchExplanation | None:
    """The explanation of a ``Failed to find ...`` error, from the lines it carries; else None."""
    failure = getattr(error, "failure", None)
    if not isinstance(failure, MatchFailure):
        return None
    return explain_match_failure(failure, failure.file_lines, budget=budget)
