"""The static views of a call's review and undo panel (jupyter/records/panels.py): bounded,
and no file name or content can break what shows them (the same rules as display.py's)."""

from __future__ import annotations

from typing import Any

from applypatch_ext.core.turn.review import file_label
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.records.conflicts import (
    CONFLICTS,
    VERSION_CHARS,
    bounded_conflict,
    bounded_state,
    version_text,
)
from applypatch_ext.jupyter.records.display import render_html, render_markdown, render_plain

from .js_samples import review_sample

HOSTILE = "x\x1b[2J\u202e`<img src=x onerror=alert(1)>.txt"


def state(**traits: Any) -> dict[str, Any]:
    widget = ApplyPatchWidget(call_id="call-1", cwd="/w", **traits)
    return widget.state_json()


def version(content: str | None) -> dict[str, Any]:
    return {"exists": content is not None, "content": content, "mode": "0o644", "sha256": "ab"}


def conflict(path: str, now: str) -> dict[str, Any]:
    return {
        "path": path,
        "abs_path": f"/w/{path}",
        "kind": "undo",
        "reason": f"{path} is not as the call left it: now {len(now)} bytes",
        "before": version("before\n"),
        "left": version("left\n"),
        "now": version(now),
    }


def test_hostile_names_and_contents_are_harmless_in_every_view() -> None:
    review = {
        "selectable": True,
        "patch": "p",
        "files": [
            {
                "path": f"/w/{HOSTILE}",
                "kind": "add",
                "move_path": None,
                "whole": True,
                "text": f"*** Add File: {HOSTILE}\n+\x1b]0;pwned\x07",
                "chunks": [],
                "label": file_label(f"/w/{HOSTILE}", "add", None, 0, "/w"),
            }
        ],
    }
    last = {"kind": "undo", "call_id": "call-2", "status": "error", "error": "bad\x1b[31m"}
    undo = {
        "place": {"index": 1, "count": 2, "turn_id": "turn-1"},
        "can_undo": True,
        "can_redo": False,
        "last": {**last, "conflicts": [conflict(HOSTILE, "```\n</pre><script>x</script>\n")]},
    }
    shown = state(review=review, undo=undo)
    plain, markdown, html = render_plain(shown), render_markdown(shown), render_html(shown)
    for text in (plain, markdown, html):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
        assert "␛" in text and "\\u202e" in text
    assert "<img" not in html and "<script>" not in html and "&lt;script&gt;" in html
    # in Markdown a name is code, in a span no backtick of it can close
    assert "``x␛[2J\\u202e`<img src=x onerror=alert(1)>.txt (added, all or nothing)``" in markdown
    assert "````" in markdown  # a fence longer than the file's own backticks
    assert "review: 1 file, 0 chunks, each to apply or leave out" in plain
    assert "last undo (call-2): error" in plain


def test_the_records_review_shows_the_words_python_gives_the_widget() -> None:
    """The labels and fuzzy notes of review_files, the very ones the widget shows (the node
    tests render the same sample), in every view of the record."""
    review = review_sample()
    shown = state(review={**review, "patch": "p"})
    plain, markdown, html = render_plain(shown), render_markdown(shown), render_html(shown)
    words = [f["label"] for f in review["files"]]
    words += [c[key] for f in review["files"] for c in f["chunks"] for key in ("label", "note")]
    for text in (plain, markdown.replace("\\", ""), html.replace("&#x27;", "'")):
        assert all(word in text for word in words if word), text
    assert "a.txt chunk 2 of 3, line 4\n      matched by the rstrip pass: the file's text " in plain
    assert "differs from the patch's (patch 'four', file 'four  ')" in plain


def test_versions_and_conflicts_are_bounded_with_a_marker() -> None:
    huge_line = "y" * (VERSION_CHARS * 3)
    cut = bounded_state(version(huge_line + "\nsecond\n"))
    assert cut is not None and len(cut["content"]) <= VERSION_CHARS + 2
    assert cut["more_lines"] == 1 and cut["sha256"] == "ab"  # the hash is the whole file's
    assert version_text(cut).endswith("… 1 more line\n")
    assert bounded_state(None) is None
    assert version_text(None) == "(not readable as a text file)"
    assert version_text(version(None)) == "(absent)"
    assert version_text(version("")) == "(empty, mode 0o644, sha256 ab)"

    many = [bounded_conflict(conflict(f"f{i}.txt", "now\n")) for i in range(CONFLICTS + 3)]
    undo = {"place": {"index": 1, "count": 1, "turn_id": "turn-1"}, "of": "call-1", "kind": "undo"}
    plain = render_plain(state(undo={**undo, "conflicts": many}))
    assert "undo: call 1 of 1 in turn-1 · undo of call-1" in plain
    assert plain.count("--- as the call left it") == CONFLICTS
    assert "… 3 more conflicting files" in plain


def test_an_undo_or_redo_panel_says_statuses_in_words() -> None:
    """Issue 23 item 10: the last undo's or redo's status as the vocabulary says it, never the
    raw name ("awaiting-approval"), in every representation of the record."""
    for kind in ("undo", "redo"):
        last = {
            "kind": kind,
            "call_id": "call-2",
            "status": "awaiting-approval",
            "approval": {"files": ["/w/u.txt"], "request_id": "r"},
        }
        undo = {"place": {"index": 1, "count": 2, "turn_id": "turn-1"}, "can_undo": True}
        shown = state(undo={**undo, "last": last})
        for text in (render_plain(shown), render_markdown(shown), render_html(shown)):
            assert f"last {kind} (call-2): waiting for approval" in text.replace("\\", "")
            assert "awaiting-approval" not in text
