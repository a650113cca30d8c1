"""Section (i) of ``make bench``: growth with size, and memory against the input's size.

Each scaling row times the same work at N and k*N items (best of a few runs, garbage collector
paused) and prints the ratio beside its limit, 2*k: linear work gives about k, quadratic work
k*k. The memory rows give the ``tracemalloc`` peak over the input's size. These were assertions
in the test suite once; a duration has no place in a test, so they are figures here, with the
same limits as targets.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from report import Report

from applypatch_ext.core.apply.changes import AppliedAdd, AppliedPatchDelta
from applypatch_ext.core.apply.explain import explain_match_failure
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.errors import MatchFailure
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.parse.streaming import StreamingPatchParser
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.preview import ApplyPatchArgumentDiffConsumer
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.core.turn.turn_diff import TurnDiffTracker

BIG_PATCH_BYTES = 5 * 1024 * 1024
MANY_HUNKS = 10_000
WORKSPACE = SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, include_tmp=False)


# -- inputs ------------------------------------------------------------------------------------


def adds(n: int) -> str:
    hunks = "".join(
        f"*** Add File: dir{i % 97}/file{i}.txt\n+line one of file {i}\n+line two\n"
        for i in range(n)
    )
    return f"*** Begin Patch\n{hunks}*** End Patch"


def updates(n: int) -> str:
    hunks = "".join(
        f"*** Update File: f{i}.txt\n@@ ctx {i}\n-old {i}\n+new {i}\n" for i in range(n)
    )
    return f"*** Begin Patch\n{hunks}*** End Patch"


def chunks(n: int) -> tuple[str, str]:
    """One Update with ``n`` chunks, and the file it applies to (every other line changes)."""
    body = "".join(f"@@\n-old {i}\n+new {i}\n" for i in range(n))
    original = "".join(f"old {i}\nkeep {i}\n" for i in range(n))
    return f"*** Begin Patch\n*** Update File: big.txt\n{body}*** End Patch", original


def big_add(size: int) -> str:
    line = "+" + "x" * 70 + "\n"
    return "*** Begin Patch\n*** Add File: big.txt\n" + line * (size // len(line)) + "*** End Patch"


# -- the work ----------------------------------------------------------------------------------


def stream(text: str, step: int) -> None:
    parser = StreamingPatchParser()
    for i in range(0, len(text), step):
        parser.push_delta(text[i : i + step])
    parser.finish()


def run_turn(text: str, files: dict[str, str] | None = None, **options: Any) -> Turn:
    """One call in memory, approved; raises when it does not complete."""
    fs = MemoryFilesystem({f"/w/{p}": c for p, c in (files or {}).items()})
    fs.create_dirs("/w")
    turn = Turn("/w", options=PipelineOptions(sandbox=WORKSPACE, **options), filesystem=fs)
    result = turn.run(text, "approve")
    if result.status != CallStatus.COMPLETED:
        raise RuntimeError(f"the bench call did not complete: {result.output}")
    return turn


def turn_diff_of(n: int) -> Callable[[], object]:
    delta = AppliedPatchDelta(
        tuple(AppliedAdd(f"/w/d{i % 97}/f{i}.txt", f"line {i}\nmore\n") for i in range(n))
    )

    def render() -> None:
        tracker = TurnDiffTracker(display_roots={"": "/w"})
        tracker.track_delta(delta)
        tracker.get_unified_diff()

    return render


class StepClock:
    """Each reading is ``step`` seconds after the previous: a model streaming at a steady rate."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def preview(text: str, step: int | None) -> None:
    """Stream ``text`` in deltas of ``step`` characters (None: all at once) into the preview."""
    consumer = ApplyPatchArgumentDiffConsumer("size", clock=StepClock(0.01))
    step = step or len(text)
    for i in range(0, len(text), step):
        consumer.push_delta(text[i : i + step])
    consumer.finish()


def many_chunks(n: int) -> Callable[[], object]:
    text, original = chunks(n)
    return lambda: run_turn(text, {"big.txt": original}, streaming_events=False)


