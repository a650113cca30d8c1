"""Recognise a command line that invokes apply_patch (docs/behaviour.md §1.3).

A model that runs a shell command may be calling apply_patch; :func:`maybe_parse_apply_patch`
decides from the argv, :func:`parse_command_line` from one command string (a cell body). The
result is one of four records: :class:`NotApplyPatch` (run the command normally),
:class:`ApplyPatchInvocation` (the parsed patch and the ``cd`` directory),
:class:`InvocationParseError` (apply_patch was called, the patch does not parse) and
:class:`ImplicitInvocation` (a bare patch was given as the command).

Recognised argv forms:

* ``[apply_patch|applypatch, <patch>]``: the argument is the patch (the lenient ``<<'EOF'``
  wrapper of docs/behaviour.md §1.2 applies);
* ``[shell, flag, script]`` and ``[shell, -NoProfile, flag, script]``, where the shell's file
  name without extension, ASCII lower-cased (``/usr/bin/bash``, ``bash.exe``, ``C:\\x\\cmd.exe``;
  both ``/`` and ``\\`` separate directories) is ``bash``, ``zsh`` or ``sh`` with ``-lc`` or
  ``-c``; ``pwsh`` or ``powershell`` with ``-Command``; or ``cmd`` with ``/c`` (PowerShell and cmd
  flags in any case; ``-NoProfile`` only for PowerShell). Whatever the shell, the script is read
  with bash's rules and must be exactly one of::

      apply_patch <<DELIM            cd DIR && apply_patch <<DELIM
      ...patch...                    ...patch...
      DELIM                          DELIM

  ``applypatch`` works too. Blanks and blank lines around the statement, a newline after ``&&``
  and ``<<`` glued to the command are allowed. ``DELIM`` is any non-empty word, bare or
  entirely in ``'...'`` or ``"..."``. ``DIR`` is one bare word, one ``'...'`` string or one
  ``"..."`` string, quotes removed; it becomes ``workdir`` unresolved (docs/behaviour.md §5.1
  resolves it). The heredoc body loses all its trailing newlines and goes to
  :func:`~.parser.parse_patch`.

* The implicit-invocation guard comes first: a one-element argv that parses as a patch, or a
  recognised shell form whose whole script parses as a patch, is :class:`ImplicitInvocation`.

One command string (:func:`parse_command_line`, for a cell body): text whose first word is
apply_patch, applypatch or ``cd`` is taken as the script of ``[bash, -lc, text]``; text whose first
word names one of the shells above is split into words with bash's quoting rules (``'...'``,
``"..."``, backslashes; no expansion) and must be ``shell [-NoProfile] flag <one quoted script>``.
A raw patch (``*** Begin Patch``, or the lenient ``<<'EOF'`` wrapper) is :class:`NotApplyPatch`:
the caller parses it with :func:`~.parser.parse_patch`. ``shlex`` is not used
for the split because its argv can differ from the shell's (it keeps ``\\$`` in double quotes,
leaves ``$x`` unexpanded, glues ``;`` to a word and takes a newline for a blank); here any
expansion or operator makes the text unrecognised.

Not recognised (:class:`NotApplyPatch`, with a ``reason``): every other argv; a script with
``;``, ``|``, ``||``, ``&``, other redirections, a comment, a second command (before, after,
``cd a && cd b``), a ``cd`` with no or two arguments, arguments to apply_patch, a second heredoc,
``<<<``, or a heredoc that no line closes. The tokenizer knows only words, quotes, ``&&``,
heredocs and newlines; anything else it meets makes the script unrecognised.

Decisions where bash, Codex's tree-sitter grammar and this module could differ:

* The body is taken verbatim whatever the delimiter's quoting: the script is never run, so an
  unquoted ``<<EOF`` does not expand ``$x`` in the patch (as in Codex).
* ``<<-DELIM`` is accepted with bash's meaning: leading tabs are removed from every body line and
  from the closing line (Codex would keep the tabs and usually fail to parse the patch).
* The closing line must be exactly the delimiter, as in bash (tree-sitter also ends the body at
  a line that merely starts with it, or has trailing blanks); a missing closing line is not
  recognised (tree-sitter would take the rest of the script as the body).
* The ``cd`` directory must mean the same to bash as its text: no ``$`` or backquote (tree-sitter
  would cut ``"a$b"`` to ``a``), no backslash in a bare word and no ``\\"``-style escape in
  double quotes, no glob or brace characters (``*?[{}``) or leading ``~``, not empty and not
  starting with ``-`` (bash would read an option or ``cd -``).
* ``\\r`` is not a blank (bash agrees, tree-sitter does not): scripts with CRLF line ends are not
  recognised. An empty body is recognised and fails to parse (:class:`InvocationParseError`).
* Arguments to apply_patch and assignments before it (``FOO=1 apply_patch``) are refused in both
  forms (tree-sitter lets ``cd x && apply_patch foo <<EOF`` and the assignment through).
* There is no "shell parse error" outcome: Codex's only come from loading its grammar and from
  non-UTF-8 text, neither of which can happen here.

Nothing here touches the disk.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import ClassVar, Final, Literal, TypeAlias, TypeGuard

from ..errors import ApplyPatchError, ParseError
from ..text import rust_trim
from .model import BEGIN_PATCH_MARKER, AddFile, DeleteFile, Hunk, ParsedPatch, UpdateFile
from .parser import parse_patch

__all__ = [
    "APPLY_PATCH_COMMANDS",
    "IMPLICIT_INVOCATION_MESSAGE",
    "ApplyPatchInvocation",
    "ImplicitInvocation",
    "ImplicitInvocationError",
    "Invocation",
    "InvocationParseError",
    "NotApplyPatch",
    "maybe_parse_apply_patch",
    "parse_command_line",
]

APPLY_PATCH_COMMANDS: Final = ("apply_patch", "applypatch")

IMPLICIT_INVOCATION_MESSAGE: Final = (
    'patch detected without explicit call to apply_patch. Rerun as ["apply_patch", "<patch>"]'
)


class ImplicitInvocationError(ApplyPatchError):
    """A patch was given as the command itself instead of as apply_patch's argument."""

    def __init__(self) -> None:
        super().__init__(IMPLICIT_INVOCATION_MESSAGE)


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NotApplyPatch:
    """The command is not an apply_patch call: run it normally.

    ``reason`` says why, for display only; it takes no part in equality.
    """

    reason: str = field(default="", compare=False)

    kind: ClassVar[Literal["not_apply_patch"]] = "not_apply_patch"
    is_error: ClassVar[bool] = False
    message: ClassVar[None] = None

    def describe(self) -> str:
        text = "not an apply_patch invocation"
        return f"{text}: {self.reason}" if self.reason else text


