"""The diff view of a call's static record: HTML that needs no script and no stylesheet.

The record (:mod:`.record`) is what a saved notebook shows without a kernel: JupyterLab and
Notebook 7 (which sanitize the HTML of an untrusted notebook), nbconvert's HTML and GitHub's
viewer (which run no script). So this view is built from what survives all of them:

* **inline styles only**. JupyterLab's sanitizer drops ``<style>`` elements and every
  declaration whose value holds ``var(...)``; it keeps plain colours, ``rgba()`` and classes.
  Each themed property is therefore written twice, ``color:#x;color:var(--jp-...,#x)``: where
  the notebook is trusted (the kernel's own outputs, a notebook saved on this machine) and in
  nbconvert, the theme's variable wins; where it is sanitized, the plain value stays. The
  plain values are chosen to read on light, dark and high-contrast backgrounds alike
  (translucent tints for added and removed lines, mid-tone syntax colours);
* **``<pre>`` blocks of lines, no tables**: JupyterLab's stylesheet pads, wraps and
  right-aligns every table cell of an HTML output; a line is a block ``<span>``;
* **``<details>`` for everything that folds**: each file, the ``diff --git``/``index`` lines,
  a long run of added or removed lines ("show N lines"), the turn's aggregate;
* **anchors** from the file list to each file (sanitized, an ``id`` becomes a
  ``data-jupyter-id``, which JupyterLab's links still follow). A sanitizer also drops
  ``aria-*`` and ``data-*`` attributes: what the view says is in its text.

The rows (line numbers, word-level changes inside a changed line, folds, the +/- bar) follow
the live widget's diff model (``diffRows``, ``wordSegments``, ``pairWords``, ``foldRuns``,
``changeBar`` and ``FOLDS`` in ``js/src/diff-model.js``) under one contract, docs/diff-model.md
(``tests/jupyter/test_diff_contract.py`` holds both to it over full Unicode); the syntax
colouring is the widget's, from :mod:`.highlight` (Pygments, the same token classes).
Everything is bounded by bytes (:class:`ByteBudget`): what a file does not fit is cut, and the
cut is said, with where the whole is (see :class:`~.bound.Bound`).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, TypeAlias

from ...core.text import plural
from .bound import Bound, ByteBudget, cut_amount, fair_shares, size_of
from .highlight import _HUNK, Line, highlight_lines

# -- the diff model (the widget's, js/src/diff-model.js) --------------------------------------

#: Runs of one kind longer than ``max`` rows keep ``head`` + ``tail``; the middle folds (FOLDS).
FOLD_MAX: Final = 60
FOLD_HEAD: Final = 20
FOLD_TAIL: Final = 10
#: The LCS of two lines' words is only computed below this product of their lengths.
WORD_DIFF_CELLS: Final = 40_000
#: Below this share of unchanged visible characters, a pair is a rewrite: no word marks.
WORD_DIFF_MIN_SAME: Final = 0.4


def _range_class(ranges: Sequence[Sequence[int]]) -> str:
    """A regular expression class of inclusive code point ranges."""
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


#: The word diff's character classes, shared with the widget (docs/diff-model.md): what a word
#: and a space are does not depend on the Unicode version of this Python or of node's ICU.
#: (``applypatch_ext/js/``, beside the widget's bundle, which includes it; read by path: the
#: live floor's ``assets`` is above this one.)
_CLASSES_FILE: Final = Path(__file__).resolve().parents[2] / "js" / "diff-words.json"
_CLASSES: Final = json.loads(_CLASSES_FILE.read_text(encoding="utf-8"))
_WORD_CHARS: Final = _range_class(_CLASSES["word"])
_SPACE_CHARS: Final = _range_class(_CLASSES["space"])
#: Words, runs of spaces and single other code points (diff-model.js ``WORD_RE``).
_WORD = re.compile(f"[{_WORD_CHARS}]+|[{_SPACE_CHARS}]+|[^{_WORD_CHARS}{_SPACE_CHARS}]")
_SPACE = re.compile(f"[{_SPACE_CHARS}]")

Segment: TypeAlias = tuple[bool, str]


@dataclass(frozen=True)
class Row:
    """One row of a file's diff: ``kind`` is ``header``, ``hunk``, ``meta``, ``add``, ``del``,
    ``context`` or ``gap`` (unchanged lines ``old``..``new`` of the new side not shown)."""

    kind: str
    text: str
    old: int | None = None
    new: int | None = None
    words: tuple[Segment, ...] | None = None


def row_json(row: Row) -> dict[str, Any]:
    """``row`` in the contract's JSON shape, the widget's (docs/diff-model.md, "diff rows")."""
    if row.kind == "gap":
        return {"type": "gap", "from": row.old, "to": row.new}
    if row.kind in ("header", "hunk", "meta"):
        return {"type": row.kind, "text": row.text}
    out: dict[str, Any] = {"type": "line", "kind": row.kind, "text": row.text}
    out |= {"old": row.old, "new": row.new}
    if row.words is not None:
        out["words"] = [[differs, text] for differs, text in row.words]
    return out


def classify(text: str) -> list[tuple[str, str]]:
    """``(kind, line)`` per line of a unified diff (widget.js ``classifyDiffLines``)."""
    out: list[tuple[str, str]] = []
    if not text:
        return out
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    in_hunk = True  # a diff without a file header is all hunk body
    for line in lines:
        if line.startswith("diff --git "):
            kind, in_hunk = "file", False
        elif line.startswith("@@"):
            kind, in_hunk = "hunk", True
        elif not in_hunk:
            kind = "header"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        elif line.startswith("\\") or line.startswith("*** End of File"):
            kind = "meta"
        else:
            kind = "context"
        out.append((kind, line))
    return out


def diff_counts(text: str) -> tuple[int, int]:
    """The added and removed lines of a diff (its ``+++``/``---`` headers are not lines)."""
    kinds = [kind for kind, _ in classify(text)]
    return kinds.count("add"), kinds.count("del")


def diff_rows(text: str) -> list[Row]:
    """The rows of one file's diff, numbered from its ``@@`` lines (widget.js ``diffRows``; a
    progress diff's ``@@`` has no numbers, and its lines none). A ``gap`` row stands for the
    unchanged lines between two hunks (``old``: its first new line, ``new``: its last)."""
    rows: list[Row] = []
    old = new = 0
    numbered = False
    last_new = 0
    for kind, line in classify(text):
        if kind in ("file", "header"):
            rows.append(Row("header", line))
            continue
        if kind == "hunk":
            m = _HUNK.match(line)
            numbered = m is not None
            if m:
                old, new = int(m.group(1)), int(m.group(3))
                new_start = new + 1 if m.group(4) == "0" else new
                if new_start - 1 > last_new:
                    rows.append(Row("gap", "", last_new + 1, new_start - 1))
                if m.group(2) == "0":
                    old += 1
                if m.group(4) == "0":
                    new += 1
            rows.append(Row("hunk", line))
            continue
        if kind == "meta":
            rows.append(Row("meta", line))
            continue
        body = line[1:]
        if kind == "add":
            rows.append(Row("add", body, None, new if numbered else None))
            new += numbered
        elif kind == "del":
            rows.append(Row("del", body, old if numbered else None, None))
            old += numbered
        else:
            shown = body if line.startswith(" ") else line
            rows.append(Row("context", shown, old if numbered else None, new if numbered else None))
            old += numbered
            new += numbered
        if numbered:
            last_new = new - 1
    return rows


def content_rows(kind: str, content: str, limit: int | None = None) -> tuple[list[Row], int]:
    """An Add's lines as added rows (``kind`` ``add``) or a Delete's as removed ones, numbered;
    at most ``limit`` of them. Also how many lines the content has."""
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kept = lines if limit is None else lines[:limit]
    rows = [
        Row(
            kind,
            t[:-1] if t.endswith("\r") else t,
            None if kind == "add" else i,
            i if kind == "add" else None,
        )
        for i, t in enumerate(kept, 1)
    ]
    return rows, len(lines)


def word_segments(a: str, b: str) -> tuple[list[Segment], list[Segment]] | None:
    """The changed words of a removed line ``a`` and the added line ``b`` paired with it, as
    ``(differs, text)`` segments per side; None for a rewrite (they share too little) or lines
    too long to compare (widget.js ``wordSegments``, the same LCS and the same tie-breaks)."""
    x = _WORD.findall(a)
    y = _WORD.findall(b)
    n, m = len(x), len(y)
    if n * m > WORD_DIFF_CELLS:
        return None
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = lcs[i], lcs[i + 1]
        xi = x[i]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if xi == y[j] else max(below[j], row[j + 1])
    left: list[list[Any]] = []
    right: list[list[Any]] = []

    def push(side: list[list[Any]], differs: bool, text: str) -> None:
        if side and side[-1][0] == differs:
            side[-1][1] += text
        else:
            side.append([differs, text])

    same = 0
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and x[i] == y[j]:
            push(left, False, x[i])
            push(right, False, y[j])
            if not _SPACE.match(x[i]):  # a token is all spaces or none
                same += len(x[i])
            i += 1
            j += 1
        elif j < m and (i >= n or lcs[i][j + 1] >= lcs[i + 1][j]):
            push(right, True, y[j])
            j += 1
        else:
            push(left, True, x[i])
            i += 1
    visible = max(len(_SPACE.sub("", a)), len(_SPACE.sub("", b)))
    if visible > 0 and same / visible < WORD_DIFF_MIN_SAME:
        return None
    return [(d, t) for d, t in left], [(d, t) for d, t in right]


def pair_words(rows: Sequence[Row]) -> list[Row]:
    """Each run of removed rows paired with the added rows after it (first with first), their
    ``words`` set (widget.js ``pairWords``)."""
    out = list(rows)
    i = 0
    while i < len(out):
        start = i
        while i < len(out) and out[i].kind == "del":
            i += 1
        dels = range(start, i)
        middle = i
        while i < len(out) and out[i].kind == "add":
            i += 1
        adds = range(middle, i)
        for d, a in zip(dels, adds, strict=False):
            pair = word_segments(out[d].text, out[a].text)
            if pair is not None:
                out[d] = replace(out[d], words=tuple(pair[0]))
                out[a] = replace(out[a], words=tuple(pair[1]))
        if i == start:
            i += 1
    return out


@dataclass(frozen=True)
class Fold:
    """The middle of a long run of one kind, behind "show N lines"."""

    rows: tuple[Row, ...]


def fold_runs(rows: Sequence[Row]) -> list[Row | Fold]:
    """Runs of one line kind longer than :data:`FOLD_MAX` keep their first :data:`FOLD_HEAD`
    and last :data:`FOLD_TAIL` rows; the middle becomes a :class:`Fold` (``foldRuns``)."""
    out: list[Row | Fold] = []
    i = 0
    while i < len(rows):
        kind = rows[i].kind
        j = i + 1
        if kind in ("add", "del", "context"):
            while j < len(rows) and rows[j].kind == kind:
                j += 1
        run = rows[i:j]
        if kind in ("add", "del", "context") and len(run) > FOLD_MAX:
            out.extend(run[:FOLD_HEAD])
            out.append(Fold(tuple(run[FOLD_HEAD : len(run) - FOLD_TAIL])))
            out.extend(run[len(run) - FOLD_TAIL :])
        else:
            out.extend(run)
        i = j
    return out


def change_bar(added: int, removed: int) -> list[str]:
    """The five blocks of a file's +/- bar: ``add``, ``del``, ``none`` (``changeBar``)."""
    total = added + removed
    if total == 0:
        return ["none"] * 5
    blocks = min(5, total)
    # JavaScript's Math.round: halves round up
    adds = int(added / total * blocks + 0.5)
    if added > 0 and adds == 0:
        adds = 1
    if removed > 0 and adds == blocks:
        adds = blocks - 1
    return ["add"] * adds + ["del"] * (blocks - adds) + ["none"] * (5 - blocks)


