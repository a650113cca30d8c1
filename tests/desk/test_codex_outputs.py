"""The desk's ``apply_patch`` answers what Codex's own apply_patch answered, byte for byte.

Every apply_patch call of the real Codex rollouts in tests/data/rollouts/ (made by
tools/make_rollouts.py: ``codex exec`` ran its own apply_patch against the stand-in model and
recorded each output it gave the model) is sent again, with the real ``mcp`` client over both
transports, to a desk on a copy of the recorded project as it was before the session
(``<scenario>.before/``), with the recorded turn's approval policy and sandbox (``never``,
``danger-full-access``: nothing is asked). The calls are found, and their text read, by the
session replay code (``core.agents``), in order, one desk per recorded turn. What the desk
returns is compared with what Codex recorded, as a whole string, after only these readings:

- the wall time: the desk's run lasts as long as this machine takes, so the line
  ``Wall time: N seconds`` is read as 0 on both sides (Codex recorded 0 for every call);
- the shell form: the desk's tool, like Codex's freeform apply_patch, takes a patch, never a
  command (both refuse ``cd sub && apply_patch <<'EOF'`` as an invalid patch: the
  rollouts ``freeform_commands``), so a shell-form call's patch goes to a desk whose folder is
  the call's ``cd``;
- the project's folder: Codex's error text names the file by its absolute path, in the scratch
  project of the recording, which is read as the desk's folder;
- the shell tool's envelope, which is not apply_patch's: Codex 0.147/0.163 run a shell-form
  call through ``exec_command``, which puts its own ``Wall time: ... / Output:`` block before
  apply_patch's text (the desk is the apply_patch tool, so it has no such block);
- the envelope of Codex 0.47, which answered in JSON (``{"output": ..., "metadata":
  {"exit_code": N, "duration_seconds": S}}``) where later versions (and the desk) write
  ``Exit code: N / Wall time: S seconds / Output:``: the same fields, in the later text.

The recorded tree after the session (``<scenario>.after/``) is compared whole with the desk's.
And ``verify_patch``, asked first about each patch on the same tree, writes nothing and begins
with Codex's own error text for the patch that does not apply.

Where a person answers at the desk (``--review``), the text differs from Codex's only by what
issue 26 adds: a "not applied, by the user" line per file left out, and a decline's reason.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from applypatch_ext.core.agents.replay import load_replay_source
from applypatch_ext.core.agents.rollout import Rollout, RolloutCall, RolloutTurn
from applypatch_ext.core.parse.invocation import ApplyPatchInvocation, parse_command_line

from ..rollouts import (
    ROLLOUTS,
    SCENARIOS,
    VERSIONS,
    project_after,
    project_before,
    rollout_path,
)
from ..trees import snapshot_dir
from .conftest import (
    SUCCESS,
    TRANSPORTS,
    http_client,
    make_desk,
    serving,
    stdio_client,
    steady,
    text_of,
)

#: The block a shell tool (``exec_command``) puts before the text of the command it ran.
SHELL_ENVELOPE = re.compile(r"Wall time: [0-9.]+ seconds\nOutput:\n")
APPLIES_AT_ONCE = "The patch applies cleanly: apply_patch would write it at once.\n"


@dataclass(frozen=True)
class Answered:
    """One recorded call sent to the desk: its verify_patch text, then its apply_patch text."""

    call: RolloutCall
    verified: str
    applied: str
    applied_is_error: bool


def desk_arguments(turn: RolloutTurn) -> list[str]:
    """The desk's options from the recorded turn's approval policy and sandbox."""
    sandbox = turn.sandbox_policy
    assert isinstance(sandbox, dict), f"turn {turn.index} records no sandbox"
    mode = sandbox.get("type", sandbox.get("mode"))  # 0.147 and later say type, 0.47 mode
    assert turn.approval_policy == "never" and mode == "danger-full-access", (
        "make_rollouts.py runs Codex with nothing to ask: the desk answers the same way"
    )
    return ["--approval-policy", turn.approval_policy, "--sandbox", mode]


@asynccontextmanager
async def desk_client(transport: str, root: Path, args: list[str]) -> AsyncIterator[Client]:
    """The real ``mcp`` client of a new desk on ``root``: a desk in this process over HTTP, or
    ``python -m applypatch_ext mcp`` over stdio."""
    async with AsyncExitStack() as stack:
        if transport == "http":
            server = stack.enter_context(serving(make_desk(root, args)))
            yield await stack.enter_async_context(http_client(server))
        else:
            yield await stack.enter_async_context(stdio_client(root, args))


def at_the_desk(call: RolloutCall, recorded_cwd: str | None) -> tuple[str, str]:
    """The folder (relative to the project) and the patch of a recorded call: a shell-form
    call's ``cd``/``workdir`` is where Codex ran apply_patch, so the desk's folder there."""
    text = call.call.pipeline_text(recorded_cwd)
    invocation = parse_command_line(text) if call.call.form == "shell" else None
    if isinstance(invocation, ApplyPatchInvocation):
        return invocation.workdir or ".", invocation.parsed.patch
    return ".", text  # the apply_patch tool's own input, as the model gave it


def replayed_at_the_desk(transport: str, rollout: Rollout, root: Path) -> list[Answered]:
    async def session() -> list[Answered]:
        answered = []
        for turn in rollout.turns:  # each recorded turn is a new `codex exec`: a new desk
            calls = [(call, *at_the_desk(call, rollout.cwd)) for call in turn.calls]
            for folder, run in groupby(calls, key=lambda entry: entry[1]):
                cwd = root / folder  # Path drops a "." part
                async with desk_client(transport, cwd, desk_arguments(turn)) as client:
                    for call, _, patch in run:
                        tree = snapshot_dir(root)
                        verified = await client.call_tool("verify_patch", {"patch": patch})
                        assert snapshot_dir(root) == tree, f"verify_patch wrote: {call.call_id}"
                        applied = await client.call_tool("apply_patch", {"patch": patch})
                        answered.append(
                            Answered(call, text_of(verified), text_of(applied), applied.is_error)
                        )
        return answered

    return anyio.run(session)


def what_codex_said(call: RolloutCall, recorded_cwd: str, cwd: Path) -> str:
    """The apply_patch text Codex gave the model for ``call``, read as described above."""
    assert call.recorded is not None, f"{call.call_id}: no output recorded"
    text = call.recorded.raw_output
    if text.startswith("{"):  # Codex 0.47: the same fields as JSON
        answer = json.loads(text)
        metadata = answer["metadata"]
        text = (
            f"Exit code: {metadata['exit_code']}\n"
            f"Wall time: {metadata['duration_seconds']:g} seconds\n"
            f"Output:\n{answer['output']}"
        )
    elif call.call.name == "exec_command":
        envelope = SHELL_ENVELOPE.match(text)
        assert envelope is not None, f"{call.call_id}: no exec_command envelope in {text!r}"
        text = text[envelope.end() :]
    return steady(text.replace(recorded_cwd.rstrip("/") + "/", f"{cwd}/"))


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("version", "scenario"), [(v, s) for v in VERSIONS for s in SCENARIOS])
def test_the_desk_answers_each_recorded_call_as_codex_did(
    tmp_path: Path, transport: str, version: str, scenario: str
) -> None:
    rollout = load_replay_source(str(rollout_path(version, scenario)))
    assert not rollout.problems and rollout.cwd is not None
    root = project_before(tmp_path, version, scenario)
    answered = replayed_at_the_desk(transport, rollout, root)

    assert [a.call.call_id for a in answered] == [c.call_id for c in rollout.calls]
    assert len(answered) >= 3
    for a in answered:
        codex = what_codex_said(a.call, rollout.cwd, root)
        assert (a.call.call_id, a.applied) == (a.call.call_id, codex)
        failed = codex.startswith("apply_patch verification failed: ")
        assert a.applied_is_error is failed
        # the dry run before it, on the same tree: Codex's error first, or a clean patch
        assert a.verified.startswith(codex if failed else APPLIES_AT_ONCE), a.verified
        # the other desk tests' SUCCESS is the head of Codex's own success text
        assert failed or codex.startswith(SUCCESS)
    if scenario != "shell_forms":  # the context mismatch, the commands: refused as by Codex
        assert any(a.applied_is_error for a in answered)
    assert snapshot_dir(root) == snapshot_dir(project_after(version, scenario))


#: How the person at the desk answers the calls of 0.163.0's session made in its folder (the
#: shell call runs in sub/) that ask (all but the context mismatch, under --review): approve,
#: decline with a reason, approve one file of two.
REASON = "keep the server in debug mode"
ANSWERS: dict[str, dict[str, Any]] = {
    "call_add": {"decision": "approve"},
    "call_update": {"decision": "decline", "reason": REASON},
    "call_turn2": {"decision": "approve", "accept": {"notes.txt": True, "old.txt": False}},
}


def test_a_persons_answers_add_only_the_issues_lines_to_codexs_text(tmp_path: Path) -> None:
    """Issue 26 adds to Codex's text, where a person answered, only the "not applied, by the
    user" line of each file left out and, for a decline, the user's reason after the
    reference's ``patch rejected by user`` (its text for a declined patch: spec §6.2; no
    rollout records one, since ``codex exec`` runs with nothing to ask). Approving a call gives
    the same text as the policy's auto-approval."""
    version, scenario = "0.163.0", "session"
    rollout = load_replay_source(str(rollout_path(version, scenario)))
    assert rollout.cwd is not None
    root = project_before(tmp_path, version, scenario)
    desk = make_desk(root, ["--review"])
    patches = {
        call.call_id: patch
        for call in rollout.calls
        for folder, patch in [at_the_desk(call, rollout.cwd)]
        if folder == "."
    }
    order = list(patches)
    stop = threading.Event()
    asked: list[str] = []

    def person() -> None:
        while not stop.is_set():
            for waiting in desk.pending:
                asked.append(order[waiting.number - 1])
                waiting.decide(**ANSWERS[asked[-1]])
            stop.wait(0.005)

    async def session() -> list[str]:
        async with http_client(server) as client:
            return [
                text_of(await client.call_tool("apply_patch", {"patch": patch}))
                for patch in patches.values()
            ]

    answering = threading.Thread(target=person)
    answering.start()
    try:
        with serving(desk) as server:
            texts = dict(zip(order, anyio.run(session), strict=True))
    finally:
        stop.set()
        answering.join()
    assert asked == list(ANSWERS)
    calls = {call.call_id: call for call in rollout.calls}
    codex = {call_id: what_codex_said(calls[call_id], rollout.cwd, root) for call_id in order}
    # approved whole, or never asked (the mismatch): Codex's text, byte for byte
    for call_id in ("call_add", "call_mismatch"):
        assert texts[call_id] == codex[call_id], call_id
    # declined: the reference's text, then the reason
    assert texts["call_update"] == f"patch rejected by user\nThe user's reason: {REASON}"
    # one file of two: Codex's text without the file left out, then the line that says so
    assert codex["call_turn2"].endswith("M notes.txt\nD old.txt\n")
    assert texts["call_turn2"] == codex["call_turn2"].replace("D old.txt\n", "") + (
        "not applied, by the user: old.txt\n"
    )
    before = ROLLOUTS / version / f"{scenario}.before"
    assert (root / "app.cfg").read_bytes() == (before / "app.cfg").read_bytes()
    assert (root / "old.txt").read_bytes() == (before / "old.txt").read_bytes()
    after = project_after(version, scenario)
    assert (root / "notes.txt").read_bytes() == (after / "notes.txt").read_bytes()
