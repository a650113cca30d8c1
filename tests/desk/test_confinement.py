"""Confinement at the desk, over both transports and under each approval policy: a path outside
the desk's folder, one through ``..``, one through a symlink that leads out. The client chooses
the patch only: nothing outside is written unless the person at the desk approves it, and a
refused write never blanks the TurnDiff of what was written before (``--refused-writes keep``,
the desk's default; ``invalidate`` is the reference's rule)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.desk.stdio import POLICY_DECLINED

from .conftest import (
    TRANSPORTS,
    http_client,
    make_desk,
    pending_call,
    serving,
    stdio_client,
    text_of,
)

POLICIES = ("on-request", "untrusted", "granular", "never")


def escapes(outside: Path) -> dict[str, str]:
    return {
        "absolute": f"*** Begin Patch\n*** Add File: {outside}/abs.txt\n+x\n*** End Patch\n",
        "dotdot": "*** Begin Patch\n*** Add File: ../outside/dotdot.txt\n+x\n*** End Patch\n",
        "symlink": "*** Begin Patch\n*** Add File: link/through.txt\n+x\n*** End Patch\n",
    }


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "project", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.txt").write_text("one\n")
    os.symlink(outside, root / "link")
    return root, outside


FIRST = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n"


async def _run_http(root: Path, args: list[str], patches: list[str]) -> tuple[list[str], str]:
    desk = make_desk(root, args)
    stop = threading.Event()

    def decline_everything() -> None:  # the person at the desk approves only the first patch
        while not stop.is_set():
            for call in desk.pending:
                if call.call.text == FIRST:
                    call.decide("approve")
                else:
                    call.decide("decline", reason="stays inside")
            stop.wait(0.005)

    answering = threading.Thread(target=decline_everything)
    answering.start()
    try:
        with serving(desk) as server:
            async with http_client(server) as client:
                texts = [
                    text_of(await client.call_tool("apply_patch", {"patch": p})) for p in patches
                ]
                diff = text_of(await client.call_tool("turn_diff", {}))
    finally:
        stop.set()
        answering.join()
    return texts, diff


async def _approve_the_first(
    context: object, params: types.ElicitRequestParams
) -> types.ElicitResult:
    """The client's user: approves the patch of a.txt, declines anything else."""
    if isinstance(params, types.ElicitRequestFormParams) and "a.txt" in params.message:
        return types.ElicitResult(action="accept", content={"decision": "approve"})
    return types.ElicitResult(action="accept", content={"decision": "decline", "reason": "no"})


async def _run_stdio(root: Path, args: list[str], patches: list[str]) -> tuple[list[str], str]:
    client_kwargs: dict[str, object] = {}
    if "untrusted" in args:  # even the first patch asks: the user answers through elicitation
        client_kwargs["elicitation_callback"] = _approve_the_first
    async with stdio_client(root, args, **client_kwargs) as client:
        texts = [text_of(await client.call_tool("apply_patch", {"patch": p})) for p in patches]
        diff = text_of(await client.call_tool("turn_diff", {}))
    return texts, diff


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_nothing_outside_is_written_and_the_turn_diff_stays(
    tree: tuple[Path, Path], transport: str, policy: str
) -> None:
    root, outside = tree
    cases = escapes(outside)
    args = ["--approval-policy", policy, "--exclude-tmp"]
    run = _run_http if transport == "http" else _run_stdio
    texts, diff = anyio.run(run, root, args, [FIRST, *cases.values()])
    assert list(outside.iterdir()) == []  # nothing reached the outside folder
    first, *refused = texts
    assert first.endswith("M a.txt\n")
    for name, text in zip(cases, refused, strict=True):
        assert "Success" not in text, (name, text)
        if policy == "never":  # never asks: refused by the safety check, or by the sandbox
            assert text.startswith(("patch rejected: ", "Exit code: 1")), (name, text)
            continue
        # asked (and declined), or refused by the sandbox and its retry declined
        assert text.startswith(("patch rejected by user", "Exit code: 1")), (name, text)
        if text.startswith("Exit code: 1"):
            assert name == "symlink" and "Failed to write file" in text
        elif transport == "stdio" and policy == "on-request":
            assert POLICY_DECLINED in text  # no elicitation: the policy said why
    # the person's (here the first call's) TurnDiff survives every refusal
    assert "+ONE" in diff and "-one" in diff


def test_the_references_rule_remains_an_option(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    args = ["--approval-policy", "never", "--exclude-tmp", "--refused-writes", "invalidate"]
    texts, diff = anyio.run(_run_http, root, args, [FIRST, escapes(outside)["symlink"]])
    assert texts[1].startswith("Exit code: 1") and "Failed to write file" in texts[1]
    assert diff.startswith("The TurnDiff is not available")
    assert list(outside.iterdir()) == []


def test_a_symlink_write_refused_keeps_the_turn_diff_and_says_what_was_refused(
    tree: tuple[Path, Path],
) -> None:
    root, outside = tree
    desk = make_desk(root, ["--approval-policy", "never", "--exclude-tmp"])
    first = desk.apply_patch(FIRST)
    refused = desk.apply_patch(escapes(outside)["symlink"])
    assert first.status is CallStatus.COMPLETED and refused.status is CallStatus.FAILED
    assert refused.result is not None
    delta = refused.result.delta
    assert not delta.exact and delta.refused == (str(root / "link" / "through.txt"),)
    assert delta.inexact_only_by_refusals
    assert desk.turn.tracker.valid and "+ONE" in desk.turn_diff()


def test_an_approved_write_outside_goes_where_the_person_said(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    desk = make_desk(root, ["--exclude-tmp"])

    async def session() -> str:
        with serving(desk) as server:
            async with http_client(server) as client, anyio.create_task_group() as tasks:
                texts: list[str] = []

                async def call() -> None:
                    patch = escapes(outside)["dotdot"]
                    texts.append(text_of(await client.call_tool("apply_patch", {"patch": patch})))

                tasks.start_soon(call)
                (waiting,) = await anyio.to_thread.run_sync(pending_call, desk)
                assert waiting.request is not None
                assert waiting.request.files == (str(outside / "dotdot.txt"),)
                waiting.decide("approve")
            return texts[0]

    text = anyio.run(session)
    assert text.endswith("A ../outside/dotdot.txt\n") or "dotdot.txt" in text
    assert (outside / "dotdot.txt").read_text() == "x\n"
