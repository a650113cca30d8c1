"""Apply a patch to a filesystem, hunk by hunk, and record what was committed (docs/behaviour.md
§5.3-5.5).

This is the only module that writes. Like the reference it re-reads the patch's hunks, not a
verified map: every hunk is applied in patch order against the current state of the disk, the
first failure stops the run and nothing is rolled back. The result always carries an
:class:`~.changes.AppliedPatchDelta` that says exactly what was written (or,
with ``exact`` false, a lower bound of it), also when the run failed.

:func:`apply_patch` is the standalone tool as a function: parse, then apply, no verification
step, with the tool's stdout, stderr and exit code.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ApplyPatchError, ErrorReason, IoError
from ..interrupts import checkpoint, interrupt_gate
from ..parse.model import AddFile, DeleteFile, Hunk, UpdateFile
from ..text import LineEndings, Utf8DecodeError
from .changes import AppliedAdd, AppliedDelete, AppliedPatchChange, AppliedPatchDelta, AppliedUpdate
from .contents import derive_new_contents
from .fs import (
    Filesystem,
    WriteRefused,
    modes_of,
    read_file_to_update,
    read_text,
    resolve_path,
)

NO_FILES_MODIFIED = "No files were modified."
NOT_UTF8_PATCH = "Error: apply_patch requires a UTF-8 PATCH argument."
SUCCESS_HEADER = "Success. Updated the following files:\n"


@dataclass(frozen=True)
class AffectedPaths:
    """The paths of the hunks that succeeded, as written in the patch, grouped A / M / D."""

    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    def summary(self) -> str:
        """The standalone tool's success text."""
        lines = [SUCCESS_HEADER]
        lines.extend(f"A {p}\n" for p in self.added)
        lines.extend(f"M {p}\n" for p in self.modified)
        lines.extend(f"D {p}\n" for p in self.deleted)
        return "".join(lines)


@dataclass(frozen=True)
class ApplyOutcome:
    """What one application did: the committed delta, and the error that stopped it, if any."""

    delta: AppliedPatchDelta
    affected: AffectedPaths
    error: ApplyPatchError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class _Recorder:
    """The delta being built; also the place that decides ``exact``."""

    def __init__(self, fs: Filesystem) -> None:
        self.fs = fs
        self.changes: list[AppliedPatchChange] = []
        self.exact = True
        self._modes = modes_of(fs)
        self.unknown: list[str] = []
        self.refused: list[str] = []

    def lose(self, path: str) -> None:
        """Something happened at ``path`` that the changes cannot describe: inexact."""
        self.exact = False
        if path not in self.unknown:
            self.unknown.append(path)

    def refuse(self, path: str) -> None:
        """A view refused the write at ``path`` before anything reached the disk: inexact, as
        the reference has it, and recorded as refused (nothing was written there)."""
        self.lose(path)
        if path not in self.refused:
            self.refused.append(path)

    def mode(self, path: str) -> int | None:
        """The file's permission bits, for an undo; None when unknown (not an inexactness:
        the delta still says what was written)."""
        if self._modes is None:
            return None
        try:
            return self._modes.file_mode(path)
        except OSError:
            return None

    def _missing_parents(self, path: str) -> tuple[str, ...]:
        """The parent directories of ``path`` that do not exist, outermost first."""
        missing: list[str] = []
        parent = posixpath.dirname(path)
        while parent not in ("", "/"):
            try:
                self.fs.metadata(parent, follow_symlinks=False)
                break
            except FileNotFoundError:
                missing.append(parent)
            except OSError:
                break
            parent = posixpath.dirname(parent)
        return tuple(reversed(missing))

    def delta(self) -> AppliedPatchDelta:
        return AppliedPatchDelta(
            tuple(self.changes), self.exact, tuple(self.unknown), tuple(self.refused)
        )

    def probe(self, path: str) -> None:
        """A path about to be overwritten or removed must be a plain regular file (or absent)."""
        try:
            meta = self.fs.metadata(path, follow_symlinks=False)
        except FileNotFoundError:
            return
        except OSError:
            self.lose(path)
            return
        if meta.kind != "file":
            self.lose(path)

    def read_previous(self, path: str) -> str | None:
        """The text about to be overwritten: None if absent; unknown (inexact) if unreadable."""
        try:
            return read_text(self.fs, path)
        except FileNotFoundError:
            return None
        except (OSError, Utf8DecodeError):
            self.lose(path)
            return None

    def write(self, path: str, data: str) -> tuple[str, ...]:
        """Write, creating missing parent directories (returned, for an undo); any failure
        makes the delta inexact."""
        fs = self.fs
        try:
            encoded = data.encode("utf-8")
        except UnicodeEncodeError as exc:  # lone surrogates from a Python caller: write nothing
            raise IoError(f"Failed to write file {path}", exc) from exc
        created: tuple[str, ...] = ()
        try:
            try:
                fs.write_bytes(path, encoded)
            except FileNotFoundError:
                parent = posixpath.dirname(path)
                created = self._missing_parents(path)
                try:
                    fs.create_dirs(parent)
                except OSError as exc:
                    raise IoError(f"Failed to create parent directories for {path}", exc) from exc
                fs.write_bytes(path, encoded)
        except WriteRefused as exc:
            self.refuse(path)
            raise IoError(f"Failed to write file {path}", exc) from exc
        except OSError as exc:
            self.lose(path)
            raise IoError(f"Failed to write file {path}", exc) from exc
        except IoError as exc:
            if isinstance(exc.cause, WriteRefused):
                self.refuse(path)
            else:
                self.lose(path)
            raise
        return created