# -- inline styles ------------------------------------------------------------------------------


def themed(prop: str, variable: str, plain: str) -> str:
    """``prop`` set to ``plain``, then to the theme's ``variable`` (which a sanitizer drops)."""
    return f"{prop}:{plain};{prop}:var({variable},{plain})"


#: The monospace stack (the theme's code font first where it is kept).
MONO_FONTS: Final = "Menlo,Consolas,'DejaVu Sans Mono',monospace"
MONO: Final = themed("font-family", "--jp-code-font-family", MONO_FONTS)
_MUTED = "color:#8b949e"
_BORDER = "rgba(128,128,128,0.35)"
ADD_BG: Final = "rgba(46,160,67,.15)"
DEL_BG: Final = "rgba(248,81,73,.15)"
ADD_WORD_BG: Final = "rgba(46,160,67,0.42)"
DEL_WORD_BG: Final = "rgba(248,81,73,0.42)"
HUNK_BG: Final = "rgba(84,174,255,0.12)"
ADD_FG: Final = "#2da44e"
DEL_FG: Final = "#e5534b"
HUNK_FG: Final = "#4d8fe0"

#: Per token class of :data:`.highlight.CLASSES`: the editor theme's variable (the one
#: ``js/src/widget.css`` colours the class with), a plain mid-tone colour (where a sanitizer drops
#: the variable: one that reads on light, dark and high-contrast backgrounds, where the widget's
#: own fallbacks are the light theme's), and the extra declarations of the class in the CSS.
#: ``tests/jupyter/test_static_diff.py`` checks the variables and declarations against the CSS.
SYNTAX: Final[dict[str, tuple[str, str, str]]] = {
    "k": ("--jp-mirror-editor-keyword-color", "#b76ad3", "font-weight:600"),
    "d": ("--jp-mirror-editor-def-color", "#4d8fe0", ""),
    "b": ("--jp-mirror-editor-builtin-color", "#2aa198", ""),
    "m": ("--jp-mirror-editor-meta-color", "#c49102", ""),
    "t": ("--jp-mirror-editor-tag-color", "#3fa34d", ""),
    "a": ("--jp-mirror-editor-attribute-color", "#4d8fe0", ""),
    "s": ("--jp-mirror-editor-string-color", "#d0703c", ""),
    "n": ("--jp-mirror-editor-number-color", "#2aa198", ""),
    "c": ("--jp-mirror-editor-comment-color", "#8b949e", "font-style:italic"),
    "h": ("--jp-mirror-editor-header-color", "#4d8fe0", "font-weight:600"),
    "i": ("--jp-success-color1", ADD_FG, ""),
    "r": ("--jp-error-color1", DEL_FG, ""),
    "e": ("--jp-mirror-editor-error-color", DEL_FG, ""),
}
#: The token classes the record leaves in the text's colour: the widget colours them only where
#: the theme has a colour for them (its fallback is the text's colour), and as the most frequent
#: tokens of code, a style on each would spend the bounded record's bytes on punctuation.
TEXT_COLOURED: Final = frozenset({"o", "p"})
_SYNTAX_STYLE = {
    cls: themed("color", var, plain) + (f";{extra}" if extra else "")
    for cls, (var, plain, extra) in SYNTAX.items()
}
_ROW_BG = {"add": ADD_BG, "del": DEL_BG}
_WORD_BG = {"add": ADD_WORD_BG, "del": DEL_WORD_BG}
_SIGN = {"add": "+", "del": "-", "context": " "}
_SIGN_FG = {"add": ADD_FG, "del": DEL_FG}
_KIND_WORDS = {"add": "added", "del": "removed", "context": "unchanged"}
PRE_STYLE: Final = (
    f"margin:0;padding:0;font-size:12px;line-height:1.45;white-space:pre;overflow-x:auto;{MONO}"
)


