"""How long the default ``%%apply_patch`` stream takes, kernel side (prints figures).

Run: ``.venv/bin/python bench/stream.py``. A real IPython shell runs the magic on a small cell,
a 1,300-line cell and a 1.24 MB patch (Add File hunks), with each pace of ``--stream``; a
widget subclass notes when each comm update leaves the kernel. Printed per run: the first
update carrying patch text (what the view shows first), the first ``planned`` update (the
first preview), the call's end, and how many widget updates were sent. ``model-speed`` is run
only where it ends in reasonable time; for the others its plan's pauses are printed (the
least it would take). The browser side (rendering, long tasks) is ``make bench-browser``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from IPython.testing.globalipapp import start_ipython  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

from applypatch_ext.core.turn.pacing import plan_stream  # noqa: E402
from applypatch_ext.jupyter.live.session import SESSION  # noqa: E402
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget  # noqa: E402
from applypatch_ext.jupyter.magics import magic as magic_module  # noqa: E402


class TimedWidget(ApplyPatchWidget):
    """Notes the time and the keys of every update message it sends."""

    last: TimedWidget | None = None

    def __init__(self, **kwargs: Any) -> None:
        self.sent: list[tuple[float, set[str]]] = []
        super().__init__(**kwargs)
        TimedWidget.last = self

    def _send(self, msg: dict[str, Any], buffers: Any = None) -> None:
        if msg.get("method") == "update":
            self.sent.append((time.perf_counter(), set(msg.get("state", {}))))
        super()._send(msg, buffers)


def add_patch(lines: int, width: int) -> str:
    body = "".join(f"+{i:06d} " + "x" * (width - 8) + "\n" for i in range(lines))
    return f"*** Begin Patch\n*** Add File: big.txt\n{body}*** End Patch\n"


CELLS = {
    "small (3 lines)": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n",
    "1,300-line cell": add_patch(1297, 40),
    "1.24 MB patch": add_patch(15_500, 80),
}


def run(shell: Any, cell: str, pace: str) -> dict[str, float]:
    SESSION.new_turn()
    started = time.perf_counter()
    with capture_output():
        shell.run_cell_magic("apply_patch", f"--stream {pace}", cell)
    ended = time.perf_counter()
    widget = TimedWidget.last
    assert widget is not None and widget.status == "completed", widget and widget.status
    text = [t for t, keys in widget.sent if "patch_text" in keys]
    planned = [t for t, keys in widget.sent if "planned" in keys]
    return {
        "first text ms": (text[0] - started) * 1000,
        "first preview ms": (planned[0] - started) * 1000 if planned else float("nan"),
        "end ms": (ended - started) * 1000,
        "updates": len(widget.sent),
    }


def main() -> None:
    shell = start_ipython()
    shell.run_line_magic("load_ext", "applypatch_ext")
    # the name the magic looks up (imported there, not re-exported: set in its namespace)
    vars(magic_module)["ApplyPatchWidget"] = TimedWidget
    os.chdir(tempfile.mkdtemp(prefix="bench-stream-"))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; median of 3 runs")
    print()
    columns = ["cell", "size", "--stream", "deltas", "first text ms", "first preview ms"]
    columns += ["end ms", "updates"]
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))
    for name, cell in CELLS.items():
        for pace in ("bounded", "model-speed", "none"):
            plan = plan_stream(len(cell), pace)
            size = f"{len(cell) / 1000:,.1f} kB"
            if pace == "model-speed" and plan.pauses > 5:
                print(
                    f"| {name} | {size} | {pace} | {plan.count:,} | not run: pauses alone "
                    f"{plan.pauses:,.0f} s | | | |"
                )
                continue
            runs = sorted((run(shell, cell, pace) for _ in range(3)), key=lambda r: r["end ms"])
            mid = runs[1]
            print(
                f"| {name} | {size} | {pace} | {plan.count:,} | {mid['first text ms']:.1f} | "
                f"{mid['first preview ms']:.1f} | {mid['end ms']:.0f} | {mid['updates']:.0f} |"
            )


if __name__ == "__main__":
    main()
