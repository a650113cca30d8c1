"""What a recorded tool output says: its innermost text, its exit code, the call's status.

Codex records an apply_patch call's output in several shapes across versions (see
:mod:`.rollout`): plain text behind ``Exit code: N`` / ``Wall time: ...`` / ``Output:`` header
blocks, possibly nested, or a JSON string ``{"output": ..., "metadata": {"exit_code": N}}``.
These helpers read all of them; they never touch anything but their arguments.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ..turn.options import CallStatus
from ._json import loads as json_loads

UNKNOWN: Final = "unknown"

_HEADER = re.compile(
    r"^(?:Exit code: (?P<exit>-?\d+)|Process exited with code (?P<exit2>-?\d+)|Wall time: .*|"
    r"Chunk ID: .*|Original token count: .*|Process running with session ID .*|"
    r"Total output lines: .*)$"
)


def unwrap_output(raw: Any) -> tuple[str, int | None]:
    """The innermost text of a recorded tool output and its exit code (None when not stated).

    Reads the JSON form ``{"output": ..., "metadata": {"exit_code": N}}`` and peels every
    header block (``Exit code: N``, ``Wall time: ...``, ``Chunk ID: ...``, ``Process exited with
    code N`` ... lines ending with ``Output:``); the innermost exit code wins.
    """
    text = output_text(raw)
    exit_code: int | None = None
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json_loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            metadata = value.get("metadata")
            if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
                exit_code = metadata["exit_code"]
            text = value["output"]
    while True:
        lines = text.split("\n")
        found: int | None = None
        code: int | None = None
        for index, line in enumerate(lines):
            if line == "Output:":
                found = index
                break
            match = _HEADER.match(line)
            if match is None:
                break
            number = match.group("exit") or match.group("exit2")
            if number is not None:
                code = int(number)
        if found is None or found == 0:
            return text, exit_code
        text = "\n".join(lines[found + 1 :])
        if code is not None:
            exit_code = code


def output_text(raw: Any) -> str:
    """The text of a recorded output, whatever its shape (string, content items, object)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):  # content items
        return "".join(str(part.get("text", "")) for part in raw if isinstance(part, dict))
    if isinstance(raw, dict):
        for key in ("content", "output", "text", "body"):
            if key in raw:
                return output_text(raw[key])
    return "" if raw is None else json.dumps(raw)


def status_of(text: str, exit_code: int | None, item_status: Any) -> str:
    """The call status a recorded output stands for (``UNKNOWN`` when nothing says)."""
    # The texts first: an apply_patch_call_output says only completed or failed, and "failed"
    # covers a verification error, a refusal and a failed application alike.
    if text.startswith("apply_patch verification failed: ") or text.startswith(
        "patch detected without explicit call to apply_patch"
    ):
        return CallStatus.ERROR
    if text.startswith("patch rejected by user"):
        return CallStatus.DECLINED
    if text.startswith("patch rejected: "):
        return CallStatus.REJECTED
    if item_status in ("completed", "failed") and exit_code is None:
        return CallStatus.COMPLETED if item_status == "completed" else CallStatus.FAILED
    if exit_code == 0:
        return CallStatus.COMPLETED
    if exit_code is not None:
        return CallStatus.FAILED
    if text.startswith("Success. Updated the following files:"):
        return CallStatus.COMPLETED
    return UNKNOWN
