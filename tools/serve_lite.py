"""Serve the built JupyterLite site (``make lite-serve``): a plain static server on 127.0.0.1.

No Jupyter server: the site is files only, the kernel runs in the browser (Pyodide). The types
Pyodide needs are set whatever the machine's ``mimetypes`` tables say (``.wasm`` must be
``application/wasm`` for streaming compilation, ``.mjs`` a JavaScript type for module imports).

Usage: ``python tools/serve_lite.py [--port 8000] [--directory build/lite]``.
"""

from __future__ import annotations

import argparse
import functools
import http.server
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".ipynb": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 - typeshed declares it an instance attribute
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        **TYPES,
    }

    def log_message(self, format: str, *args: object) -> None:
        if isinstance(self.server, Server) and self.server.quiet:
            return
        super().log_message(format, *args)


class Server(http.server.ThreadingHTTPServer):
    """The threading server, which may be told to log no request (``quiet``)."""

    quiet = False


def make_server(directory: Path, port: int = 0, *, quiet: bool = False) -> http.server.HTTPServer:
    """A threading static server of ``directory`` on 127.0.0.1 (``port`` 0: a free one)."""
    handler = functools.partial(Handler, directory=str(directory))
    server = Server(("127.0.0.1", port), handler)
    server.quiet = quiet
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--directory", type=Path, default=ROOT / "build" / "lite")
    args = parser.parse_args()
    if not (args.directory / "index.html").is_file():
        raise SystemExit(f"no site in {args.directory}: run `make lite` first")
    server = make_server(args.directory, args.port)
    host, port = server.server_address[:2]
    assert isinstance(host, str)  # an AF_INET address (bytes are for AF_UNIX)
    print(f"serving {args.directory} at http://{host}:{port}/lab/index.html (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
