"""``%apply_patch_mcp start|stop|status [NAME]``: the agent's desk inside the kernel.

``start`` serves the desk (:mod:`applypatch_ext.desk`) over streamable HTTP on 127.0.0.1, in a
thread of the kernel, and prints its URL, its token and ready-to-paste configuration for
Codex, Claude Code and Jupyter AI. Its turn is the notebook's (the session's turn for its
folder), so a person's cells and the agent's calls share one TurnDiff and one undo history.
Each call of an agent appears in the desk's output (an ``ipywidgets.Output`` shown by the
``start`` cell) as the same live widget a cell shows; its buttons, and ``NAME.calls[-1].
decide(...)``, answer it.

Threads: a call runs in a worker thread of the server, under the session's lock
(``SESSION.lock``), which a cell's call takes too; a widget's message is handled on the
kernel's main thread, and only hands the answer over (the worker resumes the call). A kernel
interrupt (while a cell runs, or while the kernel is idle) and the kernel's shutdown decline what
waits at every desk; nothing waits on the main thread, so nothing deadlocks.
"""

from __future__ import annotations

import atexit
import signal
import threading
from typing import Any, Final

import ipywidgets  # type: ignore[import-untyped]
from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ...core.turn.options import Answer, CallStatus, Decision, FrontEnd
from ...desk.clients import (
    JUPYTER_AI_SETTINGS,
    TOKEN_ENV,
    claude_code_command,
    codex_toml,
    jupyter_ai_json,
)
from ...extras import MissingExtraError, require_extra
from ..live.desk import KernelDesk
from ..live.result import PatchCallResult
from .arguments import cwd_option, parse_options, table_arguments
from .magic import _options

DEFAULT_NAME: Final = "desk"
#: Why waiting calls are declined when the kernel is interrupted or shut down.
INTERRUPTED: Final = "the kernel was interrupted while the call waited for approval"
SHUT_DOWN: Final = "the kernel shut down while the call waited for approval"
STOPPED: Final = "the desk was stopped (%apply_patch_mcp stop) while the call waited"


class DeskHandle:
    """What ``NAME`` is bound to: the desk's address, its calls, and how to stop it."""

    def __init__(self, name: str, desk: KernelDesk, server: Any) -> None:
        self.name = name
        self.desk = desk
        self.server = server

    @property
    def url(self) -> str:
        return str(self.server.url)

    @property
    def token(self) -> str:
        return str(self.server.token)

    @property
    def cwd(self) -> str:
        return self.desk.cwd

    @property
    def running(self) -> bool:
        return bool(self.server.running) and not self.desk.stopped

    @property
    def calls(self) -> list[PatchCallResult]:
        """Every call's result, in order (each updates as its call goes on)."""
        return [view.result for view in self.desk.views if view.result is not None]

    @property
    def pending(self) -> list[PatchCallResult]:
        return [r for r in self.calls if r.status == CallStatus.AWAITING_APPROVAL]

    def codex_config(self) -> str:
        return codex_toml(self.name, self.url)

    def claude_code_config(self) -> str:
        return claude_code_command(self.name, self.url)

    def jupyter_ai_config(self) -> str:
        return jupyter_ai_json(self.name, self.url, self.token)

    def stop(self, reason: str = STOPPED) -> list[PatchCallResult]:
        """Decline what waits (with ``reason``), let those calls end, close the server;
        returns the calls that were declined so."""
        waiting = [r for r in self.calls if r.status == CallStatus.AWAITING_APPROVAL]
        self.server.stop(reason)
        return waiting

    def status(self) -> str:
        counts: dict[str, int] = {}
        for result in self.calls:
            counts[str(result.status)] = counts.get(str(result.status), 0) + 1
        state = "running" if self.running else "stopped"
        summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no calls yet"
        lines = [f"desk {self.name!r}: {state} at {self.url} (folder {self.cwd}); {summary}"]
        lines += [f"  waiting: {r.call_id} ({', '.join(_files(r))})" for r in self.pending]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.status()


def _files(result: PatchCallResult) -> list[str]:
    request = result.raw.pending_request
    return [] if request is None else list(request.files)


#: The desks of this kernel, by name.
DESKS: dict[str, DeskHandle] = {}


def stop_all(reason: str) -> None:
    """Decline what waits at every running desk and stop it (interrupt, shutdown)."""
    for handle in list(DESKS.values()):
        if handle.running:
            handle.stop(reason)


def decline_waiting(reason: str) -> None:
    """Decline what waits at every desk; the desks keep running (a kernel interrupt)."""
    for handle in list(DESKS.values()):
        for call in handle.desk.pending:
            handle.desk._give(call, Answer(Decision.DECLINE, reason=reason))


_hooked = False


