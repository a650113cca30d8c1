"""The filesystem boundary: every read and write of the pipeline goes through :class:`Filesystem`.

* :class:`LocalFilesystem` works on the real disk (paths are absolute; it follows symlinks for
  reads and writes like the reference, and reports them through :meth:`Filesystem.metadata`).
* :class:`~.memfs.MemoryFilesystem` (in :mod:`.memfs`) keeps a tree in memory (files,
  directories, symlinks, special files), raising the same ``OSError`` kinds as Linux, so the same
  tests run against both.

Both read only regular files (symlinks followed): a FIFO or a device is never read, so that a
FIFO without a writer cannot hang a call and ``/dev/zero`` cannot fill the memory up to the size
limit. Both also offer two optional capabilities that wrappers look up (:func:`canonicalizer`,
:class:`SupportsSymlinks`): resolving symlinks, and reading and creating symlinks, which only
an atomic transaction's rollback uses.

Also here: lexical path resolution (:func:`resolve_path`), done without touching the disk, and
the reference's read-size limit. Wrappers that inject faults or confine writes live elsewhere and
wrap one of these.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, runtime_checkable

from .. import errors
from ..errors import ErrorReason, IoError
from ..interrupts import deferred_interrupts
from ..text import Utf8DecodeError, decode_utf8, format_io_error

#: The reference refuses to read files larger than this (docs/behaviour.md §4).
MAX_READ_BYTES: Final = 512 * 1024 * 1024
#: Linux's limits in bytes: a path component (NAME_MAX), a whole path with its NUL (PATH_MAX).
NAME_MAX: Final = 255
PATH_MAX: Final = 4096

FileKind = Literal["file", "dir", "symlink", "other"]


class WriteRefused(PermissionError):
    """A filesystem view refused a change before anything reached the disk (the sandbox, the
    no-follow mode, a grant): what happened at the path is known, nothing. The runtime records
    the path as refused, so that a front end may keep the TurnDiff (``RefusedWrites.KEEP``)."""


class FileTooLargeError(OSError):
    """Rust's custom ``io::Error`` for the size limit; ``strerror`` is the reference's text."""

    def __init__(self) -> None:
        super().__init__(None, f"file is too large to read: limit is {MAX_READ_BYTES} bytes")


class NotAFileError(OSError):
    """Reading a FIFO, socket or device: refused, with the reference's words for such a path."""

    def __init__(self, path: str) -> None:
        super().__init__(None, f"path `{path}` is not a file")


class NulInPathError(OSError):
    """A path with a NUL byte; Rust's text for it."""

    def __init__(self) -> None:
        super().__init__(None, "file name contained an unexpected NUL byte")


class UnencodablePathError(OSError):
    """A path with a lone surrogate that has no byte form (an OSError, not a UnicodeError)."""

    def __init__(self) -> None:
        super().__init__(None, "file name contained a lone surrogate")


def normalize_path(path: str) -> str:
    """Lexically normalise an absolute POSIX path: drop ``.`` and empty segments, ``..`` pops.

    ``..`` never climbs above the root. Symlinks are not resolved (docs/behaviour.md §5.1).
    """
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def relative_path(path: str, cwd: str) -> str:
    """``path`` as a user reads it: relative to ``cwd`` when it is under it, else as given
    (the widget's ``relativePath`` too); ``cwd`` empty leaves it as given."""
    if not cwd:
        return path
    base = cwd if cwd.endswith(("/", "\\")) else cwd + "/"
    return path[len(base) :] if path.startswith(base) else path


def _encodable(path: str) -> bool:
    """Whether the OS can be given ``path``: lone surrogates other than the ones that stand for
    undecodable bytes (surrogateescape) have no byte form."""
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return False
    return True


def resolve_path(cwd: str, path: str) -> str:
    """The hunk path joined to ``cwd`` (an absolute path replaces it), lexically normalised.

    Raises :class:`~applypatch_ext.core.errors.InvalidPathError` for a path with a NUL byte, or
    with a lone surrogate that no file name can hold (only a Python caller can pass one: the
    reference's paths are Rust strings).
    """
    if "\0" in path or not _encodable(path):
        raise errors.InvalidPathError(path)
    return normalize_path(posixpath.join(cwd, path))


@dataclass(frozen=True, slots=True)
class FileMetadata:
    """What is at a path: its kind, its size, and how many names (hard links) it has."""

    kind: FileKind
    size: int
    links: int = 1


