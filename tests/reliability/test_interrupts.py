"""Issue 11, items 3 and 7: a real SIGINT never tears a file and is honoured in every stage.

Each test sends a real SIGINT to a real process: a child running a real IPython shell (the
``%%apply_patch`` magic, then ``result.decide("approve")``), a child running the library without
any handler of ours, or this very process from another thread. Nothing is mocked; the timing
is made deterministic by markers the child prints, by a stage that is long by construction, or
by a FIFO whose reader decides when the signal comes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.apply.explain import WORK_BUDGET, explain_match_failure
from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.apply.seek import _find
from applypatch_ext.core.errors import CancelledError, MatchFailure
from applypatch_ext.core.interrupts import (
    CancellationToken,
    cancellation,
    checkpoint,
    deferred_interrupts,
)
from applypatch_ext.core.turn.options import PipelineOptions
from applypatch_ext.core.turn.turn import Turn

REPO = Path(__file__).resolve().parents[2]
#: Generous bound on a child's whole life: a hung child fails the test instead of hanging it.
CHILD_TIMEOUT = 300


def _child(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )


def _wait_for(proc: subprocess.Popen[str], marker: str) -> str:
    """Read the child's stdout up to a line starting with ``marker``; return that line."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(marker):
            return line
    _out, err = proc.communicate(timeout=CHILD_TIMEOUT)
    raise AssertionError(f"child ended before {marker!r}: {err[-2000:]}")


def _report(proc: subprocess.Popen[str]) -> dict[str, Any]:
    line = _wait_for(proc, "REPORT ")
    proc.communicate(timeout=CHILD_TIMEOUT)
    assert proc.returncode == 0
    report: dict[str, Any] = json.loads(line[len("REPORT ") :])
    return report


# -- item 3: Approve, then an interrupt while the files are written --------------------------

FILES = 160
LINES = 4000  # about 190 kB a file: 30 MB written in all


def _old_text(i: int) -> str:
    return "".join(f"file {i} line {n}: some content that the patch keeps\n" for n in range(LINES))


def _approve_patch() -> str:
    body = []
    for i in range(FILES):
        body += [f"*** Update File: f{i:03d}.txt", "@@", f" file {i} line 0: some content"
                 " that the patch keeps", f"+inserted by the patch into file {i}"]  # fmt: skip
    return "*** Begin Patch\n" + "\n".join(body) + "\n*** End Patch\n"


def _new_text(i: int) -> str:
    old = _old_text(i)
    first = old.index("\n") + 1
    return old[:first] + f"inserted by the patch into file {i}\n" + old[first:]


def _prepare_files(tmp_path: Path) -> tuple[Path, Path]:
    work = tmp_path / "work"
    work.mkdir()
    for i in range(FILES):
        (work / f"f{i:03d}.txt").write_text(_old_text(i))
    patch_file = tmp_path / "patch.txt"
    patch_file.write_text(_approve_patch())
    return work, patch_file


def _interrupt_once_writing(proc: subprocess.Popen[str], work: Path) -> None:
    first = work / "f000.txt"
    old_size = len(_old_text(0).encode())
    while first.stat().st_size == old_size and proc.poll() is None:
        time.sleep(0.0005)
    os.kill(proc.pid, signal.SIGINT)


def _changed_files(work: Path) -> set[str]:
    """The files holding their new text; fails on a file that is neither old nor new."""
    changed = set()
    for i in range(FILES):
        name = f"f{i:03d}.txt"
        text = (work / name).read_text()
        assert text in (_old_text(i), _new_text(i)), f"{name} is torn ({len(text)} characters)"
        if text == _new_text(i):
            changed.add(name)
    return changed


APPROVE_CHILD = """
    import json, os, sys
    from IPython.testing.globalipapp import start_ipython

    ip = start_ipython()
    ip.run_line_magic("load_ext", "applypatch_ext")
    os.chdir(sys.argv[1])
    with open(sys.argv[2]) as handle:
        patch = handle.read()
    options = "--approval-policy untrusted --no-widget --stream-chunk 0 result"
    ip.run_cell_magic("apply_patch", options, patch)
    result = ip.user_ns["result"]
    print("WAITING", result.status, flush=True)
    sys.stdin.readline()  # the parent watches the files now
    ip.run_cell("result.decide('approve')")  # as a user runs it in a cell
    try:
        result.decide("approve")
        second = None
    except RuntimeError as exc:
        second = str(exc)
    report = {"status": result.status, "delta": result.delta, "second": second}
    print("REPORT", json.dumps(report), flush=True)
"""


