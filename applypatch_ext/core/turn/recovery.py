"""Recovery after a crash: put a working directory back from the journal an unfinished atomic
call left (``python -m applypatch_ext recover``, and the next call in that directory).

What is trusted, and why (SECURITY.md says it for users):

- A journal only if this program wrote it for this user: :func:`~..apply.journal.read_journal`
  checks its owner, its mode, that it is a regular file, and the signature of every line under
  the state folder's key, before any entry is used. No patch can write a journal or read the
  key: the state folders are refused to every patch (:mod:`.policy`, :mod:`.sandbox`) and the key
  is not UTF-8.
- Even then, recovery changes only what the interrupted attempt could have changed: it restores
  through :class:`RecoveryFilesystem`, the attempt's own confinement (recorded in the journal,
  signed with it: its sandbox view, or its granted paths) with no symlink on the way, and sets a
  mode as the recorded permission bits only. A path the attempt could not change (the journal
  records the prior state of every path the patch names, also those the sandbox then denied) is
  left as it is, and listed.
- A journal that fails a check is never used: it is moved aside (renamed beside itself,
  ``….refused-TIME-PID``) and a :class:`Refusal` names it, where it went and why; the call goes
  on. ``recover`` exits 1 with that message.

This module does not write journals (the attempt does, :mod:`~..apply.journal`) and does not
restore by itself (:func:`~..apply.transaction.restore` does, through the view given here).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..apply import journal as wal
from ..apply.fs import LocalFilesystem
from ..apply.journal import JournalError, JournalRefused
from ..apply.transaction import restore
from ..interrupts import deferred_interrupts
from ..text import format_io_error
from .events import TransactionJournalRefused, TransactionRecovered
from .policy import PermissionProfile, SandboxPolicy
from .sandbox import (
    CREATING_DIRECTORY,
    CREATING_SYMLINK,
    WRITING,
    Check,
    Confinement,
    GuardedFilesystem,
    NoSymlinks,
    SandboxDenied,
    SymlinkRefused,
    all_of,
)


class RecoveryFilesystem(GuardedFilesystem):
    """The view a recovery restores through (see the module docstring).

    A change is refused with :class:`~.sandbox.SymlinkRefused` if a directory on the way is a
    symlink, or, for a write or a mode, if the path itself is one (a removal removes a symlink
    itself); then checked by ``check``, the interrupted attempt's confinement, which raises
    :class:`~.sandbox.SandboxDenied`. Reads pass through. Besides the guarded changes it
    creates symlinks and sets modes (an atomic rollback's needs), under the same rules.
    """

    def __init__(self, inner: LocalFilesystem, check: Check) -> None:
        super().__init__(
            inner, all_of(NoSymlinks(inner, leaf=(WRITING, CREATING_DIRECTORY)), check)
        )
        self.local = inner

    def canonical_path(self, path: str) -> str:
        return self.local.canonical_path(path)

    def read_link(self, path: str) -> str:
        return self.local.read_link(path)

    def create_symlink(self, target: str, path: str) -> None:
        self.check(path, CREATING_SYMLINK)
        self.local.create_symlink(target, path)

    def file_mode(self, path: str) -> int:
        return self.local.file_mode(path)

    def set_mode(self, path: str, mode: int) -> None:
        # Permission bits, setuid, setgid and sticky as the journal recorded the file before
        # the call (the reader took only 0..0o7777), nothing else.
        self.check(path, WRITING)
        self.local.set_mode(path, stat.S_IMODE(mode))


def _why(exc: OSError) -> str:
    return str(exc) if isinstance(exc, (SandboxDenied, SymlinkRefused)) else format_io_error(exc)


@dataclass(frozen=True)
class Recovery:
    """What :func:`recover` did in ``cwd`` with the journal of the unfinished call.

    ``skipped``: paths the journal recorded that the call could not change, found changed
    (``(path, why)``): left as they are.
    """

    cwd: str
    journal: str
    call_id: str | None
    pid: int | None
    started: str | None
    restored: tuple[str, ...]
    removed: tuple[str, ...]
    failures: tuple[tuple[str, str], ...]
    skipped: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return not self.failures

    def report(self) -> str:
        """The text ``recover`` prints: what it found and every path it changed."""
        who = f"call {self.call_id}, pid {self.pid}, started {self.started}"
        lines = [
            f"recovered {self.cwd} from the journal of an atomic apply_patch call that did "
            f"not finish ({who}): {self.journal}"
        ]
        skipped = self.skipped
        lines += [f"  restored {p}" for p in self.restored]
        lines += [f"  removed {p}" for p in self.removed]
        lines += [f"  left alone {p} (that call could not change it): {why}" for p, why in skipped]
        lines += [f"  could not restore {p}: {why}" for p, why in self.failures]
        if self.failures:
            lines.append(
                f"the journal is kept at {self.journal}: fix the cause and run "
                f"`python -m applypatch_ext recover --cwd {self.cwd}` again"
            )
        elif not self.restored and not self.removed:
            lines.append("nothing had changed yet: the tree is as it was before that call")
        else:
            changed = len(self.restored) + len(self.removed)
            lines.append(f"{changed} paths put back: the tree is as it was before that call")
        return "\n".join(lines) + "\n"

    def event(self, call_id: str) -> TransactionRecovered:
        return TransactionRecovered(
            call_id,
            self.cwd,
            self.journal,
            self.call_id,
            self.restored,
            self.removed,
            tuple(f"{path}: {why}" for path, why in self.failures),
            tuple(f"{path}: {why}" for path, why in self.skipped),
        )


@dataclass(frozen=True)
class Refusal:
    """A journal found in ``cwd`` that was not used: why, and where it was moved aside
    (``moved_to``), or why it could not be (``move_error``)."""

    cwd: str
    journal: str
    reason: str
    moved_to: str | None
    move_error: str | None = None

    def report(self) -> str:
        """The text ``recover`` prints (on stderr, exit 1)."""
        where = (
            f"it was moved aside to {self.moved_to}"
            if self.moved_to is not None
            else f"it could not be moved aside ({self.move_error}): remove it by hand"
        )
        return (
            f"refused the journal {self.journal} found for {self.cwd}: {self.reason}\n"
            f"nothing was restored from it and it will not be used; {where}\n"
        )

    def event(self, call_id: str) -> TransactionJournalRefused:
        return TransactionJournalRefused(
            call_id, self.cwd, self.journal, self.reason, self.moved_to, self.move_error
        )


def _refuse(cwd: str, path: str, reason: str) -> Refusal:
    try:
        return Refusal(cwd, path, reason, wal.move_aside(path))
    except OSError as exc:
        return Refusal(cwd, path, reason, None, exc.strerror or str(exc))


def _confinement(record: Mapping[str, Any] | None, cwd: str) -> Confinement:
    """The attempt's confinement; a journal written without one (by a library caller of
    ``DiskJournal``) is confined to its working directory."""
    if record is None:
        policy = SandboxPolicy(
            PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
        )
        return Confinement("sandbox", cwd, policy)
    return Confinement.from_json(record)


def recover(cwd: str, fs: LocalFilesystem | None = None) -> Recovery | Refusal | None:
    """Restore ``cwd`` from the journal an unfinished atomic call left; None if there is none,
    a :class:`Refusal` if that journal must not be used (it is moved aside).

    ``fs``: the disk the view restores through. Raises :class:`~..apply.journal.JournalBusy`
    when that call is still running (its process holds the journal), another
    :class:`~..apply.journal.JournalError` when the journal cannot be locked or read. SIGINT
    waits until the restore is done; a crash during it leaves the journal, and recovering again
    ends exact.
    """
    if wal.pending(cwd) is None:
        return None
    real = os.path.realpath(cwd)
    base = fs if fs is not None else LocalFilesystem()
    with wal.locked(cwd) as path, deferred_interrupts():
        try:
            journal = wal.read_journal(path)
            if journal.header["cwd"] != real:
                raise JournalRefused(path, f"it is for {journal.header['cwd']}, not {real}")
            try:
                confinement = _confinement(journal.confinement, real)
            except ValueError as exc:
                raise JournalRefused(path, str(exc)) from None
        except FileNotFoundError:
            return None  # recovered by another process meanwhile
        except JournalRefused as exc:
            return _refuse(real, path, exc.reason)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise JournalError(exc.errno, f"cannot read the journal {path}: {reason}") from exc
        result = restore(RecoveryFilesystem(base, confinement.check(base)), journal.entries)
        failures = [(p, _why(e)) for p, e in result.failures if not isinstance(e, SandboxDenied)]
        skipped = [(p, _why(e)) for p, e in result.failures if isinstance(e, SandboxDenied)]
        if not failures:
            wal.remove_journal(path)
    header = journal.header
    return Recovery(
        cwd=real,
        journal=path,
        call_id=header["call_id"],
        pid=header["pid"],
        started=header["started"],
        restored=result.restored,
        removed=result.removed,
        failures=tuple(failures),
        skipped=tuple(skipped),
    )