@dataclass(frozen=True, slots=True)
class ApplyPatchInvocation:
    """An apply_patch call whose patch parsed.

    ``workdir`` is the ``cd`` argument as written (``parsed.workdir`` holds the same value);
    ``script`` is the shell script the patch came from, or None for ``[apply_patch, <patch>]``.
    """

    parsed: ParsedPatch
    workdir: str | None = None
    script: str | None = None

    kind: ClassVar[Literal["apply_patch"]] = "apply_patch"
    is_error: ClassVar[bool] = False
    message: ClassVar[None] = None

    def describe(self) -> str:
        hunks = self.parsed.hunks
        count = f"{len(hunks)} hunk" + ("" if len(hunks) == 1 else "s")
        text = f"apply_patch with {count}"
        if hunks:
            text += " (" + ", ".join(_describe_hunk(hunk) for hunk in hunks) + ")"
        if self.parsed.environment_id is not None:
            text += f" for environment {self.parsed.environment_id!r}"
        if self.workdir is not None:
            text += f" in directory {self.workdir!r}"
        if self.script is not None:
            text += ", from a shell heredoc"
        return text


@dataclass(frozen=True, slots=True)
class InvocationParseError:
    """An apply_patch call whose patch does not parse; ``message`` is the parse error's text."""

    error: ParseError

    kind: ClassVar[Literal["parse_error"]] = "parse_error"
    is_error: ClassVar[bool] = True

    @property
    def message(self) -> str:
        return str(self.error)

    def describe(self) -> str:
        return f"apply_patch invocation whose patch does not parse: {self.message}"


