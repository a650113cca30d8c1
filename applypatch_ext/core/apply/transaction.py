"""The ``atomic`` transaction option (ours; no peer has it): all of a patch, or nothing.

:class:`JournalingFilesystem` wraps the filesystem an attempt writes through. Before the first
change to a path it records how that path was: a file's bytes and mode, a symlink's target, or
that nothing was there; and it records each directory it creates. A write is journaled at the
file it really changes (symlinks resolved), a removal at the entry it unlinks (a symlink itself).
:meth:`JournalingFilesystem.rollback` puts every changed path back, so that after a failure or a
cancellation the tree is byte-identical to before, modes and symlinks included; an interrupt
(SIGINT) arriving meanwhile waits until the rollback is complete. ``commit`` forgets the journal.

On the real disk the journal is also written ahead (:mod:`.journal`): :meth:`prepare` records,
before the attempt starts, every path its hunks can change (hunk paths, move destinations, the
missing parent directories) in one fsync'd file, so that a process killed in the middle leaves
what recovery (``core.turn.recovery``: ``python -m applypatch_ext recover``, and the next call
in that working directory) needs to restore the tree exactly, through :func:`restore`.
Restoring compares each path with its recorded state and changes only what differs, so it can
be interrupted and run again.

What it cannot put back it refuses to change: a FIFO, socket or device, and a symlink when the
filesystem cannot create symlinks (see :class:`~applypatch_ext.core.apply.fs.SupportsSymlinks`). The
operation then fails before anything happened, and the attempt is rolled back.

The default stays ``none``: Codex semantics, no rollback, the committed prefix reported exactly.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ..errors import ApplyPatchError
from ..interrupts import deferred_interrupts
from ..parse.model import AddFile, DeleteFile, Hunk, UpdateFile
from .fs import (
    FileMetadata,
    Filesystem,
    SupportsModes,
    SupportsSymlinks,
    canonicalizer,
    resolve_path,
)
from .journal import DiskJournal, JournalEntry


class Transaction(StrEnum):
    NONE = "none"
    ATOMIC = "atomic"


class UnrestorableError(OSError):
    """The journal cannot put this path back, so the change is not made."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(None, f"an atomic transaction cannot restore {what} at {path}", path)


class RollbackError(Exception):
    """Some paths could not be restored; ``failures`` names them with the OS error.

    ``journal``: the on-disk journal kept for ``recover`` to finish the job, if there is one.
    """

    def __init__(self, failures: list[tuple[str, OSError]], journal: str | None = None) -> None:
        names = ", ".join(f"{path} ({exc.strerror})" for path, exc in failures)
        message = f"rollback could not restore: {names}"
        if journal is not None:
            message += (
                f"; the journal is kept at {journal}: fix the cause and run "
                "`python -m applypatch_ext recover`"
            )
        super().__init__(message)
        self.failures = failures
        self.journal = journal


def _kind(fs: Filesystem, path: str) -> str | None:
    try:
        return fs.metadata(path, follow_symlinks=False).kind
    except (FileNotFoundError, NotADirectoryError):
        return None


def _same_file(fs: Filesystem, entry: JournalEntry) -> bool:
    try:
        if fs.read_bytes(entry.path) != entry.data:
            return False
        if entry.mode is not None and isinstance(fs, SupportsModes):
            return fs.file_mode(entry.path) == entry.mode
    except OSError:
        return False
    return True


def _put_back(fs: Filesystem, entry: JournalEntry) -> bool:
    """Make ``entry.path`` a file or symlink as recorded; False if it already is."""
    path = entry.path
    kind = _kind(fs, path)
    if entry.kind == "symlink":
        assert entry.target is not None
        linked = kind == "symlink" and isinstance(fs, SupportsSymlinks)
        if linked and fs.read_link(path) == entry.target:  # type: ignore[attr-defined]
            return False
    elif kind == "file" and _same_file(fs, entry):
        return False
    if kind == "dir":
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if kind is None:
        parent = posixpath.dirname(path)
        if _kind(fs, parent) is None:
            fs.create_dirs(parent)
    elif kind != "file" or entry.kind == "symlink":
        fs.remove_file(path)  # a symlink or special file now where the entry was something else
    if entry.kind == "symlink":
        assert entry.target is not None and isinstance(fs, SupportsSymlinks)
        fs.create_symlink(entry.target, path)
        return True
    assert entry.data is not None
    try:
        fs.write_bytes(path, entry.data)
    except PermissionError:
        if kind != "file" or not isinstance(fs, SupportsModes):
            raise
        fs.set_mode(path, 0o600)  # a read-only file the call made writable, or never touched
        fs.write_bytes(path, entry.data)
    if entry.mode is not None and isinstance(fs, SupportsModes):
        fs.set_mode(path, entry.mode)
    return True