def _hook_interrupts_and_shutdown(shell: Any) -> None:
    """Once per kernel: an interrupt declines what waits (while a cell runs: after it; while
    idle: ipykernel's SIGINT handler, kept by the kernel between cells, is ours), and the
    kernel's exit stops every desk."""
    global _hooked
    if _hooked:
        return
    _hooked = True
    atexit.register(stop_all, SHUT_DOWN)

    def after_cell(result: Any) -> None:
        if isinstance(getattr(result, "error_in_exec", None), KeyboardInterrupt):
            decline_waiting(INTERRUPTED)

    shell.events.register("post_run_cell", after_cell)
    kernel = getattr(shell, "kernel", None)
    if kernel is None or threading.current_thread() is not threading.main_thread():
        return
    idle = getattr(kernel, "saved_sigint_handler", None)

    def on_sigint(signum: int, frame: Any) -> None:
        decline_waiting(INTERRUPTED)
        if callable(idle):
            idle(signum, frame)

    # ipykernel restores this handler after each cell (it saved it before the cell)
    kernel.saved_sigint_handler = on_sigint
    signal.signal(signal.SIGINT, on_sigint)


@magics_class
class DeskMagics(Magics):
    """``%apply_patch_mcp``: the agent's desk."""

    @magic_arguments()
    @argument("action", choices=("start", "stop", "status"), help="What to do with the desk.")
    @argument(
        "name",
        nargs="?",
        default=DEFAULT_NAME,
        help=f"The desk's name, bound in the namespace to its handle (default: {DEFAULT_NAME}); "
        "also the name of the MCP server in the printed configurations.",
    )
    @table_arguments(FrontEnd.DESK_MAGIC)
    @line_magic("apply_patch_mcp")  # type: ignore[arg-type]
    def apply_patch_mcp(self, line: str) -> None:
        """Start, stop or show the agent's desk: an MCP server in this kernel whose tools
        apply_patch, verify_patch and turn_diff run an agent's patches through the pipeline in
        the notebook's turn, each call shown as a live widget below and answered there.

        ``start`` prints the URL (127.0.0.1 only), the token and the configuration for Codex,
        Claude Code and Jupyter AI; NAME (default ``desk``) is bound to the desk's handle:
        ``NAME.calls`` (every call's result, in order), ``NAME.calls[-1].decide(...)``,
        ``NAME.stop()``, ``NAME.status()``. ``stop`` declines what waits and closes the
        server; ``status`` says what the desk is doing.
        """
        args = parse_options(self.apply_patch_mcp, "%apply_patch_mcp", line)
        if not args.name.isidentifier():
            raise UsageError(
                f"%apply_patch_mcp: NAME must be a Python identifier, got {args.name!r}"
            )
        if args.action == "start":
            self._start(args)
            return
        handle = DESKS.get(args.name)
        if handle is None:
            known = ", ".join(DESKS) or "none"
            raise UsageError(
                f"%apply_patch_mcp {args.action}: no desk named {args.name!r} (desks: {known}); "
                f"start one with %apply_patch_mcp start {args.name}"
            )
        if args.action == "stop":
            declined = handle.stop()
            print(f"desk {args.name!r} stopped; {len(declined)} waiting call(s) declined")
        print(handle.status())

    def _start(self, args: Any) -> None:
        try:
            require_extra("mcp")
        except MissingExtraError as exc:
            raise UsageError(f"%apply_patch_mcp: {exc}") from None
        from ...desk.http import HttpDesk  # the mcp extra, checked above

        current = DESKS.get(args.name)
        if current is not None and current.running:
            raise UsageError(
                f"%apply_patch_mcp start: desk {args.name!r} is running at {current.url}; stop "
                f"it first (%apply_patch_mcp stop {args.name}) or give another NAME"
            )
        if args.answer_timeout <= 0:
            raise UsageError("--answer-timeout must be more than 0 seconds")
        cwd = cwd_option(args.cwd)
        options = _options(args, cwd)
        output = ipywidgets.Output()
        desk = KernelDesk(cwd, options, args.answer_timeout, output)
        try:
            server = HttpDesk(desk, port=args.port).start()
        except OSError as exc:
            raise UsageError(
                f"--port {args.port}: cannot listen on 127.0.0.1: {exc.strerror}"
            ) from None
        handle = DeskHandle(args.name, desk, server)
        DESKS[args.name] = handle
        if self.shell is not None:
            self.shell.user_ns[args.name] = handle
            _hook_interrupts_and_shutdown(self.shell)
        print(_started_text(handle))
        desk.record.show()
        desk.record.display_live(output)


def _started_text(handle: DeskHandle) -> str:
    name = handle.name
    return "\n".join(
        [
            f"The desk {name!r} is serving {handle.cwd} at {handle.url} (127.0.0.1 only).",
            f"Token: {handle.token}",
            f"Give it to the agent as ${TOKEN_ENV}: export {TOKEN_ENV}={handle.token}",
            "",
            "Codex (~/.codex/config.toml):",
            handle.codex_config(),
            "Claude Code:",
            "  " + handle.claude_code_config(),
            "",
            f"Jupyter AI ({JUPYTER_AI_SETTINGS} at the root of the workspace; the agents of "
            "the chats opened after it read it, if they take MCP over HTTP):",
            handle.jupyter_ai_config(),
            "",
            f"Each call appears below; {name}.calls lists them, {name}.calls[-1].decide(...) "
            f"answers one, %apply_patch_mcp stop {name} stops the desk.",
        ]
    )


__all__: Final[list[str]] = ["DESKS", "DeskHandle", "DeskMagics", "KernelDesk"]
