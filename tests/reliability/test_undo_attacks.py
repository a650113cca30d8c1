"""Attacks on undo and redo (issue 17 hardening; docs/behaviour.md §11, SECURITY.md).

Everything with the real thing: real files and symlinks, a real tmpfs filled up (when this
process may mount one), a real SIGKILL of a real process followed by ``python -m applypatch_ext
recover``, a real SIGINT to a real IPython shell running ``%apply_patch_undo``.

* Confinement: an undo writes only where the turn's sandbox lets it, whatever the disk became
  since the call (a directory swapped for a symlink leading out, a symlink planted where a
  deleted file comes back, the source directory of a move back) and whatever it restores (the
  mode of a file, set by path: it must not reach the target of a planted link).
* Integrity: a full disk in the middle of an undo tears no file; a crash of an atomic undo is
  recovered exactly; an interrupt cancels it between two files with an exact delta.
* States chain: undo, redo, undo again; two undos of one call; an undo while another call of
  the turn waits for approval.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.turn.history import turn_history
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.core.turn.undo import UndoError, undo_call

from ..trees import ModedTree, snapshot_dir_with_modes

REPO = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT = 300
WORKSPACE = SandboxPolicy(
    PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
)
READ_ONLY = SandboxPolicy(PermissionProfile.READ_ONLY, include_tmp=False, include_tmpdir_env=False)


def patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch"


def options(policy: str = "on-request", **extra: Any) -> PipelineOptions:
    return PipelineOptions(sandbox=WORKSPACE, approval_policy=ApprovalPolicy(policy), **extra)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """The project (the turn's working directory) and a directory outside it."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "victim").write_text("victim\n")
    (outside / "victim").chmod(0o600)
    return root, outside


def tree(path: Path) -> ModedTree:
    return snapshot_dir_with_modes(path)


# -- confinement --------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["never", "on-request"])
def test_a_directory_swapped_for_a_symlink_out_is_not_written_through(
    places: tuple[Path, Path], policy: str
) -> None:
    root, outside = places
    (root / "sub").mkdir()
    (root / "sub" / "d.txt").write_text("d\n")
    turn = Turn(str(root), options=options(policy))
    assert turn.run(patch("*** Delete File: sub/d.txt"), "approve").status == CallStatus.COMPLETED
    shutil.rmtree(root / "sub")
    (root / "sub").symlink_to(outside)  # the deleted file's directory now leads out
    before = tree(outside)
    for force in (False, True):  # never written through a link, also forced (issue 21.4)
        result = turn.undo(force=force)
        assert result.status == CallStatus.ERROR
        assert f"sub/d.txt is reached through {root}/sub (a symbolic link to {outside})" in (
            result.error or ""
        )
    assert tree(outside) == before
    # nothing was written: the delta says so exactly, and the turn's diff still holds
    assert result.delta.is_empty() and result.delta.exact
    assert turn.tracker.valid and "-d" in turn.turn_diff()


def test_a_symlink_planted_where_a_deleted_file_comes_back_is_not_followed(
    places: tuple[Path, Path],
) -> None:
    root, outside = places
    (root / "d.sh").write_text("victim\n")  # the same bytes as the victim: no help to the undo
    (root / "d.sh").chmod(0o755)
    turn = Turn(str(root), options=options())
    turn.run(patch("*** Delete File: d.sh"), "approve")
    (root / "d.sh").symlink_to(outside / "victim")
    before = tree(outside)
    refused = turn.undo()  # a symlink is not a state the undo knows: a conflict naming it
    assert refused.status == CallStatus.ERROR
    assert f"d.sh is not as the call left it: now a symbolic link to {outside}/victim" in (
        refused.error or ""
    )
    forced = turn.undo(force=True)  # forced: the link itself is replaced, never followed
    assert forced.status == CallStatus.COMPLETED, forced.error
    # neither the bytes nor the mode (0755, restored by path) reached the link's target
    assert tree(outside) == before
    assert not (root / "d.sh").is_symlink()
    assert tree(root)["d.sh"] == (b"victim\n", 0o755)


def test_the_mode_restore_does_not_follow_a_planted_link(places: tuple[Path, Path]) -> None:
    root, outside = places
    (root / "m.sh").write_text("victim\n")
    (root / "m.sh").chmod(0o755)
    turn = Turn(str(root), options=options("never"))
    turn.run(patch("*** Delete File: m.sh"), "approve")
    (root / "m.sh").symlink_to(outside / "victim")
    result = turn.undo(force=True)  # the link is replaced by the file, 0755; never followed
    assert result.status == CallStatus.COMPLETED
    assert tree(outside)["victim"] == (b"victim\n", 0o600)
    assert tree(root)["m.sh"] == (b"victim\n", 0o755)
    assert result.delta.exact and turn.tracker.valid


def test_a_move_back_whose_source_directory_became_a_symlink(places: tuple[Path, Path]) -> None:
    root, outside = places
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_text("one\n")
    turn = Turn(str(root), options=options("never"))
    turn.run(patch("*** Update File: src/a.txt\n*** Move to: dst/a.txt\n@@\n-one\n+1"), "approve")
    (root / "src").rmdir()
    (root / "src").symlink_to(outside)
    before_root, before_outside = tree(root), tree(outside)
    result = turn.undo()
    assert result.status == CallStatus.ERROR
    assert f"reached through {root}/src (a symbolic link to {outside})" in (result.error or "")
    assert tree(outside) == before_outside and tree(root) == before_root


@pytest.mark.parametrize(
    ("policy", "status"),
    [("never", CallStatus.REJECTED), ("on-request", CallStatus.AWAITING_APPROVAL)],
)
def test_an_undo_under_read_only_writes_nothing_unasked(
    places: tuple[Path, Path], policy: str, status: CallStatus
) -> None:
    root, _outside = places
    (root / "a.txt").write_text("a\n")
    turn = Turn(str(root), options=options("never"))
    turn.run(patch("*** Update File: a.txt\n@@\n-a\n+A"), "approve")
    ro = PipelineOptions(sandbox=READ_ONLY, approval_policy=ApprovalPolicy(policy))
    result = undo_call(turn, options=ro).run()
    assert result.status == status
    assert (root / "a.txt").read_text() == "A\n"
    if policy == "never":
        assert "writing is blocked by read-only sandbox" in (result.error or "")


def test_an_undo_of_a_second_environments_call_stays_in_it(tmp_path: Path) -> None:
    main, other = tmp_path / "main", tmp_path / "other"
    main.mkdir()
    other.mkdir()
    (main / "x.txt").write_text("main\n")
    (other / "x.txt").write_text("x\n")
    turn = Turn(
        str(main), environments={"main": str(main), "other": str(other)}, options=options("never")
    )
    body = "*** Environment ID: other\n*** Update File: x.txt\n@@\n-x\n+X"
    assert turn.run(patch(body), "approve").status == CallStatus.COMPLETED
    before_main = tree(main)
    result = turn.undo()
    assert result.status == CallStatus.COMPLETED
    assert (other / "x.txt").read_text() == "x\n" and tree(main) == before_main
    assert turn.turn_diff() == ""


# -- a full disk, a crash, an interrupt ---------------------------------------------------------


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A real 256 kB tmpfs (skipped where this process may not mount one)."""
    mount = Path(tempfile.mkdtemp(prefix="undo-disk-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)
        mount.rmdir()


BIG = "".join(f"line {i:05d} of a file the call deletes\n" for i in range(2500))  # ~95 kB


@pytest.mark.parametrize("transaction", [Transaction.NONE, Transaction.ATOMIC])
def test_a_full_disk_during_an_undo_tears_no_file(
    small_disk: Path, transaction: Transaction, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("APPLYPATCH_STATE_DIR", str(tmp_path / "state"))  # journals elsewhere
    (small_disk / "a.txt").write_text("small\n")
    (small_disk / "big.txt").write_text(BIG)
    before = tree(small_disk)
    turn = Turn(str(small_disk), options=options("never", transaction=transaction))
    body = "*** Update File: a.txt\n@@\n-small\n+SMALL\n*** Delete File: big.txt"
    assert turn.run(patch(body), "approve").status == CallStatus.COMPLETED
    after_call = tree(small_disk)
    (small_disk / "filler").write_bytes(b"x" * 200 * 1024)  # what is left: less than big.txt
    failed = turn.undo()
    assert failed.status == CallStatus.FAILED
    assert "No space left on device" in (failed.error or "")
    # big.txt does not come back half written: the tree is as the call left it
    assert {k: v for k, v in tree(small_disk).items() if k != "filler"} == after_call
    assert failed.delta.exact and failed.delta.is_empty()
    (small_disk / "filler").unlink()  # space again: the next undo finishes the job
    done = turn.undo()
    assert done.status == CallStatus.COMPLETED, done.error
    assert tree(small_disk) == before
    assert turn.turn_diff() == ""


CRASH_CHILD = """
    import sys
    from applypatch_ext.core.apply.transaction import Transaction
    from applypatch_ext.core.turn.options import PipelineOptions
    from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
    from applypatch_ext.core.turn.turn import Turn
    from applypatch_ext.core.turn.undo import undo_call

    sandbox = SandboxPolicy(
        PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
    )
    atomic = PipelineOptions(sandbox=sandbox, transaction=Transaction.ATOMIC)
    turn = Turn(sys.argv[1], options=atomic)
    result = turn.run(sys.stdin.read(), "approve")
    print("CALL", result.status, flush=True)
    killed = PipelineOptions(
        sandbox=sandbox, transaction=Transaction.ATOMIC, faults=(f"kill:{sys.argv[2]}",)
    )
    print("UNDO", undo_call(turn, options=killed).run().status, flush=True)
"""
CRASH_PATCH = patch(
    "*** Delete File: run.sh\n*** Update File: b.txt\n@@\n-b\n+B\n*** Add File: new/dir/n.txt\n+n"
    "\n*** Update File: c.txt\n*** Move to: moved/c2.txt\n@@\n-c\n+C"
)


def _crash_tree(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "b.txt").write_text("b\n")
    (root / "c.txt").write_text("c\n")
    (root / "c.txt").chmod(0o640)


def test_sigkill_at_every_step_of_an_atomic_undo_then_recover(tmp_path: Path) -> None:
    """The undo's eight changes: c.txt back, moved/c2.txt and moved/ removed, new/dir/n.txt
    and its two directories removed, b.txt back, run.sh back (mode 0755): killed before each,
    then recovered to the tree as the call left it; not killed, it ends as before the call."""
    root = tmp_path / "tree"
    env = dict(os.environ, APPLYPATCH_STATE_DIR=str(tmp_path / "state"))
    _crash_tree(root)
    before = tree(root)
    after_call: dict[str, Any] | None = None
    for n in range(1, 9):
        _crash_tree(root)
        child = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(CRASH_CHILD), str(root), str(n)],
            input=CRASH_PATCH,
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=CHILD_TIMEOUT,
            check=False,
        )
        assert "CALL completed" in child.stdout, child.stderr
        assert child.returncode == -signal.SIGKILL, (n, child.stdout, child.stderr[-2000:])
        recovered = subprocess.run(
            [sys.executable, "-m", "applypatch_ext", "recover", "--cwd", str(root)],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=CHILD_TIMEOUT,
            check=False,
        )
        assert recovered.returncode == 0, recovered.stderr
        assert "the tree is as it was before that call" in recovered.stdout
        now = tree(root)
        after_call = after_call or now
        assert now == after_call, n  # exactly as the call left it, modes included
    assert after_call is not None and after_call != before
    _crash_tree(root)  # past the last change: the undo completes
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASH_CHILD), str(root), "9"],
        input=CRASH_PATCH,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=CHILD_TIMEOUT,
        check=False,
    )
    assert child.stdout.split() == ["CALL", "completed", "UNDO", "completed"], child.stderr
    assert tree(root) == before
    assert "moved/c2.txt" in after_call and "run.sh" not in after_call


UNDO_CHILD = """
    import json, os, sys
    from IPython.testing.globalipapp import start_ipython

    ip = start_ipython()
    ip.run_line_magic("load_ext", "applypatch_ext")
    os.chdir(sys.argv[1])
    with open(sys.argv[2]) as handle:
        patch = handle.read()
    ip.run_cell_magic("apply_patch", "--no-widget --stream-chunk 0 result", patch)
    print("APPLIED", ip.user_ns["result"].status, flush=True)
    sys.stdin.readline()  # the parent watches the files now
    ip.run_line_magic("apply_patch_undo", "--no-widget")
    from applypatch_ext.jupyter.live.session import SESSION
    from applypatch_ext.core.turn.history import turn_history
    undo = SESSION.turn.calls[-1].result
    undone = {h.call_id: h.undone for h in turn_history(SESSION.turn)}["call-1"]
    report = {"status": undo.status, "delta": undo.delta.to_json(), "undone": undone}
    print("REPORT", json.dumps(report), flush=True)
    sys.stdin.readline()  # the parent reads the files first
    ip.run_line_magic("apply_patch_undo", "--no-widget")
    print("FINISHED", SESSION.turn.calls[-1].result.status, flush=True)
"""
FILES = 120
LINES = 4000


def _old(i: int) -> str:
    return "".join(f"file {i} line {n}: text the undo puts back\n" for n in range(LINES))


def _new(i: int) -> str:
    return "changed by the call\n" + _old(i)


def _wait_for(proc: subprocess.Popen[str], marker: str) -> str:
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(marker):
            return line
    _out, err = proc.communicate(timeout=CHILD_TIMEOUT)
    raise AssertionError(f"child ended before {marker!r}: {err[-2000:]}")


def test_sigint_during_an_undo_cancels_it_between_two_files(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for i in range(FILES):
        (work / f"f{i:03d}.txt").write_text(_old(i))
    body = [
        f"*** Update File: f{i:03d}.txt\n@@\n+changed by the call\n file {i} line 0: text the "
        "undo puts back"
        for i in range(FILES)
    ]
    (tmp_path / "patch.txt").write_text(patch("\n".join(body)))
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(UNDO_CHILD), str(work), str(tmp_path / "patch.txt")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert _wait_for(proc, "APPLIED").split() == ["APPLIED", "completed"]
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        # the undo goes newest file first: the interrupt comes once the last file is back
        last = work / f"f{FILES - 1:03d}.txt"
        new_size = len(_new(FILES - 1).encode())
        while last.stat().st_size == new_size and proc.poll() is None:
            time.sleep(0.0005)
        os.kill(proc.pid, signal.SIGINT)
        report = json.loads(_wait_for(proc, "REPORT ")[len("REPORT ") :])
        assert report["status"] == "cancelled"
        assert report["delta"]["exact"] is True
        assert report["undone"] == "partly undone"
        written = {Path(c["path"]).name for c in report["delta"]["changes"]}
        assert 0 < len(written) < FILES
        for i in range(FILES):  # no torn file: each holds the call's text or its text before
            name = f"f{i:03d}.txt"
            text = (work / name).read_text()
            assert text == (_old(i) if name in written else _new(i)), name
        proc.stdin.write("go\n")  # the next undo finishes the job
        proc.stdin.flush()
        assert _wait_for(proc, "FINISHED").split() == ["FINISHED", "completed"]
        proc.communicate(timeout=CHILD_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert all((work / f"f{i:03d}.txt").read_text() == _old(i) for i in range(FILES))


# -- states chain --------------------------------------------------------------------------------


def test_undo_redo_undo_redo_chain_through_the_same_states(places: tuple[Path, Path]) -> None:
    root, _outside = places
    (root / "a.txt").write_text("a\n")
    (root / "gone.txt").write_text("gone\n")
    before = tree(root)
    turn = Turn(str(root), options=options("never"))
    body = (
        "*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: gone.txt\n*** Add File: n/new.txt\n+n"
    )
    turn.run(patch(body), "approve")
    after = tree(root)
    for _ in range(2):
        assert turn.undo().status == CallStatus.COMPLETED
        assert tree(root) == before and turn.turn_diff() == ""
        assert turn.redo().status == CallStatus.COMPLETED
        assert tree(root) == after
    history = turn_history(turn)
    assert [h.kind for h in history] == ["patch", "undo", "redo", "undo", "redo"]
    assert history[0].undone == ""
    with pytest.raises(UndoError, match="is an undo of call-1: redo call-1 instead"):
        undo_call(turn, "call-2")
    with pytest.raises(UndoError, match="is a redo of call-1: undo call-1 instead"):
        undo_call(turn, "call-3")


def test_two_undos_of_one_call_waiting_together_write_once(places: tuple[Path, Path]) -> None:
    root, outside = places
    (outside / "o.txt").write_text("o\n")
    turn = Turn(str(root), options=options())
    turn.run(patch(f"*** Update File: {outside}/o.txt\n@@\n-o\n+O"), "approve")
    first, second = undo_call(turn), undo_call(turn)  # both wait: outside the root
    assert first.run().status == second.run().status == CallStatus.AWAITING_APPROVAL
    assert first.resume(Decision.APPROVE).status == CallStatus.COMPLETED
    again = second.resume(Decision.APPROVE)
    assert again.status == CallStatus.COMPLETED and again.delta.is_empty()
    assert (outside / "o.txt").read_text() == "o\n"
    assert {h.call_id: h.undone for h in turn_history(turn)}["call-1"] == "undone"
    with pytest.raises(UndoError, match="every file is undone already"):
        undo_call(turn, "call-1")


def test_an_undo_while_another_call_waits_makes_that_call_ask_again(
    places: tuple[Path, Path],
) -> None:
    root, _outside = places
    (root / "a.txt").write_text("one\ntwo\n")
    turn = Turn(str(root), options=options(review=True))
    first = turn.run(patch("*** Update File: a.txt\n@@\n-one\n+ONE"), "approve")
    assert first.status == CallStatus.COMPLETED
    waiting = turn.call()
    waiting.push_delta(patch("*** Update File: a.txt\n@@\n-two\n+TWO"))
    assert waiting.run().status == CallStatus.AWAITING_APPROVAL
    assert turn.undo("call-1", approver="approve").status == CallStatus.COMPLETED
    assert (root / "a.txt").read_text() == "one\ntwo\n"
    asked = waiting.resume(Decision.APPROVE)  # the diff it showed is not the diff now
    assert asked.status == CallStatus.AWAITING_APPROVAL
    assert asked.pending_request is not None
    assert (asked.pending_request.reason or "").startswith("changed while the call waited")
    assert waiting.resume(Decision.APPROVE).status == CallStatus.COMPLETED
    assert (root / "a.txt").read_text() == "one\nTWO\n"


def test_an_undo_never_takes_the_id_of_a_call_named_by_its_caller(
    places: tuple[Path, Path],
) -> None:
    """A replayed or an agent's call keeps the id it was given (``call-2`` here); the ids the
    turn makes for its own calls (an undo, a redo, a call without one) skip the taken ones."""
    root, _outside = places
    (root / "a.txt").write_text("a\n")
    turn = Turn(str(root), options=options("never"))
    named = turn.call(call_id="call-2")
    named.push_delta(patch("*** Update File: a.txt\n@@\n-a\n+A"))
    assert named.run("approve").status == CallStatus.COMPLETED
    assert turn.undo().call_id == "call-1"
    redo = turn.redo()
    assert redo.call_id == "call-3" and redo.status == CallStatus.COMPLETED
    ids = [h.call_id for h in turn_history(turn)]
    assert ids == ["call-2", "call-1", "call-3"] and len(set(ids)) == len(ids)
    assert turn.undo("call-2").status == CallStatus.COMPLETED  # the call, not an undo of it
    assert (root / "a.txt").read_text() == "a\n"


def test_a_forced_undo_onto_a_directory_fails_and_writes_nothing(
    places: tuple[Path, Path],
) -> None:
    root, _outside = places
    (root / "x.txt").write_text("x\n")
    turn = Turn(str(root), options=options("never"))
    turn.run(patch("*** Delete File: x.txt"), "approve")
    (root / "x.txt").mkdir()  # a directory where the file comes back
    (root / "x.txt" / "inside").write_text("kept\n")
    before = tree(root)
    result = turn.undo(force=True)
    assert result.status == CallStatus.FAILED
    assert "Is a directory" in (result.error or "")
    assert tree(root) == before
    # the open failed: nothing was written, and the delta and the TurnDiff say so
    assert result.delta.is_empty() and result.delta.exact and turn.tracker.valid


def test_an_empty_pick_of_files_says_so(places: tuple[Path, Path]) -> None:
    root, _outside = places
    (root / "a.txt").write_text("a\n")
    turn = Turn(str(root), options=options("never"))
    turn.run(patch("*** Update File: a.txt\n@@\n-a\n+A"), "approve")
    with pytest.raises(UndoError) as raised:
        undo_call(turn, only=[])
    assert str(raised.value) == "undo of call-1: only= names no file; its files: a.txt"
    assert len(turn.calls) == 1  # nothing was started


def test_files_put_back_by_hand_count_as_undone_and_undo_all_ends(
    places: tuple[Path, Path],
) -> None:
    """An undo that finds a file already as it leaves it writes nothing there; that file is
    undone all the same (it used to stay 'not undone', so undo_all undid it again forever)."""
    root, _outside = places
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    before = tree(root)
    turn = Turn(str(root), options=options("never"))
    turn.run(
        patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"), "approve"
    )
    (root / "a.txt").write_text("a\n")  # the user put one file back by hand
    results = turn.undo_all()
    assert [r.status for r in results] == [CallStatus.COMPLETED]
    assert [c.path for c in results[0].delta.changes] == [f"{root}/b.txt"]
    assert tree(root) == before
    assert {h.call_id: h.undone for h in turn_history(turn)}["call-1"] == "undone"
    with pytest.raises(UndoError, match="nothing to undo"):
        undo_call(turn)
    assert turn.redo().status == CallStatus.COMPLETED  # both files go forward again
    assert (root / "a.txt").read_text() == "A\n" and (root / "b.txt").read_text() == "B\n"


def test_an_atomic_undo_whose_journal_cannot_be_written_changes_nothing(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("APPLYPATCH_STATE_DIR", str(tmp_path / "state"))
    root, _outside = places
    (root / "a.txt").write_text("a\n")
    before = tree(root)
    turn = Turn(str(root), options=options("never", transaction=Transaction.ATOMIC))
    turn.run(patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: n/b.txt\n+b"), "approve")
    after_call = tree(root)
    full = options("never", transaction=Transaction.ATOMIC, faults=("journal:enospc",))
    failed = undo_call(turn, options=full).run()
    assert failed.status == CallStatus.FAILED
    assert "cannot write the atomic transaction's journal" in (failed.error or "")
    assert "nothing was changed" in (failed.error or "")
    assert tree(root) == after_call and failed.delta.is_empty() and failed.delta.exact
    assert turn.undo().status == CallStatus.COMPLETED
    assert tree(root) == before
