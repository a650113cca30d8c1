"""``make bench``: time our apply_patch pipeline on the issue-6 workloads, side by side with peers.

Run as ``.venv/bin/python bench/run.py --cache .cache [--runs N] [--output bench/RESULTS.md]``.
The workloads are generated here from a fixed seed (``workloads.py``); the peers are installed
into the cache (``peers.py``) and never become dependencies of the package. Every implementation's
result tree is checked against the expected tree once before it is timed.

"In process" times only the call (files written to a fresh directory beforehand, on tmpfs when
``/dev/shm`` is there); "process" is a whole ``subprocess.run`` with the patch on stdin (a 2 MB
patch does not fit in one argument), interpreter start included. Figures are medians with the
range (min-max) of ``--runs`` runs; ratios are medians over medians of the same run. Memory is
the ``tracemalloc`` peak of Python allocations during the call (a separate, untimed run).
``--profile NAME`` prints a cProfile of ours in process on one workload instead.

Stdlib only; prints, never asserts (no test depends on a duration).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import datetime
import gc
import io
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import peers as peers_mod
import workloads as wl
from diagnosis import section_diagnosis
from report import Report
from saving import section_saving
from scaling import peak_memory, section_scaling

REPO = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
DELTA_SIZE = 16
#: Environment of every timed subprocess; ``main`` points its bytecode cache into the bench cache
#: (an installed package has its ``.pyc`` files; a session with PYTHONDONTWRITEBYTECODE would
#: otherwise compile every module of ours at every start).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


# ------------------------------------------------------------------------------------------------
# measuring


@dataclass
class Stats:
    samples: list[float]  # seconds

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def ms(self) -> str:
        lo, hi = min(self.samples) * 1e3, max(self.samples) * 1e3
        return f"{_num(self.median * 1e3)} ({_num(lo)}-{_num(hi)})"


def _num(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def _ratio(a: Stats | float | None, b: Stats | float | None) -> float | None:
    if a is None or b is None:
        return None
    x = a.median if isinstance(a, Stats) else a
    y = b.median if isinstance(b, Stats) else b
    return x / y if y > 0 else None


def _fmt_ratio(r: float | None) -> str:
    return "n/a" if r is None else f"{r:.2f}"


def _timed(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# ------------------------------------------------------------------------------------------------
# trees


def scratch_root() -> Path:
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return Path(tempfile.mkdtemp(prefix="applypatch-bench-", dir=shm))
    return Path(tempfile.mkdtemp(prefix="applypatch-bench-"))


def write_tree(root: Path, tree: wl.Tree) -> None:
    root.mkdir(parents=True)
    for rel, data in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def read_tree(root: Path) -> wl.Tree:
    out: wl.Tree = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


@dataclass
class Sandbox:
    root: Path
    counter: int = 0

    @contextmanager
    def tree(self, tree: wl.Tree) -> Iterator[Path]:
        self.counter += 1
        path = self.root / f"run{self.counter}"
        write_tree(path, tree)
        try:
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)


# ------------------------------------------------------------------------------------------------
# the implementations: each returns a runner(patch, workdir) that does the work once


Runner = Callable[[wl.Workload, Path], object]


def ours_in_process() -> Runner:
    from applypatch_ext.core.apply.standalone import apply_patch

    def run(w: wl.Workload, cwd: Path) -> object:
        result = apply_patch(w.patch, cwd)
        if result.exit_code != 0:
            raise RuntimeError(f"ours failed on {w.name}: {result.stderr}")
        return result

    return run


def cap_in_process(cap: ModuleType) -> Runner:
    def run(w: wl.Workload, cwd: Path) -> object:
        old = os.getcwd()
        os.chdir(cwd)
        try:
            return cap.apply_patch(w.patch)
        finally:
            os.chdir(old)

    return run


def command(cmd: list[str]) -> Runner:
    def run(w: wl.Workload, cwd: Path) -> object:
        result = subprocess.run(
            cmd, input=w.patch.encode(), cwd=cwd, capture_output=True, check=False, env=CHILD_ENV
        )
        if result.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed on {w.name}: {result.stderr[-300:]!r}")
        return result

    return run


def git_apply(git: str, diff_path: Path) -> Runner:
    def run(w: wl.Workload, cwd: Path) -> object:
        cmd = [git, "apply", "-p2", "--whitespace=nowarn", str(diff_path)]
        result = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"git apply failed on {w.name}: {result.stderr[-300:]!r}")
        return result

    return run


def make_git_diff(git: str, w: wl.Workload, root: Path) -> Path:
    """An equivalent unified diff, made by ``git diff --no-index`` of the before/after trees."""
    base = root / f"diff-{w.name}"
    write_tree(base / "before", w.before)
    write_tree(base / "after", w.after)
    cmd = [git, "diff", "--no-index", "--no-renames", "--binary", "before", "after"]
    result = subprocess.run(cmd, cwd=base, capture_output=True, check=False)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"git diff failed: {result.stderr!r}")
    path = root / f"{w.name}.diff"
    path.write_bytes(result.stdout)
    shutil.rmtree(base)
    return path


def whole_process(cmd: list[str], stdin: bytes, cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, check=False, env=CHILD_ENV)
    return time.perf_counter() - start


# ------------------------------------------------------------------------------------------------
# report


# ------------------------------------------------------------------------------------------------
# sections


def check_results(
    report: Report, sandbox: Sandbox, works: list[wl.Workload], runners: dict[str, Runner]
) -> dict[str, set[str]]:
    """Run every implementation once per workload; return the workloads each got wrong."""
    wrong: dict[str, set[str]] = {name: set() for name in runners}
    for w in works:
        for name, runner in runners.items():
            with sandbox.tree(w.before) as cwd:
                try:
                    runner(w, cwd)
                    ok = read_tree(cwd) == w.after
                except RuntimeError:
                    ok = False
            if not ok:
                wrong[name].add(w.name)
    summary = ", ".join(
        f"{name}: {'all match' if not bad else 'differs on ' + ', '.join(sorted(bad))}"
        for name, bad in wrong.items()
    )
    report.out(f"Result trees checked against the expected trees: {summary}.")
    report.out()
    return wrong


def time_runner(sandbox: Sandbox, w: wl.Workload, runner: Runner, runs: int) -> Stats:
    samples = []
    for _ in range(runs):
        with sandbox.tree(w.before) as cwd:
            samples.append(_timed(partial(runner, w, cwd)))
    return Stats(samples)


def section_apply(
    report: Report, sandbox: Sandbox, peers: peers_mod.Peers, runs: int
) -> tuple[dict[str, dict[str, Stats]], list[wl.Workload], Stats]:
    works = wl.all_apply_workloads()
    report.out("## Apply workloads (a)-(d)")
    report.out()
    for w in works:
        size = sum(len(v) for v in w.before.values()) + sum(len(v) for v in w.after.values())
        report.out(f"* {w.title}: patch {len(w.patch) / 1e3:.0f} kB, files {size / 1e3:.0f} kB")
    report.out()

    runners: dict[str, Runner] = {"ours": ours_in_process()}
    cmd_ours = [str(VENV_BIN / "apply_patch")]
    runners["ours process"] = command(cmd_ours)
    if peers.reference is not None:
        runners["reference process"] = command([str(peers.reference)])
    if peers.cap is not None:
        runners["codex-apply-patch"] = cap_in_process(peers.cap)
    diffs: dict[str, Path] = {}
    if peers.git is not None:
        for w in works:
            diffs[w.name] = make_git_diff(peers.git, w, sandbox.root)
    wrong = check_results(report, sandbox, works, runners)

    results: dict[str, dict[str, Stats]] = {w.name: {} for w in works}
    empty = Stats([])
    for w in works:
        for _ in range(runs):
            # Interleaved, so that a slow phase of the machine hits every implementation alike.
            timed = dict(runners)
            if peers.git is not None:
                timed["git apply"] = git_apply(peers.git, diffs[w.name])
            for name, runner in timed.items():
                with sandbox.tree(w.before) as cwd:
                    t = _timed(partial(runner, w, cwd))
                results[w.name].setdefault(name, Stats([])).samples.append(t)
            if peers.reference is not None:  # its start-up, under the same load as its work
                empty.samples.append(whole_process([str(peers.reference)], b"", sandbox.root))

    header = ["workload", "ours in process, ms", "ours process", "reference process"]
    header += ["reference work", "codex-apply-patch", "git apply process"]
    header += ["ours / ref work", "ours / cap", "ours proc / ref proc", "ours proc / git"]
    rows = []
    for w in works:
        r = results[w.name]
        ref = r.get("reference process")
        ref_work = None if ref is None else ref.median - empty.median
        cap = r.get("codex-apply-patch")
        git = r.get("git apply")
        rows.append(
            [
                w.title,
                r["ours"].ms(),
                r["ours process"].ms(),
                ref.ms() if ref else "n/a",
                "n/a" if ref_work is None else _num(ref_work * 1e3),
                cap.ms() if cap else "n/a",
                git.ms() if git else "n/a",
                _fmt_ratio(_ratio(r["ours"], ref_work)),
                _fmt_ratio(_ratio(r["ours"], cap)),
                _fmt_ratio(_ratio(r["ours process"], ref)),
                _fmt_ratio(_ratio(r["ours process"], git)),
            ]
        )
        report.target(
            f"{w.name}: ours in process / reference work time",
            _ratio(r["ours"], ref_work),
            1.0,
        )
        if w.name in ("a", "c"):
            kind = "target" if w.name == "a" else "stretch goal"
            report.target(
                f"{w.name}: ours in process / codex-apply-patch ({kind})",
                _ratio(r["ours"], cap),
                1.0,
            )
    report.table(header, rows)
    if empty.samples:
        report.out(
            f"Reference empty invocation (usage, exit 2): {empty.ms()} ms; "
            "reference work = its process time minus this."
        )
    bad = {k: v for k, v in wrong.items() if v}
    if bad:
        report.out(f"Note: result differs from the expected tree for {bad} (timed anyway).")
    report.out()
    return results, works, empty


def _mount_of(path: Path) -> str:
    """The filesystem type holding ``path`` (from /proc/mounts), for the report."""
    best, kind = "", "unknown"
    with contextlib.suppress(OSError):
        real = os.path.realpath(path)
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            inside = len(parts) > 2 and (real + "/").startswith(parts[1].rstrip("/") + "/")
            if inside and len(parts[1]) >= len(best):
                best, kind = parts[1], parts[2]
    return kind


def section_transaction(
    report: Report, sandbox: Sandbox, works: list[wl.Workload], runs: int
) -> None:
    """The whole pipeline on (a)-(d): the default mode beside ``--transaction atomic``, whose
    write-ahead journal (one file, fsync'd, then removed) goes to a folder on the disk."""
    from applypatch_ext.core.apply.journal import STATE_DIR_ENV
    from applypatch_ext.core.apply.transaction import Transaction
    from applypatch_ext.core.turn.options import PipelineOptions
    from applypatch_ext.core.turn.turn import run_patch

    state = Path(tempfile.mkdtemp(prefix="applypatch-bench-state-"))
    previous = os.environ.get(STATE_DIR_ENV)
    os.environ[STATE_DIR_ENV] = str(state)
    modes = {
        "none": PipelineOptions(),
        "atomic": PipelineOptions(transaction=Transaction.ATOMIC),
    }

    def runner(options: PipelineOptions) -> Runner:
        def run(w: wl.Workload, cwd: Path) -> object:
            result = run_patch(w.patch, str(cwd), options=options)
            if not result.ok:
                raise RuntimeError(f"the pipeline failed on {w.name}: {result.output}")
            return result

        return run

    results: dict[str, dict[str, Stats]] = {w.name: {} for w in works}
    try:
        for w in works:
            for mode, options in modes.items():  # once, untimed: the result tree is checked
                with sandbox.tree(w.before) as cwd:
                    runner(options)(w, cwd)
                    if read_tree(cwd) != w.after:
                        report.out(f"Note: {mode} gives a different tree on {w.name}.")
            for _ in range(runs):
                for mode, options in modes.items():  # interleaved
                    with sandbox.tree(w.before) as cwd:
                        t = _timed(partial(runner(options), w, cwd))
                    results[w.name].setdefault(mode, Stats([])).samples.append(t)
    finally:
        if previous is None:
            os.environ.pop(STATE_DIR_ENV, None)
        else:
            os.environ[STATE_DIR_ENV] = previous
        shutil.rmtree(state, ignore_errors=True)

    report.out("## Transactions: the pipeline in the default mode and in atomic mode")
    report.out()
    report.out(
        "`run_patch` (parse, verify, safety, sandboxed apply, TurnDiff) on (a)-(d); atomic "
        "mode adds the write-ahead journal: every path's prior state read and written to one "
        f"file, fsync'd with its folder, removed at the end (journal on {_mount_of(state)}, "
        f"tree on {_mount_of(sandbox.root)})."
    )
    report.out()
    rows = []
    for w in works:
        none, atomic = results[w.name]["none"], results[w.name]["atomic"]
        overhead = (atomic.median - none.median) * 1e3
        rows.append(
            [w.title, none.ms(), atomic.ms(), _fmt_ratio(_ratio(atomic, none)), _num(overhead)]
        )
    header = ["workload", "pipeline none, ms", "pipeline atomic, ms", "atomic / none"]
    report.table([*header, "atomic overhead, ms"], rows)


def section_undo(report: Report, sandbox: Sandbox, works: list[wl.Workload], runs: int) -> None:
    """Undo (docs/behaviour.md §11) on (a)-(d): the call, then its undo (the check of every
    file, the description as a patch, the pipeline, the writes of the recorded states); the
    tree after the undo must be the tree before the call."""
    from applypatch_ext.core.turn.turn import Turn

    results: dict[str, dict[str, Stats]] = {w.name: {} for w in works}
    for w in works:
        for _ in range(runs):
            with sandbox.tree(w.before) as cwd:
                turn = Turn(str(cwd))
                started = time.perf_counter()
                call = turn.run(w.patch, "approve")
                applied = time.perf_counter()
                undone = turn.undo(approver="approve")
                finished = time.perf_counter()
                if not call.ok or not undone.ok:
                    raise RuntimeError(f"undo failed on {w.name}: {undone.output}")
                if read_tree(cwd) != w.before or turn.turn_diff():
                    report.out(f"Note: the undo does not restore the tree on {w.name}.")
            results[w.name].setdefault("call", Stats([])).samples.append(applied - started)
            results[w.name].setdefault("undo", Stats([])).samples.append(finished - applied)

    report.out("## Undo: a call and its undo")
    report.out()
    report.out(
        "`Turn.run` of the workload, then `Turn.undo()` of it: the check of every file it "
        "touched, its description as a patch, the pipeline and the writes of the recorded "
        "states (the tree is checked against the one before the call)."
    )
    report.out()
    rows = []
    for w in works:
        call_stats, undo_stats = results[w.name]["call"], results[w.name]["undo"]
        rows.append(
            [w.title, call_stats.ms(), undo_stats.ms(), _fmt_ratio(_ratio(undo_stats, call_stats))]
        )
    report.table(["workload", "call, ms", "undo, ms", "undo / call"], rows)


def section_memory(report: Report, works: list[wl.Workload], sandbox: Sandbox) -> None:
    from applypatch_ext.core.apply.standalone import apply_patch

    report.out("## Peak memory in process (tracemalloc peak during the call)")
    report.out()
    rows = []
    for w in works:
        if w.name not in ("a", "b", "c"):
            continue
        with sandbox.tree(w.before) as cwd:
            peak = peak_memory(partial(apply_patch, w.patch, cwd))
        involved = w.involved_bytes()
        ratio = peak / involved
        rows.append([w.title, f"{peak / 1e6:.2f}", f"{involved / 1e6:.2f}", f"{ratio:.2f}"])
        report.target(f"{w.name}: peak memory / files involved", ratio, 3.0)
    report.table(["workload", "peak MB", "files involved MB", "ratio"], rows)
    report.out("Files involved = the patch plus every touched file before and after.")
    report.out()


def section_process(
    report: Report, sandbox: Sandbox, results: dict[str, dict[str, Stats]], runs: int
) -> None:
    report.out("## Start-up: import time and the `apply_patch` command")
    report.out()
    py = sys.executable
    whole_process([py, "-c", "import applypatch_ext.cli"], b"", sandbox.root)  # writes the .pyc
    pass_t: list[float] = []
    import_t: list[float] = []
    stdlib_t: list[float] = []
    for _ in range(max(runs * 3, 15)):
        pass_t.append(whole_process([py, "-c", "pass"], b"", sandbox.root))
        import_t.append(whole_process([py, "-c", "import applypatch_ext.cli"], b"", sandbox.root))
        stdlib_t.append(whole_process([py, "-c", STDLIB_OF_THE_CORE], b"", sandbox.root))
    p, i, s = Stats(pass_t), Stats(import_t), Stats(stdlib_t)
    import_ms = (i.median - p.median) * 1e3
    d_proc = results["d"]["ours process"]
    rows = [
        ["`python -c pass`", p.ms()],
        ["`python -c 'import applypatch_ext.cli'`", i.ms()],
        ["import time of the command (difference)", _num(import_ms)],
        ["`apply_patch` on (d), whole process", d_proc.ms()],
        ["(d) whole process / `python -c pass`", _fmt_ratio(_ratio(d_proc, p))],
        [f"floor: `python -c '{STDLIB_OF_THE_CORE}'`", s.ms()],
        ["floor / `python -c pass`", _fmt_ratio(_ratio(s, p))],
    ]
    report.table(["measure", "ms"], rows)
    report.target("import time of the command, ms", import_ms, 30.0, "{:.1f}")
    report.target("(d) whole process / python -c pass", _ratio(d_proc, p), 1.3)
    top = import_breakdown(py)
    report.out("Largest self import times (`python -X importtime`, median of 5): " + top)
    report.out()


#: The standard modules the core's records and types need (frozen dataclasses, typing, enums,
#: as CONTRIBUTING.md asks): what any command built on them pays before its first line of work.
STDLIB_OF_THE_CORE = "import dataclasses, typing, enum"


def import_breakdown(py: str) -> str:
    samples: dict[str, list[int]] = {}
    for _ in range(5):
        cmd = [py, "-X", "importtime", "-c", "import applypatch_ext.cli"]
        err = subprocess.run(cmd, capture_output=True, text=True, check=False, env=CHILD_ENV).stderr
        for line in err.splitlines()[1:]:
            parts = line.split("|")
            if len(parts) == 3:
                samples.setdefault(parts[2].strip(), []).append(int(parts[0].split(":")[1]))
    ranked = sorted(((statistics.median(v), k) for k, v in samples.items()), reverse=True)
    return ", ".join(f"{name} {us / 1e3:.1f} ms" for us, name in ranked[:8])


def section_streaming(report: Report, patch_a: str, runs: int) -> None:
    from applypatch_ext.core.parse.parser import parse_patch
    from applypatch_ext.core.parse.streaming import StreamingPatchParser
    from applypatch_ext.core.turn.preview import ApplyPatchArgumentDiffConsumer

    report.out(f"## (e) Streaming, deltas of {DELTA_SIZE} characters")
    report.out()
    report.out(
        "`feed`: the parser takes each delta and processes lines in bulk when read (here at "
        "`finish`); the preview consumer feeds it the same way. `push_delta` also reads a "
        "snapshot of the hunks after every delta (no target: shown for the cost of that)."
    )
    report.out()

    kinds: dict[str, tuple[_Driver, bool]] = {  # how each delta is consumed; has a target
        "parser, feed": (_parser_driver(StreamingPatchParser, "feed"), True),
        "parser, push_delta": (_parser_driver(StreamingPatchParser, "push_delta"), False),
        "preview consumer": (_consumer_driver(ApplyPatchArgumentDiffConsumer), True),
    }
    texts = {"(a)'s patch": patch_a, "1 MB multi-file patch": wl.multi_file_stream()}
    rows = []
    for label, text in texts.items():
        deltas = [text[i : i + DELTA_SIZE] for i in range(0, len(text), DELTA_SIZE)]
        fifth = len(deltas) // 5
        parts = (deltas[:fifth], deltas[fifth:-fifth], deltas[-fifth:])

        def one_shot(text: str = text) -> object:
            return parse_patch(text)

        def streamed(make: _Driver, parts: tuple[list[str], ...] = parts) -> list[float]:
            push, finish = make()
            marks = [time.perf_counter()]
            for part in parts:
                for delta in part:
                    push(delta)
                marks.append(time.perf_counter())
            finish()
            return [marks[1] - marks[0], marks[3] - marks[2]]

        t_one = Stats([_timed(one_shot) for _ in range(runs)])
        m_one = peak_memory(one_shot)
        times = {kind: Stats([]) for kind in kinds}
        growth: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(runs):
            for kind, (make, _) in kinds.items():
                gc.collect()
                start = time.perf_counter()
                first, last = streamed(make)
                times[kind].samples.append(time.perf_counter() - start)
                growth[kind].append(last / first)
        for kind, (make, has_target) in kinds.items():
            t = times[kind]
            m = peak_memory(partial(streamed, make))
            g = statistics.median(growth[kind])
            rows.append(
                [
                    f"{label}, {kind}",
                    f"{len(deltas)}",
                    t.ms(),
                    t_one.ms(),
                    _fmt_ratio(_ratio(t, t_one)),
                    f"{m / 1e6:.2f} / {m_one / 1e6:.2f}",
                    _fmt_ratio(m / m_one),
                    f"{g:.2f}",
                ]
            )
            if has_target:
                report.target(f"(e) {label}, {kind}: time / one-shot parse", _ratio(t, t_one), 2.0)
                report.target(f"(e) {label}, {kind}: peak memory / one-shot", m / m_one, 2.0)
            report.target(f"(e) {label}, {kind}: per-delta time, last / first fifth", g, 1.5)
    header = ["text", "deltas", "streaming ms", "one-shot parse ms", "time ratio"]
    header += ["peak MB (stream / one-shot)", "memory ratio", "per-delta last/first fifth"]
    report.table(header, rows)


_Driver = Callable[[], tuple[Callable[[str], object], Callable[[], object]]]


def _parser_driver(parser_class: Callable[[], Any], method: str) -> _Driver:
    """A fresh parser's ``method`` for each delta, and its ``finish``."""

    def make() -> tuple[Callable[[str], object], Callable[[], object]]:
        parser = parser_class()
        return getattr(parser, method), parser.finish

    return make


def _consumer_driver(consumer_class: Callable[[str], Any]) -> _Driver:
    def make() -> tuple[Callable[[str], object], Callable[[], object]]:
        consumer = consumer_class("bench")
        return consumer.push_delta, consumer.finish

    return make


def section_turn_diff(
    report: Report, sandbox: Sandbox, works: list[wl.Workload], git: str | None, runs: int
) -> None:
    report.out("## (f) TurnDiff rendering (track the delta, render the aggregate)")
    report.out()
    try:
        from applypatch_ext.core.apply.changes import AppliedPatchDelta, AppliedUpdate
        from applypatch_ext.core.apply.memfs import MemoryFilesystem
        from applypatch_ext.core.apply.standalone import apply_patch
        from applypatch_ext.core.turn.turn_diff import TurnDiffTracker
    except ImportError as exc:
        report.out(f"TurnDiffTracker unavailable: {exc}")
        report.out()
        return

    def delta_of(w: wl.Workload) -> AppliedPatchDelta:
        fs = MemoryFilesystem({f"/w/{p}": data for p, data in w.before.items()})
        return apply_patch(w.patch, "/w", filesystem=fs).delta

    old, new = wl.rewrite_pair()
    cases = {
        "after (a)": delta_of(works[0]),
        "after (b)": delta_of(works[1]),
        "48,000-line rewrite": AppliedPatchDelta(
            (AppliedUpdate("/w/big.txt", None, old, None, new),)
        ),
    }
    fs = MemoryFilesystem()
    fs.create_dirs("/w")
    rows = []
    stats: dict[str, Stats] = {}
    for label, delta in cases.items():
        timed_out = False

        def render(delta: AppliedPatchDelta = delta) -> TurnDiffTracker:
            tracker = TurnDiffTracker({"": "/w"}, filesystem=fs)
            tracker.track_delta(delta)
            tracker.get_unified_diff()
            return tracker

        samples = []
        for _ in range(runs if label != "48,000-line rewrite" else max(3, runs // 2)):
            gc.collect()
            start = time.perf_counter()
            tracker = render()
            samples.append(time.perf_counter() - start)
            timed_out = tracker.timed_out
        stats[label] = Stats(samples)
        rows.append([label, stats[label].ms(), "yes" if timed_out else "no"])
    git_stats = None
    if git is not None:
        w = works[0]
        base = sandbox.root / "gitdiff"
        base.mkdir()
        (base / "old.py").write_bytes(w.before["src/big_module.py"])
        (base / "new.py").write_bytes(w.after["src/big_module.py"])
        cmd = [git, "diff", "--no-index", "old.py", "new.py"]
        git_stats = Stats([whole_process(cmd, b"", base) for _ in range(runs)])
        rows.append(["`git diff --no-index` on (a)'s two files, process", git_stats.ms(), ""])
    report.table(["case", "ms", "deadline hit"], rows)
    rewrite = stats["48,000-line rewrite"].median
    report.target("(f) 48,000-line rewrite render, s", rewrite, 0.5, "{:.3f}")
    report.target(
        "(f) render after (a) / git diff --no-index", _ratio(stats["after (a)"], git_stats), 20.0
    )


def section_fuzzy(report: Report, sandbox: Sandbox, exact: wl.Workload, runs: int) -> None:
    """(g), timed side by side with (a): one run of each in turn, so both see the same state."""
    report.out(
        "## (g) Fuzzy matching: (a) with every context line off by whitespace or punctuation"
    )
    report.out()
    runner = ours_in_process()
    works = [exact, wl.big_update(context_form="whitespace")]
    works.append(wl.big_update(context_form="typographic"))
    correct = {}
    for w in works:
        with sandbox.tree(w.before) as cwd:
            runner(w, cwd)
            correct[w.name] = read_tree(cwd) == w.after
    samples: dict[str, list[float]] = {w.name: [] for w in works}
    for _ in range(runs):
        for w in works:
            with sandbox.tree(w.before) as cwd:
                samples[w.name].append(_timed(partial(runner, w, cwd)))
    base = Stats(samples[exact.name])
    rows = [["(a) exact, timed again beside (g)", base.ms(), "1.00", ""]]
    for w in works[1:]:
        stats = Stats(samples[w.name])
        ratio = _ratio(stats, base)
        rows.append([w.title, stats.ms(), _fmt_ratio(ratio), "yes" if correct[w.name] else "NO"])
        report.target(f"({w.name}) time / (a) exact", ratio, 1.5)
    report.table(["workload", "ours in process, ms", "ratio to (a)", "result correct"], rows)


def _failing_command(cmd: list[str]) -> Callable[[wl.Workload, Path], str]:
    """Runs ``cmd`` on the patch, which must fail (exit 1); returns its stderr, paths relative."""

    def run(w: wl.Workload, cwd: Path) -> str:
        result = subprocess.run(
            cmd, input=w.patch.encode(), cwd=cwd, capture_output=True, check=False, env=CHILD_ENV
        )
        if result.returncode != 1:
            raise RuntimeError(f"{cmd[0]} exited {result.returncode} on {w.name}, expected 1")
        return result.stderr.decode().replace(f"{cwd}/", "")

    return run


def section_slow_verification(
    report: Report, sandbox: Sandbox, peers: peers_mod.Peers, runs: int
) -> None:
    """(h), a context that no pass finds: ours (the whole pipeline: parse, verify, explain the
    failure; and the ``apply_patch`` command) beside the reference binary, in one run."""
    from applypatch_ext.core.turn.options import CallStatus
    from applypatch_ext.core.turn.turn import run_patch

    w = wl.slow_verification()
    report.out("## (h) Slow verification: a context that does not match a large file")
    report.out()
    size = len(w.before["data/table.txt"])
    report.out(f"* {w.title}: patch {len(w.patch) / 1e3:.1f} kB, file {size / 1e3:.0f} kB")
    report.out()

    explanation: list[str] = []

    def pipeline(w: wl.Workload, cwd: Path) -> str:
        result = run_patch(w.patch, str(cwd))
        if result.status != CallStatus.ERROR or result.explanation is None:
            raise RuntimeError(f"ours: expected a verification error, got {result.status}")
        explanation[:] = [result.explanation.summary]
        return (result.error or "").replace(f"{cwd}/", "")

    runners: dict[str, Callable[[wl.Workload, Path], str]] = {"ours pipeline": pipeline}
    runners["ours process"] = _failing_command([str(VENV_BIN / "apply_patch")])
    if peers.reference is not None:
        runners["reference process"] = _failing_command([str(peers.reference)])
    # The reference takes many seconds a run: at most 3 runs of each, interleaved.
    h_runs = max(1, min(runs, 3))
    samples: dict[str, list[float]] = {name: [] for name in runners}
    texts: dict[str, str] = {}
    for _ in range(h_runs):
        for name, runner in runners.items():
            with sandbox.tree(w.before) as cwd:
                gc.collect()
                start = time.perf_counter()
                texts[name] = runner(w, cwd)
                samples[name].append(time.perf_counter() - start)
                if read_tree(cwd) != w.before:
                    raise RuntimeError(f"{name} changed the tree on {w.name}")
    stats = {name: Stats(values) for name, values in samples.items()}
    ref = stats.get("reference process")
    rows = [[name, stat.ms(), _fmt_ratio(_ratio(stat, ref))] for name, stat in stats.items()]
    report.table(["implementation", "ms", "ratio to reference process"], rows)
    same = "reference process" in texts and texts["ours process"] == texts["reference process"]
    report.out(
        f"Median (min-max) of {h_runs} runs. The tree is unchanged after every run; the "
        "`apply_patch` command's error text "
        + ("is the reference's, byte for byte" if same else "was not compared")
        + f". Our pipeline's explanation: {explanation[0] if explanation else 'n/a'}."
    )
    report.out()
    report.target("(h) ours pipeline / reference process", _ratio(stats["ours pipeline"], ref), 1.0)
    report.target("(h) ours process / reference process", _ratio(stats["ours process"], ref), 1.0)


def profile(name: str) -> None:
    """cProfile of ours in process on one workload (for finding the slow paths)."""
    from applypatch_ext.core.apply.standalone import apply_patch
    from applypatch_ext.core.turn.turn import run_patch

    table = {w.name: w for w in wl.all_apply_workloads()}
    table["g-ws"] = wl.big_update(context_form="whitespace")
    table["g-punct"] = wl.big_update(context_form="typographic")
    table["h"] = wl.slow_verification()
    if name.startswith("e"):
        from applypatch_ext.core.turn.preview import ApplyPatchArgumentDiffConsumer

        # The preview consumer (it feeds the parser): "e" on the 1 MB patch, "e-a" on (a)'s.
        text = wl.multi_file_stream() if name == "e" else table["a"].patch
        deltas = [text[i : i + DELTA_SIZE] for i in range(0, len(text), DELTA_SIZE)]
        prof = cProfile.Profile()
        prof.enable()
        consumer = ApplyPatchArgumentDiffConsumer("profile")
        for delta in deltas:
            consumer.push_delta(delta)
        consumer.finish()
        prof.disable()
    else:
        w = table[name]
        sandbox = Sandbox(scratch_root())
        prof = cProfile.Profile()
        try:
            for _ in range(5):
                with sandbox.tree(w.before) as cwd:
                    prof.enable()
                    if name == "h":  # the whole pipeline: verification and explanation
                        run_patch(w.patch, str(cwd))
                    else:
                        apply_patch(w.patch, cwd)
                    prof.disable()
        finally:
            shutil.rmtree(sandbox.root, ignore_errors=True)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(18)
    print(buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=REPO / ".cache", help="Peer install folder.")
    parser.add_argument("--runs", type=int, default=11, help="Runs per measurement (median).")
    parser.add_argument("--output", type=Path, help="Also write the report (Markdown) here.")
    parser.add_argument("--no-peers", action="store_true", help="Do not install or time peers.")
    parser.add_argument(
        "--profile",
        metavar="WORKLOAD",
        help="cProfile ours on a, b, c, d, g-ws, g-punct, h (the pipeline), or the preview "
        "consumer: e (1 MB), e-a.",
    )
    parser.add_argument(
        "--only",
        choices=["h", "i", "j", "k"],
        help="Run one section only: h (slow verification, beside the reference binary), i "
        "(growth with size, memory against the input), j (saving a notebook of many calls "
        "through a real Jupyter server) or k (the failure atlas on real model-written patches: "
        "shares per diagnosis kind, location accuracy).",
    )
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile)
        return 0

    started = time.perf_counter()
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(args.cache.resolve() / "bench" / "pycache")
    report = Report()
    peers = peers_mod.find_peers(args.cache.resolve(), enabled=not args.no_peers)
    sandbox = Sandbox(scratch_root())
    report.out("# apply_patch benchmark (`make bench`)")
    report.out()
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    report.out(
        f"{now}; Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; files on {sandbox.root.parent}; "
        f"median (min-max) of {args.runs} runs."
    )
    for note in peers.notes:
        report.out(f"* {note}")
    report.out(f"* bytecode of the timed processes cached in {CHILD_ENV['PYTHONPYCACHEPREFIX']}")
    report.out()
    try:
        if args.only is None:
            results, works, _empty = section_apply(report, sandbox, peers, args.runs)
            section_transaction(report, sandbox, works, args.runs)
            section_undo(report, sandbox, works, args.runs)
            section_memory(report, works, sandbox)
            section_process(report, sandbox, results, args.runs)
            section_streaming(report, works[0].patch, args.runs)
            section_turn_diff(report, sandbox, works, peers.git, args.runs)
            section_fuzzy(report, sandbox, works[0], args.runs)
        if args.only in (None, "h"):
            section_slow_verification(report, sandbox, peers, args.runs)
        if args.only in (None, "i"):
            section_scaling(report)
        if args.only in (None, "j"):
            section_saving(report)
        if args.only in (None, "k"):
            section_diagnosis(report)
    finally:
        shutil.rmtree(sandbox.root, ignore_errors=True)

    report.out("## Targets")
    report.out()
    rows = [[t.name, t.figure, t.limit, t.verdict] for t in report.targets]
    report.table(["target", "figure", "at most", "verdict"], rows)
    passed = sum(t.ok is True for t in report.targets)
    missed = sum(t.ok is False for t in report.targets)
    report.out(
        f"{passed} targets met, {missed} missed; bench took {time.perf_counter() - started:.0f} s."
    )
    if args.output:
        # bench/browser.py's section (make bench-browser) is kept: this bench does not make it
        kept = browser_section(args.output)
        args.output.write_text("\n".join([*report.lines, *kept]) + "\n", encoding="utf-8")
    return 0


#: How bench/browser.py's section of RESULTS.md starts (its SECTION).
BROWSER_HEADING = "## Browser:"


def browser_section(output: Path) -> list[str]:
    """The browser bench's section of ``output`` (from its heading, which starts with
    :data:`BROWSER_HEADING`, to the next ``## ``)."""
    lines = output.read_text(encoding="utf-8").splitlines() if output.exists() else []
    start = next((i for i, line in enumerate(lines) if line.startswith(BROWSER_HEADING)), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), None)
    return ["", *lines[start:end]]


if __name__ == "__main__":
    sys.exit(main())
