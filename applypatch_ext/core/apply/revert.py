"""Put files back into a recorded state: the writer of an undo or a redo (docs/behaviour.md §11).

An undo is the inverse of a committed delta (:mod:`.changes`). The patch format cannot say it
exactly (a file without a final newline, a mode, a CRLF line), so an undo is not a patch that is
re-parsed: it is a list of :class:`RevertStep`, each taking one file from the state the call left
(``expect``) to a recorded state (``target``: absent, or these bytes with this mode), and
:func:`apply_steps` writes them through the call's filesystem view (faults, sandbox, journal),
recording an exact :class:`~.changes.AppliedPatchDelta` of what it wrote, like
:mod:`.runtime`.

:func:`file_states` reads a delta as the state of each file before and after the call.
"""

from __future__ import annotations

import errno
import hashlib
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from ..errors import ApplyPatchError, ErrorReason, IoError
from ..interrupts import checkpoint, interrupt_gate
from ..text import Utf8DecodeError, decode_utf8
from .changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchChange,
    AppliedPatchDelta,
    AppliedUpdate,
)
from .found import linked_ancestor, other_names
from .fs import Filesystem, modes_of
from .runtime import AffectedPaths, ApplyOutcome


@dataclass(frozen=True, slots=True)
class FileState:
    """One file's state: ``content`` (None: absent) and its permission bits (None: unknown)."""

    content: str | None
    mode: int | None = None

    @property
    def exists(self) -> bool:
        return self.content is not None

    @property
    def sha256(self) -> str | None:
        """The hash of the file's bytes (None for an absent file)."""
        if self.content is None:
            return None
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()

    def matches(self, other: FileState) -> bool:
        """Same existence and bytes, and the same mode where both are known."""
        if self.content != other.content:
            return False
        return self.mode is None or other.mode is None or self.mode == other.mode

    def describe(self) -> str:
        if self.content is None:
            return "absent"
        mode = "" if self.mode is None else f", mode {self.mode:o}"
        size = len(self.content.encode("utf-8"))
        return f"{size} bytes, sha256 {self.sha256}{mode}"

    def to_json(self) -> dict[str, Any]:
        return {
            "exists": self.exists,
            "content": self.content,
            "mode": None if self.mode is None else oct(self.mode),
            "sha256": self.sha256,
        }


ABSENT = FileState(None)


@dataclass(frozen=True, slots=True)
class FileRecord:
    """One path a call changed: its state before the call and as the call left it.

    ``known``: the state before is recorded (an inexact delta may have lost it: an add over a
    file it could not read). ``created_dirs``: directories the call created for it.
    ``moved_to``: the call moved this file there (its undo moves it back).
    """

    path: str
    before: FileState
    left: FileState
    known: bool = True
    created_dirs: tuple[str, ...] = ()
    moved_to: str | None = None


def _first(records: dict[str, FileRecord], path: str, before: FileState, known: bool) -> None:
    if path not in records:
        records[path] = FileRecord(path, before, before, known)


def _leave(records: dict[str, FileRecord], path: str, left: FileState, **extra: Any) -> None:
    records[path] = replace(records[path], left=left, **extra)


def _fold(records: dict[str, FileRecord], change: AppliedPatchChange, exact: bool) -> None:
    match change:
        case AppliedAdd():
            over = change.overwritten_content
            # An exact delta's add without overwritten content created the file.
            _first(
                records,
                change.path,
                FileState(over, change.overwritten_mode),
                exact or over is not None,
            )
            dirs = records[change.path].created_dirs or change.created_dirs
            _leave(records, change.path, FileState(change.content, change.mode), created_dirs=dirs)
        case AppliedDelete():
            _first(records, change.path, FileState(change.content, change.mode), True)
            _leave(records, change.path, ABSENT)
        case AppliedUpdate(move_path=None):
            _first(records, change.path, FileState(change.old_content, change.mode), True)
            _leave(records, change.path, FileState(change.new_content, change.mode))
        case AppliedUpdate(move_path=str(dest)):
            _first(records, change.path, FileState(change.old_content, change.mode), True)
            _leave(records, change.path, ABSENT, moved_to=dest)
            over = change.overwritten_move_content
            _first(
                records,
                dest,
                FileState(over, change.overwritten_move_mode),
                exact or over is not None,
            )
            dirs = records[dest].created_dirs or change.created_dirs
            left = FileState(change.new_content, change.move_mode)
            _leave(records, dest, left, created_dirs=dirs)


