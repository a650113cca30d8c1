"""Writes ``applypatch_ext/js/diff-words.json``: the character classes of the diff model's word
diff (docs/diff-model.md), which the widget (bundled from it) and the static record (read at
import) both use, so that the two tokenize every string alike whatever Unicode version node's
ICU or the running Python knows.

``word``: the code points of Unicode's general categories L* and N*, and ``_`` (what the widget
wrote as ``[\\p{L}\\p{N}_]``), as this Python's ``unicodedata`` has them; ``space``: ECMAScript's
WhiteSpace and LineTerminator (what the widget wrote as ``\\s``). Both as inclusive ranges.
Run it again (``python tools/diff_words.py``) to move the table to a newer Unicode version;
tests/jupyter/test_diff_contract.py checks that the committed file is what it writes for the
Unicode version the file names.

Run: ``python tools/diff_words.py [--check]``.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

OUTPUT = Path(__file__).resolve().parents[1] / "applypatch_ext" / "js" / "diff-words.json"

#: ECMAScript's WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, Zs) and LineTerminator (LF, CR, LS,
#: PS): the spec lists them, so no Unicode version moves them but Zs (stable since 6.3).
SPACE = [(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A)]
SPACE += [(0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000)]
SPACE += [(0xFEFF, 0xFEFF)]


def _ranges(codes: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for c in codes:
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


def table() -> dict[str, object]:
    """The table for this Python's Unicode database."""
    word = [c for c in range(0x110000) if c == 0x5F or unicodedata.category(chr(c))[0] in "LN"]
    return {
        "unicode": unicodedata.unidata_version,
        "word": _ranges(word),
        "space": [list(r) for r in SPACE],
    }


def render(data: dict[str, object]) -> str:
    """The file's text: one range per line pair, so that a version change reads as a diff."""
    return json.dumps(data, separators=(",", ":")).replace("],[", "],\n[") + "\n"


def main(argv: list[str]) -> int:
    text = render(table())
    if "--check" in argv:
        return 0 if OUTPUT.read_text(encoding="utf-8") == text else 1
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
