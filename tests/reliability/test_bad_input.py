"""The mishap: bad input that escaped as a traceback or as the wrong error.

* The magic, through a real IPython shell: an infinite or huge ``--stream-delay`` (an
  OverflowError once the call had started), an unclosed quote (a ValueError), a NUL in a path
  option. Each is exactly ``UsageError``, raised before anything runs: no call, no file.
* ``python -m applypatch_ext turn`` with a missing, non-UTF-8 or directory PATCH_FILE after a
  good one: it applied the good one, then printed a traceback. Every file is checked first, each
  bad one is named, the exit code is 2 and nothing is applied.
* The ``apply_patch`` command in a working directory deleted before it runs, and with a closed
  or write-only standard input: the reference's texts and exit codes, byte for byte (compared
  with the binary when it is cached, else with the texts recorded from it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.jupyter.live.session import SESSION

from ._ipython import ipython  # noqa: F401 - the fixture
from ._reference import ours, reference_binary

ADD = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"

SPLIT_ERROR = (
    "cannot split the options {line!r}: No closing quotation; close every quote, or quote a "
    "value that contains spaces with a matching pair of quotes"
)
NUL_ERROR = "{option}: {value!r} contains a NUL byte, which no path or option value can hold"
DELAY_ERROR = "--stream-delay must be a number of seconds from 0 to 60, got {value}"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--stream-delay inf", DELAY_ERROR.format(value="inf")),
        ("--stream-delay 1e308", DELAY_ERROR.format(value="1e+308")),
        ("--stream-delay nan", DELAY_ERROR.format(value="nan")),
        ("--stream-chunk 1 --stream-delay 1e308", DELAY_ERROR.format(value="1e+308")),
        ("--stream-delay 61", DELAY_ERROR.format(value="61.0")),
        (
            "--cwd 'unclosed",
            "%%apply_patch: " + SPLIT_ERROR.format(line="--no-widget --cwd 'unclosed"),
        ),
        ("--writable-root a\0b", NUL_ERROR.format(option="--writable-root", value="a\0b")),
        (
            "--writable-root ok --writable-root \0",
            NUL_ERROR.format(option="--writable-root", value="\0"),
        ),
        ("--cwd a\0b", NUL_ERROR.format(option="--cwd", value="a\0b")),
        ("--fault drift:a\0b", NUL_ERROR.format(option="--fault", value="drift:a\0b")),
        ("--approve decline\0", NUL_ERROR.format(option="--approve", value="decline\0")),
    ],
)
def test_magic_bad_option_is_a_usage_error_before_anything_runs(
    ipython: InteractiveShell,  # noqa: F811
    tmp_path: Path,
    line: str,
    message: str,
) -> None:
    calls_before = 0 if SESSION.turn is None else len(SESSION.turn.calls)
    with pytest.raises(UsageError) as raised:
        ipython.run_cell_magic("apply_patch", f"--no-widget {line}", ADD)
    assert type(raised.value) is UsageError
    assert str(raised.value) == message
    assert list(tmp_path.iterdir()) == []
    assert (0 if SESSION.turn is None else len(SESSION.turn.calls)) == calls_before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--export a\0b", NUL_ERROR.format(option="--export", value="a\0b")),
        ("--export 'x", "%apply_patch_turn: " + SPLIT_ERROR.format(line="--export 'x")),
        (
            "--export \ud800.diff",
            "--export: cannot write '\\ud800.diff': 'utf-8' codec can't "
            "encode character '\\ud800' in position 0: surrogates not allowed",
        ),
    ],
)
def test_turn_magic_bad_option_is_a_usage_error(
    ipython: InteractiveShell,  # noqa: F811
    tmp_path: Path,
    line: str,
    message: str,
) -> None:
    with pytest.raises(UsageError) as raised:
        ipython.run_line_magic("apply_patch_turn", line)
    assert type(raised.value) is UsageError
    assert str(raised.value) == message
    assert list(tmp_path.iterdir()) == []


def run_turn(tmp_path: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--cwd", "work", *files],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def turn_dir(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    (tmp_path / "first.patch").write_text(ADD)
    (tmp_path / "latin1.patch").write_bytes(ADD.replace("+a", "+\xe9").encode("latin-1"))
    (tmp_path / "adir").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    ("bad", "complaint"),
    [
        (
            "missing.patch",
            "error: PATCH_FILE 'missing.patch': cannot read it: No such file or directory",
        ),
        (
            "latin1.patch",
            "error: PATCH_FILE 'latin1.patch' is not UTF-8 (byte 0xe9 at offset "
            "37); a patch is UTF-8 text",
        ),
        ("adir", "error: PATCH_FILE 'adir': cannot read it: Is a directory"),
    ],
)
def test_turn_checks_every_patch_file_before_applying_any(
    turn_dir: Path, bad: str, complaint: str
) -> None:
    proc = run_turn(turn_dir, "first.patch", bad)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"{complaint}\nnothing was applied: none of the 2 files was run\n"
    assert list((turn_dir / "work").iterdir()) == []  # first.patch was not applied


@pytest.mark.parametrize(
    ("bad", "complaint"),
    [
        ("missing.patch", "cannot read it: No such file or directory"),
        ("latin1.patch", "is not UTF-8 (byte 0xe9 at offset 37); a patch is UTF-8 text"),
        ("adir", "cannot read it: Is a directory"),
    ],
)
def test_turn_with_one_unreadable_file_says_it_was_not_run(
    turn_dir: Path, bad: str, complaint: str
) -> None:
    proc = run_turn(turn_dir, bad)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"error: PATCH_FILE {bad!r}{'' if complaint.startswith('is') else ':'} {complaint}",
        "nothing was applied: the file was not run",
    ]
    assert list((turn_dir / "work").iterdir()) == []


def test_turn_names_every_bad_file(turn_dir: Path) -> None:
    proc = run_turn(turn_dir, "missing.patch", "first.patch", "adir", "latin1.patch")
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert [line.split("'")[1] for line in lines[:-1]] == ["missing.patch", "adir", "latin1.patch"]
    assert lines[-1] == "nothing was applied: none of the 4 files was run"
    assert "Traceback" not in proc.stderr


def test_turn_with_good_files_still_runs(turn_dir: Path) -> None:
    proc = run_turn(turn_dir, "first.patch")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["final"] is True
    assert (turn_dir / "work" / "a.txt").read_text() == "a\n"


# -- the apply_patch command --------------------------------------------------------------------

VANISHED = (
    1,
    b"",
    b"Error: Failed to determine current directory.\nNo such file or directory (os error 2)\n",
)
USAGE = (2, b"", b"Usage: apply_patch 'PATCH'\n       echo 'PATCH' | apply_patch\n")


def _commands() -> list[tuple[str, list[str]]]:
    commands = [("ours", ours())]
    reference = reference_binary()
    if reference is not None:
        commands.append(("reference", [str(reference)]))
    return commands


def _shell(script: str, command: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    proc = subprocess.run(
        ["sh", "-c", script, "sh", *command], cwd=cwd, capture_output=True, check=False
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize(("name", "command"), _commands())
@pytest.mark.parametrize("how", ["argument", "stdin"])
def test_cli_in_a_vanished_working_directory(
    tmp_path: Path, name: str, command: list[str], how: str
) -> None:
    (tmp_path / "gone").mkdir()
    feed = f'"$@" {json.dumps(ADD)}' if how == "argument" else f'printf %s {json.dumps(ADD)} | "$@"'
    script = f"cd gone && rmdir ../gone && {feed}"
    assert _shell(script, command, tmp_path) == VANISHED, name
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("name", "command"), _commands())
@pytest.mark.parametrize("stdin", ["0<&-", "0>wo.txt"])
def test_cli_with_a_closed_or_write_only_stdin(
    tmp_path: Path, name: str, command: list[str], stdin: str
) -> None:
    # Rust reads a closed or write-only fd 0 as empty: the usage text, exit 2.
    assert _shell(f'"$@" {stdin}', command, tmp_path) == USAGE, name
