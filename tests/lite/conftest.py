"""The JupyterLite site (``make lite``) served by a plain static server on 127.0.0.1.

No Jupyter server runs: the site is files, the kernel is Pyodide in the page's web worker.
Locally the tests skip when ``build/lite/`` has not been built (the build downloads ~40 MB and
takes a minute); under CI the site is built here when absent, and a failed build fails.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Chromium as in the JupyterLab browser tests (Debian's, never one of Playwright's own).
from ..conftest import on_ci
from ..jupyter.conftest import artifacts_dir, browser_context_args, browser_type_launch_args

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "lite"
sys.path.insert(0, str(ROOT / "tools"))
from serve_lite import make_server  # noqa: E402

__all__ = ["artifacts_dir", "browser_context_args", "browser_type_launch_args"]


@pytest.fixture(scope="session")
def lite_site() -> Path:
    if not (SITE / "index.html").is_file():
        if not on_ci():
            pytest.skip(f"no JupyterLite site in {SITE}: build it with `make lite` (CI does)")
        subprocess.run(
            [sys.executable, str(ROOT / "tools" / "build_lite.py"), "--output", str(SITE)],
            check=True,
        )
    return SITE


@pytest.fixture(scope="session")
def lite_url(lite_site: Path) -> Iterator[str]:
    server = make_server(lite_site, 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    assert isinstance(host, str)  # an AF_INET address (bytes are for AF_UNIX)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class SiteWatch:
    """What the browser asked for outside 127.0.0.1 (the page, its workers and the service
    worker: the whole context), the failed or refused requests, and the console errors."""

    LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")

    def __init__(self, context: Any, page: Any) -> None:
        self.external: list[str] = []
        self.failed: list[str] = []
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        context.on("request", self._on_request)
        context.on("response", self._on_response)
        page.on("console", self._on_console)
        page.on("pageerror", lambda error: self.page_errors.append(f"{error}\n{error.stack}"))

    def _on_request(self, request: Any) -> None:
        if not request.url.startswith(self.LOCAL):
            self.external.append(request.url)

    def _on_response(self, response: Any) -> None:
        if response.status >= 400:
            self.failed.append(f"{response.status} {response.url}")

    def _on_console(self, message: Any) -> None:
        if message.type == "error":
            self.console_errors.append(message.text)
