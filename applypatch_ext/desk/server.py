"""The desk as an MCP server (the ``mcp`` package's low-level ``Server``): its three tools over
any transport.

Each ``tools/call`` runs in a worker thread (the pipeline is synchronous, and a call waiting
for a person must not hold up the others); while it waits for an answer the request stays
open. A request the tools cannot take (an unknown tool, arguments outside the schema, an
argument that tries to choose the cwd, the sandbox or the approval) is a JSON-RPC error
(``-32602``) naming what was wrong; a failure of the desk itself is a JSON-RPC error too
(``-32603``), never a traceback in the process that hosts the desk. A client that cancels its
request declines the call it was waiting for.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import secrets
import threading
from typing import Any, Final, Protocol

from ..core.turn.options import Answer, CallStatus, Decision
from ..extras import missing_extra
from .desk import NO_ANSWER, Desk, DeskCall, DeskStopped, verify_text
from .tools import TOOLS, TOOLS_BY_NAME, BadArguments, ToolName, check_arguments

try:  # the `mcp` extra
    import anyio
    import anyio.to_thread
    import mcp_types as types
    from mcp.server import Server, ServerRequestContext
    from mcp.shared.exceptions import MCPError
except ModuleNotFoundError as exc:
    raise missing_extra(exc, "mcp") from None

SERVER_NAME: Final = "applypatch-desk"
#: The version the server reports: the installed distribution's (the package's one version).
VERSION: Final = importlib.metadata.version("applypatch_ext")
#: The reason of a call whose client cancelled its request while it waited.
CLIENT_CANCELLED: Final = "the client cancelled the request while the call waited for approval"

#: The key of the approval question in a modern-era ``InputRequiredResult``.
APPROVAL_INPUT: Final = "approval"
#: A retry whose ``requestState`` names no waiting call.
UNKNOWN_STATE: Final = (
    "requestState names no call waiting at this desk (it was answered, timed out, or never existed)"
)


class Asking(Protocol):
    """How a server puts a waiting call to the client's user (the stdio server's): a form
    elicitation, sent mid-call (handshake-era protocol) or returned as an
    ``InputRequiredResult`` the client answers by retrying (2026-07-28 and later)."""

    #: the answer when the client cannot ask (it has no elicitation)
    policy: Answer
    #: the calls waiting for a retry, by the ``requestState`` they were given
    parked: dict[str, DeskCall]

    def can_ask(self, ctx: ServerRequestContext[Any]) -> bool: ...

    def form(self, call: DeskCall) -> types.ElicitRequestFormParams: ...

    def answer_of(self, result: types.ElicitResult | None) -> Answer: ...


def tool_list(desk: Desk) -> list[types.Tool]:
    cwd = desk.cwd
    return [
        types.Tool(
            name=str(spec.name),
            title=spec.title,
            description=spec.describe(cwd),
            input_schema=dict(spec.input_schema),
            annotations=types.ToolAnnotations(
                title=spec.title,
                read_only_hint=spec.read_only,
                destructive_hint=not spec.read_only,
                idempotent_hint=spec.read_only,
                open_world_hint=False,
            ),
        )
        for spec in TOOLS
    ]


def _text(text: str, *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


def build_server(desk: Desk, asking: Asking | None = None) -> Server[Any]:
    """The MCP server of ``desk``. Without ``asking`` a waiting call waits for a person (the
    notebook's desk); with it, the client's user is asked, or the policy answers."""

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list(desk))

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        spec = TOOLS_BY_NAME.get(params.name)
        if spec is None:
            known = ", ".join(TOOLS_BY_NAME)
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r} (tools: {known})")
        try:
            patch = check_arguments(spec, params.arguments)
        except BadArguments as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        try:
            if spec.name is ToolName.TURN_DIFF:
                return _text(await anyio.to_thread.run_sync(desk.turn_diff))
            assert patch is not None
            if spec.name is ToolName.VERIFY_PATCH:
                verified = await anyio.to_thread.run_sync(desk.verify_patch, patch)
                ok = verified.result.status is CallStatus.DRY_RUN
                return _text(verify_text(verified, desk.cwd), error=not ok)
            if asking is None:
                call = await _apply(desk, patch)
            else:
                asked = await _apply_asking(desk, patch, ctx, params, asking)
                if isinstance(asked, types.InputRequiredResult):
                    return asked
                call = asked
        except MCPError:
            raise
        except DeskStopped as exc:
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None
        except Exception as exc:  # the desk's own failure: an error to the client, no traceback
            raise MCPError(
                types.INTERNAL_ERROR, f"the desk failed: {type(exc).__name__}: {exc}"
            ) from None
        return _text(call.output, error=call.status is not CallStatus.COMPLETED)

    return Server(
        SERVER_NAME,
        version=VERSION,
        title="applypatch_ext: the agent's desk",
        instructions=(
            "Edit files with apply_patch (the Codex patch format); a person at the desk may "
            "review, approve part of, or decline each patch. verify_patch checks a patch "
            "without writing; turn_diff shows everything changed in this turn."
        ),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _apply(desk: Desk, patch: str) -> DeskCall:
    """One apply_patch call: the pipeline in a worker thread; each wait for an answer in a
    thread this task can leave (a cancelled request declines the call)."""
    call = await anyio.to_thread.run_sync(desk.start, patch)
    while not call.done:
        await _wait(desk, call)
        await anyio.to_thread.run_sync(desk.resume, call)
    return call


async def _wait(desk: Desk, call: DeskCall) -> None:
    try:
        await anyio.to_thread.run_sync(desk.wait_for_answer, call, abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        _answer_quietly(desk, call, Answer(Decision.DECLINE, reason=CLIENT_CANCELLED))
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(desk.resume, call)
        raise


async def _apply_asking(
    desk: Desk,
    patch: str,
    ctx: ServerRequestContext[Any],
    params: types.CallToolRequestParams,
    asking: Asking,
) -> DeskCall | types.InputRequiredResult:
    """apply_patch where the client's user is asked (or the policy answers)."""
    if params.request_state is not None:  # a modern client's retry with its user's answer
        call = asking.parked.pop(params.request_state, None)
        if call is None:
            raise MCPError(types.INVALID_PARAMS, UNKNOWN_STATE)
        response = (params.input_responses or {}).get(APPROVAL_INPUT)
        previous = call.request
        _answer_quietly(desk, call, asking.answer_of(_elicit_result(response)))
        await anyio.to_thread.run_sync(call.wait_settled, previous)
        return _park(asking, call)
    call = await anyio.to_thread.run_sync(desk.start, patch)
    if call.done:
        return call
    if asking.can_ask(ctx) and not ctx.session.can_send_request:
        # 2026-07-28: no request mid-call; the call waits in its own thread, for the retry
        threading.Thread(target=desk.drive, args=(call,), daemon=True).start()
        return _park(asking, call)
    try:
        await _ask_until_done(desk, call, ctx, asking)
    except anyio.get_cancelled_exc_class():
        _answer_quietly(desk, call, Answer(Decision.DECLINE, reason=CLIENT_CANCELLED))
        with anyio.CancelScope(shield=True):
            while not call.done:
                await anyio.to_thread.run_sync(desk.resume, call)
                _answer_quietly(desk, call, Answer(Decision.DECLINE, reason=CLIENT_CANCELLED))
        raise
    return call


async def _ask_until_done(
    desk: Desk, call: DeskCall, ctx: ServerRequestContext[Any], asking: Asking
) -> None:
    """Put each request of the call to the client's user (handshake era), or answer with the
    policy, and resume, until the call ends."""
    while not call.done:
        if asking.can_ask(ctx):
            form = asking.form(call)
            with anyio.move_on_after(desk.answer_timeout) as scope:
                result = await ctx.session.elicit_form(
                    form.message, form.requested_schema, related_request_id=ctx.request_id
                )
                _answer_quietly(desk, call, asking.answer_of(result))
            if scope.cancelled_caught:
                timeout = NO_ANSWER.format(seconds=desk.answer_timeout)
                _answer_quietly(desk, call, Answer(Decision.DECLINE, reason=timeout))
        else:
            _answer_quietly(desk, call, asking.policy)
        await anyio.to_thread.run_sync(desk.wait_for_answer, call, abandon_on_cancel=True)
        await anyio.to_thread.run_sync(desk.resume, call)


def _park(asking: Asking, call: DeskCall) -> DeskCall | types.InputRequiredResult:
    """The call's result, or, while it waits, the question for the client's user."""
    if call.done:
        return call
    state = secrets.token_urlsafe(24)
    asking.parked[state] = call
    question = types.ElicitRequest(params=asking.form(call))
    return types.InputRequiredResult(input_requests={APPROVAL_INPUT: question}, request_state=state)


def _elicit_result(response: Any) -> types.ElicitResult | None:
    return response if isinstance(response, types.ElicitResult) else None


def _answer_quietly(desk: Desk, call: DeskCall, answer: Answer) -> None:
    """Give ``answer`` unless the call has one already (a person was quicker)."""
    with contextlib.suppress(RuntimeError, ValueError):
        desk.answer(call, answer)
