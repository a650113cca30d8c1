"""Verify a parsed patch against the current files, read only (docs/behaviour.md §5.2).

Produces the proposed change map (:class:`~.changes.ApplyPatchAction`): for each
hunk, in patch order and each against the disk as it is now (no simulation of earlier hunks),
an Add with its content, a Delete with the text it removes, or an Update with its new content and
its radius-1 unified diff. The first error aborts.

Two hunks that resolve to the same path are rejected by default (``multiple operations target
<path>``, as upstream since 2026-08-10); ``duplicates="fold"`` keeps the legacy behaviour where
the later hunk replaces the earlier one in the map (the gap of docs/behaviour.md §7.4, for
teaching).

Nothing is written here; the standalone path (:func:`~.standalone.apply_patch`)
does not use this step, exactly as upstream.
"""

from __future__ import annotations

import posixpath
from enum import StrEnum

from ..diagnosis import Diagnosis
from ..errors import (
    ApplyPatchError,
    DuplicatePathError,
    ErrorReason,
    IoError,
    MoveOntoItselfError,
)
from ..interrupts import checkpoint
from ..parse.model import AddFile, DeleteFile, Hunk, ParsedPatch, UpdateFile
from ..text import LineEndings, Utf8DecodeError, format_io_error
from .changes import ApplyPatchAction, ApplyPatchFileChange, FileAdd, FileDelete, FileUpdate
from .contents import ChunkMatch, derive_new_contents
from .diff import unified_diff
from .fs import (
    Filesystem,
    LocalFilesystem,
    canonicalizer,
    read_file_to_update,
    read_text,
    resolve_path,
)
from .placement import match_warnings

#: Context radius of the diff stored in a proposed Update (docs/behaviour.md §4.5).
PROPOSED_DIFF_CONTEXT = 1
#: Seconds the diff of one proposed Update may search. Myers' search is O(N*D): an update that
#: changes every other line of a 20,000-line file took 49 s. Past the deadline the rest of
#: the diff is reported as removed-then-added lines (similar's own deadline), still correct;
#: the new content, which is what gets written, does not depend on it.
PROPOSED_DIFF_TIMEOUT = 0.5


class DuplicatePaths(StrEnum):
    """What verification does with two hunks on one resolved path."""

    REJECT = "reject"
    FOLD = "fold"


def _read(fs: Filesystem, path: str, context: str) -> str:
    try:
        return read_text(fs, path)
    except (OSError, Utf8DecodeError) as exc:
        raise IoError(f"{context} {path}: {format_io_error(exc)}", exc, ErrorReason.READ) from exc


def _refuse_move_onto_itself(
    fs: Filesystem, written: str, move_written: str, source: str, dest: str
) -> None:
    """A move whose destination is its own source (``a.txt`` to ``a.txt`` or ``./a.txt``, or
    a symlink leading back to the source): applying it writes the file, then removes it as the
    source, so the file is lost. The standalone tool does that, like the reference; the
    pipeline refuses it here, before anything is written."""
    where = dest
    if dest != source:
        canonical = canonicalizer(fs)
        if canonical is None:
            return
        # The removal unlinks the source entry itself: only its parents are resolved.
        entry = posixpath.join(canonical(posixpath.dirname(source)), posixpath.basename(source))
        real = canonical(dest)
        if real != entry:
            return
        where = f"{dest}, which resolves to {real}"
    raise MoveOntoItselfError(
        f"`*** Update File: {written}` moves the file onto itself (`*** Move to: {move_written}` "
        f"is {where}): applying it would delete {source}. Remove the `*** Move to:` line to "
        "update the file in place, or move it to a different path"
    )


def verify_patch(
    parsed: ParsedPatch,
    cwd: str,
    filesystem: Filesystem | None = None,
    *,
    line_endings: LineEndings | str = LineEndings.PRESERVE,
    duplicates: DuplicatePaths | str = DuplicatePaths.REJECT,
) -> ApplyPatchAction:
    """Check every hunk against the files under ``cwd`` and return the proposed change map.

    Raises :class:`~applypatch_ext.core.errors.ApplyPatchError` (an ``InvalidPatchError`` for
    duplicate paths, an ``IoError`` for an unreadable file, a ``ComputeReplacementsError`` for a
    chunk that does not match), its ``hunk`` the index of the hunk that failed. The action's
    ``warnings`` say what to check in chunks that will apply (:func:`~.placement.match_warnings`).
    """
    fs = filesystem if filesystem is not None else LocalFilesystem()
    mode = LineEndings(line_endings)
    reject_duplicates = DuplicatePaths(duplicates) is DuplicatePaths.REJECT
    changes: dict[str, ApplyPatchFileChange] = {}
    left_behind: list[tuple[str, str]] = []
    warnings: list[Diagnosis] = []
    for index, hunk in enumerate(parsed.hunks):
        checkpoint("verifying")
        try:
            path, change = _verify_hunk(hunk, cwd, fs, mode, left_behind, warnings, parsed.patch)
            if path in changes:
                if reject_duplicates:
                    raise DuplicatePathError(f"multiple operations target {path}")
                del changes[path]  # folded: the later hunk takes the earlier one's place
        except ApplyPatchError as exc:
            exc.hunk = index
            raise
        changes[path] = change
    return ApplyPatchAction(changes, parsed.patch, cwd, tuple(left_behind), tuple(warnings))


def _verify_hunk(
    hunk: Hunk,
    cwd: str,
    fs: Filesystem,
    mode: LineEndings,
    left_behind: list[tuple[str, str]],
    warnings: list[Diagnosis],
    patch: str,
) -> tuple[str, ApplyPatchFileChange]:
    """One hunk's resolved path and proposed change; what it leaves behind and the warnings
    of where its chunks were placed are appended to the lists given."""
    path = resolve_path(cwd, hunk.path)
    change: ApplyPatchFileChange
    match hunk:
        case AddFile(contents=contents):
            change = FileAdd(contents)
            left_behind.append((path, contents))
        case DeleteFile():
            change = FileDelete(_read(fs, path, "Failed to read"))
        case UpdateFile(move_path=move_path, chunks=chunks):
            original = read_file_to_update(fs, path)
            matches: list[ChunkMatch] = []
            new = derive_new_contents(original, path, chunks, mode, matches)
            diff = unified_diff(
                original,
                new,
                context_radius=PROPOSED_DIFF_CONTEXT,
                timeout=PROPOSED_DIFF_TIMEOUT,
            )
            dest = None if move_path is None else resolve_path(cwd, move_path)
            if dest is not None and move_path is not None:
                _refuse_move_onto_itself(fs, hunk.path, move_path, path, dest)
            change = FileUpdate(diff, dest, new)
            left_behind.append((dest or path, new))
            warnings.extend(match_warnings(hunk, matches, original, mode, patch))
    return path, change
