"""The desk over streamable HTTP, on 127.0.0.1 only, behind a token and an ``Origin`` check.

:class:`HttpDesk` serves the MCP endpoint ``/mcp`` with uvicorn in a thread of its own (its own
event loop), so that a Jupyter kernel hosting it keeps running cells. Every request passes
:class:`Guard` first:

- the ``Host`` header must name the desk's own address (``127.0.0.1:PORT`` or
  ``localhost:PORT``): a page that rebinds its domain name to 127.0.0.1 still sends its own name
  (DNS rebinding);
- an ``Origin`` header, when there is one, must be the desk's own origin: a web page's request
  carries its own origin, and an agent's HTTP client sends none;
- ``Authorization: Bearer TOKEN`` must carry the desk's token (compared in constant time).

A refused request gets a JSON-RPC error body and no detail of the desk. The SDK's own
DNS-rebinding check runs behind ours, with the same lists. Stopping the desk declines every call
that waits (the client is told why), waits for those calls to end, then closes the server.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

from ..extras import missing_extra
from .desk import DESK_STOPPED, Desk
from .server import build_server

try:  # the `mcp` extra
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings
except ModuleNotFoundError as exc:
    raise missing_extra(exc, "mcp") from None

HOST: Final = "127.0.0.1"
PATH: Final = "/mcp"
#: The JSON-RPC error code of a refused HTTP request (the server's own range).
REFUSED: Final = -32001

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_token() -> str:
    return secrets.token_urlsafe(32)


class Guard:
    """The ASGI middleware that refuses a request without the desk's token, from another
    origin, or for another host."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token.encode()
        self.hosts = frozenset({f"{HOST}:{port}", f"localhost:{port}"})
        self.origins = frozenset(f"http://{host}" for host in self.hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for key, value in scope.get("headers", ()):
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        refusal = self.refusal(headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        body = json.dumps(
            {"jsonrpc": "2.0", "id": None, "error": {"code": REFUSED, "message": message}}
        ).encode()
        response_headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        if status == 401:
            response_headers.append((b"www-authenticate", b'Bearer realm="applypatch-desk"'))
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, headers: dict[str, str]) -> tuple[int, str] | None:
        """``(status, message)`` for a request to refuse, None to let it through."""
        host = headers.get("host", "")
        if host not in self.hosts:
            return 421, f"refused: the Host header must be one of {', '.join(sorted(self.hosts))}"
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return 403, "refused: a request from another origin (a web page) is not accepted"
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), self.token
        ):
            return 401, "refused: the desk's token is missing or wrong (Authorization: Bearer ...)"
        return None


class HttpDesk:
    """A desk served over streamable HTTP on 127.0.0.1 (port 0: a free one)."""

    def __init__(self, desk: Desk, *, port: int = 0, token: str | None = None) -> None:
        self.desk = desk
        self.token = token or new_token()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((HOST, port))
        except OSError:
            self._socket.close()
            raise
        self.port: int = self._socket.getsockname()[1]
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{PATH}"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def app(self) -> ASGIApp:
        hosts = [f"{HOST}:{self.port}", f"localhost:{self.port}"]
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=hosts,
            allowed_origins=[f"http://{host}" for host in hosts],
        )
        starlette = build_server(self.desk).streamable_http_app(
            streamable_http_path=PATH, transport_security=security, host=HOST
        )
        return Guard(starlette, self.token, self.port)

    def start(self) -> HttpDesk:
        """Serve in a thread; return once the server accepts connections."""
        config = uvicorn.Config(
            self.app(),
            log_config=None,  # never touch the host process's logging
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=5,
        )
        server = uvicorn.Server(config)
        self._server = server
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            try:
                task = loop.create_task(server.serve(sockets=[self._socket]))
                loop.call_soon(lambda: _when_started(server, ready, task))
                loop.run_until_complete(task)
            except BaseException as exc:  # told to the caller of start() or stop()
                self._failure = exc
            finally:
                ready.set()
                _finish(loop)

        self._thread = threading.Thread(target=serve, name=f"applypatch-desk:{self.port}")
        self._thread.daemon = True
        self._thread.start()
        ready.wait()
        if not server.started:
            self._socket.close()
            raise RuntimeError(f"the desk could not start on {self.url}: {self._failure}")
        return self

    def stop(self, reason: str = DESK_STOPPED) -> None:
        """Decline what waits (with ``reason``), let those calls answer, close the server."""
        self.desk.stop(reason)
        server, thread = self._server, self._thread
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(15)
        self._socket.close()


def _when_started(server: uvicorn.Server, ready: threading.Event, task: asyncio.Task[Any]) -> None:
    """Set ``ready`` once uvicorn says it started (or its task ended)."""
    if server.started or task.done():
        ready.set()
        return
    asyncio.get_running_loop().call_later(0.01, _when_started, server, ready, task)


def _finish(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what the server left running (the SSE streams' watchers) and close the loop,
    so that nothing is reported destroyed while pending."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.close()
