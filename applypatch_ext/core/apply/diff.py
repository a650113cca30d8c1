"""Line diffs that are byte-identical to the Rust crate ``similar`` 2.7.0 as Codex uses it.

What this module does (docs/behaviour.md §8.6): it tokenises texts into lines that keep their
terminators, runs similar's Myers divide-and-conquer (same middle-snake rules, same optional
deadline and the same delete-all + insert-all fallback when it expires), applies the crate's
two-sweep compaction and its replace merging, groups the ops with a context radius and renders
unified-diff hunks (``@@ -a,b +c,d @@``, ``\\ No newline at end of file``, optional ``---``/``+++``
pair). It also computes git blob ids (§8.4). The diffs of §4.5 use radius 1 without header; the
TurnDiffTracker uses radius 3 with a header and a deadline.

What it does not do: no file access, no ``diff --git``/``index``/mode lines (the tracker writes
those), no other algorithms of the crate (patience, LCS), no word or character diffs. Tokens are
mapped to integer ids before diffing (the crate does so above 100 tokens); that never changes a
result, it only makes comparisons cheap.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import chain
from typing import Final

__all__ = [
    "NULL_OID",
    "DiffOp",
    "DiffTag",
    "diff_ops",
    "git_blob_oid",
    "group_ops",
    "split_diff_lines",
    "unified_diff",
    "unified_diff_with_status",
]

#: The object id git shows for an absent side of a change.
NULL_OID: Final = "0" * 40

_NO_NEWLINE_HINT: Final = "\n\\ No newline at end of file\n"

# A line is everything up to and including `\r\n`, a lone `\r` or `\n`; a non-empty unterminated
# remainder is the last line. `\r\n` is tried before `\r` so that it stays one terminator.
_LINE_RE: Final = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


class DiffTag(Enum):
    """The kind of a :class:`DiffOp` (the crate's ``DiffTag``)."""

    EQUAL = "equal"
    DELETE = "delete"
    INSERT = "insert"
    REPLACE = "replace"


@dataclass(frozen=True, slots=True)
class DiffOp:
    """One operation: ``old[old_index:old_index + old_len]`` becomes ``new[new_index:...]``.

    Equal has ``old_len == new_len``, Delete has ``new_len == 0``, Insert has ``old_len == 0``,
    exactly like the ranges of the crate's ``DiffOp::as_tag_tuple``.
    """

    tag: DiffTag
    old_index: int
    old_len: int
    new_index: int
    new_len: int

    @property
    def old_end(self) -> int:
        return self.old_index + self.old_len

    @property
    def new_end(self) -> int:
        return self.new_index + self.new_len


def split_diff_lines(text: str) -> list[str]:
    """Split ``text`` into lines keeping their terminators (``\\r\\n``, lone ``\\r``, ``\\n``).

    >>> split_diff_lines("first\\nsecond\\rthird\\r\\nlast")
    ['first\\n', 'second\\r', 'third\\r\\n', 'last']
    """
    if "\r" in text:
        return _LINE_RE.findall(text)
    # Without CR a plain split does the same job in about half the time of the expression.
    pieces = text.split("\n")
    last = pieces.pop()
    lines = [piece + "\n" for piece in pieces]
    if last:
        lines.append(last)
    return lines


def git_blob_oid(text: str) -> str:
    """The git blob id of ``text`` encoded as UTF-8 (what ``git hash-object --stdin`` prints)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# --------------------------------------------------------------------------------------------
# Myers' divide and conquer (similar's `algorithms::myers`).
#
# Raw ops are mutable lists `[tag, old_index, old_len, new_index, new_len]` because compaction
# edits them in place; they become frozen DiffOps only at the end.

_EQ: Final = 0
_DEL: Final = 1
_INS: Final = 2
_RawOp = list[int]


def _common_prefix_len(
    a: Sequence[int], i: int, i_end: int, b: Sequence[int], j: int, j_end: int
) -> int:
    """How many items ``a[i:i_end]`` and ``b[j:j_end]`` share at their start."""
    n = min(i_end - i, j_end - j)
    if n <= 0 or a[i] != b[j]:
        return 0
    # Long runs of equal lines are common (the text between two edits), so after a few single
    # steps the run is measured with slice comparisons, which run at C speed: the window doubles
    # while it matches and halves when it does not.
    k = 1
    short = min(n, 8)
    while k < short and a[i + k] == b[j + k]:
        k += 1
    if k < short:
        return k
    step = 8
    while k < n:
        size = min(step, n - k)
        if a[i + k : i + k + size] == b[j + k : j + k + size]:
            k += size
            step = size * 2
        elif size == 1:
            break
        else:
            step = size // 2
    return k


def _common_suffix_len(
    a: Sequence[int], i: int, i_end: int, b: Sequence[int], j: int, j_end: int
) -> int:
    """How many items ``a[i:i_end]`` and ``b[j:j_end]`` share at their end."""
    n = min(i_end - i, j_end - j)
    if n <= 0 or a[i_end - 1] != b[j_end - 1]:
        return 0
    k = 1
    short = min(n, 8)
    while k < short and a[i_end - 1 - k] == b[j_end - 1 - k]:
        k += 1
    if k < short:
        return k
    step = 8
    while k < n:
        size = min(step, n - k)
        if a[i_end - k - size : i_end - k] == b[j_end - k - size : j_end - k]:
            k += size
            step = size * 2
        elif size == 1:
            break
        else:
            step = size // 2
    return k


class _Deadline:
    """The optional deadline, and whether it cut a sub-problem short."""

    __slots__ = ("at", "hit")

    def __init__(self, at: float | None) -> None:
        self.at = at
        self.hit = False

    def expired(self) -> bool:
        return self.at is not None and time.monotonic() > self.at


def _find_middle_snake(
    old: Sequence[int],
    old_lo: int,
    old_hi: int,
    new: Sequence[int],
    new_lo: int,
    new_hi: int,
    vf: list[int],
    vb: list[int],
    deadline: _Deadline,
) -> tuple[int, int] | None:
    """The start of the middle snake as absolute ``(x, y)``, or None when the deadline expired.

    ``vf``/``vb`` are indexed by diagonal ``k`` directly: a negative ``k`` lands at the end of
    the list, which is long enough (``2 * max_d + 2``) that both halves never meet.
    """
    n = old_hi - old_lo
    m = new_hi - new_lo
    delta = n - m
    odd = delta & 1 == 1
    vf[1] = 0
    vb[1] = 0
    for d in range((n + m + 1) // 2 + 1):
        if deadline.expired():
            return None
        # Forward pass.
        for k in range(d, -d - 1, -2):
            x = vf[k + 1] if k == -d or (k != d and vf[k - 1] < vf[k + 1]) else vf[k - 1] + 1
            y = x - k
            x0 = x
            # `y` may be negative here; the crate's usize wraps it to a huge value, which fails
            # the same bounds check.
            if x < n and 0 <= y < m and old[old_lo + x] == new[new_lo + y]:
                x += _common_prefix_len(old, old_lo + x, old_hi, new, new_lo + y, new_hi)
            vf[k] = x
            if odd and abs(k - delta) <= d - 1 and x + vb[delta - k] >= n:
                return x0 + old_lo, x0 - k + new_lo
        # Backward pass, on coordinates counted from the ends.
        for k in range(d, -d - 1, -2):
            x = vb[k + 1] if k == -d or (k != d and vb[k - 1] < vb[k + 1]) else vb[k - 1] + 1
            y = x - k
            if x < n and 0 <= y < m and old[old_hi - x - 1] == new[new_hi - y - 1]:
                advance = _common_suffix_len(old, old_lo, old_hi - x, new, new_lo, new_hi - y)
                x += advance
                y += advance
            vb[k] = x
            if not odd and abs(k - delta) <= d and x + vf[delta - k] >= n:
                return n - x + old_lo, m - y + new_lo
    # Unreachable for consistent input; handled like an expired deadline, as the crate does.
    return None


def _conquer(
    old: Sequence[int],
    old_lo: int,
    old_hi: int,
    new: Sequence[int],
    new_lo: int,
    new_hi: int,
    vf: list[int],
    vb: list[int],
    deadline: _Deadline,
    ops: list[_RawOp],
) -> None:
    prefix = _common_prefix_len(old, old_lo, old_hi, new, new_lo, new_hi)
    if prefix:
        ops.append([_EQ, old_lo, prefix, new_lo, prefix])
        old_lo += prefix
        new_lo += prefix
    suffix = _common_suffix_len(old, old_lo, old_hi, new, new_lo, new_hi)
    old_hi -= suffix
    new_hi -= suffix

    if old_lo == old_hi and new_lo == new_hi:
        pass
    elif new_lo == new_hi:
        ops.append([_DEL, old_lo, old_hi - old_lo, new_lo, 0])
    elif old_lo == old_hi:
        ops.append([_INS, old_lo, 0, new_lo, new_hi - new_lo])
    else:
        snake = _find_middle_snake(old, old_lo, old_hi, new, new_lo, new_hi, vf, vb, deadline)
        if snake is None:
            deadline.hit = True
            ops.append([_DEL, old_lo, old_hi - old_lo, new_lo, 0])
            ops.append([_INS, old_lo, 0, new_lo, new_hi - new_lo])
        else:
            x, y = snake
            _conquer(old, old_lo, x, new, new_lo, y, vf, vb, deadline, ops)
            _conquer(old, x, old_hi, new, y, new_hi, vf, vb, deadline, ops)

    if suffix:
        ops.append([_EQ, old_hi, suffix, new_hi, suffix])


# --------------------------------------------------------------------------------------------
# Compaction (similar's `algorithms::compact`, after diffy): slide change blocks so that they
# touch and merge. The crate's helpers map onto the uniform raw op as follows: offsets move both
# indices; length changes apply to `old_len` for Equal/Delete and `new_len` for Equal/Insert.


def _adjust(op: _RawOp, offset: int, length: int) -> None:
    op[1] += offset
    op[3] += offset
    if op[0] != _INS:
        op[2] += length
    if op[0] != _DEL:
        op[4] += length


def _is_empty(op: _RawOp) -> bool:
    return op[2] == 0 and op[4] == 0


def _change_len(op: _RawOp) -> int:
    return op[2] if op[0] == _DEL else op[4]


def _shift_up(ops: list[_RawOp], old: Sequence[int], new: Sequence[int], p: int) -> int:
    """Move the change at ``p`` towards the start; returns its new position."""
    while p > 0:
        prev = ops[p - 1]
        this = ops[p]
        if prev[0] == _EQ:
            # Compares the Equal's *old* items with this op's *new* items; a Delete has an empty
            # new range, so deletions never slide.
            s = _common_suffix_len(old, prev[1], prev[1] + prev[2], new, this[3], this[3] + this[4])
            if s > 0:
                if p + 1 < len(ops) and ops[p + 1][0] == _EQ:
                    _adjust(ops[p + 1], -s, s)
                else:
                    ops.insert(p + 1, [_EQ, prev[1] + prev[2] - s, s, this[3] + this[4] - s, s])
                _adjust(this, -s, 0)
                _adjust(prev, 0, -s)
                if _is_empty(prev):
                    del ops[p - 1]
                    p -= 1
            elif _is_empty(prev):
                del ops[p - 1]
                p -= 1
            else:
                break
        elif prev[0] != this[0]:
            # A Delete and an Insert trade places; like the crate, their indices stay as they are.
            ops[p - 1], ops[p] = this, prev
            p -= 1
        else:
            _adjust(prev, 0, _change_len(this))
            del ops[p]
            p -= 1
    return p


def _shift_down(ops: list[_RawOp], old: Sequence[int], new: Sequence[int], p: int) -> int:
    """Move the change at ``p`` towards the end; returns its new position."""
    while p + 1 < len(ops):
        this = ops[p]
        nxt = ops[p + 1]
        if nxt[0] == _EQ:
            q = _common_prefix_len(old, nxt[1], nxt[1] + nxt[2], new, this[3], this[3] + this[4])
            if q > 0:
                if p > 0 and ops[p - 1][0] == _EQ:
                    _adjust(ops[p - 1], 0, q)
                else:
                    ops.insert(p, [_EQ, nxt[1], q, this[3], q])
                    p += 1
                _adjust(this, q, 0)
                _adjust(nxt, q, -q)
                if _is_empty(nxt):
                    del ops[p + 1]
            elif _is_empty(nxt):
                del ops[p + 1]
            else:
                break
        elif nxt[0] != this[0]:
            ops[p], ops[p + 1] = nxt, this
            p += 1
        else:
            _adjust(this, 0, _change_len(nxt))
            del ops[p + 1]
    return p


def _compact(ops: list[_RawOp], old: Sequence[int], new: Sequence[int]) -> None:
    # All deletions first, then all insertions: the order decides where blocks end up.
    for tag in (_DEL, _INS):
        p = 0
        while p < len(ops):
            if ops[p][0] == tag:
                p = _shift_up(ops, old, new, p)
                p = _shift_down(ops, old, new, p)
            p += 1


# --------------------------------------------------------------------------------------------
# Replace merging (similar's `algorithms::Replace` hook).


def _merge_replace(raw: list[_RawOp]) -> list[DiffOp]:
    """Merge runs of equal kind; adjacent delete and insert runs become one Replace."""
    result: list[DiffOp] = []
    eq: list[int] | None = None  # old_index, new_index, len
    dele: list[int] | None = None  # old_index, old_len, new_index
    ins: list[int] | None = None  # old_index, new_index, new_len

    def flush_eq() -> None:
        nonlocal eq
        if eq is not None:
            result.append(DiffOp(DiffTag.EQUAL, eq[0], eq[2], eq[1], eq[2]))
            eq = None

    def flush_del_ins() -> None:
        nonlocal dele, ins
        if dele is not None:
            if ins is not None:
                result.append(DiffOp(DiffTag.REPLACE, dele[0], dele[1], ins[1], ins[2]))
            else:
                result.append(DiffOp(DiffTag.DELETE, dele[0], dele[1], dele[2], 0))
        elif ins is not None:
            result.append(DiffOp(DiffTag.INSERT, ins[0], 0, ins[1], ins[2]))
        dele = ins = None

    for tag, old_index, old_len, new_index, new_len in raw:
        if tag == _EQ:
            flush_del_ins()
            if eq is None:
                eq = [old_index, new_index, old_len]
            else:
                eq[2] += old_len
        elif tag == _DEL:
            flush_eq()
            if dele is None:
                dele = [old_index, old_len, new_index]
            else:
                dele[1] += old_len
        else:
            flush_eq()
            if ins is None:
                ins = [old_index, new_index, new_len]
            else:
                ins[2] += new_len
    flush_eq()
    flush_del_ins()
    return result


def _to_ids(old: Sequence[str], new: Sequence[str]) -> tuple[list[int], list[int]]:
    # Equal tokens get the very same int object, so most comparisons stop at the identity check.
    unique = dict.fromkeys(chain(old, new))
    ids = dict(zip(unique, range(len(unique)), strict=True))
    return list(map(ids.__getitem__, old)), list(map(ids.__getitem__, new))


def _diff_ops(
    old: Sequence[str], new: Sequence[str], deadline: float | None
) -> tuple[list[DiffOp], bool]:
    old_ids, new_ids = _to_ids(old, new)
    # One pair of V arrays serves every sub-problem, as in the crate: a sub-problem never reads
    # a diagonal it has not written in the current search.
    max_d = (len(old_ids) + len(new_ids) + 1) // 2 + 1
    vf = [0] * (2 * max_d + 2)
    vb = [0] * (2 * max_d + 2)
    state = _Deadline(deadline)
    raw: list[_RawOp] = []
    _conquer(old_ids, 0, len(old_ids), new_ids, 0, len(new_ids), vf, vb, state, raw)
    _compact(raw, old_ids, new_ids)
    return _merge_replace(raw), state.hit


def diff_ops(
    old: Sequence[str], new: Sequence[str], *, deadline: float | None = None
) -> list[DiffOp]:
    """The crate's ``capture_diff_slices`` ops (Myers, compaction, replace merging).

    ``deadline`` is a :func:`time.monotonic` value; once it has passed, every sub-problem still
    to be searched is reported as one delete plus one insert (still a correct diff).
    """
    return _diff_ops(old, new, deadline)[0]


def group_ops(ops: Sequence[DiffOp], context_radius: int) -> list[list[DiffOp]]:
    """Cut ``ops`` into hunks with ``context_radius`` lines of context (``group_diff_ops``).

    With ``n = context_radius``: a leading Equal keeps its last ``n`` items, a trailing Equal its
    first ``n``; an Equal longer than ``2 * n`` ends a group with its first ``n`` items and starts
    the next with its last ``n``; a final group that is empty or a single Equal is dropped.
    """
    if context_radius < 0:
        raise ValueError(f"context_radius must be >= 0, got {context_radius}")
    n = context_radius
    if not ops:
        return []
    work = list(ops)
    first = work[0]
    if first.tag is DiffTag.EQUAL:
        cut = max(first.old_len - n, 0)
        work[0] = _equal(first.old_index + cut, first.new_index + cut, first.old_len - cut)
    last = work[-1]
    if last.tag is DiffTag.EQUAL:
        work[-1] = _equal(last.old_index, last.new_index, min(last.old_len, n))

    groups: list[list[DiffOp]] = []
    pending: list[DiffOp] = []
    for op in work:
        if op.tag is DiffTag.EQUAL and op.old_len > 2 * n:
            pending.append(_equal(op.old_index, op.new_index, n))
            groups.append(pending)
            cut = op.old_len - n
            pending = [_equal(op.old_index + cut, op.new_index + cut, n)]
        else:
            pending.append(op)
    if len(pending) > 1 or (pending and pending[0].tag is not DiffTag.EQUAL):
        groups.append(pending)
    return groups


def _equal(old_index: int, new_index: int, length: int) -> DiffOp:
    return DiffOp(DiffTag.EQUAL, old_index, length, new_index, length)


def _hunk_range(start: int, end: int) -> str:
    # A range can end before it starts: a Delete or Insert that the compaction swapped keeps its
    # old index on the empty side, and the crate saturates the length at 0 instead of failing.
    length = max(end - start, 0)
    if length == 1:
        return str(start + 1)
    # An empty range names the line just before it.
    return f"{start if length == 0 else start + 1},{length}"


def _render_lines(prefix: str, lines: Sequence[str], out: list[str]) -> None:
    if not lines:
        return
    # Every token but possibly the very last of a text ends with its terminator, so joining with
    # the prefix puts the prefix at the start of each line.
    out.append(prefix)
    out.append(prefix.join(lines))
    if not lines[-1].endswith(("\r", "\n")):
        out.append(_NO_NEWLINE_HINT)


def _render(
    old_lines: Sequence[str],
    new_lines: Sequence[str],
    groups: list[list[DiffOp]],
    header: tuple[str, str] | None,
) -> str:
    out: list[str] = []
    for group in groups:
        if header is not None:
            out.append(f"--- {header[0]}\n+++ {header[1]}\n")
            header = None
        body: list[str] = []
        for op in group:
            old_part = old_lines[op.old_index : op.old_end]
            new_part = new_lines[op.new_index : op.new_end]
            match op.tag:
                case DiffTag.EQUAL:
                    _render_lines(" ", old_part, body)
                case DiffTag.DELETE:
                    _render_lines("-", old_part, body)
                case DiffTag.INSERT:
                    _render_lines("+", new_part, body)
                case DiffTag.REPLACE:
                    _render_lines("-", old_part, body)
                    _render_lines("+", new_part, body)
        # The crate writes the hunk header before the first change line, so a hunk without
        # lines prints nothing.
        if body:
            first, last = group[0], group[-1]
            old_range = _hunk_range(first.old_index, last.old_end)
            new_range = _hunk_range(first.new_index, last.new_end)
            out.append(f"@@ -{old_range} +{new_range} @@\n")
            out.extend(body)
    return "".join(out)


def unified_diff_with_status(
    old: str,
    new: str,
    *,
    context_radius: int,
    header: tuple[str, str] | None = None,
    timeout: float | None = None,
) -> tuple[str, bool]:
    """Like :func:`unified_diff`, also telling whether the deadline cut the search short.

    The flag is True when at least one sub-problem was reported as delete-all + insert-all
    because ``timeout`` seconds had passed; the text is then a correct but coarser diff.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    old_lines = split_diff_lines(old)
    new_lines = split_diff_lines(new)
    ops, hit = _diff_ops(old_lines, new_lines, deadline)
    return _render(old_lines, new_lines, group_ops(ops, context_radius), header), hit


def unified_diff(
    old: str,
    new: str,
    *,
    context_radius: int,
    header: tuple[str, str] | None = None,
    timeout: float | None = None,
) -> str:
    """The crate's ``TextDiff::from_lines(old, new).unified_diff()`` text.

    Only hunks, each ``@@ -a,b +c,d @@`` followed by its lines; ``header=(a, b)`` adds
    ``--- a`` / ``+++ b`` before the first hunk. Equal texts give the empty string. ``timeout``
    is in seconds from now (None: no deadline).
    """
    return unified_diff_with_status(
        old, new, context_radius=context_radius, header=header, timeout=timeout
    )[0]
