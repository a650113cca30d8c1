"""A line's invisible characters made visible, and how two lines differ, in words.

What a diagnosis says about a near miss (docs/diagnosis.md): a tab, a carriage return, a
no-break space, a byte order mark or trailing spaces are named and escaped, so that a person
or a model sees why two lines that look alike are not equal. Standard library only.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Final

from .text import RUST_WHITESPACE

#: Characters of a line shown in a message before it is cut.
SHOWN_CHARS: Final = 72
_CHAR_NAMES: Final = {
    "\t": "a tab",
    "\r": "a carriage return (CR)",
    " ": "a space",
    "\u00a0": "a no-break space (U+00A0)",
    "\ufeff": "a byte order mark (U+FEFF)",
    "\u200b": "a zero-width space (U+200B)",
    "\u202f": "a narrow no-break space (U+202F)",
    "\u3000": "an ideographic space (U+3000)",
}


def _invisible(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf", "Zs", "Zl", "Zp")


def _char_name(char: str) -> str:
    name = _CHAR_NAMES.get(char)
    if name is not None:
        return name
    return f"{unicodedata.name(char, 'a control character').lower()} (U+{ord(char):04X})"


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` as Markdown code, every invisible character but a plain space escaped
    (``\\t``, ``\\r``, ``\\u00a0``), a space at either end shown as ``·``, cut after
    ``limit``; backticks inside are fenced by a run of backticks they do not hold."""
    out = []
    for char in text[:limit]:
        if char == " " or not _invisible(char):
            out.append(char)
        elif char in "\t\r\n":
            out.append({"\t": "\\t", "\r": "\\r", "\n": "\\n"}[char])
        else:
            out.append(f"\\u{ord(char):04x}")
    body = "".join(out)
    stripped = body.strip(" ")
    lead = len(body) - len(body.lstrip(" "))
    trail = len(body) - len(body.rstrip(" ")) if stripped else 0
    body = "·" * lead + stripped + "·" * trail if stripped else "·" * len(body)
    body += "…" if len(text) > limit else ""
    runs = {len(run) for run in re.findall(r"`+", body)}
    fence = "`" * next(n for n in range(1, len(runs) + 2) if n not in runs)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def marked(line: str) -> str:
    """``line`` with its whitespace marked where it matters to a patch, for a block of lines
    (a file, a patch) shown as it is: each tab as ``→`` (then the tab), each space that begins
    or ends the line as ``·``; the spaces between words stay."""
    body = line.strip(" \t")
    if not body:
        return line.replace(" ", "\u00b7").replace("\t", "\u2192\t")
    start = line.index(body)
    edges = line[:start], line[start + len(body) :]
    lead, trail = (edge.replace(" ", "\u00b7").replace("\t", "\u2192\t") for edge in edges)
    return lead + body.replace("\t", "\u2192\t") + trail


def _count(char: str, n: int) -> str:
    if char == " ":
        return "a space" if n == 1 else f"{n} spaces"
    if char == "\t":
        return f"{n} tab{'' if n == 1 else 's'}" if n > 1 else "a tab"
    name = _char_name(char)
    return name if n == 1 else f"{n} × {name}"


def _whitespace_words(run: str) -> str:
    """``"\\t  "`` as ``a tab and 2 spaces``; ``""`` as ``nothing``."""
    if not run:
        return "nothing"
    groups: list[tuple[str, int]] = []
    for char in run:
        if groups and groups[-1][0] == char:
            groups[-1] = (char, groups[-1][1] + 1)
        else:
            groups.append((char, 1))
    words = [_count(char, n) for char, n in groups]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _skeleton(text: str) -> str:
    return "".join(char for char in text if not _invisible(char))


def _edges(text: str) -> tuple[str, str, str]:
    core = text.strip(RUST_WHITESPACE + "\ufeff\u200b")
    if not core:
        return text, "", ""
    start = text.index(core)
    return text[:start], core, text[start + len(core) :]


def only_invisible(patch: str, file: str) -> bool:
    """The two lines differ, and only in whitespace or invisible characters."""
    return patch != file and _skeleton(patch) == _skeleton(file)


def describe_difference(patch: str, file: str) -> str:
    """How the file's line differs from the patch's, in words a person or a model can act on:
    the invisible differences named, or both lines shown."""
    if not only_invisible(patch, file):
        return f"reads {shown(file)} where the patch has {shown(patch)}"
    patch_lead, patch_core, patch_trail = _edges(patch)
    file_lead, file_core, file_trail = _edges(file)
    parts = []
    if patch_lead != file_lead:
        parts.append(
            f"starts with {_whitespace_words(file_lead)} where the patch has "
            f"{_whitespace_words(patch_lead)}"
        )
    if patch_trail != file_trail:
        parts.append(
            f"ends with {_whitespace_words(file_trail)} where the patch has "
            f"{_whitespace_words(patch_trail)}"
        )
    if patch_core != file_core:
        mine = Counter(c for c in file_core if _invisible(c))
        theirs = Counter(c for c in patch_core if _invisible(c))
        differ = [c for c in dict.fromkeys((*mine, *theirs)) if mine[c] != theirs[c]]
        named = ", ".join(_count(c, mine[c]) for c in differ if mine[c]) or "nothing"
        instead = ", ".join(_count(c, theirs[c]) for c in differ if theirs[c]) or "nothing"
        parts.append(f"has {named} inside where the patch has {instead}")
    return " and ".join(parts) + f" ({shown(file)} against {shown(patch)})"
