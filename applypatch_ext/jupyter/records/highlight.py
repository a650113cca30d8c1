"""Syntax colouring, with Pygments, of the lines a diff view shows: a file's lexer, and its
text as lines of ``[css_class, text]`` runs.

The widget (``js/src/``) never receives HTML: it builds DOM nodes from the runs, so nothing
in a file can inject markup; the record's diff view (:mod:`.static_diff`) colours from the same
runs. Which lines of a call or a turn are sent, within which bounds, is :mod:`.sources`.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from typing import Final, TypeAlias

# (Pygments ships no type hints: see the mypy overrides in pyproject.toml.)
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.lexers._mapping import LEXERS
from pygments.token import (
    Comment,
    Error,
    Generic,
    Keyword,
    Literal,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    _TokenType,
)
from pygments.util import ClassNotFound

#: A line as sent: plain text, or ``[css_class, text]`` runs.
Line: TypeAlias = str | list[list[str]]
#: A text longer than this is not lexed (its lines are sent plain).
MAX_LEX_CHARS: Final = 400_000

#: The token classes sent, most specific first: a token takes the class of its nearest
#: ancestor in this table (``k`` keyword, ``d`` definition, ``b`` builtin, ``m`` meta, ``t`` tag,
#: ``a`` attribute, ``s`` string, ``n`` number, ``c`` comment, ``o`` operator, ``p``
#: punctuation, ``h`` heading, ``i`` inserted, ``r`` removed, ``e`` error).
CLASSES: Final[dict[_TokenType, str]] = {
    Keyword.Constant: "n",
    Keyword: "k",
    Operator.Word: "k",
    Name.Function: "d",
    Name.Class: "d",
    Name.Builtin: "b",
    Name.Exception: "b",
    Name.Decorator: "m",
    Name.Tag: "t",
    Name.Attribute: "a",
    Comment.Preproc: "m",
    Comment: "c",
    String.Doc: "c",
    String: "s",
    Number: "n",
    Literal: "s",
    Operator: "o",
    Punctuation: "p",
    Generic.Heading: "h",
    Generic.Subheading: "h",
    Generic.Inserted: "i",
    Generic.Deleted: "r",
    Error: "e",
}

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def lexer_for(path: str) -> Lexer | None:
    """The Pygments lexer for ``path``'s file name, or None (plain text) when none fits."""
    name = path.rsplit("/", 1)[-1]
    if any(pattern.match(name) for pattern in _named_patterns()):
        return _lexer_for_name(name)
    # Only "*.ext" patterns are left: what matches depends on the text after the name's first
    # dot alone, so one lookup serves every name ending so (a 500-file patch: a few lookups).
    _stem, dot, rest = name.partition(".")
    return _lexer_for_name("x." + rest) if dot else None


@functools.lru_cache(maxsize=1)
def _named_patterns() -> tuple[re.Pattern[str], ...]:
    """Pygments' file name patterns that are more than ``*.`` and a suffix (``Makefile``,
    ``*Spec.hs``, ``.bash_*``): a name matching one is looked up by itself."""
    patterns = {p for entry in LEXERS.values() for p in entry[3]}
    return tuple(
        re.compile(fnmatch.translate(p))
        for p in sorted(patterns)
        if not (p.startswith("*.") and not any(c in p[2:] for c in "*?"))
    )


@functools.lru_cache(maxsize=256)
def _lexer_for_name(name: str) -> Lexer | None:
    # finding a lexer scans every lexer's patterns (milliseconds): once per name (or suffix)
    if not name:
        return None
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False, stripall=False)
    except ClassNotFound:
        return None


def token_class(kind: _TokenType) -> str:
    """The class of a Pygments token type ("" for text and names without a colour)."""
    while kind.parent is not None:
        found = CLASSES.get(kind)
        if found is not None:
            return found
        kind = kind.parent
    return ""


def plain_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def highlight_lines(path: str, text: str) -> list[Line]:
    """``text`` (a whole file, or a diff side) as lines of token runs, coloured by ``path``.

    A trailing CR of a line is dropped (the diff shows lines without their terminator); a
    text with no lexer, or longer than :data:`MAX_LEX_CHARS`, comes back as plain strings.
    """
    lexer = lexer_for(path) if len(text) <= MAX_LEX_CHARS else None
    if lexer is None:
        return list(plain_lines(text))
    lines: list[Line] = []
    runs: list[list[str]] = []

    def end_line() -> None:
        if runs and runs[-1][1].endswith("\r"):
            runs[-1][1] = runs[-1][1][:-1]
            if not runs[-1][1]:
                runs.pop()
        if not runs:
            lines.append("")
        elif len(runs) == 1 and runs[0][0] == "":
            lines.append(runs[0][1])
        else:
            lines.append([list(run) for run in runs])
        runs.clear()

    for kind, value in lexer.get_tokens(text):
        cls = token_class(kind)
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                end_line()
            if not part:
                continue
            if runs and runs[-1][0] == cls:
                runs[-1][1] += part
            else:
                runs.append([cls, part])
    if runs:
        end_line()
    # the lexer may add no line for a final newline, or keep one for it: match the text's count
    count = len(plain_lines(text))
    del lines[count:]
    while len(lines) < count:
        lines.append("")
    return lines
