"""The on-disk write-ahead journal of an atomic transaction (``--transaction atomic``).

Before an atomic attempt changes anything, :class:`DiskJournal` writes how every path it may
change was (a file's bytes and mode, a symlink's target, nothing there, a directory it may create)
into one file, written to a temporary name, fsync'd, renamed into place, and its directory
fsync'd: one file and two fsyncs for the whole attempt, however many paths it has. A path the
prediction missed is appended (and fsync'd) before its change. When the attempt ends, committed
or rolled back, the journal is removed. So a journal on disk means an atomic call did not finish
(the process was killed, the machine stopped): recovery (``core.turn.recovery``) puts the tree
back.

Where journals live: the ``journals`` folder (mode 0700) of the state folder
(:mod:`.state`), one journal per working directory, named by the SHA-256 of the directory's real
path. Never in the working tree, so a journal shows neither in a TurnDiff nor in ``git status``;
and no patch may write there (the sandbox policy's carve-out).

A journal is acted on only if this program wrote it (its lines are signed, see
:mod:`.journal_format`). :func:`read_journal` checks, before it uses any entry: the file is a
regular file of this process's user, mode 0600 (not a symlink, a directory, a FIFO), the key can
be trusted, every signature matches, and every field has its type and range. A journal that
fails any check raises :class:`JournalRefused`, naming the file and what is wrong; recovery then
moves it aside, never uses it.

A ``.lock`` file beside each journal is held (``flock``) by the process whose attempt the
journal belongs to, from before the journal is written until it is removed: the kernel drops the
lock when that process dies, so a journal whose lock can be taken belongs to a dead process, and
one whose lock is held belongs to a call still running (never recovered from under it).
Under Pyodide (``sys.platform == "emscripten"``: a browser's Python, JupyterLite's kernel) there
is no ``flock`` and no other process: the one process there is holds the lock in its memory
(:data:`LOCKING`), which keeps a journal in use by a running call (say, one suspended on an
approval) from being recovered, as ``flock`` does. Elsewhere, without ``flock``, an atomic call
fails before it changes anything, saying why.

A last line cut short by a crash (no newline) is ignored: its change had not started (an entry
is on disk before the change it covers).
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import hashlib
import os
import secrets
import stat
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from .journal_format import (
    CALL_ID_MAX,
    FORMAT,
    VERSION,
    Journal,
    JournalBusy,
    JournalEntry,
    JournalError,
    JournalRefused,
    Signer,
    read_checked,
)
from .state import (
    STATE_DIR_ENV,
    UntrustedFile,
    check_private_file,
    journal_key,
    move_aside,
    state_dir,
    user_id,
)

__all__ = [
    "STATE_DIR_ENV",
    "DiskJournal",
    "Journal",
    "JournalBusy",
    "JournalEntry",
    "JournalError",
    "JournalRefused",
    "journal_dir",
    "journal_path",
    "locked",
    "move_aside",
    "pending",
    "read_journal",
    "remove_journal",
    "state_dir",
]


def journal_dir() -> str:
    return os.path.join(state_dir(), "journals")


def journal_path(cwd: str) -> str:
    """The journal file of the working directory ``cwd`` (keyed by its real path)."""
    real = os.path.realpath(cwd)
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:32]
    return os.path.join(journal_dir(), key + ".journal")


def pending(cwd: str) -> str | None:
    """The path of ``cwd``'s journal if there is one (one ``stat``), else None."""
    path = journal_path(cwd)
    return path if os.path.lexists(path) else None


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _find_flock() -> Callable[[int], None] | None:
    """``flock(fd, LOCK_EX | LOCK_NB)`` where the OS has it; else None.

    Pyodide's standard library has no ``fcntl``, and the JupyterLite kernel puts an empty module
    of that name in ``sys.modules`` (so ``import fcntl`` succeeds there and ``fcntl.flock`` does
    not exist): what counts is the function, not the import.
    """
    try:
        from fcntl import LOCK_EX, LOCK_NB, flock
    except ImportError:
        return None
    return lambda fd: flock(fd, LOCK_EX | LOCK_NB)


