"""The mishap: a path of 1,500 nested directories (3,000 bytes, under PATH_MAX).

It used to raise ``RecursionError`` (``os.makedirs`` recurses once per missing parent): a
traceback from the CLI, a begin without an end in the pipeline. The reference creates the file;
so do the CLI, the library and the pipeline (also atomic, sandboxed, with a rollback), with the
reference's output. A chain of 1,200 symlinks, which Python 3.11's ``realpath`` resolves by
recursion, is resolved by the sandbox as ``realpath -m`` resolves it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from applypatch_ext import apply_patch
from applypatch_ext.core.apply.fs import PATH_MAX, LocalFilesystem, real_path
from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.turn.events import EventType
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn

from ._reference import ours, reference_binary, run_tool

DEPTH = 1500
DEEP = "/".join(["d"] * DEPTH)  # 2,999 bytes
ADD = f"*** Begin Patch\n*** Add File: {DEEP}/f.txt\n+deep\n*** End Patch\n"
SUCCESS = f"Success. Updated the following files:\nA {DEEP}/f.txt\n".encode()


def _remove(path: Path) -> None:
    # shutil.rmtree recurses once per level too: the real rm removes the tree.
    subprocess.run(["rm", "-rf", str(path)], check=True)


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "w"
    root.mkdir()
    assert len(os.fsencode(f"{root}/{DEEP}/f.txt")) < PATH_MAX
    yield root
    _remove(tmp_path)


def _deep_file(root: Path, name: str = "f.txt") -> Path:
    return root / DEEP / name


def test_cli_creates_the_deep_file_like_the_reference(work: Path) -> None:
    proc = run_tool(ours(), [ADD], work)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, SUCCESS, b"")
    assert _deep_file(work).read_bytes() == b"deep\n"
    reference = reference_binary()
    if reference is None:
        return
    theirs = work.parent / "ref"
    theirs.mkdir()
    ref = run_tool([str(reference)], [ADD], theirs)
    assert (ref.returncode, ref.stdout, ref.stderr) == (proc.returncode, proc.stdout, proc.stderr)
    assert _deep_file(theirs).read_bytes() == b"deep\n"


def test_cli_reads_the_deep_patch_from_stdin(work: Path) -> None:
    proc = run_tool(ours(), [], work, stdin=ADD.encode())
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, SUCCESS, b"")


def test_library_adds_moves_and_deletes_at_depth(work: Path) -> None:
    added = apply_patch(ADD, work)
    assert (added.exit_code, added.stderr) == (0, "")
    moved = apply_patch(
        f"*** Begin Patch\n*** Update File: {DEEP}/f.txt\n*** Move to: {DEEP}/d/g.txt\n"
        f"@@\n-deep\n+deeper\n*** End Patch\n",
        work,
    )
    assert (moved.exit_code, moved.stderr) == (0, ""), moved.stderr
    assert _deep_file(work, "d/g.txt").read_bytes() == b"deeper\n"
    assert not _deep_file(work).exists()
    deleted = apply_patch(
        f"*** Begin Patch\n*** Delete File: {DEEP}/d/g.txt\n*** End Patch\n", work
    )
    assert (deleted.exit_code, deleted.stdout) == (
        0,
        f"Success. Updated the following files:\nD {DEEP}/d/g.txt\n",
    )


@pytest.mark.parametrize("transaction", [Transaction.NONE, Transaction.ATOMIC])
def test_pipeline_completes_with_an_end_event_and_a_turn_diff(
    work: Path, transaction: Transaction
) -> None:
    turn = Turn(str(work), options=PipelineOptions(transaction=transaction))
    result = turn.run(ADD, "approve")
    assert result.status == CallStatus.COMPLETED, result.error
    types = [e.event.type for e in result.events]
    assert types.count(EventType.PATCH_APPLY_BEGIN) == types.count(EventType.PATCH_APPLY_END) == 1
    assert [(c.type, c.path) for c in result.delta.changes] == [("add", f"{work}/{DEEP}/f.txt")]
    assert f"diff --git a/{DEEP}/f.txt b/{DEEP}/f.txt\n" in turn.turn_diff()
    assert _deep_file(work).read_bytes() == b"deep\n"


def test_atomic_rollback_removes_the_deep_directories(work: Path) -> None:
    turn = Turn(str(work), options=PipelineOptions(transaction=Transaction.ATOMIC))
    patch = (
        f"*** Begin Patch\n*** Add File: {DEEP}/f.txt\n+deep\n*** Add File: ok.txt\n+1\n"
        "*** End Patch\n"
    )
    result = turn.run(patch, "approve", options=replace(turn.options, faults=("write:2",)))
    assert result.status == CallStatus.FAILED
    assert list(work.iterdir()) == []


def test_sandbox_resolves_a_chain_of_1200_symlinks(work: Path) -> None:
    links = 1200
    for i in range(1, links + 1):
        (work / f"l{i}").symlink_to(f"l{i + 1}")
    (work / f"l{links + 1}").mkdir()
    resolved = subprocess.run(
        ["realpath", "-m", str(work / "l1" / "x.txt")], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert real_path(str(work / "l1" / "x.txt")) == resolved == f"{work}/l{links + 1}/x.txt"
    assert LocalFilesystem().canonical_path(f"{work}/l1") == f"{work}/l{links + 1}"
    result = Turn(str(work)).run("*** Begin Patch\n*** Add File: l1/x.txt\n+x\n*** End Patch\n")
    # The kernel stops following after 40 links (ELOOP): the write fails cleanly, with an end.
    types = [e.event.type for e in result.events]
    assert types.count(EventType.PATCH_APPLY_BEGIN) == types.count(EventType.PATCH_APPLY_END) == 1
    assert result.status == CallStatus.FAILED
    assert "Failed to write file" in result.stderr
