"""Rust-compatible text primitives."""

from __future__ import annotations

import errno

import pytest

from applypatch_ext.core.apply.fs import FileTooLargeError, NulInPathError
from applypatch_ext.core.text import (
    Utf8DecodeError,
    decode_utf8,
    format_io_error,
    plural,
    rust_lines,
    rust_rtrim,
    rust_trim,
    split_terminated_lines,
)


def test_trim_uses_rust_white_space_not_python_strip() -> None:
    # U+001C..U+001F are stripped by str.strip() but are not White_Space.
    assert rust_trim("\x1c x \x1f") == "\x1c x \x1f"
    assert rust_trim("\u3000\u2028 x\u00a0\u0085") == "x"
    assert rust_rtrim("  x \t\r") == "  x"
    assert "\u200b" in rust_trim("\u200bx")  # zero-width space is not White_Space


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\n\n", ["a", ""]),
        ("a\r\nb\r\n", ["a", "b"]),
        ("a\r\r\n", ["a\r"]),
        ("a\rb", ["a\rb"]),
        ("a\x0bb\x85c\u2028d", ["a\x0bb\x85c\u2028d"]),
    ],
    ids=["empty", "one", "final-lf", "blank-last", "crlf", "double-cr", "lone-cr", "no-split"],
)
def test_rust_lines(text: str, lines: list[str]) -> None:
    assert rust_lines(text) == lines


@pytest.mark.parametrize(
    ("text", "lines", "terminators"),
    [
        ("", [], []),
        ("a\nb", ["a", "b"], ["\n", ""]),
        (
            "one\r\ntwo\rthree\nfour\r\n",
            ["one", "two", "three", "four"],
            ["\r\n", "\r", "\n", "\r\n"],
        ),
        ("\r\r\n", ["", ""], ["\r", "\r\n"]),
        ("x\r", ["x"], ["\r"]),
    ],
    ids=["empty", "unterminated", "mixed", "cr-then-crlf", "final-cr"],
)
def test_split_terminated_lines(text: str, lines: list[str], terminators: list[str]) -> None:
    assert split_terminated_lines(text) == (lines, terminators)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"ab\xff", "invalid utf-8 sequence of 1 bytes from index 2"),
        (b"\xe2\x82x", "invalid utf-8 sequence of 2 bytes from index 0"),
        (b"ok\xe2\x82", "incomplete utf-8 byte sequence from index 2"),
        (b"\xed\xa0\x80", "invalid utf-8 sequence of 1 bytes from index 0"),
    ],
    ids=["bad-byte", "bad-continuation", "truncated", "surrogate"],
)
def test_utf8_errors_use_rust_texts(data: bytes, message: str) -> None:
    with pytest.raises(Utf8DecodeError) as info:
        decode_utf8(data)
    assert str(info.value) == message


def test_bom_is_kept() -> None:
    assert decode_utf8(b"\xef\xbb\xbfx") == "\ufeffx"


def test_os_errors_are_formatted_like_rust() -> None:
    assert format_io_error(FileNotFoundError(errno.ENOENT, "x")) == (
        "No such file or directory (os error 2)"
    )
    assert format_io_error(IsADirectoryError(errno.EISDIR, "x")) == "Is a directory (os error 21)"
    assert format_io_error(FileTooLargeError()) == (
        "file is too large to read: limit is 536870912 bytes"
    )
    assert format_io_error(NulInPathError()) == "file name contained an unexpected NUL byte"


@pytest.mark.parametrize(
    ("count", "words", "said"),
    [
        (0, ("file",), "0 files"),
        (1, ("file",), "1 file"),
        (2, ("more line",), "2 more lines"),
        (1, ("file or chunk", "files or chunks"), "1 file or chunk"),
        (3, ("file or chunk", "files or chunks"), "3 files or chunks"),
    ],
)
def test_plural_counts_in_english(count: int, words: tuple[str, ...], said: str) -> None:
    assert plural(count, *words) == said
