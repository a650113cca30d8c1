"""The desk over streamable HTTP with the real ``mcp`` client: every tool, the token, ``Origin``
and ``Host`` refusals, malformed requests, two calls answered out of order, a timeout, and a stop
with a call waiting."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from applypatch_ext.core.diagnosis import KINDS, SUGGESTION_NOTE, DiagnosisKind
from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.desk.desk import DESK_STOPPED, NO_ANSWER, NO_CHANGES, verify_text
from applypatch_ext.desk.http import HOST
from applypatch_ext.desk.server import CLIENT_CANCELLED
from applypatch_ext.desk.tools import NOT_THE_CLIENTS

from .conftest import (
    ADD_B,
    ADD_C,
    SUCCESS,
    UPDATE,
    http_client,
    make_desk,
    pending_call,
    raw_post,
    serving,
    text_of,
    wait_for,
)


def test_every_tool_and_what_the_model_is_told(project: Path) -> None:
    desk = make_desk(project)

    async def session() -> dict[str, str]:
        with serving(desk) as server:
            async with http_client(server) as client:
                listed = await client.list_tools()
                names = [tool.name for tool in listed.tools]
                assert names == ["apply_patch", "verify_patch", "turn_diff"]
                description = listed.tools[0].description or ""
                for word in ("*** Begin Patch", "*** Update File:", "*** End of File", "@@"):
                    assert word in description
                assert str(project) in description  # paths are relative to the desk's folder
                texts = {"empty": text_of(await client.call_tool("turn_diff", {}))}
                verified = await client.call_tool("verify_patch", {"patch": UPDATE})
                texts["verify"] = text_of(verified)
                assert (project / "a.txt").read_text() == "one\ntwo\n"
                texts["apply"] = text_of(await client.call_tool("apply_patch", {"patch": UPDATE}))
                texts["diff"] = text_of(await client.call_tool("turn_diff", {}))
                return texts

    texts = anyio.run(session)
    assert texts["empty"] == NO_CHANGES
    assert texts["verify"].startswith("The patch applies cleanly: apply_patch would write it")
    assert "M a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n" in texts["verify"]
    assert texts["apply"] == SUCCESS + "M a.txt\n"  # Codex's own text, byte for byte
    assert (project / "a.txt").read_text() == "one\nTWO\n"
    assert texts["diff"] == desk.turn.turn_diff() and "+TWO" in texts["diff"]


def test_a_patch_that_does_not_match_is_refused_with_the_closest_lines(project: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-twoo\n+2\n*** End Patch\n"

    async def session() -> tuple[str, str, bool]:
        with serving(make_desk(project)) as server:
            async with http_client(server) as client:
                verify = await client.call_tool("verify_patch", {"patch": patch})
                applied = await client.call_tool("apply_patch", {"patch": patch})
                return text_of(verify), text_of(applied), bool(applied.is_error)

    verify, applied, is_error = anyio.run(session)
    expected = (
        f"apply_patch verification failed: Failed to find expected lines in {project}/a.txt:\ntwoo"
    )
    assert applied == expected and is_error
    assert verify.startswith(expected) and "Nothing was written." in verify
    meaning = KINDS[DiagnosisKind.CONTEXT_NOT_FOUND].meaning
    # the near miss (the closest line of the file beside the patch's) and the failure atlas's
    # diagnosis, in the words every surface uses (MatchExplanation.describe, Diagnosis.describe)
    assert verify == (
        f"{expected}\n\n"
        "closest region starts at line 2: 0 of 1 line matches; 1 differs\n"
        "  expected: `twoo`\n"
        "     line 2: `two`  [differs]\n\n"
        f"diagnosis: context_not_found ({meaning}), at patch line 4, a.txt line 2\n"
        "The closest region of a.txt starts at line 2 and matches 0 of the chunk's 1 line; its "
        "line 2 reads `two` where the patch has `twoo`.\n\n"
        "Nothing was written."
    )


@pytest.mark.parametrize(
    ("headers", "status", "says"),
    [
        ({"authorization": None}, 401, "token is missing or wrong"),
        ({"authorization": "Bearer not-the-token"}, 401, "token is missing or wrong"),
        ({"authorization": "Basic {token}"}, 401, "token is missing or wrong"),
        ({"origin": "http://evil.example"}, 403, "another origin"),
        ({"origin": "http://127.0.0.1:1"}, 403, "another origin"),
        ({"origin": "null"}, 403, "another origin"),  # a sandboxed frame, a file:// page
        ({"origin": "https://127.0.0.1:{port}"}, 403, "another origin"),
        ({"host": "evil.example:{port}"}, 421, "Host header"),
        ({"host": "127.0.0.1"}, 421, "Host header"),  # the port left out: a rebound name on 80
        ({"host": "127.0.0.1:{port}.evil.example"}, 421, "Host header"),
    ],
    ids=[
        "no-token",
        "wrong-token",
        "not-bearer",
        "foreign-origin",
        "other-port",
        "null-origin",
        "https-origin",
        "rebound-host",
        "host-without-port",
        "host-suffix",
    ],
)
def test_refusals_come_before_the_sdk_and_say_why(
    project: Path, headers: dict[str, str | None], status: int, says: str
) -> None:
    desk = make_desk(project)
    with serving(desk) as server:
        given = {"authorization": f"Bearer {server.token}"}
        for key, value in headers.items():
            if value is None:
                del given[key]
            else:
                given[key] = value.format(token=server.token, port=server.port)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
        response = raw_post(server, body, given)
    assert response.status_code == status
    error = response.json()["error"]
    assert says in error["message"] and server.token not in error["message"]
    assert desk.calls == []


HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def test_the_right_token_and_the_desks_own_origin_pass(project: Path) -> None:
    with serving(make_desk(project)) as server:
        origin = f"http://{HOST}:{server.port}"
        response = raw_post(
            server,
            json.dumps(HELLO).encode(),
            {"authorization": f"Bearer {server.token}", "origin": origin},
        )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"{not json", 400, -32700),
        (b"[" * 100_000 + b"]" * 100_000, 400, -32700),  # nested too deeply
        (bytes([0xFF, 0xFE, 0x00]), 400, -32700),  # not UTF-8
        (json.dumps([HELLO, HELLO]).encode(), 400, -32602),  # a batch: not in this protocol
        (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}', 400, -32602),
        # 4 MiB and more: refused before it is read further (the SDK's limit)
        (json.dumps({**HELLO, "params": {"x": "a" * (4 << 20)}}).encode(), 413, None),
    ],
    ids=["not-json", "deep", "not-utf8", "batch", "params-not-an-object", "oversized"],
)
def test_a_malformed_request_is_an_error_and_the_host_prints_nothing(
    project: Path, capfd: pytest.CaptureFixture[str], body: bytes, status: int, code: int | None
) -> None:
    desk = make_desk(project)
    with serving(desk) as server:
        response = raw_post(server, body, {"authorization": f"Bearer {server.token}"})
        again = raw_post(
            server, json.dumps(HELLO).encode(), {"authorization": f"Bearer {server.token}"}
        )
    assert response.status_code == status, response.text
    if code is not None:
        assert response.json()["error"]["code"] == code
    assert again.status_code == 200  # the desk still serves
    assert capfd.readouterr() == ("", "")  # no traceback, no log line in the hosting process
    assert desk.calls == [] and sorted(p.name for p in project.iterdir()) == ["a.txt"]


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("no_such_tool", {}, "unknown tool 'no_such_tool'"),
        ("apply_patch", {}, "the argument 'patch' is missing"),
        ("apply_patch", {"patch": 3}, "'patch' must be a string, got int"),
        ("apply_patch", {"patch": UPDATE, "cwd": "/"}, NOT_THE_CLIENTS),
        ("apply_patch", {"patch": UPDATE, "approval_policy": "never"}, NOT_THE_CLIENTS),
        ("apply_patch", {"patch": UPDATE, "sandbox": "danger-full-access"}, NOT_THE_CLIENTS),
        ("verify_patch", {"patch": UPDATE, "extra": 1}, "unknown argument 'extra'"),
        ("turn_diff", {"patch": UPDATE}, "unknown argument 'patch'"),
    ],
    ids=["unknown-tool", "no-patch", "patch-not-text", "cwd", "policy", "sandbox", "extra", "diff"],
)
def test_a_bad_request_is_a_json_rpc_error_and_runs_nothing(
    project: Path, name: str, arguments: dict[str, object], says: str
) -> None:
    desk = make_desk(project)

    async def session() -> MCPError:
        with serving(desk) as server:
            async with http_client(server) as client:
                with pytest.raises(MCPError) as raised:
                    await client.call_tool(name, arguments)
                # the desk still serves
                assert text_of(await client.call_tool("turn_diff", {})) == NO_CHANGES
                return raised.value

    error = anyio.run(session)
    assert error.code == -32602 and says in error.message
    assert desk.calls == [] and (project / "a.txt").read_text() == "one\ntwo\n"


def test_two_waiting_calls_are_answered_out_of_order(project: Path) -> None:
    desk = make_desk(project, ["--review"])
    outputs: dict[str, str] = {}

    async def session() -> None:
        with serving(desk) as server:
            async with http_client(server) as client, anyio.create_task_group() as tasks:

                async def call(key: str, patch: str) -> None:
                    result = await client.call_tool("apply_patch", {"patch": patch})
                    outputs[key] = text_of(result)

                tasks.start_soon(call, "b", ADD_B)
                tasks.start_soon(call, "c", ADD_C)
                first, second = await anyio.to_thread.run_sync(pending_call, desk, 2)
                # the later one first, declined with a reason; then the earlier one, approved
                later, earlier = sorted((first, second), key=lambda c: c.number, reverse=True)
                later.decide("decline", reason="not this one")
                await anyio.to_thread.run_sync(later.wait)
                assert earlier.pending
                earlier.decide("approve")

    anyio.run(session)
    later, earlier = sorted(desk.calls, key=lambda c: c.number, reverse=True)
    assert later.status is CallStatus.DECLINED and earlier.status is CallStatus.COMPLETED
    names = {ADD_B: ("b", "b.txt"), ADD_C: ("c", "c.txt")}
    declined_key, declined_file = names[later.call.text]
    approved_key, approved_file = names[earlier.call.text]
    assert outputs[declined_key] == "patch rejected by user\nThe user's reason: not this one"
    assert outputs[approved_key] == SUCCESS + f"A {approved_file}\n"
    assert not (project / declined_file).exists()
    assert (project / approved_file).is_file()


def test_a_call_nobody_answers_is_declined_at_the_timeout(project: Path) -> None:
    desk = make_desk(project, ["--review", "--answer-timeout", "0.2"])

    async def session() -> str:
        with serving(desk) as server:
            async with http_client(server) as client:
                return text_of(await client.call_tool("apply_patch", {"patch": UPDATE}))

    text = anyio.run(session)
    assert text == "patch rejected by user\nThe user's reason: " + NO_ANSWER.format(seconds=0.2)
    assert (project / "a.txt").read_text() == "one\ntwo\n"
    assert desk.calls[0].status is CallStatus.DECLINED


def test_stop_declines_the_waiting_call_and_the_client_is_told(project: Path) -> None:
    desk = make_desk(project, ["--review"])
    told: list[str] = []

    async def session() -> None:
        server = serving(desk)
        http = server.__enter__()
        try:
            async with http_client(http) as client, anyio.create_task_group() as tasks:

                async def call() -> None:
                    told.append(text_of(await client.call_tool("apply_patch", {"patch": UPDATE})))

                tasks.start_soon(call)
                await anyio.to_thread.run_sync(pending_call, desk)
                stopper = threading.Thread(target=http.stop)
                stopper.start()
                await anyio.to_thread.run_sync(lambda: wait_for(lambda: bool(told), "the reply"))
                await anyio.to_thread.run_sync(stopper.join)
        finally:
            server.__exit__(None, None, None)

    anyio.run(session)
    assert told == ["patch rejected by user\nThe user's reason: " + DESK_STOPPED]
    (call,) = desk.calls
    assert call.done and call.status is CallStatus.DECLINED  # recorded, nothing lost
    assert (project / "a.txt").read_text() == "one\ntwo\n"
    assert desk.stopped


def test_a_call_whose_client_gives_up_is_declined_and_cannot_be_approved_later(
    project: Path,
) -> None:
    """The agent cancels its request while the call waits (a timeout of its own, the user
    pressing Esc): the call is declined with that reason, and a person's Approve that comes
    afterwards writes nothing the agent no longer waits for."""
    desk = make_desk(project, ["--review"])

    async def session() -> None:
        with serving(desk) as server:
            async with http_client(server) as client:
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(client.call_tool, "apply_patch", {"patch": UPDATE})
                    await anyio.to_thread.run_sync(pending_call, desk)
                    tasks.cancel_scope.cancel()  # the client sends notifications/cancelled
                (call,) = desk.calls
                await anyio.to_thread.run_sync(call.wait, 60)  # bounds a broken run only

    anyio.run(session)
    (call,) = desk.calls
    assert call.status is CallStatus.DECLINED
    assert call.output == f"patch rejected by user\nThe user's reason: {CLIENT_CANCELLED}"
    with pytest.raises(RuntimeError, match="not waiting for approval"):
        call.decide("approve")
    assert (project / "a.txt").read_text() == "one\ntwo\n"


def test_a_warning_is_told_in_the_diagnosis_words_its_suggestion_ready_to_send(
    project: Path,
) -> None:
    (project / "w.py").write_text("def f():\n    return 1\n")
    desk = make_desk(project)
    patch = (
        "*** Begin Patch\n*** Update File: w.py\n@@\n def f():\n-  return 1\n+  return 0\n"
        "*** End Patch"
    )
    verified = desk.verify_patch(patch)
    [warning] = verified.result.warnings
    assert warning.kind is DiagnosisKind.FUZZY_MATCH and warning.replaces == (3, 6)
    text = verify_text(verified, desk.cwd)
    meaning = KINDS[DiagnosisKind.FUZZY_MATCH].meaning
    assert (
        "Nothing was written.\n\n"
        f"warning: fuzzy_match ({meaning}), at patch line 3, w.py line 2\n"
        f"{warning.message}\n"
        f"{SUGGESTION_NOTE}:\n"
        "@@\n def f():\n-    return 1\n+  return 0\n\n"  # unindented: the model may send it
    ) in text