@dataclass(frozen=True)
class Restored:
    """What restoring did: paths put back, paths removed (directories end in ``/``), failures."""

    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    failures: tuple[tuple[str, OSError], ...] = ()


def restore(fs: Filesystem, entries: Iterable[JournalEntry]) -> Restored:
    """Bring every journaled path back to its recorded state, changing only what differs.

    The first entry of a path is its state before the attempt. Order: the files and symlinks
    the attempt created where there was nothing (deepest first), the directories it created
    (deepest first), then the files and symlinks it changed or removed. Running it again does
    nothing more, so a restore that was interrupted can simply be run again.
    """
    first: dict[str, JournalEntry] = {}
    dirs: set[str] = set()
    for entry in entries:
        if entry.kind == "dir":
            dirs.add(entry.path)
        elif entry.path not in first:
            first[entry.path] = entry
    restored: list[str] = []
    removed: list[str] = []
    failures: list[tuple[str, OSError]] = []

    def depth(path: str) -> int:
        return path.count("/")

    absent = [p for p, e in first.items() if e.kind == "absent"]
    for path in sorted(absent, key=depth, reverse=True):
        try:
            kind = _kind(fs, path)
            if kind is not None and kind != "dir":
                fs.remove_file(path)
                removed.append(path)
        except OSError as exc:
            failures.append((path, exc))
    for path in sorted(dirs, key=depth, reverse=True):
        try:
            if _kind(fs, path) == "dir":
                fs.remove_dir(path)
                removed.append(path + "/")
        except OSError as exc:
            failures.append((path, exc))
    present = [e for e in first.values() if e.kind != "absent"]
    for entry in sorted(present, key=lambda e: depth(e.path)):
        try:
            if _put_back(fs, entry):
                restored.append(entry.path)
        except OSError as exc:
            failures.append((entry.path, exc))
    return Restored(tuple(restored), tuple(removed), tuple(failures))


