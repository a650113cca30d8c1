"""The corpus of real model-written patches in tests/data/model-patches/ (see its README): each
case as a Codex patch and the tree it runs in, for the tests, ``make bench`` and the
differential against the reference binary."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from applypatch_ext.exercises.corpus import likely_fixture

CORPUS = Path(__file__).parent / "data" / "model-patches"


@dataclass(frozen=True)
class Case:
    """One model-written body and what it is applied to."""

    id: str
    model: str
    file: str
    body: str
    fixtures: tuple[str, ...]

    @property
    def patch(self) -> str:
        """The body wrapped as a Codex patch (the README's wrapping)."""
        return f"*** Begin Patch\n*** Update File: {self.file}\n{self.body}\n*** End Patch\n"

    @cached_property
    def fixture(self) -> str | None:
        """The task whose input the body was most likely written against (the package's rule,
        :func:`~applypatch_ext.exercises.corpus.likely_fixture`); None without any."""
        inputs = {name: self._input(name).decode("utf-8") for name in self.fixtures}
        return likely_fixture(self.body, inputs)

    def _input(self, fixture: str) -> bytes:
        return (CORPUS / "fixtures" / fixture / "input" / self.file).read_bytes()

    @property
    def original(self) -> bytes | None:
        """The file the patch updates, as the chosen task's input has it (None: no file)."""
        return None if self.fixture is None else self._input(self.fixture)

    def tree(self) -> dict[str, bytes]:
        """The tree the case runs in: the file, when a task has it (paths relative)."""
        original = self.original
        return {} if original is None else {self.file: original}

    def write_tree(self, root: Path) -> None:
        for name, data in self.tree().items():
            (root / name).write_bytes(data)


@cache
def cases() -> tuple[Case, ...]:
    """Every case of the corpus, in its order."""
    out = []
    with (CORPUS / "cases.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            data = json.loads(line)
            out.append(
                Case(data["id"], data["model"], data["file"], data["body"], tuple(data["fixtures"]))
            )
    return tuple(out)


def with_file() -> Iterator[Case]:
    """The cases applied to the file they were written for."""
    return (case for case in cases() if case.fixture is not None)
