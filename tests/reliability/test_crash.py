"""Issue 11, item 4: ``--transaction atomic`` survives a crash (real signals, real processes).

A real ``python -m applypatch_ext turn --transaction atomic`` process applying a multi-file patch
(updates, deletes, moves, moves onto existing files, adds in new nested directories, a 0755
script deleted and one updated, a 0600 file, a symlink deleted) is killed part-way: by SIGKILL
sent to itself at a chosen change (the ``kill:N`` fault), or stopped there (``stop:N``) and sent
SIGKILL or SIGTERM from outside. Then ``python -m applypatch_ext recover``, or the next call in
that working directory by itself, restores the tree, compared whole with the original: every
path, every byte, every mode, every symlink, no directory left over. Also: a crash during the
recovery (recover again ends exact), a second SIGINT during a rollback (it waits until the
rollback is complete), a full disk under the journal (nothing changes), a call still running
(never recovered from under it), and the crash sweep (random kill points; counts printed),
also with the journal tampered with after the kill (issue 21: then refused and moved aside,
nothing written outside any root, the tree left as the kill left it).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.apply.journal import journal_dir, journal_path
from applypatch_ext.core.apply.state import KEY_PREFIX, key_path
from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.turn.events import TransactionJournalRefused, TransactionRecovered
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn

from ..trees import ModedTree, snapshot_dir_with_modes
from ._journals import attack_entries, signed_journal, unsigned_journal
from ._support import FIGURES, SCALE, scaled

ATOMIC = PipelineOptions(transaction=Transaction.ATOMIC)


def build_tree(root: Path, count: int) -> str:
    """Write the tree of ``count`` hunks under ``root``; return the patch that changes it all."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "keep").mkdir()
    (root / "keep" / "untouched.txt").write_text("stays\n")
    script = root / "run.sh"
    script.write_text("#!/bin/sh\necho run\n")
    script.chmod(0o755)
    tool = root / "tool.sh"
    tool.write_text("#!/bin/sh\necho old\n")
    tool.chmod(0o755)
    secret = root / "secret.txt"
    secret.write_text("private\n")
    secret.chmod(0o600)
    (root / "link").symlink_to("keep/untouched.txt")
    lines = ["*** Begin Patch", "*** Delete File: run.sh", "*** Update File: tool.sh", "@@"]
    lines += ["-echo old", "+echo new", "*** Update File: secret.txt", "@@", "-private"]
    lines += ["+still private", "*** Delete File: link"]
    for i in range(count):
        match i % 6:
            case 0:
                (root / f"u{i}.txt").write_text(f"line {i}\nold\n")
                lines += [f"*** Update File: u{i}.txt", "@@", f" line {i}", "-old", "+new"]
            case 1:
                (root / f"d{i}.txt").write_text(f"delete me {i}\n")
                lines.append(f"*** Delete File: d{i}.txt")
            case 2:
                lines += [f"*** Add File: new/{i // 60}/deep/a{i}.txt", f"+added {i}"]
            case 3:
                (root / f"m{i}.txt").write_text(f"m {i}\n")
                lines += [f"*** Update File: m{i}.txt", f"*** Move to: moved/{i // 60}/m{i}.txt"]
                lines += ["@@", f"-m {i}", f"+M {i}"]
            case 4:
                (root / f"o{i}.txt").write_text(f"overwritten {i}\n")
                lines += [f"*** Add File: o{i}.txt", f"+replaced {i}"]
            case _:
                (root / f"s{i}.txt").write_text(f"source {i}\n")
                (root / f"t{i}.txt").write_text(f"target {i}\n")
                lines += [f"*** Update File: s{i}.txt", f"*** Move to: t{i}.txt"]
                lines += ["@@", f"-source {i}", f"+moved {i}"]
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


def snapshot(root: Path) -> ModedTree:
    return snapshot_dir_with_modes(root)


def module(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "applypatch_ext", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        **kwargs,
    )


