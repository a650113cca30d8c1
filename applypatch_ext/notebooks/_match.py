"""Matching the cells of two notebooks: by id, by content, and which ones moved."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from ..core.apply.diff import DiffTag, diff_ops
from ._read import (
    MAX_PAIRS,
    SIMILARITY,
    _Cell,
)


def _ids_usable(old: Sequence[_Cell], new: Sequence[_Cell]) -> bool:
    for cells in (old, new):
        ids = [cell.id for cell in cells]
        if None in ids or len(set(ids)) != len(ids):
            return False
    return bool(old) and bool(new)


def _similarity(a: _Cell, b: _Cell) -> float:
    """How alike two cells are (0 to 1): by characters for short cells, by lines otherwise
    (a character comparison of two long cells costs too much for what it tells)."""
    scale = 0.9 if a.cell_type != b.cell_type else 1.0  # a changed type counts, a little
    if a.lines_count <= 3 and b.lines_count <= 3:
        matcher = difflib.SequenceMatcher(None, a.source, b.source, autojunk=False)
    else:
        matcher = difflib.SequenceMatcher(None, a.lines, b.lines, autojunk=False)
    if matcher.real_quick_ratio() * scale < SIMILARITY:
        return 0.0
    if matcher.quick_ratio() * scale < SIMILARITY:
        return 0.0
    return matcher.ratio() * scale


def _match_by_content(old: Sequence[_Cell], new: Sequence[_Cell]) -> dict[int, int]:
    """new index -> old index, by alignment, then the rest (see :func:`_pair_rest`)."""
    pairs: dict[int, int] = {}
    blocks: list[tuple[list[int], list[int]]] = []
    for op in diff_ops([c.key for c in old], [c.key for c in new]):
        olds = list(range(op.old_index, op.old_end))
        news = list(range(op.new_index, op.new_end))
        if op.tag is DiffTag.EQUAL:
            pairs.update(zip(news, olds, strict=True))
        else:
            blocks.append((olds, news))
    _pair_rest(old, new, blocks, pairs)
    return pairs


def _match_by_id(old: Sequence[_Cell], new: Sequence[_Cell]) -> dict[int, int]:
    """new index -> old index, by id; a cell whose id changed is matched like the rest."""
    old_by_id = {cell.id: cell.index for cell in old}
    pairs = {cell.index: old_by_id[cell.id] for cell in new if cell.id in old_by_id}
    taken = set(pairs.values())
    free_old = [cell.index for cell in old if cell.index not in taken]
    free_new = [cell.index for cell in new if cell.index not in pairs]
    _pair_rest(old, new, [(free_old, free_new)], pairs)
    return pairs


def _pair_rest(
    old: Sequence[_Cell],
    new: Sequence[_Cell],
    blocks: list[tuple[list[int], list[int]]],
    pairs: dict[int, int],
) -> None:
    """Pair the unmatched cells of ``blocks`` (old indices, new indices) into ``pairs``: equal
    cells anywhere first (moves), then the most similar within each block (changed in place),
    then across blocks (changed and moved); the others stay added or removed."""
    free_old = [i for olds, _ in blocks for i in olds]
    free_new = [j for _, news in blocks for j in news]
    by_key: dict[str, list[int]] = {}
    for i in free_old:
        by_key.setdefault(old[i].key, []).append(i)
    for j in free_new:
        candidates = by_key.get(new[j].key)
        if candidates:
            pairs[j] = candidates.pop(0)
    used_old = set(pairs.values())
    budget = [MAX_PAIRS]
    for olds, news in [*blocks, (free_old, free_new)]:
        _pair_similar(old, new, olds, news, pairs, used_old, budget)


def _pair_similar(
    old: Sequence[_Cell],
    new: Sequence[_Cell],
    olds: list[int],
    news: list[int],
    pairs: dict[int, int],
    used_old: set[int],
    budget: list[int],
) -> None:
    """Pair the most similar of ``olds`` x ``news`` still free, within what ``budget`` (the
    comparisons left) allows: past it, the cells stay added and removed."""
    olds = [i for i in olds if i not in used_old]
    news = [j for j in news if j not in pairs]
    if not olds or not news or len(olds) * len(news) > budget[0]:
        return
    budget[0] -= len(olds) * len(news)
    scored = []
    for j in news:
        for i in olds:
            score = _similarity(old[i], new[j])
            if score >= SIMILARITY:
                scored.append((-score, abs(i - j), i, j))
    scored.sort()
    for _, _, i, j in scored:
        if j not in pairs and i not in used_old:
            pairs[j] = i
            used_old.add(i)


def _stable(pairs: Mapping[int, int]) -> set[int]:
    """The new indices on a longest run of pairs that keeps the old order (not moved)."""
    items = sorted(pairs.items())  # by new index
    tails: list[int] = []  # index into items of the smallest tail of each length
    back: list[int] = [-1] * len(items)
    for k, (_, old_index) in enumerate(items):
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if items[tails[mid]][1] < old_index:
                lo = mid + 1
            else:
                hi = mid
        back[k] = tails[lo - 1] if lo else -1
        if lo == len(tails):
            tails.append(k)
        else:
            tails[lo] = k
    stable: set[int] = set()
    k = tails[-1] if tails else -1
    while k >= 0:
        stable.add(items[k][0])
        k = back[k]
    return stable