class JournalingFilesystem:
    """Records the previous state of everything it changes, to undo it on demand.

    ``disk``: the write-ahead journal on disk (the pipeline passes one for the real disk);
    without it the journal lives in memory only.
    """

    def __init__(self, inner: Filesystem, disk: DiskJournal | None = None) -> None:
        self.inner = inner
        self.disk = disk
        self._entries: list[JournalEntry] = []
        self._seen: set[str] = set()
        self._dirs: set[str] = set()
        self._touched: set[str] = set()  # paths whose change has started
        self._started = False
        resolve = canonicalizer(inner)
        self._resolve = resolve if resolve is not None else (lambda path: path)

    def _state(self, path: str, *, written: bool) -> JournalEntry | None:
        """How ``path`` is now; None for a directory (its change fails: nothing to record).

        ``written``: the change is a write, and ``path`` was resolved already; if it is still a
        symlink (no resolver, or a loop), restoring the link would not restore what the write
        changed.
        """
        inner = self.inner
        try:
            kind = inner.metadata(path, follow_symlinks=False).kind
        except (FileNotFoundError, NotADirectoryError):
            return JournalEntry("absent", path)
        if kind == "file":
            mode = inner.file_mode(path) if isinstance(inner, SupportsModes) else None
            return JournalEntry("file", path, data=inner.read_bytes(path), mode=mode)
        if kind == "symlink" and not written and isinstance(inner, SupportsSymlinks):
            return JournalEntry("symlink", path, target=inner.read_link(path))
        if kind == "dir":
            return None
        what = "a symlink" if kind == "symlink" else "a special file"
        raise UnrestorableError(path, what)

    def _record(self, entries: Sequence[JournalEntry]) -> None:
        if self._started and self.disk is not None and entries:
            self.disk.append(entries)  # on disk before the change it covers
        for entry in entries:
            if entry.kind == "dir":
                self._dirs.add(entry.path)
            else:
                self._seen.add(entry.path)
            self._entries.append(entry)

    def _save(self, path: str, *, written: bool) -> None:
        """Record ``path`` before its first change (unless recorded already) and mark it."""
        if path not in self._seen:
            entry = self._state(path, written=written)
            if entry is None:
                return
            self._record([entry])
        self._touched.add(path)

    def prepare(self, hunks: Sequence[Hunk], cwd: str) -> None:
        """Record, before anything changes, every path the hunks can change, and write the
        on-disk journal (one file, fsync'd) if there is one.

        A path whose state cannot be recorded is left out: its change, if it comes, records it
        then (or is refused). Raises :class:`~.journal.JournalError` when the journal cannot be
        written; then nothing has been changed.
        """
        writes: list[str] = []
        removals: list[str] = []
        for hunk in hunks:
            try:
                if isinstance(hunk, AddFile):
                    writes.append(resolve_path(cwd, hunk.path))
                elif isinstance(hunk, DeleteFile):
                    removals.append(resolve_path(cwd, hunk.path))
                elif isinstance(hunk, UpdateFile):
                    source = resolve_path(cwd, hunk.path)
                    if hunk.move_path is None:
                        writes.append(source)
                    else:
                        writes.append(resolve_path(cwd, hunk.move_path))
                        removals.append(source)
            except ApplyPatchError:
                continue  # a path no file can have: verification refuses it
        entries: list[JournalEntry] = []
        existing: set[str] = set()
        dirs: list[str] = []

        def note(path: str, *, written: bool) -> None:
            if path in self._seen:
                return
            try:
                entry = self._state(path, written=written)
            except OSError:
                return
            if entry is not None:
                self._seen.add(path)
                entries.append(entry)

        for path in writes:
            try:
                real = self._resolve(path)
            except OSError:
                continue
            note(real, written=True)
            parent = posixpath.dirname(real)
            while parent not in ("", "/") and parent not in existing and parent not in self._dirs:
                if _kind(self.inner, parent) is not None:
                    existing.add(parent)
                    break
                self._dirs.add(parent)
                dirs.append(parent)
                parent = posixpath.dirname(parent)
        for path in removals:
            parent, name = posixpath.split(path)
            try:
                note(posixpath.join(self._resolve(parent), name), written=False)
            except OSError:
                continue
        entries.extend(JournalEntry("dir", d) for d in dirs)
        self._entries.extend(entries)
        if self.disk is not None:
            self.disk.start(self._entries)
            self._started = True

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        # A write follows symlinks: what changes is the file at the end of them.
        self._save(self._resolve(path), written=True)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        missing: list[str] = []
        current = self._resolve(path)
        while current not in ("", "/"):
            if _kind(self.inner, current) is not None:
                break
            missing.append(current)
            current = posixpath.dirname(current)
        self._record([JournalEntry("dir", d) for d in missing if d not in self._dirs])
        self._touched.update(missing)
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        # Unlinking changes the directory entry itself: resolve the parents only.
        parent, name = posixpath.split(path)
        self._save(posixpath.join(self._resolve(parent), name), written=False)
        self.inner.remove_file(path, move_source=move_source)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)

    @property
    def changed(self) -> bool:
        return bool(self._touched)

    @property
    def entries(self) -> tuple[JournalEntry, ...]:
        """Every recorded prior state, in the order recorded (what :func:`restore` takes)."""
        return tuple(self._entries)

    @property
    def journal_path(self) -> str | None:
        """The on-disk journal while the attempt runs (None in memory only)."""
        return self.disk.path if self.disk is not None and self._started else None

    def _forget(self) -> None:
        self._entries.clear()
        self._seen.clear()
        self._dirs.clear()
        self._touched.clear()
        self._started = False

    def commit(self) -> None:
        """Keep the changes: forget the journal (and remove it from disk)."""
        started = self._started
        self._forget()
        if started and self.disk is not None:
            self.disk.finish(remove=True)

    def rollback(self) -> None:
        """Put every changed path back; SIGINT waits until this is done.

        Raises :class:`RollbackError` when some path could not be restored; the on-disk
        journal is then kept, for ``recover`` to finish once the cause is fixed.
        """
        with deferred_interrupts():
            touched = self._touched
            entries = [e for e in self._entries if e.path in touched]
            result = restore(self.inner, entries)
            started = self._started
            kept = None
            if started and self.disk is not None:
                if result.failures:
                    kept = self.disk.path
                self.disk.finish(remove=not result.failures)
            self._forget()
        if result.failures:
            raise RollbackError(list(result.failures), kept)

    def remove_dir(self, path: str) -> None:
        self.inner.remove_dir(path)
