"""The on-disk write-ahead journal of atomic mode: where it lives, its format, its signatures,
the key, the checks a journal passes before any entry is used, restoring."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from applypatch_ext.core.apply import journal as wal
from applypatch_ext.core.apply import state
from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.apply.journal import DiskJournal, JournalEntry, JournalRefused
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.runtime import apply_hunks
from applypatch_ext.core.apply.transaction import JournalingFilesystem, restore
from applypatch_ext.core.parse.parser import parse_patch

PATCH = parse_patch(
    "*** Begin Patch\n"
    "*** Add File: new/deep/a.txt\n+a\n"
    "*** Update File: m.txt\n*** Move to: moved/m2.txt\n@@\n-m\n+M\n"
    "*** Delete File: d.txt\n"
    "*** Update File: u.txt\n@@\n-u\n+U\n"
    "*** End Patch"
)


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder of the test's own (its key made by the first journal)."""
    folder = tmp_path / "state"
    monkeypatch.setenv(wal.STATE_DIR_ENV, str(folder))
    return folder


def written(root: Path, *entries: JournalEntry, call_id: str = "call-1") -> str:
    """A journal of ``root`` as a killed call leaves it; its path."""
    disk = DiskJournal(str(root), call_id)
    disk.start(list(entries))
    disk.finish(remove=False)
    return disk.path


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


