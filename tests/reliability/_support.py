"""Shared by the reliability tests: the size knob, the figures they report, tree snapshots.

``APPLYPATCH_FUZZ_SCALE`` (default 1) multiplies every input count and size, so that
``make fuzz`` runs the very same tests much longer. Every random choice comes from a
``random.Random`` seeded with a fixed number (and hypothesis runs derandomized), so a failure
found at some scale is found again at that scale.
"""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from collections.abc import Iterable

from applypatch_ext.core.apply.fs import FileMetadata, Filesystem, SupportsSymlinks, canonicalizer
from applypatch_ext.core.apply.memfs import MemoryFilesystem

SCALE = max(1, int(os.environ.get("APPLYPATCH_FUZZ_SCALE", "1")))

#: What the tests did; printed at the end of the run by ``conftest.pytest_terminal_summary``.
FIGURES: Counter[str] = Counter()


def scaled(count: int) -> int:
    return count * SCALE


# -- trees ------------------------------------------------------------------------------------

#: path -> bytes (file), None (directory), ("symlink", target), ("special", "")
Tree = dict[str, bytes | tuple[str, str] | None]


def memory_tree(fs: MemoryFilesystem, root: str) -> Tree:
    """Everything under ``root`` (excluded), keyed by path relative to it."""
    prefix = root.rstrip("/") + "/"
    return {p[len(prefix) :]: v for p, v in fs.tree().items() if p.startswith(prefix)}


def disk_tree(root: str) -> Tree:
    """The same for a real directory (symlinks are not followed)."""
    tree: Tree = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                tree[rel] = ("symlink", os.readlink(path))
            elif os.path.isdir(path):
                tree[rel] = None
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    tree[rel] = handle.read()
            else:
                tree[rel] = ("special", "")
    return dict(sorted(tree.items()))


def files_of(tree: Tree) -> dict[str, bytes | tuple[str, str]]:
    """The tree without its directories."""
    return {p: v for p, v in tree.items() if v is not None}


def ancestors(paths: Iterable[str]) -> set[str]:
    """Every proper ancestor directory of the given relative paths."""
    out: set[str] = set()
    for path in paths:
        parent = posixpath.dirname(path)
        while parent:
            out.add(parent)
            parent = posixpath.dirname(parent)
    return out


class RecordingFilesystem:
    """Passes everything through to ``inner`` and remembers each successful read.

    Used below the pipeline to tell a drift fault's own write (a file rewritten as what was just
    read plus the drift line) from the writes of the patch.
    """

    def __init__(self, inner: Filesystem, drift_line: bytes) -> None:
        self.inner = inner
        self.drift_line = drift_line
        self.drifted: list[str] = []
        self._last_read: dict[str, bytes] = {}

    def read_bytes(self, path: str) -> bytes:
        data = self.inner.read_bytes(path)
        self._last_read[path] = data
        return data

    def write_bytes(self, path: str, data: bytes) -> None:
        previous = self._last_read.get(path)
        if previous is not None and data == previous + self.drift_line:
            self.drifted.append(path)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self.inner.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self.inner.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)

    def canonical_path(self, path: str) -> str:
        canonical = canonicalizer(self.inner)
        return path if canonical is None else canonical(path)

    def read_link(self, path: str) -> str:
        assert isinstance(self.inner, SupportsSymlinks)
        return self.inner.read_link(path)

    def create_symlink(self, target: str, path: str) -> None:
        assert isinstance(self.inner, SupportsSymlinks)
        self.inner.create_symlink(target, path)