# -- escaping -------------------------------------------------------------------------------------


def _esc(text: str, visible: Callable[[str], str]) -> str:
    return html.escape(visible(text), quote=True)


# -- one file --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileView:
    """One file of a diff view: its label (Add, Update...), display path, rows, and how much of
    it is left out (lines not in ``rows`` at all: ``cut_lines``, ``cut_bytes``)."""

    label: str
    path: str
    rows: tuple[Row, ...]
    language_path: str  # the path whose name picks the lexer
    cut_lines: int = 0
    cut_bytes: int = 0
    preview: bool = False
    #: The file's added and removed lines, those cut included (-1: count ``rows``).
    added_lines: int = -1
    removed_lines: int = -1

    @property
    def added(self) -> int:
        return self.added_lines if self.added_lines >= 0 else _count(self.rows, "add")

    @property
    def removed(self) -> int:
        return self.removed_lines if self.removed_lines >= 0 else _count(self.rows, "del")


def _count(rows: Sequence[Row], kind: str) -> int:
    return sum(r.kind == kind for r in rows)


def _colour_side(path: str, texts: list[str]) -> list[Line]:
    return highlight_lines(path, "\n".join(texts) + "\n") if texts else []


def colour_rows(path: str, rows: Sequence[Row]) -> dict[int, Line]:
    """Syntax runs per index of ``rows`` (its added, removed and unchanged lines), lexed with
    :func:`.highlight.highlight_lines` from the diff's own old side and new side."""
    old_at: list[int] = []
    new_at: list[int] = []
    for index, row in enumerate(rows):
        if row.kind in ("del", "context"):
            old_at.append(index)
        if row.kind in ("add", "context"):
            new_at.append(index)
    out: dict[int, Line] = {}
    old_lines = _colour_side(path, [rows[i].text for i in old_at])
    for index, line in zip(old_at, old_lines, strict=False):
        out[index] = line
    # unchanged lines: the new side's colouring (as the widget shows them)
    new_lines = _colour_side(path, [rows[i].text for i in new_at])
    for index, line in zip(new_at, new_lines, strict=False):
        out[index] = line
    return out


