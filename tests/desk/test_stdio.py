"""``python -m applypatch_ext mcp``: the desk over stdio with the real ``mcp`` client, in both
protocol eras (the 2025-11-25 handshake, where the desk asks mid-call, and 2026-07-28, where it
returns the question and the client retries): every tool, elicitation, the policy's decline,
bad requests, two calls answered out of order, a timeout, the client leaving with a call
waiting, the JSON events, and no Jupyter module loaded."""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from applypatch_ext.desk.desk import NO_ANSWER
from applypatch_ext.desk.stdio import ELICITATION_CANCELLED, POLICY_DECLINED, UNKNOWN_DECISION

from .conftest import ADD_B, ADD_C, SUCCESS, UPDATE, stdio_client, text_of

MODES = ("legacy", "auto")  # auto negotiates 2026-07-28 with this server


Action = Literal["accept", "decline", "cancel"]


class Answering:
    """An elicitation callback giving every form the same answer; ``asked``: the messages."""

    def __init__(self, content: dict[str, Any] | None, action: Action = "accept") -> None:
        self.content = content
        self.action: Action = action
        self.asked: list[str] = []

    async def __call__(
        self, context: object, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.asked.append(params.message)
        return types.ElicitResult(action=self.action, content=self.content)


@pytest.mark.parametrize("mode", MODES)
def test_every_tool_over_stdio(project: Path, mode: str) -> None:
    async def session() -> list[str]:
        async with stdio_client(project, mode=mode) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert names == ["apply_patch", "verify_patch", "turn_diff"]
            return [
                text_of(await client.call_tool("verify_patch", {"patch": UPDATE})),
                text_of(await client.call_tool("apply_patch", {"patch": UPDATE})),
                text_of(await client.call_tool("turn_diff", {})),
            ]

    verify, applied, diff = anyio.run(session)
    assert verify.startswith("The patch applies cleanly") and "+TWO" in verify
    assert applied == SUCCESS + "M a.txt\n"
    assert diff.startswith("diff --git a/a.txt b/a.txt\n") and "+TWO\n" in diff
    assert (project / "a.txt").read_text() == "one\nTWO\n"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("content", "action", "expected"),
    [
        ({"decision": "approve"}, "accept", SUCCESS + "M a.txt\n"),
        (
            {"decision": "decline", "reason": "use a constant"},
            "accept",
            "patch rejected by user\nThe user's reason: use a constant",
        ),
        (None, "decline", "patch rejected by user"),
        (None, "cancel", "patch rejected by user\nThe user's reason: " + ELICITATION_CANCELLED),
        # a client that accepts the form without filling it in approves nothing
        ({}, "accept", "patch rejected by user\nThe user's reason: " + UNKNOWN_DECISION),
        (
            {"decision": "yes"},
            "accept",
            "patch rejected by user\nThe user's reason: " + UNKNOWN_DECISION,
        ),
        (
            {"decision": 1},
            "accept",
            "patch rejected by user\nThe user's reason: " + UNKNOWN_DECISION,
        ),
    ],
    ids=["approve", "decline-with-reason", "decline", "dismissed", "empty", "unknown", "a-number"],
)
def test_the_clients_user_is_asked_through_elicitation(
    project: Path, mode: str, content: dict[str, Any] | None, action: Action, expected: str
) -> None:
    callback = Answering(content, action)

    async def session() -> str:
        async with stdio_client(
            project, ["--review"], mode=mode, elicitation_callback=callback
        ) as client:
            return text_of(await client.call_tool("apply_patch", {"patch": UPDATE}))

    assert anyio.run(session) == expected
    (message,) = callback.asked
    assert "a.txt" in message and "*** Update File: a.txt" in message
    approved = content == {"decision": "approve"}
    assert (project / "a.txt").read_text() == ("one\nTWO\n" if approved else "one\ntwo\n")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "patch rejected by user\nThe user's reason: " + POLICY_DECLINED),
        (["--approve", "approve"], SUCCESS + "M a.txt\n"),
    ],
    ids=["declines-saying-why", "approve"],
)
def test_without_elicitation_the_policy_answers(
    project: Path, args: list[str], expected: str
) -> None:
    async def session() -> str:
        async with stdio_client(project, ["--review", *args]) as client:
            return text_of(await client.call_tool("apply_patch", {"patch": UPDATE}))

    assert anyio.run(session) == expected


