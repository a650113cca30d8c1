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
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import ClassVar, Final, Literal, TypeAlias

from ..errors import ApplyPatchError, ParseError
from ..text import plural, rust_trim
from ._shell import NotRecognised, extract_heredoc, split_command_line
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
        text = f"apply_patch with {plural(len(hunks), 'hunk')}"
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
    """An apply_patch call whose patch does not parse; ``message`` is the parse error's text,
    ``body`` the patch text it is about (what the call's ``apply_patch`` was given)."""

    error: ParseError
    body: str = ""

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
        workdir, body = extract_heredoc(script, APPLY_PATCH_COMMANDS)
    except NotRecognised as exc:
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
        argv = split_command_line(stripped)
    except NotRecognised as exc:
        return NotApplyPatch(f"not a shell command with one quoted script: {exc}")
    return maybe_parse_apply_patch(argv)


def _parse_body(body: str, workdir: str | None, script: str | None) -> Invocation:
    try:
        parsed = parse_patch(body)
    except ParseError as exc:
        return InvocationParseError(exc, body)
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
