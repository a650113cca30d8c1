"""A patch run for real, on a tree in memory: what a check compares and what a review shows.

The answer of a *write* exercise and the patch of a *review* go through the real code: the
pipeline of a tool call (:func:`~applypatch_ext.core.turn.turn.run_patch`: parse, verify,
safety, apply) or the drop-in ``apply_patch`` tool (:func:`~applypatch_ext.core.apply.
standalone.apply_patch`: no verification, hunk by hunk), on a
:class:`~applypatch_ext.core.apply.memfs.MemoryFilesystem` that holds the exercise's files
under :data:`ROOT`. Nothing touches the disk, so a learner's patch can do no harm wherever it
points, and the same runs in the JupyterLite site. Writes outside :data:`ROOT` need approval,
which nobody gives: such a call ends declined, and says so.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from ..core.apply.memfs import MemoryFilesystem
from ..core.apply.standalone import ApplyPatchResult, apply_patch
from ..core.text import LineEndings
from ..core.turn.options import CallStatus, Decision, PipelineOptions
from ..core.turn.policy import SandboxPolicy
from ..core.turn.result import CallResult
from ..core.turn.turn import run_patch

#: Where an exercise's files are: the project folder of every run (what Codex's texts name).
ROOT: Final = "/project"

#: An exercise's files: path relative to :data:`ROOT`, and the text (or bytes) in it.
Files = Mapping[str, str | bytes]


class Tool(StrEnum):
    """What runs a patch: the tool call's pipeline (what Codex does with a model's call, and
    ``%%apply_patch``), or the drop-in ``apply_patch`` command."""

    PIPELINE = "pipeline"
    STANDALONE = "standalone"


#: How each tool is named to the learner.
TOOL_NAMES: Final[Mapping[Tool, str]] = {
    Tool.PIPELINE: "Codex",
    Tool.STANDALONE: "the drop-in apply_patch command",
}


@dataclass(frozen=True)
class Outcome:
    """One run: what the tool said, whether it succeeded, and the files before and after
    (path relative to :data:`ROOT`; a file written outside it by its absolute path)."""

    tool: Tool
    says: str
    ok: bool
    before: dict[str, bytes]
    after: dict[str, bytes]
    result: CallResult | ApplyPatchResult

    @property
    def call(self) -> CallResult | None:
        """The pipeline's result (None for the drop-in tool)."""
        return self.result if isinstance(self.result, CallResult) else None

    def text(self, path: str) -> str | None:
        """A file's text afterwards (None if it is not there)."""
        data = self.after.get(path)
        return None if data is None else data.decode("utf-8", errors="replace")


def _as_bytes(data: str | bytes) -> bytes:
    return data.encode() if isinstance(data, str) else data


def memory_tree(files: Files) -> MemoryFilesystem:
    """The files under :data:`ROOT`, in memory (the folder exists even when empty)."""
    fs = MemoryFilesystem(
        {posixpath.join(ROOT, path): _as_bytes(data) for path, data in files.items()}
    )
    fs.create_dirs(ROOT)
    return fs


def files_of(fs: MemoryFilesystem) -> dict[str, bytes]:
    """Every file of the tree: relative to :data:`ROOT` inside it, absolute outside it."""
    out = {}
    for path, node in fs.tree().items():
        if isinstance(node, bytes):
            inside = path.startswith(ROOT + "/")
            out[path[len(ROOT) + 1 :] if inside else path] = node
    return out


def _options(line_endings: LineEndings) -> PipelineOptions:
    # Only the project is writable (no temporary folders): anything else needs an approval.
    sandbox = SandboxPolicy(include_tmp=False, include_tmpdir_env=False)
    return PipelineOptions(sandbox=sandbox, line_endings=line_endings, streaming_events=False)


def _pipeline_says(result: CallResult) -> str:
    """What the model is told, without the wall time (which no two runs share)."""
    if result.status in (CallStatus.COMPLETED, CallStatus.FAILED):
        return result.stdout + result.stderr
    return result.output


def run(
    patch: str,
    files: Files,
    tool: Tool = Tool.PIPELINE,
    line_endings: LineEndings = LineEndings.PRESERVE,
) -> Outcome:
    """Run ``patch`` on ``files`` with ``tool``; nothing is approved that asks."""
    fs = memory_tree(files)
    before = files_of(fs)
    if tool is Tool.STANDALONE:
        standalone = apply_patch(patch, ROOT, line_endings=line_endings, filesystem=fs)
        says = standalone.stdout + standalone.stderr
        return Outcome(tool, says, standalone.ok, before, files_of(fs), standalone)
    result = run_patch(
        patch, ROOT, approver=Decision.DECLINE, options=_options(line_endings), filesystem=fs
    )
    ok = result.status is CallStatus.COMPLETED
    return Outcome(tool, _pipeline_says(result), ok, before, files_of(fs), result)


__all__ = ["ROOT", "TOOL_NAMES", "Files", "Outcome", "Tool", "files_of", "memory_tree", "run"]
