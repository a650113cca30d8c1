"""How the live widget behaves in a real notebook page: long tasks, time to the final state,
and the saved notebook's growth per call (issue 13 item 6). Prints figures, asserts none.

Run: ``make bench-browser`` (or ``.venv/bin/python bench/browser.py [--output bench/RESULTS.md]
[--only NAME ...]``). It starts a throwaway JupyterLab on 127.0.0.1 and Debian's Chromium, as
the browser tests do (tests/jupyter/conftest.py), and runs each scenario in a notebook of its
own, with a kernel of its own, in a folder holding the scenario's files:

* ``a``: (a) of ``make bench``, a 20,000-line file with 200 chunks;
* ``b``: (b), a 500-file patch (167 added, 167 updated, 166 deleted);
* ``c``: (c), a 2 MB Add File of 40,000 lines;

each **whole** (``%apply_patch FILE --stream-chunk 0``) and **streamed** (100 deltas 10 ms
apart), the patch read from a file (a 2 MB cell would measure the editor, not the widget);
then the magic's **default** run of a 1,300-line ``%%apply_patch`` cell, (c) streamed but
**cancelled** by a kernel interrupt (a real SIGINT) in the middle of its stream, and a
**one-line** call (and a **declined** one-line call) run after that 1,300-line cell, in the same
turn: what a later call adds to the saved file once the turn holds a large change (issue 23
item 5; the target is under 20 KB).

Measured in the page, from the click on "run" to the final state: every ``longtask`` entry
(``PerformanceObserver``; tasks of 50 ms and more), their longest and how many exceed 100 ms;
the time from the pipeline's end (the wall-clock time of the call's last event, taken in the
kernel from the turn's recorder) to the final state shown (the widget's ``data-status``
terminal, rendered, and painted: the next frame after the widget reports no pending work); the
total time; the page's main-thread CPU time over the same span (Chromium's ``ThreadTime``, read
through the DevTools protocol). The saved notebook's growth: the file saved through the contents
API (the panel's own save) before and after the call.

The machine's other users share its cores: the figures are medians of ``--runs`` runs (3), each
run's figures printed as it ends. The wall times are noisy (a busy machine doubles them); the
main-thread CPU time is the page's own work, and the figure to compare two trees by.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from workloads import LineMaker, Workload, big_add, big_update, many_files  # noqa: E402

from applypatch_ext.core.text import plural  # noqa: E402
from applypatch_ext.jupyter.records.vocabulary import call_vocabulary  # noqa: E402
from tests.jupyter.conftest import CHROMIUM, CHROMIUM_ARGS, JupyterServer  # noqa: E402
from tests.jupyter.pages import LAB_KERNEL_READY  # noqa: E402

SECTION = "## Browser: the live widget in JupyterLab (`make bench-browser`)"
#: Streamed runs: this many deltas, this far apart (what the default stream will be bounded to).
STREAM_DELTAS = 100
STREAM_DELAY = 0.01
#: The cancelled run streams slower, so that the interrupt lands in the middle of its stream.
CANCEL_DELAY = 0.05
TERMINAL = sorted(str(k) for k, m in call_vocabulary()["statuses"].items() if m.get("terminal"))

SETUP = "%load_ext applypatch_ext"
# The wall-clock time of the call's last event: the recorder keeps monotonic offsets.
PROBE = """import json as _json, time as _time
from applypatch_ext.jupyter.live.session import SESSION as _S
_rec = _S.turn.recorder
_last = _rec.events[-1]
print("BENCH" + _json.dumps({"end": _time.time() - (_time.monotonic() - (_rec.start + _last.time)),
    "last": _last.to_json()["type"], "events": len(_rec.events)}))"""

PANEL = """(path) => [...window.jupyterapp.shell.widgets('main')]
    .find(w => w.context?.path === path)"""

# Installed before the call runs: long tasks, and when the widget's final state is painted.
OBSERVE = f"""([terminal, path, index]) => {{
    const b = window.__bench = {{tasks: [], t0: performance.now(), final: null, status: null,
                                ran: false}};
    b.observer = new PerformanceObserver((list) => {{
        for (const e of list.getEntries()) {{
            b.tasks.push({{start: e.startTime, duration: e.duration}});
        }}
    }});
    b.observer.observe({{type: 'longtask'}});
    // the measured cell's widget (an earlier cell may have one of its own)
    const widget = () => ({PANEL})(path)?.content.widgets[index]?.node
        .querySelector('[data-testid=applypatch-widget]');
    const check = () => {{
        const w = widget();
        if (!w || b.final !== null || b.pending) return;
        const status = w.getAttribute('data-status');
        if (!terminal.includes(status)) return;
        if (!b.statusSeen) {{
            // the terminal status, painted (the rest of the final state may still come)
            b.statusSeen = true;
            requestAnimationFrame(() => setTimeout(() => {{
                b.statusEpoch = performance.timeOrigin + performance.now();
            }}, 0));
        }}
        // every message of the call has arrived once the cell has run
        if (!b.ran || w.hasAttribute('data-rendering') || w.querySelector('[data-rendering]')) {{
            return;
        }}
        b.pending = true;
        // rendered: painted in the next frame
        requestAnimationFrame(() => setTimeout(() => {{
            b.final = performance.now();
            b.finalEpoch = performance.timeOrigin + b.final;
            b.status = status;
        }}, 0));
    }};
    b.check = check;
    b.mutations = new MutationObserver(check);
    b.mutations.observe(document.body, {{subtree: true, attributes: true,
        attributeFilter: ['data-status', 'data-rendering'], childList: true}});
}}"""

RUN_CELL = f"""([path, index]) => {{
    const panel = ({PANEL})(path);
    window.jupyterapp.shell.activateById(panel.id);
    panel.content.activeCellIndex = index;
    const b = window.__bench;
    if (b) b.t0 = performance.now();
    // resolves once the cell's reply, and every message before it, has been handled
    window.jupyterapp.commands.execute('notebook:run-cell').then(() => {{
        if (b) {{ b.ran = true; b.check(); }}
    }});
}}"""

CELL_DONE = f"""([path, index]) => {{
    const panel = ({PANEL})(path);
    const cell = panel.content.widgets[index];
    const k = panel.sessionContext.session?.kernel;
    return cell.model.executionCount !== null && k?.status === 'idle';
}}"""

CELL_TEXT = f"""([path, index]) => {{
    const panel = ({PANEL})(path);
    return JSON.stringify(panel.content.widgets[index].model.outputs.toJSON());
}}"""

SAVE = f"""async (path) => {{ await ({PANEL})(path).context.save(); }}"""
INTERRUPT = f"""async (path) => {{
    await ({PANEL})(path).sessionContext.session.kernel.interrupt(); }}"""
SHUTDOWN = f"""async (path) => {{ await ({PANEL})(path).sessionContext.shutdown(); }}"""
STREAMED_LINES = """() => {
    const w = document.querySelector(
        '.jp-NotebookPanel:not(.lm-mod-hidden) [data-testid=applypatch-widget]');
    const h = JSON.parse(w?.getAttribute('data-history') || '[]');
    return h.filter((e) => e.k === 'lines').reduce((m, e) => Math.max(m, e.v), 0);
}"""


@dataclass
class Scenario:
    name: str
    title: str
    workload: Workload
    mode: str  # whole, streamed, default, cancelled
    #: a cell run (and saved) before the measured call, in the same turn
    prelude: str = ""
    #: the measured cell's options (the default run)
    options: str = ""

    def call_cell(self) -> str:
        if self.mode == "default":
            return f"%%apply_patch {self.options}".rstrip() + "\n" + self.workload.patch
        if self.mode == "whole":
            return "%apply_patch patch.txt --stream-chunk 0"
        chunk = math.ceil(len(self.workload.patch) / STREAM_DELTAS)
        if self.mode == "cancelled":  # slow enough to be interrupted halfway
            return f"%apply_patch patch.txt --stream-chunk {chunk} --stream-delay {CANCEL_DELAY}"
        return f"%apply_patch patch.txt --stream-chunk {chunk} --stream-delay {STREAM_DELAY}"


def cell_workload(lines: int = 1_300) -> Workload:
    """A 1,300-line cell: one Add File of code-like lines (the default run streams it)."""
    import random

    maker = LineMaker(random.Random(20261201))
    body = maker.lines(lines - 3)
    patch = "*** Begin Patch\n*** Add File: cell.py\n"
    patch += "".join("+" + line + "\n" for line in body) + "*** End Patch\n"
    after = {"cell.py": "".join(line + "\n" for line in body).encode()}
    return Workload("cell", f"a {lines:,}-line cell", {}, patch, after)


def scenarios() -> list[Scenario]:
    a, b, c = big_update(), many_files(), big_add()
    out = []
    for key, w, label in [
        ("a", a, "20,000 lines, 200 chunks"),
        ("b", b, "500 files"),
        ("c", c, "2 MB Add File"),
    ]:
        out.append(Scenario(f"{key}-whole", f"({key}) {label}, whole", w, "whole"))
        out.append(Scenario(f"{key}-streamed", f"({key}) {label}, streamed", w, "streamed"))
    cell = cell_workload()
    out.append(Scenario("default", "1,300-line cell, default run", cell, "default"))
    out.append(Scenario("c-cancelled", "(c) 2 MB Add File, cancelled mid-stream", c, "cancelled"))
    one = Workload("one", "a one-line Add File", {}, ONE_LINE, {"one.txt": b"one line\n"})
    prelude = "%%apply_patch\n" + cell.patch
    for name, title, options in [
        ("one-after-big", "one-line call after the 1,300-line cell", ""),
        ("declined-after-big", "declined one-line call after it", "--review --approve decline"),
    ]:
        out.append(Scenario(name, title, one, "default", prelude=prelude, options=options))
    return out


ONE_LINE = "*** Begin Patch\n*** Add File: one.txt\n+one line\n*** End Patch\n"


class MainThreadCpu:
    """The page's main thread's CPU time, in ms (Chromium's ``ThreadTime`` metric, through the
    DevTools protocol): the work the page did, whatever else the machine's cores did meanwhile.
    """

    def __init__(self, page: Any) -> None:
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")
        self.start = self.now()

    def now(self) -> float:
        metrics = self.cdp.send("Performance.getMetrics")["metrics"]
        return float(next(m["value"] for m in metrics if m["name"] == "ThreadTime")) * 1000

    def spent(self) -> float:
        """The CPU time since this was made; the session ends."""
        spent = self.now() - self.start
        self.cdp.detach()
        return spent


def run_scenario(page: Any, server: JupyterServer, s: Scenario, run: int = 1) -> dict[str, Any]:
    # every run in a folder and a notebook of its own (a notebook written again under the same
    # name would be one JupyterLab saw change on disk)
    folder = server.root / f"{s.name}-{run}"
    folder.mkdir(parents=True, exist_ok=True)
    for rel, data in s.workload.before.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (folder / "patch.txt").write_text(s.workload.patch, encoding="utf-8")
    before = [SETUP, *([s.prelude] if s.prelude else [])]
    call = len(before)  # the measured cell's index
    name = server.write_notebook(f"{folder.name}/bench.ipynb", [*before, s.call_cell(), PROBE])
    page.goto(f"{server.url}/lab/tree/{name}?reset")
    page.wait_for_function(LAB_KERNEL_READY, arg=name, timeout=90_000, polling=100)
    for index in range(call):
        page.evaluate(RUN_CELL, [name, index])
        page.wait_for_function(CELL_DONE, arg=[name, index], timeout=120_000, polling=100)
    page.evaluate(SAVE, name)
    size_before = (server.root / name).stat().st_size
    page.wait_for_timeout(500)  # let the page settle: only the call's tasks count
    page.evaluate(OBSERVE, [TERMINAL, name, call])
    cpu = MainThreadCpu(page)
    page.evaluate(RUN_CELL, [name, call])
    if s.mode == "cancelled":
        # the stream shows (at most 200,000 characters of the text): interrupt a third in
        page.wait_for_function(f"() => ({STREAMED_LINES})() > 0", timeout=120_000, polling=50)
        page.wait_for_timeout(STREAM_DELTAS * CANCEL_DELAY * 1000 / 3)
        page.evaluate(INTERRUPT, name)
    page.wait_for_function("() => window.__bench.final !== null", timeout=600_000, polling=50)
    page.wait_for_function(CELL_DONE, arg=[name, call], timeout=120_000, polling=100)
    page.wait_for_timeout(1000)  # late tasks (a record rendered after the view) count too
    cpu_ms = cpu.spent()
    seen = page.evaluate(
        """() => { const b = window.__bench; b.observer.disconnect(); b.mutations.disconnect();
            return {tasks: b.tasks, t0: b.t0, final: b.final, finalEpoch: b.finalEpoch,
                    statusEpoch: b.statusEpoch, status: b.status}; }"""
    )
    page.evaluate(SAVE, name)
    size_after = (server.root / name).stat().st_size
    page.evaluate(RUN_CELL, [name, call + 1])
    page.wait_for_function(CELL_DONE, arg=[name, call + 1], timeout=60_000, polling=100)
    outputs = json.loads(page.evaluate(CELL_TEXT, [name, call + 1]))
    text = "".join(
        "".join(o.get("text", "")) if isinstance(o.get("text"), list) else o.get("text", "")
        for o in outputs
    )
    skew = page.evaluate("() => Date.now() - (performance.timeOrigin + performance.now())")
    probe = json.loads(text.split("BENCH", 1)[1].splitlines()[0]) if "BENCH" in text else {}
    page.evaluate(SHUTDOWN, name)
    tasks = [t["duration"] for t in seen["tasks"] if t["start"] >= seen["t0"] - 1]
    end = probe["end"] * 1000 if probe else float("nan")
    return {
        "name": s.name,
        "title": s.title,
        "status": seen["status"],
        "patch_kb": len(s.workload.patch.encode()) / 1000,
        "longest_ms": max(tasks, default=0.0),
        "over_100": sum(1 for t in tasks if t > 100),
        "tasks": len(tasks),
        "end_to_status_ms": (seen["statusEpoch"] or math.nan) - end,
        "end_to_final_ms": seen["finalEpoch"] - end,
        "total_s": (seen["final"] - seen["t0"]) / 1000,
        "growth_kb": (size_after - size_before) / 1000,
        "clock_skew_ms": skew,
        "cpu_ms": cpu_ms,
    }


def median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One row of ``runs`` of a scenario: the median of each figure (the last run's status)."""
    row = dict(runs[-1])
    for key, value in row.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            row[key] = statistics.median(r[key] for r in runs)
    return row


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| scenario | patch kB | status | longest task, ms | tasks > 100 ms | long tasks "
        "| pipeline end to status shown, ms | to final shown, ms | total, s "
        "| page main-thread CPU, ms | saved notebook growth, kB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['title']} | {r['patch_kb']:.0f} | {r['status']} | {r['longest_ms']:.0f} "
            f"| {r['over_100']} | {r['tasks']} | {_ms(r.get('end_to_status_ms'))} "
            f"| {r['end_to_final_ms']:.0f} "
            f"| {r['total_s']:.2f} | {r['cpu_ms']:.0f} | {r['growth_kb']:.1f} |"
        )
    return lines