@dataclass(frozen=True, slots=True)
class ImplicitInvocation:
    """A bare patch given as the command (docs/behaviour.md §1.3, implicit invocation guard)."""

    kind: ClassVar[Literal["implicit_invocation"]] = "implicit_invocation"
    is_error: ClassVar[bool] = True
    message: ClassVar[str] = IMPLICIT_INVOCATION_MESSAGE

    @property
    def error(self) -> ImplicitInvocationError:
        return ImplicitInvocationError()

    def describe(self) -> str:
        return self.message


Invocation: TypeAlias = (
    NotApplyPatch | ApplyPatchInvocation | InvocationParseError | ImplicitInvocation
)


def _describe_hunk(hunk: Hunk) -> str:
    match hunk:
        case AddFile(path=path):
            return f"add {path}"
        case DeleteFile(path=path):
            return f"delete {path}"
        case UpdateFile(path=path, move_path=None):
            return f"update {path}"
        case UpdateFile(path=path, move_path=move_path):
            return f"update {path} -> {move_path}"


# --- entry points ----------------------------------------------------------------------------


def maybe_parse_apply_patch(argv: Sequence[str]) -> Invocation:
    """Classify an argv as an apply_patch call (docs/behaviour.md §1.3), parsing its patch if it is
    one."""
    if isinstance(argv, str):
        raise TypeError("argv must be a sequence of arguments; use parse_command_line for text")
    args = tuple(argv)
    script = _shell_script(args)
    if (len(args) == 1 and _is_patch(args[0])) or (script is not None and _is_patch(script)):
        return ImplicitInvocation()
    if len(args) == 2 and args[0] in APPLY_PATCH_COMMANDS:
        return _parse_body(args[1], workdir=None, script=None)
    if script is None:
        return NotApplyPatch(_unrecognised_argv_reason(args))
    try:
        workdir, body = _extract_heredoc(script)
    except _NotRecognised as exc:
        return NotApplyPatch(f"the script is not `[cd DIR &&] apply_patch <<DELIM`: {exc}")
    return _parse_body(body, workdir=workdir, script=script)


def parse_command_line(text: str) -> Invocation:
    """Classify one command string (a cell body, a model's shell command).

    Text starting with ``apply_patch``, ``applypatch`` or ``cd`` is taken as a bash script;
    text starting with a recognised shell and its flag must continue with one quoted script
    argument, and is split into an argv with bash's quoting rules (without any expansion).
    A raw patch (``*** Begin Patch``, or a ``<<'EOF'`` wrapper) is not a shell command:
    parse it with :func:`~.parser.parse_patch`.
    """
    stripped = rust_trim(text)
    if stripped.startswith((BEGIN_PATCH_MARKER, "<<")):
        return NotApplyPatch("a raw patch, not a shell command; parse it with parse_patch")
    first = stripped.split(maxsplit=1)[0] if stripped else ""
    if stripped.startswith(APPLY_PATCH_COMMANDS) or first == "cd":
        return maybe_parse_apply_patch(("bash", "-lc", text))
    if _shell_family(first) is None:
        return NotApplyPatch(f"{first!r} is neither apply_patch, cd nor a known shell")
    try:
        argv = _split_command_line(stripped)
    except _NotRecognised as exc:
        return NotApplyPatch(f"not a shell command with one quoted script: {exc}")
    return maybe_parse_apply_patch(argv)


def _parse_body(body: str, workdir: str | None, script: str | None) -> Invocation:
    try:
        parsed = parse_patch(body)
    except ParseError as exc:
        return InvocationParseError(exc)
    if workdir is not None:
        parsed = dataclasses.replace(parsed, workdir=workdir)
    return ApplyPatchInvocation(parsed, workdir, script)


def _is_patch(text: str) -> bool:
    try:
        parse_patch(text)
    except ParseError:
        return False
    return True


