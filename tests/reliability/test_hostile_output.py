"""The attack: a file name or a file's content that breaks the output showing it.

* The Markdown fallback let raw HTML through once rendered: a backtick in a path closed the
  inline code around it, a ```` ``` ```` line in a file closed the fence around the diff. The
  Markdown is rendered here with a real CommonMark renderer (markdown-it-py, raw HTML enabled
  as in Jupyter) and the HTML it gives is parsed: no ``<img>``, no ``<script>``, no ``on*=``
  attribute, no raw ``<img`` text.
* The plain-text fallback carried raw ESC, CR and bidi controls to the terminal: they are shown
  as ``␛``, ``␍`` and ``\\u202e`` (see the top of applypatch_ext/jupyter/records/display.py).
* A path containing `` b/`` was shown under the wrong name in the TurnDiff summaries: the
  names now come from the tracker, not from the ``diff --git`` header.

All through the magic in a real IPython shell, against real files.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from markdown_it import MarkdownIt

from applypatch_ext.jupyter.records.display import render_html, render_markdown, render_plain
from applypatch_ext.markup import md_code, md_fence, visible

from ._ipython import ipython  # noqa: F401 - the fixture

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
BACKTICK_NAME = f"a`{IMG}`.txt"
CONTROL_NAME = "log\x1b[2J\x1b]0;pwned\x07\rok\u202etxt.exe"
SPACE_B_DIR = "x b"  # the file x b/y: its header reads "diff --git a/x b/y b/x b/y"
HOSTILE_CONTENT = f"```\n{IMG}\n````\n{SCRIPT}\n\x1b[31mred\r\u202eevil\n"


class _Tags(HTMLParser):
    """Every tag and attribute of an HTML text, as a browser's parser would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes.extend(name for name, _ in attrs)


def assert_harmless_html(html_text: str) -> None:
    parser = _Tags()
    parser.feed(html_text)
    parser.close()
    assert not {"img", "script", "iframe", "svg", "object"} & set(parser.tags), parser.tags
    assert not [a for a in parser.attributes if a.lower().startswith("on")], parser.attributes
    assert "<img" not in html_text and "<script" not in html_text


def rendered(markdown: str) -> str:
    """The Markdown as a CommonMark renderer turns it into HTML (raw HTML allowed)."""
    page: str = MarkdownIt("commonmark", {"html": True}).render(markdown)
    return page


def assert_no_raw_controls(text: str) -> None:
    for char in ("\x1b", "\r", "\x07", "\u202e", "\x9b"):
        assert char not in text, repr(char)


def run_hostile_turn(ip: InteractiveShell, tmp_path: Path) -> dict[str, Any]:
    """Add, update and delete files with hostile names and contents; return the last display."""
    (tmp_path / SPACE_B_DIR).mkdir()
    (tmp_path / SPACE_B_DIR / "y").write_text("one\n")
    patch = (
        "*** Begin Patch\n"
        f"*** Add File: {BACKTICK_NAME}\n"
        + "".join(f"+{line}\n" for line in HOSTILE_CONTENT.rstrip("\n").split("\n"))
        + f"*** Add File: {CONTROL_NAME}\n+fine\n"
        + f"*** Update File: {SPACE_B_DIR}/y\n@@\n-one\n+{IMG}\n"
        + "*** End Patch\n"
    )
    with capture_output() as captured:
        ip.run_cell_magic("apply_patch", "r --no-widget", patch)
    assert ip.user_ns["r"].status == "completed", ip.user_ns["r"].error
    assert (tmp_path / CONTROL_NAME).read_text() == "fine\n"
    return captured.outputs[-1].data


