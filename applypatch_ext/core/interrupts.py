"""Interrupts: SIGINT held back while one file is written; cancellation checkpoints.

A kernel interrupt (or Ctrl-C) is a SIGINT; Python turns it into ``KeyboardInterrupt`` at the
next bytecode, which can be in the middle of a file's write: the file is then left truncated
(``O_TRUNC`` done, the data not yet written). :func:`deferred_interrupts` holds SIGINT back for
the duration of one such step and delivers it again, to whatever handler was in place (the
default ``KeyboardInterrupt``, a cancellation handler, ``SIG_IGN``), right after the step is
complete. It works for any caller of the library, whether or not a front end installed a
handler; it does nothing outside the main thread (only the main thread receives signals in
Python, and only it may change their handlers).

Nested uses are cheap: only the outermost one swaps the handler.

:func:`cancellation` makes a call's token the current one (a context variable) and
:func:`checkpoint`, called in every long loop, raises :class:`~.errors.CancelledError` once it is
cancelled: no signature between the pipeline and the loops has to carry the token.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import FrameType
from typing import Protocol

from .errors import CancelledError

_state = threading.local()


class Cancellable(Protocol):
    """What :func:`checkpoint` reads: a :class:`~.faults.CancellationToken`."""

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


def _depth() -> int:
    return getattr(_state, "depth", 0)


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """While inside, a SIGINT is recorded instead of handled; it is raised again on exit.

    The previous handler is back in place before the signal is raised again, so it sees the
    interrupt exactly as if it had arrived right after the block.
    """
    if _depth() or threading.current_thread() is not threading.main_thread():
        _state.depth = _depth() + 1
        try:
            yield
        finally:
            _state.depth -= 1
        return
    pending: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        pending.append(signum)

    try:
        previous = signal.signal(signal.SIGINT, hold)
    except ValueError:  # not the main interpreter: signals are not ours to handle
        yield
        return
    if previous is None:  # a handler set from C: the closest Python can restore is the default
        previous = signal.SIG_DFL
    _state.depth = 1
    try:
        yield
    finally:
        _state.depth = 0
        signal.signal(signal.SIGINT, previous)
        if pending:
            signal.raise_signal(signal.SIGINT)


def interrupts_deferred() -> bool:
    """Whether this thread is inside :func:`deferred_interrupts` (for tests and assertions)."""
    return _depth() > 0
