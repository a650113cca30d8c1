"""A stand-in for the Responses API on 127.0.0.1, playing scripted model turns (standard
library only), so that a real Codex CLI can be driven offline against the desk: the tests' end
to end run and notebook 11 use it; with a real API key the notebook talks to a real model
instead.

A turn is a list of *steps*; each request Codex sends gets the next step's output items,
streamed as server-sent events (``response.created``, ``response.output_item.added`` and
``.done`` per item, ``response.completed``). A step is a list of items, or a function of the
request's body returning one (it can read the tools Codex offered and the outputs it sent
back). Every request is kept, so the outputs Codex returned to the "model" can be read after.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeAlias

Item: TypeAlias = dict[str, Any]
Step: TypeAlias = "list[Item] | Callable[[dict[str, Any]], list[Item]]"


def message(text: str) -> Item:
    return {
        "type": "message",
        "id": "msg_" + hashlib.sha1(text.encode()).hexdigest()[:12],
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def function_call(
    call_id: str, name: str, arguments: dict[str, Any], namespace: str | None = None
) -> Item:
    item: Item = {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "status": "completed",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }
    if namespace is not None:
        item["namespace"] = namespace
    return item


def tool_search_call(call_id: str, query: str) -> Item:
    """The model asks Codex for tools (Codex defers MCP tools behind its ``tool_search``)."""
    return {
        "type": "tool_search_call",
        "id": f"tsc_{call_id}",
        "call_id": call_id,
        "status": "completed",
        "execution": "client",
        "arguments": {"query": query},
    }


def found_tool(body: dict[str, Any], tool: str, server: str) -> tuple[str | None, str]:
    """``(namespace, name)`` of the MCP ``tool`` of ``server`` in what a request offers: its
    tools, or the tools a ``tool_search`` returned (in a namespace ``mcp__SERVER``)."""
    for item in body.get("input", []):
        if not isinstance(item, dict) or item.get("type") != "tool_search_output":
            continue
        for entry in item.get("tools", []):
            if entry.get("type") == "namespace" and server in str(entry.get("name", "")):
                for inner in entry.get("tools", []):
                    if inner.get("name") == tool:
                        return str(entry["name"]), tool
            elif entry.get("name", "").endswith(tool) and server in entry.get("name", ""):
                return None, str(entry["name"])
    return None, offered(body, tool, server)


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers (function tools and namespaced ones)."""
    names: list[str] = []
    for tool in body.get("tools", []):
        name = tool.get("name")
        if isinstance(name, str):
            names.append(name)
    return names


def offered(body: dict[str, Any], tool: str, server: str) -> str:
    """The name Codex gave the MCP ``tool`` of ``server`` in this request's tools."""
    candidates = [n for n in tool_names(body) if n.endswith(tool) and server in n]
    if not candidates:
        raise LookupError(f"no tool {tool!r} of server {server!r} in {tool_names(body)}")
    return candidates[0]


def call_outputs(body: dict[str, Any]) -> dict[str, Any]:
    """The outputs a request carries back, by call id (what Codex told the model)."""
    return {
        item["call_id"]: item.get("output")
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type", "").endswith("_call_output")
    }


class ScriptedModel:
    """The model's side: the steps still to play, and every request received."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    def play(self, steps: Sequence[Step]) -> None:
        with self.lock:
            self.steps = list(steps)

    def next_items(self, body: dict[str, Any]) -> list[Item]:
        with self.lock:
            self.requests.append(body)
            if not self.steps:
                return [message("(the script has no more answers)")]
            step = self.steps.pop(0)
        return step(body) if callable(step) else list(step)

    @property
    def base_url(self) -> str:
        assert self.server is not None, "start() first"
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> ScriptedModel:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            payload = json.dumps({"object": "list", "data": [], "models": []}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/responses"):
                self.send_response(404)
                self.end_headers()
                return
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"raw": raw.decode("utf-8", "replace")}
            try:
                items = model.next_items(body)
            except Exception as exc:  # a broken script: say so as the model's text
                items = [message(f"(the script failed: {type(exc).__name__}: {exc})")]
            number = len(model.requests)
            events: list[dict[str, Any]] = [
                {"type": "response.created", "response": {"id": f"resp_{number}"}}
            ]
            for index, item in enumerate(items):
                events.append(
                    {"type": "response.output_item.added", "output_index": index, "item": item}
                )
                events.append(
                    {"type": "response.output_item.done", "output_index": index, "item": item}
                )
            usage = {
                "input_tokens": 10,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 5,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 15,
            }
            events.append(
                {"type": "response.completed", "response": {"id": f"resp_{number}", "usage": usage}}
            )
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for event in events:
                self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()

    return Handler