def _runs(row: Row, source: Line | None) -> list[tuple[str, bool, str]]:
    """``(class, differs, text)`` runs of a line: its syntax runs (when they are its text),
    with its word-level segments laid over them (widget.js ``lineRuns``)."""
    runs: list[tuple[str, str]] = [("", row.text)]
    if isinstance(source, list) and "".join(t for _, t in source) == row.text:
        runs = [(c, t) for c, t in source]
    words = row.words
    if not words or "".join(t for _, t in words) != row.text:
        return [(c, False, t) for c, t in runs]
    out: list[tuple[str, bool, str]] = []
    w = 0
    left = len(words[0][1])
    for cls, text in runs:
        rest = text
        while rest:
            while left == 0 and w < len(words) - 1:
                w += 1
                left = len(words[w][1])
            take = min(len(rest), left or len(rest))
            out.append((cls, words[w][0], rest[:take]))
            rest = rest[take:]
            left -= take
    return out


def _code_html(row: Row, source: Line | None, visible: Callable[[str], str]) -> str:
    parts = []
    word_bg = _WORD_BG.get(row.kind, "")
    for cls, differs, text in _runs(row, source):
        style = _SYNTAX_STYLE.get(cls, "")
        if differs and word_bg:
            style = f"{style};background-color:{word_bg};border-radius:2px".lstrip(";")
        escaped = _esc(text, visible)
        parts.append(f'<span style="{style}">{escaped}</span>' if style else escaped)
    return "".join(parts)