def _is_dir(fs: Filesystem, path: str) -> bool:
    try:
        return fs.metadata(path, follow_symlinks=False).kind == "dir"
    except OSError:
        return False


def _apply_add(rec: _Recorder, path: str, contents: str) -> None:
    rec.probe(path)
    previous = rec.read_previous(path)
    previous_mode = None if previous is None else rec.mode(path)
    created = rec.write(path, contents)
    rec.changes.append(AppliedAdd(path, contents, previous, rec.mode(path), previous_mode, created))


def _apply_delete(rec: _Recorder, path: str) -> None:
    fs = rec.fs
    rec.probe(path)
    content: str | None
    try:
        content = read_text(fs, path)
    except FileNotFoundError:
        content = None
    except (OSError, Utf8DecodeError):
        content = None
        rec.lose(path)
    if _is_dir(fs, path):
        raise IoError(f"Failed to delete file {path}", reason=ErrorReason.DELETE)
    mode = rec.mode(path)
    try:
        fs.remove_file(path)
    except OSError as exc:
        if content is not None:
            try:
                still_there = read_text(fs, path) == content
            except (OSError, Utf8DecodeError):
                still_there = False
            if not still_there:
                rec.lose(path)
        raise IoError(f"Failed to delete file {path}", exc, ErrorReason.DELETE) from exc
    if content is not None:
        rec.changes.append(AppliedDelete(path, content, mode))


def _apply_update(
    rec: _Recorder, hunk: UpdateFile, path: str, dest: str | None, line_endings: LineEndings
) -> None:
    fs = rec.fs
    rec.probe(path)
    original = read_file_to_update(fs, path)
    new = derive_new_contents(original, path, hunk.chunks, line_endings)
    mode = rec.mode(path)
    if dest is None:
        rec.write(path, new)
        rec.changes.append(AppliedUpdate(path, None, original, None, new, mode))
        return
    rec.probe(dest)
    overwritten = rec.read_previous(dest)
    overwritten_mode = None if overwritten is None else rec.mode(dest)
    created = rec.write(dest, new)
    move_mode = rec.mode(dest)
    # Provisional until the source is gone: if its removal fails, the destination was written.
    rec.changes.append(AppliedAdd(dest, new, overwritten, move_mode, overwritten_mode, created))
    if _is_dir(fs, path):
        raise IoError(f"Failed to remove original {path}")
    try:
        fs.remove_file(path, move_source=True)
    except OSError as exc:
        raise IoError(f"Failed to remove original {path}", exc) from exc
    if dest == path:
        # A move onto itself: like the reference, the file was written, then removed as the
        # move's source. Say so: an update in place followed by the deletion of its result.
        rec.changes[-1] = AppliedUpdate(path, None, original, None, new, mode)
        rec.changes.append(AppliedDelete(path, new, move_mode))
        return
    rec.changes[-1] = AppliedUpdate(
        path, dest, original, overwritten, new, mode, move_mode, overwritten_mode, created
    )


def apply_hunks(
    hunks: Sequence[Hunk],
    cwd: str,
    fs: Filesystem,
    line_endings: LineEndings = LineEndings.PRESERVE,
) -> ApplyOutcome:
    """Apply ``hunks`` in order against ``fs`` with paths resolved against ``cwd``.

    A SIGINT while a file is written waits for the end of that write (see
    :mod:`..interrupts`): the gate is opened once for the whole run.
    """
    with interrupt_gate():
        return _apply_hunks(hunks, cwd, fs, line_endings)


def _apply_hunks(
    hunks: Sequence[Hunk],
    cwd: str,
    fs: Filesystem,
    line_endings: LineEndings,
) -> ApplyOutcome:
    """Apply ``hunks`` in order against ``fs`` with paths resolved against ``cwd``.

    Never raises for a failing hunk: the error is in the outcome, next to the delta of what was
    committed before it.
    """
    rec = _Recorder(fs)
    added: list[str] = []
    modified: list[str] = []
    deleted: list[str] = []

    def outcome(error: ApplyPatchError | None = None) -> ApplyOutcome:
        affected = AffectedPaths(tuple(added), tuple(modified), tuple(deleted))
        return ApplyOutcome(rec.delta(), affected, error)

    if not hunks:
        return outcome(ApplyPatchError(NO_FILES_MODIFIED))
    for index, hunk in enumerate(hunks):
        try:
            checkpoint("applying")
            match hunk:
                case AddFile(path=written, contents=contents):
                    _apply_add(rec, resolve_path(cwd, written), contents)
                    added.append(written)
                case DeleteFile(path=written):
                    _apply_delete(rec, resolve_path(cwd, written))
                    deleted.append(written)
                case UpdateFile(path=written, move_path=move_path):
                    dest = None if move_path is None else resolve_path(cwd, move_path)
                    _apply_update(rec, hunk, resolve_path(cwd, written), dest, line_endings)
                    modified.append(hunk.target_path)
        except ApplyPatchError as exc:
            exc.hunk = index
            return outcome(exc)
    return outcome()
