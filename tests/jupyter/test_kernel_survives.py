"""The kernel survives errors and interrupts: no thread, file handle, signal handler or
half-finished call is left behind, and a later ``%%apply_patch`` works (issue 7, item 7)."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.live.view import DISPLAY_LIMIT

from .conftest import Magic

ADD = "*** Begin Patch\n*** Add File: later.txt\n+later\n*** End Patch\n"


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def resources() -> tuple[int, int, object]:
    return threading.active_count(), open_fds(), signal.getsignal(signal.SIGINT)


def test_usage_errors_leave_nothing_behind(run_magic: Magic, tmp_path: Path) -> None:
    before = resources()
    for line, cell in [
        ("--cwd /no/such/dir", ADD),
        ("--fault explode:1", ADD),
        ("--dry-run --stream-chunk 0", "not a patch"),
        ("", "   "),
    ]:
        with pytest.raises(UsageError):
            run_magic(line, cell)
    assert resources() == before
    run = run_magic("--stream-chunk 0", ADD)
    assert run.widget is not None and run.widget.status == "completed"
    assert (tmp_path / "later.txt").read_text() == "later\n"


def test_pipeline_failures_are_statuses_not_exceptions(run_magic: Magic, tmp_path: Path) -> None:
    before = resources()
    run = run_magic(
        "--stream-chunk 0", "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch"
    )
    assert run.widget is not None and run.widget.status == "error"
    run = run_magic("--stream-chunk 0 --fault write:1", ADD)
    assert run.widget is not None and run.widget.status == "failed"
    assert resources() == before


def test_an_interrupt_while_streaming_cancels_the_call(
    ip: InteractiveShell, run_magic: Magic, tmp_path: Path
) -> None:
    before = resources()
    # A kernel interrupt is a SIGINT to the kernel process; send one while the cell streams.
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        run = run_magic("--stream-chunk 1 --stream-delay 0.03 interrupted", ADD)
    finally:
        timer.join()
    result = ip.user_ns["interrupted"]
    assert result.status == "cancelled"
    assert run.widget is not None and run.widget.status == "cancelled"
    # the view no longer says that the text streams: no current line (its "streaming…"), and
    # the text it shows is all that arrived
    assert run.widget.current_line == 0
    assert ADD.startswith(run.widget.patch_text) and run.widget.patch_text != ADD
    assert not (tmp_path / "later.txt").exists()
    assert resources() == before  # the SIGINT handler is restored, no thread or fd is left
    # the kernel goes on: a later call in the same session works
    again = run_magic("--stream-chunk 0", ADD)
    assert again.widget is not None and again.widget.status == "completed"


def test_huge_patches_are_truncated_for_display_only(run_magic: Magic, tmp_path: Path) -> None:
    lines = DISPLAY_LIMIT // 10 + 1000
    body = "".join(f"+line {i:04d}\n" for i in range(lines))
    patch = f"*** Begin Patch\n*** Add File: big.txt\n{body}*** End Patch\n"
    run = run_magic("--stream-chunk 0", patch)
    widget = run.widget
    assert widget is not None and widget.status == "completed"
    assert widget.patch_truncated is True
    assert len(widget.patch_text) == DISPLAY_LIMIT
    assert (tmp_path / "big.txt").read_text().count("\n") == lines  # applied whole


def test_no_call_is_left_half_finished(run_magic: Magic) -> None:
    run_magic("--stream-chunk 0", ADD)
    turn = SESSION.turn
    assert turn is not None
    assert all(call.result is not None for call in turn.calls)
    assert not any(call.result.status == "awaiting-approval" for call in turn.calls if call.result)