def explain_long_lines(n: int) -> Callable[[], object]:
    lines = ["a" * n, "b" * n]
    failure = MatchFailure("/w/f.txt", "lines", ("a" * (n - 1) + "c",), 0, False)
    return lambda: explain_match_failure(failure, lines)


@dataclass(frozen=True)
class Scaling:
    name: str
    make: Callable[[int], Callable[[], object]]
    n: int
    factor: int = 4
    repeats: int = 3


SCALINGS = (
    Scaling("parser, hunks", lambda n: partial(parse_patch, adds(n)), 5_000),
    Scaling("streaming parser, 16-char deltas", lambda n: partial(stream, adds(n), 16), 2_500),
    Scaling(
        "streaming parser, chunks of one Update",
        lambda n: partial(stream, chunks(n)[0], 64),
        5_000,
    ),
    Scaling(
        "pipeline, added files",
        lambda n: partial(run_turn, adds(n), streaming_events=False),
        500,
        repeats=2,
    ),
    Scaling("pipeline, chunks of one file", many_chunks, 2_000, repeats=1),
    Scaling("TurnDiff, files", turn_diff_of, 1_000),
    Scaling(
        "preview, streamed at a steady rate",
        lambda n: partial(preview, updates(n), 64),
        800,
        factor=8,
    ),
    Scaling("preview, whole patch at once", lambda n: partial(preview, updates(n), None), 5_000),
    Scaling("explanation, line length", explain_long_lines, 250, factor=8, repeats=1),
)


def best_time(run: Callable[[], object], repeats: int) -> float:
    """The best of ``repeats`` runs, with the cyclic garbage collector paused: its full
    collections grow with the heap and blur the work of the code itself."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def peak_memory(run: Callable[[], object]) -> int:
    """Peak of traced Python allocations made during ``run`` (bytes)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def section_scaling(report: Report) -> None:
    report.out("## (i) Growth with size, and memory against the input")
    report.out()
    rows = []
    for s in SCALINGS:
        small = best_time(s.make(s.n), s.repeats)
        large = best_time(s.make(s.factor * s.n), s.repeats)
        ratio = large / small
        limit = 2 * s.factor
        rows.append(
            [
                s.name,
                f"{s.n:,} / {s.factor * s.n:,}",
                f"{small * 1e3:.1f}",
                f"{large * 1e3:.1f}",
                f"{ratio:.2f}",
                str(limit),
            ]
        )
        report.target(f"i: {s.name}, time ratio for {s.factor}x", ratio, limit)
    report.table(["work", "N / kN", "ms at N", "ms at kN", "ratio", "at most"], rows)
    report.out(
        "Best of a few runs with the garbage collector paused. Linear work gives a ratio of "
        "about k, quadratic work k*k; the limit is 2k."
    )
    report.out()

    big, many = big_add(BIG_PATCH_BYTES), adds(MANY_HUNKS)
    turns: list[Turn] = []
    memory = [
        ("parse, 5 MB Add", lambda: parse_patch(big), len(big), 4),
        ("call, 5 MB Add", lambda: run_turn(big), len(big), 12),
        (f"parse, {MANY_HUNKS:,} Adds", lambda: parse_patch(many), len(many), 6),
        (f"call, {MANY_HUNKS:,} Adds", lambda: turns.append(run_turn(many)), len(many), 40),
    ]
    rows = []
    for name, run, size, limit in memory:
        ratio = peak_memory(run) / size
        rows.append([name, f"{size / 1e6:.2f}", f"{ratio:.2f}", str(limit)])
        report.target(f"i: {name}, peak memory / patch size", ratio, limit)
    report.table(["work", "patch MB", "peak / patch", "at most"], rows)
    files = turns[0].turn_diff().count("diff --git ")
    if files != MANY_HUNKS:
        raise RuntimeError(f"the TurnDiff of {MANY_HUNKS} Adds has {files} files")
    report.out(
        "The call runs in memory: preview, verify, events, apply, delta, TurnDiff and the "
        "memory filesystem (tracemalloc peak)."
    )
    report.out()