_FLOCK: Final = _find_flock()
#: How a journal's lock is held on this platform, decided once at import: ``flock`` (the OS
#: drops it when the holder dies), ``process`` (Emscripten: one process, the lock is a set in
#: its memory), or ``none`` (an atomic call fails, see :func:`_no_locking`).
LOCKING: Final[Literal["flock", "process", "none"]] = (
    "flock" if _FLOCK is not None else "process" if sys.platform == "emscripten" else "none"
)
# The locks this process holds (``process`` locking): the paths of their ``.lock`` files.
_HELD: set[str] = set()
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)


def _no_locking(path: str) -> JournalError:
    return JournalError(
        errno.ENOTSUP,
        f"cannot lock the atomic transaction's journal {path}: this platform ({sys.platform}) has "
        "no flock(2), which tells the journal of a running call from a dead one's; nothing was "
        "changed (--transaction none works here: no journal, no rollback)",
    )


class _Lock:
    """The lock beside a journal (its ``.lock`` file); held by the process whose attempt the
    journal covers: ``flock`` on that file, or, under Emscripten, an entry in :data:`_HELD`."""

    def __init__(self, journal: str) -> None:
        self.path = journal[: -len(".journal")] + ".lock"
        self.fd: int | None = None

    def _open(self) -> int:
        """The lock file, never through a symlink; one that is not a regular file (a symlink, a
        directory, a FIFO: no running call can hold it) is moved aside and made again."""
        flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags, 0o600)
        except OSError:
            if stat.S_ISREG(os.lstat(self.path).st_mode):
                raise
        else:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                return fd
            os.close(fd)
        move_aside(self.path)
        return os.open(self.path, flags | os.O_EXCL, 0o600)

    def acquire(self) -> bool:
        """Take the lock without waiting; False when another open file (or call) holds it."""
        if LOCKING == "none":
            raise _no_locking(self.path)
        if LOCKING == "process" and self.path in _HELD:
            return False
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        fd = self._open()
        try:
            if _FLOCK is not None:
                _FLOCK(fd)
            else:
                _HELD.add(self.path)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            _HELD.discard(self.path)
            os.close(fd)  # closing drops the flock


def _busy(cwd: str, journal: str) -> JournalBusy:
    holder = ""
    with contextlib.suppress(OSError):
        header = read_journal(journal).header
        holder = f" (call {header['call_id']}, pid {header['pid']})"
    return JournalBusy(
        errno.EBUSY,
        f"an atomic apply_patch call is still running in {cwd}{holder}: its journal {journal} "
        "is in use; wait until it ends",
    )


