"""The on-disk write-ahead journal of an atomic transaction (``--transaction atomic``).

Before an atomic attempt changes anything, :class:`DiskJournal` writes how every path it may
change was (a file's bytes and mode, a symlink's target, nothing there, a directory it may create)
into one file, written to a temporary name, fsync'd, renamed into place, and its directory
fsync'd: one file and two fsyncs for the whole attempt, however many paths it has. A path the
prediction missed is appended (and fsync'd) before its change. When the attempt ends, committed
or rolled back, the journal is removed. So a journal on disk means an atomic call did not finish
(the process was killed, the machine stopped): :func:`~.transaction.recover` puts the tree back.

Where journals live: ``$APPLYPATCH_STATE_DIR`` if set, else ``$XDG_STATE_HOME/applypatch_ext``,
else ``~/.local/state/applypatch_ext``; in its ``journals`` folder (mode 0700), one journal per
working directory, named by the SHA-256 of the directory's real path. Never in the working tree,
so a journal shows neither in a TurnDiff nor in ``git status``.

A ``.lock`` file beside each journal is held (``flock``) by the process whose attempt the
journal belongs to, from before the journal is written until it is removed: the kernel drops the
lock when that process dies, so a journal whose lock can be taken belongs to a dead process, and
one whose lock is held belongs to a call still running (never recovered from under it).
Under Pyodide (``sys.platform == "emscripten"``: a browser's Python, JupyterLite's kernel) there
is no ``flock`` and no other process: the one process there is holds the lock in its memory
(:data:`LOCKING`), which keeps a journal in use by a running call (say, one suspended on an
approval) from being recovered, as ``flock`` does. Elsewhere, without ``flock``, an atomic call
fails before it changes anything, saying why.

The file is JSON lines: a header (format, version, working directory, call id, pid, time), then
one entry per path. Bytes are base64. A last line cut short by a crash is ignored: its change had
not started (an entry is on disk before the change it covers).
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import errno
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

STATE_DIR_ENV: Final = "APPLYPATCH_STATE_DIR"
FORMAT: Final = "applypatch_ext-journal"
VERSION: Final = 1

EntryKind = Literal["file", "symlink", "absent", "dir"]


@dataclass(frozen=True)
class JournalEntry:
    """How ``path`` was before the attempt.

    ``file``: a regular file with ``data`` and ``mode``; ``symlink``: a link to ``target``;
    ``absent``: nothing; ``dir``: nothing either, and the attempt may create a directory there.
    """

    kind: EntryKind
    path: str
    data: bytes | None = None
    mode: int | None = None
    target: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": self.path}
        if self.data is not None:
            out["data"] = base64.b64encode(self.data).decode("ascii")
        if self.mode is not None:
            out["mode"] = self.mode
        if self.target is not None:
            out["target"] = self.target
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> JournalEntry:
        kind = obj["kind"]
        if kind not in ("file", "symlink", "absent", "dir") or not isinstance(obj["path"], str):
            raise ValueError(f"unknown journal entry {obj!r}")
        data = obj.get("data")
        return cls(
            kind,
            obj["path"],
            None if data is None else base64.b64decode(data, validate=True),
            obj.get("mode"),
            obj.get("target"),
        )


class JournalError(OSError):
    """The journal could not be written or read; the message says which file and why."""


class JournalBusy(JournalError):
    """Another call, still running, holds the journal of this working directory."""


def state_dir() -> str:
    """Where applypatch_ext keeps its state (see the module docstring)."""
    explicit = os.environ.get(STATE_DIR_ENV)
    if explicit:
        return os.path.abspath(explicit)
    xdg = os.environ.get("XDG_STATE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.expanduser("~/.local/state")
    return os.path.join(base, "applypatch_ext")


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


def _line(obj: dict[str, Any]) -> bytes:
    # ensure_ascii keeps lone surrogates (undecodable file name bytes) as \udcXX escapes.
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode("ascii")


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

    def acquire(self) -> bool:
        """Take the lock without waiting; False when another open file (or call) holds it."""
        if LOCKING == "none":
            raise _no_locking(self.path)
        if LOCKING == "process" and self.path in _HELD:
            return False
        os.makedirs(os.path.dirname(self.path), mode=0o700, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
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
    with contextlib.suppress(OSError, ValueError, JournalError):
        header, _entries = read_journal(journal)
        holder = f" (call {header.get('call_id')}, pid {header.get('pid')})"
    return JournalBusy(
        errno.EBUSY,
        f"an atomic apply_patch call is still running in {cwd}{holder}: its journal {journal} "
        "is in use; wait until it ends",
    )


class DiskJournal:
    """The write-ahead journal of one atomic attempt in ``cwd`` (see the module docstring).

    ``fail_write``: called after part of the journal is written, to simulate a failing disk
    (the ``journal:enospc`` fault); it raises the ``OSError``.
    """

    def __init__(
        self, cwd: str, call_id: str, *, fail_write: Callable[[], None] | None = None
    ) -> None:
        self.cwd = os.path.realpath(cwd)
        self.call_id = call_id
        self.path = journal_path(cwd)
        self.fail_write = fail_write
        self._lock = _Lock(self.path)
        self._fd: int | None = None

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
        header = {
            "format": FORMAT,
            "version": VERSION,
            "cwd": self.cwd,
            "call_id": self.call_id,
            "pid": os.getpid(),
            "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        body = b"".join([_line(header), *(_line(e.to_json()) for e in entries)])
        temp = f"{self.path}.{os.getpid()}.tmp"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            try:
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
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.remove(temp)
            with contextlib.suppress(OSError):
                os.remove(self.path)
            self._lock.release()
            if isinstance(exc, OSError):
                raise self._error("cannot write", exc) from exc
            raise

    def append(self, entries: Iterable[JournalEntry]) -> None:
        """Add entries the prediction missed; on disk (fsync'd) before their change is made."""
        if self._fd is None:
            return
        data = b"".join(_line(e.to_json()) for e in entries)
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


def read_journal(path: str) -> tuple[dict[str, Any], list[JournalEntry]]:
    """The header and the entries of a journal file; a torn last line is dropped."""
    with open(path, "rb") as handle:
        lines = handle.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    else:
        lines = lines[:-1]  # the last line has no newline: cut short while appended
    if not lines:
        raise JournalError(errno.EINVAL, f"the journal {path} is empty")
    try:
        header = json.loads(lines[0])
        if header.get("format") != FORMAT or header.get("version") != VERSION:
            raise ValueError("not a journal of this version")
        entries = [JournalEntry.from_json(json.loads(line)) for line in lines[1:]]
    except (ValueError, KeyError, TypeError) as exc:
        raise JournalError(errno.EINVAL, f"the journal {path} cannot be read: {exc}") from exc
    return header, entries


@contextlib.contextmanager
def locked(cwd: str) -> Any:
    """Hold ``cwd``'s journal lock (to recover); :class:`JournalBusy` if a running call has it."""
    path = journal_path(cwd)
    lock = _Lock(path)
    if not lock.acquire():
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