def file_states(delta: AppliedPatchDelta) -> dict[str, FileRecord]:
    """Every path of ``delta`` with its state before the call and as the call left it, in the
    order first written; a path the call left as it found it is left out."""
    records: dict[str, FileRecord] = {}
    for change in delta.changes:
        _fold(records, change, delta.exact)
    if delta.unknown:  # the runtime named what it lost: every other path is known
        lost = set(delta.unknown)
        records = {p: replace(r, known=p not in lost) for p, r in records.items()}
    return {
        p: r
        for p, r in records.items()
        if not (r.before.matches(r.left) and r.before.mode == r.left.mode)
    }


def read_state(fs: Filesystem, path: str) -> FileState | None:
    """How ``path`` is now; None when it is something no step can compare (a directory, a
    symlink, a special or unreadable file, text that is not UTF-8)."""
    try:
        kind = fs.metadata(path, follow_symlinks=False).kind
    except (FileNotFoundError, NotADirectoryError):
        return ABSENT
    except OSError:
        return None
    if kind != "file":
        return None
    try:
        content = decode_utf8(fs.read_bytes(path))
    except (OSError, Utf8DecodeError):
        return None
    modes = modes_of(fs)
    mode = None
    if modes is not None:
        try:
            mode = modes.file_mode(path)
        except OSError:
            mode = None
    return FileState(content, mode)


@dataclass(frozen=True, slots=True)
class RevertStep:
    """Take ``path`` from ``expect`` to ``target``; ``shown`` is its path as the patch says it.

    ``force``: write it whatever it holds now. ``move_from``: the file now at that path comes
    back here (the step of ``move_from`` follows), so the delta records a move.
    ``remove_dirs``: directories to remove, deepest first, once the file is gone (if empty).
    """

    path: str
    shown: str
    expect: FileState
    target: FileState
    force: bool = False
    move_from: str | None = None
    remove_dirs: tuple[str, ...] = field(default=())


class StepDrift(IoError):
    """A file changed between the undo's check and its writes: nothing was written."""


def _check(fs: Filesystem, steps: Sequence[RevertStep], root: str | None) -> None:
    drifted: list[str] = []
    for step in steps:
        link = None if root is None else linked_ancestor(fs, step.path, root)
        if link is not None:
            raise StepDrift(
                f"{step.shown} is reached through {link} now: an undo never writes through a "
                "symbolic link; nothing was written"
            )
        now = read_state(fs, step.path)
        if step.force or (
            now is not None and (now.matches(step.expect) or now.matches(step.target))
        ):
            continue
        drifted.append(step.shown)
    if drifted:
        raise StepDrift(
            f"changed since the undo was checked: {', '.join(drifted)}; nothing was written "
            "(check again: the conflict shows the three versions)"
        )


#: The errors of opening a file for writing: a write that fails with one wrote nothing.
_REFUSED: Final = frozenset(
    {
        errno.EACCES,
        errno.EPERM,
        errno.EISDIR,
        errno.ENOTDIR,
        errno.ELOOP,
        errno.EROFS,
        errno.ENXIO,
        errno.ETXTBSY,
        errno.ENAMETOOLONG,
        errno.ENOENT,
    }
)


