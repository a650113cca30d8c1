"""The ``apply_patch`` command: a drop-in for the Codex standalone executable (docs/behaviour.md
§5.5).

One argument is the patch; without arguments the patch is read from stdin. It parses leniently
(a heredoc-wrapped patch works) and applies hunk by hunk without a verification step, printing
the reference's texts and exiting 0 (success), 1 (bad patch or failed application) or 2 (usage).

The line-ending mode comes from ``APPLYPATCH_LINE_ENDINGS`` (``preserve``, the default, or
``lf``), so that the argument handling stays identical to the reference.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence

from .core.apply.runtime import NOT_UTF8_PATCH
from .core.apply.standalone import apply_patch
from .core.text import LineEndings, format_io_error

USAGE = "Usage: apply_patch 'PATCH'\n       echo 'PATCH' | apply_patch\n"
LINE_ENDINGS_VARIABLE = "APPLYPATCH_LINE_ENDINGS"


def _write(stream: object, text: str) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(text.encode("utf-8", "surrogateescape"))
        buffer.flush()
    else:  # a text-only stream, e.g. under a test harness
        stream.write(text)  # type: ignore[attr-defined]


def _read_stdin() -> str:
    if sys.stdin is None:  # fd 0 was closed when the interpreter started: nothing to read
        return ""
    try:
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
    except OSError as exc:
        if exc.errno == errno.EBADF:
            # Rust's stdin reads a closed or write-only fd 0 as empty (it handles EBADF so),
            # so the reference prints its usage text there.
            return ""
        raise
    if isinstance(data, str):
        return data
    return data.decode("utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool; return the exit code (the console script exits with it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    mode_text = os.environ.get(LINE_ENDINGS_VARIABLE, LineEndings.PRESERVE.value)
    try:
        mode = LineEndings(mode_text)
    except ValueError:
        _write(
            sys.stderr,
            f"Error: {LINE_ENDINGS_VARIABLE} must be 'preserve' or 'lf', got '{mode_text}'.\n",
        )
        return 2

    if len(args) > 1:
        _write(sys.stderr, "Error: apply_patch accepts exactly one argument.\n")
        return 2
    if args:
        patch = args[0]
        try:
            patch.encode("utf-8")
        except UnicodeEncodeError:
            _write(sys.stderr, NOT_UTF8_PATCH + "\n")
            return 1
    else:
        try:
            patch = _read_stdin()
        except (OSError, UnicodeDecodeError) as exc:
            reason = (
                "stream did not contain valid UTF-8"
                if isinstance(exc, UnicodeDecodeError)
                else format_io_error(exc)
            )
            _write(sys.stderr, f"Error: Failed to read PATCH from stdin.\n{reason}\n")
            return 1
        if not patch:
            _write(sys.stderr, USAGE)
            return 2

    try:
        cwd = os.getcwd()
    except OSError as exc:
        # Rust's io::Error text: "No such file or directory (os error 2)" for a deleted cwd.
        _write(
            sys.stderr, f"Error: Failed to determine current directory.\n{format_io_error(exc)}\n"
        )
        return 1

    result = apply_patch(patch, cwd, line_endings=mode)
    if result.stdout:
        _write(sys.stdout, result.stdout)
    if result.stderr:
        _write(sys.stderr, result.stderr)
    return result.exit_code


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
