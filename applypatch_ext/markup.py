r"""Making hostile text harmless: a ground floor under the Jupyter layer and the exercises.

A file name or a file's content may hold anything. What every renderer shows of them:

* control characters are made visible, the same way in all three (text, Markdown, HTML): the
  C0 controls and DEL as their Unicode Control Pictures (ESC as ``␛``, CR as ``␍``, NUL as
  ``␀``, LF as ``␊`` inside a one-line field such as a path), the C1 controls, the bidi
  controls and the other invisible format characters as a Python escape (``\x9b``,
  ``\u202e``, ``\u200b``). Tabs stay; line feeds stay where a block has lines (stdout, a diff).
  So no ESC sequence, no CR overwrite, no bidi reordering reaches a terminal or a page.
* Markdown: inline code and fenced blocks use a backtick run longer than any in the text, so
  a backtick in a path or a ``\`\`\``` line in a file cannot end them, and text outside code is
  backslash-escaped, so that no ``<img onerror>`` or ``<script>`` is ever live once rendered.
* HTML: everything is escaped.
"""

from __future__ import annotations

import html
import re

_INVISIBLE: dict[int, str] = {i: chr(0x2400 + i) for i in range(0x20) if i != 0x09}
_INVISIBLE[0x7F] = "\u2421"  # ␡
_INVISIBLE.update({i: f"\\x{i:02x}" for i in range(0x80, 0xA0)})
_INVISIBLE.update(
    {
        i: f"\\u{i:04x}"
        for i in (
            0x061C,  # arabic letter mark
            *range(0x200B, 0x2010),  # zero-width space/joiners, LRM, RLM
            0x2028,  # line separator
            0x2029,  # paragraph separator
            *range(0x202A, 0x202F),  # LRE, RLE, PDF, LRO, RLO
            *range(0x2060, 0x2065),  # word joiner, invisible operators
            *range(0x2066, 0x206A),  # LRI, RLI, FSI, PDI
            0xFEFF,  # zero-width no-break space (BOM)
        )
    }
)
_INVISIBLE_KEEP_LINES = {k: v for k, v in _INVISIBLE.items() if k != 0x0A}
_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_BACKTICKS = re.compile(r"`+")


def visible(text: object) -> str:
    """``text`` with every control character made visible, line feeds included (one line)."""
    return str(text).translate(_INVISIBLE)


def visible_lines(text: object) -> str:
    """The same, keeping line feeds: for blocks that have lines (stdout, a diff)."""
    return str(text).translate(_INVISIBLE_KEEP_LINES)


def _longest_backtick_run(text: str) -> int:
    return max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)


def md_code(text: object) -> str:
    """An inline code span that nothing in ``text`` can close (CommonMark 6.1)."""
    shown = visible(text)
    if not shown:
        return "` `"
    ticks = "`" * (_longest_backtick_run(shown) + 1)
    # One space each side is stripped by the renderer: pad when the text starts or ends with a
    # backtick (else it would join the fence), or with spaces on both sides (else one is lost).
    pad = (
        " "
        if shown[0] == "`"
        or shown[-1] == "`"
        or (shown[0] == " " and shown[-1] == " " and shown.strip(" "))
        else ""
    )
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def md_fence(text: object, info: str = "") -> list[str]:
    """A fenced code block (as lines) whose fence no line of ``text`` can close."""
    shown = visible_lines(text)
    fence = "`" * max(3, _longest_backtick_run(shown) + 1)
    return [fence + info, *shown.split("\n"), fence]


def md_text(text: object) -> str:
    """Plain text for a Markdown paragraph: visible, every ASCII punctuation backslash-escaped
    (so no ``<`` starts HTML, no ``*`` or ``[`` starts markup)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", visible(text))


def esc(text: object) -> str:
    """``text`` for HTML: visible (:func:`visible`), then escaped, quotes too."""
    return html.escape(visible(text), quote=True)


def esc_lines(text: object) -> str:
    """The same, keeping line feeds (:func:`visible_lines`)."""
    return html.escape(visible_lines(text), quote=True)