class _Writer:
    def __init__(self, fs: Filesystem) -> None:
        self.fs = fs
        self.modes = modes_of(fs)
        self.changes: list[AppliedPatchChange] = []
        self.exact = True
        # a move back: its source -> the index of the destination's provisional record, and
        # the destination as the patch writes it
        self.moving: dict[str, tuple[int, str]] = {}
        self.added: list[str] = []
        self.modified: list[str] = []
        self.deleted: list[str] = []
        self.unknown: list[str] = []

    def mode(self, path: str) -> int | None:
        if self.modes is None:
            return None
        try:
            return self.modes.file_mode(path)
        except OSError:
            return None

    def write(self, step: RevertStep, now: FileState | None) -> tuple[str, ...]:
        """Write the step's target state; if that fails, put the file back as it was
        (``now``), so that a full disk or a failed mode leaves no torn file (:meth:`_put_back`)."""
        fs, path = self.fs, step.path
        assert step.target.content is not None
        data = step.target.content.encode("utf-8")
        created: list[str] = []
        wrote = False
        try:
            try:
                fs.write_bytes(path, data)
            except FileNotFoundError:
                parent = posixpath.dirname(path)
                while parent not in ("", "/") and read_state(fs, parent) is ABSENT:
                    created.append(parent)
                    parent = posixpath.dirname(parent)
                try:
                    fs.create_dirs(posixpath.dirname(path))
                except OSError as exc:
                    raise IoError(f"Failed to create parent directories for {path}", exc) from exc
                fs.write_bytes(path, data)
            wrote = True
            target_mode = step.target.mode
            modes = self.modes
            if target_mode is not None and modes is not None and self.mode(path) != target_mode:
                modes.set_mode(path, target_mode)
        except (OSError, IoError) as exc:
            # A write refused when opening (a sandbox denial, a symlink refused, a directory in
            # the way) or never begun (its directories could not be made) wrote nothing; any
            # other failure (ENOSPC, EIO) may have left part of the file.
            refused = not wrote and (isinstance(exc, IoError) or exc.errno in _REFUSED)
            self._put_back(path, None if refused else now, created, untouched=refused)
            if isinstance(exc, IoError):
                raise
            raise IoError(f"Failed to write file {path}", exc) from exc
        return tuple(reversed(created))

    def _put_back(
        self, path: str, now: FileState | None, created: Sequence[str], *, untouched: bool
    ) -> None:
        """After a failed write: the file as it was before it (absent, or its bytes and mode),
        and the directories created for it removed (those left empty). Nothing to put back when
        the write changed nothing (``untouched``: refused when opening, or the same bytes); the
        delta is inexact, naming the path, only when the file may have changed and cannot be
        put back."""
        fs = self.fs
        after = None if untouched else read_state(fs, path)
        if untouched or (now is not None and after is not None and after.content == now.content):
            untouched = True
        else:
            try:
                if now is None:
                    raise OSError(errno.EIO, "its state before the write is unknown")
                if now.content is None:
                    fs.remove_file(path)
                else:
                    fs.write_bytes(path, now.content.encode("utf-8"))
            except FileNotFoundError:
                pass
            except OSError:
                self.lose(path)
                return
        modes, mode = self.modes, None if now is None else now.mode
        if untouched and mode is not None and modes is not None and self.mode(path) != mode:
            # the bytes went through (the same as before), then setting the mode failed
            try:
                modes.set_mode(path, mode)
            except OSError:
                self.lose(path)
                return
        for directory in created:  # deepest first; one that holds something stays
            try:
                fs.remove_dir(directory)
            except FileNotFoundError:
                continue  # not created after all (the creation failed before it)
            except OSError:
                break

    def _is_link(self, path: str) -> bool:
        try:
            return self.fs.metadata(path, follow_symlinks=False).kind == "symlink"
        except OSError:
            return False

    def lose(self, path: str) -> None:
        """Something happened at ``path`` that the delta cannot describe."""
        self.exact = False
        if path not in self.unknown:
            self.unknown.append(path)

    def remove(self, step: RevertStep) -> None:
        fs, path = self.fs, step.path
        try:
            fs.remove_file(path, move_source=step.path in self.moving)
        except OSError as exc:
            raise IoError(f"Failed to delete file {path}", exc, ErrorReason.DELETE) from exc
        for directory in step.remove_dirs:
            try:
                fs.remove_dir(directory)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                    continue  # something else lives there now: it stays
                raise IoError(f"Failed to remove directory {directory}", exc) from exc

    def run(self, step: RevertStep) -> None:
        now = read_state(self.fs, step.path)
        if now is not None and now.matches(step.target):
            return  # already as the step leaves it (a retry, or nothing to do)
        old = None if now is None else now.content
        if step.target.content is None:
            self.remove(step)
            pending = self.moving.pop(step.path, None)
            if pending is not None:
                self._moved(pending, step, old)
            elif old is not None:
                self.changes.append(
                    AppliedDelete(step.path, old, None if now is None else now.mode)
                )
                self.deleted.append(step.shown)
            return
        if self._is_link(step.path) or (step.force and other_names(self.fs, step.path)):
            # forced (else _check stopped it): the link itself goes, never its target; a file
            # with other names (a hard link) is replaced, never written through to them
            self.remove(replace(step, remove_dirs=()))
        created = self.write(step, now)
        mode = self.mode(step.path)
        pending = self.moving.pop(step.path, None)
        if pending is not None:  # the move's source is rewritten: the move is complete
            self._moved(pending, step, old, rewritten=True)
            return
        over_mode = None if now is None else now.mode
        self.changes.append(
            AppliedAdd(step.path, step.target.content, old, mode, over_mode, created)
        )
        if step.move_from is not None:
            self.moving[step.move_from] = (len(self.changes) - 1, step.shown)
            return
        (self.modified if old is not None else self.added).append(step.shown)

    def _moved(
        self,
        pending: tuple[int, str],
        step: RevertStep,
        old: str | None,
        *,
        rewritten: bool = False,
    ) -> None:
        """``step.path`` was the source of a move whose destination ``changes[index]`` wrote."""
        index, dest_shown = pending
        dest = self.changes[index]
        assert isinstance(dest, AppliedAdd)
        source_content = old if old is not None else dest.content
        self.changes[index] = AppliedUpdate(
            step.path,
            dest.path,
            source_content,
            dest.overwritten_content,
            dest.content,
            None,
            dest.mode,
            dest.overwritten_mode,
            dest.created_dirs,
        )
        self.modified.append(dest_shown)
        if rewritten:
            assert step.target.content is not None
            self.changes.append(
                AppliedAdd(step.path, step.target.content, None, self.mode(step.path))
            )
            self.added.append(step.shown)


