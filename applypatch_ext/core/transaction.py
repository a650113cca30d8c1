"""The ``atomic`` transaction option (ours; no peer has it): all of a patch, or nothing.

:class:`JournalingFilesystem` wraps the filesystem an attempt writes through. Before the first
change to a path it records how that path was: a file's bytes, a symlink's target, or that
nothing was there; and it records each directory it creates. A write is journaled at the file it
really changes (symlinks resolved), a removal at the entry it unlinks (a symlink itself).
:meth:`JournalingFilesystem.rollback` undoes everything in reverse order, so that after a
failure or a cancellation the tree is byte-identical to before, symlinks included. ``commit``
forgets the journal.

What it cannot put back it refuses to change: a FIFO, socket or device, and a symlink when the
filesystem cannot create symlinks (see :class:`~applypatch_ext.core.fs.SupportsSymlinks`). The
operation then fails before anything happened, and the attempt is rolled back.

The default stays ``none``: Codex semantics, no rollback, the committed prefix reported exactly.
"""

from __future__ import annotations

import contextlib
import posixpath
from dataclasses import dataclass
from enum import StrEnum

from .fs import FileMetadata, Filesystem, SupportsSymlinks, canonicalizer


class Transaction(StrEnum):
    NONE = "none"
    ATOMIC = "atomic"


@dataclass(frozen=True)
class _Saved:
    """How ``path`` was: a file's bytes, a symlink's target, or absent (both None)."""

    path: str
    data: bytes | None = None
    link: str | None = None


@dataclass(frozen=True)
class _CreatedDir:
    path: str


class UnrestorableError(OSError):
    """The journal cannot put this path back, so the change is not made."""

    def __init__(self, path: str, what: str) -> None:
        super().__init__(None, f"an atomic transaction cannot restore {what} at {path}", path)


class RollbackError(Exception):
    """Some paths could not be restored; ``failures`` names them with the OS error."""

    def __init__(self, failures: list[tuple[str, OSError]]) -> None:
        names = ", ".join(f"{path} ({exc.strerror})" for path, exc in failures)
        super().__init__(f"rollback could not restore: {names}")
        self.failures = failures


class JournalingFilesystem:
    """Records the previous state of everything it changes, to undo it on demand."""

    def __init__(self, inner: Filesystem) -> None:
        self.inner = inner
        self._journal: list[_Saved | _CreatedDir] = []
        self._seen: set[str] = set()
        resolve = canonicalizer(inner)
        self._resolve = resolve if resolve is not None else (lambda path: path)

    def _save(self, path: str, *, written: bool) -> None:
        """Record ``path`` before its first change.

        ``written``: the change is a write, and ``path`` was resolved already; if it is still a
        symlink (no resolver, or a loop), restoring the link would not restore what the write
        changed.
        """
        if path in self._seen:
            return
        try:
            kind = self.inner.metadata(path, follow_symlinks=False).kind
        except FileNotFoundError:
            saved = _Saved(path)
        else:
            if kind == "file":
                saved = _Saved(path, data=self.inner.read_bytes(path))
            elif kind == "symlink" and not written and isinstance(self.inner, SupportsSymlinks):
                saved = _Saved(path, link=self.inner.read_link(path))
            elif kind == "dir":
                return  # the change itself fails (EISDIR): nothing to record
            else:
                what = "a symlink" if kind == "symlink" else "a special file"
                raise UnrestorableError(path, what)
        self._seen.add(path)
        self._journal.append(saved)

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        # A write follows symlinks: what changes is the file at the end of them.
        real = self._resolve(path)
        fresh = real not in self._seen
        self._save(real, written=True)
        try:
            self.inner.write_bytes(path, data)
        except FileNotFoundError:
            # Nothing was written (a parent is missing; apply creates it and writes again).
            # Forget the entry, or undoing it would come after removing that parent.
            if fresh and real in self._seen:
                self._seen.discard(real)
                self._journal.pop()
            raise

    def create_dirs(self, path: str) -> None:
        missing: list[str] = []
        current = self._resolve(path)
        while current not in ("", "/"):
            try:
                self.inner.metadata(current)
                break
            except FileNotFoundError:
                missing.append(current)
                current = posixpath.dirname(current)
        self.inner.create_dirs(path)
        self._journal.extend(_CreatedDir(d) for d in reversed(missing))

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        # Unlinking changes the directory entry itself: resolve the parents only.
        parent, name = posixpath.split(path)
        self._save(posixpath.join(self._resolve(parent), name), written=False)
        self.inner.remove_file(path, move_source=move_source)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)

    @property
    def changed(self) -> bool:
        return bool(self._journal)

    def commit(self) -> None:
        self._journal.clear()
        self._seen.clear()

    def _restore(self, saved: _Saved) -> None:
        inner = self.inner
        if saved.data is not None:
            inner.write_bytes(saved.path, saved.data)
            return
        with contextlib.suppress(FileNotFoundError):
            inner.remove_file(saved.path)
        if saved.link is not None:
            assert isinstance(inner, SupportsSymlinks)
            inner.create_symlink(saved.link, saved.path)

    def rollback(self) -> None:
        """Undo every recorded change, newest first."""
        failures: list[tuple[str, OSError]] = []
        for entry in reversed(self._journal):
            try:
                if isinstance(entry, _CreatedDir):
                    self.inner.remove_dir(entry.path)
                else:
                    self._restore(entry)
            except OSError as exc:
                failures.append((entry.path, exc))
        self.commit()
        if failures:
            raise RollbackError(failures)

    def remove_dir(self, path: str) -> None:
        self.inner.remove_dir(path)