class DiskJournal:
    """The write-ahead journal of one atomic attempt in ``cwd`` (see the module docstring).

    ``confinement``: what the attempt can write, as the pipeline records it for recovery (JSON;
    None: nothing recorded). ``fail_write``: called after part of the journal is written, to
    simulate a failing disk (the ``journal:enospc`` fault); it raises the ``OSError``.
    """

    def __init__(
        self,
        cwd: str,
        call_id: str,
        *,
        confinement: Mapping[str, Any] | None = None,
        fail_write: Callable[[], None] | None = None,
    ) -> None:
        self.cwd = os.path.realpath(cwd)
        self.call_id = call_id
        self.confinement = confinement
        self.path = journal_path(cwd)
        self.fail_write = fail_write
        self._lock = _Lock(self.path)
        self._fd: int | None = None
        self._signer: Signer | None = None

    def start(self, entries: Sequence[JournalEntry]) -> None:
        """Lock, write every entry in one file, fsync it, rename it into place, fsync the folder.

        Raises :class:`JournalError` (nothing is changed, nothing is left behind), or
        :class:`JournalBusy` when another running call holds this working directory's journal.
        """
        directory = os.path.dirname(self.path)
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            if not self._lock.acquire():
                raise _busy(self.cwd, self.path)
        except JournalError:
            raise
        except OSError as exc:
            raise self._error("cannot lock", exc) from exc
        if os.path.lexists(self.path):
            # The journal of a dead process not recovered yet (the pipeline recovers first).
            self._lock.release()
            raise JournalError(
                errno.EEXIST,
                f"the journal {self.path} of an unfinished atomic call in {self.cwd} is still "
                f"there: run `python -m applypatch_ext recover --cwd {self.cwd}` first",
            )
        _remove_temporaries(self.path)  # of a writer killed before its rename: nothing changed
        temp = f"{self.path}.{os.getpid()}.tmp"
        try:
            key, _note = journal_key(create=True)
            assert key is not None
            signer = Signer(key)
            body = b"".join(
                [
                    signer.line(self._header(len(entries))),
                    signer.line({"confinement": self.confinement}),
                    *(signer.line(e.to_json()) for e in entries),
                ]
            )
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | os.O_CLOEXEC
            fd = os.open(temp, flags, 0o600)
            try:
                os.fchmod(fd, 0o600)  # whatever the umask: the reader checks it
                half = len(body) // 2
                _write_all(fd, body[:half])
                if self.fail_write is not None:
                    self.fail_write()
                _write_all(fd, body[half:])
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, self.path)
            _fsync_dir(directory)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | _NOFOLLOW | os.O_CLOEXEC)
            self._signer = signer
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.remove(temp)
            with contextlib.suppress(OSError):
                os.remove(self.path)
            self._lock.release()
            if isinstance(exc, OSError):
                raise self._error("cannot write", exc) from exc
            raise

    def _header(self, entries: int) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "cwd": self.cwd,
            "call_id": self.call_id[:CALL_ID_MAX],
            "pid": os.getpid(),
            "uid": user_id(),
            "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "nonce": secrets.token_hex(16),
            "entries": entries,  # written at once: a journal with fewer was cut short
        }

    def append(self, entries: Iterable[JournalEntry]) -> None:
        """Add entries the prediction missed; on disk (fsync'd) before their change is made."""
        if self._fd is None or self._signer is None:
            return
        data = b"".join(self._signer.line(e.to_json()) for e in entries)
        try:
            _write_all(self._fd, data)
            os.fsync(self._fd)
        except OSError as exc:
            raise self._error("cannot write", exc) from exc

    def finish(self, *, remove: bool = True) -> None:
        """End of the attempt: remove the journal (durably), or keep it for ``recover``."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
        self._signer = None
        try:
            if remove:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(self.path)
                _fsync_dir(os.path.dirname(self.path))
        finally:
            self._lock.release()

    def _error(self, what: str, exc: OSError) -> JournalError:
        reason = exc.strerror or str(exc)
        return JournalError(
            exc.errno,
            f"{what} the atomic transaction's journal {self.path}: {reason}; "
            f"nothing was changed (set {STATE_DIR_ENV} to keep journals elsewhere)",
        )


def read_journal(path: str) -> Journal:
    """The journal at ``path``, checked (see the module docstring): a torn last line is dropped.

    ``FileNotFoundError`` if there is none; :class:`JournalRefused` if it must not be used;
    another ``OSError`` if it cannot be read.
    """
    try:
        info = os.lstat(path)
        check_private_file(info, "a journal")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | os.O_CLOEXEC)
    except UntrustedFile as exc:
        reason = str(exc)
        with contextlib.suppress(OSError):
            reason += f" (to {os.readlink(path)})"
        raise JournalRefused(path, reason) from None
    with os.fdopen(fd, "rb") as handle:
        now = os.fstat(handle.fileno())
        if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            raise JournalRefused(path, "it was replaced while it was opened")
        try:
            return read_checked(handle, path)
        except ValueError as exc:
            raise JournalRefused(path, str(exc)) from None
        except MemoryError:
            raise JournalRefused(path, "it does not fit in memory") from None


@contextlib.contextmanager
def locked(cwd: str) -> Any:
    """Hold ``cwd``'s journal lock (to recover); :class:`JournalBusy` if a running call has it,
    :class:`JournalError` if it cannot be taken."""
    path = journal_path(cwd)
    lock = _Lock(path)
    try:
        acquired = lock.acquire()
    except JournalError:
        raise
    except OSError as exc:
        raise JournalError(
            exc.errno, f"cannot lock the journal {path}: {exc.strerror or exc}"
        ) from exc
    if not acquired:
        raise _busy(os.path.realpath(cwd), path)
    try:
        yield path
    finally:
        lock.release()


def _remove_temporaries(path: str) -> None:
    """Remove the temporary files of ``path``'s writers (call with its lock held)."""
    directory = os.path.dirname(path)
    prefix = os.path.basename(path) + "."
    with contextlib.suppress(OSError):
        for name in os.listdir(directory):
            if name.startswith(prefix) and name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(directory, name))


def remove_journal(path: str) -> None:
    """Remove a recovered journal, durably, and any temporary file a crash left beside it."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
    _remove_temporaries(path)
    _fsync_dir(os.path.dirname(path))
