"""Real model-written patches and the files they were written for (``data/``, MIT: its README
names the source and the authors).

Each case is one hunk body a model wrote for an edit of a React file; :meth:`CorpusCase.patch`
wraps it as the Codex patch the call would have been, and :meth:`CorpusCase.files` gives the
file it was written for (none when the corpus has no task with that file). The *diagnose*
exercises and notebook 10 run them through the pipeline. Read once, on first use, from the
package's data (so the JupyterLite site has it too).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Final

#: The data file, in the package's ``data`` folder.
DATA: Final = "model-patches.json.gz"


def likely_fixture(body: str, inputs: Mapping[str, str]) -> str | None:
    """Of the tasks whose input has the body's file (``inputs``: task -> that file's text; the
    corpus pairs by file name only), the one the body was most likely written against: where
    most of its context and removed lines occur, trimmed; the first on a tie; None without any.
    The tests' corpus (tests/model_patches.py) pairs by this rule too."""
    wanted = [line[1:].strip() for line in body.split("\n") if line[:1] in (" ", "-")]
    wanted = [line for line in wanted if line]
    best: tuple[int, str] | None = None
    for name, text in inputs.items():
        have = {line.strip() for line in text.split("\n")}
        score = sum(line in have for line in wanted)
        if best is None or score > best[0]:
            best = (score, name)
    return None if best is None else best[1]


@dataclass(frozen=True)
class CorpusCase:
    """One model's hunk body for one file, as the corpus keeps it."""

    id: str
    model: str
    task: str
    file: str
    body: str
    #: the task folders whose input holds :attr:`file`
    fixtures: tuple[str, ...]
    #: every task's input file, by ``<task>/input/<file>``
    texts: Mapping[str, str]

    def patch(self) -> str:
        """The body wrapped as the patch the model's call sent (the corpus's README)."""
        return f"*** Begin Patch\n*** Update File: {self.file}\n{self.body}\n*** End Patch\n"

    def input(self, fixture: str) -> str:
        """:attr:`file` as the task ``fixture``'s input has it."""
        return self.texts[f"{fixture}/input/{self.file}"]

    @cached_property
    def fixture(self) -> str | None:
        """The task the body was most likely written against (:func:`likely_fixture`)."""
        return likely_fixture(self.body, {name: self.input(name) for name in self.fixtures})

    def files(self) -> dict[str, str]:
        """The file the body was written for, by its name (empty without a task for it)."""
        fixture = self.fixture
        return {} if fixture is None else {self.file: self.input(fixture)}


@cache
def corpus() -> Mapping[str, CorpusCase]:
    """Every case by id, in the corpus's order."""
    packed = resources.files(__package__).joinpath("data", DATA).read_bytes()
    data = json.loads(gzip.decompress(packed))
    texts: dict[str, str] = data["files"]
    return {
        case["id"]: CorpusCase(
            id=case["id"],
            model=case["model"],
            task=case["task"],
            file=case["file"],
            body=case["body"],
            fixtures=tuple(case["fixtures"]),
            texts=texts,
        )
        for case in data["cases"]
    }


__all__ = ["DATA", "CorpusCase", "corpus", "likely_fixture"]