def test_every_place_the_state_may_be_in_is_a_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The carve-out covers the folder another environment would pick, not only this one's."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(wal.STATE_DIR_ENV, str(tmp_path / "explicit/./"))
    assert state.state_folders() == (
        f"{tmp_path}/explicit",
        f"{tmp_path}/xdg/applypatch_ext",
        f"{tmp_path}/home/.local/state/applypatch_ext",
    )
    monkeypatch.delenv(wal.STATE_DIR_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", "relative")  # ignored, as state_dir ignores it
    assert state.state_folders() == (f"{tmp_path}/home/.local/state/applypatch_ext",)


def test_the_journal_is_written_before_the_first_change_and_removed_at_commit(
    tmp_path: Path, state_dir: Path
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    for name, text in (("m.txt", "m\n"), ("d.txt", "d\n"), ("u.txt", "u\n")):
        (root / name).write_text(text)
    (root / "u.txt").chmod(0o640)
    confinement = {"view": "unconfined"}
    disk = DiskJournal(str(root), "call-7", confinement=confinement)
    fs = JournalingFilesystem(LocalFilesystem(), disk)
    fs.prepare(PATCH.hunks, str(root))
    journal = wal.read_journal(wal.journal_path(str(root)))
    assert journal.header["call_id"] == "call-7" and journal.header["cwd"] == str(root.resolve())
    assert journal.header["uid"] == os.geteuid() and journal.confinement == confinement
    real = str(root.resolve())
    kinds = {(e.kind, e.path[len(real) + 1 :]) for e in journal.entries}
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
    [u] = [e for e in journal.entries if e.path.endswith("/u.txt")]
    assert (u.data, u.mode) == (b"u\n", 0o640)
    info = os.stat(disk.path)
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()
    assert (root / "u.txt").read_text() == "u\n", "nothing changed yet"
    assert apply_hunks(PATCH.hunks, real, fs).ok
    fs.commit()
    assert not os.path.exists(wal.journal_path(str(root)))


def test_every_line_is_signed_and_a_torn_last_line_is_dropped(
    tmp_path: Path, state_dir: Path
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    disk = DiskJournal(str(root), "call-1")
    disk.start([JournalEntry("absent", f"{root}/a")])
    disk.append([JournalEntry("file", f"{root}/b", data=b"bytes", mode=0o600)])
    path = wal.journal_path(str(root))
    lines = Path(path).read_bytes().splitlines()
    assert len(lines) == 4  # header, confinement, two entries
    for line in lines:
        signature, _space, body = line.partition(b" ")
        assert len(signature) == 64 and json.loads(body)
    with open(path, "ab") as handle:
        handle.write(b'0123 {"kind":"file","pa')  # a crash in the middle of an append
    entries = wal.read_journal(path).entries
    assert [e.path for e in entries] == [f"{root}/a", f"{root}/b"]
    assert entries[1].data == b"bytes"
    disk.finish(remove=False)


def _rewrite(path: str, lines: list[bytes]) -> None:
    Path(path).write_bytes(b"".join(line + b"\n" for line in lines))


def test_a_line_changed_moved_or_taken_from_another_journal_is_refused(
    tmp_path: Path, state_dir: Path
) -> None:
    (tmp_path / "w").mkdir()
    (tmp_path / "v").mkdir()
    entries = [JournalEntry("absent", f"{tmp_path}/w/{n}") for n in "abc"]
    path = written(tmp_path / "w", *entries)
    other = written(tmp_path / "v", *entries)
    good = Path(path).read_bytes().splitlines()
    theirs = Path(other).read_bytes().splitlines()

    changed = [*good]  # header, confinement, then the entries a, b, c
    changed[2] = changed[2].replace(b'/w/a"', b'/x/a"')
    _rewrite(path, changed)
    with pytest.raises(JournalRefused, match="line 3's signature does not match: changed since"):
        wal.read_journal(path)
    _rewrite(path, [*good[:2], good[3], good[2], good[4]])
    with pytest.raises(JournalRefused, match="line 3's signature does not match"):
        wal.read_journal(path)
    _rewrite(path, [*good[:4], theirs[4]])
    with pytest.raises(JournalRefused, match="line 5's signature does not match"):
        wal.read_journal(path)
    _rewrite(path, good[2:])  # no header: an entry's signature does not chain from nothing
    with pytest.raises(JournalRefused, match="its signature does not match this user's key"):
        wal.read_journal(path)
    _rewrite(path, good)
    assert [e.path for e in wal.read_journal(path).entries] == [e.path for e in entries]


def test_the_key_is_made_once_0600_and_shared_by_every_process(
    tmp_path: Path, state_dir: Path
) -> None:
    """Eight processes start at once with no key: all end with the same one (a hard link made
    from a complete temporary file: no process ever reads half a key)."""
    code = (
        "from applypatch_ext.core.apply.state import journal_key\n"
        "import sys\nsys.stdin.read()\nprint(journal_key(create=True)[0].hex())\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    keys = {proc.communicate("go")[0].strip() for proc in procs}
    assert all(proc.returncode == 0 for proc in procs)
    assert len(keys) == 1
    key, note = state.journal_key(create=False)
    assert key is not None and note is None and key.hex() in keys
    info = os.lstat(state.key_path())
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert Path(state.key_path()).read_bytes()[:1] == b"\xff", "never UTF-8: no patch reads it"
    assert sorted(os.listdir(state_dir)) == ["key"], "no temporary file left"


def _symlink_in_place(path: str) -> None:
    os.remove(path)
    os.symlink("/etc/hostname", path)


@pytest.mark.parametrize(
    ("spoil", "problem"),
    [
        pytest.param(lambda p: os.chmod(p, 0o644), "its mode is 0o644", id="mode-0644"),
        pytest.param(lambda p: os.chown(p, 65534, -1), "owned by uid 65534", id="other-owner"),
        pytest.param(lambda p: Path(p).write_bytes(b"\xffshort"), "6 bytes", id="short"),
        pytest.param(_symlink_in_place, "symbolic link", id="symlink"),
    ],
)
def test_a_key_that_cannot_be_trusted_is_moved_aside_and_its_journals_refused(
    tmp_path: Path, state_dir: Path, spoil: Callable[[str], object], problem: str
) -> None:
    if os.geteuid() != 0 and "owner" in problem:
        pytest.skip("only root can give a file to another user")
    root = tmp_path / "w"
    root.mkdir()
    path = written(root, JournalEntry("absent", f"{root}/a"))
    key = state.key_path()
    spoil(key)
    with pytest.raises(JournalRefused) as info:
        wal.read_journal(path)
    assert f"the key {key} cannot be trusted: " in info.value.reason
    assert problem in info.value.reason
    (aside,) = [n for n in os.listdir(state_dir) if n.startswith("key.refused-")]
    assert f"moved aside to {state_dir}/{aside}" in info.value.reason
    assert not os.path.lexists(key)
    with pytest.raises(JournalRefused, match="there is no key"):
        wal.read_journal(path)
    os.remove(path)
    again = written(root, JournalEntry("absent", f"{root}/b"))  # a new key is made
    assert [e.path for e in wal.read_journal(again).entries] == [f"{root}/b"]
    assert stat.S_IMODE(os.lstat(key).st_mode) == 0o600


def test_a_lock_file_that_is_a_symlink_is_moved_aside_not_followed(
    tmp_path: Path, state_dir: Path
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    target = tmp_path / "outside" / "created-by-the-lock"
    target.parent.mkdir()
    lock = wal.journal_path(str(root))[: -len(".journal")] + ".lock"
    os.makedirs(os.path.dirname(lock))
    os.symlink(target, lock)
    path = written(root, JournalEntry("absent", f"{root}/a"))
    assert not target.exists(), "the lock was not opened through the symlink"
    assert stat.S_ISREG(os.lstat(lock).st_mode)
    assert [n for n in os.listdir(os.path.dirname(lock)) if ".lock.refused-" in n]
    assert wal.read_journal(path).entries


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