def apply_steps(
    steps: Sequence[RevertStep], fs: Filesystem, root: str | None = None
) -> ApplyOutcome:
    """Check every step (nothing is written if a file drifted, or if a directory on the way to
    one below ``root`` is a symbolic link), then write them in order.

    Never raises for a failing step: the error is in the outcome, next to the exact delta of what
    was written before it. A step already in its target state is skipped, so that running the
    steps again (the unsandboxed retry) finishes the job. A symbolic link at a path a step
    writes is never followed: a forced step replaces the link itself (its target is neither
    read nor written); an unforced one has drifted. A forced step over a file with other names
    (a hard link) replaces its name too, so the other names keep their bytes.
    """
    with interrupt_gate():
        writer = _Writer(fs)

        def outcome(error: ApplyPatchError | None = None) -> ApplyOutcome:
            # A move whose source could not be removed: only the destination was written.
            writer.added.extend(shown for _index, shown in writer.moving.values())
            writer.moving.clear()
            affected = AffectedPaths(
                tuple(writer.added), tuple(writer.modified), tuple(writer.deleted)
            )
            delta = AppliedPatchDelta(tuple(writer.changes), writer.exact, tuple(writer.unknown))
            return ApplyOutcome(delta, affected, error)

        try:
            _check(fs, steps, root)
            for step in steps:
                checkpoint("applying")
                writer.run(step)
        except ApplyPatchError as exc:
            return outcome(exc)
        return outcome()


def describe_paths(records: Mapping[str, FileRecord], cwd: str) -> dict[str, str]:
    """Each path as a patch writes it: relative to ``cwd`` when inside it, else absolute."""
    prefix = cwd.rstrip("/") + "/"
    return {p: p[len(prefix) :] if p.startswith(prefix) else p for p in records}


__all__ = [
    "ABSENT",
    "FileRecord",
    "FileState",
    "RevertStep",
    "StepDrift",
    "apply_steps",
    "describe_paths",
    "file_states",
    "read_state",
]
