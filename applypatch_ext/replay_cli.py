"""``python -m applypatch_ext replay``: replay a Codex session's apply_patch calls.

Prints the same JSON Lines as ``turn`` (every event, a ``call_result`` after each call), plus a
``replay_call`` line per call (``call_id``, ``recorded_status``, ``replayed_status``, ``agrees``,
``reasons``), a ``turn_diff`` line per turn and, last, a ``replay_summary`` line. Lines of the
file that cannot be read go to stderr with their line number and are skipped. Exits 0 when
every replayed call agrees with the recording, 1 when one differs, 2 on a usage error (no such
file, no usable directory, no such turn).
"""

from __future__ import annotations

import argparse
import json
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
from .core.turn.options import Decision, FrontEnd, PipelineOptions, add_arguments
from .core.turn.turn import Turn
from .jupyter.notebooks import with_notebook_check

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


def _print(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


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
        options = with_notebook_check(PipelineOptions.from_namespace(cwd, args))
    except OSError as exc:
        sys.stderr.write(f"replay: cannot read {args.source}: {exc.strerror or exc}\n")
        return 2
    except ValueError as exc:  # ReplayError and the options' errors
        sys.stderr.write(f"replay: {exc}\n")
        return 2
    for problem in rollout.problems:
        sys.stderr.write(f"replay: {rollout.source}: {problem} (skipped)\n")

    def on_turn(turn: Turn, recorded: RolloutTurn) -> None:
        turn.recorder.subscribe(lambda event: _print(event.to_json()))

    def on_call(call: ReplayedCall) -> None:
        result = call.result
        _print(
            {
                "type": "call_result",
                "call_id": result.call_id,
                "status": result.status,
                "output": result.output,
                "delta": result.delta.to_json(),
            }
        )
        _print(call.to_json())

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
    for index, turn in enumerate(report.turns):
        _print(
            {
                "type": "turn_diff",
                "turn": turn.turn.index,
                "turn_id": turn.turn.turn_id,
                "unified_diff": turn.turn_diff,
                "final": index == len(report.turns) - 1,
            }
        )
    _print(report.summary_json())
    return 0 if report.all_agree else 1
