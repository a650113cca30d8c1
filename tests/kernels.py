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

    def threads(self) -> str:
        """What every thread of the kernel is doing, and what the kernel wrote to stderr since
        it was last read: for the message of a test that waited in vain."""
        err: list[str] = []
        while self.client.iopub_channel.msg_ready():
            msg = self.client.get_iopub_msg(timeout=1)
            if msg["msg_type"] == "stream" and msg["content"].get("name") == "stderr":
                err.append(msg["content"]["text"])
        code = (
            "import sys, threading, traceback\n"
            "names = {t.ident: t.name for t in threading.enumerate()}\n"
            "for ident, frame in sys._current_frames().items():\n"
            "    print(f'--- {names.get(ident, ident)}')\n"
            "    print(''.join(traceback.format_stack(frame)))"
        )
        try:
            stacks = self.run(code)
        except Exception as exc:  # a kernel that cannot run a cell says so
            stacks = f"(the kernel ran no cell: {exc!r})"
        return f"kernel stderr: {''.join(err)!r}\n{stacks}"

    def shutdown(self) -> None:
        self.client.stop_channels()
        if self.manager.is_alive():
            self.manager.shutdown_kernel(now=True)
