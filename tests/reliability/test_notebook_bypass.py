"""The ``.ipynb`` check cannot be gone around (issue 21, item 9).

It looked at the path a patch names and at the proposed map, so an update through a symbolic
link or a hard link not named ``.ipynb``, and a ``--duplicates fold`` move onto ``nb.ipynb``
(the fold keeps the later hunk in the map, the runtime runs both), broke a notebook; without
nbformat, six malformed shapes went through. Now the check looks at the file each write reaches
and at every hunk that will run, and the structural fallback refuses what nbformat refuses for
those shapes. Each attack runs through the library, the ``turn`` command (its JSON lines), and
``%%apply_patch`` in a real IPython shell; the fallback in a real interpreter without
site-packages (``python -S``: no nbformat). The whole tree is compared after each.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.notebooks import with_notebook_check
from applypatch_ext.notebooks.check import notebook_problem

from ..trees import snapshot_dir_with_modes
from ._ipython import ipython

__all__ = ["ipython"]  # the fixture

REPO = Path(__file__).resolve().parents[2]
TOUR = REPO / "notebooks" / "01_tour.ipynb"
FIRST_LINE = TOUR.read_text(encoding="utf-8").split("\n", 1)[0]  # "{"


def _break(name: str) -> str:
    """An update of ``name`` whose result is not JSON."""
    return f"*** Begin Patch\n*** Update File: {name}\n@@\n-{FIRST_LINE}\n+not json\n*** End Patch"


#: name -> (how the project is set up, the patch, extra options)
ATTACKS: dict[str, tuple[str, str, list[str]]] = {
    "symlink": ("ln -s nb.ipynb link.txt", _break("link.txt"), []),
    "hard-link": ("ln nb.ipynb hard.txt", _break("hard.txt"), []),
    "fold-move": (
        "",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: nb.ipynb\n@@\n-x\n+{broken\n"
        "*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch",
        ["--duplicates", "fold"],
    ),
    "add-over-symlink": (
        "ln -s nb.ipynb link.txt",
        "*** Begin Patch\n*** Add File: link.txt\n+[]\n*** End Patch",
        [],
    ),
}


def setup(root: Path, how: str) -> None:
    root.mkdir()
    shutil.copy(TOUR, root / "nb.ipynb")
    (root / "a.txt").write_text("x\n")
    if how.startswith("ln -s"):
        (root / how.split()[-1]).symlink_to("nb.ipynb")
    elif how.startswith("ln"):
        os.link(root / "nb.ipynb", root / how.split()[-1])


def library(root: Path, text: str, extra: list[str]) -> tuple[str, str]:
    opts = dict(zip(extra[::2], extra[1::2], strict=True))
    options = PipelineOptions.from_strings(
        str(root), duplicates=opts.get("--duplicates", "reject"), exclude_tmp=True
    )
    result = Turn(str(root), options=with_notebook_check(options)).run(text, "approve")
    return result.status, result.error or ""


def turn_command(
    root: Path, text: str, extra: list[str], *, no_site: bool = False
) -> tuple[str, str]:
    patch = root.parent / "change.patch"
    patch.write_text(text)
    flags = ["-S"] if no_site else []
    env = {**os.environ, "PYTHONPATH": str(REPO)} if no_site else dict(os.environ)
    command = ["turn", "--cwd", str(root), "--exclude-tmp", "--approve", "approve", *extra]
    proc = subprocess.run(
        [sys.executable, *flags, "-m", "applypatch_ext", *command, str(patch)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (result,) = [line for line in lines if line["type"] == "call_result"]
    assert proc.returncode == (0 if result["status"] == "completed" else 1)
    return result["status"], result["output"]


def magic(ip: InteractiveShell, root: Path, text: str, extra: list[str]) -> tuple[str, str]:
    with capture_output():
        ip.run_cell_magic(
            "apply_patch",
            f"res --cwd {root} --exclude-tmp --approve approve {' '.join(extra)}",
            text,
        )
    result: Any = ip.user_ns.pop("res")
    return result.status, result.error or ""


@pytest.mark.parametrize("front_end", ["library", "turn", "magic"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_write_that_reaches_a_notebook_is_checked(
    ipython: InteractiveShell, tmp_path: Path, attack: str, front_end: str
) -> None:
    how, text, extra = ATTACKS[attack]
    root = tmp_path / "project"
    setup(root, how)
    before = snapshot_dir_with_modes(root)
    if front_end == "library":
        status, message = library(root, text, extra)
    elif front_end == "turn":
        status, message = turn_command(root, text, extra)
    else:
        status, message = magic(ipython, root, text, extra)
    assert status == CallStatus.ERROR
    assert "Jupyter cannot open an invalid notebook" in message
    if attack == "symlink":
        assert "link.txt (which leads to " in message and "nb.ipynb) is invalid" in message
    if attack == "hard-link":
        assert "a hard link of a notebook" in message
    assert snapshot_dir_with_modes(root) == before  # nothing written, the notebook intact
    assert (root / "nb.ipynb").read_bytes() == TOUR.read_bytes()


def test_other_files_with_several_names_are_not_checked(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("x\n")
    os.link(root / "a.txt", root / "b.txt")  # a hard link, but no notebook
    status, _ = library(
        root, "*** Begin Patch\n*** Update File: b.txt\n@@\n-x\n+y\n*** End Patch", []
    )
    assert status == CallStatus.COMPLETED and (root / "a.txt").read_text() == "y\n"


NB: dict[str, Any] = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
CODE: dict[str, Any] = {
    "cell_type": "code",
    "id": "c1",
    "metadata": {},
    "source": "x = 1",
    "outputs": [],
    "execution_count": None,
}


def _without(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


#: the six shapes of the issue, and their nbformat-style message
MALFORMED: dict[str, tuple[dict[str, Any], str]] = {
    "no-cells": (_without(NB, "cells"), "'cells' is a required property"),
    "cells-a-dict": ({**NB, "cells": {}}, "{} is not of type 'array' (at cells)"),
    "no-metadata": (_without(NB, "metadata"), "'metadata' is a required property"),
    "code-without-source": (
        {**NB, "cells": [_without(CODE, "source")]},
        "'source' is a required property",
    ),
    "code-without-outputs": (
        {**NB, "cells": [_without(CODE, "outputs")]},
        "'outputs' is a required property",
    ),
    "outputs-a-string": (
        {**NB, "cells": [{**CODE, "outputs": "x"}]},
        "is not of type 'array' (at outputs)",
    ),
    "v3": ({"nbformat": 3, "nbformat_minor": 0}, "'metadata' is a required property"),
}


@pytest.mark.parametrize("shape", list(MALFORMED))
def test_without_nbformat_the_fallback_refuses_what_nbformat_refuses(
    tmp_path: Path, shape: str
) -> None:
    data, message = MALFORMED[shape]
    text = json.dumps(data, indent=1)
    assert notebook_problem(text) is not None  # nbformat (installed here) refuses it too
    root = tmp_path / "project"
    root.mkdir()
    body = "".join(f"+{line}\n" for line in text.split("\n"))
    patch = f"*** Begin Patch\n*** Add File: nb.ipynb\n{body}*** End Patch"
    status, output = turn_command(root, patch, [], no_site=True)
    assert status == CallStatus.ERROR, output
    assert message in output and "nbformat, which checks the whole schema" in output
    assert list(root.iterdir()) == []
    # a valid notebook goes through the fallback
    ok = json.dumps({**NB, "cells": [CODE]}, indent=1)
    body = "".join(f"+{line}\n" for line in ok.split("\n"))
    status, _ = turn_command(
        root, f"*** Begin Patch\n*** Add File: nb.ipynb\n{body}*** End Patch", [], no_site=True
    )
    assert status == CallStatus.COMPLETED and json.loads((root / "nb.ipynb").read_text())


def test_a_fifo_named_like_a_notebook_never_hangs_the_call(
    ipython: InteractiveShell, tmp_path: Path
) -> None:
    """A call that writes nothing shows what it would change in a notebook it adds over: the
    notebook's text was read with ``open()``, which waits for a writer on a FIFO named
    ``nb.ipynb``, so ``%%apply_patch --review`` (and an agent's call at the desk, which holds
    the kernel's lock meanwhile) never returned. Now the text is read as the pipeline reads a
    file: a FIFO is no notebook, the call waits for its answer."""
    project = tmp_path / "project"
    project.mkdir()
    fifo = project / "nb.ipynb"
    os.mkfifo(fifo)
    body = "".join(f"+{line}\n" for line in TOUR.read_text(encoding="utf-8").splitlines())
    patch = f"*** Begin Patch\n*** Add File: nb.ipynb\n{body}*** End Patch"
    results: list[Any] = []

    def run() -> None:
        with capture_output():
            ipython.run_cell_magic("apply_patch", f"fifo_call --cwd {project} --review", patch)
        results.append(ipython.user_ns.pop("fifo_call"))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)  # bounds a broken run only
    hung = worker.is_alive()
    while worker.is_alive():  # release it: a writer lets each blocked open() return
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(0.1)
    assert not hung, "the call waited for a writer on the FIFO"
    (result,) = results
    assert result.status == CallStatus.AWAITING_APPROVAL, result.raw.output
    result.decide("decline")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
