"""Fixtures of the Jupyter tests: a real IPython shell, a widget recorder, and for the browser
tests a throwaway JupyterLab / Notebook 7 server driven through Debian's Chromium.

The browser part (tests marked ``browser``, run with ``--browser-tests``; see tests/conftest.py):
the server runs on 127.0.0.1 with a free port, no token and every config folder in a temp dir;
pytest-playwright launches ``/usr/bin/chromium`` (never a browser of Playwright's own). Without
Chromium the browser tests skip, except on CI (``CI`` set), where they fail: a silently skipped
suite would hide breakage.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, ClassVar

import nbformat
import pytest
from IPython import get_ipython
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import CapturedIO, capture_output

from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.magics import magic as magic_module

from ..conftest import unavailable

# ------------------------------------------------------------------------------- IPython shell


@pytest.fixture(scope="session")
def shell() -> InteractiveShell:
    """The global test shell with ``%load_ext applypatch_ext`` done (another module may have
    started it already: ``start_ipython`` returns it only once)."""
    ip: InteractiveShell | None = start_ipython() or get_ipython()
    assert ip is not None
    ip.run_line_magic("load_ext", "applypatch_ext")
    return ip


@pytest.fixture
def ip(
    shell: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[InteractiveShell]:
    """The shell, working in a fresh directory, with a fresh turn; like a kernel, it computes
    every mime type of a display (a terminal shell computes only text/plain)."""
    monkeypatch.chdir(tmp_path)
    formatter = shell.display_formatter
    assert formatter is not None
    monkeypatch.setattr(formatter, "active_types", list(formatter.format_types))
    SESSION.new_turn()
    yield shell
    SESSION.new_turn()


class RecordingWidget(ApplyPatchWidget):
    """The widget, recording every comm message it sends (what the front end receives)."""

    instances: ClassVar[list[RecordingWidget]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        self.changed: list[str] = []  # every change of a synced trait, in order
        super().__init__(**kwargs)
        self.observe(lambda change: self.changed.append(change["name"]), names=self.keys)
        RecordingWidget.instances.append(self)

    def _send(self, msg: dict[str, Any], buffers: Any = None) -> None:
        self.sent.append(msg)
        super()._send(msg, buffers)

    def updates(self) -> list[dict[str, Any]]:
        """The state of every ``update`` message, in order."""
        return [m["state"] for m in self.sent if m.get("method") == "update"]

    def answer(self, content: dict[str, Any]) -> None:
        """An approval message as the front end sends it: naming the request it answers, the
        one the widget shows."""
        self._handle_custom_msg({"request": self.approval.get("request_id"), **content}, [])

    def approve(self, decision: str) -> None:
        """What a click on an approval button delivers to the kernel: the decision, naming
        the request it answers (the one the widget shows)."""
        request = self.approval.get("request_id")
        self._handle_custom_msg({"type": "approval", "decision": decision, "request": request}, [])


class Magic:
    """Runs ``%%apply_patch`` in the shell, capturing displays and the widget it creates."""

    def __init__(self, shell: InteractiveShell) -> None:
        self.shell = shell

    def __call__(self, line: str, cell: str) -> Run:
        before = len(RecordingWidget.instances)
        with capture_output() as captured:
            self.shell.run_cell_magic("apply_patch", line, cell)
        created = RecordingWidget.instances[before:]
        assert len(created) <= 1
        return Run(created[0] if created else None, captured)

    def line(self, name: str, line: str = "") -> CapturedIO:
        with capture_output() as captured:
            self.shell.run_line_magic(name, line)
        return captured


class Run:
    def __init__(self, widget: RecordingWidget | None, captured: CapturedIO) -> None:
        self._widget = widget
        self.captured = captured

    @property
    def widget(self) -> RecordingWidget:
        assert self._widget is not None, "the magic created no widget"
        return self._widget

    @property
    def outputs(self) -> list[dict[str, Any]]:
        """Every display (and display update) as ``{"data", "update", ...}``."""
        return [
            {"data": o.data, "metadata": o.metadata, "update": o.update}
            for o in self.captured.outputs
        ]


@pytest.fixture
def run_magic(ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> Magic:
    """``run_magic(line, cell)`` runs ``%%apply_patch line`` and returns the widget + displays."""
    monkeypatch.setattr(magic_module, "ApplyPatchWidget", RecordingWidget)
    return Magic(ip)


# ----------------------------------------------------------------- browser (pytest-playwright)

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# Root, no display, closed network: these flags keep Chromium quiet and working.
CHROMIUM_ARGS = [
    "--no-sandbox",  # required as root
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # else: refused connections to Google hosts
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    if not Path(CHROMIUM).exists():
        unavailable(
            f"no Chromium at {CHROMIUM} (apt-get install -y --no-install-recommends chromium)"
        )
    # An `expect` waits for its state; Playwright's default bound of 5 s is a time, which a
    # loaded machine outlasts (colours from a kernel busy with other work): a minute, which only
    # a test that fails ever waits out.
    from playwright.sync_api import expect

    expect.set_options(timeout=60_000)
    # headless is pytest-playwright's default; Playwright adds --headless itself.
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_context_args, "viewport": {"width": 1280, "height": 1000}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class JupyterServer:
    """``python -m jupyterlab`` (or ``notebook``) on 127.0.0.1, everything in a temp dir."""

    def __init__(self, app: str, base: Path) -> None:
        self.app = app
        self.base = base
        self.root = base / "root"
        self.log_path = base / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        for var, sub in [
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_DATA_DIR", "data"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
            ("JUPYTERLAB_SETTINGS_DIR", "settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"),
        ]:
            (self.base / sub).mkdir(parents=True, exist_ok=True)
            env[var] = str(self.base / sub)
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env.pop("ANYWIDGET_HMR", None)  # no file-watcher threads in tests
        return env

    def start(self, timeout: float = 90) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        # No "get notified about Jupyter news?" toast over the screenshots.
        settings = self.base / "settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True, exist_ok=True)
        (settings / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False})
        )
        self.port = _free_port()
        cmd = [
            sys.executable,
            "-m",
            self.app,
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.terminals_enabled=False",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
        ]
        if self.app == "jupyterlab":
            cmd.append("--LabApp.expose_app_in_browser=True")
        else:
            cmd.append("--JupyterNotebookApp.expose_app_in_browser=True")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            cmd,
            env=self.env(),
            cwd=self.base,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"{self.app} exited early:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"{self.app} not ready after {timeout}s:\n{self.log_tail()}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            # SIGTERM: the server shuts its kernels down (they run in their own sessions, so
            # killing the process group would orphan them).
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, n: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "<no log>"

    def write_notebook(self, name: str, cells: list[str]) -> str:
        nb = nbformat.v4.new_notebook()
        # without a kernelspec JupyterLab asks for a kernel in a dialog
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        }
        nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        nbformat.write(nb, self.root / name)
        return name

    def contents(self, path: str) -> dict[str, Any] | None:
        """The server's contents API entry for ``path`` (None if there is no such file)."""
        try:
            with urllib.request.urlopen(f"{self.url}/api/contents/{path}?content=1") as response:
                result: dict[str, Any] = json.load(response)
                return result
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise


def _server(app: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer(app, tmp_path_factory.mktemp(app))
    started = time.monotonic()
    server.start()
    print(f"\n[{app}] ready at {server.url} in {time.monotonic() - started:.1f}s")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _server("jupyterlab", tmp_path_factory)


@pytest.fixture(scope="session")
def jupyter_notebook7(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    yield from _server("notebook", tmp_path_factory)


@pytest.fixture
def artifacts_dir(output_path: str) -> Path:
    """This test's folder under pytest-playwright's ``--output`` (test-results/)."""
    path = Path(output_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


class PageWatch:
    """Console errors and requests that leave 127.0.0.1, collected from a page."""

    LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")

    def __init__(self, page: Any) -> None:
        self.console_errors: list[str] = []
        self.external: list[str] = []
        self.page_errors: list[tuple[str, str]] = []  # (message, stack)
        page.on("console", self._on_console)
        page.on("request", self._on_request)
        page.on("pageerror", lambda error: self.page_errors.append((str(error), error.stack or "")))

    def _on_console(self, message: Any) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)

    def _on_request(self, request: Any) -> None:
        if not request.url.startswith(self.LOCAL):
            self.external.append(request.url)

    def check(self, known: tuple[tuple[str, str], ...] = ()) -> None:
        """No request left 127.0.0.1, and no error was logged or thrown, except ``known``
        page errors of the front end itself: ``(message, a part of its stack)``."""
        assert not self.external, f"the browser tried to reach the network: {self.external[:5]}"
        # A broken ES module leaves the output empty; only the console has the error.
        assert not self.console_errors, self.console_errors
        unexpected = [
            (message, stack)
            for message, stack in self.page_errors
            if not any(m == message and where in stack for m, where in known)
        ]
        assert not unexpected, unexpected


@pytest.fixture
def watch(page: Any) -> PageWatch:
    return PageWatch(page)
