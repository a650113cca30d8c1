"""The rollout fixtures of tests/data/rollouts/ (written by the real Codex, see its README)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROLLOUTS = Path(__file__).parent / "data" / "rollouts"
VERSIONS = ("0.163.0", "0.147.0", "0.47.0")
#: freeform_commands: Codex's freeform apply_patch given shell commands (it refuses them as
#: invalid patches) and a bare heredoc (applied).
SCENARIOS = ("session", "shell_forms", "freeform_commands")


def rollout_path(version: str, scenario: str) -> Path:
    return ROLLOUTS / version / f"{scenario}.jsonl"


def project_before(tmp_path: Path, version: str, scenario: str) -> Path:
    """A fresh copy of the project as it was before the recorded session."""
    target = tmp_path / f"project-{version}-{scenario}"
    shutil.copytree(ROLLOUTS / version / f"{scenario}.before", target)
    return target


def project_after(version: str, scenario: str) -> Path:
    return ROLLOUTS / version / f"{scenario}.after"
