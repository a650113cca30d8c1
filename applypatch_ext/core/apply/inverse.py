"""An undo's steps as a patch and as a change map (docs/behaviour.md §11.3).

What a reviewer reads and what the safety check, the approval and the events see of an undo: a
Delete File for a file to remove, an Add File for one to re-create, an Update File (with
``*** Move to:`` for a move back) for one to rewrite. It is a description: the writes are the
recorded bytes and modes of :mod:`.revert`, which the format cannot always say (a missing final
newline, a CRLF line, a mode).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .changes import ApplyPatchAction, ApplyPatchFileChange, FileAdd, FileDelete, FileUpdate
from .diff import unified_diff
from .revert import RevertStep

#: The context lines of the diffs an undo's patch text shows.
DESCRIPTION_CONTEXT: Final = 3


def _added_lines(content: str) -> list[str]:
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return ["+" + line.removesuffix("\r") for line in lines]


def _chunks(old: str, new: str) -> list[str]:
    diff = unified_diff(old, new, context_radius=DESCRIPTION_CONTEXT)
    out: list[str] = []
    for line in diff.split("\n"):
        if line.startswith("@@"):
            out.append("@@")
        elif line[:1] in (" ", "-", "+"):
            out.append(line.removesuffix("\r"))
    if not out:  # the same text (a mode only): one line of context, or none
        first = old.split("\n", 1)[0].removesuffix("\r")
        out = ["@@", " " + first] if old else []
    return out


def describe(steps: Sequence[RevertStep], *, coarse: bool = False) -> str:
    """The steps as a patch: what a reviewer reads and what names the paths (the approval, the
    journal). ``coarse`` writes every rewrite as a delete and an add (for texts whose diff is
    not a patch the parser accepts)."""
    lines = ["*** Begin Patch"]
    by_path = {s.path: s for s in steps}
    skip: set[str] = set()
    for step in steps:
        if step.path in skip:
            continue
        if step.move_from is not None and not coarse:
            source = by_path[step.move_from]
            assert step.target.content is not None and source.expect.content is not None
            lines += [f"*** Update File: {source.shown}", f"*** Move to: {step.shown}"]
            lines += _chunks(source.expect.content, step.target.content)
            skip.add(source.path)
            if source.target.content is not None:
                lines += [f"*** Add File: {source.shown}", *_added_lines(source.target.content)]
            continue
        old, new = step.expect.content, step.target.content
        if new is None:
            lines.append(f"*** Delete File: {step.shown}")
        elif old is None or coarse:
            if old is not None:
                lines.append(f"*** Delete File: {step.shown}")
            lines += [f"*** Add File: {step.shown}", *_added_lines(new)]
        else:
            chunks = _chunks(old, new)
            if chunks:
                lines += [f"*** Update File: {step.shown}", *chunks]
            else:
                lines += [f"*** Add File: {step.shown}"]
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


def change_map(steps: Sequence[RevertStep], patch: str, cwd: str) -> ApplyPatchAction:
    changes: dict[str, ApplyPatchFileChange] = {}
    by_path = {s.path: s for s in steps}
    for step in steps:
        old, new = step.expect.content, step.target.content
        if step.move_from is not None:
            source = by_path[step.move_from]
            assert new is not None and source.expect.content is not None
            diff = unified_diff(source.expect.content, new, context_radius=1)
            changes[source.path] = FileUpdate(diff, step.path, new)
        elif step.path in changes:
            continue  # the destination of a move back: its update says it
        elif new is None:
            changes[step.path] = FileDelete(old or "")
        elif old is None:
            changes[step.path] = FileAdd(new)
        else:
            changes[step.path] = FileUpdate(unified_diff(old, new, context_radius=1), None, new)
    return ApplyPatchAction(changes, patch, cwd)


__all__ = ["DESCRIPTION_CONTEXT", "change_map", "describe"]
