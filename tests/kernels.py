"""A real kernel (ipykernel, through jupyter_client) for the tests that need one: the desk's
interrupts and shutdown, a replay in a kernel whose user granted a path for the session."""

from __future__ import annotations

from pathlib import Path

from jupyter_client.manager import KernelManager


class Kernel:
    """A running ``python3`` kernel in ``cwd`` and a client connected to it."""

    def __init__(self, cwd: Path) -> None:
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(cwd=str(cwd))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str) -> str:
        """Run ``code``; its stdout (a failing cell fails the test)."""
        out: list[str] = []
        reply = self.client.execute_interactive(
            code,
            timeout=60,
            output_hook=lambda msg: (
                out.append(msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None
            ),
        )
        assert reply["content"]["status"] == "ok", reply["content"]
        return "".join(out)

    def shutdown(self) -> None:
        self.client.stop_channels()
        if self.manager.is_alive():
            self.manager.shutdown_kernel(now=True)
