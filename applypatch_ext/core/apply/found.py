"""What stands at a path, in words, where an undo cannot compare it with its record.

An undo compares each file with the state the call left (:mod:`.revert`); a directory, a
symbolic link, a special file or bytes that are not UTF-8 cannot be compared. The conflict then
says what is there (:func:`found_at`: ``a symbolic link to precious.txt``), and a directory on
the way that became a link is found by :func:`linked_ancestor`, so that nothing is written
through it (docs/behaviour.md §11.2). A file that is readable but is not as the call left it
and has other names (:func:`other_names`: swapped for a hard link of another file) is said to
be one, since writing it in place would write those names too.
"""

from __future__ import annotations

from ..text import format_io_error
from .fs import Filesystem, link_reader


def found_at(fs: Filesystem, path: str) -> str:
    """What is at ``path`` when :func:`read_state` cannot compare it, in words for a conflict:
    ``a symbolic link to precious.txt``, ``a directory``, ``a file that is not UTF-8 text (12
    bytes)``..."""
    try:
        kind = fs.metadata(path, follow_symlinks=False).kind
    except OSError as exc:
        return f"unreadable ({format_io_error(exc)})"
    if kind == "symlink":
        return _link_text(fs, path)
    if kind == "dir":
        return "a directory"
    if kind == "other":
        return "a special file (a FIFO, a socket or a device)"
    try:
        size = len(fs.read_bytes(path))
    except OSError as exc:
        return f"a file that cannot be read ({format_io_error(exc)})"
    return f"a file that is not UTF-8 text ({size} bytes)"


def other_names(fs: Filesystem, path: str) -> int:
    """How many other names (hard links) the file at ``path`` has: writing it in place writes
    them too (0 for what is no file, or cannot be looked at)."""
    try:
        info = fs.metadata(path, follow_symlinks=False)
    except OSError:
        return 0
    return max(info.links - 1, 0) if info.kind == "file" else 0


def shared_text(names: int) -> str:
    """A conflict's words for a file with ``names`` other names (hard links)."""
    other = "another name shares" if names == 1 else f"{names} other names share"
    return f"a hard link: {other} these bytes"


def _link_text(fs: Filesystem, path: str) -> str:
    read_link = link_reader(fs)
    if read_link is None:
        return "a symbolic link"
    try:
        return f"a symbolic link to {read_link(path)}"
    except OSError:
        return "a symbolic link"


def linked_ancestor(fs: Filesystem, path: str, root: str) -> str | None:
    """The first directory on the way to ``path`` that is a symbolic link, below what
    ``path`` shares with ``root`` (the links above the working directory, ``/tmp`` ->
    ``/private/tmp``, are the machine's, not a change since the call), as ``LINK (a symbolic
    link to TARGET)``; None when there is none."""
    parts, base = path.split("/"), root.rstrip("/").split("/")
    shared = 0
    while shared < min(len(parts) - 1, len(base)) and parts[shared] == base[shared]:
        shared += 1
    for end in range(shared + 1, len(parts)):
        ancestor = "/".join(parts[:end])
        try:
            kind = fs.metadata(ancestor, follow_symlinks=False).kind
        except OSError:
            return None  # missing from here down: nothing to follow
        if kind == "symlink":
            return f"{ancestor} ({_link_text(fs, ancestor)})"
    return None


__all__ = ["found_at", "linked_ancestor", "other_names", "shared_text"]
