"""What an exercise and its feedback show, as a small document rendered three ways.

An exercise's task and a check's feedback are made of paragraphs (text with inline code),
lists and blocks (a file, a patch, what Codex printed). They are built once as the records
below and rendered to plain text, Markdown and HTML by :func:`render`, with the markup floor
making hostile text harmless (a file may hold anything: control characters are shown visibly,
nothing in a file can close a code span or start HTML). Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from ..core.visible import marked
from ..markup import esc, esc_lines, md_code, md_fence, md_text, visible, visible_lines

#: Blocks longer than this are folded in HTML and cut in plain text and Markdown (with a note
#: saying where the whole is).
FOLD_LINES: Final = 40


@dataclass(frozen=True)
class Code:
    """An inline code span: a path, a line of a file, a call to make."""

    text: str


#: A run of text: plain words and code spans.
Text = tuple["str | Code", ...]


def say(*parts: object) -> Text:
    """A run of text from words and :class:`Code` spans (anything else becomes words)."""
    return tuple(part if isinstance(part, Code) else str(part) for part in parts)


@dataclass(frozen=True)
class Para:
    text: Text


@dataclass(frozen=True)
class Items:
    """A bulleted list."""

    items: tuple[Text, ...]


@dataclass(frozen=True)
class Block:
    """Lines shown as they are (visible control characters), under a title; ``numbered``
    prefixes each line with its 1-based number. ``whole`` says where to read it all when it
    is longer than :data:`FOLD_LINES` (the plain and Markdown forms cut it there)."""

    title: Text
    text: str
    numbered: bool = False
    whole: str = ""
    #: Tabs shown as ``→`` (then the tab), and spaces that begin or end a line as ``·``.
    whitespace: bool = False
    #: The number of the first line (an excerpt of a file keeps the file's numbers).
    first: int = 1


@dataclass(frozen=True)
class Table:
    """Rows of cells under a header; the first column is text, the others right-aligned."""

    header: tuple[str, ...]
    rows: tuple[tuple[str | Code, ...], ...]


class Tone(StrEnum):
    """How a feedback's heading looks: the colour of its bar."""

    GOOD = "good"
    BAD = "bad"
    NEUTRAL = "neutral"


@dataclass(frozen=True)
class Heading:
    text: Text
    tone: Tone = Tone.NEUTRAL
    symbol: str = ""


Element = Para | Items | Block | Heading | Table

_TONE_COLOUR: Final = {
    Tone.GOOD: "var(--jp-success-color1, #2e7d32)",
    Tone.BAD: "var(--jp-error-color1, #c62828)",
    Tone.NEUTRAL: "var(--jp-border-color1, #9e9e9e)",
}


def _lines(block: Block) -> list[str]:
    lines = block.text.split("\n")
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # a file's last line feed ends its last line, it does not start another
    if block.whitespace:
        lines = [marked(line) for line in lines]
    if block.numbered:
        width = len(str(len(lines) + block.first - 1))
        lines = [f"{n:>{width}}  {line}" for n, line in enumerate(lines, block.first)]
    return lines


def _cut(block: Block) -> tuple[list[str], str | None]:
    """The lines shown in plain text and Markdown, and the note on what was left out."""
    lines = _lines(block)
    if len(lines) <= FOLD_LINES:
        return lines, None
    where = f": {block.whole}" if block.whole else ""
    return lines[:FOLD_LINES], f"({len(lines) - FOLD_LINES} more lines{where})"


def plain_text(text: Text) -> str:
    """A run of text as plain text: code spans in backticks, everything visible."""
    return "".join(f"`{visible(p.text)}`" if isinstance(p, Code) else visible(p) for p in text)


def _markdown_text(text: Text) -> str:
    return "".join(md_code(p.text) if isinstance(p, Code) else md_text(p) for p in text)


def _html_text(text: Text) -> str:
    return "".join(f"<code>{esc(p.text)}</code>" if isinstance(p, Code) else esc(p) for p in text)


def _cell_plain(cell: str | Code) -> str:
    return plain_text((cell,))


def _table_plain(table: Table) -> list[str]:
    cells = [list(table.header), *([_cell_plain(c) for c in row] for row in table.rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.header))]
    lines = []
    for row in cells:
        first, *rest = row
        parts = [
            first.ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(rest, widths[1:], strict=True)),
        ]
        lines.append("  ".join(parts).rstrip())
    return lines


