"""``python -m applypatch_ext turn``: run patch files as the tool calls of one turn.

Prints every event as one JSON object per line (PatchApplyUpdated, safety, begin, approval
requests and decisions, end, TurnDiff), a ``call_result`` line after each call, and, last, the
final TurnDiff of the turn. Exits 0 when every call completed, 1 otherwise, 2 on a usage error.

Nobody can answer an approval request here, so with ``--approve ask`` (the default, as in the
magic) every request is declined and stderr says which one and how to approve it: a patch that
writes outside the writable roots, or into ``.git``, never goes through unless the user asked
for it on the command line.

``python -m applypatch_ext recover [--cwd DIR]``: put DIR back as it was before an atomic call
that did not finish (its process was killed), from the call's on-disk journal, and say what was
done. Exits 0 when the tree was restored or there was nothing to recover, 1 when some path could
not be restored (the journal is kept), a call is still running there, or the journal there was
refused (this program did not write it, or it fails a check: it is moved aside, never used).

``python -m applypatch_ext mcp --cwd DIR``: the agent's desk over stdio (see ``mcp_cli``).
``python -m applypatch_ext strip NOTEBOOK...``: leave each call's live widget out of notebooks
executed without a Jupyter server (see :mod:`applypatch_ext.strip_cli`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from .core.apply.journal import STATE_DIR_ENV, JournalError, journal_path
from .core.turn.events import ApplyPatchApprovalRequest
from .core.turn.faults import fault_help
from .core.turn.options import ASK, Decision, FrontEnd, add_arguments
from .core.turn.recovery import Refusal, recover
from .core.turn.result import JsonLines
from .core.turn.turn import Turn
from .mcp_cli import add_mcp_parser, run_mcp
from .notebooks import front_end_options
from .replay_cli import add_replay_parser, run_replay
from .strip_cli import add_strip_parser, run_strip


def _environment(text: str) -> tuple[str, str]:
    name, sep, directory = text.partition("=")
    if not sep or not name or not directory:
        raise argparse.ArgumentTypeError(f"expected NAME=DIR, got {text!r}")
    return name, os.path.abspath(directory)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m applypatch_ext",
        description="Run the Codex apply_patch pipeline outside Jupyter.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    turn = commands.add_parser(
        "turn",
        help="run each PATCH_FILE as one tool call of one turn, printing JSON events",
        description=(
            "Run each PATCH_FILE as one apply_patch tool call of one turn and print every "
            "event as one JSON object per line; the last line is the final TurnDiff."
        ),
        epilog=fault_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    turn.add_argument("patch_files", metavar="PATCH_FILE", nargs="+", help="a patch, one per call")
    add_arguments(turn, FrontEnd.TURN, types={"--environment": _environment})
    rec = commands.add_parser(
        "recover",
        help="restore a working directory after an atomic call that did not finish",
        description=(
            "Put the working directory back exactly as it was before an atomic apply_patch "
            "call (--transaction atomic) whose process was killed in the middle, from that "
            "call's write-ahead journal, and list every path restored or removed. The next "
            "call in that directory does the same by itself."
        ),
        epilog=(
            "journals live in $APPLYPATCH_STATE_DIR/journals if set, else in "
            "$XDG_STATE_HOME/applypatch_ext/journals or ~/.local/state/applypatch_ext/journals"
        ),
    )
    rec.add_argument(
        "--cwd", default=".", metavar="DIR", help="the working directory (default: the current one)"
    )
    add_replay_parser(commands)
    add_mcp_parser(commands)
    add_strip_parser(commands)
    return parser


def declined_message(patch_file: str, request: ApplyPatchApprovalRequest) -> str:
    """What stderr says about a request declined because no ``--approve`` was given."""
    kind = "the retry without the sandbox" if request.retry else "the approval request"
    files = ", ".join(request.files)
    return (
        f"turn: {patch_file} ({request.call_id}): declined {kind} to write {files} "
        f"(cwd {request.cwd}): no --approve was given; rerun with --approve approve to "
        "approve it\n"
    )


def _default_approver(patch_file: str) -> Callable[[ApplyPatchApprovalRequest], Decision]:
    """Decline every request of the call running ``patch_file``, saying so on stderr."""

    def decline(request: ApplyPatchApprovalRequest) -> Decision:
        sys.stderr.write(declined_message(patch_file, request))
        sys.stderr.flush()
        return Decision.DECLINE

    return decline


def read_patch_files(paths: Sequence[str]) -> list[str]:
    """Every PATCH_FILE's text, read before any call runs; ``SystemExit`` naming each file that
    cannot be used (missing, a directory, unreadable, not UTF-8), so nothing is applied."""
    texts: list[str] = []
    problems: list[str] = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            problems.append(f"error: PATCH_FILE {path!r}: cannot read it: {exc.strerror}")
            continue
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(
                f"error: PATCH_FILE {path!r} is not UTF-8 (byte 0x{data[exc.start]:02x} at "
                f"offset {exc.start}); a patch is UTF-8 text"
            )
    if problems:
        count = "the file was not" if len(paths) == 1 else f"none of the {len(paths)} files was"
        problems.append(f"nothing was applied: {count} run")
        sys.stderr.write("\n".join(problems) + "\n")
        raise SystemExit(2)
    return texts


def run_turn(args: argparse.Namespace) -> int:
    cwd = os.path.abspath(args.cwd or os.curdir)
    environments = dict(args.environment or ()) or {"": cwd}
    for name, directory in environments.items():
        if not os.path.isdir(directory):
            raise SystemExit(
                f"error: working directory of {name or 'the turn'} not found: {directory}"
            )
    try:
        options = front_end_options(cwd, args)
    except ValueError as exc:
        raise SystemExit(f"error: {exc}") from exc
    texts = read_patch_files(args.patch_files)
    turn = Turn(environments=environments, options=options)
    lines = JsonLines(sys.stdout)
    turn.recorder.subscribe(lines.event)
    all_completed = True
    for path, text in zip(args.patch_files, texts, strict=True):
        chunk = args.stream_chunk
        deltas = [text[i : i + chunk] for i in range(0, len(text), chunk)] if chunk > 0 else [text]
        approver = _default_approver(path) if args.approve == ASK else args.approve
        result = turn.run(deltas, approver)
        all_completed &= result.ok
        lines.call_result(result)
    lines.write({"type": "turn_diff", "unified_diff": turn.turn_diff(), "final": True})
    return 0 if all_completed else 1


def run_recover(args: argparse.Namespace) -> int:
    for stream in (sys.stdout, sys.stderr):  # file names that are not UTF-8 print as bytes
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="surrogateescape")
    cwd = os.path.abspath(args.cwd)
    if not os.path.isdir(cwd):
        sys.stderr.write(f"error: working directory not found: {cwd}\n")
        return 1
    try:
        recovery = recover(cwd)
    except JournalError as exc:
        sys.stderr.write(f"error: {exc.strerror}\n")
        return 1
    if recovery is None:
        sys.stdout.write(
            f"nothing to recover in {os.path.realpath(cwd)}: no unfinished atomic call left a "
            f"journal ({journal_path(cwd)}; {STATE_DIR_ENV} sets where journals live)\n"
        )
        return 0
    ok = not isinstance(recovery, Refusal) and recovery.ok
    (sys.stdout if ok else sys.stderr).write(recovery.report())
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "turn":
        return run_turn(args)
    if args.command == "recover":
        return run_recover(args)
    if args.command == "strip":
        return run_strip(args)
    if args.command == "replay":
        return run_replay(args)
    if args.command == "mcp":
        return run_mcp(args)
    return 2  # pragma: no cover - argparse requires a command


if __name__ == "__main__":
    sys.exit(main())