def test_interrupt_after_approve_tears_no_file(tmp_path: Path) -> None:
    work, patch_file = _prepare_files(tmp_path)
    proc = _child(APPROVE_CHILD, str(work), str(patch_file))
    assert _wait_for(proc, "WAITING").split() == ["WAITING", "awaiting-approval"]
    assert proc.stdin is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()
    # The interrupt comes once the first file is written, while the others are being written.
    _interrupt_once_writing(proc, work)
    report = _report(proc)

    assert report["status"] == "cancelled"
    delta = report["delta"]
    assert isinstance(delta, dict)
    assert delta["exact"] is True
    changed_on_disk = _changed_files(work)
    assert {Path(c["path"]).name for c in delta["changes"]} == changed_on_disk
    # Interrupted in the middle: some files were written, not all.
    assert 0 < len(changed_on_disk) < FILES
    for change in delta["changes"]:
        i = int(Path(change["path"]).stem[1:])
        assert change["old_content"] == _old_text(i)
        assert change["new_content"] == _new_text(i)
    second = report["second"]
    assert isinstance(second, str)
    assert "is not waiting for approval" in second and "cancelled" in second


LIBRARY_CHILD = """
    import json, sys
    from applypatch_ext.core.turn.turn import Turn

    with open(sys.argv[2]) as handle:
        patch = handle.read()
    call = Turn(sys.argv[1]).call()
    call.push_delta(patch)
    print("APPLYING", flush=True)
    try:
        call.run("approve")  # no handler of ours: Python's default SIGINT handler
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "KeyboardInterrupt"
    result = call.result
    report = {"outcome": outcome, "status": result.status, "error": result.error,
              "delta": result.delta.to_json()}
    print("REPORT", json.dumps(report), flush=True)
"""


def test_library_call_interrupted_while_writing(tmp_path: Path) -> None:
    """No magic, no handler: KeyboardInterrupt right after the file in progress, no torn file,
    and the call is recorded as cancelled with a delta that is only a lower bound."""
    work, patch_file = _prepare_files(tmp_path)
    proc = _child(LIBRARY_CHILD, str(work), str(patch_file))
    _wait_for(proc, "APPLYING")
    _interrupt_once_writing(proc, work)
    report = _report(proc)
    assert report["outcome"] == "KeyboardInterrupt"
    assert report["status"] == "cancelled"
    assert report["error"] == "interrupted while applying"
    changed = _changed_files(work)
    assert 0 < len(changed) < FILES
    delta = report["delta"]
    assert isinstance(delta, dict)
    assert delta["exact"] is False  # the attempt's record was lost with the interrupt
    assert {Path(c["path"]).name for c in delta["changes"]} <= changed


def test_sigint_in_a_fifo_write_waits_for_the_whole_file(tmp_path: Path) -> None:
    """A real SIGINT from another thread while this process is blocked writing: the write
    completes (the reader gets every byte), then KeyboardInterrupt is raised."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = bytes(range(256)) * 4096  # 1 MiB, far more than a pipe holds
    received = bytearray()
    main = threading.main_thread().ident

    def reader() -> None:
        with open(fifo, "rb", buffering=0) as handle:
            received.extend(handle.read(65536))
            # To the main thread, blocked in write() on this FIFO.
            assert main is not None
            signal.pthread_kill(main, signal.SIGINT)
            while chunk := handle.read(65536):
                received.extend(chunk)

    thread = threading.Thread(target=reader)
    thread.start()
    fs = LocalFilesystem()
    while True:  # the FIFO opens for writing once the reader has opened it
        try:
            with pytest.raises(KeyboardInterrupt):
                fs.write_bytes(str(fifo), data)
            break
        except OSError:
            time.sleep(0.001)
    thread.join()
    assert bytes(received) == data


def test_deferred_interrupts_hand_the_signal_to_the_handler_in_place() -> None:
    token = CancellationToken()
    previous = signal.signal(signal.SIGINT, lambda *_: token.cancel())
    try:
        with deferred_interrupts():
            signal.raise_signal(signal.SIGINT)
            assert not token.cancelled  # held back while inside
        assert token.cancelled
    finally:
        signal.signal(signal.SIGINT, previous)


# -- item 7: an interrupt in every stage ------------------------------------------------------


#: The slow case of item 7 (bench workload h): a long context of one repeated line that does not
#: match a large file of that line.
def _slow_case(n_file: int, n_context: int) -> tuple[str, str]:
    row = "0,0,0,0,0"
    text = (row + "\n") * n_file
    chunk = "@@\n" + (" " + row + "\n") * n_context + "-9,9,9,9,9\n+1,1,1,1,1\n"
    patch = "*** Begin Patch\n*** Update File: data.csv\n" + chunk + "*** End Patch\n"
    return text, patch


STAGE_CHILD = """
    import json, os, signal, sys, threading, time
    from IPython.testing.globalipapp import start_ipython
    from applypatch_ext.jupyter.live.session import SESSION

    ip = start_ipython()
    ip.run_line_magic("load_ext", "applypatch_ext")
    os.chdir(sys.argv[1])
    stage = sys.argv[3]
    with open(sys.argv[2]) as handle:
        patch = handle.read()

    def interrupt_in_stage():
        # Another thread sends the SIGINT as soon as the call is in that stage.
        while True:
            turn = SESSION.turn
            if turn is not None and turn.calls and turn.calls[-1].stage == stage:
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.0002)

    threading.Thread(target=interrupt_in_stage, daemon=True).start()
    print("RUNNING", flush=True)
    ip.run_cell_magic("apply_patch", "--no-widget --stream-chunk 0 result", patch)
    result = ip.user_ns["result"]
    report = {"status": result.status, "stage": result.raw.stage, "error": result.error,
              "delta": result.delta, "events": [e["type"] for e in result.events]}
    print("REPORT", json.dumps(report), flush=True)
