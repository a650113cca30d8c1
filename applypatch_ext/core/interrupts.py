"""Interrupts: SIGINT held back while one file is written; cancellation checkpoints.

A kernel interrupt (or Ctrl-C) is a SIGINT; Python turns it into ``KeyboardInterrupt`` at the
next bytecode, which can be in the middle of a file's write: the file is then left truncated
(``O_TRUNC`` done, the data not yet written). :func:`deferred_interrupts` holds SIGINT back for
the duration of one such step and delivers it again, to whatever handler was in place (the
default ``KeyboardInterrupt``, a cancellation handler, ``SIG_IGN``), right after the step is
complete. It works for any caller of the library, whether or not a front end installed a
handler; it does nothing outside the main thread (only the main thread receives signals in
Python, and only it may change their handlers).

A run of many writes opens an :func:`interrupt_gate` once (the apply loop does): the handler
is swapped once for the run, and each write only marks itself in progress.

:func:`cancellation` makes a call's token the current one (a context variable) and
:func:`checkpoint`, called in every long loop, raises :class:`~.errors.CancelledError` once it is
cancelled: no signature between the pipeline and the loops has to carry the token.
"""

from __future__ import annotations

import signal
from _thread import get_ident
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from types import FrameType
from typing import Any, Protocol

from .errors import CancelledError

#: The gate open in the main thread, if any (only the main thread can install one).
_gate: _Gate | None = None


class Cancellable(Protocol):
    """What :func:`checkpoint` reads: a :class:`CancellationToken`."""

    @property
    def cancelled(self) -> bool: ...


_current: ContextVar[Cancellable | None] = ContextVar("applypatch_cancel", default=None)


@contextmanager
def cancellation(token: Cancellable | None) -> Iterator[None]:
    """While inside, :func:`checkpoint` honours ``token`` (a call's cancellation token)."""
    reset = _current.set(token)
    try:
        yield
    finally:
        _current.reset(reset)


def checkpoint(stage: str = "") -> None:
    """Raise :class:`~.errors.CancelledError` if the current call's token is cancelled.

    Cheap (a context variable and an attribute): the long loops of parsing, verification and
    the match explanation call it every few thousand lines, so that an interrupt (a SIGINT
    handler that cancels the token) is honoured within a fraction of a second in every stage.
    """
    token = _current.get()
    if token is not None and token.cancelled:
        raise CancelledError(
            f"apply_patch was cancelled while {stage}" if stage else "apply_patch was cancelled"
        )


class _Gate:
    """The SIGINT handler while a gate is open: forwards a signal at once, or, inside a write,
    keeps it for the end of that write."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous
        self.owner = get_ident()  # the main thread's: signal.signal works nowhere else
        self.writing = 0
        self.pending = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.writing:
            self.pending = True
            return
        self.forward(signum, frame)

    def forward(self, signum: int, frame: FrameType | None) -> None:
        """Hand the signal to the handler the gate replaced."""
        previous = self.previous
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:  # the default action: end the process, as it would
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.raise_signal(signal.SIGINT)


def _install(gate: _Gate) -> bool:
    try:
        previous = signal.signal(signal.SIGINT, gate)
    except ValueError:  # not the main thread of the main interpreter: not ours to handle
        return False
    # None: a handler set from C; the closest Python can put back is the default.
    gate.previous = signal.SIG_DFL if previous is None else previous
    return True


@contextmanager
def interrupt_gate() -> Iterator[None]:
    """Install the SIGINT gate once for a run of many writes (an apply), so that each write's
    :func:`deferred_interrupts` costs two attribute updates instead of two handler swaps.

    Outside the gate, interrupts go to the handler in place as before. Outside the main
    thread (where no handler can be installed) it does nothing.
    """
    global _gate
    if _gate is not None:
        yield
        return
    gate = _Gate(None)
    if not _install(gate):
        yield
        return
    _gate = gate
    try:
        yield
    finally:
        _gate = None
        signal.signal(signal.SIGINT, gate.previous)


class _Deferral:
    """The context manager of :func:`deferred_interrupts` (a class: it runs for every write)."""

    __slots__ = ("_gate", "_opened")

    def __enter__(self) -> None:
        self._opened: AbstractContextManager[None] | None = None
        gate = _gate
        if gate is None:  # no gate around: open one for this block
            opened = interrupt_gate()
            opened.__enter__()
            self._opened = opened
            gate = _gate  # still None outside the main thread: nothing to hold back there
        if gate is not None and gate.owner != get_ident():
            gate = None  # another thread writes while the main thread's gate is open
        self._gate = gate
        if gate is not None:
            gate.writing += 1

    def __exit__(self, *_exc: object) -> None:
        gate = self._gate
        try:
            if gate is not None:
                gate.writing -= 1
                if gate.pending and not gate.writing:
                    gate.pending = False
                    gate.forward(signal.SIGINT, None)
        finally:
            if self._opened is not None:
                self._opened.__exit__(None, None, None)


def deferred_interrupts() -> AbstractContextManager[None]:
    """While inside, a SIGINT is kept instead of handled; it is handled on exit.

    The handler in place before sees the interrupt exactly as if it had arrived right after
    the block. Without an :func:`interrupt_gate` around, this opens one for the block.
    """
    return _Deferral()


def interrupts_deferred() -> bool:
    """Whether this thread is inside :func:`deferred_interrupts` (for tests and assertions)."""
    gate = _gate
    return gate is not None and gate.owner == get_ident() and gate.writing > 0


class CancellationToken:
    """Set from anywhere (a KeyboardInterrupt handler, another thread); checked between writes."""

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
