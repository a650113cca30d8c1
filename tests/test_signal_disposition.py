"""The suite sets the SIGINT disposition it needs (tests/conftest.py): started with SIGINT
ignored, as ``make test &`` in a script starts it (a background job of a non-interactive shell
ignores SIGINT), the tests that interrupt a call still see ``KeyboardInterrupt``, in this process
and in the processes they start."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Tests that raise SIGINT in pytest's own process or send it to a child they start.
SIGINT_TESTS = [
    "tests/reliability/test_interrupts.py::test_sigint_in_a_fifo_write_waits_for_the_whole_file",
    "tests/reliability/test_interrupts.py::test_ctrl_c_at_an_approval_prompt_ends_the_call",
    "tests/reliability/test_crash.py::test_sigint_during_rollback_waits_until_the_rollback_is_complete",
]


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
def test_sigint_tests_pass_when_pytest_starts_with_sigint_ignored() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SIGINT_TESTS],
        cwd=REPO,
        preexec_fn=_ignore_sigint,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert f"{len(SIGINT_TESTS)} passed" in proc.stdout
