"""A real Jupyter server on 127.0.0.1 to save notebooks through (``PUT /api/contents``), with
the package's server extension on or off; used by tests/reliability/test_save_hook.py and by
``make bench`` (bench/saving.py)."""

from __future__ import annotations

import copy
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path
from typing import IO, Any

from applypatch_ext.live_views import OUTPUT_KEY, WIDGET_STATE

TOKEN = "contents-server"


class ContentsServer:
    """``python -m jupyter_server`` on a free port of 127.0.0.1, its configuration in ``base``;
    ``hook`` turns ``applypatch_ext.serverext`` on or off (the user's config, read last);
    ``python`` is the interpreter of the environment it runs in."""

    def __init__(self, base: Path, *, hook: bool = True, python: str = sys.executable) -> None:
        self.base = base
        self.root = base / "root"
        self.root.mkdir(parents=True)
        config = base / "config"
        config.mkdir()
        (config / "jupyter_server_config.json").write_text(
            json.dumps({"ServerApp": {"jpserver_extensions": {"applypatch_ext.serverext": hook}}})
        )
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port: int = s.getsockname()[1]
        self._log: IO[bytes] = open(base / "server.log", "wb")  # noqa: SIM115 - see stop()
        self.proc = subprocess.Popen(
            [
                *(python, "-m", "jupyter_server", "--allow-root"),
                *("--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}"),
                *("--ServerApp.port_retries=0", f"--IdentityProvider.token={TOKEN}"),
                f"--ServerApp.root_dir={self.root}",
            ],
            env=dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_PLATFORM_DIRS="1"),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        # ready when it answers (or it exited: its log says why)
        while True:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(self.log())
            try:
                with urllib.request.urlopen(self.url("/api/status"), timeout=5):
                    return
            except OSError:
                time.sleep(0.1)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}?token={TOKEN}"

    def log(self) -> str:
        return (self.base / "server.log").read_text(errors="replace")

    def save(self, name: str, content: dict[str, Any] | bytes) -> dict[str, Any]:
        """``PUT /api/contents/NAME`` of a notebook, as JupyterLab saves one; the reply."""
        body = content if isinstance(content, bytes) else notebook_body(content)
        request = urllib.request.Request(
            self.url(f"/api/contents/{name}"),
            data=body,
            method="PUT",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=600) as response:
            reply: dict[str, Any] = json.load(response)
            return reply

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def notebook_body(content: dict[str, Any]) -> bytes:
    return json.dumps({"type": "notebook", "format": "json", "content": content}).encode()


def many_calls(one: dict[str, Any], calls: int) -> dict[str, Any]:
    """``one``'s call cell and its widget models cloned ``calls`` times, each with fresh ids
    (model ids, record ids, cell ids), as ``calls`` real calls would leave them."""
    cell = one["cells"][1]
    state = one["metadata"]["widgets"][WIDGET_STATE]["state"]
    cell_text, state_text = json.dumps(cell), json.dumps(state)
    record = next(o["metadata"][OUTPUT_KEY]["record"] for o in cell["outputs"])
    cells, models = [one["cells"][0]], {}
    for k in range(calls):
        renames = {model: uuid.uuid4().hex for model in state} | {record: uuid.uuid4().hex}
        text, models_text = cell_text, state_text
        for old, new in renames.items():
            text, models_text = text.replace(old, new), models_text.replace(old, new)
        clone = json.loads(text)
        clone["id"] = f"call-{k}"
        cells.append(clone)
        models.update(json.loads(models_text))
    notebook = copy.deepcopy({**one, "cells": []})
    notebook["cells"] = cells
    notebook["metadata"]["widgets"][WIDGET_STATE]["state"] = models
    return notebook
