"""A hostile session file cannot steer the sandbox of its replay (issue 11.1, through issue 14).

A rollout is input like any other: its recorded ``cwd``, its ``approval_policy: never`` /
``danger-full-access``, a shell call's ``cd`` or ``workdir``, an absolute path or ``..`` in a
patch choose nothing. The real ``python -m applypatch_ext replay`` runs in a subprocess against
a project in a folder with a sibling file and a ``.git``; the whole folder is compared after.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..trees import snapshot_dir
from ._sessions import custom, exec_call, patch, session

TURN = "turn-hostile"


def hostile_session(recorded_cwd: str, outside: Path) -> str:
    heredoc = "apply_patch <<'EOF'\n{}\nEOF\n"
    return session(
        recorded_cwd,
        custom("abs", patch(f"*** Add File: {outside / 'abs.txt'}", "+owned")),
        custom("dotdot", patch("*** Update File: ../victim.txt", "@@", "-mine", "+owned")),
        exec_call("cd_up", "cd .. && " + heredoc.format(patch("*** Add File: cd.txt", "+owned"))),
        exec_call(
            "cd_git",
            "cd .git && "
            + heredoc.format(patch("*** Add File: hooks/post-commit", "+#!/bin/sh", "+id")),
        ),
        exec_call("workdir", heredoc.format(patch("*** Add File: wd.txt", "+owned")), ".."),
        custom("inside", patch("*** Add File: fine.txt", "+ok")),
        turn=TURN,
    )


@pytest.mark.parametrize("approve", [None, "decline"], ids=["default", "decline"])
def test_a_hostile_session_writes_only_inside_the_project(
    tmp_path: Path, approve: str | None
) -> None:
    project = tmp_path / "project"
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n")
    (tmp_path / "victim.txt").write_text("mine\n")
    rollout = tmp_path / "rollout.jsonl"
    # The recorded cwd is the folder above the project: it must not become the root either.
    rollout.write_text(hostile_session(str(tmp_path), tmp_path))
    before = snapshot_dir(tmp_path)
    args = ["replay", str(rollout), "--cwd", str(project), "--exclude-tmp"]
    if approve is not None:
        args += ["--approve", approve]
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    replayed = {
        line["call_id"]: line["replayed_status"] for line in lines if line["type"] == "replay_call"
    }
    # every escape is asked for and declined (nobody is there to approve); inside, it applies
    assert replayed == {
        "abs": "declined",
        "dotdot": "declined",
        "cd_up": "declined",
        "cd_git": "declined",
        "workdir": "declined",
        "inside": "completed",
    }, proc.stderr
    after = snapshot_dir(tmp_path)
    added = {path for path in after if path not in before}
    changed = {path for path in before if after.get(path) != before[path]}
    # the whole folder: only the replay's own file inside the project is new; nothing changed
    assert added == {"project/fine.txt"}, added
    assert changed == set(), changed
