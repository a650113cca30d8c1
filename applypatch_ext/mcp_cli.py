"""``python -m applypatch_ext mcp``: the agent's desk over stdio, for a terminal agent.

The agent starts this command as its MCP server (Codex: ``[mcp_servers.NAME] command = ...``)
and calls its tools ``apply_patch``, ``verify_patch`` and ``turn_diff``; every call runs through
the pipeline against ``--cwd`` with the options given here (no call can change them). A call
that needs approval is asked through MCP elicitation when the client supports it, and otherwise
answered by ``--approve`` (default: decline, telling the model why). The JSON events go to
stderr, or to ``--log FILE``. Exits 0 when the client closes the connection, 2 on a usage error
(no such directory, the ``mcp`` extra missing).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

from .core.turn.options import Decision, FrontEnd, add_arguments
from .core.turn.turn import Turn
from .desk.desk import Desk
from .extras import MissingExtraError, require_extra
from .notebooks import front_end_options

DESCRIPTION = (
    "Serve the agent's desk over stdio: an MCP server whose tools apply_patch, verify_patch "
    "and turn_diff run an agent's patches through the pipeline in --cwd. Approvals are asked "
    "through MCP elicitation when the client supports it, else answered by --approve."
)


def add_mcp_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``mcp`` subcommand to the command's subparsers."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "mcp", help="serve the agent's desk (MCP over stdio)", description=DESCRIPTION
    )
    add_arguments(parser, FrontEnd.DESK)
    return parser


def run_mcp(args: argparse.Namespace) -> int:
    try:
        require_extra("mcp")
    except MissingExtraError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    cwd = os.path.abspath(args.cwd or os.curdir)
    if not os.path.isdir(cwd):
        sys.stderr.write(f"error: --cwd: no such directory: {cwd}\n")
        return 2
    if args.answer_timeout <= 0:
        sys.stderr.write("error: --answer-timeout must be more than 0 seconds\n")
        return 2
    try:
        options = front_end_options(cwd, args)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    log: IO[str] = sys.stderr
    if args.log is not None:
        try:
            log = open(args.log, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run
        except OSError as exc:
            sys.stderr.write(f"error: --log: cannot open {args.log}: {exc.strerror}\n")
            return 2
    from .desk.stdio import serve_stdio  # the mcp package, checked above

    desk = Desk(Turn(cwd, options=options), options=options, answer_timeout=args.answer_timeout)
    try:
        serve_stdio(desk, Decision(args.approve), log)
    finally:
        if log is not sys.stderr:
            log.close()
    return 0
