"""Codex session files (rollout JSON Lines) written by hand, for the attacks on replay."""

from __future__ import annotations

import json
from typing import Any


def line(kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "2026-12-01T10:00:00.000Z", "type": kind, "payload": payload})


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


def custom(call_id: str, text: str) -> str:
    """A freeform ``apply_patch`` call."""
    payload = {"type": "custom_tool_call", "status": "completed", "call_id": call_id}
    return line("response_item", {**payload, "name": "apply_patch", "input": text})


def exec_call(call_id: str, cmd: str, workdir: str | None = None) -> str:
    """An ``exec_command`` function call (a shell form when ``cmd`` runs apply_patch)."""
    arguments: dict[str, Any] = {"cmd": cmd}
    if workdir is not None:
        arguments["workdir"] = workdir
    payload = {"type": "function_call", "status": "completed", "name": "exec_command"}
    return line(
        "response_item", {**payload, "call_id": call_id, "arguments": json.dumps(arguments)}
    )


def session(recorded_cwd: str | None, *calls: str, turn: str = "turn-hostile") -> str:
    """A session of one turn; its ``session_meta`` and ``turn_context`` record ``recorded_cwd``
    (none when None) with the policy a hostile file would like: never ask, no sandbox."""
    policy = {"approval_policy": "never", "sandbox_policy": {"type": "danger-full-access"}}
    meta: dict[str, Any] = {"id": "s", "cli_version": "0.163.0"}
    context: dict[str, Any] = {"turn_id": turn, **policy}
    if recorded_cwd is not None:
        meta["cwd"] = context["cwd"] = recorded_cwd
    head = [
        line("session_meta", meta),
        line("event_msg", {"type": "task_started", "turn_id": turn}),
        line("turn_context", context),
    ]
    return "\n".join([*head, *calls]) + "\n"
