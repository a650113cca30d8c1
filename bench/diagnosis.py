"""Section (k) of ``make bench``: the failure atlas on real model-written patches.

Every case of tests/data/model-patches/ (814 bodies from seven models, see its README) runs
through the pipeline in process, against a memory filesystem holding the file it was written
for. The section prints the share of the failures per diagnosis kind (and per model), the
warnings of the calls that applied, and how well ``line`` locates the chunks that did not
match: the share within :data:`NEAR` lines of the region an independent alignment finds
(difflib's longest matching blocks of the file's lines against the chunk's old lines, both
trimmed, weighted by the characters they hold; with no equal line, the file line most similar
to one of the chunk's lines), computed here without the explainer or the seek passes. Times:
the whole corpus through the pipeline, and the diagnosis of each failure alone.

Run alone: ``.venv/bin/python bench/diagnosis.py`` (prints the section).
"""

from __future__ import annotations

import difflib
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from report import Report  # noqa: E402

from applypatch_ext.core.apply.diagnose import diagnose_error  # noqa: E402
from applypatch_ext.core.apply.memfs import MemoryFilesystem  # noqa: E402
from applypatch_ext.core.apply.verify import verify_patch  # noqa: E402
from applypatch_ext.core.diagnosis import KINDS, DiagnosisKind  # noqa: E402
from applypatch_ext.core.errors import (  # noqa: E402
    ApplyPatchError,
    ComputeReplacementsError,
    ParseError,
)
from applypatch_ext.core.parse.diagnose import diagnose_parse_error  # noqa: E402
from applypatch_ext.core.parse.model import UpdateFile  # noqa: E402
from applypatch_ext.core.parse.parser import parse_patch  # noqa: E402
from applypatch_ext.core.turn.result import CallResult  # noqa: E402
from applypatch_ext.core.turn.turn import run_patch  # noqa: E402
from tests.model_patches import Case, cases  # noqa: E402

ROOT = "/work"
#: ``line`` counts as right when it is this many lines from the independent region, at most.
NEAR = 3
#: The diagnosis of a chunk that did not match takes at most this many ms, at the median.
DIAGNOSIS_LIMIT_MS = 20.0


def run(case: Case) -> CallResult:
    files = {f"{ROOT}/{name}": data for name, data in case.tree().items()}
    files[f"{ROOT}/.keep"] = b""  # the working directory exists even without the file
    return run_patch(case.patch, ROOT, filesystem=MemoryFilesystem(files))


def aligned_region(file_lines: Sequence[str], old: Sequence[str]) -> int | None:
    """The 0-based file line where ``old`` best aligns, by difflib alone (None: nowhere)."""
    a = [line.strip() for line in file_lines]
    b = [line.strip() for line in old]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    weights: Counter[int] = Counter()
    for block in matcher.get_matching_blocks():
        held = sum(len(text) for text in b[block.b : block.b + block.size])
        if held:
            weights[block.a - block.b] += held
    if weights:
        return max(0, max(weights, key=lambda start: (weights[start], -start)))
    best: tuple[float, int] | None = None
    for offset, wanted in enumerate(b):
        if not wanted:
            continue
        for index, have in enumerate(a):
            ratio = difflib.SequenceMatcher(None, wanted, have, autojunk=False).ratio()
            score = ratio * len(wanted)
            if ratio >= 0.5 and (best is None or score > best[0]):
                best = (score, index - offset)
    return None if best is None else max(0, best[1])


def failing_chunk(case: Case) -> tuple[Sequence[str], Sequence[str]] | None:
    """The file's lines and the old lines (or the ``@@`` line) of the chunk the reference's
    search failed on, from the verdict itself (verify's error), not from the diagnosis."""
    try:
        parsed = parse_patch(case.patch)
        fs = MemoryFilesystem({f"{ROOT}/{n}": d for n, d in case.tree().items()})
        verify_patch(parsed, ROOT, fs)
    except ComputeReplacementsError as exc:
        failure = exc.failure
        if failure is None or failure.chunk is None or exc.hunk is None:
            return None
        hunk = parsed.hunks[exc.hunk]
        assert isinstance(hunk, UpdateFile)
        chunk = hunk.chunks[failure.chunk]
        old = chunk.old_lines or (chunk.change_context or "",)
        return failure.file_lines, old
    except ApplyPatchError:
        return None
    return None


