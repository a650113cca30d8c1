"""How long the cell views and the nbformat check take on large notebooks (prints figures).

Run: ``.venv/bin/python bench/notebooks.py``. Notebooks of N cells are built from the cells of
``notebooks/01_tour.ipynb`` (each made distinct); the edit changes 1 cell in 20, moves 1 in 50,
adds and removes a few. Matching by id (nbformat 4.5) and by content (no ids) are timed
separately, as is ``validate_notebook`` (what a patch to an .ipynb costs at verification).
The TurnDiff's cell view (``tracker_notebook_diffs``) is timed for a turn whose first call
made that edit: first built, then again for a later call of the turn that left the notebook
alone (the view is reused, not diffed again).
"""

from __future__ import annotations

import copy
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from applypatch_ext.core.apply.changes import AppliedPatchDelta, AppliedUpdate  # noqa: E402
from applypatch_ext.core.turn.turn_diff import TurnDiffTracker  # noqa: E402
from applypatch_ext.notebooks import (  # noqa: E402
    notebook_diff,
    tracker_notebook_diffs,
    validate_notebook,
)

TOUR = json.loads((REPO / "notebooks" / "01_tour.ipynb").read_text(encoding="utf-8"))


def build(n: int) -> dict[str, Any]:
    cells = []
    for k in range(n):
        cell = copy.deepcopy(TOUR["cells"][k % len(TOUR["cells"])])
        cell["id"] = f"c{k}"
        cell["source"] = [f"# cell {k}\n", *cell["source"]]
        cells.append(cell)
    return {**TOUR, "cells": cells}


def edit(nb: dict[str, Any]) -> dict[str, Any]:
    new = copy.deepcopy(nb)
    cells = new["cells"]
    for k in range(0, len(cells), 20):
        cells[k]["source"] = [*cells[k]["source"], "\nchanged = True"]
    for k in range(len(cells) - 1, 0, -50):
        cells.insert(max(k - 7, 0), cells.pop(k))
    for k in range(5, len(cells), 100):
        cells.insert(k, {"cell_type": "markdown", "id": f"new{k}", "metadata": {}, "source": "x"})
    del cells[3::97]
    return new


def without_ids(nb: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(nb)
    out["nbformat_minor"] = 4
    for cell in out["cells"]:
        cell.pop("id", None)
    return out


def best(fn: Any, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    print("| cells | JSON KiB | diff by id | diff by content | validate | summary: id / content |")
    print("|---:|---:|---:|---:|---:|---|")
    for n in (30, 300, 1000, 3000):
        old = build(n)
        new = edit(old)
        a, b = json.dumps(old, indent=1) + "\n", json.dumps(new, indent=1) + "\n"
        c, d = json.dumps(without_ids(old), indent=1), json.dumps(without_ids(new), indent=1)
        by_id = best(lambda a=a, b=b: notebook_diff(a, b))
        by_content = best(lambda c=c, d=d: notebook_diff(c, d))
        check = best(lambda b=b: validate_notebook("/x/nb.ipynb", b))
        summary = f"{notebook_diff(a, b)['summary']} / {notebook_diff(c, d)['summary']}"
        print(
            f"| {n} | {len(b) // 1024} | {by_id * 1000:.0f} ms | {by_content * 1000:.0f} ms "
            f"| {check * 1000:.0f} ms | {summary} |"
        )
    print()
    print("| cells | TurnDiff view, first | again (a call that left the notebook alone) |")
    print("|---:|---:|---:|")
    for n in (30, 300, 1000, 3000):
        old = build(n)
        a, b = json.dumps(old, indent=1) + "\n", json.dumps(edit(old), indent=1) + "\n"
        change = AppliedUpdate("/w/nb.ipynb", None, a, None, b)
        trackers = []
        for _ in range(3):
            tracker = TurnDiffTracker(display_roots={"": "/w"})
            tracker.track_delta(AppliedPatchDelta(changes=(change,), exact=True))
            trackers.append(tracker)
        fresh = iter(trackers)  # each timing with a tracker that never built its view
        first = best(lambda fresh=fresh: tracker_notebook_diffs(next(fresh)))
        again = best(lambda t=trackers[0]: tracker_notebook_diffs(t))
        print(f"| {n} | {first * 1000:.0f} ms | {again * 1000:.2f} ms |")


if __name__ == "__main__":
    main()
