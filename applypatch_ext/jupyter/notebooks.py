"""Notebook files (``.ipynb``) as cells: a cell-level diff, its renderers, and validation.

A patch edits a notebook as JSON text; a reader wants the cells. :func:`notebook_diff` takes
the text before and after (None for a file that is added or deleted) and returns a plain,
JSON-able structure (ready for a widget trait): the cells added, removed, moved and changed,
each changed cell with a unified diff of its source and summaries of what else changed
(outputs, execution count, metadata, with the details), runs of unchanged cells folded, the
notebook's own metadata, and the raw JSON diff (what the model wrote). It never raises: a
text that is not JSON or not a notebook gives ``ok: False`` and the reason, with the raw diff.

Cells are matched by their ``id`` when every cell of both sides has a distinct one (nbformat
4.5; the cells left over, such as one whose id changed, as below); otherwise by content: a
line alignment of the cells (the core's Myers diff over one key per cell), then equal cells
found elsewhere (moves), then the most similar remaining pairs (changed cells, possibly
moved). A matched cell is *moved* when it is not on the longest run
of matched cells that keeps its order.

:func:`validate_notebook` is the content validator the magic registers (``(path, text) -> str |
None``, see :mod:`applypatch_ext.core.apply.content_check`): for an ``.ipynb`` path it parses the
text and validates it with nbformat, and says what is wrong and where (JSON line and column,
or the cell's index and id).

:func:`render_notebook_diff_html` and :func:`render_notebook_diff_markdown` are the static
fallbacks: everything escaped with display.py's control-character rule, outputs and metadata
collapsed (``<details>``), the raw JSON diff one click away.
"""

from __future__ import annotations

import difflib
import json
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

from ..core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
    ApplyPatchAction,
    FileAdd,
    FileDelete,
)
from ..core.apply.diff import DiffTag, diff_ops, unified_diff
from ..core.turn.options import CallStatus
from ..core.turn.result import CallResult
from .display import _diff_html, _esc, md_code, md_fence, md_text, visible

#: Context lines around a change in a cell's source diff (and in the raw JSON diff).
SOURCE_CONTEXT: Final = 3
#: Seconds one diff (a source, the raw JSON) may search before it coarsens (see core.diff).
DIFF_TIMEOUT: Final = 0.5
#: Two cells at least this similar (difflib ratio of their sources) are one changed cell.
SIMILARITY: Final = 0.5
#: At most this many cell comparisons per diff (a huge rewrite is shown as added + removed).
MAX_PAIRS: Final = 20_000
#: At most this many characters of a quoted text in a message.
QUOTE_LIMIT: Final = 60
CELL_TYPES: Final = ("code", "markdown", "raw")


def _nbformat() -> Any:
    """nbformat, imported on first use: with jsonschema it takes about a second to load, which
    ``%load_ext applypatch_ext`` should not pay for a session that never touches a notebook.

    None where it cannot be imported (the JupyterLite site: its jsonschema needs a compiled
    ``rpds-py`` that no registry has for Pyodide): notebooks are then checked as JSON and cell by
    cell (every cell an object with a valid ``cell_type``), without nbformat's schema.
    """
    try:
        import nbformat
    except ImportError:
        return None
    return nbformat


def is_notebook_path(path: str) -> bool:
    return path.lower().endswith(".ipynb")


# -- reading ---------------------------------------------------------------------------------


def _quote(text: str) -> str:
    text = text.strip()
    short = text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"
    return json.dumps(short, ensure_ascii=False)