@runtime_checkable
class Filesystem(Protocol):
    """What the pipeline needs from a filesystem. Paths are absolute and normalised.

    Every method raises ``OSError`` (with ``errno`` set where the OS would set it).
    """

    def read_bytes(self, path: str) -> bytes:
        """The file's bytes, following symlinks; at most :data:`MAX_READ_BYTES`."""
        ...

    def write_bytes(self, path: str, data: bytes) -> None:
        """Create or truncate the file and write ``data`` (the parent must exist)."""
        ...

    def create_dirs(self, path: str) -> None:
        """Create the directory and its missing parents."""
        ...

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        """Unlink a file (a symlink itself, not its target).

        ``move_source`` says the removal completes a move, for fault injectors and views.
        """
        ...

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        """What is at ``path``; ``FileNotFoundError`` if nothing."""
        ...

    def remove_dir(self, path: str) -> None:
        """Remove an empty directory (only an atomic transaction's rollback does this)."""
        ...


@runtime_checkable
class SupportsCanonicalPath(Protocol):
    """Optional: resolve the symlinks of a path (``os.path.realpath`` semantics)."""

    def canonical_path(self, path: str) -> str: ...


@runtime_checkable
class SupportsSymlinks(Protocol):
    """Optional: read a symlink's target and create a symlink (an atomic rollback's needs)."""

    def read_link(self, path: str) -> str: ...

    def create_symlink(self, target: str, path: str) -> None: ...


@runtime_checkable
class SupportsModes(Protocol):
    """Optional: read and set a file's permission bits (an atomic rollback restores them)."""

    def file_mode(self, path: str) -> int:
        """The permission bits (``st_mode & 0o7777``) of ``path`` itself (not followed)."""
        ...

    def set_mode(self, path: str, mode: int) -> None: ...


def _underneath(fs: object, capability: type) -> Any:
    """``fs`` itself, or the filesystem it wraps (through ``inner``, as the fault, journal and
    sandbox views keep it), that has ``capability``; None when none has it."""
    seen: set[int] = set()
    while fs is not None and id(fs) not in seen:
        if isinstance(fs, capability):
            return fs
        seen.add(id(fs))
        fs = getattr(fs, "inner", None)
    return None


def canonicalizer(fs: object) -> Callable[[str], str] | None:
    """The ``canonical_path`` of ``fs`` or of the filesystem it wraps: those views pass paths
    through unchanged."""
    found: SupportsCanonicalPath | None = _underneath(fs, SupportsCanonicalPath)
    return None if found is None else found.canonical_path


def modes_of(fs: object) -> SupportsModes | None:
    """The filesystem under ``fs`` (itself or one it wraps) that reads and sets permission
    bits; None when none does (the modes are then unknown)."""
    found: SupportsModes | None = _underneath(fs, SupportsModes)
    return found


def link_reader(fs: object) -> Callable[[str], str] | None:
    """The ``read_link`` of ``fs`` or of the filesystem it wraps (reading a link's target
    changes nothing, so a view need not see it)."""
    found: SupportsSymlinks | None = _underneath(fs, SupportsSymlinks)
    return None if found is None else found.read_link


def check_path(path: str) -> None:
    if "\0" in path:
        raise NulInPathError()
    if not _encodable(path):
        raise UnencodablePathError()


def make_dirs(path: str) -> None:
    """``os.makedirs(path, exist_ok=True)`` without its recursion, one level per parent.

    ``os.makedirs`` recurses once per missing parent, so a path of a few thousand nested
    directories (still under PATH_MAX) raises ``RecursionError``; this walks up to the first
    existing ancestor, then creates the missing ones downwards. The errors are makedirs's: a
    component that is a file is ``FileExistsError``/``NotADirectoryError``, the leaf existing as
    a non-directory is ``FileExistsError``.
    """
    missing: list[str] = []
    current = path
    while True:
        try:
            os.stat(current)
        except FileNotFoundError:
            parent = os.path.dirname(current)
            missing.append(current)
            if parent == current:
                break
            current = parent
            continue
        except NotADirectoryError:
            # A parent is a file: let mkdir say so for the first missing level.
            missing.append(current)
            break
        break
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o777)
        except FileExistsError:
            # Created meanwhile (a race, like makedirs tolerates) or a file in the way.
            if not os.path.isdir(directory):
                raise
    if not missing and not os.path.isdir(path):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)


