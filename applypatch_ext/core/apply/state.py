"""applypatch_ext's state folder: where it is, the key that signs its journals, and the checks a
file there must pass before it is trusted.

Where: ``$APPLYPATCH_STATE_DIR`` if set, else ``$XDG_STATE_HOME/applypatch_ext``, else
``~/.local/state/applypatch_ext`` (:func:`state_dir`). Every one of those places is a folder no
patch may write (:func:`state_folders`, the carve-out the sandbox policy applies), whichever of
them the current environment picks: a process started with another environment looks in another
one, and must not find something a patch left there.

The key (``key`` in the state folder) signs every line of a journal (HMAC-SHA256, see
:mod:`.journal`), so that a journal is acted on only if this program wrote it. It is 32 random
bytes after a fixed prefix that is not UTF-8, so a patch can never read it as text
(verification refuses a file that is not UTF-8, whatever path leads to it). It is created once,
atomically: written to a temporary file (mode 0600, fsync'd), then hard-linked to its name,
which fails if another process made one first (then that one is used). It is trusted only when
it is a regular file of this process's user, mode 0600 or stricter, of the exact size and
prefix; one that is not is moved aside (:func:`move_aside`) and a new one is made, so the
journals it signed are refused.
Under Pyodide (JupyterLite) the state folder is in the kernel's memory: the key lives and dies
with the kernel, as its journals do.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import os
import secrets
import stat
from typing import Final

from .fs import normalize_path

STATE_DIR_ENV: Final = "APPLYPATCH_STATE_DIR"
KEY_NAME: Final = "key"
#: What a key file starts with: ``\xff`` is never UTF-8, so no patch reads the key as text.
KEY_PREFIX: Final = b"\xffapplypatch_ext journal key 1\n"
KEY_BYTES: Final = 32
#: How a file moved aside is renamed: ``NAME.refused-YYYYmmddTHHMMSSZ-PID[-N]``, beside it.
REFUSED_MARK: Final = ".refused-"


def state_dir() -> str:
    """Where applypatch_ext keeps its state now (see the module docstring)."""
    explicit = os.environ.get(STATE_DIR_ENV)
    if explicit:
        return os.path.abspath(explicit)
    xdg = os.environ.get("XDG_STATE_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.expanduser("~/.local/state")
    return os.path.join(base, "applypatch_ext")


def state_folders() -> tuple[str, ...]:
    """Every folder the state may be in under the current environment, normalised: the one
    :func:`state_dir` picks and the ones it would pick without ``$APPLYPATCH_STATE_DIR`` or
    ``$XDG_STATE_HOME``. No patch may write in any of them."""
    folders = [state_dir()]
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and os.path.isabs(xdg):
        folders.append(os.path.join(xdg, "applypatch_ext"))
    home = os.path.expanduser("~")
    if os.path.isabs(home):
        folders.append(os.path.join(home, ".local", "state", "applypatch_ext"))
    return tuple(dict.fromkeys(normalize_path(os.path.abspath(f)) for f in folders))


def key_path() -> str:
    return os.path.join(state_dir(), KEY_NAME)


def user_id() -> int:
    """The user this process acts as (its effective uid; Emscripten has only ``getuid``)."""
    geteuid = getattr(os, "geteuid", None)
    return int(geteuid() if geteuid is not None else os.getuid())


class UntrustedFile(Exception):
    """A file of the state folder that must not be used; ``str()`` says what is wrong."""


def _mode(info: os.stat_result) -> str:
    return f"0o{stat.S_IMODE(info.st_mode):o}"


def check_private_file(info: os.stat_result, what: str) -> None:
    """Raise :class:`UntrustedFile` unless ``info`` (an ``lstat``) is a regular file owned by
    this process's user that nobody else may read or write (mode 0600 or stricter)."""
    kind = stat.S_IFMT(info.st_mode)
    if kind == stat.S_IFLNK:
        raise UntrustedFile("it is a symbolic link, not a file this program wrote")
    if kind == stat.S_IFDIR:
        raise UntrustedFile("it is a directory, not a file")
    if kind != stat.S_IFREG:
        raise UntrustedFile("it is not a regular file (a FIFO, socket or device)")
    uid = user_id()
    if info.st_uid != uid:
        raise UntrustedFile(f"it is owned by uid {info.st_uid}, not by this user (uid {uid})")
    if info.st_mode & 0o077:
        raise UntrustedFile(
            f"its mode is {_mode(info)}: others may read or write it ({what} is 0o600)"
        )


def move_aside(path: str) -> str:
    """Rename ``path`` (a file, a symlink itself, a directory) beside itself so that nothing
    looks for it there again; returns the new path. ``OSError`` if it cannot be renamed."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{path}{REFUSED_MARK}{now}-{os.getpid()}"
    target, count = base, 1
    while os.path.lexists(target):
        count += 1
        target = f"{base}-{count}"
    os.rename(path, target)
    return target


def _open_key(path: str) -> bytes:
    """The key at ``path`` if it can be trusted; ``FileNotFoundError`` if there is none,
    :class:`UntrustedFile` if it cannot be trusted."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        with contextlib.suppress(OSError):
            check_private_file(os.lstat(path), "a key")
        raise UntrustedFile(f"it cannot be opened: {exc.strerror}") from exc
    try:
        check_private_file(os.fstat(fd), "a key")
        data = os.read(fd, len(KEY_PREFIX) + KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != len(KEY_PREFIX) + KEY_BYTES or not data.startswith(KEY_PREFIX):
        raise UntrustedFile(f"it is {len(data)} bytes that are not a key this program made")
    return data[len(KEY_PREFIX) :]


def _link(source: str, target: str) -> None:
    """``os.link``, or ``ENOSYS`` where the platform has none (Emscripten)."""
    link = getattr(os, "link", None)
    if link is None:
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))
    link(source, target)


def _create_key(path: str) -> None:
    """Make a new key at ``path`` unless another process makes one first (see the module
    docstring). ``OSError`` when it cannot be written."""
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    temp = f"{path}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o600)
    try:
        try:
            os.fchmod(fd, 0o600)
            data = KEY_PREFIX + secrets.token_bytes(KEY_BYTES)
            while data:
                data = data[os.write(fd, data) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            _link(temp, path)
        except FileExistsError:
            pass  # another process made the key first: that one is the key
        except OSError as exc:
            # No hard links (Pyodide, whose os has no link: one process, a rename is enough).
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK):
                raise
            if not os.path.lexists(path):
                os.rename(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.remove(temp)
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def journal_key(*, create: bool) -> tuple[bytes | None, str | None]:
    """The key that signs journals, and a note when a key that could not be trusted was found
    (what was wrong with it and where it was moved).

    ``create``: make a key when there is none, or when the one there cannot be trusted (the
    writer of a journal); otherwise (the reader) the key is None then. ``OSError`` when a new
    key cannot be written.
    """
    path = key_path()
    note = None
    for _ in range(3):
        try:
            return _open_key(path), note
        except FileNotFoundError:
            if not create:
                return None, note
        except UntrustedFile as exc:
            try:
                moved = f"moved aside to {move_aside(path)}"
            except OSError as err:
                moved = f"it could not be moved aside: {err.strerror}"
            note = f"the key {path} cannot be trusted: {exc} ({moved})"
            if not create:
                return None, note
        _create_key(path)
    why = note or "another process changes it as it is made"
    raise OSError(errno.EIO, f"cannot make the journal key {path}: {why}")
