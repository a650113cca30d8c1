"""The two filesystems behave alike, with the OS's error kinds."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import pytest

from applypatch_ext.core.apply.fs import (
    MAX_READ_BYTES,
    LocalFilesystem,
    normalize_path,
    resolve_path,
)
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.text import format_io_error

from ..conftest import Workspace


@pytest.mark.parametrize(
    ("cwd", "path", "expected"),
    [
        ("/w", "a.txt", "/w/a.txt"),
        ("/w", "./a//b/./c", "/w/a/b/c"),
        ("/w", "../x", "/x"),
        ("/w", "../../../../x", "/x"),
        ("/w", "/abs/p", "/abs/p"),
        ("/w/", "sub/..", "/w"),
    ],
    ids=["plain", "dots", "parent", "above-root", "absolute", "back-to-cwd"],
)
def test_resolve_path_is_lexical(cwd: str, path: str, expected: str) -> None:
    assert resolve_path(cwd, path) == expected


def test_normalize_never_climbs_above_root() -> None:
    assert normalize_path("/..") == "/"


def test_read_write_and_parents(ws: Workspace) -> None:
    with pytest.raises(FileNotFoundError):
        ws.fs.write_bytes(ws.path("a/b.txt"), b"x")
    ws.fs.create_dirs(ws.path("a"))
    ws.fs.write_bytes(ws.path("a/b.txt"), b"x")
    assert ws.get("a/b.txt") == b"x"
    ws.fs.create_dirs(ws.path("a"))  # existing is fine
    assert ws.fs.metadata(ws.path("a")).kind == "dir"
    assert ws.fs.metadata(ws.path("a/b.txt")).kind == "file"


@pytest.mark.parametrize(
    ("operation", "code"),
    [
        ("read-missing", errno.ENOENT),
        ("read-dir", errno.EISDIR),
        ("write-dir", errno.EISDIR),
        ("write-under-file", errno.ENOTDIR),
        ("remove-dir", errno.EISDIR),
        ("remove-missing", errno.ENOENT),
        ("mkdir-over-file", errno.EEXIST),
    ],
)
def test_error_kinds(ws: Workspace, operation: str, code: int) -> None:
    ws.put("dir/f", "x")
    calls: dict[str, Callable[[], object]] = {
        "read-missing": lambda: ws.fs.read_bytes(ws.path("nope")),
        "read-dir": lambda: ws.fs.read_bytes(ws.path("dir")),
        "write-dir": lambda: ws.fs.write_bytes(ws.path("dir"), b""),
        "write-under-file": lambda: ws.fs.write_bytes(ws.path("dir/f/x"), b""),
        "remove-dir": lambda: ws.fs.remove_file(ws.path("dir")),
        "remove-missing": lambda: ws.fs.remove_file(ws.path("nope")),
        "mkdir-over-file": lambda: ws.fs.create_dirs(ws.path("dir/f")),
    }
    with pytest.raises(OSError) as info:
        calls[operation]()
    assert info.value.errno == code


def test_symlinks(ws: Workspace) -> None:
    ws.put("real/t.txt", "t")
    ws.symlink("link.txt", "real/t.txt")
    ws.symlink("dirlink", "real")
    assert ws.get("link.txt") == b"t"
    assert ws.get("dirlink/t.txt") == b"t"
    assert ws.fs.metadata(ws.path("link.txt"), follow_symlinks=False).kind == "symlink"
    assert ws.fs.metadata(ws.path("link.txt")).kind == "file"
    ws.fs.write_bytes(ws.path("dirlink/new.txt"), b"n")
    assert ws.get("real/new.txt") == b"n"
    ws.fs.remove_file(ws.path("link.txt"))
    assert ws.get("real/t.txt") == b"t"


def test_nul_in_path_is_refused(ws: Workspace) -> None:
    with pytest.raises(OSError, match="unexpected NUL byte"):
        ws.fs.read_bytes(ws.path("a\0b"))


def test_files_above_the_reference_limit_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    with big.open("wb") as handle:  # sparse: nothing is really written
        handle.truncate(MAX_READ_BYTES + 1)
    with pytest.raises(OSError) as info:
        LocalFilesystem().read_bytes(str(big))
    assert format_io_error(info.value) == "file is too large to read: limit is 536870912 bytes"


def test_memory_tree_lists_everything() -> None:
    fs = MemoryFilesystem({"/w/a.txt": "a"})
    fs.add_symlink("/w/l", "a.txt")
    fs.add_special("/w/fifo")
    assert fs.tree() == {
        "/w": None,
        "/w/a.txt": b"a",
        "/w/fifo": ("special", ""),
        "/w/l": ("symlink", "a.txt"),
    }
