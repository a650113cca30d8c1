"""The ``apply_patch`` command: arguments, stdin, usage, exit codes and exact texts
(docs/behaviour.md §5.5)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ADD = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"


def run(
    args: list[str | bytes],
    cwd: Path,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "applypatch_ext.cli", *args],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        env={**os.environ, **(env or {})},
        capture_output=True,
        check=False,
    )


def test_patch_as_argument(tmp_path: Path) -> None:
    proc = run([ADD], tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        b"Success. Updated the following files:\nA a.txt\n",
        b"",
    )
    assert (tmp_path / "a.txt").read_bytes() == b"hello\n"


def test_patch_from_stdin(tmp_path: Path) -> None:
    proc = run([], tmp_path, stdin=ADD.encode())
    assert proc.returncode == 0
    assert proc.stdout == b"Success. Updated the following files:\nA a.txt\n"


def test_heredoc_wrapped_patch(tmp_path: Path) -> None:
    proc = run([f"<<'EOF'\n{ADD}EOF\n"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.txt").read_bytes() == b"hello\n"


def test_summary_is_grouped_with_paths_as_written(tmp_path: Path) -> None:
    (tmp_path / "delete.txt").write_text("bye\n")
    (tmp_path / "modify.txt").write_text("one\n")
    patch = (
        "*** Begin Patch\n*** Add File: nested/new.txt\n+x\n*** Delete File: delete.txt\n"
        "*** Update File: modify.txt\n*** Move to: ./moved.txt\n@@\n-one\n+uno\n*** End Patch"
    )
    proc = run([patch], tmp_path)
    assert proc.stdout == (
        b"Success. Updated the following files:\nA nested/new.txt\nM ./moved.txt\nD delete.txt\n"
    )


def test_empty_stdin_prints_usage(tmp_path: Path) -> None:
    proc = run([], tmp_path, stdin=b"")
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == b"Usage: apply_patch 'PATCH'\n       echo 'PATCH' | apply_patch\n"


def test_two_arguments(tmp_path: Path) -> None:
    proc = run([ADD, ADD], tmp_path)
    assert (proc.returncode, proc.stderr) == (
        2,
        b"Error: apply_patch accepts exactly one argument.\n",
    )


def test_non_utf8_argument(tmp_path: Path) -> None:
    proc = run([b"*** Begin Patch\n\xff\n*** End Patch"], tmp_path)
    assert (proc.returncode, proc.stderr) == (
        1,
        b"Error: apply_patch requires a UTF-8 PATCH argument.\n",
    )


def test_non_utf8_stdin(tmp_path: Path) -> None:
    proc = run([], tmp_path, stdin=b"\xff\xfe")
    assert proc.returncode == 1
    assert proc.stderr == (
        b"Error: Failed to read PATCH from stdin.\nstream did not contain valid UTF-8\n"
    )


@pytest.mark.parametrize(
    ("patch", "stderr"),
    [
        pytest.param(
            "bad",
            b"Invalid patch: The first line of the patch must be '*** Begin Patch'\n",
            id="first-line",
        ),
        pytest.param("*** Begin Patch\n*** End Patch", b"No files were modified.\n", id="empty"),
        pytest.param(
            "*** Begin Patch\n*** Update File: a.txt\n*** End Patch",
            b"Invalid patch hunk on line 2: Update file hunk for path 'a.txt' is empty\n",
            id="empty-update",
        ),
    ],
)
def test_parse_errors(tmp_path: Path, patch: str, stderr: bytes) -> None:
    proc = run([patch], tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, b"", stderr)


def test_apply_errors_use_resolved_absolute_paths(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "modify.txt").write_text("one\n")
    cases = [
        (
            "*** Update File: modify.txt\n@@\n-missing\n+x",
            f"Failed to find expected lines in {root}/modify.txt:\nmissing\n",
        ),
        ("*** Delete File: sub/../gone.txt", f"Failed to delete file {root}/gone.txt\n"),
        (
            "*** Update File: ./nope.txt\n@@\n-a\n+b",
            f"Failed to read file to update {root}/nope.txt: "
            "No such file or directory (os error 2)\n",
        ),
    ]
    for body, stderr in cases:
        proc = run([f"*** Begin Patch\n{body}\n*** End Patch"], root)
        assert (proc.returncode, proc.stdout, proc.stderr.decode()) == (1, b"", stderr)


def test_partial_failure_keeps_first_hunk_and_prints_no_stdout(tmp_path: Path) -> None:
    patch = (
        "*** Begin Patch\n*** Add File: created.txt\n+hi\n"
        "*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch"
    )
    proc = run([patch], tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert (tmp_path / "created.txt").read_bytes() == b"hi\n"


@pytest.mark.parametrize(
    ("mode", "expected"), [("preserve", b"uno\r\ntwo\r\n"), ("lf", b"uno\ntwo\r\n")]
)
def test_line_endings_from_environment(tmp_path: Path, mode: str, expected: bytes) -> None:
    (tmp_path / "f.txt").write_bytes(b"one\r\ntwo\r\n")
    patch = "*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+uno\n*** End Patch"
    proc = run([patch], tmp_path, env={"APPLYPATCH_LINE_ENDINGS": mode})
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "f.txt").read_bytes() == expected


def test_unknown_line_endings_value_is_a_usage_error(tmp_path: Path) -> None:
    proc = run([ADD], tmp_path, env={"APPLYPATCH_LINE_ENDINGS": "crlf"})
    assert proc.returncode == 2
    assert proc.stderr == (
        b"Error: APPLYPATCH_LINE_ENDINGS must be 'preserve' or 'lf', got 'crlf'.\n"
    )
    assert not (tmp_path / "a.txt").exists()


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("apply_patch")
    assert script.exists()
    proc = subprocess.run([script], input=b"", capture_output=True, check=False)
    assert proc.returncode == 2


def test_in_process_main_returns_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    from applypatch_ext.cli import main

    monkeypatch.chdir(tmp_path)
    assert main([ADD]) == 0
    assert capsysbinary.readouterr().out == b"Success. Updated the following files:\nA a.txt\n"
