"""The cell-level diff of two notebook texts (the structure the views and the widget read)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.apply.diff import unified_diff
from ..core.text import plural
from ._match import (
    _ids_usable,
    _match_by_content,
    _match_by_id,
    _stable,
)
from ._read import (
    DIFF_TIMEOUT,
    SOURCE_CONTEXT,
    _Cell,
    _cells,
    _dump,
    _kind,
    _load,
    _outputs_summary,
)
from .check import notebook_problem


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


def _summary(counts: Mapping[str, int]) -> str:
    parts = [f"{counts[k]} {k}" for k in ("added", "removed", "moved", "changed") if counts.get(k)]
    if counts.get("unchanged"):
        parts.append(plural(counts["unchanged"], "unchanged cell"))
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
