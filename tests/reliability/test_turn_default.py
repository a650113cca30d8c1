"""Issue 11 item 10, as the attack: ``python -m applypatch_ext turn`` asks nobody, so it
approves nothing unless told to.

One turn of five real patch files -- ``../x``, a ``.git/hooks/pre-commit``, the shell form
``cd .. && apply_patch``, a write through a symlink leading out (a sandbox denial, then a
retry request) and an ordinary edit inside the working directory -- runs in a subprocess
without ``--approve`` (the default), under ``never``, with ``--approve decline`` and with
``--approve approve``. The whole tree is compared each time, and stderr says which request was
declined and how to approve it exactly when the default declined something.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..trees import Tree, snapshot_dir

PATCHES = {
    "up.patch": "*** Begin Patch\n*** Add File: ../x.txt\n+x\n*** End Patch\n",
    "hook.patch": (
        "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+touch ../../PWNED\n*** End Patch\n"
    ),
    "cd.patch": (
        "cd .. && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: cd.txt\n+cd\n"
        "*** End Patch\nEOF\n"
    ),
    "link.patch": "*** Begin Patch\n*** Add File: link/y.txt\n+y\n*** End Patch\n",
    "inside.patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+edited\n*** End Patch\n",
}
#: what each file writes, relative to the tree's top, once approved
WRITES = {
    "up.patch": {"x.txt": b"x\n"},
    "hook.patch": {"ws/.git/hooks/pre-commit": b"touch ../../PWNED\n"},
    "cd.patch": {"cd.txt": b"cd\n"},
    "inside.patch": {"ws/a.txt": b"edited\n"},
}


def build(top: Path, patches: Path) -> Tree:
    (top / "ws/.git/hooks").mkdir(parents=True)
    (top / "outside").mkdir()
    (top / "ws/a.txt").write_bytes(b"a\n")
    (top / "ws/.git/config").write_bytes(b"[core]\n")
    os.symlink("../outside", top / "ws/link")
    patches.mkdir()
    for name, text in PATCHES.items():
        (patches / name).write_text(text, encoding="utf-8")
    return snapshot_dir(top)


def turn(top: Path, patches: Path, *options: str) -> tuple[int, list[dict[str, Any]], str]:
    argv = [sys.executable, "-m", "applypatch_ext", "turn", "--cwd", str(top / "ws")]
    argv += ["--exclude-tmp", *options, *(str(patches / name) for name in PATCHES)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()], proc.stderr


def statuses(lines: list[dict[str, Any]]) -> dict[str, str]:
    results = [line for line in lines if line["type"] == "call_result"]
    return {name: r["status"] for name, r in zip(PATCHES, results, strict=True)}


def expected_tree(before: Tree, *applied: str) -> Tree:
    tree = dict(before)
    for name in applied:
        tree.update(WRITES[name])
    return dict(sorted(tree.items()))


def declined_line(patches: Path, name: str, call: int, files: str, cwd: Path, retry: bool) -> str:
    kind = "the retry without the sandbox" if retry else "the approval request"
    return (
        f"turn: {patches / name} (call-{call}): declined {kind} to write {files} (cwd {cwd}): "
        "no --approve was given; rerun with --approve approve to approve it"
    )


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, Tree]:
    top = tmp_path.resolve() / "t"
    patches = tmp_path.resolve() / "patches"
    return top, patches, build(top, patches)


def test_default_declines_and_says_how_to_approve(tree: tuple[Path, Path, Tree]) -> None:
    top, patches, before = tree
    ws = top / "ws"
    code, lines, stderr = turn(top, patches)
    assert code == 1
    assert statuses(lines) == {
        "up.patch": "declined",
        "hook.patch": "declined",
        "cd.patch": "declined",
        "link.patch": "failed",  # the sandbox denied it, and the retry was declined
        "inside.patch": "completed",
    }
    decisions = [line for line in lines if line["type"] == "apply_patch_approval_decision"]
    assert [d["decision"] for d in decisions] == ["decline"] * 4
    assert stderr.splitlines() == [
        declined_line(patches, "up.patch", 1, str(top / "x.txt"), ws, retry=False),
        declined_line(patches, "hook.patch", 2, str(ws / ".git/hooks/pre-commit"), ws, retry=False),
        declined_line(patches, "cd.patch", 3, str(top / "cd.txt"), ws, retry=False),
        declined_line(patches, "link.patch", 4, str(ws / "link/y.txt"), ws, retry=True),
    ]
    assert snapshot_dir(top) == expected_tree(before, "inside.patch")
    assert not (top / "PWNED").exists()


def test_never_refuses_without_asking(tree: tuple[Path, Path, Tree]) -> None:
    top, patches, before = tree
    code, lines, stderr = turn(top, patches, "--approval-policy", "never")
    assert code == 1
    assert statuses(lines) == {
        "up.patch": "rejected",
        "hook.patch": "rejected",
        "cd.patch": "rejected",
        "link.patch": "failed",
        "inside.patch": "completed",
    }
    assert not [line for line in lines if line["type"] == "apply_patch_approval_request"]
    assert stderr == ""
    assert snapshot_dir(top) == expected_tree(before, "inside.patch")


def test_explicit_decline_is_silent(tree: tuple[Path, Path, Tree]) -> None:
    top, patches, before = tree
    code, lines, stderr = turn(top, patches, "--approve", "decline")
    assert code == 1
    assert list(statuses(lines).values()) == ["declined"] * 3 + ["failed", "completed"]
    assert stderr == ""
    assert snapshot_dir(top) == expected_tree(before, "inside.patch")


def test_approve_writes_exactly_what_was_asked(tree: tuple[Path, Path, Tree]) -> None:
    top, patches, before = tree
    code, lines, stderr = turn(top, patches, "--approve", "approve")
    assert code == 1
    # The approved retry of link.patch runs in no-follow mode (docs/behaviour.md §5.6): the symlink
    # on the way makes it fail rather than write through the link.
    assert statuses(lines) == {name: "completed" for name in PATCHES} | {"link.patch": "failed"}
    assert stderr == ""
    applied = [name for name in PATCHES if name != "link.patch"]
    assert snapshot_dir(top) == expected_tree(before, *applied)


def test_help_says_the_default_declines() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    text = " ".join(proc.stdout.split())
    assert "by default each request is declined and stderr names it" in text
    assert "--approve approve" in text
    assert "(default approve)" not in text