"""


def test_sigint_while_verifying_the_slow_case_cancels(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    text, patch = _slow_case(400_000, 3000)  # 4 MB file: the stage lasts long enough
    (work / "data.csv").write_text(text)
    patch_file = tmp_path / "patch.txt"
    patch_file.write_text(patch)
    proc = _child(STAGE_CHILD, str(work), str(patch_file), "verifying")
    _wait_for(proc, "RUNNING")
    report = _report(proc)
    assert report["status"] == "cancelled"
    assert report["stage"] == "verifying"
    assert report["error"] == "apply_patch was cancelled while verifying: nothing was written"
    assert report["delta"] == {"changes": [], "exact": True}
    assert "patch_apply_begin" not in report["events"]  # cancelled before anything started
    assert (work / "data.csv").read_text() == text


EXPLAIN_CHILD = """
    import json, os, random, signal, sys, threading, time
    from applypatch_ext.core.errors import CancelledError, MatchFailure
    from applypatch_ext.core.apply.explain import explain_match_failure
    from applypatch_ext.core.turn.faults import CancellationToken
    from applypatch_ext.core.interrupts import cancellation

    if sys.argv[1] == "slow-case":  # item 7's case: 3,000 context lines of one repeated row
        lines = ["0,0,0,0,0"] * 400_000
        expected = ("0,0,0,0,0",) * 3000 + ("9,9,9,9,9",)
        failure = MatchFailure("/w/data.csv", "lines", expected, 0, False)
    else:  # an @@ context line not in a file of 20,000 similar lines
        rng = random.Random(11)
        words = "alpha beta gamma delta value result index buffer handler config".split()
        lines = [" ".join(rng.choice(words) for _ in range(25)) for _ in range(20_000)]
        wanted = " ".join(rng.choice(words) for _ in range(25))
        failure = MatchFailure("/w/big.py", "context", (wanted,), 0, False)
    token = CancellationToken()
    signal.signal(signal.SIGINT, lambda *_: token.cancel())  # what the magic's guard does
    main = threading.main_thread().ident
    inside = {"_best_window", "_closest_single_line"}

    def interrupt_inside_the_explanation():
        # Another thread sends the SIGINT once the main thread is in the explanation's search.
        while True:
            frame = sys._current_frames().get(main)
            while frame is not None and frame.f_code.co_name not in inside:
                frame = frame.f_back
            if frame is not None:
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.0001)

    threading.Thread(target=interrupt_inside_the_explanation, daemon=True).start()
    with cancellation(token):
        try:
            # No deadline: only the interrupt can stop this explanation.
            explain_match_failure(failure, lines, budget=None)
            outcome = "finished"
        except CancelledError as exc:
            outcome = "cancelled: " + str(exc)
    print("REPORT", json.dumps({"outcome": outcome}), flush=True)
