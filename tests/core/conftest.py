"""A workspace fixture that runs the same test on the real disk and on the in-memory tree."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from applypatch_ext.core.apply.fs import Filesystem, LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem

from ..trees import Tree, snapshot_dir, snapshot_memory


class Workspace:
    """A root directory plus helpers, backed by the real disk or by a MemoryFilesystem."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        self.memory: MemoryFilesystem | None = None
        if kind == "local":
            self.root = str(tmp_path.resolve())
            self.fs: Filesystem = LocalFilesystem()
        else:
            self.root = "/work"
            self.memory = MemoryFilesystem()
            self.memory.create_dirs(self.root)
            self.fs = self.memory

    def path(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def put(self, rel: str, data: bytes | str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        if self.memory is not None:
            self.memory.add_file(self.path(rel), raw)
        else:
            target = Path(self.path(rel))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(raw)

    def mkdir(self, rel: str) -> None:
        self.fs.create_dirs(self.path(rel))

    def symlink(self, rel: str, target: str) -> None:
        if self.memory is not None:
            self.memory.add_symlink(self.path(rel), target)
        else:
            os.symlink(target, self.path(rel))

    def get(self, rel: str) -> bytes:
        return self.fs.read_bytes(self.path(rel))

    def exists(self, rel: str) -> bool:
        try:
            self.fs.metadata(self.path(rel), follow_symlinks=False)
        except FileNotFoundError:
            return False
        return True

    def tree(self) -> Tree:
        if self.memory is not None:
            return snapshot_memory(self.memory, self.root)
        return snapshot_dir(Path(self.root))


@pytest.fixture(params=["local", "memory"])
def ws(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    yield Workspace(request.param, tmp_path)