def _ms(value: float | None) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.0f}"


def write_section(output: Path, body: list[str]) -> None:
    """Replace (or append) this bench's section of ``output``, keeping every other section."""
    text = output.read_text(encoding="utf-8") if output.exists() else ""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line == SECTION), None)
    if start is None:
        kept, tail = lines, []
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        kept, tail = lines[:start], lines[end:]
    while kept and not kept[-1].strip():
        kept.pop()
    new = [*kept, "", SECTION, "", *body, ""]
    if tail:
        new += [*tail]
    output.write_text("\n".join(new).rstrip("\n") + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, help="Write the section into this Markdown file.")
    parser.add_argument("--only", nargs="*", help="Run only these scenarios (by name).")
    parser.add_argument(
        "--runs", type=int, default=3, help="Runs of each scenario; the table has the medians."
    )
    parser.add_argument(
        "--label", default="", help="A label for this run, e.g. 'before' (in the section)."
    )
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM}: apt-get install -y --no-install-recommends chromium")
        return 2
    from playwright.sync_api import sync_playwright

    chosen = [s for s in scenarios() if not args.only or s.name in args.only]
    started = time.monotonic()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-browser-") as tmp:
        server = JupyterServer("jupyterlab", Path(tmp))
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1280, "height": 1000})
                page = context.new_page()
                for s in chosen:
                    t = time.monotonic()
                    runs = []
                    for k in range(1, args.runs + 1):
                        runs.append(run_scenario(page, server, s, k))
                        print(f"  run {k}: {json.dumps(runs[-1])}", flush=True)
                    row = median_row(runs)
                    rows.append(row)
                    print(
                        f"{s.title}: longest task {row['longest_ms']:.0f} ms, "
                        f"{row['over_100']} over 100 ms, end to final "
                        f"{row['end_to_final_ms']:.0f} ms, total {row['total_s']:.2f} s, "
                        f"main-thread CPU {row['cpu_ms']:.0f} ms, "
                        f"notebook +{row['growth_kb']:.1f} kB, clock skew "
                        f"{row['clock_skew_ms']:.0f} ms ({time.monotonic() - t:.0f} s)",
                        flush=True,
                    )
                browser.close()
        finally:
            server.stop()
    cores = os.cpu_count()
    head = [
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; JupyterLab in Chromium "
        f"({CHROMIUM}), headless, 1280x1000; {cores} CPUs shared with other work (noisy): "
        f"median of {plural(args.runs, 'run')} each. Streamed: "
        f"{STREAM_DELTAS} deltas {STREAM_DELAY * 1000:.0f} ms apart; whole: --stream-chunk 0; "
        "the default run: `%%apply_patch` with no option; cancelled: (c) streamed in 100 "
        "deltas 50 ms apart, interrupted (SIGINT) a third into its stream.",
        "",
        "Long tasks: `PerformanceObserver` `longtask` entries (50 ms and more) from the run "
        "click to 1 s after the final state. From the pipeline's end (the wall-clock time of "
        "the call's last event, in the kernel) to the first frame painted after the widget "
        "shows its terminal status (status shown), and after that, the cell has ended "
        "(every message of the call in: colours, the static record) and the widget has no "
        "rendering pending (final shown). Page main-thread CPU: Chromium's `ThreadTime` "
        "(DevTools protocol) over the same span as the long tasks, the page's own work "
        "whatever the machine's other users do (wall times are not). Growth: the notebook "
        "saved through the contents API before and after the call.",
        "",
    ]
    label = f"### {args.label}" if args.label else "### latest run"
    body = [*head, label, "", *table(rows)]
    print("\n".join(table(rows)))
    print(f"bench-browser took {time.monotonic() - started:.0f} s")
    if args.output:
        previous = _previous_tables(args.output, exclude=label)
        write_section(args.output, [*body, *previous])
    return 0


def _previous_tables(output: Path, exclude: str) -> list[str]:
    """The other labelled tables of this section (a 'before' run is kept beside 'after')."""
    if not output.exists():
        return []
    lines = output.read_text(encoding="utf-8").splitlines()
    if SECTION not in lines:
        return []
    start = lines.index(SECTION) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    out: list[str] = []
    keep = False
    for line in lines[start:end]:
        if line.startswith("### "):
            keep = line != exclude
        if keep:
            out.append(line)
    return ["", *out] if out else []


if __name__ == "__main__":
    sys.exit(main())
