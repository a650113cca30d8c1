"""The Codex reference binary, when ``make conformance`` or ``make bench`` has cached it.

``tools/conformance.py`` installs ``openai-codex-cli-bin==0.163.0`` into ``.cache/codex-ref``
and links it as ``.cache/bin/0.163.0/apply_patch`` (the name makes it the standalone tool). A
test compares with it when it is there, and otherwise asserts the texts recorded from it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[2]
REFERENCE_VERSION = "0.163.0"
REFERENCE = REPO / ".cache" / "bin" / REFERENCE_VERSION / "apply_patch"


def reference_binary() -> Path | None:
    """The cached reference ``apply_patch``, or None."""
    return REFERENCE if os.access(REFERENCE, os.X_OK) else None


def ours() -> list[str]:
    """Our drop-in command, run as a real process."""
    return [sys.executable, "-m", "applypatch_ext.cli"]


def run_tool(
    command: list[str], args: list[str], cwd: Path | str, stdin: bytes | IO[bytes] = b""
) -> subprocess.CompletedProcess[bytes]:
    """Run ``command`` with ``args`` in ``cwd``; ``stdin`` is bytes or an open file."""
    argv = [*command, *args]
    if isinstance(stdin, bytes):
        return subprocess.run(
            argv, cwd=cwd, capture_output=True, check=False, timeout=120, input=stdin
        )
    return subprocess.run(argv, cwd=cwd, capture_output=True, check=False, timeout=120, stdin=stdin)