@pytest.mark.parametrize("mode", MODES)
def test_a_bad_request_is_a_json_rpc_error(project: Path, mode: str) -> None:
    async def session() -> list[MCPError]:
        errors = []
        async with stdio_client(project, mode=mode) as client:
            for name, arguments in [
                ("apply_patch", {"patch": UPDATE, "cwd": "/"}),
                ("apply_patch", {}),
                ("nope", {}),
            ]:
                with pytest.raises(MCPError) as raised:
                    await client.call_tool(name, arguments)
                errors.append(raised.value)
            assert "+TWO" not in text_of(await client.call_tool("turn_diff", {}))
        return errors

    errors = anyio.run(session)
    assert [e.code for e in errors] == [-32602] * 3
    assert (project / "a.txt").read_text() == "one\ntwo\n"


#: Lines that are no JSON-RPC message, and the error each is answered with (code, id, text).
UNREADABLE = [
    (b"{not json", -32700, None, "Parse error: the line is not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, -32700, None, "recursion limit exceeded"),
    (bytes([0xFF, 0xFE]), -32700, None, "Parse error: the line is not JSON"),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"apply_patch",'
        b'"arguments":{"patch":' + b"[" * 5000 + b"]" * 5000 + b"}}}",
        -32700,
        None,
        "recursion limit exceeded",
    ),
    (
        b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"apply_patch"}',
        -32600,
        8,
        "Invalid request: params: Input should be an object",
    ),
    (b'{"jsonrpc":"2.0","id":"x","params":{}}', -32600, "x", "method: Field required"),
    (b"[1, 2]", -32600, None, "Invalid request"),
]