def start_turn(cwd: Path, patch: Path, *extra: str) -> subprocess.Popen[str]:
    """The ``turn`` process; its output goes to files beside the patch (a pipe nobody reads
    while the child is stopped would block it before its stop point)."""
    command = [sys.executable, "-m", "applypatch_ext", "turn", "--cwd", str(cwd), str(patch)]
    out = open(patch.with_suffix(".out"), "w+", encoding="utf-8")  # noqa: SIM115
    err = open(patch.with_suffix(".err"), "w+", encoding="utf-8")  # noqa: SIM115
    proc = subprocess.Popen(
        [*command, "--transaction", "atomic", *extra], stdout=out, stderr=err, text=True
    )
    out.close()
    err.close()
    return proc


def outputs(patch: Path) -> tuple[str, str]:
    return patch.with_suffix(".out").read_text(), patch.with_suffix(".err").read_text()


def wait_stopped(proc: subprocess.Popen[str]) -> None:
    """Block until the child has stopped itself (the ``stop:N`` fault)."""
    _pid, status = os.waitpid(proc.pid, os.WUNTRACED)
    assert os.WIFSTOPPED(status), f"the child ended instead of stopping: status {status}"


def changed_paths(before: ModedTree, root: Path) -> int:
    after = snapshot(root)
    return sum(after.get(p) != v for p, v in before.items()) + len(set(after) - set(before))


@pytest.fixture
def big(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    """3,000 hunks (about 3,800 paths) and the patch file."""
    root = tmp_path / "tree"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(root, 3000))
    return root, patch, snapshot(root)


def test_sigkill_part_way_then_recover_restores_the_whole_tree(
    big: tuple[Path, Path, dict[str, Any]],
) -> None:
    root, patch, before = big
    proc = start_turn(root, patch, "--fault", "kill:1500")
    proc.communicate(timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert os.path.exists(journal_path(str(root))), "a killed atomic call leaves its journal"
    assert 1000 < changed_paths(before, root) < len(before), "killed part-way"

    done = module("recover", "--cwd", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"recovered {root.resolve()} from the journal")
    assert f"  restored {root.resolve()}/run.sh\n" in done.stdout  # deleted before the kill
    assert f"  removed {root.resolve()}/new/\n" in done.stdout
    assert "paths put back: the tree is as it was before that call" in done.stdout
    assert snapshot(root) == before  # bytes, modes (run.sh 0755 again), symlinks, no new dirs
    assert not os.path.exists(journal_path(str(root)))

    again = module("recover", "--cwd", str(root))
    assert again.returncode == 0
    assert again.stdout.startswith(f"nothing to recover in {root.resolve()}")
    assert snapshot(root) == before


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_signal_from_outside_then_the_next_call_recovers_by_itself(
    sig: signal.Signals, tmp_path: Path
) -> None:
    """SIGTERM is what a kernel restart sends: no handler runs, the journal stays, and the next
    ``turn`` in that directory restores the tree before running its own patch."""
    root = tmp_path / "tree"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(root, 600))
    before = snapshot(root)
    proc = start_turn(root, patch, "--fault", "stop:400")
    wait_stopped(proc)
    assert changed_paths(before, root) > 100
    busy = module("recover", "--cwd", str(root))
    assert busy.returncode == 1
    assert "an atomic apply_patch call is still running in" in busy.stderr
    assert changed_paths(before, root) > 100, "a running call's tree is never touched"
    second = Turn(str(root), options=ATOMIC).run(
        "*** Begin Patch\n*** Add File: other.txt\n+x\n*** End Patch\n", "approve"
    )
    assert second.status == CallStatus.FAILED
    assert "an atomic apply_patch call is still running in" in (second.error or "")
    assert not (root / "other.txt").exists()
    os.kill(proc.pid, sig)
    os.kill(proc.pid, signal.SIGCONT)  # a stopped process receives SIGTERM when continued
    proc.communicate(timeout=60)
    assert proc.returncode == -sig

    follow_up = tmp_path / "next.patch"
    follow_up.write_text("*** Begin Patch\n*** Add File: after.txt\n+after\n*** End Patch\n")
    nxt = module("turn", "--cwd", str(root), str(follow_up))
    assert nxt.returncode == 0, nxt.stderr
    # First, before the call runs (only the streaming preview of its input comes earlier).
    events = [json.loads(line) for line in nxt.stdout.splitlines()]
    events = [e for e in events if e["type"] != "patch_apply_updated"]
    assert events[0]["type"] == "transaction_recovered"
    recovered = events[0]
    assert recovered["cwd"] == str(root.resolve())
    assert recovered["interrupted_call_id"] == "call-1"
    assert recovered["failures"] == []
    assert f"{root.resolve()}/run.sh" in recovered["restored"]
    assert f"{root.resolve()}/new/" in recovered["removed"]
    assert [e["type"] for e in events].count("transaction_recovered") == 1
    after = snapshot(root)
    assert after.pop("after.txt") == (b"after\n", 0o644 & ~_umask())
    assert after == before


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_library_turn_recovers_first_and_says_what_it_restored(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(root, 60))
    before = snapshot(root)
    proc = start_turn(root, patch, "--fault", "kill:30")
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    turn = Turn(str(root))
    result = turn.run(
        "*** Begin Patch\n*** Update File: keep/untouched.txt\n@@\n-stays\n+x\n*** End Patch\n",
        "approve",
    )
    assert result.status == CallStatus.COMPLETED, result.output
    kinds = [e.event.type for e in result.events if e.event.type != "patch_apply_updated"]
    assert kinds[:2] == ["transaction_recovered", "patch_safety_assessed"]
    event = next(e.event for e in result.events if isinstance(e.event, TransactionRecovered))
    assert f"{root.resolve()}/run.sh" in event.restored  # the first hunk: deleted, put back
    assert event.failures == ()
    after = snapshot(root)
    assert after.pop("keep/untouched.txt")[0] == b"x\n"
    before.pop("keep/untouched.txt")
    assert after == before