def _wide(text: str, style: str) -> str:
    return f'<span style="display:block;{style}">{text}</span>'


def _gutter(row: Row, digits: int) -> str:
    old = "" if row.old is None else str(row.old)
    new = "" if row.new is None else str(row.new)
    return f"{old:>{digits}} {new:>{digits}} "


def _row_html(row: Row, source: Line | None, visible: Callable[[str], str], digits: int) -> str:
    """One line of the view: a block of its own, both line numbers (the gutter), the sign, the
    code; a hunk line, a marker or a gap likewise. Short on purpose: it is repeated per line.
    (Not a table: JupyterLab's stylesheet pads, wraps and right-aligns every cell of an HTML
    output, and overriding that per cell costs more than the line itself.)"""
    if row.kind == "hunk":
        return _wide(_esc(row.text, visible), f"background-color:{HUNK_BG};color:{HUNK_FG}")
    if row.kind == "meta":
        return _wide(_esc(row.text, visible), f"{_MUTED};font-style:italic")
    if row.kind == "gap":
        count = (row.new or 0) - (row.old or 0) + 1
        return _wide(f"⋯ {plural(count, 'unchanged line')}", f"{_MUTED};background-color:{HUNK_BG}")
    bg = _ROW_BG.get(row.kind)
    block = f'<span style="display:block;background-color:{bg}">' if bg else _BLOCK
    sign_fg = _SIGN_FG.get(row.kind)
    sign = f'<span style="color:{sign_fg}">{_SIGN[row.kind]}</span>' if sign_fg else " "
    return (
        f'{block}<span style="{_MUTED}">{_gutter(row, digits)}</span>{sign} '
        f"{_code_html(row, source, visible)}</span>"
    )


_BLOCK = '<span style="display:block">'


def _pre_block(rows_html: list[str], digits: int, preview: bool) -> str:
    """A block of lines: one ``<pre>`` (monospace, unwrapped, scrolling sideways)."""
    del digits, preview  # the gutter is text: its width is in the lines
    return f'<pre style="{PRE_STYLE}">{"".join(rows_html)}</pre>'


def _bar_html(added: int, removed: int) -> str:
    colour = {"add": ADD_FG, "del": DEL_FG, "none": _BORDER}
    blocks = change_bar(added, removed)
    runs = "".join(
        f'<span style="color:{colour[kind]}">{"■" * blocks.count(kind)}</span>'
        for kind in ("add", "del", "none")
        if kind in blocks
    )
    return f'<span aria-hidden="true" style="margin-left:6px;letter-spacing:1px">{runs}</span>'


def counts_html(added: int, removed: int, *, bar: bool = True) -> str:
    """``+N -M`` and (``bar``) the five-block bar."""
    return (
        f'<span style="margin-left:8px;color:{ADD_FG}">+{added}</span> '
        f'<span style="color:{DEL_FG}">-{removed}</span>'
        f"{_bar_html(added, removed) if bar else ''}"
    )


#: What a block's frame takes (its tag and style), beside its lines.
BLOCK_FRAME_BYTES: Final = len(_pre_block([], 9, False))
#: What :func:`cut_note` may take, reserved by each file.
CUT_NOTE_BYTES: Final = 600