def _plain(element: Element) -> list[str]:
    match element:
        case Table():
            return _table_plain(element)
        case Heading(text, _tone, symbol):
            return [f"{symbol} {plain_text(text)}".strip()]
        case Para(text):
            return [plain_text(text)]
        case Items(items):
            return [f"  - {plain_text(item)}" for item in items]
        case Block(title):
            lines, note = _cut(element)
            shown = [f"    {visible_lines(line)}" for line in lines]
            return [f"{plain_text(title)}:", *shown, *([f"    {note}"] if note else [])]


def _markdown_cell(cell: str | Code) -> str:
    # a table cell ends at any unescaped |, a code span's too (GitHub's tables)
    return md_code(cell.text).replace("|", "\\|") if isinstance(cell, Code) else md_text(cell)


def _markdown(element: Element) -> list[str]:
    match element:
        case Table(header, rows):
            return [
                "| " + " | ".join(md_text(h) for h in header) + " |",
                "| --- |" + " ---: |" * (len(header) - 1),
                *("| " + " | ".join(_markdown_cell(c) for c in row) + " |" for row in rows),
            ]
        case Heading(text, _tone, symbol):
            return [f"**{md_text(symbol)} {_markdown_text(text)}**".replace("** ", "**", 1)]
        case Para(text):
            return [_markdown_text(text)]
        case Items(items):
            return [f"* {_markdown_text(item)}" for item in items]
        case Block(title):
            lines, note = _cut(element)
            return [
                f"{_markdown_text(title)}:",
                "",
                *md_fence("\n".join(lines)),
                *([md_text(note)] if note else []),
            ]


_PRE = (
    "margin:2px 0 6px 0;padding:4px 6px;white-space:pre;overflow-x:auto;"
    "background:var(--jp-layout-color2, #f5f5f5);color:var(--jp-content-font-color1, inherit)"
)


_CELL = "padding:1px 8px;text-align:right"
_FIRST = "padding:1px 8px;text-align:left"


def _row_html(cells: Sequence[str], tag: str) -> str:
    return (
        "<tr>"
        + "".join(
            f'<{tag} style="{_FIRST if i == 0 else _CELL}">{cell}</{tag}>'
            for i, cell in enumerate(cells)
        )
        + "</tr>"
    )


def _html(element: Element) -> str:
    match element:
        case Table(header, rows):
            head = _row_html([esc(h) for h in header], "th")
            body = "".join(_row_html([_html_text((c,)) for c in row], "td") for row in rows)
            return f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"
        case Heading(text, tone, symbol):
            return (
                f'<div style="font-weight:bold;border-left:4px solid {_TONE_COLOUR[tone]};'
                f'padding-left:6px">{esc(symbol)} {_html_text(text)}</div>'
            )
        case Para(text):
            return f"<p>{_html_text(text)}</p>"
        case Items(items):
            return "<ul>" + "".join(f"<li>{_html_text(item)}</li>" for item in items) + "</ul>"
        case Block(title):
            lines = _lines(element)
            pre = f'<pre style="{_PRE}">{esc_lines(chr(10).join(lines))}</pre>'
            head = _html_text(title)
            if len(lines) <= FOLD_LINES:
                return f"<div>{head}:{pre}</div>"
            return f"<details><summary>{head} ({len(lines)} lines)</summary>{pre}</details>"


Format = Literal["plain", "markdown", "html"]


def render(elements: Iterable[Element], form: Format) -> str:
    """The elements as plain text, Markdown or an HTML fragment (inline styles only: what
    JupyterLab's sanitizer, nbconvert and GitHub keep)."""
    items: Sequence[Element] = list(elements)
    if form == "plain":
        return "\n".join(line for element in items for line in [*_plain(element), ""]).rstrip()
    if form == "markdown":
        return "\n".join(line for element in items for line in [*_markdown(element), ""]).rstrip()
    body = "".join(_html(element) for element in items)
    return f'<div class="applypatch-exercise">{body}</div>'


__all__ = [
    "FOLD_LINES",
    "Block",
    "Code",
    "Element",
    "Heading",
    "Items",
    "Para",
    "Table",
    "Text",
    "Tone",
    "plain_text",
    "render",
    "say",
]