def diagnosis_time(case: Case) -> tuple[bool, float] | None:
    """Whether the case's failure is a chunk that did not match, and the seconds its diagnosis
    takes alone, the explainer's near miss included (None: it does not fail in parsing or
    verification)."""
    try:
        parsed = parse_patch(case.patch)
    except ParseError as exc:
        started = time.perf_counter()
        diagnose_parse_error(exc, case.patch)
        return False, time.perf_counter() - started
    try:
        fs = MemoryFilesystem({f"{ROOT}/{n}": d for n, d in case.tree().items()})
        verify_patch(parsed, ROOT, fs)
    except ApplyPatchError as exc:
        started = time.perf_counter()
        diagnose_error(exc, parsed)
        return isinstance(exc, ComputeReplacementsError), time.perf_counter() - started
    return None


def measure() -> dict[str, Any]:
    corpus = cases()
    started = time.perf_counter()
    results = [(case, run(case)) for case in corpus]
    total = time.perf_counter() - started
    kinds: Counter[str] = Counter()
    by_model: dict[str, Counter[str]] = defaultdict(Counter)
    warnings: Counter[str] = Counter()
    distances: list[int | None] = []
    unlocated = 0
    for case, result in results:
        for warning in result.warnings:
            warnings[warning.kind.value] += 1
        if result.ok:
            continue
        assert result.diagnosis is not None, case.id
        kind = result.diagnosis.kind.value
        kinds[kind] += 1
        by_model[case.model][kind] += 1
        chunk = failing_chunk(case) if (result.error or "").startswith("Failed to find") else None
        if chunk is None:
            continue
        region = aligned_region(*chunk)
        if region is None:
            unlocated += 1
            continue
        line = result.diagnosis.line
        distances.append(None if line is None else abs(line - 1 - region))
    times = [t for t in map(diagnosis_time, corpus) if t is not None]
    return {
        "cases": len(corpus),
        "failed": sum(kinds.values()),
        "kinds": kinds,
        "by_model": by_model,
        "warnings": warnings,
        "distances": distances,
        "unlocated": unlocated,
        "total": total,
        "times": times,
    }


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def section_diagnosis(report: Report) -> None:
    report.out("## (k) Diagnosis: the failure atlas on real model-written patches")
    report.out()
    m = measure()
    failed = m["failed"]
    report.out(
        f"{m['cases']} cases of tests/data/model-patches through the pipeline in "
        f"{m['total']:.2f} s; {failed} failed, each with a diagnosis "
        f"({m['cases'] - failed} applied)."
    )
    report.out()
    kinds: Counter[str] = m["kinds"]
    rows = [[f"`{kind}`", str(count), _share(count, failed)] for kind, count in kinds.most_common()]
    report.table(["kind", "failures", "share"], rows)
    models = sorted(m["by_model"], key=lambda name: -sum(m["by_model"][name].values()))
    shown = [kind for kind, _ in kinds.most_common()]
    report.table(
        ["model", "failures", *[f"`{kind}`" for kind in shown]],
        [
            [name, str(sum(m["by_model"][name].values()))]
            + [str(m["by_model"][name][kind] or "") for kind in shown]
            for name in models
        ],
    )
    warnings: Counter[str] = m["warnings"]
    if warnings:
        listed = ", ".join(f"`{kind}` {count}" for kind, count in warnings.most_common())
        report.out(f"Warnings on the calls that applied: {listed}.")
    else:
        report.out("Warnings on the calls that applied: none.")
    report.out()
    distances: list[int | None] = m["distances"]
    located = len(distances)
    near = sum(d is not None and d <= NEAR for d in distances)
    exact = sum(d == 0 for d in distances)
    none = sum(d is None for d in distances)
    report.out(
        f"Location: of {located} chunks that did not match and that the independent alignment "
        f"places ({m['unlocated']} it cannot place), `line` is within {NEAR} lines of its "
        f"region for {near} ({_share(near, located)}), on its first line for {exact}; "
        f"{none} have no `line`."
    )
    report.out()
    times: list[tuple[bool, float]] = m["times"]
    every = [t for _, t in times]
    chunks = [t for matched, t in times if matched]
    median_ms = statistics.median(chunks) * 1e3 if chunks else None
    if times:
        report.out(
            f"The diagnosis alone, per failure, the explainer's near miss included: median "
            f"{statistics.median(every) * 1e3:.2f} ms, max {max(every) * 1e3:.1f} ms "
            f"({len(every)} failures); for the {len(chunks)} chunks that did not match, "
            f"median {median_ms or 0:.2f} ms, max {max(chunks, default=0) * 1e3:.1f} ms."
        )
        report.out()
    report.target("k: a chunk's diagnosis, median (ms)", median_ms, DIAGNOSIS_LIMIT_MS)
    unknown = set(kinds) - {kind.value for kind in DiagnosisKind}
    assert not unknown, unknown  # the vocabulary is closed
    assert set(KINDS) == set(DiagnosisKind)


if __name__ == "__main__":
    section_diagnosis(Report())
