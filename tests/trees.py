"""Whole-tree snapshots for golden comparisons: every path, every directory, every byte."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from applypatch_ext.core.apply.memfs import MemoryFilesystem

Tree = dict[str, bytes | tuple[str, str] | None]
#: :data:`Tree` with each entry's permission bits.
ModedTree = dict[str, tuple[bytes | tuple[str, str] | None, int]]


def snapshot_dir(root: Path) -> Tree:
    """Relative path -> file bytes, None for a directory, ("symlink", target) for a link."""
    tree: Tree = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        for name in dirnames + filenames:
            path = base / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                tree[rel] = ("symlink", os.readlink(path))
            elif path.is_dir():
                tree[rel] = None
            else:
                tree[rel] = path.read_bytes()
    return dict(sorted(tree.items()))


def snapshot_dir_with_modes(root: Path) -> ModedTree:
    """:func:`snapshot_dir` with each entry's permission bits (of the entry itself: lstat)."""
    return {
        rel: (value, stat.S_IMODE(os.lstat(root / rel).st_mode))
        for rel, value in snapshot_dir(root).items()
    }


def snapshot_memory(fs: MemoryFilesystem, root: str) -> Tree:
    prefix = root.rstrip("/") + "/"
    tree: Tree = {}
    for path, data in fs.tree().items():
        if path.startswith(prefix):
            tree[path[len(prefix) :]] = data
    return tree


def copy_tree(source: Path | None, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    if source is not None and source.is_dir():
        shutil.copytree(source, dest, dirs_exist_ok=True, symlinks=True)


def load_memory(source: Path | None, root: str) -> MemoryFilesystem:
    fs = MemoryFilesystem()
    fs.create_dirs(root)
    if source is not None and source.is_dir():
        for rel, data in snapshot_dir(source).items():
            if data is None:
                fs.create_dirs(f"{root}/{rel}")
            elif isinstance(data, bytes):
                fs.add_file(f"{root}/{rel}", data)
            else:
                fs.add_symlink(f"{root}/{rel}", data[1])
    return fs
