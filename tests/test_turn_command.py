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


# -- the failure atlas in the JSON lines ---------------------------------------------------------

FILE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
#: One patch per warning kind and the file it runs on.
WARNED = {
    "appended_at_end": ("*** Update File: a.py\n@@ def f():\n+    print('f')", "a.py", FILE),
    "fuzzy_match": ("*** Update File: b.py\n@@\n def f():\n-  return 1\n+  return 0", "b.py", FILE),
    "ambiguous_match": (
        "*** Update File: c.py\n@@\n-    return 1\n+    return 0",
        "c.py",
        FILE + "    return 1\n",
    ),
    "invalid_content": (
        '*** Update File: n.ipynb\n@@\n-{"cells": [], "metadata": {}, "nbformat": 4, '
        '"nbformat_minor": 5}\n+{}',
        "n.ipynb",
        '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n',
    ),
}


def test_each_warning_kind_in_the_json_lines(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    for _body, name, content in WARNED.values():
        (work / name).write_text(content)
    patches = [f"*** Begin Patch\n{body}\n*** End Patch\n" for body, _, _ in WARNED.values()]
    code, lines = run_turn(tmp_path, patches, "--invalid-notebooks", "warn")
    assert code == 0
    results = [line for line in lines if line["type"] == "call_result"]
    events = [line for line in lines if line["type"] == "patch_warning"]
    assert len(results) == len(events) == len(WARNED)
    for (kind, (_, name, _)), result, event in zip(WARNED.items(), results, events, strict=True):
        assert result["status"] == "completed" and result["diagnosis"] is None
        [warning] = result["warnings"]
        assert warning["kind"] == kind and warning["path"] == name
        assert set(warning) == {
            "kind",
            "message",
            "path",
            "patch_line",
            "line",
            "line_absent",
            "suggestion",
            "replaces",
        }
        assert event["call_id"] == result["call_id"]
        assert {k: v for k, v in event.items() if k not in ("type", "call_id", "time")} == warning


def test_a_failure_is_diagnosed_in_the_json_lines(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    (work / "a.py").write_text(FILE)
    text = (
        "\n*** Begin Patch\n*** Update File: a.py\n@@ def h():\n-    return 2\n+    return 3\n"
        "*** End Patch\n"
    )
    code, lines = run_turn(tmp_path, [text])
    assert code == 1
    (result,) = [line for line in lines if line["type"] == "call_result"]
    # the reference's text, unchanged; the diagnosis beside it
    assert (
        result["output"]
        == f"apply_patch verification failed: Failed to find context 'def h():' in {work}/a.py"
    )
    assert result["diagnosis"] == {
        "kind": "change_context_not_found",
        "message": "`def h():` is in no line of a.py: an `@@` line must repeat a whole line of the "
        "file above the change; write `@@` alone if the lines below it are enough.",
        "path": "a.py",
        "patch_line": 4,  # the file's own line 4: a blank line comes before the patch
        "line": 6,
        "line_absent": None,
        "suggestion": "@@\n-    return 2\n+    return 3",
        "replaces": [4, 6],  # the chunk's lines 4 to 6 of the text, which it stands in for
    }
    assert result["warnings"] == []
    (event,) = [line for line in lines if line["type"] == "patch_diagnosis"]
    assert {k: v for k, v in event.items() if k not in ("type", "call_id", "time")} == result[
        "diagnosis"
    ]
    assert (work / "a.py").read_text() == FILE
