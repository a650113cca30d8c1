"""Recovery from a journal (core/turn/recovery): only this program's journals, only what the
interrupted attempt could change, never through a symlink, modes as recorded; a journal that
fails a check moved aside and named. Real files in a temporary state folder."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from applypatch_ext.core.apply import journal as wal
from applypatch_ext.core.apply.journal import DiskJournal, JournalEntry
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.recovery import Recovery, Refusal, recover
from applypatch_ext.core.turn.sandbox import Confinement


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv(wal.STATE_DIR_ENV, str(folder))
    return folder


def sandbox_of(root: Path, *approved: str) -> Confinement:
    policy = SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, include_tmp=False)
    return Confinement.of(policy, str(root), sandboxed=True, approved=approved)


def killed(root: Path, confinement: Confinement | None, *entries: JournalEntry) -> str:
    """The journal an attempt confined by ``confinement`` leaves when its process dies."""
    disk = DiskJournal(
        str(root), "call-1", confinement=None if confinement is None else confinement.to_json()
    )
    disk.start(list(entries))
    disk.finish(remove=False)
    return disk.path


def recovered(root: Path) -> Recovery:
    result = recover(str(root))
    assert isinstance(result, Recovery), result
    return result


def project(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "w", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    return root.resolve(), outside.resolve()


def test_only_what_the_attempt_could_change_is_restored(tmp_path: Path) -> None:
    """The journal records the prior state of every path the patch names, also one the sandbox
    then refused (a symlink leading out): changed since by someone else, it is left alone."""
    root, outside = project(tmp_path)
    (root / "mine.txt").write_text("changed by the call\n")
    (outside / "theirs.txt").write_text("changed by someone else since\n")
    killed(
        root,
        sandbox_of(root),
        JournalEntry("file", f"{root}/mine.txt", data=b"before\n", mode=0o644),
        JournalEntry("file", f"{outside}/theirs.txt", data=b"old\n", mode=0o644),
        JournalEntry("absent", f"{outside}/new.txt"),
    )
    (outside / "new.txt").write_text("not the call's\n")
    result = recovered(root)
    assert result.ok and result.restored == (f"{root}/mine.txt",)
    assert [p for p, _why in result.skipped] == [f"{outside}/new.txt", f"{outside}/theirs.txt"]
    assert "outside the writable roots" in result.skipped[0][1]
    report = result.report()
    assert f"  left alone {outside}/theirs.txt (that call could not change it): sandbox: " in report
    assert (root / "mine.txt").read_text() == "before\n"
    assert (outside / "theirs.txt").read_text() == "changed by someone else since\n"
    assert (outside / "new.txt").exists()
    assert not os.path.exists(wal.journal_path(str(root)))


def test_a_granted_path_is_restored_and_nothing_else(tmp_path: Path) -> None:
    root, outside = project(tmp_path)
    (outside / "granted.txt").write_text("written by the approved retry\n")
    (outside / "other.txt").write_text("x\n")
    granted = Confinement.of(
        SandboxPolicy(), str(root), sandboxed=False, approved=[f"{outside}/granted.txt"]
    )
    assert granted.view == "granted"
    killed(
        root,
        granted,
        JournalEntry("absent", f"{outside}/granted.txt"),
        JournalEntry("absent", f"{outside}/other.txt"),
    )
    result = recovered(root)
    assert result.removed == (f"{outside}/granted.txt",)
    assert [p for p, _why in result.skipped] == [f"{outside}/other.txt"]
    assert (outside / "other.txt").exists()


def test_a_directory_on_the_way_that_became_a_symlink_is_not_followed(tmp_path: Path) -> None:
    root, outside = project(tmp_path)
    (root / "sub").mkdir()
    killed(
        root,
        sandbox_of(root),
        JournalEntry("file", f"{root}/sub/a.txt", data=b"a\n", mode=0o644),
        JournalEntry("absent", f"{root}/sub/b.txt"),
    )
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside)
    (outside / "b.txt").write_text("precious\n")
    result = recovered(root)
    assert not result.ok
    assert sorted(p for p, _why in result.failures) == [f"{root}/sub/a.txt", f"{root}/sub/b.txt"]
    assert all(f"goes through the symlink {root}/sub" in why for _p, why in result.failures)
    assert sorted(os.listdir(outside)) == ["b.txt"]
    assert (outside / "b.txt").read_text() == "precious\n"
    assert os.path.exists(wal.journal_path(str(root))), "kept: the tree is not restored"


def test_a_symlink_where_a_file_comes_back_is_replaced_not_written_through(
    tmp_path: Path,
) -> None:
    root, outside = project(tmp_path)
    (outside / "precious.txt").write_text("precious\n")
    killed(root, sandbox_of(root), JournalEntry("file", f"{root}/a.txt", data=b"a\n", mode=0o600))
    (root / "a.txt").symlink_to(outside / "precious.txt")
    result = recovered(root)
    assert result.ok and result.restored == (f"{root}/a.txt",)
    assert stat.S_ISREG(os.lstat(root / "a.txt").st_mode)
    assert (root / "a.txt").read_bytes() == b"a\n"
    assert stat.S_IMODE(os.stat(root / "a.txt").st_mode) == 0o600
    assert (outside / "precious.txt").read_text() == "precious\n"


def test_a_mode_comes_back_as_recorded_setuid_only_if_it_was(tmp_path: Path) -> None:
    root, _outside = project(tmp_path)
    killed(
        root,
        sandbox_of(root),
        JournalEntry("file", f"{root}/tool", data=b"#!/bin/sh\n", mode=0o4755),
        JournalEntry("file", f"{root}/plain", data=b"x\n", mode=0o640),
    )
    result = recovered(root)
    assert result.ok
    assert stat.S_IMODE(os.stat(root / "tool").st_mode) == 0o4755  # as it was before the call
    assert stat.S_IMODE(os.stat(root / "plain").st_mode) == 0o640


def test_no_journal_is_written_or_restored_in_a_state_folder(tmp_path: Path) -> None:
    """Even an attempt without confinement (danger-full-access) restores nothing there."""
    root, _outside = project(tmp_path)
    planted = Path(wal.journal_dir()) / "other.journal"
    killed(
        root,
        Confinement.of(
            SandboxPolicy(PermissionProfile.DANGER_FULL_ACCESS), str(root), sandboxed=False
        ),
        JournalEntry("file", str(planted), data=b"x\n", mode=0o600),
    )
    result = recovered(root)
    assert [p for p, _why in result.skipped] == [str(planted)]
    assert "applypatch_ext's state folder" in result.skipped[0][1]
    assert not planted.exists()


def test_a_journal_without_a_confinement_record_is_confined_to_its_directory(
    tmp_path: Path,
) -> None:
    root, outside = project(tmp_path)
    killed(
        root,
        None,
        JournalEntry("absent", f"{root}/made.txt"),
        JournalEntry("absent", f"{outside}/made.txt"),
    )
    (root / "made.txt").write_text("x\n")
    (outside / "made.txt").write_text("x\n")
    result = recovered(root)
    assert result.removed == (f"{root}/made.txt",)
    assert (outside / "made.txt").exists()


def test_a_refused_journal_is_moved_aside_and_recover_exits_1_naming_it(
    tmp_path: Path, state_dir: Path
) -> None:
    root, _outside = project(tmp_path)
    path = wal.journal_path(str(root))
    os.makedirs(os.path.dirname(path))
    Path(path).write_bytes(b"not a journal\n")
    os.chmod(path, 0o600)
    done = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "recover", "--cwd", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    (aside,) = [n for n in os.listdir(os.path.dirname(path)) if ".journal.refused-" in n]
    assert done.stderr == (
        f"refused the journal {path} found for {root}: it is not a journal of this program: its "
        "first line has no signature\n"
        f"nothing was restored from it and it will not be used; it was moved aside to "
        f"{os.path.dirname(path)}/{aside}\n"
    )
    assert done.stdout == ""
    assert not os.path.exists(path)
    assert recover(str(root)) is None


def test_a_journal_for_another_directory_is_refused(tmp_path: Path) -> None:
    root, outside = project(tmp_path)
    theirs = killed(outside, sandbox_of(outside), JournalEntry("absent", f"{outside}/x"))
    mine = wal.journal_path(str(root))
    os.rename(theirs, mine)
    result = recover(str(root))
    assert isinstance(result, Refusal)
    assert result.reason == f"it is for {outside}, not {root}"
    assert result.moved_to is not None and os.path.exists(result.moved_to)


def test_a_directory_someone_filled_is_kept_and_so_is_the_journal(tmp_path: Path) -> None:
    root, _outside = project(tmp_path)
    killed(
        root,
        sandbox_of(root),
        JournalEntry("dir", f"{root}/made"),
        JournalEntry("absent", f"{root}/made/x"),
    )
    (root / "made").mkdir()
    (root / "made" / "x").write_text("ours\n")
    (root / "made" / "theirs.txt").write_text("someone else's\n")
    recovery = recovered(root)
    assert not recovery.ok
    assert recovery.removed == (f"{root}/made/x",)
    assert [p for p, _why in recovery.failures] == [f"{root}/made"]
    assert "Directory not empty" in recovery.failures[0][1]
    assert "the journal is kept at" in recovery.report()
    assert os.path.exists(wal.journal_path(str(root)))
    (root / "made" / "theirs.txt").unlink()
    again = recovered(root)
    assert again.ok and again.removed == (f"{root}/made/",)
    assert not os.path.exists(wal.journal_path(str(root)))


def test_a_temporary_file_of_a_writer_killed_before_its_rename_is_cleaned_up(
    tmp_path: Path,
) -> None:
    """A writer killed before its rename left only a temporary file: nothing had changed, there
    is nothing to recover, and the next journal written for that directory removes it."""
    root, _outside = project(tmp_path)
    path = wal.journal_path(str(root))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    stale = f"{path}.4242.tmp"
    Path(stale).write_bytes(b'{"format":"applypatch_ext-journal"')
    assert recover(str(root)) is None
    disk = DiskJournal(str(root), "call-1")
    disk.start([])
    assert not os.path.exists(stale)
    disk.finish()
    assert not os.path.exists(path)
