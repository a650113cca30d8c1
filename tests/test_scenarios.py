"""Every scenario (the reference's 25, read in place, and ours) through the CLI and the library.

Trees are compared whole: every path, every directory, every byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from applypatch_ext import apply_patch

from .scenarios import REFERENCE_SCENARIOS, Scenario, find_scenarios
from .trees import copy_tree, load_memory, snapshot_dir, snapshot_memory

SCENARIOS = find_scenarios()
CASES = [
    pytest.param(scenario, mode, id=f"{scenario.id}-{mode}")
    for scenario in SCENARIOS
    for mode in ("preserve", "lf")
    if scenario.applies_in(mode)
]


@pytest.mark.reference
def test_reference_suite_is_complete() -> None:
    reference = [s for s in SCENARIOS if s.origin == "reference"]
    assert len(reference) == 25, REFERENCE_SCENARIOS


def test_our_suite_is_there() -> None:
    ours = [s for s in SCENARIOS if s.origin == "ours"]
    assert len(ours) >= 20


# A process per case (~10 s in all): make test runs it; make check runs the same cases in process.
@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "mode"), CASES)
def test_cli(scenario: Scenario, mode: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    copy_tree(scenario.input, work)
    env = {**os.environ, "APPLYPATCH_LINE_ENDINGS": mode}
    patch = scenario.patch_bytes
    # An argument cannot hold a NUL byte; such a patch goes through stdin, as it must for the
    # reference too.
    via_stdin = b"\0" in patch
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext.cli", *([] if via_stdin else [patch])],
        input=patch if via_stdin else None,
        cwd=work,
        env=env,
        capture_output=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert (proc.returncode == 0) == (proc.stdout != b"") == (proc.stderr == b"")
    assert snapshot_dir(work) == snapshot_dir(scenario.expected(mode))


@pytest.mark.parametrize(("scenario", "mode"), CASES)
def test_library_on_disk(scenario: Scenario, mode: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    copy_tree(scenario.input, work)
    result = apply_patch(scenario.patch, work, line_endings=mode)
    assert result.exit_code in (0, 1)
    assert snapshot_dir(work) == snapshot_dir(scenario.expected(mode))


@pytest.mark.parametrize(("scenario", "mode"), CASES)
def test_library_in_memory(scenario: Scenario, mode: str) -> None:
    fs = load_memory(scenario.input, "/work")
    result = apply_patch(scenario.patch, "/work", line_endings=mode, filesystem=fs)
    assert result.exit_code in (0, 1)
    assert snapshot_memory(fs, "/work") == snapshot_dir(scenario.expected(mode))
