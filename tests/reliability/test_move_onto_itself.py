"""The mishap: ``*** Update File: a.txt`` + ``*** Move to: a.txt``.

Applying it writes a.txt, then removes a.txt as the move's source: the file is gone. It used to
report success with a TurnDiff showing a modification. Now the pipeline (library ``Turn``, the
``turn`` command, the magic) refuses it at verification and writes nothing; the drop-in CLI and
the library ``apply_patch()`` keep the reference's behaviour (the file is deleted, exit 0), and
their delta and TurnDiff say that the file was deleted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext import apply_patch
from applypatch_ext.core.apply.changes import AppliedDelete, AppliedUpdate
from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.core.turn.turn_diff import TurnDiffTracker

from ._ipython import ipython  # noqa: F401 - the fixture
from ._reference import ours, reference_binary, run_tool

SUCCESS = "Success. Updated the following files:\nM {}\n"


def self_move(dest: str) -> str:
    return (
        f"*** Begin Patch\n*** Update File: a.txt\n*** Move to: {dest}\n"
        "@@\n-one\n+two\n*** End Patch\n"
    )


def refusal(tmp_path: Path, dest: str, where: str | None = None) -> str:
    source = f"{tmp_path}/a.txt"
    return (
        "invalid patch: `*** Update File: a.txt` moves the file onto itself "
        f"(`*** Move to: {dest}` is {where or source}): applying it would delete {source}. "
        "Remove the `*** Move to:` line to update the file in place, or move it to a different "
        "path"
    )


@pytest.mark.parametrize("dest", ["a.txt", "./a.txt", "sub/../a.txt"])
def test_the_pipeline_refuses_it_at_verification(tmp_path: Path, dest: str) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    turn = Turn(str(tmp_path))
    result = turn.run(self_move(dest), "approve")
    assert result.status == CallStatus.ERROR
    assert result.stage == "verifying"
    assert result.error == refusal(tmp_path, dest)
    assert result.output == "apply_patch verification failed: " + refusal(tmp_path, dest)
    # no begin: the verification's error and its diagnosis
    assert [e.event.type for e in result.events] == ["patch_apply_updated", "patch_diagnosis"]
    assert result.diagnosis is not None and result.diagnosis.kind == "move_onto_itself"
    assert result.diagnosis.path == "a.txt" and result.diagnosis.patch_line == 2
    assert result.delta.is_empty()
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert turn.turn_diff() == ""


def test_a_symlink_back_to_the_source_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "link.txt").symlink_to("a.txt")
    result = Turn(str(tmp_path)).run(self_move("link.txt"), "approve")
    where = f"{tmp_path}/link.txt, which resolves to {tmp_path}/a.txt"
    assert (result.status, result.error) == (CallStatus.ERROR, refusal(tmp_path, "link.txt", where))
    assert (tmp_path / "a.txt").read_text() == "one\n"


def test_a_real_move_still_works(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    result = Turn(str(tmp_path)).run(self_move("b.txt"), "approve")
    assert result.status == "completed", result.error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]


def test_the_turn_command_refuses_it(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    patch_file = tmp_path.parent / f"{tmp_path.name}.patch"
    patch_file.write_text(self_move("a.txt"))
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--cwd", str(tmp_path), str(patch_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (call,) = [line for line in lines if line["type"] == "call_result"]
    assert call["status"] == CallStatus.ERROR
    assert call["output"] == "apply_patch verification failed: " + refusal(tmp_path, "a.txt")
    assert (tmp_path / "a.txt").read_text() == "one\n"


def test_the_magic_refuses_it(ipython: InteractiveShell, tmp_path: Path) -> None:  # noqa: F811
    (tmp_path / "a.txt").write_text("one\n")
    ipython.run_cell_magic("apply_patch", "r --no-widget", self_move("a.txt"))
    result = ipython.user_ns["r"]
    assert (result.status, result.error) == (CallStatus.ERROR, refusal(tmp_path, "a.txt"))
    assert (tmp_path / "a.txt").read_text() == "one\n"


def test_the_cli_deletes_the_file_like_the_reference(tmp_path: Path) -> None:
    ours_dir, ref_dir = tmp_path / "ours", tmp_path / "ref"
    for directory in (ours_dir, ref_dir):
        directory.mkdir()
        (directory / "a.txt").write_text("one\n")
    proc = run_tool(ours(), [self_move("a.txt")], ours_dir)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, SUCCESS.format("a.txt").encode(), b"")
    assert list(ours_dir.iterdir()) == []  # the reference's behaviour: the file is gone
    reference = reference_binary()
    if reference is not None:
        ref = run_tool([str(reference)], [self_move("a.txt")], ref_dir)
        assert (ref.returncode, ref.stdout, ref.stderr) == (0, proc.stdout, proc.stderr)
        assert list(ref_dir.iterdir()) == []


def test_the_library_delta_and_turn_diff_say_it_was_deleted(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    result = apply_patch(self_move("./a.txt"), tmp_path)
    assert (result.exit_code, result.stdout) == (0, SUCCESS.format("./a.txt"))
    assert not (tmp_path / "a.txt").exists()
    path = f"{tmp_path}/a.txt"
    assert result.delta.exact
    assert result.delta.changes == (
        AppliedUpdate(path, None, "one\n", None, "two\n"),  # the write...
        AppliedDelete(path, "two\n"),  # ...then the removal of the move's source
    )
    tracker = TurnDiffTracker({"": str(tmp_path)})
    tracker.track_delta(result.delta)
    diff = tracker.get_unified_diff() or ""
    assert diff.startswith("diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n")
    assert diff.endswith("--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n")
