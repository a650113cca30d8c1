"""The bash subset that shell-form apply_patch calls are read with: a small tokenizer.

:class:`_Scanner` splits a script into words (quotes removed, with how they were quoted), ``&&``,
heredocs (delimiter, ``<<-`` tab stripping, body) and newlines, and refuses everything else
(other operators, expansions, comments, ``<<<``) by raising :class:`NotRecognised` with the line
and column. :func:`extract_heredoc` reads ``[cd DIR &&] apply_patch <<DELIM`` from its tokens;
:func:`split_command_line` splits ``shell [-NoProfile] flag 'script'`` into its words as bash
would. What is accepted and why is decided in :mod:`.invocation` (its docstring lists the
choices); this module only tokenizes. Pure: no disk, no process, nothing is ever run.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, TypeGuard


class NotRecognised(Exception):
    """The script leaves the bash subset this module understands."""


@dataclass(frozen=True, slots=True)
class _Word:
    text: str  # quotes removed
    quoting: Literal["", "'", '"', "mixed"]  # bare, '...', "...", or several parts
    pos: int


@dataclass(frozen=True, slots=True)
class _AndIf:
    pos: int


@dataclass(frozen=True, slots=True)
class _Newline:
    pos: int


@dataclass(frozen=True, slots=True)
class _Heredoc:
    delimiter: str
    strip_tabs: bool
    body: str | None  # None until the line that holds the operator has ended
    pos: int


_Token: TypeAlias = _Word | _AndIf | _Newline | _Heredoc

_BLANKS: Final = frozenset(" \t")
_METACHARACTERS: Final = frozenset(" \t\n|&;<>()")
_EXPANSIONS: Final = frozenset("$`")
_PATTERN_CHARACTERS: Final = frozenset("*?[{}")
_ESCAPABLE_IN_DOUBLE_QUOTES: Final = frozenset('$`"\\\n')
_OPERATOR_RUN: Final = re.compile(r"[|&;<>()]+")


def _where(src: str, pos: int) -> str:
    line = src.count("\n", 0, pos) + 1
    column = pos - (src.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


class _Scanner:
    """Split a script into words, ``&&``, heredocs and newlines; refuse everything else.

    With ``shell_escapes`` backslashes mean what they mean to bash (for splitting a command
    line); without, any backslash whose meaning a raw reading would get wrong is refused (for
    the script, where Codex reads the raw text of the ``cd`` argument).
    """

    def __init__(self, src: str, *, shell_escapes: bool) -> None:
        self.src = src
        self.pos = 0
        self.shell_escapes = shell_escapes

    def fail(self, what: str, pos: int | None = None) -> NotRecognised:
        return NotRecognised(f"{what} at {_where(self.src, self.pos if pos is None else pos)}")

    def tokens(self) -> list[_Token]:
        src = self.src
        tokens: list[_Token] = []
        pending: tuple[int, _Heredoc] | None = None  # its body starts after this line
        while self.pos < len(src):
            c = src[self.pos]
            if c in _BLANKS:
                self.pos += 1
            elif self.shell_escapes and src.startswith("\\\n", self.pos):
                self.pos += 2
            elif c == "\n":
                tokens.append(_Newline(self.pos))
                self.pos += 1
                if pending is not None:
                    index, heredoc = pending
                    tokens[index] = dataclasses.replace(heredoc, body=self._heredoc_body(heredoc))
                    pending = None
            elif src.startswith("&&", self.pos):
                tokens.append(_AndIf(self.pos))
                self.pos += 2
            elif src.startswith("<<", self.pos):
                if any(isinstance(token, _Heredoc) for token in tokens):
                    raise self.fail("a second heredoc")
                pending = (len(tokens), self._heredoc_operator())
                tokens.append(pending[1])
            elif c in _METACHARACTERS:
                match = _OPERATOR_RUN.match(src, self.pos)
                operator = match.group() if match else c
                raise self.fail(f"the operator {operator!r}")
            elif c == "#":
                raise self.fail("a comment")
            else:
                tokens.append(self._word())
        if pending is not None:
            raise self._unclosed(pending[1])
        return tokens

    def _heredoc_operator(self) -> _Heredoc:
        start = self.pos
        if self.src.startswith("<<<", start):
            raise self.fail("a here-string '<<<'")
        strip_tabs = self.src.startswith("<<-", start)
        self.pos += 3 if strip_tabs else 2
        while self.pos < len(self.src) and self.src[self.pos] in _BLANKS:
            self.pos += 1
        if self.pos == len(self.src) or self.src[self.pos] in _METACHARACTERS:
            raise self.fail("a heredoc operator without a delimiter word", start)
        word = self._word()
        if word.quoting == "mixed":
            raise self.fail("a partly quoted heredoc delimiter", word.pos)
        if not word.text:
            raise self.fail("an empty heredoc delimiter", word.pos)
        return _Heredoc(word.text, strip_tabs, None, start)

    def _heredoc_body(self, heredoc: _Heredoc) -> str:
        src = self.src
        lines: list[str] = []
        while self.pos < len(src):
            end = src.find("\n", self.pos)
            if end < 0:
                end = len(src)
            line = src[self.pos : end]
            self.pos = min(end + 1, len(src))
            if heredoc.strip_tabs:
                line = line.lstrip("\t")
            if line == heredoc.delimiter:
                return "\n".join(lines).rstrip("\n")
            lines.append(line)
        raise self._unclosed(heredoc)

    def _unclosed(self, heredoc: _Heredoc) -> NotRecognised:
        return self.fail(f"a heredoc never closed by a line {heredoc.delimiter!r}", heredoc.pos)

    def _word(self) -> _Word:
        src, start = self.src, self.pos
        parts: list[str] = []
        kinds: list[Literal["", "'", '"']] = []
        while self.pos < len(src) and src[self.pos] not in _METACHARACTERS:
            if src[self.pos] == "'":
                end = src.find("'", self.pos + 1)
                if end < 0:
                    raise self.fail("an unterminated single quote")
                parts.append(src[self.pos + 1 : end])
                kinds.append("'")
                self.pos = end + 1
            elif src[self.pos] == '"':
                parts.append(self._double_quoted())
                kinds.append('"')
            else:
                parts.append(self._bare(at_word_start=self.pos == start))
                kinds.append("")
        quoting: Literal["", "'", '"', "mixed"] = kinds[0] if len(kinds) == 1 else "mixed"
        return _Word("".join(parts), quoting, start)

    def _double_quoted(self) -> str:
        src, start = self.src, self.pos
        self.pos += 1
        out: list[str] = []
        while self.pos < len(src):
            c = src[self.pos]
            if c == '"':
                self.pos += 1
                return "".join(out)
            if c in _EXPANSIONS:
                raise self.fail(f"the expansion character {c!r} in double quotes")
            if c == "\\" and src[self.pos + 1 : self.pos + 2] in _ESCAPABLE_IN_DOUBLE_QUOTES:
                if not self.shell_escapes:
                    raise self.fail("an escape sequence in double quotes")
                if src[self.pos + 1] != "\n":
                    out.append(src[self.pos + 1])
                self.pos += 2
                continue
            # Any other backslash is literal in double quotes, for bash and for a raw reading.
            out.append(c)
            self.pos += 1
        raise self.fail("an unterminated double quote", start)

    def _bare(self, *, at_word_start: bool) -> str:
        src = self.src
        out: list[str] = []
        while self.pos < len(src):
            c = src[self.pos]
            if c in _METACHARACTERS or c in "'\"":
                break
            if c == "\\":
                if not self.shell_escapes:
                    raise self.fail("a backslash outside quotes")
                if self.pos + 1 == len(src):
                    raise self.fail("a backslash at the end of the text")
                if src[self.pos + 1] != "\n":
                    out.append(src[self.pos + 1])
                self.pos += 2
                continue
            if c in _EXPANSIONS:
                raise self.fail(f"the expansion character {c!r}")
            if c in _PATTERN_CHARACTERS:
                raise self.fail(f"the pattern character {c!r}")
            if c == "~" and at_word_start and not out:
                raise self.fail("a leading '~'")
            if c == "\r":
                raise self.fail("a carriage return (CRLF line ends are not supported)")
            if c < " " or c == "\x7f":
                raise self.fail(f"the control character {c!r}")
            out.append(c)
            self.pos += 1
        return "".join(out)


def _describe_token(token: _Token) -> str:
    match token:
        case _Word(text=text):
            return repr(text)
        case _AndIf():
            return "'&&'"
        case _Newline():
            return "a newline"
        case _Heredoc(delimiter=delimiter):
            return f"a heredoc '<<{delimiter}'"


def _is_bare_word(token: _Token | None, names: tuple[str, ...]) -> TypeGuard[_Word]:
    return isinstance(token, _Word) and token.quoting == "" and token.text in names


def extract_heredoc(script: str, commands: tuple[str, ...]) -> tuple[str | None, str]:
    """The ``cd`` directory (or None) and the heredoc body of ``[cd DIR &&] COMMAND <<DELIM``,
    where COMMAND is one of ``commands``; raises :class:`NotRecognised` saying where it differs."""
    tokens = _Scanner(script, shell_escapes=False).tokens()
    while tokens and isinstance(tokens[-1], _Newline):
        tokens.pop()
    stream = iter(tokens)

    def fail(what: str, token: _Token) -> NotRecognised:
        return NotRecognised(f"{what} at {_where(script, token.pos)}")

    def next_token(skip_newlines: bool) -> _Token | None:
        for token in stream:
            if not (skip_newlines and isinstance(token, _Newline)):
                return token
        return None

    workdir: str | None = None
    token = next_token(skip_newlines=True)
    if token is None:
        raise NotRecognised("the script is empty")
    if _is_bare_word(token, ("cd",)):
        directory = next_token(skip_newlines=False)
        if not isinstance(directory, _Word):
            raise fail("'cd' without a directory", token)
        if directory.quoting == "mixed":
            raise fail("a directory made of several quoted or unquoted parts", directory)
        if not directory.text or directory.text.startswith("-"):
            raise fail(f"the cd argument {directory.text!r}", directory)
        connector = next_token(skip_newlines=False)
        if isinstance(connector, _Word):
            raise fail(f"a second cd argument {connector.text!r}", connector)
        if not isinstance(connector, _AndIf):
            raise fail("'cd DIR' not followed by '&&'", directory)
        workdir = directory.text
        token = next_token(skip_newlines=True)
        if token is None:
            raise fail("nothing after '&&'", connector)
    if not _is_bare_word(token, commands):
        expected = "apply_patch" if workdir is not None else "'cd' or apply_patch"
        raise fail(f"{_describe_token(token)} where {expected} was expected", token)
    heredoc = next_token(skip_newlines=False)
    if isinstance(heredoc, _Word):
        raise fail(f"the argument {heredoc.text!r} to {token.text}", heredoc)
    if not isinstance(heredoc, _Heredoc) or heredoc.body is None:
        raise fail(f"{token.text} without a heredoc", token)
    rest = next_token(skip_newlines=True)
    if rest is not None:
        raise fail(f"{_describe_token(rest)} after the heredoc", rest)
    return workdir, heredoc.body


def split_command_line(text: str) -> tuple[str, ...]:
    """Split ``shell flag 'script'`` into its words, as bash would (no expansions allowed)."""
    tokens = _Scanner(text, shell_escapes=True).tokens()
    while tokens and isinstance(tokens[-1], _Newline):
        tokens.pop()
    words: list[_Word] = []
    for token in tokens:
        if not isinstance(token, _Word):
            raise NotRecognised(f"{_describe_token(token)} at {_where(text, token.pos)}")
        words.append(token)
    if len(words) not in (3, 4):
        raise NotRecognised(f"{len(words)} words instead of 3 or 4")
    if text[words[-1].pos] not in "'\"":
        raise NotRecognised(f"the script {words[-1].text!r} is not quoted")
    return tuple(word.text for word in words)