def test_the_markdown_fallback_renders_no_live_html(
    ipython: InteractiveShell,  # noqa: F811
    tmp_path: Path,
) -> None:
    data = run_hostile_turn(ipython, tmp_path)
    markdown = data["text/markdown"]
    page = rendered(markdown)
    assert_harmless_html(page)
    assert_no_raw_controls(page)
    # The names are all there, as text: escaped, not dropped.
    assert "a`&lt;img src=x onerror=alert(1)&gt;`.txt" in page
    assert "log␛[2J␛]0;pwned␇␍ok\\u202etxt.exe" in page
    # The TurnDiff of %apply_patch_turn too.
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_turn", "")
    turn_page = rendered(captured.outputs[-1].data["text/markdown"])
    assert_harmless_html(turn_page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in turn_page


def test_the_html_fallback_is_escaped_and_names_files_from_the_tracker(
    ipython: InteractiveShell,  # noqa: F811
    tmp_path: Path,
) -> None:
    data = run_hostile_turn(ipython, tmp_path)
    page = data["text/html"]
    assert_harmless_html(page)
    assert_no_raw_controls(page)
    # the record's summary of the turn: its files, escaped, by the tracker's names
    turn = page[page.index("<b>Turn diff</b>") :]
    for name in ("a`&lt;img src=x onerror=alert(1)&gt;`.txt", "<code>x b/y</code>"):
        assert name in turn
    # %apply_patch_turn: the turn diff's files (ids ``...-t-N``), each in data-applypatch-file
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_turn", "")
    page = captured.outputs[-1].data["text/html"]
    assert_harmless_html(page)
    assert_no_raw_controls(page)
    summaries = re.findall(r'<details[^>]* id="[^"]*-t-\d+" data-applypatch-file="([^"]*)"', page)
    assert summaries == sorted(
        [
            "a`&lt;img src=x onerror=alert(1)&gt;`.txt",
            "log␛[2J␛]0;pwned␇␍ok\\u202etxt.exe",
            "x b/y",  # not "y b/x b/y": the header cannot say where the name ends
        ]
    )
    result = ipython.user_ns["r"]
    assert [f["path"] for f in result.state_json()["turn_diff_files"]] == [
        BACKTICK_NAME,
        CONTROL_NAME,
        f"{SPACE_B_DIR}/y",
    ]


def test_the_plain_text_fallback_carries_no_control_characters(
    ipython: InteractiveShell,  # noqa: F811
    tmp_path: Path,
) -> None:
    data = run_hostile_turn(ipython, tmp_path)
    plain = data["text/plain"]
    assert_no_raw_controls(plain)
    assert "log␛[2J␛]0;pwned␇␍ok\\u202etxt.exe" in plain
    assert "+␛[31mred␍" in plain  # the content, in the call's own changes
    assert "\\u202eevil" in plain
    assert plain.count("\n") > 10  # a block's lines stay lines
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_turn", "")
    turn = captured.outputs[-1].data["text/plain"]
    assert_no_raw_controls(turn)
    assert "+␛[31mred␍" in turn and "\\u202eevil" in turn  # the turn diff


@pytest.mark.parametrize(
    "text",
    ["`", "``", "a`b", "`a", "a`", " `` ", "```", "x````y", IMG, f"`{IMG}`", "  ", "\n\n<img>"],
)
def test_inline_code_holds_any_text(text: str) -> None:
    page = rendered(f"- {md_code(text)}")
    assert_harmless_html(page)
    code = page.split("<code>", 1)[1].split("</code>", 1)[0]
    expected = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert code == expected.replace('"', "&quot;")


@pytest.mark.parametrize("text", ["```", "````\n```", f"```\n{IMG}\n```", "~~~\n" + SCRIPT])
def test_a_fence_holds_any_text(text: str) -> None:
    page = rendered("\n".join(["before", *md_fence(text, "diff"), "after " + IMG.replace("<", "")]))
    assert_harmless_html(page)
    assert page.count("<pre>") == 1
    assert page.endswith("<p>after img src=x onerror=alert(1)&gt;</p>\n")


def test_every_renderer_of_a_state_is_harmless() -> None:
    state = {
        "call_id": f"c`{IMG}",
        "cwd": CONTROL_NAME,
        "stage": SCRIPT,
        "status": IMG,
        "safety": {"decision": f"`{IMG}", "reason": f"{IMG} [x](javascript:alert(1)) *b*"},
        "approval": {"files": [CONTROL_NAME, BACKTICK_NAME]},
        "proposed": {
            BACKTICK_NAME: {"type": "add"},
            CONTROL_NAME: {"type": "update", "move_path": IMG},
        },
        "delta": {"exact": True, "changes": [{"type": "add", "path": BACKTICK_NAME}]},
        "stdout": HOSTILE_CONTENT,
        "stderr": HOSTILE_CONTENT,
        "error": HOSTILE_CONTENT,
        "turn_diff": HOSTILE_CONTENT,
        "turn_diff_files": [{"old_path": IMG, "path": CONTROL_NAME, "diff": HOSTILE_CONTENT}],
        "events": [{"type": "x", "time": 0.0, "summary": CONTROL_NAME}],
    }
    page = rendered(render_markdown(state))
    assert_harmless_html(page)
    assert 'href="javascript' not in page
    assert_no_raw_controls(page)
    assert_harmless_html(render_html(state))
    assert_no_raw_controls(render_html(state))
    assert_no_raw_controls(render_plain(state))


def test_the_tracker_names_its_blocks(tmp_path: Path) -> None:
    from applypatch_ext.core.apply.changes import AppliedAdd, AppliedPatchDelta, AppliedUpdate
    from applypatch_ext.core.turn.turn_diff import FileDiff, TurnDiffTracker

    root = str(tmp_path)
    tracker = TurnDiffTracker({"": root})
    tracker.track_delta(
        AppliedPatchDelta(
            (
                AppliedAdd(f"{root}/x b/y", "new\n", "old\n"),
                AppliedUpdate(f"{root}/old b/x", f"{root}/z", "a\n", None, "b\n"),
            )
        )
    )
    files = tracker.file_diffs()
    assert [(f.old_path, f.path) for f in files] == [("old b/x", "z"), ("x b/y", "x b/y")]
    assert "".join(f.text for f in files) == tracker.get_unified_diff()
    assert all(isinstance(f, FileDiff) for f in files)
    tracker.invalidate()
    assert tracker.file_diffs() == ()
