"""The ``atomic`` transaction option (ours; no peer has it): all of a patch, or nothing.

:class:`JournalingFilesystem` wraps the filesystem an attempt writes through. Before the first
change to a path it records how that path was (its bytes, or that it was absent) and which
directories it had to create. :meth:`JournalingFilesystem.rollback` puts every recorded path
back, newest first, and removes the directories it created, so that after a failure or a
cancellation the tree is byte-identical to before. ``commit`` forgets the journal.

The default stays ``none``: Codex semantics, no rollback, the committed prefix reported exactly.
"""

from __future__ import annotations

import contextlib
import posixpath
from dataclasses import dataclass
from enum import StrEnum

from .fs import FileMetadata, Filesystem


class Transaction(StrEnum):
    NONE = "none"
    ATOMIC = "atomic"


@dataclass(frozen=True)
class _Saved:
    path: str
    data: bytes | None  # None: the path did not exist


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
        self._saved: list[_Saved] = []
        self._seen: set[str] = set()
        self._created_dirs: list[str] = []

    def _save(self, path: str) -> None:
        if path in self._seen:
            return
        self._seen.add(path)
        try:
            data: bytes | None = self.inner.read_bytes(path)
        except FileNotFoundError:
            data = None
        self._saved.append(_Saved(path, data))

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        self._save(path)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        missing: list[str] = []
        current = path
        while current not in ("", "/"):
            try:
                self.inner.metadata(current)
                break
            except FileNotFoundError:
                missing.append(current)
                current = posixpath.dirname(current)
        self.inner.create_dirs(path)
        self._created_dirs.extend(reversed(missing))

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._save(path)
        self.inner.remove_file(path, move_source=move_source)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)

    @property
    def changed(self) -> bool:
        return bool(self._saved or self._created_dirs)

    def commit(self) -> None:
        self._saved.clear()
        self._seen.clear()
        self._created_dirs.clear()

    def rollback(self) -> None:
        """Restore every saved path (newest first) and remove the directories created."""
        failures: list[tuple[str, OSError]] = []
        for saved in reversed(self._saved):
            try:
                if saved.data is None:
                    with contextlib.suppress(FileNotFoundError):
                        self.inner.remove_file(saved.path)
                else:
                    self.inner.write_bytes(saved.path, saved.data)
            except OSError as exc:
                failures.append((saved.path, exc))
        for directory in reversed(self._created_dirs):
            try:
                self.inner.remove_dir(directory)
            except OSError as exc:
                failures.append((directory, exc))
        self.commit()
        if failures:
            raise RollbackError(failures)

    def remove_dir(self, path: str) -> None:
        self.inner.remove_dir(path)
