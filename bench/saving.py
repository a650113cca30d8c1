"""Section (j) of ``make bench``: saving a notebook of many calls through a real Jupyter server.

A saved notebook with widget state keeps each call's live view, its JavaScript and CSS included
(the section measures it per call); the server's pre-save hook
(``applypatch_ext.serverext``, the code of ``applypatch_ext.live_views``, its restorable form)
saves each live view's model as a placeholder (and drops what only it referred to) while the
server's event loop waits. Two real servers on 127.0.0.1 (one
with the extension, one with it disabled) each receive the same ``PUT /api/contents`` of a
notebook of N calls; the row gives both times and their ratio (the hook's cost over a plain
save, which includes the smaller file it writes). The notebook: one call run by a real kernel
(nbclient, widget state saved), its cells and models cloned N times with fresh ids. The hook
alone on the same notebook is timed in process too.

Run alone: ``.venv/bin/python bench/saving.py`` (prints the section).
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from report import Report  # noqa: E402

from applypatch_ext.live_views import (  # noqa: E402
    OUTPUT_KEY,
    PLACEHOLDER,
    WIDGET_STATE,
    WIDGET_VIEW,
    strip_live_views,
)
from tests.contents_server import ContentsServer, many_calls, notebook_body  # noqa: E402

CALLS = (100, 400)
RUNS = 3
#: A save with the hook costs at most this many times a save without it.
RATIO_LIMIT = 3.0
PATCH = "*** Begin Patch\n*** Add File: one.txt\n+saved\n*** End Patch"


def one_call() -> dict[str, Any]:
    """A notebook of one ``%%apply_patch`` call, run by a real kernel, widget state saved."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext applypatch_ext"),
        nbformat.v4.new_code_cell(f"%%apply_patch --stream-chunk 0\n{PATCH}"),
    ]
    with tempfile.TemporaryDirectory() as where:
        NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": where}}
        ).execute()
    content: dict[str, Any] = json.loads(nbformat.writes(nb))
    return content


def _json_size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def live_view_size(notebook: dict[str, Any]) -> dict[str, int]:
    """What one call's live view takes in a notebook saved with widget state, in bytes: the
    model's whole state, its JavaScript (``_esm``) and CSS (``_css``); and the placeholder the
    hook saves instead."""
    state = notebook["metadata"]["widgets"][WIDGET_STATE]["state"]
    view = next(m for m in state.values() if m.get("model_name") == "AnyModel")
    return {
        "model": _json_size(view),
        "esm": _json_size(view["state"]["_esm"]),
        "css": _json_size(view["state"]["_css"]),
        "placeholder": _json_size(PLACEHOLDER),
    }


def _hook_alone(notebook: dict[str, Any]) -> float:
    best = float("inf")
    for _ in range(RUNS):
        content = copy.deepcopy(notebook)
        started = time.perf_counter()
        strip_live_views(content, restorable=True)  # what the server's hook does
        best = min(best, time.perf_counter() - started)
    return best


def measure(one: dict[str, Any], calls: tuple[int, ...] = CALLS) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        servers = {
            hook: ContentsServer(Path(scratch) / f"hook-{hook}", hook=hook)
            for hook in (True, False)
        }
        try:
            for n in calls:
                notebook = many_calls(one, n)
                body = notebook_body(notebook)
                times = {hook: [] for hook in servers}  # type: dict[bool, list[float]]
                for run in range(RUNS):  # interleaved: both see the same load
                    for hook, server in servers.items():
                        started = time.perf_counter()
                        server.save(f"n{n}-{run}.ipynb", body)
                        times[hook].append(time.perf_counter() - started)
                saved = Path(scratch) / "hook-True" / "root" / f"n{n}-0.ipynb"
                kept = json.loads(saved.read_text())
                state = kept["metadata"]["widgets"][WIDGET_STATE]["state"]
                views = [
                    o["data"][WIDGET_VIEW]["model_id"]
                    for c in kept["cells"]
                    for o in c.get("outputs", [])
                    if "live" in o.get("metadata", {}).get(OUTPUT_KEY, {})
                ]
                assert len(views) == n and all(state[m] == PLACEHOLDER for m in views), (
                    "the hook saved a live view's model, not its placeholder"
                )
                rows.append(
                    {
                        "calls": n,
                        "size": len(body),
                        "saved": saved.stat().st_size,
                        "with": min(times[True]),
                        "without": min(times[False]),
                        "hook": _hook_alone(notebook),
                    }
                )
        finally:
            for server in servers.values():
                server.stop()
    return rows


def section_saving(report: Report) -> None:
    report.out("## (j) Saving a notebook of many calls through the Jupyter server")
    report.out()
    try:
        import jupyter_server  # noqa: F401
    except ImportError:
        report.out("jupyter_server is not installed (`make install`): not measured.")
        report.out()
        report.target("j: save with the hook / without, 400 calls", None, RATIO_LIMIT)
        return
    one = one_call()
    sizes = live_view_size(one)
    report.out(
        f"A call's live view in a notebook saved with widget state: {sizes['model'] / 1e3:.0f} kB "
        f"(its JavaScript {sizes['esm'] / 1e3:.0f} kB, its CSS {sizes['css'] / 1e3:.0f} kB); "
        f"the placeholder the hook saves instead: {sizes['placeholder']} bytes."
    )
    report.out()
    rows = measure(one)
    table = []
    for row in rows:
        ratio = row["with"] / row["without"]
        table.append(
            [
                str(row["calls"]),
                f"{row['size'] / 1e6:.1f} MB",
                f"{row['saved'] / 1e6:.2f} MB",
                f"{row['without'] * 1e3:.0f}",
                f"{row['with'] * 1e3:.0f}",
                f"{ratio:.2f}",
                f"{row['hook'] * 1e3:.0f}",
            ]
        )
        if row["calls"] == max(CALLS):
            report.target(
                f"j: save with the hook / without, {row['calls']} calls", ratio, RATIO_LIMIT
            )
    report.table(
        [
            "calls",
            "notebook sent",
            "file written",
            "ms without the hook",
            "ms with it",
            "ratio",
            "ms of the hook alone",
        ],
        table,
    )
    report.out(
        f"`PUT /api/contents` to two real servers on 127.0.0.1, best of {RUNS} interleaved "
        "runs; the server with the hook writes the smaller file. The hook runs in the server's "
        "event loop: its time is how long every other request waits."
    )
    report.out()


if __name__ == "__main__":
    section_saving(Report())
