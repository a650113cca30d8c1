"""``%%apply_patch`` and ``%apply_patch_turn`` through a real IPython shell: every option, the
result object, and the user errors (exactly ``UsageError``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO, capture_output

from applypatch_ext.core.turn.faults import FAULT_SPECS
from applypatch_ext.core.turn.options import OPTIONS, FrontEnd, options_of
from applypatch_ext.core.turn.pacing import plan_stream
from applypatch_ext.jupyter.live.result import PatchCallResult
from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.magics.arguments import CALL_MAGIC_OWN

from ..trees import snapshot_dir
from .conftest import Magic, Run

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch", ""])


ADD_A = patch("*** Add File: a.txt", "+alpha")
ADD_B = patch("*** Add File: b.txt", "+beta")
TWO_ADDS = patch("*** Add File: a1.txt", "+one", "*** Add File: a2.txt", "+two")


def usage_error(run_magic: Magic, line: str, cell: str = ADD_A) -> str:
    with pytest.raises(UsageError) as info:
        run_magic(line, cell)
    assert type(info.value) is UsageError  # a subclass would print a whole traceback
    return str(info.value)


# ---------------------------------------------------------------------------- options


def test_default_run_writes_and_shows_the_widget(run_magic: Magic, tmp_path: Path) -> None:
    run = run_magic("", ADD_A)
    assert run.widget.status == "completed"
    assert (tmp_path / "a.txt").read_text() == "alpha\n"
    # the static record, then the widget view
    assert "applypatch_ext" in run.outputs[0]["metadata"]
    assert WIDGET_VIEW in run.outputs[1]["data"]


def test_result_variable_holds_the_result_object(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "old.txt").write_text("x\n")
    run_magic(
        "res --stream-chunk 0",
        patch("*** Add File: a.txt", "+alpha", "*** Delete File: old.txt"),
    )
    res = ip.user_ns["res"]
    assert isinstance(res, PatchCallResult)
    assert res.status == "completed"
    assert res.call_id == "call-1"
    assert res.error is None and res.explanation is None
    assert res.stdout == "Success. Updated the following files:\nA a.txt\nD old.txt\n"
    assert res.stderr == ""
    assert res.output.startswith("Exit code: 0\nWall time: ")
    assert res.raw.status == "completed"
    # events are plain dicts, tagged by type
    assert all(isinstance(e, dict) and "type" in e for e in res.events)
    assert [e["type"] for e in res.events][-3:] == [
        "patch_apply_begin",
        "patch_apply_end",
        "turn_diff",
    ]
    assert res.delta["exact"] is True
    assert [(c["type"], Path(c["path"]).name) for c in res.delta["changes"]] == [
        ("add", "a.txt"),
        ("delete", "old.txt"),
    ]
    assert res.proposed is not None
    assert set(res.proposed) == {str(tmp_path / "a.txt"), str(tmp_path / "old.txt")}
    assert "diff --git a/a.txt b/a.txt" in res.turn_diff
    assert "diff --git a/old.txt b/old.txt" in res.turn_diff
    # rich representations
    html = res._repr_html_()
    assert "completed" in html and "<details" in html and "a.txt" in html
    markdown = res._repr_markdown_()
    assert "**completed**" in markdown and "```diff" in markdown
    text = repr(res)
    assert text.startswith("apply_patch call-1 in ") and "completed" in text
    assert "  Add a.txt +1 -0\n+alpha" in text  # the call's own change, with its counts
    # the turn's diff a summary: its files and counts (%apply_patch_turn shows the diff)
    assert "turn diff: 2 files +1 -1" in text and "  old.txt +0 -1" in text
    assert "diff --git" not in text


def test_cwd_option(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    run = run_magic("--cwd sub", ADD_A)
    assert run.widget.cwd == str(tmp_path / "sub")
    assert (tmp_path / "sub" / "a.txt").read_text() == "alpha\n"
    assert not (tmp_path / "a.txt").exists()
    absolute = tmp_path / "abs"
    absolute.mkdir()
    run_magic(f"--cwd {absolute} --new-turn", ADD_B)
    assert (absolute / "b.txt").exists()


@pytest.mark.parametrize("quote", ['"', "'"], ids=["double", "single"])
def test_a_quoted_value_loses_its_quotes_for_every_option(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path, quote: str
) -> None:
    """The options line is split as a shell splits it: IPython's own splitter kept the quotes,
    so `--cwd "my dir"` named a folder with quotes in its name."""
    (tmp_path / "my dir").mkdir()
    run = run_magic(f"--cwd {quote}my dir{quote}", ADD_A)
    assert run.widget.cwd == str(tmp_path / "my dir")
    assert (tmp_path / "my dir" / "a.txt").read_text() == "alpha\n"
    run_magic(f"r --new-turn --review --approve decline --reason {quote}too risky{quote}", ADD_B)
    assert ip.user_ns["r"].output == "patch rejected by user\nThe user's reason: too risky"
    assert "close every quote" in usage_error(run_magic, f"--reason {quote}too risky")


def test_cwd_that_does_not_exist_is_a_usage_error(run_magic: Magic, tmp_path: Path) -> None:
    message = usage_error(run_magic, "--cwd nowhere")
    assert "nowhere" in message
    (tmp_path / "file").write_text("")
    usage_error(run_magic, "--cwd file")


def test_dry_run_writes_nothing(run_magic: Magic, ip: InteractiveShell, tmp_path: Path) -> None:
    run = run_magic("r --dry-run", ADD_A)
    assert run.widget.status == ip.user_ns["r"].status == "dry-run"
    assert run.widget.proposed == {str(tmp_path / "a.txt"): {"type": "add", "content": "alpha\n"}}
    assert run.widget.safety["decision"] == "auto-approve"
    assert not (tmp_path / "a.txt").exists()
    assert not any(e["type"] == "patch_apply_begin" for e in ip.user_ns["r"].events)


def test_dry_run_of_an_unparsable_patch_is_a_usage_error(run_magic: Magic) -> None:
    message = usage_error(run_magic, "--dry-run", "*** Begin Patch\n*** Frobnicate: x\n")
    assert "--dry-run" in message


def test_a_failing_patch_without_dry_run_is_a_status_not_an_exception(
    run_magic: Magic, ip: InteractiveShell
) -> None:
    run = run_magic("r", "*** Begin Patch\n*** Frobnicate: x\n")
    assert run.widget.status == ip.user_ns["r"].status == "error"
    assert run.widget.error
    run = run_magic("r", patch("*** Update File: missing.txt", "@@", "-a", "+b"))
    assert ip.user_ns["r"].status == "error"


def test_stream_chunk_and_delay(run_magic: Magic) -> None:
    """The explicit pace feeds the cell 20 characters at a time: every text the widget got is a
    prefix the stream reached (a multiple of 20 characters, or the whole cell), growing."""
    text = patch("*** Add File: s.txt", *[f"+line {i}" for i in range(10)])
    run = run_magic("--stream-chunk 20 --stream-delay 0.03", text)
    texts = [u["patch_text"] for u in run.widget.updates() if "patch_text" in u]
    assert len(texts) >= 2 and texts[-1] == text
    assert [len(t) for t in texts] == sorted({len(t) for t in texts})
    assert all(text.startswith(t) and (len(t) % 20 == 0 or t == text) for t in texts)


def test_stream_chunk_zero_feeds_the_text_whole(run_magic: Magic) -> None:
    # one delta, so no pause at all (the plan's total pause: tests/core/turn/test_pacing.py)
    run = run_magic("--stream-chunk 0 --stream-delay 5", ADD_A)
    assert [u["patch_text"] for u in run.widget.updates() if "patch_text" in u] == [ADD_A]


CELL_1300 = patch(
    "*** Add File: module.py", *[f"+value_{i:04d} = compute({i}, 'new')" for i in range(1297)]
)


def patch_texts(run: Run) -> list[str]:
    return [u["patch_text"] for u in run.widget.updates() if "patch_text" in u]


def test_the_default_streams_a_long_cell_in_the_bounded_plan(
    run_magic: Magic, tmp_path: Path
) -> None:
    assert CELL_1300.count("\n") == 1300
    run = run_magic("", CELL_1300)
    assert run.widget.status == "completed"
    texts = patch_texts(run)
    plan = plan_stream(len(CELL_1300))
    assert plan.count == 20
    # the view saw the text grow (the first delta at once), at most once per delta
    assert 2 <= len(texts) <= plan.count
    assert texts[0] == CELL_1300[: plan.chunk] and texts[-1] == CELL_1300
    assert (tmp_path / "module.py").read_text().count("\n") == 1297


def test_the_default_streams_a_small_cell_visibly(run_magic: Magic) -> None:
    run = run_magic("", ADD_A)
    texts = patch_texts(run)
    assert texts[0] == ADD_A[:24] and texts[-1] == ADD_A and len(texts) >= 2


def test_stream_none_runs_the_cell_at_once(run_magic: Magic) -> None:
    run = run_magic("--stream none", CELL_1300)
    assert patch_texts(run) == [CELL_1300]
    assert run.widget.status == "completed"


def test_stream_model_speed_feeds_model_sized_deltas(
    run_magic: Magic, ip: InteractiveShell
) -> None:
    text = patch("*** Add File: s.txt", "+one", "+two")
    run_magic("r --stream model-speed --throttle-ms 0", text)
    previews = [e for e in ip.user_ns["r"].events if e["type"] == "patch_apply_updated"]
    assert len(previews) >= len(text) // 24 - 1  # one per delta that changes the plan


def test_a_preview_burst_is_coalesced_into_the_text_updates(run_magic: Magic) -> None:
    # one-character deltas, no pause, every change previewed: the widget gets one update per
    # text interval at most, carrying the previews of that interval, not one per delta
    text = patch(*[f"*** Add File: f{i}.txt\n+x" for i in range(40)])
    run = run_magic("--stream-chunk 1 --stream-delay 0 --throttle-ms 0", text)
    planned = [u for u in run.widget.updates() if "planned" in u]
    assert len(planned) < len(text) // 10
    assert len(run.widget.planned) == 40  # the last preview arrived all the same


def test_throttle_ms(run_magic: Magic, ip: InteractiveShell) -> None:
    text = patch(*[f"*** Add File: f{i}.txt\n+x" for i in range(6)])

    def previews(line: str) -> int:
        run_magic(f"r --new-turn --stream-chunk 8 --stream-delay 0 {line}", text)
        return sum(e["type"] == "patch_apply_updated" for e in ip.user_ns["r"].events)

    every_change = previews("--throttle-ms 0")
    throttled = previews("--throttle-ms 60000")
    assert every_change >= 6
    assert throttled == 2  # the first at once, the last pending one flushed at the end


def test_outside_the_folder_but_in_tmp_applies_without_asking_unless_excluded(
    run_magic: Magic, tmp_path: Path
) -> None:
    # The README's caveat: /tmp and $TMPDIR are writable roots of workspace-write, as in Codex.
    temps = [Path("/tmp").resolve()]
    if os.environ.get("TMPDIR", "").startswith("/"):
        temps.append(Path(os.environ["TMPDIR"]).resolve())
    if not any(tmp_path.resolve().is_relative_to(t) for t in temps):
        pytest.skip(f"{tmp_path} is in neither /tmp nor $TMPDIR")
    project = tmp_path / "project"
    project.mkdir()
    outside = patch("*** Add File: ../next_to_it.txt", "+written")
    run = run_magic("--cwd project", outside)
    assert run.widget.status == "completed" and run.widget.safety["decision"] == "auto-approve"
    assert (tmp_path / "next_to_it.txt").read_text() == "written\n"
    (tmp_path / "next_to_it.txt").unlink()
    run = run_magic("--cwd project --new-turn --exclude-tmp", outside)
    assert run.widget.status == "awaiting-approval"
    assert not (tmp_path / "next_to_it.txt").exists()


def test_approval_policy(run_magic: Magic, tmp_path: Path) -> None:
    assert run_magic("--approval-policy untrusted", ADD_A).widget.status == "awaiting-approval"
    # never: a write outside the writable roots is rejected instead of asked about
    run = run_magic("--approval-policy never --sandbox read-only", ADD_B)
    assert run.widget.status == "rejected"
    assert run.widget.safety["decision"] == "reject"
    run = run_magic("--approval-policy granular:no-sandbox-approval --sandbox read-only", ADD_B)
    assert run.widget.status == "rejected"
    assert run_magic("--approval-policy on-request", ADD_B).widget.status == "completed"
    assert not (tmp_path / "a.txt").exists()


def test_sandbox(run_magic: Magic) -> None:
    safety = run_magic("--new-turn", ADD_A).widget.safety
    assert (safety["decision"], safety["sandboxed"]) == ("auto-approve", True)
    safety = run_magic("--new-turn --sandbox danger-full-access", ADD_B).widget.safety
    assert (safety["decision"], safety["sandboxed"]) == ("auto-approve", False)
    run = run_magic("--sandbox external", patch("*** Add File: c.txt", "+c"))
    assert (run.widget.safety["decision"], run.widget.safety["sandboxed"]) == (
        "auto-approve",
        False,
    )
    run = run_magic("--sandbox read-only", patch("*** Add File: d.txt", "+d"))
    assert run.widget.safety["decision"] == "ask-user"
    assert run.widget.status == "awaiting-approval"


def test_writable_root_and_exclude_tmp(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "shared").mkdir()
    outside = patch("*** Add File: ../shared/x.txt", "+x")
    # /tmp counts as a writable root unless excluded
    assert run_magic("--cwd project", outside).widget.status == "completed"
    (tmp_path / "shared" / "x.txt").unlink()
    run = run_magic("--cwd project --exclude-tmp", outside)
    assert run.widget.status == "awaiting-approval"
    run = run_magic("--cwd project --exclude-tmp --writable-root ../shared", outside)
    assert run.widget.status == "completed"
    assert run.widget.safety == {"decision": "auto-approve", "reason": None, "sandboxed": True}
    assert (tmp_path / "shared" / "x.txt").read_text() == "x\n"


@pytest.mark.parametrize(
    ("approve", "status", "written"),
    [
        ("ask", "awaiting-approval", False),
        ("approve", "completed", True),
        ("approve-for-session", "completed", True),
        ("decline", "declined", False),
    ],
    ids=["ask", "approve", "approve-for-session", "decline"],
)
def test_approve(
    run_magic: Magic, tmp_path: Path, approve: str, status: str, written: bool
) -> None:
    run = run_magic(f"--approval-policy untrusted --approve {approve}", ADD_A)
    assert run.widget.status == status
    assert (tmp_path / "a.txt").exists() is written
    if approve == "approve-for-session":
        # the session approval covers the same path in the next call of the turn
        again = patch("*** Update File: a.txt", "@@", "-alpha", "+again")
        assert run_magic("--approval-policy untrusted", again).widget.status == "completed"


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("preserve", b"a\r\nB\r\nc\r\n"), ("lf", b"a\nB\nc\r\n")],
    ids=["preserve", "lf"],
)
def test_line_endings(run_magic: Magic, tmp_path: Path, mode: str, expected: bytes) -> None:
    (tmp_path / "c.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    run = run_magic(
        f"--line-endings {mode}", patch("*** Update File: c.txt", "@@", " a", "-b", "+B")
    )
    assert run.widget.status == "completed"
    assert (tmp_path / "c.txt").read_bytes() == expected


def test_duplicates(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("x\nw\n")
    twice = patch(
        "*** Update File: d.txt", "@@", "-x", "+y", "*** Update File: d.txt", "@@", "-w", "+v"
    )
    run = run_magic("", twice)
    assert run.widget.status == "error"
    assert "multiple operations target" in run.widget.error
    run = run_magic("--duplicates reject", twice)
    assert run.widget.status == "error"
    run = run_magic("--duplicates fold", twice)
    # legacy: the proposed map keeps one entry for the path, both hunks are applied
    assert len(run.widget.proposed) == 1
    assert run.widget.status == "completed"
    assert (tmp_path / "d.txt").read_text() == "y\nv\n"


@pytest.mark.parametrize(
    ("transaction", "kept"),
    [("none", True), ("atomic", False)],
    ids=["none", "atomic"],
)
def test_transaction_and_fault(
    run_magic: Magic, tmp_path: Path, transaction: str, kept: bool
) -> None:
    run = run_magic(f"--transaction {transaction} --fault write:2", TWO_ADDS)
    assert run.widget.status == "failed"
    assert (tmp_path / "a1.txt").exists() is kept
    assert not (tmp_path / "a2.txt").exists()
    committed = [Path(c["path"]).name for c in run.widget.delta["changes"]]
    assert committed == (["a1.txt"] if kept else [])


def test_several_faults(run_magic: Magic, tmp_path: Path) -> None:
    run = run_magic("--fault write:a2.txt --fault write:1", TWO_ADDS)
    assert run.widget.status == "failed"
    assert run.widget.delta["changes"] == []
    assert not (tmp_path / "a1.txt").exists()


def test_new_turn_starts_an_empty_turn_diff(run_magic: Magic) -> None:
    run_magic("", ADD_A)
    both = run_magic("", ADD_B).widget.turn_diff
    assert "a/a.txt" in both and "a/b.txt" in both
    alone = run_magic("--new-turn", patch("*** Add File: c.txt", "+c")).widget.turn_diff
    assert "a/c.txt" in alone and "a/a.txt" not in alone


def test_no_widget_shows_rich_output(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    run = run_magic("r --no-widget", ADD_A)
    assert run._widget is None
    [output] = run.outputs
    data = output["data"]
    assert WIDGET_VIEW not in data
    assert {"text/html", "text/markdown", "text/plain"} <= set(data)
    assert "completed" in data["text/plain"]
    assert ip.user_ns["r"].status == "completed"
    assert (tmp_path / "a.txt").exists()


# ------------------------------------------------------------------------- user errors


@pytest.mark.parametrize(
    ("line", "cell", "mentions"),
    [
        ("--approval-policy sometimes", ADD_A, "--approval-policy"),
        ("--sandbox leaky", ADD_A, "--sandbox"),
        ("--approve maybe", ADD_A, "--approve"),
        ("--line-endings cr", ADD_A, "--line-endings"),
        ("--duplicates keep", ADD_A, "--duplicates"),
        ("--transaction sometimes", ADD_A, "--transaction"),
        ("--fault bogus", ADD_A, "--fault"),
        ("--fault write:", ADD_A, "--fault"),
        ("--fault explode:3", ADD_A, "--fault"),
        ("--throttle-ms -1", ADD_A, "--throttle-ms"),
        ("--stream-chunk -1", ADD_A, "--stream-chunk"),
        ("--stream-delay -1", ADD_A, "--stream-delay"),
        ("--stream-chunk many", ADD_A, "--stream-chunk"),
        ("--stream fast", ADD_A, "--stream must be one of bounded, model-speed, none"),
        ("--stream none --stream-chunk 8", ADD_A, "--stream none feeds the text whole"),
        ("--stream none --stream-delay 0", ADD_A, "it takes no --stream-delay"),
        ("--stream-delay 0.5x", ADD_A, "--stream-delay"),
        ("--no-such-option", ADD_A, "no-such-option"),
        ("", "", "empty"),
        ("", "  \n\t\n", "empty"),
    ],
    ids=[
        "approval-policy",
        "sandbox",
        "approve",
        "line-endings",
        "duplicates",
        "transaction",
        "fault-no-colon",
        "fault-no-arg",
        "fault-kind",
        "throttle",
        "stream-chunk",
        "stream-delay",
        "stream-chunk-not-int",
        "stream-unknown",
        "stream-none-with-chunk",
        "stream-none-with-delay",
        "stream-delay-not-float",
        "unknown-option",
        "empty-cell",
        "blank-cell",
    ],
)
def test_usage_errors(
    run_magic: Magic, tmp_path: Path, line: str, cell: str, mentions: str
) -> None:
    message = usage_error(run_magic, line, cell)
    assert mentions in message
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_usage_error_in_a_cell_is_reported_without_traceback(ip: InteractiveShell) -> None:
    with capture_output() as captured:
        result = ip.run_cell("%%apply_patch --sandbox leaky\n" + ADD_A)
    assert type(result.error_in_exec) is UsageError
    assert "Traceback" not in captured.stdout + captured.stderr


def test_help_documents_every_option(ip: InteractiveShell) -> None:
    with capture_output() as captured:
        ip.run_cell("%%apply_patch?")
    text = captured.stdout
    for option in [
        "--cwd",
        "--dry-run",
        "--stream ",
        "--stream-chunk",
        "--stream-delay",
        "--throttle-ms",
        "--approval-policy",
        "--sandbox",
        "--writable-root",
        "--exclude-tmp",
        "--approve",
        "--line-endings",
        "--duplicates",
        "--transaction",
        "--fault",
        "--new-turn",
        "--no-widget",
        "result",
    ]:
        assert option in text, option
    assert "*** Begin Patch" in text  # the example
    doc = ip.find_cell_magic("apply_patch").__doc__ or ""
    assert "--approval-policy" in doc


def help_options(text: str) -> dict[str, str | None]:
    """Every ``--option`` a help text lists, with the default its help states (or None)."""
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        found = re.match(r"  (--[a-z][a-z-]*)", line)
        if found:
            current = entries.setdefault(found[1], [])
            current.append(line[found.end() :])
        elif current is not None and line.startswith("    "):
            current.append(line)
        else:
            current = None
    defaults: dict[str, str | None] = {}
    for name, lines in entries.items():
        stated = re.search(r"\(default: ([^)]*)\)", " ".join(" ".join(lines).split()))
        defaults[name] = stated[1] if stated else None
    return defaults


def test_magic_and_turn_help_list_the_same_options_and_defaults(ip: InteractiveShell) -> None:
    with capture_output() as captured:
        ip.run_cell("%%apply_patch?")
    magic = help_options(captured.stdout)
    turn_help = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "turn", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    turn = help_options(turn_help)
    magic_table = {o.name for o in options_of(FrontEnd.MAGIC)}
    magic_only = magic_table - {o.name for o in options_of(FrontEnd.TURN)}
    turn_only = {o.name for o in options_of(FrontEnd.TURN)} - {
        o.name for o in options_of(FrontEnd.MAGIC)
    }
    assert magic_only == {
        "--dry-run",
        "--new-turn",
        "--no-widget",
        "--stream",
        "--stream-delay",
        "--accept",  # a selection fits one patch; turn runs several (docs/behaviour.md §6.7)
        "--reason",
    }
    # the magic's own option, outside the table: a teaching notebook's answer cell
    # (tests/jupyter/test_exercise_magic.py)
    assert [o.name for o in CALL_MAGIC_OWN] == ["--exercise"]
    assert "--exercise" not in {o.name for o in OPTIONS}
    assert turn_only == {"--environment"}
    assert set(magic) - magic_only - {"--exercise"} == set(turn) - turn_only
    assert set(magic) == magic_table | {"--exercise"}
    # the one default the table sets per front end: a notebook shows the stream, turn does not
    calls = (FrontEnd.MAGIC, FrontEnd.TURN)  # (the desks have defaults of their own)
    differing = {o.name for o in OPTIONS if any(fe in calls for fe, _ in o.defaults)}
    assert differing == {"--stream-chunk"}
    for name in set(magic) & set(turn) - differing:
        assert magic[name] == turn[name], name
    assert (magic["--stream-chunk"], turn["--stream-chunk"]) == ("the --stream pace's", "0")
    assert (magic["--stream"], magic["--stream-delay"]) == ("bounded", "the --stream pace's")
    assert (magic["--throttle-ms"], magic["--approve"], magic["--sandbox"]) == (
        "500",
        "ask",
        "workspace-write",
    )
    for spec, description in FAULT_SPECS:  # the fault-spec help, in both
        assert spec in captured.stdout and spec in turn_help
        assert " ".join(description.split()[:4]) in " ".join(captured.stdout.split())


def test_the_file_magic_has_the_cell_magics_options(ip: InteractiveShell) -> None:
    cell = help_options(ip.find_cell_magic("apply_patch").__doc__ or "")
    line = help_options(ip.find_line_magic("apply_patch").__doc__ or "")
    assert line == cell and "--throttle-ms" in line


def test_replay_magic_and_command_list_the_same_options_and_defaults(
    ip: InteractiveShell,
) -> None:
    magic = help_options(ip.find_line_magic("apply_patch_replay").__doc__ or "")
    command = help_options(
        subprocess.run(
            [sys.executable, "-m", "applypatch_ext", "replay", "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert set(magic) - set(command) == {"--no-widget"}  # a notebook's only
    assert {name: magic[name] for name in command} == command
    assert command["--approve"] == "decline" and command["--approval-policy"] == "on-request"


def test_help_usage_line_names_the_cell_magic(ip: InteractiveShell) -> None:
    with capture_output() as captured:
        ip.run_cell("%%apply_patch?")
    usage = [line.strip() for line in captured.stdout.splitlines() if "apply_patch [" in line]
    assert usage and usage[0].startswith("%%apply_patch [--cwd DIR]")


def test_help_groups_the_options(ip: InteractiveShell) -> None:
    with capture_output() as captured:
        ip.run_cell("%%apply_patch?")
    text = captured.stdout
    headers = ["The call:", "Safety and approval:", "Behaviour:", "Streaming:", "Faults:"]
    positions = [text.index(header) for header in [*headers, "Display:"]]
    assert positions == sorted(positions)
    safety = text[text.index("Safety and approval:") : text.index("Behaviour:")]
    assert re.search(r"^  --sandbox ", safety, re.MULTILINE)
    assert re.search(r"^  --fault SPEC ", text[text.index("Faults:") :], re.MULTILINE)


def test_a_bad_choice_names_the_option_and_the_valid_values(run_magic: Magic) -> None:
    assert usage_error(run_magic, "--sandbox leaky") == (
        "--sandbox must be one of danger-full-access, external, workspace-write, read-only, "
        "got 'leaky'"
    )
    assert usage_error(run_magic, "--approve maybe") == (
        "--approve must be one of ask, approve, approve-for-session, decline, got 'maybe'"
    )


# ---------------------------------------------------------------------- %apply_patch_turn


def _plain(captured: CapturedIO) -> str:
    [output] = captured.outputs
    text: str = output.data["text/plain"]
    return text


def test_turn_shows_the_turn_diff(run_magic: Magic) -> None:
    assert "no changes" in _plain(run_magic.line("apply_patch_turn"))
    run_magic("", ADD_A)
    diff = run_magic("", ADD_B).widget.turn_diff
    captured = run_magic.line("apply_patch_turn")
    assert _plain(captured) == diff
    assert "diff --git a/b.txt" in captured.outputs[0].data["text/html"]


def test_turn_reset(run_magic: Magic) -> None:
    run_magic("", ADD_A)
    run_magic.line("apply_patch_turn", "--reset")
    assert SESSION.turn is None
    assert "no changes" in _plain(run_magic.line("apply_patch_turn"))
    # the next call starts a new turn: its TurnDiff has only its own file
    assert "a/a.txt" not in run_magic("", ADD_B).widget.turn_diff


def test_turn_events(run_magic: Magic) -> None:
    run_magic("", ADD_A)
    run_magic("", ADD_B)
    captured = run_magic.line("apply_patch_turn", "--events")
    html = captured.outputs[0].data["text/html"]
    assert html.count("patch_apply_end") == 2
    assert "turn_diff" in html
    # a timeline, not a call: no status and no empty stage ("running (stage: )")
    plain = captured.outputs[0].data["text/plain"]
    for text in (html, plain):
        assert "running" not in text and "(stage: )" not in text
        assert re.search(r"timeline in /\S+: \d+ events of 2 calls", text), text[:200]
    assert plain.splitlines()[1].lstrip().startswith("+")  # then one line per event


def test_turn_events_before_any_call(run_magic: Magic) -> None:
    SESSION.new_turn()
    data = run_magic.line("apply_patch_turn", "--events").outputs[0].data
    assert data["text/plain"] == "The turn's timeline: no events yet."
    assert "running" not in data["text/html"]


def test_turn_export_applies_with_git_apply(run_magic: Magic, tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "mod.py").write_text("def f():\n    return 1\n\n\nprint(f())\n")
    (work / "old.txt").write_text("bye\n")
    (work / "keep.txt").write_text("same\n")
    (work / "move_me.txt").write_text("m1\nm2\n")
    original = tmp_path / "original"
    shutil.copytree(work, original)

    run_magic(
        "--cwd work",
        patch(
            "*** Update File: pkg/mod.py",
            "@@ def f():",
            "-    return 1",
            "+    return 2",
            "*** Delete File: old.txt",
            "*** Add File: new/dir/hello.txt",
            "+hello",
        ),
    )
    run_magic(
        "--cwd work",
        patch("*** Update File: move_me.txt", "*** Move to: moved.txt", "@@", " m1", "-m2", "+M2"),
    )
    target = tmp_path / "turn.diff"
    captured = run_magic.line("apply_patch_turn", f"--export {target}")
    assert "turn.diff" in _plain(captured)
    diff = target.read_text()
    assert diff.count("diff --git ") == 4

    proc = subprocess.run(
        [git, "apply", "--verbose", str(target)],
        cwd=original,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert snapshot_dir(original) == snapshot_dir(work)


def test_turn_export_to_an_unwritable_place_is_a_usage_error(
    run_magic: Magic, tmp_path: Path
) -> None:
    run_magic("", ADD_A)
    with pytest.raises(UsageError) as info:
        run_magic.line("apply_patch_turn", f"--export {tmp_path / 'no' / 'such' / 'dir.diff'}")
    assert type(info.value) is UsageError


def test_the_next_cell_recovers_a_killed_atomic_call_first(
    run_magic: Magic, tmp_path: Path
) -> None:
    """Issue 11 item 4: a `turn --transaction atomic` process killed (SIGKILL) part-way in the
    notebook's folder; the next cell restores the tree first and says so in its events."""
    import signal
    import sys

    (tmp_path / "keep.txt").write_text("keep\n")
    adds = [f"*** Add File: new/f{i}.txt\n+{i}" for i in range(40)]
    body = patch("*** Delete File: keep.txt", *adds)
    (tmp_path / "p.patch").write_text(body)
    command = [sys.executable, "-m", "applypatch_ext", "turn", "--cwd", str(tmp_path)]
    killed = subprocess.run(
        [*command, "--transaction", "atomic", "--fault", "kill:20", str(tmp_path / "p.patch")],
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL
    assert not (tmp_path / "keep.txt").exists()
    run = run_magic("", ADD_A)
    assert run.widget.status == "completed"
    kinds = [e["type"] for e in run.widget.events if e["type"] != "patch_apply_updated"]
    assert kinds[:2] == ["transaction_recovered", "patch_safety_assessed"]
    [recovered] = [e for e in run.widget.events if e["type"] == "transaction_recovered"]
    # restored: keep.txt; removed: the adds written before the kill, and new/
    assert recovered["summary"].startswith("unfinished atomic call call-1 rolled back: 1 restored")
    assert (tmp_path / "keep.txt").read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "keep.txt", "p.patch"]