"""


@pytest.mark.parametrize("case", ["slow-case", "single-line"])
def test_sigint_while_explaining_cancels(case: str) -> None:
    proc = _child(EXPLAIN_CHILD, case)
    assert _report(proc) == {"outcome": "cancelled: apply_patch was cancelled"}


def test_cancelled_token_stops_the_parse(tmp_path: Path) -> None:
    """The parser polls the token once a window of text: a cancelled call parses no further."""
    lines = "".join(f"+line {n} of a large added file\n" for n in range(200_000))
    call = Turn(str(tmp_path)).call()
    call.push_delta("*** Begin Patch\n*** Add File: big.txt\n" + lines + "*** End Patch\n")
    call.cancel.cancel()
    result = call.run("approve")
    assert result.status == "cancelled"
    assert result.stage == "parsing"
    assert result.parsed is None
    assert not (tmp_path / "big.txt").exists()


# -- in process: the checkpoints and the explanation's bounds ---------------------------------


def test_checkpoint_raises_only_for_the_current_cancelled_token() -> None:
    checkpoint()  # no call: nothing to honour
    token = CancellationToken()
    with cancellation(token):
        checkpoint()
        token.cancel()
        with pytest.raises(CancelledError, match="cancelled while verifying"):
            checkpoint("verifying")
    checkpoint()  # outside again


def test_explanation_past_its_deadline_says_it_gave_up() -> None:
    text, _patch = _slow_case(100, 10)
    failure = MatchFailure("/w/data.csv", "lines", ("0,0,0,0,0",) * 10 + ("9,9,9,9,9",), 0, False)
    explanation = explain_match_failure(failure, text.splitlines(), budget=0)
    assert explanation.region_start is None
    assert explanation.summary.startswith(
        "gave up looking for the closest region after 0 steps of work"
    )
    assert "the file has 100 lines, the chunk 11" in explanation.summary


def test_explanation_of_the_slow_case_still_finds_the_region() -> None:
    text, _patch = _slow_case(100_000, 1000)
    expected = ("0,0,0,0,0",) * 1000 + ("9,9,9,9,9",)
    failure = MatchFailure("/w/data.csv", "lines", expected, 0, False)
    explanation = explain_match_failure(failure, text.splitlines(), budget=WORK_BUDGET)
    assert explanation.region_start == 0
    assert explanation.summary == (
        "closest region starts at line 1: 1000 of 1001 lines match (1000 exact); 1 differs"
    )


def test_text_search_finds_what_the_line_comparison_finds() -> None:
    """``_find`` past its list candidates (a text search) agrees with a plain scan."""
    import random

    rng = random.Random(7)
    for _ in range(300):
        lines = [rng.choice(["", "a", "b", "a b"]) for _ in range(rng.randint(1, 200))]
        pattern = [rng.choice(["", "a", "b", "a b"]) for _ in range(rng.randint(2, 6))]
        first = rng.randint(0, len(lines))
        last = len(lines) - len(pattern)
        expected = next(
            (p for p in range(first, last + 1) if lines[p : p + len(pattern)] == pattern), None
        )
        joined = "\n".join(lines)

        def text(joined: str = joined) -> str:
            return joined

        assert _find(lines, pattern, first, last, text) == expected


def test_writes_from_another_thread_leave_the_handler_alone(tmp_path: Path) -> None:
    """Only the main thread can hold a signal back; another thread's writes just write."""
    before = signal.getsignal(signal.SIGINT)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            LocalFilesystem().write_bytes(str(tmp_path / "from-thread.txt"), b"data\n")
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert errors == []
    assert (tmp_path / "from-thread.txt").read_bytes() == b"data\n"
    assert signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_at_an_approval_prompt_ends_the_call(tmp_path: Path) -> None:
    """An approver that is interrupted (Ctrl-C at a prompt) leaves a finished, cancelled call,
    never one that still claims to wait for approval."""

    def prompt(_request: object) -> str:
        raise KeyboardInterrupt  # what input() raises on Ctrl-C

    options = PipelineOptions.from_strings(str(tmp_path), approval_policy="untrusted")
    call = Turn(str(tmp_path), options=options).call()
    call.push_delta("*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n")
    with pytest.raises(KeyboardInterrupt):
        call.run(prompt)
    assert call.result is not None
    assert call.result.status == "cancelled"
    assert call.result.error == "interrupted while waiting for approval"
    assert call.result.delta.changes == () and call.result.delta.exact
    assert not (tmp_path / "a.txt").exists()
    with pytest.raises(RuntimeError, match="is not waiting for approval"):
        call.resume("approve")