DYING_RECOVERY = textwrap.dedent(
    """
    import os, signal, sys
    from applypatch_ext.core.apply.fs import LocalFilesystem
    from applypatch_ext.core.turn.recovery import recover

    LIMIT = int(sys.argv[2])
    count = 0

    class Dying(LocalFilesystem):
        def _tick(self):
            global count
            count += 1
            if count == LIMIT:
                os.kill(os.getpid(), signal.SIGKILL)

        def write_bytes(self, path, data):
            self._tick()
            super().write_bytes(path, data)

        def remove_file(self, path, *, move_source=False):
            self._tick()
            super().remove_file(path, move_source=move_source)

        def remove_dir(self, path):
            self._tick()
            super().remove_dir(path)

    print(recover(sys.argv[1], Dying()))
    """
)


@pytest.mark.parametrize("limit", [1, 40, 120])
def test_a_crash_during_recovery_then_recover_again_ends_exact(limit: int, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(root, 300))
    before = snapshot(root)
    proc = start_turn(root, patch, "--fault", "kill:250")
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    dying = subprocess.run(
        [sys.executable, "-c", DYING_RECOVERY, str(root), str(limit)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert dying.returncode == -signal.SIGKILL, dying.stderr
    assert os.path.exists(journal_path(str(root))), "the journal outlives a crashed recovery"
    done = module("recover", "--cwd", str(root))
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == before


class InterruptOnRestore(LocalFilesystem):
    """Sends this very process a real SIGINT when the rollback restores ``trigger``."""

    def __init__(self, trigger: str, original: bytes) -> None:
        self.trigger = trigger
        self.original = original
        self.sent = False
        self.after = 0  # changes made after the signal

    def _count(self) -> None:
        if self.sent:
            self.after += 1

    def write_bytes(self, path: str, data: bytes) -> None:
        if not self.sent and path == self.trigger and data == self.original:
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
        else:
            self._count()
        super().write_bytes(path, data)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._count()
        super().remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self._count()
        super().remove_dir(path)


def test_sigint_during_rollback_waits_until_the_rollback_is_complete(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    build_tree(root, 120)
    patch = build_tree(tmp_path / "scratch", 120)
    before = snapshot(root)
    first = root / "u0.txt"
    fs = InterruptOnRestore(str(first), first.read_bytes())
    options = replace(ATOMIC, faults=("write:80",))
    turn = Turn(str(root), options=options, filesystem=fs)
    with pytest.raises(KeyboardInterrupt):
        turn.run(patch, "approve")
    assert fs.sent, "the signal was sent during the rollback"
    assert fs.after > 50, "the rollback went on after the signal"
    assert snapshot(root) == before
    assert not os.path.exists(journal_path(str(root)))


def test_rollback_restores_modes_and_an_update_keeps_its_mode(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = build_tree(root, 12)
    before = snapshot(root)
    failed = Turn(str(root), options=replace(ATOMIC, faults=("write:tool.sh",))).run(
        patch, "approve"
    )
    assert failed.status == CallStatus.FAILED
    assert snapshot(root) == before  # run.sh, deleted before the failure, is back as 0755
    assert before["run.sh"][1] == 0o755

    done = Turn(str(root), options=ATOMIC).run(patch, "approve")
    assert done.status == CallStatus.COMPLETED, done.output
    after = snapshot(root)
    assert after["tool.sh"] == (b"#!/bin/sh\necho new\n", 0o755)
    assert after["secret.txt"] == (b"still private\n", 0o600)
    assert "run.sh" not in after
    assert not os.path.exists(journal_path(str(root)))


def test_a_full_disk_under_the_journal_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(root, 60))
    before = snapshot(root)
    proc = start_turn(root, patch, "--fault", "journal:enospc")
    proc.communicate(timeout=60)
    out, err = outputs(patch)
    assert proc.returncode == 1, err
    result = [json.loads(line) for line in out.splitlines()][-2]
    assert result["type"] == "call_result" and result["status"] == "failed"
    journal = journal_path(str(root))
    expected = (
        f"cannot write the atomic transaction's journal {journal}: No space left on device; "
        "nothing was changed (set APPLYPATCH_STATE_DIR to keep journals elsewhere)"
    )
    assert expected in result["output"]
    assert result["delta"]["changes"] == []
    assert snapshot(root) == before
    leftovers = [n for n in os.listdir(journal_dir()) if n.startswith(Path(journal).stem)]
    assert leftovers == [Path(journal).stem + ".lock"], leftovers  # no journal, no temp file


def test_the_default_mode_writes_no_journal(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = build_tree(root, 12)
    result = Turn(str(root)).run(patch, "approve")
    assert result.status == CallStatus.COMPLETED, result.output
    assert not os.path.exists(journal_path(str(root)))
    assert not os.path.exists(journal_path(str(root))[: -len(".journal")] + ".lock")


# -- the crash sweep (`make fuzz` runs it 50 times longer) -------------------------------------


class CountingFilesystem(LocalFilesystem):
    """Counts the changes that reach the disk (an upper bound of ``kill:N``'s count, which
    does not count a write retried after creating its parent directories twice)."""

    def __init__(self) -> None:
        self.changes = 0

    def write_bytes(self, path: str, data: bytes) -> None:
        self.changes += 1
        super().write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self.changes += 1
        super().create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self.changes += 1
        super().remove_file(path, move_source=move_source)


def count_changes(template: Path, patch: str, scratch: Path) -> int:
    shutil.copytree(template, scratch, symlinks=True)
    fs = CountingFilesystem()
    assert Turn(str(scratch), options=ATOMIC, filesystem=fs).run(patch, "approve").ok
    shutil.rmtree(scratch)
    return fs.changes


def test_crash_sweep(tmp_path: Path) -> None:
    """An atomic apply of a multi-file patch killed (SIGKILL) at random changes, then
    recovered (by ``recover``, by the next call, or after a recovery killed in turn): the tree
    is identical every time; a kill point past the last change lets the call complete."""
    rng = random.Random(1104)
    template = tmp_path / "template"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(template, 24))
    before = snapshot(template)
    ops = count_changes(template, patch.read_text(), tmp_path / "counted")
    runs = scaled(6)
    points: set[int] = set()
    for run in range(runs):
        root = tmp_path / f"run{run}"
        shutil.copytree(template, root, symlinks=True)
        point = rng.randint(1, ops + 1)
        proc = start_turn(root, patch, "--fault", f"kill:{point}")
        proc.communicate(timeout=60)
        FIGURES["crash sweep runs"] += 1
        if proc.returncode == 0:
            assert not os.path.exists(journal_path(str(root)))
            FIGURES["crash sweep kill points past the end (completed)"] += 1
            shutil.rmtree(root)
            continue
        assert proc.returncode == -signal.SIGKILL
        points.add(point)
        FIGURES["crash sweep kill points hit"] += 1
        how = run % 3
        if how == 2:  # the recovery is killed too, then run again
            limit = rng.randint(1, max(1, point))
            subprocess.run(
                [sys.executable, "-c", DYING_RECOVERY, str(root), str(limit)],
                capture_output=True,
                check=False,
                timeout=60,
            )
            FIGURES["crash sweep recoveries killed and run again"] += 1
        if how == 1:
            result = Turn(str(root)).run("*** Begin Patch\n*** End Patch\n", "approve")
            kinds = [e.event.type for e in result.events]
            assert "transaction_recovered" in kinds
        else:
            done = module("recover", "--cwd", str(root))
            assert done.returncode == 0, done.stderr
        FIGURES["crash sweep recoveries"] += 1
        assert snapshot(root) == before, f"kill at change {point}"
        assert not os.path.exists(journal_path(str(root)))
        shutil.rmtree(root)
    FIGURES["crash sweep distinct kill points"] += len(points)
    assert FIGURES["crash sweep kill points hit"] > 0
    assert SCALE >= 1


#: How a journal is tampered with after the kill, and what its refusal says.
TAMPERINGS = {
    "flip-a-byte": "signature does not match",  # one byte of one line's JSON changed
    "retarget": "signature does not match: changed since",  # an entry's path pointed outside
    "forge": "signature does not match: changed since",  # an entry added: setuid file outside
    "unsigned": "it is not signed (a format version 1 journal",  # the journal
    "foreign-key": "its signature does not match this user's key",  # the same, another key
    "key-swapped": "its signature does not match this user's key",  # another key, 0600
    "mode-0644": "its mode is 0o644: others may read or write it",
    "truncated": "it is cut short: ",  # cut inside the entries written at its start
    "symlink": "it is a symbolic link, not a file this program wrote (to ",
}


def tamper(how: str, journal: str, root: Path, outside: Path, rng: random.Random) -> None:
    """Change the killed call's journal as someone who can write the state folder would."""
    data = Path(journal).read_bytes()
    lines = data.splitlines(keepends=True)
    attack = attack_entries(outside, outside)  # the config it rewrites: outside/.codex
    if how == "flip-a-byte":
        i = rng.randrange(len(lines))
        pos = rng.randrange(65, len(lines[i]) - 1)
        line = bytearray(lines[i])
        line[pos] = ord("A") if line[pos] != ord("A") else ord("B")
        lines[i] = bytes(line)
    elif how == "retarget":
        i = rng.randrange(2, len(lines))
        signature, entry = lines[i][:65], json.loads(lines[i][65:])
        entry["path"] = f"{outside}/victim.txt"
        lines[i] = signature + json.dumps(entry, separators=(",", ":")).encode() + b"\n"
    elif how == "forge":
        forged = json.dumps(attack[0], separators=(",", ":")).encode()
        lines.append(os.urandom(32).hex().encode() + b" " + forged + b"\n")
    elif how == "unsigned":
        lines = [unsigned_journal(root, attack)]
    elif how == "foreign-key":
        lines = [signed_journal(root, attack, os.urandom(32), {"view": "unconfined"})]
    elif how == "key-swapped":
        key = Path(key_path())
        key.write_bytes(KEY_PREFIX + os.urandom(32))
    elif how == "mode-0644":
        os.chmod(journal, 0o644)
    elif how == "truncated":
        lines = [data[: rng.randint(1, len(data) // 2)]]
    else:
        assert how == "symlink"
        copy = root.parent / f"{root.name}.journal-copy"
        copy.write_bytes(data)
        os.remove(journal)
        os.symlink(copy, journal)
    if how in ("flip-a-byte", "retarget", "forge", "unsigned", "foreign-key", "truncated"):
        Path(journal).write_bytes(b"".join(lines))


def test_crash_sweep_with_the_journal_tampered_after_the_kill(tmp_path: Path) -> None:
    """Killed (SIGKILL) at random changes, then the journal tampered with in each way: the
    recovery (``recover``, or the next call) refuses it, naming it and why, and moves it aside;
    nothing outside any root changes (no setuid file, no file deleted, no config rewritten) and
    recovery writes nothing in the tree either: it is left as the kill left it."""
    rng = random.Random(2121)
    template = tmp_path / "template"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(template, 24))
    ops = count_changes(template, patch.read_text(), tmp_path / "counted")
    outside = tmp_path / "outside"
    (outside / ".codex").mkdir(parents=True)
    (outside / "victim.txt").write_text("victim\n")
    (outside / ".codex" / "config.toml").write_text('sandbox_mode = "workspace-write"\n')
    world = snapshot(outside)
    runs = scaled(len(TAMPERINGS))
    for run in range(runs):
        how = list(TAMPERINGS)[run % len(TAMPERINGS)]
        root = tmp_path / f"run{run}"
        shutil.copytree(template, root, symlinks=True)
        point = rng.randint(1, max(1, ops // 2))
        proc = start_turn(root, patch, "--fault", f"kill:{point}")
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL, outputs(patch)
        journal = journal_path(str(root))
        killed = snapshot(root)
        tamper(how, journal, root, outside, rng)
        FIGURES["crash sweep tampered journals"] += 1
        if run % 2 == 0:
            done = module("recover", "--cwd", str(root))
            assert done.returncode == 1, (how, done.stdout)
            assert done.stderr.startswith(f"refused the journal {journal} found for "), done.stderr
            assert TAMPERINGS[how] in done.stderr.splitlines()[0], (how, done.stderr)
            assert "Traceback" not in done.stderr
            assert (
                "nothing was restored from it and it will not be used; it was moved aside to "
                in (done.stderr)
            )
        else:
            result = Turn(str(root)).run("*** Begin Patch\n*** End Patch\n", "approve")
            (refused,) = [
                e.event for e in result.events if isinstance(e.event, TransactionJournalRefused)
            ]
            assert refused.journal == journal and refused.moved_to is not None, how
            assert TAMPERINGS[how] in refused.reason, (how, refused.reason)
            assert "transaction_recovered" not in [e.event.type for e in result.events]
        FIGURES["crash sweep tampered journals refused"] += 1
        assert not os.path.lexists(journal), how
        assert [
            n for n in os.listdir(journal_dir()) if n.startswith(Path(journal).name + ".refused-")
        ]
        assert snapshot(outside) == world, how
        assert snapshot(root) == killed, f"{how}: recovery wrote nothing in the tree"
        shutil.rmtree(root)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_journal_is_not_in_the_working_tree_nor_in_git_status(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    patch = tmp_path / "change.patch"
    patch.write_text(build_tree(root, 12))
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    proc = start_turn(root, patch, "--fault", "stop:6")
    wait_stopped(proc)
    try:
        journal = journal_path(str(root))
        assert os.path.exists(journal)
        assert not journal.startswith(str(root.resolve()) + "/")
        status = subprocess.run(
            [*git, "status", "--porcelain", "--ignored", "-uall"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        named = {line[3:] for line in status.splitlines()}
        patch_paths = {"run.sh", "tool.sh", "secret.txt", "link", "u0.txt", "d1.txt"}
        assert named and named <= patch_paths | {"new/0/deep/a2.txt"}, named
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    assert module("recover", "--cwd", str(root)).returncode == 0
    clean = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True)
    assert clean.stdout == ""