def _json_error(exc: json.JSONDecodeError, side: str = "") -> str:
    lines = exc.doc.splitlines()
    where = f"line {exc.lineno}, column {exc.colno}"
    shown = ""
    if 0 < exc.lineno <= len(lines):
        shown = f": {_quote(lines[exc.lineno - 1])}"
    return (
        f"{side}not valid JSON: {exc.msg} at {where}{shown}; a notebook is one JSON object: "
        "check the commas, quotes and brackets the patch changed"
    )


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _load(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The notebook of ``text`` as a v4 dict (a v3 one converted), or None and why not."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, _json_error(exc)
    except RecursionError:
        return None, "not readable: the JSON is nested too deeply"
    if not isinstance(data, dict):
        return None, (
            f"not a notebook: the JSON document is {_kind(data)}; a notebook is an object with "
            "'cells', 'metadata', 'nbformat' and 'nbformat_minor'"
        )
    if isinstance(data.get("cells"), list):
        return data, None
    if data.get("nbformat") == 3 and isinstance(data.get("worksheets"), list):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nbf = _nbformat()
                if nbf is None:
                    raise ImportError("nbformat, which converts a version 3 notebook")
                converted = json.loads(json.dumps(nbf.convert(nbf.from_dict(data), 4)))
            for cell in converted.get("cells", []):
                cell.pop("id", None)  # made up by the conversion, different every time
            converted["nbformat"], converted["nbformat_minor"] = 3, data.get("nbformat_minor")
            return converted, None
        except Exception as exc:  # a broken v3 notebook: say why, show the raw diff
            return None, f"not readable as a v3 notebook: {type(exc).__name__}: {exc}"
    return None, (
        "not a notebook: the JSON object has no 'cells' array (keys: "
        f"{', '.join(repr(k) for k in list(data)[:8]) or 'none'})"
    )


def _text(value: Any) -> str:
    """A multiline field (a list of strings or a string) as one string."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "".join(value)
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


class _Cell:
    """One cell, read tolerantly (a cell that is not even an object still shows)."""

    def __init__(self, index: int, raw: Any) -> None:
        self.index = index
        cell = raw if isinstance(raw, dict) else {}
        self.valid_shape = isinstance(raw, dict)
        cell_id = cell.get("id")
        self.id = cell_id if isinstance(cell_id, str) else None
        cell_type = cell.get("cell_type")
        self.cell_type = cell_type if isinstance(cell_type, str) else None
        self.source = _text(cell.get("source")) if self.valid_shape else _dump(raw)
        self.outputs = cell.get("outputs")
        self.execution_count = cell.get("execution_count")
        self.metadata = cell.get("metadata")
        self.attachments = cell.get("attachments")
        self.key = f"{self.cell_type}\0{self.source}"
        self.lines = self.source.split("\n")
        self.lines_count = len(self.lines)

    def summary_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "id": self.id,
            "cell_type": self.cell_type,
            "source": self.source,
            "outputs": _outputs_summary(self.outputs),
            "execution_count": self.execution_count,
        }


def _cells(notebook: dict[str, Any] | None) -> list[_Cell]:
    if notebook is None:
        return []
    return [_Cell(i, raw) for i, raw in enumerate(notebook.get("cells", []))]


# -- matching --------------------------------------------------------------------------------


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


# -- describing ------------------------------------------------------------------------------


def _outputs_summary(outputs: Any) -> str:
    if outputs is None:
        return ""
    if not isinstance(outputs, list):
        return f"outputs is {_kind(outputs)}"
    if not outputs:
        return "no outputs"
    kinds = []
    for output in outputs:
        if not isinstance(output, dict):
            kinds.append(_kind(output))
            continue
        kind = str(output.get("output_type", "?"))
        if kind == "stream":
            kind = f"stream {output.get('name', '?')}"
        elif kind == "error":
            kind = f"error {output.get('ename', '?')}"
        elif isinstance(output.get("data"), dict):
            kind = f"{kind} {', '.join(sorted(output['data']))}"
        kinds.append(kind)
    count = f"{len(outputs)} output{'s' if len(outputs) != 1 else ''}"
    return f"{count}: {'; '.join(kinds)}"


def _diff(old: str, new: str) -> str:
    return unified_diff(old, new, context_radius=SOURCE_CONTEXT, timeout=DIFF_TIMEOUT)


def _source_diff(old: str, new: str) -> str:
    """A cell's source diff. A cell's last line has no newline: when neither side has one,
    the diff does not say so on every change (only a difference in it is shown)."""
    if not old.endswith("\n") and not new.endswith("\n"):
        return _diff(old + "\n", new + "\n")
    return _diff(old, new)


def _pair_json(a: _Cell, b: _Cell, moved: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "status": "unchanged",
        "old_index": a.index,
        "new_index": b.index,
        "id": b.id,
        "cell_type": b.cell_type,
        "moved": moved,
        "changes": [],
    }
    changes: list[str] = entry["changes"]
    if a.cell_type != b.cell_type:
        changes.append("cell type")
        entry["old_cell_type"] = a.cell_type
    if a.id != b.id:
        changes.append("id")
        entry["old_id"] = a.id
    if a.source != b.source:
        changes.append("source")
        entry["source_diff"] = _source_diff(a.source, b.source)
    if a.outputs != b.outputs:
        changes.append("outputs")
        entry["outputs"] = {
            "summary": f"{_outputs_summary(a.outputs) or 'none'} → "
            f"{_outputs_summary(b.outputs) or 'none'}",
            "diff": _diff(_dump(a.outputs), _dump(b.outputs)),
        }
    if a.execution_count != b.execution_count:
        changes.append("execution count")
        entry["execution_count"] = [a.execution_count, b.execution_count]
    if a.metadata != b.metadata:
        changes.append("metadata")
        entry["metadata"] = {
            "summary": _keys_summary(a.metadata, b.metadata),
            "diff": _diff(_dump(a.metadata), _dump(b.metadata)),
        }
    if a.attachments != b.attachments:
        changes.append("attachments")
    entry["source"] = b.source
    if moved:
        entry["status"] = "moved"
    elif changes:
        entry["status"] = "changed"
    return entry


def _keys_summary(old: Any, new: Any) -> str:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return f"{_kind(old)} → {_kind(new)}"
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = sorted(k for k in set(old) & set(new) if old[k] != new[k])
    parts = [
        f"{label} {', '.join(map(repr, keys))}"
        for label, keys in (("added", added), ("removed", removed), ("changed", changed))
        if keys
    ]
    return "; ".join(parts)


def _single_json(cell: _Cell, status: str) -> dict[str, Any]:
    index_key = "new_index" if status == "added" else "old_index"
    entry: dict[str, Any] = {
        "status": status,
        "old_index": None,
        "new_index": None,
        "id": cell.id,
        "cell_type": cell.cell_type,
        "moved": False,
        "changes": [],
        "source": cell.source,
    }
    entry[index_key] = cell.index
    if cell.outputs:
        entry["outputs"] = {"summary": _outputs_summary(cell.outputs), "diff": ""}
    return entry


def _fold(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs of unchanged cells become one ``{"status": "unchanged", "count": N}`` entry."""
    out: list[dict[str, Any]] = []
    for entry in entries:
        if entry["status"] != "unchanged":
            out.append(entry)
            continue
        if out and out[-1]["status"] == "unchanged" and "count" in out[-1]:
            run = out[-1]
        else:
            run = {"status": "unchanged", "count": 0, "old_indices": [], "new_indices": []}
            out.append(run)
        run["count"] += 1
        run["old_indices"].append(entry["old_index"])
        run["new_indices"].append(entry["new_index"])
    return out


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summary(counts: Mapping[str, int]) -> str:
    parts = [f"{counts[k]} {k}" for k in ("added", "removed", "moved", "changed") if counts.get(k)]
    if counts.get("unchanged"):
        parts.append(_plural(counts["unchanged"], "unchanged cell"))
    elif parts:
        parts[-1] += " cell" + ("" if sum(counts.values()) == 1 else "s")
    return ", ".join(parts) or "no cells"


def notebook_diff(before: str | None, after: str | None, *, path: str = "") -> dict[str, Any]:
    """The cell-level diff of a notebook from ``before`` to ``after`` (None: no such file).

    Returns a JSON-able dict: ``path``, ``kind`` (add, delete, update), ``ok`` and ``reason``
    (why cells cannot be shown), ``cells`` (the entries, in the new order with removed cells
    where they were; unchanged runs folded as ``{"status": "unchanged", "count": N}``),
    ``counts``, ``summary`` ("1 changed, 4 unchanged cells"), ``matched_by`` (id or content),
    ``metadata`` (the notebook's own, when it changed), ``validation`` (nbformat's verdict on
    each side) and ``raw_diff`` (the unified diff of the JSON text). Never raises.
    """
    kind = "add" if before is None else "delete" if after is None else "update"
    result: dict[str, Any] = {
        "path": path,
        "kind": kind,
        "ok": True,
        "reason": None,
        "matched_by": None,
        "cells": [],
        "counts": {"added": 0, "removed": 0, "moved": 0, "changed": 0, "unchanged": 0},
        "summary": "",
        "metadata": None,
        "nbformat": {"before": None, "after": None},
        "validation": {"before": None, "after": None},
        "raw_diff": "",
    }
    try:
        _fill(result, before, after)
    except Exception as exc:  # the view must never break a call's display
        result["ok"] = False
        result["reason"] = f"the cells cannot be shown: {type(exc).__name__}: {exc}"
    return result


def _fill(result: dict[str, Any], before: str | None, after: str | None) -> None:
    result["raw_diff"] = _diff(before or "", after or "")
    notebooks: dict[str, dict[str, Any] | None] = {}
    reasons = []
    for side, text in (("before", before), ("after", after)):
        if text is None:
            notebooks[side] = None
            continue
        notebook, reason = _load(text)
        notebooks[side] = notebook
        result["validation"][side] = notebook_problem(text)
        if reason is not None:
            reasons.append(f"the {'old' if side == 'before' else 'new'} text is {reason}")
        elif notebook is not None:
            result["nbformat"][side] = (
                f"{notebook.get('nbformat')}.{notebook.get('nbformat_minor')}"
            )
    if reasons:
        result["ok"] = False
        result["reason"] = "; ".join(reasons)
        result["summary"] = "cells cannot be shown"
        return
    old, new = _cells(notebooks["before"]), _cells(notebooks["after"])
    if _ids_usable(old, new):
        pairs = _match_by_id(old, new)
        result["matched_by"] = "id"
    else:
        pairs = _match_by_content(old, new)
        result["matched_by"] = "content"
    stable = _stable(pairs)
    matched_old = set(pairs.values())
    removed = [cell for cell in old if cell.index not in matched_old]
    entries: list[dict[str, Any]] = []
    pending = iter(removed)
    next_removed = next(pending, None)

    def flush(upto: int) -> None:
        nonlocal next_removed
        while next_removed is not None and next_removed.index < upto:
            entries.append(_single_json(next_removed, "removed"))
            next_removed = next(pending, None)

    for cell in new:
        if cell.index in pairs:
            old_index = pairs[cell.index]
            if cell.index in stable:
                flush(old_index)
            entries.append(_pair_json(old[old_index], cell, cell.index not in stable))
        else:
            entries.append(_single_json(cell, "added"))
    flush(len(old))
    counts = result["counts"]
    for entry in entries:
        status = entry["status"]
        if status == "moved":
            counts["moved"] += 1
            if entry["changes"]:
                counts["changed"] += 1
        else:
            counts[status] += 1
    result["cells"] = _fold(entries)
    result["summary"] = _summary(counts)
    meta_old = (notebooks["before"] or {}).get("metadata")
    meta_new = (notebooks["after"] or {}).get("metadata")
    if before is not None and after is not None and meta_old != meta_new:
        result["metadata"] = {
            "summary": _keys_summary(meta_old, meta_new),
            "diff": _diff(_dump(meta_old), _dump(meta_new)),
        }


# -- views of a call and of a turn -----------------------------------------------------------


def delta_notebook_diffs(delta: AppliedPatchDelta) -> list[dict[str, Any]]:
    """The cell diff of every notebook a committed delta touched, in delta order."""
    views = []
    for change in delta.changes:
        if isinstance(change, AppliedAdd) and is_notebook_path(change.path):
            views.append(
                notebook_diff(change.overwritten_content, change.content, path=change.path)
            )
        elif isinstance(change, AppliedDelete) and is_notebook_path(change.path):
            views.append(notebook_diff(change.content, None, path=change.path))
        elif isinstance(change, AppliedUpdate):
            target = change.move_path or change.path
            if is_notebook_path(target) or is_notebook_path(change.path):
                view = notebook_diff(change.old_content, change.new_content, path=target)
                if change.move_path is not None:
                    view["moved_from"] = change.path
                views.append(view)
    return views


def proposed_notebook_diffs(
    action: ApplyPatchAction, read: Callable[[str], str | None] | None = None
) -> list[dict[str, Any]]:
    """The cell diff of every notebook a verified (not yet applied) patch would change.

    The old texts are read now (``read(path)``, None for no file; by default from the disk),
    so call it before the patch is applied: for a refused, declined, waiting or dry-run call.
    After an application, :func:`delta_notebook_diffs` says what really changed.
    """
    reader = read or _read_disk
    views = []
    for path, change in action.changes.items():
        if isinstance(change, FileAdd):
            if is_notebook_path(path):
                views.append(notebook_diff(reader(path), change.content, path=path))
        elif isinstance(change, FileDelete):
            if is_notebook_path(path):
                views.append(notebook_diff(change.content, None, path=path))
        else:
            target = change.move_path or path
            if is_notebook_path(target) or is_notebook_path(path):
                view = notebook_diff(reader(path), change.new_content, path=target)
                if change.move_path is not None:
                    view["moved_from"] = path
                views.append(view)
    return views


def _read_disk(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


#: Statuses of a call that wrote nothing: its proposal is still against the files as they are.
_NOTHING_WRITTEN: Final = (
    CallStatus.ERROR,
    CallStatus.DRY_RUN,
    CallStatus.AWAITING_APPROVAL,
    CallStatus.DECLINED,
    CallStatus.REJECTED,
)


def call_notebook_views(result: CallResult) -> dict[str, list[dict[str, Any]]]:
    """The cell views of one call, ready for a widget trait (plain JSON): ``proposed`` (what
    a call that wrote nothing would change, a refused one included) and ``committed`` (the
    delta's notebooks). Empty lists when the call touches no notebook."""
    proposed: list[dict[str, Any]] = []
    if result.proposed is not None and result.status in _NOTHING_WRITTEN:
        proposed = proposed_notebook_diffs(result.proposed)
    return {"proposed": proposed, "committed": delta_notebook_diffs(result.delta)}


def turn_notebook_diffs(
    deltas: Iterable[AppliedPatchDelta], *, undo: bool = False
) -> list[dict[str, Any]]:
    """The net cell diff of every notebook over the deltas of a turn (oldest first), from
    each notebook's text before the turn to its text now; ``undo=True`` gives the reverse,
    what undoing the turn would restore. A moved notebook shows at its new path (``moved_from``
    says where it was), and its old path as deleted."""
    state: dict[str, list[Any]] = {}  # path -> [before the turn, now, moved from]

    def touch(path: str, before: str | None) -> list[Any]:
        return state.setdefault(path, [before, before, None])

    for delta in deltas:
        for change in delta.changes:
            if isinstance(change, AppliedAdd):
                touch(change.path, change.overwritten_content)[1] = change.content
            elif isinstance(change, AppliedDelete):
                touch(change.path, change.content)[1] = None
            elif change.move_path is None:
                touch(change.path, change.old_content)[1] = change.new_content
            else:
                source = touch(change.path, change.old_content)
                source[1] = None
                dest = touch(change.move_path, change.overwritten_move_content)
                dest[1] = change.new_content
                if dest[0] is None:
                    dest[0], dest[2] = source[0], source[2] or change.path
                    source[0] = None
    views = []
    for path, (before, now, moved_from) in state.items():
        if not is_notebook_path(path) or before == now:
            continue
        view = (
            notebook_diff(now, before, path=path) if undo else notebook_diff(before, now, path=path)
        )
        if moved_from is not None:
            view["moved_from"] = moved_from
        views.append(view)
    return views


# -- validation ------------------------------------------------------------------------------


def _cell_label(index: int, cell: Any) -> str:
    if not isinstance(cell, dict):
        return f"cell {index} ({_kind(cell)}, not an object)"
    parts = []
    if isinstance(cell.get("id"), str):
        parts.append(f"id {cell['id']!r}")
    if isinstance(cell.get("cell_type"), str):
        parts.append(f"a {cell['cell_type']} cell")
    first = _text(cell.get("source")).strip().split("\n", 1)[0]
    if first:
        parts.append(f"starting {_quote(first)}")
    return f"cell {index} ({', '.join(parts)})" if parts else f"cell {index}"


def _cell_problem(index: int, cell: Any, version: tuple[int, int]) -> str | None:
    """What is wrong with one cell whose type the schema could not tell, or None."""
    if not isinstance(cell, dict):
        return "a cell must be a JSON object"
    cell_type = cell.get("cell_type")
    valid = ", ".join(repr(t) for t in CELL_TYPES)
    if "cell_type" not in cell:
        return f"'cell_type' is missing; every cell needs one: {valid}"
    if cell_type not in CELL_TYPES:
        return f"cell_type {cell_type!r} is not valid; it must be one of {valid}"
    nbf = _nbformat()
    if nbf is None:
        return None
    try:
        nbf.validate(cell, ref=f"{cell_type}_cell", version=version[0], version_minor=version[1])
    except Exception as exc:
        return _schema_message(exc)
    return None


def _schema_message(exc: Exception) -> str:
    message = str(getattr(exc, "message", exc))
    where = [str(p) for p in getattr(exc, "relative_path", ())]
    at = f" (at {'.'.join(where)})" if where else ""
    if len(message) > 300:
        message = message[:299] + "…"
    return message + at


def notebook_problem(text: str) -> str | None:
    """What makes ``text`` an invalid notebook (None when nbformat accepts it)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _json_error(exc)
    except RecursionError:
        return "not readable: the JSON is nested too deeply"
    if not isinstance(data, dict):
        return (
            f"not a notebook: the JSON document is {_kind(data)}; a notebook is an object with "
            "'cells', 'metadata', 'nbformat' and 'nbformat_minor'"
        )
    major, minor = data.get("nbformat"), data.get("nbformat_minor")
    if not isinstance(major, int) or isinstance(major, bool) or major not in (3, 4):
        return (
            f"not a notebook nbformat can read: 'nbformat' is {json.dumps(major)}; it must be "
            "4 (or 3 for an old notebook)"
        )
    if not isinstance(minor, int) or isinstance(minor, bool):
        return (
            f"'nbformat_minor' is {json.dumps(minor)}; it must be an integer (5 for nbformat 4.5)"
        )
    cells = data.get("cells")
    if major == 4 and isinstance(cells, list):
        seen: dict[str, int] = {}
        for index, cell in enumerate(cells):
            cell_id = cell.get("id") if isinstance(cell, dict) else None
            if isinstance(cell_id, str):
                if cell_id in seen:
                    return (
                        f"{_cell_label(index, cell)}: its id is also the id of cell "
                        f"{seen[cell_id]}; cell ids must be unique within a notebook"
                    )
                seen[cell_id] = index
    nbf = _nbformat()
    if nbf is None:  # no schema here: each cell's type at least (see _nbformat)
        if major == 4 and isinstance(cells, list):
            for index, cell in enumerate(cells):
                problem = _cell_problem(index, cell, (major, minor))
                if problem is not None:
                    return f"{_cell_label(index, cell)}: {problem}"
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbf.validate(data)
    except Exception as exc:  # nbformat's ValidationError, or its ImportError for a version
        path = list(getattr(exc, "absolute_path", ()))
        if major == 4 and isinstance(cells, list) and len(path) >= 2 and path[0] == "cells":
            index = path[1]
            if isinstance(index, int) and 0 <= index < len(cells):
                cell = cells[index]
                detail = None
                if len(path) == 2 and getattr(exc, "validator", None) == "oneOf":
                    detail = _cell_problem(index, cell, (major, minor))
                if detail is None:
                    where = ".".join(str(p) for p in path[2:])
                    detail = _schema_message(exc).split(" (at ", 1)[0]
                    detail += f" (at {where})" if where else ""
                return f"{_cell_label(index, cell)}: {detail}"
        where = ".".join(str(p) for p in path)
        return f"{_schema_message(exc).split(' (at ', 1)[0]}" + (f" (at {where})" if where else "")
    return None


def validate_notebook(path: str, text: str) -> str | None:
    """The magic's content validator: an ``.ipynb`` must be a valid notebook (nbformat);
    other paths are not checked. Returns None or what is wrong, naming the cell (index, id)."""
    if not is_notebook_path(path):
        return None
    problem = notebook_problem(text)
    if problem is None:
        return None
    return f"{problem}. Jupyter cannot open an invalid notebook: fix the patch"


# -- static renderers ------------------------------------------------------------------------

_STATUS_COLOURS = {
    "added": "#1a7f37",
    "removed": "#cf222e",
    "changed": "#9a6700",
    "moved": "#8250df",
    "unchanged": "#57606a",
}


def _cell_title(entry: Mapping[str, Any]) -> str:
    old, new = entry.get("old_index"), entry.get("new_index")
    if old is not None and new is not None and old != new:
        where = f"cell {old} → {new}"
    else:
        where = f"cell {new if new is not None else old}"
    cell_id = f" id {entry['id']}" if entry.get("id") else ""
    return f"{entry['status']} · {where}{cell_id} · {entry.get('cell_type') or 'no cell_type'}"


def _changes_text(entry: Mapping[str, Any]) -> str:
    changes = list(entry.get("changes") or [])
    if not changes:
        return ""
    count = entry.get("execution_count")
    parts = []
    for change in changes:
        if change == "execution count" and isinstance(count, list):
            shown = ["none" if n is None else str(n) for n in count]
            parts.append(f"execution count {shown[0]} → {shown[1]}")
        elif change == "cell type":
            parts.append(f"cell type {entry.get('old_cell_type')} → {entry.get('cell_type')}")
        else:
            parts.append(change)
    return "changed: " + ", ".join(parts)


def _html_details(label: str, body: str, *, open_: bool = False) -> str:
    state = " open" if open_ else ""
    return f"<details{state}><summary>{label}</summary>{body}</details>"


def _html_cell(entry: Mapping[str, Any]) -> str:
    status = str(entry["status"])
    colour = _STATUS_COLOURS.get(status, "#57606a")
    style = f"border-left:3px solid {colour};padding:2px 6px;margin:4px 0"
    if status == "unchanged" and "count" in entry:
        label = _plural(int(entry["count"]), "unchanged cell")
        return (
            f'<div class="applypatch-cell-unchanged" style="{style};color:{colour}">{label}</div>'
        )
    parts = [
        f'<div class="applypatch-cell applypatch-cell-{_esc(status)}" style="{style}">',
        f'<div><b style="color:{colour}">{_esc(_cell_title(entry))}</b>',
    ]
    changes = _changes_text(entry)
    parts.append(f" <span>{_esc(changes)}</span></div>" if changes else "</div>")
    if entry.get("source_diff"):
        parts.append(_diff_html(str(entry["source_diff"])))
    elif status in ("added", "removed"):
        sign = "+" if status == "added" else "-"
        lines = str(entry.get("source", "")).split("\n")
        parts.append(_diff_html("\n".join(sign + line for line in lines)))
    outputs = entry.get("outputs")
    if outputs:
        body = _diff_html(outputs["diff"]) if outputs.get("diff") else ""
        parts.append(_html_details(f"outputs: {_esc(outputs['summary'])}", body))
    metadata = entry.get("metadata")
    if metadata:
        parts.append(
            _html_details(f"metadata: {_esc(metadata['summary'])}", _diff_html(metadata["diff"]))
        )
    parts.append("</div>")
    return "".join(parts)


def render_notebook_diff_html(view: Mapping[str, Any]) -> str:
    """Self-contained HTML of one notebook's cell diff (inline styles, no script)."""
    kind = {"add": "added", "delete": "deleted", "update": "updated"}.get(str(view.get("kind")), "")
    moved = (
        f" (moved from <code>{_esc(view['moved_from'])}</code>)" if view.get("moved_from") else ""
    )
    parts = [
        '<div class="applypatch-notebook" style="font-family:sans-serif;font-size:13px">',
        f"<div><b>notebook</b> <code>{_esc(view.get('path', ''))}</code>{moved} {kind}: "
        f"{_esc(view.get('summary', ''))}</div>",
    ]
    if not view.get("ok"):
        parts.append(f'<div style="color:#cf222e">{_esc(view.get("reason", ""))}</div>')
    validation = view.get("validation") or {}
    if validation.get("after"):
        parts.append(
            f'<div style="color:#cf222e">invalid notebook: {_esc(validation["after"])}</div>'
        )
    parts.extend(_html_cell(entry) for entry in view.get("cells", []))
    metadata = view.get("metadata")
    if metadata:
        parts.append(
            _html_details(
                f"notebook metadata: {_esc(metadata['summary'])}", _diff_html(metadata["diff"])
            )
        )
    raw = str(view.get("raw_diff", ""))
    parts.append(
        _html_details(
            "raw JSON diff (what the patch changed)",
            _diff_html(raw) if raw else "<pre>(no change)</pre>",
            open_=not view.get("ok"),
        )
    )
    parts.append("</div>")
    return "".join(parts)


#: The keys of :func:`call_notebook_views`, in the order they are shown, with their labels.
CALL_VIEWS: Final = (("proposed", "proposed, nothing written"), ("committed", "committed"))


def render_call_notebooks_html(views: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The HTML of :func:`call_notebook_views`: each proposed, then each committed notebook
    (the empty string when the call touches no notebook)."""
    parts = []
    for key, label in CALL_VIEWS:
        for view in views.get(key, ()):
            parts.append(f"<div><i>{label}</i></div>{render_notebook_diff_html(view)}")
    return "".join(parts)


def render_notebook_diff_markdown(view: Mapping[str, Any]) -> str:
    """The same as Markdown (GitHub renders ``<details>`` there too; texts stay escaped)."""
    moved = f" (moved from {md_code(view['moved_from'])})" if view.get("moved_from") else ""
    out = [
        f"**notebook** {md_code(view.get('path', ''))}{moved}: {md_text(view.get('summary', ''))}"
    ]
    if not view.get("ok"):
        out += ["", md_text(view.get("reason", ""))]
    validation = view.get("validation") or {}
    if validation.get("after"):
        out += ["", "invalid notebook: " + md_text(validation["after"])]
    for entry in view.get("cells", []):
        out.append("")
        if entry["status"] == "unchanged" and "count" in entry:
            out.append(f"*{_plural(int(entry['count']), 'unchanged cell')}*")
            continue
        line = f"**{md_text(_cell_title(entry))}**"
        changes = _changes_text(entry)
        out.append(line + (f" {md_text(changes)}" if changes else ""))
        if entry.get("source_diff"):
            out += md_fence(str(entry["source_diff"]).rstrip("\n"), "diff")
        elif entry["status"] in ("added", "removed"):
            out += md_fence(str(entry.get("source", "")))
        for name in ("outputs", "metadata"):
            detail = entry.get(name)
            if detail:
                out += ["", f"<details><summary>{name}</summary>", ""]
                out += [md_text(detail["summary"]), ""]
                if detail.get("diff"):
                    out += md_fence(str(detail["diff"]).rstrip("\n"), "diff")
                out += ["", "</details>"]
    raw = str(view.get("raw_diff", ""))
    out += ["", "<details><summary>raw JSON diff</summary>", ""]
    out += md_fence(raw.rstrip("\n") or "(no change)", "diff")
    out += ["", "</details>"]
    return "\n".join(out)


def render_call_notebooks_markdown(views: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """The Markdown of :func:`call_notebook_views`, in the order of the HTML."""
    parts = []
    for key, label in CALL_VIEWS:
        for view in views.get(key, ()):
            parts.append(f"*{md_text(label)}*\n\n{render_notebook_diff_markdown(view)}")
    return "\n\n".join(parts)


def render_call_notebooks_plain(views: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """One line per notebook of :func:`call_notebook_views` (its path and summary), and why
    its cells cannot be shown or why it is not a valid notebook, for a terminal."""
    lines = []
    for key, label in CALL_VIEWS:
        for view in views.get(key, ()):
            moved = f" (moved from {view['moved_from']})" if view.get("moved_from") else ""
            lines.append(
                f"notebook {view.get('path', '')}{moved}, {label}: {view.get('summary', '')}"
            )
            if not view.get("ok"):
                lines.append(f"  {view.get('reason', '')}")
            problem = (view.get("validation") or {}).get("after")
            if problem:
                lines.append(f"  invalid notebook: {problem}")
    return "\n".join(visible(line) for line in lines)


__all__ = [
    "call_notebook_views",
    "delta_notebook_diffs",
    "is_notebook_path",
    "notebook_diff",
    "notebook_problem",
    "proposed_notebook_diffs",
    "render_call_notebooks_html",
    "render_call_notebooks_markdown",
    "render_call_notebooks_plain",
    "render_notebook_diff_html",
    "render_notebook_diff_markdown",
    "turn_notebook_diffs",
    "validate_notebook",
]
