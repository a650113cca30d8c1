"""The mishap: ``--dry-run`` with ``--fault drift:PATH`` modified the real file.

A drift fault appends a line to PATH right after verification reads it; a dry run verifies, so
it fired and wrote. A dry run writes nothing, whatever fault is set: through the magic (a real
IPython shell) and through the library's ``ApplyPatchCall.dry_run``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.core.turn.faults import DRIFT_LINE
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn

from ._ipython import ipython  # noqa: F401 - the fixture
from ._support import Tree, disk_tree

PATCH = (
    "*** Begin Patch\n"
    "*** Update File: a.txt\n@@\n-one\n+uno\n"
    "*** Update File: m.txt\n*** Move to: moved.txt\n@@\n-m\n+M\n"
    "*** Add File: new/b.txt\n+b\n"
    "*** Delete File: gone.txt\n"
    "*** End Patch\n"
)
FAULTS = (
    "drift:a.txt",
    "drift:moved.txt",
    "drift:gone.txt",
    "write:1",
    "write:a.txt",
    "delete:gone.txt",
    "remove-source:m.txt",
    "eperm:a.txt",
    "cancel:1",
)


def make_tree(root: Path) -> Tree:
    (root / "a.txt").write_text("one\n")
    (root / "m.txt").write_text("m\n")
    (root / "moved.txt").write_text("was here\n")
    (root / "gone.txt").write_text("bye\n")
    return disk_tree(str(root))


def digest(root: Path) -> str:
    return hashlib.sha256(repr(disk_tree(str(root))).encode()).hexdigest()


@pytest.mark.parametrize("fault", FAULTS)
def test_library_dry_run_writes_nothing_whatever_the_fault(tmp_path: Path, fault: str) -> None:
    before = make_tree(tmp_path)
    turn = Turn(str(tmp_path), options=PipelineOptions(faults=(fault,)))
    call = turn.call()
    call.push_delta(PATCH)
    result = call.dry_run()
    assert result.status == CallStatus.DRY_RUN, result.error
    assert disk_tree(str(tmp_path)) == before
    assert result.delta.is_empty()
    assert result.proposed is not None
    assert sorted(result.proposed.changes) == sorted(
        f"{tmp_path}/{p}" for p in ("a.txt", "m.txt", "new/b.txt", "gone.txt")
    )


def test_library_dry_run_with_every_fault_at_once(tmp_path: Path) -> None:
    before = make_tree(tmp_path)
    turn = Turn(str(tmp_path), options=PipelineOptions(faults=FAULTS))
    call = turn.call()
    call.push_delta(PATCH)
    assert call.dry_run().status == CallStatus.DRY_RUN
    assert disk_tree(str(tmp_path)) == before
    # The same options without --dry-run do fire (the faults are real).
    applied = Turn(str(tmp_path), options=PipelineOptions(faults=("drift:a.txt",))).run(
        PATCH, "approve"
    )
    assert applied.status == "completed", applied.error
    assert (tmp_path / "a.txt").read_text() == "uno\n" + DRIFT_LINE


@pytest.mark.parametrize("fault", ["drift:a.txt", "drift:moved.txt", "drift:gone.txt"])
def test_magic_dry_run_writes_nothing(
    ipython: InteractiveShell,  # noqa: F811
    tmp_path: Path,
    fault: str,
) -> None:
    make_tree(tmp_path)
    before = digest(tmp_path)
    ipython.run_cell_magic("apply_patch", f"r --dry-run --no-widget --fault {fault}", PATCH)
    assert ipython.user_ns["r"].status == CallStatus.DRY_RUN
    assert digest(tmp_path) == before
    assert "drifted" not in (tmp_path / "a.txt").read_text()
