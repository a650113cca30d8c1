"""The desk over stdio, for a terminal agent that starts it as its MCP server.

Nobody sits at this desk but the agent's user, so a call that asks for approval is put to them
through MCP elicitation when the client supports it (a form: the decision and an optional
reason, with the files and the patch in its message); otherwise the desk's policy answers
(``--approve``, default ``decline``), and a decline tells the model why and how the person can
change it. The JSON events go to stderr or to a log file, one object per line; stdout is the
protocol's. A line that is no JSON-RPC message (not JSON, nested too deeply, a request of the
wrong shape) is answered with a JSON-RPC error (the SDK would drop it, and the client would
wait for an answer forever).
"""

from __future__ import annotations

from typing import IO, Any, Final

from ..core.turn.events import ApplyPatchApprovalRequest
from ..core.turn.options import Answer, Decision
from ..core.turn.result import JsonLines
from ..extras import missing_extra
from .desk import Desk, DeskCall
from .server import build_server

try:  # the `mcp` extra
    import anyio
    import mcp_types as types
    from mcp.server import ServerRequestContext
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
except ModuleNotFoundError as exc:
    raise missing_extra(exc, "mcp") from None

#: The decline reason when the client cannot ask and the desk's policy declines.
POLICY_DECLINED: Final = (
    "the desk cannot ask its user (the MCP client has no elicitation) and its policy is to "
    "decline; whoever starts the desk can pass --approve approve to let such patches through"
)
#: The decline reason when the user cancelled (rather than answered) the elicitation.
ELICITATION_CANCELLED: Final = "the user dismissed the approval request without answering"
#: The decline reason when a retry carried no answer to the approval question.
NO_ELICITATION_ANSWER: Final = "the client's retry carried no answer to the approval question"
#: The decline reason when the answer names no decision, or one the desk does not know.
UNKNOWN_DECISION: Final = "the answer named no decision the desk knows"
#: The longest patch text an elicitation message quotes (the rest is said to be cut).
MESSAGE_PATCH_CHARS: Final = 6000

ELICITATION_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "title": "Decision",
            "description": "approve, approve for the session (these files are not asked again), "
            "or decline",
            "enum": [decision.value for decision in Decision],
            "enumNames": [decision.label for decision in Decision],
        },
        "reason": {
            "type": "string",
            "title": "Reason",
            "description": "With a decline: why, told to the model.",
        },
    },
    "required": ["decision"],
}


def elicitation_message(request: ApplyPatchApprovalRequest) -> str:
    """What the user reads: why, which files, and the patch."""
    patch = request.patch
    if len(patch) > MESSAGE_PATCH_CHARS:
        cut = len(patch) - MESSAGE_PATCH_CHARS
        patch = patch[:MESSAGE_PATCH_CHARS] + f"\n... ({cut} more characters)"
    why = request.reason or "the patch needs your approval"
    files = "\n".join(f"  {path}" for path in request.files) or "  (none)"
    return (
        f"apply_patch in {request.cwd} asks for approval: {why}.\n"
        f"Files it writes:\n{files}\n\n{patch}"
    )


class ElicitationAsking:
    """The stdio server's :class:`~.server.Asking`: a form with the decision and a reason."""

    def __init__(self, policy: Answer) -> None:
        self.policy = policy
        self.parked: dict[str, DeskCall] = {}

    def can_ask(self, ctx: ServerRequestContext[Any]) -> bool:
        wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability())
        return ctx.session.check_client_capability(wanted)

    def form(self, call: DeskCall) -> types.ElicitRequestFormParams:
        request = call.request
        assert request is not None, "only a waiting call is asked about"
        return types.ElicitRequestFormParams(
            message=elicitation_message(request), requested_schema=ELICITATION_SCHEMA
        )

    def answer_of(self, result: types.ElicitResult | None) -> Answer:
        if result is None:
            return Answer(Decision.DECLINE, reason=NO_ELICITATION_ANSWER)
        if result.action == "cancel":
            return Answer(Decision.DECLINE, reason=ELICITATION_CANCELLED)
        content = result.content or {}
        reason = content.get("reason")
        reason = reason if isinstance(reason, str) and reason.strip() else None
        if result.action == "decline":
            return Answer(Decision.DECLINE, reason=reason)
        given = content.get("decision")  # required by the form: without it nothing is approved
        if not isinstance(given, str) or given not in set(Decision):
            return Answer(Decision.DECLINE, reason=UNKNOWN_DECISION)
        decision = Decision(given)
        return Answer(decision, reason=reason if decision is Decision.DECLINE else None)


def policy_answer(decision: Decision) -> Answer:
    if decision is Decision.DECLINE:
        return Answer(Decision.DECLINE, reason=POLICY_DECLINED)
    return Answer(decision)


def unreadable_line_error(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error that answers a line the transport could not read as a message (the
    SDK drops it, and the client would wait for its answer forever): a parse error for what
    is not JSON (also JSON nested too deeply), an invalid request, with the line's id when it
    has one, for anything else. None for an answer of the client's (an object with a
    ``result`` or an ``error`` and no ``method``) that does not parse: there is nobody to
    answer."""
    read_errors = getattr(exc, "errors", None)  # the SDK parses with pydantic: its errors()
    if not callable(read_errors):
        return None  # not a line the parser refused (the transport's own failure)
    errors: list[dict[str, Any]] = read_errors(include_url=False)
    if any(error["type"] == "json_invalid" for error in errors):
        message = "; ".join(str(error["msg"]) for error in errors)
        return _error(None, types.PARSE_ERROR, f"Parse error: the line is not JSON ({message})")
    # the whole message: the input of an error about it, or about a field it lacks
    whole = next(
        (
            e["input"]
            for e in errors
            if len(e["loc"]) <= 1 or (e["type"] == "missing" and len(e["loc"]) == 2)
        ),
        None,
    )
    request_id = None
    if isinstance(whole, dict):
        if "method" not in whole and ("result" in whole or "error" in whole):
            return None
        given = whole.get("id")
        if isinstance(given, (int, str)) and not isinstance(given, bool):
            request_id = given
    where = "; ".join(
        f"{'.'.join(map(str, error['loc'][1:])) or 'the message'}: {error['msg']}"
        for error in errors
        if len(error["loc"]) <= 1 or error["loc"][0] == "JSONRPCRequest"
    )
    return _error(request_id, types.INVALID_REQUEST, f"Invalid request: {where}")


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


def serve_stdio(desk: Desk, policy: Decision, log: IO[str]) -> None:
    """Serve ``desk`` on stdin/stdout until the client closes it; events to ``log``."""
    lines = JsonLines(log)
    desk.turn.recorder.subscribe(lines.event)

    def tell(call: DeskCall) -> None:
        if call.result is not None and call.result.status.terminal:
            lines.call_result(call.result)

    desk.subscribe(tell)
    server = build_server(desk, ElicitationAsking(policy_answer(policy)))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

            async def answer_unreadable_lines() -> None:
                async with send, read_stream:
                    async for item in read_stream:
                        if not isinstance(item, Exception):
                            await send.send(item)
                            continue
                        error = unreadable_line_error(item)
                        if error is not None:
                            await write_stream.send(SessionMessage(error))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answer_unreadable_lines)
                await server.run(receive, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        desk.stop("the desk's client went away")
