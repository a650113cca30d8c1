"""Fault injection: a :class:`Filesystem` wrapper that fails chosen operations on purpose.

Used by the ``turn`` command, the magic's ``--fault`` option, the tests and the teaching
notebooks. A fault is written as ``KIND:ARG``:

============================  ===============================================================
``write:N``                   the N-th file write (1-based) fails with EIO (a write retried
                              after creating missing parent directories counts once)
``write:PATH``                every write of PATH fails with EIO
``delete:PATH``               removing PATH fails with EIO (a Delete File hunk)
``remove-source:PATH``        removing PATH as the source of a move fails with EIO
``eperm:PATH``                in a sandboxed attempt, writes, removals and directory creation at
                              or under PATH are denied (:class:`SandboxDenied`), as a sandbox
                              denies them; an unsandboxed retry is not affected
``drift:PATH``                a line is appended to PATH right after verification first reads
                              it, or, if verification does not read it (an Add's target, a move
                              destination), just before the first attempt starts (if it exists
                              then): the file always changes between verification and
                              application, never inside it
``cancel:N``                  cancel before the N-th mutating operation (write, remove or
                              directory creation), as if the user interrupted the call
``journal:enospc``            writing an atomic attempt's on-disk journal fails with ENOSPC,
                              as on a full disk (then nothing is changed)
``kill:N``                    before the N-th mutating operation the process sends itself
                              SIGKILL: a crash at a chosen point (for the atomic journal's
                              tests; it ends a Jupyter kernel too)
``stop:N``                    before the N-th mutating operation the process stops itself
                              (SIGSTOP), so that a test can signal it from outside there
============================  ===============================================================

PATH is resolved against the working directory like a hunk path. Reads are never failed (the
reference's read errors come from real files: missing, a directory, not UTF-8).

The wrapper is also where a call's cancellation token is checked: before every mutating
operation, raising :class:`CancelledError`.
"""

from __future__ import annotations

import errno
import os
import signal
from dataclasses import dataclass
from typing import Final

from ..apply.fs import FileMetadata, Filesystem, resolve_path
from ..errors import CancelledError
from ..interrupts import CancellationToken
from .sandbox import SandboxDenied

#: Every fault spec form and what it does: the one source of the fault help of the magic and of
#: ``turn --help`` (PATH is relative to the working directory).
FAULT_SPECS: Final = (
    ("write:N", "the N-th file write of the call fails (EIO)"),
    ("write:PATH", "every write of PATH fails (EIO)"),
    ("delete:PATH", "deleting PATH (a Delete File hunk) fails (EIO)"),
    ("remove-source:PATH", "removing PATH as the source of a move fails (EIO)"),
    (
        "eperm:PATH",
        "in a sandboxed attempt, changes at or under PATH are denied, like a sandbox denial "
        "(an approved unsandboxed retry then succeeds)",
    ),
    (
        "drift:PATH",
        "PATH changes (a line is appended) right after it is first read, i.e. between "
        "verification and application",
    ),
    ("cancel:N", "cancel the call before its N-th change (write, remove, mkdir)"),
    (
        "journal:enospc",
        "writing the on-disk journal of --transaction atomic fails as on a full disk (then "
        "nothing is changed)",
    ),
    ("kill:N", "the process sends itself SIGKILL before its N-th change (a crash)"),
    ("stop:N", "the process stops itself (SIGSTOP) before its N-th change"),
)
FAULT_KINDS: Final = tuple(dict.fromkeys(spec.partition(":")[0] for spec, _ in FAULT_SPECS))
DRIFT_LINE: Final = "drifted: this line was added between verify and apply\n"


class FaultSpecError(ValueError):
    """A fault spec that cannot be understood; the message says which and why."""


@dataclass(frozen=True)
class Fault:
    kind: str
    path: str | None = None  # resolved absolute path
    index: int | None = None  # 1-based operation index
    spec: str = ""


def parse_fault(spec: str, cwd: str) -> Fault:
    """Parse one ``KIND:ARG`` spec (see the module docstring)."""
    kind, sep, arg = spec.partition(":")
    if not sep or not arg:
        raise FaultSpecError(f"fault spec {spec!r} must look like KIND:ARG, e.g. write:2")
    if kind not in FAULT_KINDS:
        raise FaultSpecError(
            f"unknown fault kind {kind!r} in {spec!r}; expected one of {', '.join(FAULT_KINDS)}"
        )
    if kind == "journal":
        if arg != "enospc":
            raise FaultSpecError(f"{spec!r}: the only journal fault is journal:enospc")
        return Fault(kind, spec=spec)
    if kind in ("cancel", "kill", "stop") or (kind == "write" and arg.isdigit()):
        if not arg.isdigit() or int(arg) < 1:
            raise FaultSpecError(f"{spec!r}: {kind} needs an operation number >= 1")
        return Fault(kind, index=int(arg), spec=spec)
    return Fault(kind, path=resolve_path(cwd, arg), spec=spec)


