"""The in-memory filesystem: a tree with Linux semantics behind the ``Filesystem`` boundary.

For tests, dry runs and the in-memory scenario runs: the same ``OSError`` kinds as the real disk
(:class:`~.fs.LocalFilesystem`), the same size limit, the same refusal to read anything but a
regular file, so one test runs against both.
"""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Iterator, Mapping

from .fs import (
    MAX_READ_BYTES,
    NAME_MAX,
    PATH_MAX,
    FileMetadata,
    FileTooLargeError,
    NotAFileError,
    check_path,
    normalize_path,
)


def _oserror(code: int, path: str) -> OSError:
    return OSError(code, os.strerror(code), path)


class MemoryFilesystem:
    """An in-memory tree with Linux semantics, for tests and dry runs.

    Nodes are files (bytes), directories, symlinks (absolute or relative targets) and "other"
    (a stand-in for FIFOs and devices, which cannot be read or written).
    """

    def __init__(self, files: Mapping[str, bytes | str] | None = None) -> None:
        self._files: dict[str, bytes] = {}
        self._dirs: set[str] = {"/"}
        self._links: dict[str, str] = {}
        self._others: set[str] = set()
        for path, data in (files or {}).items():
            self.add_file(path, data)

    # -- building and inspecting --------------------------------------------------------------

    def add_file(self, path: str, data: bytes | str) -> None:
        path = normalize_path(path)
        self.create_dirs(posixpath.dirname(path))
        self._files[path] = data.encode() if isinstance(data, str) else data

    def add_symlink(self, path: str, target: str) -> None:
        path = normalize_path(path)
        self.create_dirs(posixpath.dirname(path))
        self._links[path] = target

    def add_special(self, path: str) -> None:
        path = normalize_path(path)
        self.create_dirs(posixpath.dirname(path))
        self._others.add(path)

    def tree(self) -> dict[str, bytes | tuple[str, str] | None]:
        """Every path but the root: file bytes, None for a directory, ``("symlink", target)``
        for a link and ``("special", "")`` for a special file."""
        out: dict[str, bytes | tuple[str, str] | None] = dict.fromkeys(self._dirs - {"/"})
        out.update(self._files)
        out.update({p: ("symlink", t) for p, t in self._links.items()})
        out.update({p: ("special", "") for p in self._others})
        return dict(sorted(out.items()))

    def __iter__(self) -> Iterator[str]:
        return iter(self.tree())

    # -- resolution -----------------------------------------------------------------------------

    def _exists(self, path: str) -> bool:
        return (
            path in self._files or path in self._dirs or path in self._links or path in self._others
        )

    @staticmethod
    def _check_length(path: str) -> None:
        """ENAMETOOLONG where Linux raises it, so long paths fail alike in memory and on disk."""
        encoded = path.encode("utf-8", "surrogateescape")
        if len(encoded) >= PATH_MAX or any(len(p) > NAME_MAX for p in encoded.split(b"/")):
            raise _oserror(errno.ENAMETOOLONG, path)

    def _resolve(self, path: str, *, follow_last: bool) -> str:
        """Resolve symlinks in the parents (and the leaf if asked); raise like the OS."""
        check_path(path)
        self._check_length(path)
        path = normalize_path(path)
        for _ in range(40):
            parts = [p for p in path.split("/") if p]
            current = "/"
            restarted = False
            for i, part in enumerate(parts):
                candidate = posixpath.join(current, part)
                is_last = i == len(parts) - 1
                if candidate in self._links and (follow_last or not is_last):
                    target = self._links[candidate]
                    rest = "/".join(parts[i + 1 :])
                    base = target if target.startswith("/") else posixpath.join(current, target)
                    path = normalize_path(posixpath.join(base, rest) if rest else base)
                    restarted = True
                    break
                if not is_last:
                    if candidate in self._files or candidate in self._others:
                        raise _oserror(errno.ENOTDIR, path)
                    if candidate not in self._dirs:
                        raise _oserror(errno.ENOENT, path)
                current = candidate
            if not restarted:
                return path
        raise _oserror(errno.ELOOP, path)

    # -- the Filesystem protocol ----------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        real = self._resolve(path, follow_last=True)
        if real in self._files:
            data = self._files[real]
            if len(data) > MAX_READ_BYTES:
                raise FileTooLargeError()
            return data
        if real in self._dirs:
            raise _oserror(errno.EISDIR, path)
        if real in self._others:
            raise NotAFileError(path)
        raise _oserror(errno.ENOENT, path)

    def write_bytes(self, path: str, data: bytes) -> None:
        real = self._resolve(path, follow_last=True)
        if real in self._dirs:
            raise _oserror(errno.EISDIR, path)
        if real in self._others:
            raise _oserror(errno.EINVAL, path)
        if posixpath.dirname(real) not in self._dirs:
            raise _oserror(errno.ENOENT, path)
        self._files[real] = bytes(data)

    def create_dirs(self, path: str) -> None:
        check_path(path)
        self._check_length(path)
        current = "/"
        for part in [p for p in normalize_path(path).split("/") if p]:
            candidate = posixpath.join(current, part)
            if candidate in self._links:
                candidate = self._resolve(candidate, follow_last=True)
            if candidate in self._dirs:
                current = candidate
                continue
            if self._exists(candidate):
                last = candidate == self._resolve(path, follow_last=True)
                raise _oserror(errno.EEXIST if last else errno.ENOTDIR, path)
            self._dirs.add(candidate)
            current = candidate

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        real = self._resolve(path, follow_last=False)
        if real in self._dirs:
            raise _oserror(errno.EISDIR, path)
        for store in (self._files, self._links):
            if real in store:
                del store[real]
                return
        if real in self._others:
            self._others.discard(real)
            return
        raise _oserror(errno.ENOENT, path)

    def remove_dir(self, path: str) -> None:
        real = self._resolve(path, follow_last=False)
        if real not in self._dirs:
            raise _oserror(errno.ENOTDIR if self._exists(real) else errno.ENOENT, path)
        prefix = real.rstrip("/") + "/"
        if any(p.startswith(prefix) for p in self.tree()):
            raise _oserror(errno.ENOTEMPTY, path)
        self._dirs.discard(real)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        real = self._resolve(path, follow_last=follow_symlinks)
        if real in self._links:
            return FileMetadata("symlink", len(self._links[real]))
        if real in self._files:
            return FileMetadata("file", len(self._files[real]))
        if real in self._dirs:
            return FileMetadata("dir", 0)
        if real in self._others:
            return FileMetadata("other", 0)
        raise _oserror(errno.ENOENT, path)

    def read_link(self, path: str) -> str:
        real = self._resolve(path, follow_last=False)
        if real not in self._links:
            raise _oserror(errno.EINVAL if self._exists(real) else errno.ENOENT, path)
        return self._links[real]

    def create_symlink(self, target: str, path: str) -> None:
        real = self._resolve(path, follow_last=False)
        if self._exists(real):
            raise _oserror(errno.EEXIST, path)
        if posixpath.dirname(real) not in self._dirs:
            raise _oserror(errno.ENOENT, path)
        self._links[real] = target

    def canonical_path(self, path: str) -> str:
        """``path`` with the symlinks of its existing components resolved, the rest lexical.

        Like ``os.path.realpath``: a dangling link is replaced by its target, a missing
        component ends the resolution, a symlink loop leaves the path as far as it got.
        """
        check_path(path)
        path = normalize_path(path)
        for _ in range(40):
            parts = [p for p in path.split("/") if p]
            current = "/"
            for i, part in enumerate(parts):
                candidate = posixpath.join(current, part)
                if candidate in self._links:
                    target = self._links[candidate]
                    base = target if target.startswith("/") else posixpath.join(current, target)
                    path = normalize_path(posixpath.join(base, *parts[i + 1 :]))
                    break
                if candidate not in self._dirs:
                    return normalize_path(posixpath.join(candidate, *parts[i + 1 :]))
                current = candidate
            else:
                return path
        return path
