"""Text primitives that must behave like Rust's standard library, not like Python's.

What this module does: the Unicode ``White_Space`` trim sets used by Rust's ``str::trim``
(Python's ``str.strip()`` also strips U+001C-U+001F), Rust's ``str::lines`` splitting, the
line-with-terminator split used by the line-ending preserving mode, strict UTF-8 decoding with
Rust's error texts, and Rust's formatting of OS errors (``<strerror> (os error <n>)``). And the
one way every message of the package counts things in English (:func:`plural`: ``1 file``,
``2 files``).

What it does not do: any patch grammar or file access.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Final

#: Characters with the Unicode ``White_Space`` property, as used by Rust's ``str::trim``.
RUST_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)


class LineEndings(StrEnum):
    """How an Update rebuilds a file (docs/behaviour.md §4): keep each line's terminator, or
    normalise to LF."""

    PRESERVE = "preserve"
    LF = "lf"


def rust_trim(text: str) -> str:
    """Strip Unicode White_Space from both ends, exactly like Rust's ``str::trim``."""
    return text.strip(RUST_WHITESPACE)


def rust_rtrim(text: str) -> str:
    """Strip Unicode White_Space from the end, exactly like Rust's ``str::trim_end``."""
    return text.rstrip(RUST_WHITESPACE)


def rust_lines(text: str) -> list[str]:
    """Split like Rust's ``str::lines``: on ``\\n`` only, dropping one ``\\r`` before each.

    A final ``\\n`` does not produce an empty last element and the empty string has no lines.
    """
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return lines


def split_terminated_lines(text: str) -> tuple[list[str], list[str]]:
    """Split into logical lines and their terminators (CRLF, lone CR, LF, or ``""``).

    Returns two parallel lists. A final unterminated fragment is a line with terminator ``""``.
    """
    if "\r" not in text:
        # The common case: one C-level split.
        lines = text.split("\n")
        last = lines.pop()
        terminators = ["\n"] * len(lines)
        if last:
            lines.append(last)
            terminators.append("")
        return lines, terminators
    n_crlf = text.count("\r\n")
    if text.count("\r") == n_crlf:
        # Every CR begins a CRLF: split on LF and give back the CR of the lines that had one.
        if n_crlf == text.count("\n"):
            lines = text.split("\r\n")
            last = lines.pop()
            terminators = ["\r\n"] * len(lines)
        else:
            lines = text.split("\n")
            last = lines.pop()
            terminators = ["\r\n" if line.endswith("\r") else "\n" for line in lines]
            lines = [line[:-1] if line.endswith("\r") else line for line in lines]
        if last:
            lines.append(last)
            terminators.append("")
        return lines, terminators
    return _split_with_lone_cr(text)


def _split_with_lone_cr(text: str) -> tuple[list[str], list[str]]:
    """:func:`split_terminated_lines` for a text with a lone CR somewhere: line by line."""
    lines: list[str] = []
    terminators: list[str] = []
    pos = 0
    end = len(text)
    while pos < end:
        nl = text.find("\n", pos)
        cr = text.find("\r", pos, nl if nl >= 0 else end)
        if cr >= 0:
            lines.append(text[pos:cr])
            if cr + 1 < end and text[cr + 1] == "\n":
                terminators.append("\r\n")
                pos = cr + 2
            else:
                terminators.append("\r")
                pos = cr + 1
        elif nl >= 0:
            lines.append(text[pos:nl])
            terminators.append("\n")
            pos = nl + 1
        else:
            lines.append(text[pos:])
            terminators.append("")
            pos = end
    return lines, terminators


class Utf8DecodeError(ValueError):
    """Strict UTF-8 decoding failed; ``str()`` is Rust's ``Utf8Error`` text."""


def decode_utf8(data: bytes) -> str:
    """Decode strict UTF-8 (a BOM is kept as U+FEFF), raising :class:`Utf8DecodeError`."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":
            raise Utf8DecodeError(
                f"incomplete utf-8 byte sequence from index {exc.start}"
            ) from None
        raise Utf8DecodeError(
            f"invalid utf-8 sequence of {exc.end - exc.start} bytes from index {exc.start}"
        ) from None


def format_io_error(exc: BaseException) -> str:
    """Format an error the way Rust displays an ``io::Error``.

    OS errors become ``<strerror> (os error <errno>)``; errors without an errno (custom
    ``io::Error`` values in Rust, such as the size limit or invalid UTF-8) show their message.
    """
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"{os.strerror(exc.errno)} (os error {exc.errno})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and its noun in English: ``1 file``, ``2 files``, ``0 files``; ``nouns`` is the
    plural when it is not ``noun`` + ``s`` (``plural(n, "file or chunk", "files or chunks")``)."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"
