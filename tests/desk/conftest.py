"""Helpers of the desk's tests: a desk in this process served over HTTP, the same desk's tools
over stdio in a real ``python -m applypatch_ext mcp`` process, and the real ``mcp`` client on
both."""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from applypatch_ext.core.turn.options import FrontEnd, PipelineOptions, add_arguments
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.desk.desk import Desk, DeskCall
from applypatch_ext.desk.http import HttpDesk

TRANSPORTS = ("http", "stdio")
UPDATE = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n"
ADD_B = "*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch\n"
ADD_C = "*** Begin Patch\n*** Add File: c.txt\n+sea\n*** End Patch\n"
#: The head of Codex's own success text (test_codex_outputs.py checks it against the rollouts).
SUCCESS = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    return root


def desk_options(root: Path, args: list[str]) -> tuple[PipelineOptions, argparse.Namespace]:
    """The desk's options from the command line it would be started with."""
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_arguments(parser, FrontEnd.DESK)
    parsed = parser.parse_args(args)
    return PipelineOptions.from_namespace(str(root), parsed), parsed


def make_desk(root: Path, args: Sequence[str] = (), **kwargs: Any) -> Desk:
    options, parsed = desk_options(root, list(args))
    kwargs.setdefault("answer_timeout", parsed.answer_timeout)
    return Desk(Turn(str(root), options=options), options=options, **kwargs)


@contextmanager
def serving(desk: Desk) -> Iterator[HttpDesk]:
    server = HttpDesk(desk).start()
    try:
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def http_client(server: HttpDesk, **client: Any) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {server.token}"})
    async with http, Client(streamable_http_client(server.url, http_client=http), **client) as c:
        yield c


def stdio_parameters(root: Path, args: Sequence[str] = ()) -> StdioServerParameters:
    command = ["-m", "applypatch_ext", "mcp", "--cwd", str(root), *args]
    return StdioServerParameters(command=sys.executable, args=command, cwd=str(root))


@asynccontextmanager
async def stdio_client(
    root: Path, args: Sequence[str] = (), **client: Any
) -> AsyncIterator[Client]:
    async with Client(stdio_parameters(root, list(args)), **client) as c:
        yield c


def text_of(result: types.CallToolResult) -> str:
    """A tool result's text, its wall time read as 0 (the run's duration is the machine's)."""
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return steady(content.text)


def steady(text: str) -> str:
    """``text`` with the model output's wall time read as 0, so that a test never depends on
    how fast the machine is (the exact text is compared with the desk's own in the tests)."""
    return re.sub(r"^Wall time: [0-9.]+ seconds$", "Wall time: 0 seconds", text, flags=re.M)


def wait_for(predicate: Callable[[], bool], what: str, limit: float = 60.0) -> None:
    """Wait for a state (never for a time): ``limit`` only bounds a broken run."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.005)


def pending_call(desk: Desk, count: int = 1) -> list[DeskCall]:
    wait_for(lambda: len(desk.pending) >= count, f"{count} call(s) waiting at the desk")
    return desk.pending


def answered_by(desk: Desk, decide: Callable[[DeskCall], None]) -> Callable[[], None]:
    """A thread body that answers the next call to wait at ``desk``."""

    def run() -> None:
        (call,) = pending_call(desk)[:1]
        decide(call)

    return run


def raw_post(server: HttpDesk, body: bytes, headers: dict[str, str]) -> httpx2.Response:
    base = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    with httpx2.Client() as http:
        return http.post(server.url, content=body, headers={**base, **headers})