def cut_note(lines: int, size: int, bound: Bound, what: str = "of this file") -> str:
    """The marker of what the view left out: how much, and where the whole is."""
    amount = cut_amount(lines, size)
    return (
        f'<div data-applypatch-cut="{lines}" style="margin:2px 0;padding:2px 6px;'
        f'border-left:3px solid #c49102;{_MUTED}">✂ {html.escape(amount)} {html.escape(what)} '
        f"{html.escape(bound.cut)}: {html.escape(bound.where)}</div>"
    )


#: The least bytes a row of lines takes (its block, gutter and sign, an empty line): a file
#: with a budget of N bytes can show at most N // LEAST_ROW_BYTES of its lines, so the rest are
#: not even lexed.
LEAST_ROW_BYTES: Final = 60


def _within(file: FileView, budget: int) -> FileView:
    """``file`` with at most the lines ``budget`` bytes can show; the rest counted as cut."""
    rows, cut, cut_bytes = _first_lines(file.rows, max(1, budget // LEAST_ROW_BYTES))
    if not cut:
        return file
    return replace(
        file,
        rows=tuple(rows),
        cut_lines=file.cut_lines + cut,
        cut_bytes=file.cut_bytes + cut_bytes,
        added_lines=file.added,
        removed_lines=file.removed,
    )


def file_html(
    file: FileView,
    anchor: str,
    budget: ByteBudget,
    visible: Callable[[str], str],
    bound: Bound,
    *,
    open_file: bool = True,
) -> str:
    """One file as a ``<details>``: its summary (kind, path, counts, bar), its ``diff --git``
    lines behind a toggle, its lines in blocks with long runs folded, and a cut marker for
    what did not fit ``budget`` (or was left out before)."""
    file = _within(file, budget.left)
    rows = pair_words([r for r in file.rows if r.kind != "header"])
    headers = [r.text for r in file.rows if r.kind == "header"]
    sources = colour_rows(file.language_path, rows)
    numbers = [n for r in rows for n in (r.old, r.new) if n is not None]
    digits = len(str(max(numbers, default=1)))
    summary = (
        '<summary style="cursor:pointer;padding:3px 6px;background-color:rgba(128,128,128,0.12)">'
        f"{f'<b>{html.escape(file.label)}</b> ' if file.label else ''}<code>"
        f"{_esc(file.path[:300], visible)}</code>"
        f"{counts_html(file.added, file.removed)}</summary>"
    )
    head = ""
    if headers:
        first = _esc(headers[0], visible)
        rest = "\n".join(_esc(h, visible) for h in headers)
        head = (
            f'<details style="margin:0 6px"><summary style="cursor:pointer;{_MUTED};{MONO};'
            f'font-size:12px">{first} ({plural(len(headers), "header line")})'
            f'</summary><pre style="margin:0;{_MUTED};{MONO};font-size:12px">{rest}</pre>'
            "</details>"
        )
    open_attr = " open" if open_file else ""
    start = (
        f'<details{open_attr} id="{anchor}" '
        f'data-applypatch-file="{_esc(file.path[:300], visible)}" '
        f'style="margin:4px 0;border:1px solid {_BORDER};border-radius:4px">{summary}{head}'
    )
    end = "</details>"
    budget.left -= _size(start + end) + CUT_NOTE_BYTES  # spent even when over: then nothing more
    parts: list[str] = [start]
    block: list[str] = []
    cut_lines = file.cut_lines
    cut_bytes = file.cut_bytes
    stopped = False
    entries = fold_runs(rows)
    index_of = {id(r): i for i, r in enumerate(rows)}

    def flush() -> None:
        if block:
            parts.append(_pre_block(block, digits, file.preview))
            budget.left -= BLOCK_FRAME_BYTES
            block.clear()

    for entry in entries:
        if stopped:
            for row in entry.rows if isinstance(entry, Fold) else (entry,):
                if row.kind in ("add", "del", "context"):
                    cut_lines += 1
                    cut_bytes += _size(row.text) + 2
            continue
        if isinstance(entry, Fold):
            # as many of the fold's rows as the budget takes (the fold's frame counted first)
            frame = 400
            budget.left -= frame
            inner = []
            for row in entry.rows:
                piece = _row_html(row, sources.get(index_of[id(row)]), visible, digits)
                if not budget.take(piece):
                    stopped = True
                    break
                inner.append(piece)
            budget.left += frame
            for row in entry.rows[len(inner) :]:
                cut_lines += 1
                cut_bytes += _size(row.text) + 2
            count = len(inner)
            if count:
                kind = _KIND_WORDS.get(entry.rows[0].kind, "")
                folded = (
                    f'<details data-applypatch-fold="{count}"><summary style="cursor:pointer;'
                    f'padding:1px 6px;{_MUTED};background-color:{HUNK_BG}">⋯ Show '
                    f"{plural(count, f'more {kind} line')}</summary>"
                    f"{_pre_block(inner, digits, file.preview)}"
                    "</details>"
                )
                budget.left -= _size(folded) - sum(_size(p) for p in inner)
                flush()
                parts.append(folded)
            continue
        piece = _row_html(entry, sources.get(index_of[id(entry)]), visible, digits)
        if budget.take(piece):
            block.append(piece)
        else:
            stopped = True
            if entry.kind in ("add", "del", "context"):
                cut_lines += 1
                cut_bytes += _size(entry.text) + 2
    flush()
    if cut_lines:
        parts.append(cut_note(cut_lines, cut_bytes, bound))
    else:
        budget.left += CUT_NOTE_BYTES
    parts.append(end)
    return "".join(parts)


def _list_entry(file: FileView, anchor: str, visible: Callable[[str], str]) -> str:
    # short: a list may name hundreds of files (the font is the list's, the bar the file's)
    return (
        f'<li><a href="#{anchor}">{_esc(file.path[:300], visible)}</a>'
        f"{counts_html(file.added, file.removed, bar=False)}</li>"
    )


def file_list_html(
    files: Sequence[FileView],
    anchors: Sequence[str],
    visible: Callable[[str], str],
    extra: str = "",
) -> str:
    """The file list: each path with its counts and bar, a link to its file."""
    items = "".join(_list_entry(f, a, visible) for f, a in zip(files, anchors, strict=True))
    return (
        f'<ul aria-label="files" style="margin:4px 0;padding-left:20px;font-size:12px;{MONO}">'
        f"{items}{extra}</ul>"
    )


#: A file that would get less than this of the budget is not shown, only listed (and counted
#: in the marker of the files left out): its frame and cut marker alone take most of it.
LEAST_FILE_BYTES: Final = 2048


def _need(file: FileView) -> int:
    """About what ``file`` takes whole (the order in which the files are served)."""
    lines = _lines(file.rows)
    return 800 + sum(_size(r.text) + 120 for r in lines) + file.cut_bytes + 120 * file.cut_lines


def _file_list(
    files: Sequence[FileView],
    anchors: Sequence[str],
    budget: ByteBudget,
    visible: Callable[[str], str],
) -> str:
    """Every file with its counts, in at most a quarter of ``budget`` (the rest of the list
    counted in its last entry)."""
    room = budget.left // 4
    listed = 0
    for file, anchor in zip(files, anchors, strict=True):
        room -= _size(_list_entry(file, anchor, visible))
        if room < 0:
            break
        listed += 1
    rest = files[listed:]
    extra = (
        f"<li>… and {plural(len(rest), 'more file')} "
        f"({counts_html(sum(f.added for f in rest), sum(f.removed for f in rest), bar=False)}), "
        "not listed</li>"
        if rest
        else ""
    )
    listing = file_list_html(files[:listed], anchors[:listed], visible, extra)
    budget.left -= _size(listing)
    return listing


def files_html(
    files: Sequence[FileView],
    anchor_prefix: str,
    budget: ByteBudget,
    visible: Callable[[str], str],
    bound: Bound,
    *,
    open_files: bool = True,
) -> str:
    """The file list (more than one file: every file with its counts) and every file, within
    ``budget``, shared fairly (:func:`~.bound.fair_shares`): the small files whole, what they
    leave to the large ones, which are cut. A file whose share would be too small to show
    anything is only listed; one marker counts those (how many, their lines and bytes)."""
    anchors = [f"{anchor_prefix}-{i}" for i in range(len(files))]
    listing = _file_list(files, anchors, budget, visible) if len(files) > 1 else ""
    shown: list[str] = [""] * len(files)

    def spend(index: int, share: int) -> int:
        own = ByteBudget(share)
        shown[index] = file_html(
            files[index], anchors[index], own, visible, bound, open_file=open_files
        )
        return _size(shown[index])

    room = budget.left - CUT_NOTE_BYTES  # the marker of the files left out, if any
    spent = fair_shares([_need(f) for f in files], room, LEAST_FILE_BYTES, spend)
    budget.left -= sum(_size(piece) for piece in shown)
    rest = [f for f, done in zip(files, spent, strict=True) if not done]
    note = ""
    if rest:
        lines = sum(f.cut_lines + len(_lines(f.rows)) for f in rest)
        size = sum(f.cut_bytes + sum(_size(r.text) + 2 for r in _lines(f.rows)) for f in rest)
        note = cut_note(lines, size, bound, f"in {plural(len(rest), 'more file')}")
        budget.left -= _size(note)
    return listing + "".join(shown) + note


def change_counts(change: Mapping[str, Any]) -> tuple[int, int]:
    """The added and removed lines of a change of a change map: an Add's lines (those a
    view's cut left out too), a Delete's, an Update's diff lines (a cut part is not counted:
    its lines are not known as added or removed)."""
    kind = change.get("type")
    if kind == "update":
        return diff_counts(str(change.get("unified_diff") or ""))
    if kind not in ("add", "delete"):
        return 0, 0
    content = str(change.get("content") or "")
    lines = content.count("\n") + (0 if not content or content.endswith("\n") else 1)
    lines += int(change.get("cut_lines") or 0)
    return (lines, 0) if kind == "add" else (0, lines)


#: What a change of each type is called (js/src/diff-model.js ``changeLabel``).
CHANGE_LABELS: Final[Mapping[str, str]] = {"add": "Add", "delete": "Delete", "update": "Update"}


def change_files(
    changes: Mapping[str, Any], relative: Callable[[str], str], *, preview: bool, limit: int
) -> list[FileView]:
    """The files of a change map (the verified ``proposed`` or the ``planned`` one): an
    Update's diff, an Add's content as added lines, a Delete's as removed lines; at most
    ``limit`` lines of each are kept (the rest counted as cut)."""
    out = []
    for path, change in changes.items():
        if not isinstance(change, Mapping):
            continue
        kind = str(change.get("type", ""))
        move = change.get("move_path")
        # what the view's own cut left out of the text (jupyter/live/state.py view_changes)
        view_lines = int(change.get("cut_lines") or 0)
        view_bytes = int(change.get("cut_bytes") or 0)
        label = "Move" if kind == "update" and move else CHANGE_LABELS.get(kind, kind or "?")
        shown = relative(str(path)) + (f" → {relative(str(move))}" if move else "")
        if kind in ("add", "delete"):
            content = str(change.get("content") or "")
            rows, total = content_rows("add" if kind == "add" else "del", content, limit)
            kept_bytes = sum(len(r.text.encode("utf-8", "surrogatepass")) + 1 for r in rows)
            cut_bytes = max(0, len(content.encode("utf-8", "surrogatepass")) - kept_bytes)
            total += view_lines
            out.append(
                FileView(
                    label,
                    shown,
                    tuple(rows),
                    str(path),
                    total - len(rows),
                    (cut_bytes if total > len(rows) else 0) + view_bytes,
                    preview,
                    *change_counts(change),
                )
            )
        else:
            rows = diff_rows(str(change.get("unified_diff") or ""))
            every = rows
            rows, cut, cut_bytes = _first_lines(every, limit)
            out.append(
                FileView(
                    label,
                    shown,
                    tuple(rows),
                    str(move or path),
                    cut + view_lines,
                    cut_bytes + view_bytes,
                    preview,
                    # the lines the view's cut left out are counted as cut, not as +/-
                    *change_counts(change),
                )
            )
    return out


def _first_lines(rows: Sequence[Row], limit: int) -> tuple[list[Row], int, int]:
    """The rows up to the ``limit``-th line; how many lines and bytes were left out."""
    out: list[Row] = []
    lines = cut = cut_bytes = 0
    for row in rows:
        if row.kind in ("add", "del", "context"):
            if lines >= limit:
                cut += 1
                cut_bytes += _size(row.text) + 2
                continue
            lines += 1
        elif lines >= limit:
            continue
        out.append(row)
    return out, cut, cut_bytes


def _lines(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r.kind in ("add", "del", "context")]


_size = size_of


def block_files(
    blocks: Sequence[tuple[str, str, str]],
    limit: int,
    view_cuts: Sequence[tuple[int, int]] = (),
) -> list[FileView]:
    """The files of a TurnDiff, from the tracker's blocks ``(label, path, diff)``;
    ``view_cuts``: per block, the lines and bytes the view's own cut left out of its diff."""
    out = []
    for index, (label, path, text) in enumerate(blocks):
        every = diff_rows(text)
        rows, cut, cut_bytes = _first_lines(every, limit)
        if index < len(view_cuts):
            cut, cut_bytes = cut + view_cuts[index][0], cut_bytes + view_cuts[index][1]
        out.append(
            FileView(
                "",
                label,
                tuple(rows),
                path,
                cut,
                cut_bytes,
                False,
                _count(every, "add"),
                _count(every, "del"),
            )
        )
    return out
