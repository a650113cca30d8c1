"""``python -m applypatch_ext turn``: JSON events per line, exit codes, options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def run_turn(tmp_path: Path, patches: list[str], *options: str) -> tuple[int, list[dict[str, Any]]]:
    files = []
    for i, text in enumerate(patches):
        path = tmp_path / f"p{i}.patch"
        path.write_text(text)
        files.append(str(path))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "applypatch_ext",
            "turn",
            "--cwd",
            str(tmp_path / "w"),
            *options,
            *files,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stderr == ""
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def setup(tmp_path: Path) -> Path:
    work = tmp_path / "w"
    work.mkdir()
    (work / "a.txt").write_text("one\ntwo\n")
    return work


P1 = (
    "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** Add File: b.txt\n+bee\n"
    "*** End Patch\n"
)
P2 = "*** Begin Patch\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-bee\n+sea\n*** End Patch\n"


def test_two_calls_one_turn(tmp_path: Path) -> None:
    work = setup(tmp_path)
    code, lines = run_turn(tmp_path, [P1, P2], "--stream-chunk", "8", "--throttle-ms", "0")
    assert code == 0
    kinds = [line["type"] for line in lines]
    assert kinds[-1] == "turn_diff" and lines[-1]["final"] is True
    assert kinds.count("call_result") == 2
    assert kinds.count("patch_apply_begin") == kinds.count("patch_apply_end") == 2
    assert kinds.count("patch_apply_updated") > 2
    assert all(
        "time" in line
        for line in lines
        if line["type"] not in ("call_result",) and "final" not in line
    )
    final = lines[-1]["unified_diff"]
    # b.txt was added then moved: the net diff shows c.txt as a new file, no b.txt
    assert "b/c.txt" in final and "b.txt" not in final
    assert (work / "c.txt").read_text() == "sea\n"


def test_failure_exit_code_and_fault(tmp_path: Path) -> None:
    setup(tmp_path)
    code, lines = run_turn(tmp_path, [P1], "--fault", "write:2")
    assert code == 1
    result = next(line for line in lines if line["type"] == "call_result")
    assert result["status"] == "failed"
    end = next(line for line in lines if line["type"] == "patch_apply_end")
    assert end["status"] == "failed" and end["success"] is False


def test_decline_and_atomic(tmp_path: Path) -> None:
    work = setup(tmp_path)
    outside = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n"
    # read-only: every write needs approval (tmp_path itself is under the writable /tmp)
    code, lines = run_turn(tmp_path, [outside], "--approve", "decline", "--sandbox", "read-only")
    assert code == 1
    assert [line["status"] for line in lines if line["type"] == "patch_apply_end"] == ["declined"]
    assert not (tmp_path / "outside.txt").exists()
    code, _ = run_turn(tmp_path, [P1], "--transaction", "atomic", "--fault", "write:2")
    assert code == 1
    assert (work / "a.txt").read_text() == "one\ntwo\n"
    assert not (work / "b.txt").exists()


def test_help_documents_fault_specs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for spec in (
        "write:N",
        "write:PATH",
        "delete:PATH",
        "remove-source:PATH",
        "eperm:PATH",
        "drift:PATH",
        "cancel:N",
    ):
        assert spec in proc.stdout


def test_bad_fault_spec_is_a_usage_error(tmp_path: Path) -> None:
    setup(tmp_path)
    (tmp_path / "p.patch").write_text(P1)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "applypatch_ext",
            "turn",
            "--cwd",
            str(tmp_path / "w"),
            "--fault",
            "explode:1",
            str(tmp_path / "p.patch"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "unknown fault kind 'explode'" in proc.stderr


def _turn(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--cwd", str(tmp_path / "w"), *argv],
        capture_output=True,
        text=True,
        check=False,
    )


OUTSIDE = "*** Begin Patch\n*** Add File: ../out.txt\n+out\n*** End Patch\n"


def test_approve_ask_is_the_default_and_declines_saying_so(tmp_path: Path) -> None:
    setup(tmp_path)
    (tmp_path / "out.patch").write_text(OUTSIDE)
    runs = [
        _turn(tmp_path, "--exclude-tmp", str(tmp_path / "out.patch")),
        _turn(tmp_path, "--exclude-tmp", "--approve", "ask", str(tmp_path / "out.patch")),
    ]
    for proc in runs:
        assert proc.returncode == 1
        assert "declined the approval request to write" in proc.stderr
        assert "rerun with --approve approve to approve it" in proc.stderr
        [result] = [
            json.loads(line) for line in proc.stdout.splitlines() if '"call_result"' in line
        ]
        assert result["status"] == "declined"
    assert not (tmp_path / "out.txt").exists()
    assert runs[0].stderr == runs[1].stderr  # ask, given or not, is the same answer


def test_a_bad_choice_lists_the_valid_values(tmp_path: Path) -> None:
    setup(tmp_path)
    (tmp_path / "p.patch").write_text(P1)
    proc = _turn(tmp_path, "--approve", "maybe", str(tmp_path / "p.patch"))
    assert proc.returncode == 2
    assert (
        "argument --approve: must be one of ask, approve, approve-for-session, decline, "
        "got 'maybe'" in proc.stderr
    )
    assert (tmp_path / "w/a.txt").read_text() == "one\ntwo\n"


def test_help_groups_the_options_with_their_defaults() -> None:
    text = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    headers = ["The call:", "Safety and approval:", "Behaviour:", "Streaming:", "Faults:"]
    positions = [text.index(header) for header in headers]
    assert positions == sorted(positions)
    flat = " ".join(text.split())
    assert "--throttle-ms N Minimum interval" in flat and "(default: 500)" in flat
    assert "--approve {ask,approve,approve-for-session,decline}" in flat
    assert "(default: ask)" in flat
    assert "fault specs (--fault, repeatable;" in text


def test_review_asks_for_a_call_inside_the_working_directory(tmp_path: Path) -> None:
    """``--review`` (docs/behaviour.md §6.7) asks even where the policy auto-approves: with
    ``--approve approve`` it applies, the begin event saying it was not auto-approved."""
    work = setup(tmp_path)
    code, lines = run_turn(tmp_path, [P1], "--review", "--approve", "approve")
    assert code == 0
    kinds = [line["type"] for line in lines]
    assert kinds.count("apply_patch_approval_request") == 1
    begin = next(line for line in lines if line["type"] == "patch_apply_begin")
    assert begin["auto_approved"] is False
    assert (work / "a.txt").read_text() == "uno\ntwo\n" and (work / "b.txt").read_text() == "bee\n"
