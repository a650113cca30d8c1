"""Decode the ``input`` of a function call's JSON arguments while they stream in.

A function-tool apply_patch call streams ``{"input": "<patch>"}`` as JSON text in pieces
(``response.function_call_arguments.delta``); :class:`ArgumentsInputDecoder` turns each piece
into the patch characters it completes, so the pipeline can preview the patch as it arrives, and
checks the whole text with ``json.loads`` at the end. A small state machine, one step per state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._json import loads as json_loads


class ResponseItemError(ValueError):
    """An item that claims to be an apply_patch call but cannot be one (bad arguments...)."""


_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r"}
_ESCAPES["t"] = "\t"
_BLANKS: Final = " \t\r\n"
_WAIT: Final = -1


class ArgumentsInputDecoder:
    """Decodes the ``input`` string of a JSON arguments object as its text arrives.

    ``feed(chunk)`` returns the newly decoded characters of the top-level ``input`` value (an
    empty string while other keys, or an incomplete escape, are read); ``close()`` checks the
    whole text with ``json.loads`` and returns the input (raising :class:`ResponseItemError`
    when it is not a JSON object with a string ``input``).
    """

    def __init__(self) -> None:
        self._raw: list[str] = []
        self._buffer = ""
        self._state = "start"  # start, key, colon, value, input, skip, after, done
        self._key: list[str] = []
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._decoded: list[str] = []
        self._pending_high: int | None = None

    def feed(self, chunk: str) -> str:
        self._raw.append(chunk)
        self._buffer += chunk
        out: list[str] = []
        self._run(out)
        text = "".join(out)
        self._decoded.append(text)
        return text

    def close(self) -> str:
        raw = "".join(self._raw)
        try:
            value = json_loads(raw)
        except ValueError as exc:
            raise ResponseItemError(f"function call arguments are not JSON: {exc}") from None
        if not isinstance(value, dict) or not isinstance(value.get("input"), str):
            raise ResponseItemError('function call arguments must be {"input": "<patch>"}')
        text: str = value["input"]
        return text

    @property
    def decoded(self) -> str:
        return "".join(self._decoded)

    def _run(self, out: list[str]) -> None:
        """Consume the buffer as far as it goes; an incomplete escape waits for more text."""
        buf = self._buffer
        i = 0
        while i < len(buf):
            step = _STEPS[self._state]
            j = step(self, buf, i, out)
            if j == _WAIT:
                break
            i = j
        self._buffer = buf[i:]

    def _stop(self, buf: str) -> int:
        """Not the shape that is streamed: read nothing more (``close()`` says why)."""
        self._state = "done"
        return len(buf)

    def _between(self, buf: str, i: int, out: list[str]) -> int:
        """``start``, ``colon`` and ``after``: blanks, then ``{``, ``:`` or ``,``."""
        c = buf[i]
        if c in _BLANKS:
            return i + 1
        expected = {"start": "{", "colon": ":", "after": ","}[self._state]
        if c != expected:
            return self._stop(buf)
        self._state = "value" if c == ":" else "before-key"
        return i + 1

    def _before_key(self, buf: str, i: int, out: list[str]) -> int:
        c = buf[i]
        if c in _BLANKS:
            return i + 1
        if c != '"':
            return self._stop(buf)
        self._state = "key"
        self._key = []
        return i + 1

    def _key_char(self, buf: str, i: int, out: list[str]) -> int:
        c = buf[i]
        if c == "\\":
            if i + 1 >= len(buf):
                return _WAIT
            self._key.append(buf[i : i + 2])
            return i + 2
        if c == '"':
            self._state = "colon"
        else:
            self._key.append(c)
        return i + 1

    def _value(self, buf: str, i: int, out: list[str]) -> int:
        c = buf[i]
        if c in _BLANKS:
            return i + 1
        if c == '"' and "".join(self._key) == "input":
            self._state = "input"
            return i + 1
        self._state = "skip"
        self._depth = 0
        self._in_string = False
        self._escape = False
        return i

    def _input(self, buf: str, i: int, out: list[str]) -> int:
        c = buf[i]
        if c == "\\":
            consumed = self._escape_sequence(buf, i, out)
            return _WAIT if consumed == 0 else i + consumed
        if c == '"':
            self._state = "after"
            return i + 1
        j = i
        n = len(buf)
        while j < n and buf[j] not in '\\"':
            j += 1
        out.append(buf[i:j])
        return j

    def _skip(self, buf: str, i: int, out: list[str]) -> int:
        """Step over another key's value, strings and nesting included."""
        c = buf[i]
        if self._in_string:
            if self._escape:
                self._escape = False
            elif c == "\\":
                self._escape = True
            elif c == '"':
                self._in_string = False
                if self._depth == 0:
                    self._state = "after"
            return i + 1
        if c == '"':
            self._in_string = True
        elif c in "{[":
            self._depth += 1
        elif c in "}]":
            if self._depth == 0:
                return self._stop(buf)
            self._depth -= 1
            if self._depth == 0:
                self._state = "after"
        elif c == "," and self._depth == 0:
            self._state = "after"
            return i
        return i + 1

    def _done(self, buf: str, i: int, out: list[str]) -> int:
        return len(buf)

    def _escape_sequence(self, buf: str, i: int, out: list[str]) -> int:
        """Decode the escape at ``buf[i]``; 0 when it is not complete yet."""
        if i + 1 >= len(buf):
            return 0
        code = buf[i + 1]
        if code != "u":
            out.append(_ESCAPES.get(code, code))
            return 2
        if i + 6 > len(buf):
            return 0
        try:
            value = int(buf[i + 2 : i + 6], 16)
        except ValueError:
            out.append(buf[i : i + 6])
            return 6
        if 0xD800 <= value < 0xDC00:
            self._pending_high = value
            return 6
        if 0xDC00 <= value < 0xE000 and self._pending_high is not None:
            high, self._pending_high = self._pending_high, None
            out.append(chr(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00)))
            return 6
        out.append(chr(value))
        return 6


#: The decoder's step for each state (``_run`` dispatches on it; each step returns where the next
#: one starts, or ``_WAIT`` for an escape that is not complete yet).
_STEPS: Final[dict[str, Callable[[ArgumentsInputDecoder, str, int, list[str]], int]]] = {
    "start": ArgumentsInputDecoder._between,
    "colon": ArgumentsInputDecoder._between,
    "after": ArgumentsInputDecoder._between,
    "before-key": ArgumentsInputDecoder._before_key,
    "key": ArgumentsInputDecoder._key_char,
    "value": ArgumentsInputDecoder._value,
    "input": ArgumentsInputDecoder._input,
    "skip": ArgumentsInputDecoder._skip,
    "done": ArgumentsInputDecoder._done,
}