# --- argv shapes -----------------------------------------------------------------------------

_UNIX_FLAGS: Final = ("-lc", "-c")


def _ascii_lower(text: str) -> str:
    # Rust's to_ascii_lowercase: str.lower() would also fold non-ASCII letters.
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _shell_family(program: str) -> Literal["unix", "powershell", "cmd"] | None:
    """The family of a shell named by path or file name, from its stem (Rust's file_stem)."""
    name = PurePosixPath(program.replace("\\", "/")).name
    if name in ("", ".."):
        return None
    dot = name.rfind(".")
    stem = _ascii_lower(name[:dot] if dot > 0 else name)
    if stem in ("bash", "zsh", "sh"):
        return "unix"
    if stem in ("pwsh", "powershell"):
        return "powershell"
    if stem == "cmd":
        return "cmd"
    return None


def _takes_script(program: str, flag: str) -> bool:
    match _shell_family(program):
        case "unix":
            return flag in _UNIX_FLAGS
        case "powershell":
            return _ascii_lower(flag) == "-command"
        case "cmd":
            return _ascii_lower(flag) == "/c"
        case None:
            return False


def _shell_script(args: tuple[str, ...]) -> str | None:
    """The script of ``[shell, flag, script]`` or ``[pwsh, -NoProfile, flag, script]``."""
    match args:
        case (program, flag, script) if _takes_script(program, flag):
            return script
        case (program, no_profile, flag, script) if (
            _shell_family(program) == "powershell"
            and _ascii_lower(no_profile) == "-noprofile"
            and _takes_script(program, flag)
        ):
            return script
    return None


def _unrecognised_argv_reason(args: tuple[str, ...]) -> str:
    if not args:
        return "the command is empty"
    if len(args) in (3, 4) and _shell_family(args[0]) is not None:
        return f"{args[0]!r} is not followed by a flag that runs a script (-lc, -c, -Command, /c)"
    return (
        f"{args[0]!r} with {len(args) - 1} argument(s) is neither `apply_patch <patch>` "
        "nor a shell running a script"
    )


# --- the bash subset -------------------------------------------------------------------------


class _NotRecognised(Exception):
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

    def fail(self, what: str, pos: int | None = None) -> _NotRecognised:
        return _NotRecognised(f"{what} at {_where(self.src, self.pos if pos is None else pos)}")

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

    def _unclosed(self, heredoc: _Heredoc) -> _NotRecognised:
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


def _extract_heredoc(script: str) -> tuple[str | None, str]:
    """The ``cd`` directory (or None) and the heredoc body of a recognised script."""
    tokens = _Scanner(script, shell_escapes=False).tokens()
    while tokens and isinstance(tokens[-1], _Newline):
        tokens.pop()
    stream = iter(tokens)

    def fail(what: str, token: _Token) -> _NotRecognised:
        return _NotRecognised(f"{what} at {_where(script, token.pos)}")

    def next_token(skip_newlines: bool) -> _Token | None:
        for token in stream:
            if not (skip_newlines and isinstance(token, _Newline)):
                return token
        return None

    workdir: str | None = None
    token = next_token(skip_newlines=True)
    if token is None:
        raise _NotRecognised("the script is empty")
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
    if not _is_bare_word(token, APPLY_PATCH_COMMANDS):
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


def _split_command_line(text: str) -> tuple[str, ...]:
    """Split ``shell flag 'script'`` into its words, as bash would (no expansions allowed)."""
    tokens = _Scanner(text, shell_escapes=True).tokens()
    while tokens and isinstance(tokens[-1], _Newline):
        tokens.pop()
    words: list[_Word] = []
    for token in tokens:
        if not isinstance(token, _Word):
            raise _NotRecognised(f"{_describe_token(token)} at {_where(text, token.pos)}")
        words.append(token)
    if len(words) not in (3, 4):
        raise _NotRecognised(f"{len(words)} words instead of 3 or 4")
    if text[words[-1].pos] not in "'\"":
        raise _NotRecognised(f"the script {words[-1].text!r} is not quoted")
    return tuple(word.text for word in words)
