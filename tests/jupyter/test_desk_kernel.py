"""The desk in a real kernel (ipykernel, through jupyter_client): a kernel interrupt while the
kernel is idle declines what waits (and the desk goes on), and the kernel's shutdown declines
what waits and answers the agent before the server closes."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from applypatch_ext.jupyter.magics.desk import INTERRUPTED, SHUT_DOWN

from ..desk.conftest import ADD_B, ADD_C, text_of, wait_for
from ..kernels import Kernel

pytestmark = pytest.mark.slow


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    running = Kernel(tmp_path)
    yield running
    running.shutdown()


def start_desk(kernel: Kernel) -> dict[str, Any]:
    kernel.run("%load_ext applypatch_ext")
    kernel.run("%apply_patch_mcp start --review")
    desk: dict[str, Any] = json.loads(
        kernel.run("import json; print(json.dumps({'url': desk.url, 'token': desk.token}))")
    )
    return desk


def agent_call(address: dict[str, Any], patch: str, outputs: list[str]) -> threading.Thread:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def run() -> None:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {address['token']}"})
        async with http, Client(streamable_http_client(address["url"], http_client=http)) as c:
            outputs.append(text_of(await c.call_tool("apply_patch", {"patch": patch})))

    thread = threading.Thread(target=anyio.run, args=(run,))
    thread.start()
    return thread


def joined(thread: threading.Thread, kernel: Kernel) -> None:
    """Wait for the agent's call to return; if it does not, fail with what the kernel's
    threads are doing (a call that never ends is a hang to explain, not a slow machine)."""
    thread.join(120)
    if thread.is_alive():
        pytest.fail(f"the agent's call never returned; the kernel's threads:\n{kernel.threads()}")


def waiting(kernel: Kernel) -> int:
    return int(kernel.run("print(len(desk.pending))"))


def test_an_interrupt_of_the_idle_kernel_declines_what_waits(
    kernel: Kernel, tmp_path: Path
) -> None:
    address = start_desk(kernel)
    outputs: list[str] = []
    thread = agent_call(address, ADD_B, outputs)
    wait_for(lambda: waiting(kernel) == 1, "the call waits at the desk")
    kernel.manager.interrupt_kernel()  # SIGINT, the kernel idle
    joined(thread, kernel)
    assert outputs == ["patch rejected by user\nThe user's reason: " + INTERRUPTED]
    assert not (tmp_path / "b.txt").exists()
    assert "running" in kernel.run("print(desk.status())")  # the desk goes on


def test_the_kernels_shutdown_declines_what_waits(kernel: Kernel, tmp_path: Path) -> None:
    address = start_desk(kernel)
    outputs: list[str] = []
    thread = agent_call(address, ADD_C, outputs)
    wait_for(lambda: waiting(kernel) == 1, "the call waits at the desk")
    kernel.manager.shutdown_kernel()  # as JupyterLab shuts a kernel down
    joined(thread, kernel)
    # jupyter_client interrupts the kernel before it asks it to shut down: either declines
    (output,) = outputs
    reasons = ("The user's reason: " + INTERRUPTED, "The user's reason: " + SHUT_DOWN)
    assert output.startswith("patch rejected by user\n") and output.endswith(reasons)
    assert not (tmp_path / "c.txt").exists()


def test_an_interrupt_of_a_running_cell_declines_what_waits(kernel: Kernel, tmp_path: Path) -> None:
    address = start_desk(kernel)
    outputs: list[str] = []
    thread = agent_call(address, ADD_B, outputs)
    wait_for(lambda: waiting(kernel) == 1, "the call waits at the desk")
    msg_id = kernel.client.execute("print('sleeping', flush=True); import time; time.sleep(120)")
    while True:  # the cell is running once it printed
        msg = kernel.client.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            break
    kernel.manager.interrupt_kernel()
    reply = kernel.client.get_shell_msg(timeout=60)
    assert (
        reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    )
    joined(thread, kernel)
    assert outputs == ["patch rejected by user\nThe user's reason: " + INTERRUPTED]
    assert not (tmp_path / "b.txt").exists()
