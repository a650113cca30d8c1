"""The diff model's one contract (docs/diff-model.md): the widget's model (js/src/diff-model.js,
run by node as tests/js/diff_oracle.mjs) and the static record's (static_diff.py) give the same
rows, word segments, folds and bars on the same inputs, over full Unicode: characters above
U+FFFF (one code point, two UTF-16 units), combining marks, CR, NUL, the spaces each language
would class differently, code points no Unicode version assigns yet, and lines too long to
compare. Hypothesis draws the inputs (derandomized: the same examples each run; ``make fuzz``
draws 50 times as many); the oracle process is started once for the module.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from applypatch_ext.jupyter.records import static_diff

from ..conftest import unavailable
from ..reliability._support import scaled

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "tests" / "js" / "diff_oracle.mjs"
PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Oracle:
    """The widget's diff model in a node process: ``ask(op, args)`` is one request."""

    def __init__(self, node: str) -> None:
        self.proc = subprocess.Popen(
            [node, str(ORACLE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def ask(self, op: str, args: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"op": op, "args": args}) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer, f"the oracle died (exit {self.proc.poll()})"
        return json.loads(answer)

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()


@pytest.fixture(scope="module")
def widget() -> Iterator[Oracle]:
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the widget's diff model runs in node)")
    oracle = Oracle(node)
    yield oracle
    oracle.close()


# -- the inputs ---------------------------------------------------------------------------------

#: What a language is most likely to class its own way: astral letters, symbols and unassigned
#: code points (CJK Extension H is Unicode 15.0: Python 3.11 knows none of it, node's ICU all),
#: combining marks, joiners, the spaces of one language only (U+001C, U+0085; U+FEFF), CR, NUL.
SPECIAL = [
    "\r", "\x00", "\t", " ", "\u00a0", "\u3000", "\ufeff", "\x1c", "\x85", "\u2028",
    "\u0301", "\u200d", "\U0001f600", "\U0001d400", "\U00020000", "\U00031350",
    "\U000e0001", "\U0010fffd", "_", "\u00e9", "\u00df", "\u0663", "\u00bd", "-", "(", "x",
]  # fmt: skip
CHARS = st.one_of(
    st.characters(exclude_categories=["Cs"]),
    st.characters(min_codepoint=0x10000, exclude_categories=["Cs"]),
    st.sampled_from(SPECIAL),
)
TOKEN = st.one_of(
    st.text(CHARS, min_size=1, max_size=6),
    st.sampled_from(
        ["a", "b", " ", "  ", "12", "e\u0301", "\U00031350\U00031351", "\x1c\x1c", "\ufeff\ufeff"]
    ),
)


@st.composite
def line_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A removed line and its edited counterpart: tokens kept, changed, dropped and added."""
    tokens = draw(st.lists(TOKEN, max_size=24))
    edited: list[str] = []
    for token in tokens:
        edit = draw(st.sampled_from(["keep", "keep", "keep", "change", "tweak", "drop", "add"]))
        if edit == "keep":
            edited.append(token)
        elif edit == "change":
            edited.append(draw(TOKEN))
        elif edit == "tweak":  # one code point of it changed: how words are cut decides
            at = draw(st.integers(0, len(token) - 1))
            edited.append(token[:at] + draw(CHARS) + token[at + 1 :])
        elif edit == "add":
            edited += [token, draw(TOKEN)]
    return "".join(tokens), "".join(edited)


@st.composite
def long_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """Very long lines: one long token, or so many tokens that the pair is too long to compare
    (over WORD_DIFF_CELLS) or only just below it."""
    token = draw(st.text(CHARS, min_size=1, max_size=3))
    count = draw(st.sampled_from([150, 199, 201, 400, 1500]))
    words = [f"{token}{i % 7}" for i in range(count)]
    if draw(st.booleans()):
        return token * count * 10, token * count * 10 + draw(TOKEN)
    return " ".join(words), " ".join([*words[1:], draw(TOKEN)])


HEADS = [
    "+", "-", " ", "", "\\", "@@", "*** End of File", "diff --git a/x b/x", "--- a/x", "+++ b/x",
    "index 1111111..2222222 100644",
]  # fmt: skip


@st.composite
def diffs(draw: st.DrawFn) -> str:
    """A unified diff's text: hunk headers with any numbers (empty sides too), file headers,
    lines of every kind whose text is drawn from full Unicode, long runs that fold."""
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["line", "line", "line", "hunk", "run"]))
        if kind == "hunk":
            a, b, c, d = (draw(st.integers(0, 99)) for _ in range(4))
            lines.append(f"@@ -{a},{b} +{c},{d} @@" + draw(st.sampled_from(["", " def f():"])))
        elif kind == "run":
            sign = draw(st.sampled_from(["+", "-", " "]))
            lines += [f"{sign}{draw(TOKEN)}"] * draw(st.integers(55, 130))
        else:
            text = draw(st.text(CHARS.filter(lambda c: c != "\n"), max_size=30))
            lines.append(draw(st.sampled_from(HEADS)) + text.replace("\n", ""))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


# -- the two sides --------------------------------------------------------------------------------


def _segments(pair: Any) -> Any:
    return None if pair is None else [[[d, t] for d, t in side] for side in pair]


def _rows(text: str) -> dict[str, Any]:
    rows = static_diff.pair_words(static_diff.diff_rows(text))
    folds = [
        ["fold", len(e.rows)]
        if isinstance(e, static_diff.Fold)
        else ["line" if e.kind in ("add", "del", "context") else e.kind, 1]
        for e in static_diff.fold_runs(static_diff.diff_rows(text))
    ]
    return {"rows": [static_diff.row_json(r) for r in rows], "folds": folds}


def test_the_limits_are_the_same(widget: Oracle) -> None:
    limits = widget.ask("limits", None)
    assert [limits["max"], limits["head"], limits["tail"]] == [
        static_diff.FOLD_MAX,
        static_diff.FOLD_HEAD,
        static_diff.FOLD_TAIL,
    ]
    assert limits["cells"] == static_diff.WORD_DIFF_CELLS
    assert limits["minSame"] == static_diff.WORD_DIFF_MIN_SAME


@settings(PROPERTY, max_examples=scaled(200))
@given(pairs=st.lists(st.one_of(line_pairs(), line_pairs(), long_pairs()), min_size=1, max_size=4))
def test_word_segments_agree(widget: Oracle, pairs: list[tuple[str, str]]) -> None:
    expected = [_segments(static_diff.word_segments(a, b)) for a, b in pairs]
    assert widget.ask("words", pairs) == expected


@settings(PROPERTY, max_examples=scaled(100))
@given(text=diffs())
def test_rows_words_and_folds_agree(widget: Oracle, text: str) -> None:
    assert widget.ask("diff", text) == _rows(text)


@settings(PROPERTY, max_examples=scaled(60))
@given(kind=st.sampled_from(["add", "delete"]), content=st.text(CHARS, max_size=200))
def test_an_add_or_delete_is_the_same_rows(widget: Oracle, kind: str, content: str) -> None:
    rows, _ = static_diff.content_rows("add" if kind == "add" else "del", content)
    assert widget.ask("content", [kind, content]) == [static_diff.row_json(r) for r in rows]


@settings(PROPERTY, max_examples=scaled(60))
@given(bars=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), max_size=20))
def test_bars_agree(widget: Oracle, bars: list[tuple[int, int]]) -> None:
    assert widget.ask("bars", bars) == [static_diff.change_bar(a, r) for a, r in bars]


#: Pairs on which the two models of before the contract disagreed, each for one reason: named,
#: so that a regression says which (the property tests find them too, among others).
KNOWN = {
    # UTF-16 units against code points: 2 of 4 unchanged against 1 of 3 (the rewrite threshold)
    "astral shared, ASCII changed": ("\U0001f600 ab", "\U0001f600 cd"),
    # Python's \s has U+001C..U+001F and U+0085, JavaScript's \s has U+FEFF
    "a space of Python only (U+001C)": ("\x1c\x1c\x1c ab", "\x1c\x1c\x1c cd"),
    "a space of JavaScript only (U+FEFF)": ("\ufeff\ufeff\ufeff ab", "\ufeff\ufeff\ufeff cd"),
    # Unicode 15.0 letters: node's ICU has them as one word, Python 3.11 as unassigned
    "letters of Unicode 15 (CJK Extension H)": ("\U00031350\U00031351 x", "\U00031350\U00031352 x"),
}


@pytest.mark.parametrize("pair", KNOWN.values(), ids=KNOWN.keys())
def test_what_once_told_them_apart(widget: Oracle, pair: tuple[str, str]) -> None:
    assert widget.ask("words", [pair]) == [_segments(static_diff.word_segments(*pair))]


def test_the_word_classes_are_what_the_tool_writes() -> None:
    """applypatch_ext/js/diff-words.json is tools/diff_words.py's table for the Unicode version
    it names (checked where this Python has that version: another one would move it)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import diff_words
    finally:
        sys.path.remove(str(ROOT / "tools"))
    committed = json.loads(diff_words.OUTPUT.read_text(encoding="utf-8"))
    assert committed["space"] == [list(r) for r in diff_words.SPACE]
    if committed["unicode"] != unicodedata.unidata_version:
        pytest.skip(f"the table is Unicode {committed['unicode']}, this Python has another")
    assert diff_words.OUTPUT.read_text(encoding="utf-8") == diff_words.render(diff_words.table())