def fault_help(width: int = 94) -> str:
    """The fault specs and their descriptions, as the epilog of a help text."""
    column = max(len(spec) for spec, _ in FAULT_SPECS) + 4
    lines = ["fault specs (--fault, repeatable; PATH is relative to the working directory):"]
    for spec, description in FAULT_SPECS:
        words = description.split()
        line = f"  {spec:<{column - 2}}"
        for word in words:
            if len(line) + 1 + len(word) > width and line.strip() != spec:
                lines.append(line.rstrip())
                line = " " * column
            line += ("" if line.endswith(" ") else " ") + word
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def _io_error(path: str, code: int = errno.EIO) -> OSError:
    return OSError(code, os.strerror(code), path)


class FaultyFilesystem:
    """Wraps a filesystem and injects the given faults; records which ones fired.

    :meth:`begin_attempt` replaces ``inner`` between attempts (sandboxed, then not); counters
    persist, so ``write:N`` counts the writes of the whole call. ``external`` is where a drift
    writes (the outside world, never a sandbox or a transaction journal).

    ``read_only`` is a dry run's view: no fault fires (a drift would write the real file) and
    every change is refused with ``EROFS``, whatever the faults, so nothing can be written.
    """

    def __init__(
        self,
        inner: Filesystem,
        faults: list[Fault] | tuple[Fault, ...] = (),
        *,
        cancel: CancellationToken | None = None,
        external: Filesystem | None = None,
        read_only: bool = False,
    ) -> None:
        self.inner = inner
        self.read_only = read_only
        self.external = external if external is not None else inner
        self.faults = tuple(faults)
        self.cancel = cancel
        self.sandboxed = False
        self.writes = 0
        self.mutations = 0
        self.fired: list[str] = []
        self._drifted: set[str] = set()  # drift paths done with (fired, or never can)
        self._attempt_begun = False

    @classmethod
    def from_specs(cls, inner: Filesystem, specs: list[str], cwd: str) -> FaultyFilesystem:
        return cls(inner, [parse_fault(s, cwd) for s in specs])

    def _matching(self, kind: str, path: str, *, under: bool = False) -> Fault | None:
        for fault in self.faults:
            if fault.kind != kind or fault.path is None:
                continue
            if fault.path == path or (under and path.startswith(fault.path.rstrip("/") + "/")):
                return fault
        return None

    def _fire(self, fault: Fault) -> None:
        self.fired.append(fault.spec)

    def _mutation(self, path: str) -> None:
        if self.read_only:
            raise _io_error(path, errno.EROFS)
        self.mutations += 1
        for fault in self.faults:
            if fault.kind in ("kill", "stop") and fault.index == self.mutations:
                self._fire(fault)
                os.kill(os.getpid(), signal.SIGKILL if fault.kind == "kill" else signal.SIGSTOP)
            if fault.kind == "cancel" and fault.index == self.mutations:
                self._fire(fault)
                if self.cancel is not None:
                    self.cancel.cancel()
                raise CancelledError()
        if self.cancel is not None and self.cancel.cancelled:
            raise CancelledError()
        denied = self._matching("eperm", path, under=True) if self.sandboxed else None
        if denied is not None:
            self._fire(denied)
            raise SandboxDenied(path, f"denied by the fault {denied.spec}")

    def begin_attempt(self, inner: Filesystem, *, sandboxed: bool) -> None:
        """Run the next attempt through ``inner`` (a sandboxed view or not).

        Before the first attempt, drifts that did not fire during verification fire now: were
        they left to the first read, they would fire inside the attempt, between the read of an
        overwritten file and its write, and the delta would record a text that was no longer
        there. A drift whose path does not exist then never fires (not on a file an attempt
        creates either: that would be a change inside application).
        """
        first = not self._attempt_begun
        self._attempt_begun = True
        self.inner = inner
        self.sandboxed = sandboxed
        if not first:
            return
        for fault in self.faults:
            if fault.kind == "drift" and fault.path is not None:
                self._drift(fault, fault.path)
                self._drifted.add(fault.path)

    def _drift(self, fault: Fault, path: str, data: bytes | None = None) -> None:
        """Append the drift line to ``path`` once (``data``: its bytes, if just read)."""
        if path in self._drifted or self.read_only:
            return
        if data is None:
            try:
                data = self.external.read_bytes(path)
            except OSError:  # nothing there (or nothing readable) to change
                return
        self._drifted.add(path)
        self._fire(fault)
        self.external.write_bytes(path, data + DRIFT_LINE.encode())

    # -- the Filesystem protocol ----------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        data = self.inner.read_bytes(path)
        drift = self._matching("drift", path)
        if drift is not None:
            self._drift(drift, path, data)
        return data

    def write_bytes(self, path: str, data: bytes) -> None:
        self._mutation(path)
        self.writes += 1
        for fault in self.faults:
            if fault.kind == "write" and (fault.index == self.writes or fault.path == path):
                self._fire(fault)
                raise _io_error(path)
        try:
            self.inner.write_bytes(path, data)
        except FileNotFoundError:
            # Nothing was written: a parent directory is missing, and the caller creates it and
            # writes again. That second try is the same file write for write:N and cancel:N.
            self.writes -= 1
            self.mutations -= 1
            raise

    def create_dirs(self, path: str) -> None:
        self._mutation(path)
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._mutation(path)
        fault = self._matching("remove-source" if move_source else "delete", path)
        if fault is not None:
            self._fire(fault)
            raise _io_error(path)
        self.inner.remove_file(path, move_source=move_source)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)

    def remove_dir(self, path: str) -> None:
        self._mutation(path)
        self.inner.remove_dir(path)