def test_a_line_that_is_no_message_is_answered_with_a_json_rpc_error(project: Path) -> None:
    """The SDK drops such a line, and a client waiting for its answer waits forever: the desk
    answers each with a parse error or an invalid request (with the request's id when it has
    one), prints nothing, runs nothing and goes on serving. A malformed answer of the client's
    (an object without a method) is no request: nothing answers it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "applypatch_ext", "mcp", "--cwd", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    def send(line: bytes) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()

    def answer() -> dict[str, Any]:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as waiting:  # the bound only ends a broken run
            waiting.register(proc.stdout, selectors.EVENT_READ)
            assert waiting.select(60), "the desk never answered"
        reply: dict[str, Any] = json.loads(proc.stdout.readline())
        return reply

    try:
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
        hello["clientInfo"] = {"name": "raw", "version": "0"}
        send(
            json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
            ).encode()
        )
        assert answer()["id"] == 1
        send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        for line, code, request_id, says in UNREADABLE:
            send(line)
            reply = answer()
            assert reply["id"] == request_id and reply["error"]["code"] == code, (line[:80], reply)
            assert says in reply["error"]["message"]
        send(b'{"jsonrpc":"2.0","id":5,"result":"not an answer to anything"}')
        send(b'{"jsonrpc":"2.0","id":9,"method":"tools/list"}')
        listed = answer()  # the next line: nothing answered the client's stray answer
        assert listed["id"] == 9 and len(listed["result"]["tools"]) == 3
    finally:
        proc.stdin.close()
        proc.wait(60)
        stderr = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert stderr == b""  # no traceback, no log line
    assert sorted(p.name for p in project.iterdir()) == ["a.txt"]


@pytest.mark.parametrize("mode", MODES)
def test_two_waiting_calls_are_answered_out_of_order(project: Path, mode: str) -> None:
    """Both calls ask (mid-call in the handshake era; as questions the client answers by
    retrying, each with its own requestState, in 2026-07-28); the second is answered first."""
    second_answered = anyio.Event()
    order: list[str] = []

    async def callback(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert isinstance(params, types.ElicitRequestFormParams)
        if "b.txt" in params.message:
            await second_answered.wait()
            order.append("b")
            return types.ElicitResult(action="accept", content={"decision": "approve"})
        order.append("c")
        second_answered.set()
        return types.ElicitResult(action="accept", content={"decision": "decline", "reason": "no"})

    outputs: dict[str, str] = {}

    async def session() -> None:
        async with (
            stdio_client(project, ["--review"], mode=mode, elicitation_callback=callback) as c,
            anyio.create_task_group() as tasks,
        ):

            async def call(key: str, patch: str) -> None:
                outputs[key] = text_of(await c.call_tool("apply_patch", {"patch": patch}))

            tasks.start_soon(call, "b", ADD_B)
            tasks.start_soon(call, "c", ADD_C)

    anyio.run(session)
    assert order == ["c", "b"]
    assert outputs == {
        "b": SUCCESS + "A b.txt\n",
        "c": "patch rejected by user\nThe user's reason: no",
    }
    assert (project / "b.txt").is_file() and not (project / "c.txt").exists()


def test_an_unanswered_question_is_declined_at_the_timeout(project: Path) -> None:
    never = anyio.Event()

    async def callback(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        await never.wait()
        raise AssertionError("unreachable")

    async def session() -> str:
        args = ["--review", "--answer-timeout", "0.3"]
        async with stdio_client(project, args, mode="legacy", elicitation_callback=callback) as c:
            return text_of(await c.call_tool("apply_patch", {"patch": UPDATE}))

    expected = "patch rejected by user\nThe user's reason: " + NO_ANSWER.format(seconds=0.3)
    assert anyio.run(session) == expected
    assert (project / "a.txt").read_text() == "one\ntwo\n"


def test_the_client_leaving_with_a_call_waiting_declines_it_and_logs_it(
    project: Path, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    asked = anyio.Event()

    async def callback(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def session() -> None:
        args = ["--review", "--log", str(log)]
        async with (
            stdio_client(project, args, mode="legacy", elicitation_callback=callback) as c,
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(c.call_tool, "apply_patch", {"patch": UPDATE})
            await asked.wait()
            tasks.cancel_scope.cancel()  # the client goes away with the call waiting

    anyio.run(session)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    types_seen = [line["type"] for line in lines]
    assert "apply_patch_approval_request" in types_seen
    (result,) = [line for line in lines if line["type"] == "call_result"]
    assert result["status"] == "declined" and (project / "a.txt").read_text() == "one\ntwo\n"


def test_the_events_go_to_the_log_as_json_lines(project: Path, tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"

    async def session() -> None:
        async with stdio_client(project, ["--log", str(log)]) as client:
            await client.call_tool("apply_patch", {"patch": UPDATE})

    anyio.run(session)
    kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert kinds[0] == "patch_apply_updated" and kinds[-1] == "call_result"
    assert {"patch_apply_begin", "patch_apply_end", "turn_diff"} <= set(kinds)


def test_the_call_result_line_carries_the_diagnosis_and_the_warnings(
    project: Path, tmp_path: Path
) -> None:
    """The log's ``call_result`` lines are the ones ``turn`` and ``replay`` print
    (``CallResult.line_json``): a failing patch's diagnosis, an applied one's warnings."""
    log = tmp_path / "events.jsonl"
    failing = "*** Begin Patch\n*** Update File: a.txt\n@@\n-three\n+3\n*** End Patch\n"
    warned = "*** Begin Patch\n*** Update File: a.txt\n@@ one\n+one and a half\n*** End Patch\n"

    async def session() -> None:
        async with stdio_client(project, ["--log", str(log)]) as client:
            await client.call_tool("apply_patch", {"patch": failing})
            await client.call_tool("apply_patch", {"patch": warned})

    anyio.run(session)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    failed, applied = [line for line in lines if line["type"] == "call_result"]
    assert (
        set(failed)
        == set(applied)
        == {
            "type",
            "call_id",
            "status",
            "output",
            "delta",
            "diagnosis",
            "warnings",
        }
    )
    (diagnosed,) = [line for line in lines if line["type"] == "patch_diagnosis"]
    assert failed["status"] == "error" and failed["warnings"] == []
    assert failed["diagnosis"]["kind"] == "context_not_found"
    assert failed["diagnosis"]["path"] == "a.txt"
    assert failed["diagnosis"] == {
        k: v for k, v in diagnosed.items() if k not in ("type", "call_id", "time")
    }
    (warning,) = applied["warnings"]
    assert applied["status"] == "completed" and applied["diagnosis"] is None
    assert warning["kind"] == "appended_at_end" and warning["path"] == "a.txt"
    assert (project / "a.txt").read_text() == "one\ntwo\none and a half\n"


BLOCK_MCP = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp" or name.startswith("mcp."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def test_without_the_extra_the_command_names_it_and_the_package_imports(tmp_path: Path) -> None:
    script = BLOCK_MCP + (
        "import importlib.util\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'mcp' else __import__"
        "('importlib.machinery').PathFinder.find_spec(name)\n"
        "import applypatch_ext.desk, applypatch_ext.desk.desk, applypatch_ext.desk.tools\n"
        "from applypatch_ext.__main__ import main\n"
        f"sys.exit(main(['mcp', '--cwd', {str(tmp_path)!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: the agent's desk (%apply_patch_mcp, python -m applypatch_ext mcp) needs mcp, "
        "which is not installed (No module named 'mcp'). It comes with the `mcp` extra: "
        "pip install 'applypatch_ext[mcp]'\n"
    )


def test_the_command_loads_no_jupyter_module() -> None:
    script = (
        "import sys\n"
        "import applypatch_ext.mcp_cli, applypatch_ext.desk.stdio, applypatch_ext.desk.http\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('IPython', 'ipywidgets', 'anywidget', 'traitlets', 'ipykernel'))\n"
        "print(bad)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