def real_path(path: str) -> str:
    """``os.path.realpath(path)`` (not strict) without its recursion.

    Python 3.11's realpath recurses once per symlink met while resolving a symlink's target,
    so a chain of a thousand links (``l1 -> l2 -> ...``) raises ``RecursionError``; this keeps
    the components still to resolve on a stack instead. Same results: an existing component
    that is a symlink is replaced by its resolved target, a missing one is kept as it is
    (``..`` after it pops it), and a loop leaves the path as far as it got, the rest joined
    lexically.
    """
    # The stack holds the components still to walk, next one last; ``None`` is followed by
    # the symlink whose target has just been walked, to record what it resolved to.
    stack: list[str | None] = list(reversed(path.split("/")))
    current = "/" if path.startswith("/") else os.getcwd()
    resolved: dict[str, str | None] = {}  # symlink -> its resolution (None: in progress)
    querying = True
    while stack:
        name = stack.pop()
        if name is None:
            link = stack.pop()
            assert link is not None
            resolved[link] = current
            continue
        if name in ("", "."):
            continue
        if name == "..":
            current = posixpath.dirname(current)
            continue
        candidate = posixpath.join(current, name)
        if not querying:
            current = candidate
            continue
        try:
            info = os.lstat(candidate)
        except OSError:  # missing (or unreadable): lexical, and the walk goes on
            current = candidate
            continue
        if not stat.S_ISLNK(info.st_mode):
            current = candidate
            continue
        if candidate in resolved:
            known = resolved[candidate]
            if known is not None:
                current = known
                continue
            querying = False  # a loop: the rest stays lexical
            current = candidate
            continue
        target = os.readlink(candidate)
        resolved[candidate] = None
        if target.startswith("/"):
            current = "/"
        stack.append(candidate)
        stack.append(None)
        stack.extend(reversed(target.split("/")))
    return normalize_path(current)


_KINDS: Final[dict[int, FileKind]] = {
    stat.S_IFREG: "file",
    stat.S_IFDIR: "dir",
    stat.S_IFLNK: "symlink",
}


class LocalFilesystem:
    """The real disk."""

    def read_bytes(self, path: str) -> bytes:
        check_path(path)
        # O_NONBLOCK so that opening a FIFO without a writer cannot hang the pipeline.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            info = os.fstat(fd)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
                # A device may never end (/dev/zero); the limit would only stop it at 512 MiB.
                raise NotAFileError(path)
            if info.st_size > MAX_READ_BYTES:
                raise FileTooLargeError()
            chunks: list[bytes] = []
            total = 0
            while True:
                chunk = os.read(fd, 1 << 20 if total else max(info.st_size + 1, 1 << 16))
                if not chunk:
                    break
                total += len(chunk)
                if total > MAX_READ_BYTES:
                    raise FileTooLargeError()
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def write_bytes(self, path: str, data: bytes) -> None:
        check_path(path)
        # An interrupt waits until the file is complete: never a truncated or half-written file.
        with deferred_interrupts():
            self._write_bytes(path, data)

    @staticmethod
    def _write_bytes(path: str, data: bytes) -> None:
        # Opened non-blocking, so that a FIFO without a reader fails (ENXIO) instead of hanging
        # the call (the reference blocks there); then blocking again for the write itself.
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(path, flags, 0o666)
        try:
            os.set_blocking(fd, True)
            handle = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        with handle:
            handle.write(data)

    def create_dirs(self, path: str) -> None:
        check_path(path)
        make_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        check_path(path)
        os.remove(path)

    def remove_dir(self, path: str) -> None:
        check_path(path)
        os.rmdir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        check_path(path)
        info = os.stat(path, follow_symlinks=follow_symlinks)
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "other")
        return FileMetadata(kind, info.st_size, info.st_nlink)

    def canonical_path(self, path: str) -> str:
        """``path`` with the symlinks of its existing components resolved, the rest lexical."""
        check_path(path)
        return real_path(path)

    def read_link(self, path: str) -> str:
        check_path(path)
        return os.readlink(path)

    def create_symlink(self, target: str, path: str) -> None:
        check_path(path)
        os.symlink(target, path)

    def file_mode(self, path: str) -> int:
        check_path(path)
        return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode)

    def set_mode(self, path: str, mode: int) -> None:
        check_path(path)
        os.chmod(path, mode)


def read_text(fs: Filesystem, path: str) -> str:
    """Read a file as strict UTF-8; ``OSError`` or :class:`Utf8DecodeError` on failure."""
    return decode_utf8(fs.read_bytes(path))


def read_file_to_update(fs: Filesystem, path: str) -> str:
    """Read the file an Update rewrites: it must be a regular file (symlinks followed)."""
    try:
        if fs.metadata(path).kind != "file":
            raise IoError(
                f"Failed to read file to update {path}: path `{path}` is not a file",
                reason=ErrorReason.NOT_A_FILE,
            )
        return read_text(fs, path)
    except (OSError, Utf8DecodeError) as exc:
        message = f"Failed to read file to update {path}: {format_io_error(exc)}"
        raise IoError(message, exc, ErrorReason.READ) from exc
