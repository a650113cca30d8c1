"""``python -m applypatch_ext replay``: replay a Codex session's apply_patch calls.

Prints the same JSON Lines as ``turn`` (every event, a ``call_result`` after each call), plus a
``replay_call`` line per call (``call_id``, ``recorded_status``, ``replayed_status``, ``agrees``,
``reasons``), a ``turn_diff`` line per turn (each ``final`` for its turn) and, last, a
``replay_summary`` line. Lines of the file that cannot be read go to stderr with their line
number and are skipped. Exits 0 when every replayed call agrees with the recording, 1 when one
differs, 2 on a usage error (no such file, not a session file, no usable directory, no such
turn).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .core.agents.replay import (
    ReplayedCall,
    ReplayError,
    load_replay_source,
    replay_cwd,
    replay_rollout,
)
from .core.agents.rollout import RolloutTurn
from .core.turn.events import ApplyPatchApprovalRequest
from .core.turn.options import Decision, FrontEnd, add_arguments
from .core.turn.result import JsonLines
from .core.turn.turn import Turn
from .notebooks import front_end_options

DESCRIPTION = (
    "Replay the apply_patch calls of a Codex session file (rollout-*.jsonl) or of a JSON file "
    "of Responses API output items, one pipeline turn per recorded turn, and compare every "
    "call with its recorded outcome."
)


def add_replay_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` subcommand to ``turn``'s subparsers."""
    replay: argparse.ArgumentParser = commands.add_parser(
        "replay", help="replay a Codex session file", description=DESCRIPTION
    )
    replay.add_argument("source", metavar="ROLLOUT", help="a rollout-*.jsonl file or a JSON file")
    add_arguments(replay, FrontEnd.REPLAY)
    return replay


def _decline(request: ApplyPatchApprovalRequest) -> Decision:
    kind = "the retry without the sandbox" if request.retry else "the approval request"
    sys.stderr.write(
        f"replay: {request.call_id}: declined {kind} to write {', '.join(request.files)} "
        f"(cwd {request.cwd}): --approve is decline; rerun with --approve approve to "
        "approve it\n"
    )
    return Decision.DECLINE


def run_replay(args: argparse.Namespace) -> int:
    try:
        rollout = load_replay_source(args.source)
        cwd = replay_cwd(rollout, args.cwd)
        options = front_end_options(cwd, args)
    except OSError as exc:
        sys.stderr.write(f"replay: cannot read {args.source}: {exc.strerror or exc}\n")
        return 2
    except ValueError as exc:  # ReplayError and the options' errors
        sys.stderr.write(f"replay: {exc}\n")
        return 2
    for problem in rollout.problems:
        sys.stderr.write(f"replay: {rollout.source}: {problem} (skipped)\n")

    lines = JsonLines(sys.stdout)

    def on_turn(turn: Turn, recorded: RolloutTurn) -> None:
        turn.recorder.subscribe(lines.event)

    def on_call(call: ReplayedCall) -> None:
        lines.call_result(call.result)
        lines.write(call.to_json())

    try:
        report = replay_rollout(
            rollout,
            cwd,
            options=options,
            approver=_decline if args.approve == Decision.DECLINE else args.approve,
            turns=args.turn,
            on_turn=on_turn,
            on_call=on_call,
        )
    except ReplayError as exc:
        sys.stderr.write(f"replay: {exc}\n")
        return 2
    for turn in report.turns:
        # each turn's closing TurnDiff is that turn's final one (`turn` prints its one turn's)
        lines.write(
            {
                "type": "turn_diff",
                "turn": turn.turn.index,
                "turn_id": turn.turn.turn_id,
                "unified_diff": turn.turn_diff,
                "final": True,
            }
        )
    lines.write(report.summary_json())
    return 0 if report.all_agree else 1
