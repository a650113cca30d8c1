"""What exercises show (applypatch_ext/exercises/document.py): hostile text harmless in all
three forms, long blocks folded or cut with a note, whitespace made visible on request."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from applypatch_ext.exercises.document import (
    FOLD_LINES,
    Block,
    Code,
    Element,
    Heading,
    Items,
    Para,
    Tone,
    render,
    say,
)
from applypatch_ext.exercises.model import Feedback, Verdict

HOSTILE = "<img src=x onerror=alert(1)>``` \x1b[31m\u202e"


def test_hostile_text_is_harmless_everywhere() -> None:
    elements: list[Element] = [
        Heading(say(HOSTILE, Code(HOSTILE)), Tone.BAD, "!"),
        Para(say("a path ", Code(f"`{HOSTILE}`"), " and words ", HOSTILE)),
        Items((say(Code(HOSTILE)),)),
        Block(say("file ", Code(HOSTILE)), f"{HOSTILE}\n```\nline\r\n", numbered=True),
    ]
    html = render(elements, "html")
    assert "<img" not in html and "\x1b" not in html and "\u202e" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "\u241b" in html
    markdown = render(elements, "markdown")
    assert "\x1b" not in markdown and "\u202e" not in markdown
    page = MarkdownIt("commonmark", {"html": True}).render(markdown)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    plain = render(elements, "plain")
    assert "\x1b" not in plain and "\\u202e" in plain and "line\u240d" in plain


def test_a_long_block_is_folded_in_html_and_cut_elsewhere() -> None:
    text = "".join(f"line {n}\n" for n in range(1, FOLD_LINES + 11))
    block = Block(say("big"), text, numbered=True, whole="print(ex.files['big'])")
    html = render([block], "html")
    assert f"<details><summary>big ({FOLD_LINES + 10} lines)</summary>" in html
    assert f"line {FOLD_LINES + 10}" in html
    plain = render([block], "plain")
    assert f"line {FOLD_LINES}\n" in plain and f"line {FOLD_LINES + 1}\n" not in plain
    assert plain.endswith("(10 more lines: print(ex.files['big']))")
    markdown = render([block], "markdown")
    assert markdown.endswith("\\(10 more lines\\: print\\(ex\\.files\\[\\'big\\'\\]\\)\\)")


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("\tif x:", "\u2192\tif x:"),
        ("    y = 1  ", "\u00b7\u00b7\u00b7\u00b7y = 1\u00b7\u00b7"),
        ("a b\tc", "a b\u2192\tc"),
        ("  ", "\u00b7\u00b7"),
    ],
)
def test_whitespace_shown(line: str, shown: str) -> None:
    assert render([Block(say("t"), line, whitespace=True)], "plain") == f"t:\n    {shown}"


def test_feedback_in_three_forms() -> None:
    feedback = Feedback("ex-1", Verdict.WRONG, say("line ", Code("2"), " differs."))
    assert str(feedback) == repr(feedback) == "\u2717 Not yet: line `2` differs."
    assert feedback._repr_markdown_() == "**\u2717 Not yet\\: line `2` differs\\.**"
    assert "var(--jp-error-color1" in feedback._repr_html_()
    assert not feedback.right
