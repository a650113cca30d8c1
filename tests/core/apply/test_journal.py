"""The on-disk write-ahead journal of atomic mode: where it lives, its format, restoring."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from applypatch_ext.core.apply import journal as wal
from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.apply.journal import DiskJournal, JournalEntry, JournalError
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.runtime import apply_hunks
from applypatch_ext.core.apply.transaction import JournalingFilesystem, recover, restore
from applypatch_ext.core.parse.parser import parse_patch

PATCH = parse_patch(
    "*** Begin Patch\n"
    "*** Add File: new/deep/a.txt\n+a\n"
    "*** Update File: m.txt\n*** Move to: moved/m2.txt\n@@\n-m\n+M\n"
    "*** Delete File: d.txt\n"
    "*** Update File: u.txt\n@@\n-u\n+U\n"
    "*** End Patch"
)


def test_journals_live_in_the_state_dir_keyed_by_the_real_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(wal.STATE_DIR_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "work").mkdir()
    (tmp_path / "alias").symlink_to("work")
    path = wal.journal_path(str(tmp_path / "work"))
    assert path.startswith(f"{tmp_path}/xdg/applypatch_ext/journals/")
    assert path == wal.journal_path(str(tmp_path / "alias"))  # the same directory
    monkeypatch.delenv("XDG_STATE_HOME")
    assert wal.journal_path("/w").startswith(os.path.expanduser("~/.local/state/applypatch_ext/"))
    monkeypatch.setenv(wal.STATE_DIR_ENV, str(tmp_path / "state"))
    assert wal.journal_path("/w").startswith(f"{tmp_path}/state/journals/")


def test_the_journal_is_written_before_the_first_change_and_removed_at_commit(
    tmp_path: Path,
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    for name, text in (("m.txt", "m\n"), ("d.txt", "d\n"), ("u.txt", "u\n")):
        (root / name).write_text(text)
    (root / "u.txt").chmod(0o640)
    fs = JournalingFilesystem(LocalFilesystem(), DiskJournal(str(root), "call-7"))
    fs.prepare(PATCH.hunks, str(root))
    header, entries = wal.read_journal(wal.journal_path(str(root)))
    assert header["call_id"] == "call-7" and header["cwd"] == str(root.resolve())
    real = str(root.resolve())
    kinds = {(e.kind, e.path[len(real) + 1 :]) for e in entries}
    assert kinds == {
        ("absent", "new/deep/a.txt"),
        ("absent", "moved/m2.txt"),
        ("file", "m.txt"),
        ("file", "d.txt"),
        ("file", "u.txt"),
        ("dir", "new"),
        ("dir", "new/deep"),
        ("dir", "moved"),
    }
    [u] = [e for e in entries if e.path.endswith("/u.txt")]
    assert (u.data, u.mode) == (b"u\n", 0o640)
    assert (root / "u.txt").read_text() == "u\n", "nothing changed yet"
    assert apply_hunks(PATCH.hunks, real, fs).ok
    fs.commit()
    assert not os.path.exists(wal.journal_path(str(root)))


def test_a_torn_last_line_is_dropped_and_a_corrupt_journal_is_an_error(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    disk = DiskJournal(str(root), "call-1")
    disk.start([JournalEntry("absent", f"{root}/a")])
    disk.append([JournalEntry("file", f"{root}/b", data=b"bytes", mode=0o600)])
    path = wal.journal_path(str(root))
    with open(path, "ab") as handle:
        handle.write(b'{"kind":"file","pa')  # a crash in the middle of an append
    _header, entries = wal.read_journal(path)
    assert [e.path for e in entries] == [f"{root}/a", f"{root}/b"]
    assert entries[1].data == b"bytes"
    disk.finish(remove=False)

    Path(path).write_bytes(b"not a journal\n")
    with pytest.raises(JournalError, match=f"the journal {path} cannot be read"):
        recover(str(root))
    done = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "recover", "--cwd", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: the journal {path} cannot be read: ")


def test_restoring_twice_changes_nothing_more() -> None:
    fs = MemoryFilesystem({"/w/m.txt": "m\n", "/w/d.txt": "d\n", "/w/u.txt": "u\n"})
    journaling = JournalingFilesystem(fs)
    journaling.prepare(PATCH.hunks, "/w")
    entries = journaling.entries
    assert apply_hunks(PATCH.hunks, "/w", journaling).ok
    first = restore(fs, entries)
    assert sorted(first.restored) == ["/w/d.txt", "/w/m.txt", "/w/u.txt"]
    assert sorted(first.removed) == [
        "/w/moved/",
        "/w/moved/m2.txt",
        "/w/new/",
        "/w/new/deep/",
        "/w/new/deep/a.txt",
    ]
    assert fs.tree() == {"/w": None, "/w/d.txt": b"d\n", "/w/m.txt": b"m\n", "/w/u.txt": b"u\n"}
    second = restore(fs, entries)
    assert (second.restored, second.removed, second.failures) == ((), (), ())


def test_a_directory_someone_filled_is_kept_and_so_is_the_journal(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    disk = DiskJournal(str(root), "call-1")
    real = str(root.resolve())
    disk.start([JournalEntry("dir", f"{real}/made"), JournalEntry("absent", f"{real}/made/x")])
    disk.finish(remove=False)  # as if the process had died
    (root / "made").mkdir()
    (root / "made" / "x").write_text("ours\n")
    (root / "made" / "theirs.txt").write_text("someone else's\n")
    recovery = recover(str(root))
    assert recovery is not None and not recovery.ok
    assert recovery.removed == (f"{real}/made/x",)
    assert [p for p, _why in recovery.failures] == [f"{real}/made"]
    assert "Directory not empty" in recovery.failures[0][1]
    assert "the journal is kept at" in recovery.report()
    assert os.path.exists(wal.journal_path(str(root)))
    (root / "made" / "theirs.txt").unlink()
    again = recover(str(root))
    assert again is not None and again.ok and again.removed == (f"{real}/made/",)
    assert not os.path.exists(wal.journal_path(str(root)))


def test_a_temporary_file_of_a_writer_killed_before_its_rename_is_cleaned_up(
    tmp_path: Path,
) -> None:
    """A writer killed before its rename left only a temporary file: nothing had changed, there
    is nothing to recover, and the next journal written for that directory removes it."""
    root = tmp_path / "w"
    root.mkdir()
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
