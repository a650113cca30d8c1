"""The failure atlas on real model-written patches (tests/data/model-patches/, see its README).

Every case runs through the pipeline (marker ``slow``: the whole corpus; a fixed sample of it in
the fast set): no exception, a diagnosis on every failure, its kind a failure's of the closed
vocabulary and never ``unexplained``, its lines inside the patch and the file, a suggestion only
where it makes the chunk match. The examples the vocabulary cites (docs/diagnosis.md) are
checked to be what the atlas says of them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.verify import verify_patch
from applypatch_ext.core.diagnosis import KINDS, Diagnosis, DiagnosisKind
from applypatch_ext.core.errors import ApplyPatchError, MatchFailure, ParseError
from applypatch_ext.core.parse.diagnose import patch_offset
from applypatch_ext.core.parse.model import UpdateFile
from applypatch_ext.core.parse.parser import canonical_patch_text, parse_patch
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.turn import Turn, run_patch
from tools import conformance  # the differential against the reference binary

from .model_patches import Case, cases

ROOT = "/work"
REPO = Path(__file__).resolve().parents[1]
SCENARIOS = Path(__file__).parent / "scenarios"
#: Every this many cases of the corpus run in the fast set.
SAMPLE_STEP = 16
#: The kinds of a chunk that did not match: a ``line`` or, without one, why.
MATCH_KINDS = {
    DiagnosisKind.CHANGE_CONTEXT_NOT_FOUND,
    DiagnosisKind.PARTIAL_ANCHOR,
    DiagnosisKind.STALE_ANCHOR,
    DiagnosisKind.CONTEXT_NOT_FOUND,
    DiagnosisKind.WHITESPACE_MISMATCH,
    DiagnosisKind.ALREADY_APPLIED,
    DiagnosisKind.END_OF_FILE_MISMATCH,
}
CITED = re.compile(r"^corpus (c\d+), (\S+)")


def fs_of(case: Case) -> MemoryFilesystem:
    files: dict[str, bytes | str] = {f"{ROOT}/{n}": d for n, d in case.tree().items()}
    fs = MemoryFilesystem(files)
    fs.create_dirs(ROOT)
    return fs


def run(case: Case) -> CallResult:
    return run_patch(case.patch, ROOT, filesystem=fs_of(case))


def by_id(case_id: str) -> Case:
    return next(case for case in cases() if case.id == case_id)


def check(case: Case) -> CallResult:
    """Run ``case`` and check what the atlas says of it."""
    result = run(case)
    patch_lines = case.patch.split("\n")
    original = case.original
    file_lines = [] if original is None else original.decode("utf-8").splitlines()
    for warning in result.warnings:
        assert KINDS[warning.kind].warning, (case.id, warning)
    if result.ok:
        assert result.diagnosis is None
        return result
    found = result.diagnosis
    assert found is not None, case.id
    assert KINDS[found.kind].failure and found.kind != DiagnosisKind.UNEXPLAINED, (case.id, found)
    assert found.message.endswith(".") and "\n" not in found.message, (case.id, found)
    assert found.patch_line is None or 1 <= found.patch_line <= len(patch_lines), (case.id, found)
    if found.line is not None:
        assert 1 <= found.line <= len(file_lines), (case.id, found)
    elif found.kind in MATCH_KINDS:
        assert found.line_absent, (case.id, found)
    if found.suggestion is not None:
        assert_certain(case, found)
    return result


def assert_certain(case: Case, found: Diagnosis) -> None:
    """The suggestion, in place of the patch lines it ``replaces``, gets past the point the
    diagnosis names: the fixed patch parses at least beyond those lines, and verifying it
    fails, if at all, only at a later chunk or hunk (another mistake of the model's)."""
    assert found.replaces is not None and found.suggestion is not None, (case.id, found)
    first, last = found.replaces
    assert found.patch_line is not None and first <= found.patch_line <= last, (case.id, found)
    lines = case.patch.split("\n")
    suggested = found.suggestion.split("\n")
    text = "\n".join([*lines[: first - 1], *suggested, *lines[last:]])
    end = first + len(suggested) - 1  # the suggestion's last line in the fixed text
    try:
        parsed = parse_patch(text)
    except ParseError as exc:
        offset = patch_offset(text, canonical_patch_text(text))
        assert exc.line_number is not None and exc.line_number + offset > end, (case.id, exc)
        return
    offset = patch_offset(text, parsed.patch)
    try:
        verify_patch(parsed, ROOT, fs_of(case))
    except ApplyPatchError as exc:
        assert exc.hunk is not None, (case.id, exc)
        hunk = parsed.hunks[exc.hunk]
        failure = getattr(exc, "failure", None)
        if isinstance(failure, MatchFailure) and isinstance(hunk, UpdateFile):
            assert failure.chunk is not None, (case.id, exc)
            at = hunk.chunks[failure.chunk].line + offset
        else:
            at = hunk.line + offset
        assert at > end, (case.id, found, exc)  # a later chunk's or hunk's own mistake


def test_the_cited_doubled_prefix_is_diagnosed_once_its_header_is_fixed() -> None:
    case = by_id("c0843")
    diagnosis = run(case).diagnosis
    assert diagnosis is not None and diagnosis.kind == DiagnosisKind.UNIFIED_DIFF_HEADER
    fixed = case.patch.replace("@@ -114,7 +114,7 @@", "@@", 1)
    found = run_patch(fixed, ROOT, filesystem=fs_of(case)).diagnosis
    assert found is not None and found.kind == DiagnosisKind.DOUBLED_PREFIX
    assert KINDS[DiagnosisKind.DOUBLED_PREFIX].example in case.patch


def test_the_cited_change_made_already_is_a_patch_sent_twice() -> None:
    case = by_id("c0112")
    turn = Turn(ROOT, filesystem=fs_of(case))
    assert turn.run(case.patch, "approve").ok
    found = turn.run(case.patch, "approve").diagnosis
    assert found is not None and found.kind == DiagnosisKind.ALREADY_APPLIED
    assert KINDS[DiagnosisKind.ALREADY_APPLIED].example in case.patch


@pytest.mark.parametrize(
    "kind",
    [kind for kind, info in KINDS.items() if info.source.startswith("reference scenario ")],
    ids=str,
)
def test_the_scenarios_the_vocabulary_cites_are_what_it_says(kind: DiagnosisKind) -> None:
    scenario = SCENARIOS / KINDS[kind].source.removeprefix("reference scenario ").split()[0]
    text = (scenario / "patch.txt").read_text(encoding="utf-8")
    assert KINDS[kind].example in text
    files: dict[str, bytes | str] = {}
    if (scenario / "input").is_dir():
        for path in sorted((scenario / "input").rglob("*")):
            if path.is_file():
                files[f"{ROOT}/{path.relative_to(scenario / 'input').as_posix()}"] = (
                    path.read_bytes()
                )
            elif path.is_dir():
                files.setdefault(f"{ROOT}/{path.relative_to(scenario / 'input').as_posix()}/.d", "")
    fs = MemoryFilesystem(files)
    fs.create_dirs(ROOT)
    result = run_patch(text, ROOT, filesystem=fs)
    assert result.diagnosis is not None and result.diagnosis.kind == kind, result.diagnosis


@pytest.mark.slow
@pytest.mark.parametrize("mode", conformance.MODES)
def test_every_case_gives_the_reference_binarys_texts_and_tree(
    capsys: pytest.CaptureFixture[str], mode: str
) -> None:
    """The diagnosis never changes what the reference prints: every case, through our
    ``apply_patch`` and the reference's (openai-codex-cli-bin, installed into .cache on first
    use), in both line-ending modes (preserve: 0.163.0, the reference's own; lf: 0.161.0, the
    newest that still normalises): the same exit code, stdout, stderr and tree."""
    code = conformance.main(
        ["--cache", str(REPO / ".cache"), "--suite", "corpus", "--mode", mode, "--jobs", "2"]
    )
    out = capsys.readouterr().out
    assert code == 0, "\n".join(line for line in out.splitlines() if not line.startswith("PASS"))
    assert f"{len(cases())} passed, 0 failed" in out
