"""The static record's diff view (static_diff.py via display.render_html) and its bound: the HTML
parsed and checked for gutters, syntax colours, word marks, folds, the header toggle, the file
list's anchors, escaping and the cut marker; the diff model checked against the widget's own
(js/widget.js, run by node on the same inputs); the record's size bounded for a 1.2 MB Add."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest

from applypatch_ext.jupyter import static_diff
from applypatch_ext.jupyter.display import (
    RECORD_BOUND,
    WHOLE_DIFF_IS,
    render_html,
    render_markdown,
    render_plain,
)
from applypatch_ext.jupyter.record import record_bundle

JS = Path(__file__).resolve().parents[2] / "js" / "widget.js"
UPDATE_DIFF = "\n".join(
    [
        "@@ -5,5 +5,5 @@",
        '     """Run the app."""',
        "-    value = compute(1, 2)",
        "+    value = compute(1, 3)",
        '     print("hello", value)',
        "-    return run(debug=True, verbose=False)",
        "+    return run(debug=False, verbose=False)",
        "     pass",
        "",
    ]
)
TURN_BLOCK = (
    "diff --git a/app.py b/app.py\nindex 1111111..2222222 100644\n--- a/app.py\n+++ b/app.py\n"
    + UPDATE_DIFF
)


class Tree(HTMLParser):
    """Every element as (tag, attrs, text inside), in document order; fails on unclosed tags."""

    VOID: ClassVar[set[str]] = {"col", "br", "img", "hr", "input", "meta", "link", "wbr"}

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict[str, Any]] = []
        self.stack: list[dict[str, Any]] = []
        self.feed(text)
        self.close()
        assert not self.stack, [e["tag"] for e in self.stack]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(element)
        if tag not in self.VOID:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1]["tag"] == tag, (tag, [e["tag"] for e in self.stack])
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        for element in self.stack:
            element["text"] += data

    def find(self, tag: str, **attrs: str) -> list[dict[str, Any]]:
        return [
            e
            for e in self.elements
            if e["tag"] == tag and all(e["attrs"].get(k) == v for k, v in attrs.items())
        ]


def _state(**extra: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "call_id": "call-1",
        "cwd": "/w",
        "status": "completed",
        "stage": "done",
        "proposed": {
            "/w/hello.py": {
                "type": "add",
                "content": 'def greet(name):\n    return f"hi {name}"\n',
            },
            "/w/app.py": {"type": "update", "unified_diff": UPDATE_DIFF, "move_path": None},
            "/w/notes.txt": {
                "type": "delete",
                "content": "".join(f"line {i}\n" for i in range(1, 151)),
            },
        },
        "turn_diff": TURN_BLOCK,
        "turn_diff_files": [{"old_path": "app.py", "path": "app.py", "diff": TURN_BLOCK}],
    }
    state.update(extra)
    return state


def _saved_size(bundle: dict[str, str]) -> int:
    """The bytes a bundle takes in a notebook file (JSON, as nbformat writes it)."""
    return len(json.dumps(bundle, ensure_ascii=False).encode())


def test_the_static_view_has_gutters_colours_word_marks_and_folds() -> None:
    page = render_html(_state(), anchor="rec")
    tree = Tree(page)
    files = [
        e for e in tree.elements if e["tag"] == "details" and "data-applypatch-file" in e["attrs"]
    ]
    assert [f["attrs"]["data-applypatch-file"] for f in files] == [
        "hello.py",
        "app.py",
        "notes.txt",
        "app.py",  # the turn diff's block
    ]
    # the call's own files open, the turn's aggregate folded under them
    assert all("open" in f["attrs"] for f in files[:3]) and "open" not in files[3]["attrs"]
    # line-number gutters: old and new numbers of each line, beside its sign
    spans = [c["text"] for c in tree.find("span")]
    assert "5 5 " in spans and "6   " in spans and "  6 " in spans and "  1 " in spans
    assert spans[spans.index("6   ") + 1] == "-"
    assert "6   -     value = compute(1, 2)" in spans  # the line's own block
    headers = next(p for p in tree.find("pre") if p["text"].startswith("diff --git"))
    assert headers["text"].split("\n")[1] == "index 1111111..2222222 100644"
    # Pygments colouring (the editor theme's variable, a plain colour under it): `def`, `return`
    keyword = static_diff.themed("color", "--jp-mirror-editor-keyword-color", "#b76ad3")
    assert [s["text"] for s in tree.elements if s["attrs"].get("style", "").startswith(keyword)][
        :2
    ] == ["def", "return"]
    # word-level marks inside the changed lines only: "2" -> "3", "True" -> "False"
    marked = [
        s["text"]
        for s in tree.find("span")
        if static_diff.DEL_WORD_BG in s["attrs"].get("style", "")
        or static_diff.ADD_WORD_BG in s["attrs"].get("style", "")
    ]
    assert marked == ["2", "3", "True", "False"] * 2  # the call's change, then the turn diff's
    # the deleted file's 150 lines: 20 shown, 120 behind "show", the last 10 shown
    folds = [e for e in tree.elements if "data-applypatch-fold" in e["attrs"]]
    assert [f["attrs"]["data-applypatch-fold"] for f in folds] == ["120"]
    assert "open" not in folds[0]["attrs"]
    summary = tree.elements[tree.elements.index(folds[0]) + 1]
    assert summary["tag"] == "summary" and summary["text"] == "⋯ Show 120 more removed lines"
    assert "line 21" in folds[0]["text"] and "line 140" in folds[0]["text"]
    assert "line 141" not in folds[0]["text"] and "line 141" in files[2]["text"]
    # the turn diff's `diff --git` and `index` lines behind a toggle of their own
    toggle = [
        e for e in tree.find("details") if e["text"].startswith("diff --git a/app.py b/app.py (4")
    ]
    assert len(toggle) == 1 and "index 1111111..2222222" in toggle[0]["text"]
    assert "open" not in toggle[0]["attrs"]
    # the file list links to each file of the call
    links = [a["attrs"]["href"] for a in tree.find("a")]
    ids = {e["attrs"]["id"] for e in files}
    assert links == ["#rec-c-0", "#rec-c-1", "#rec-c-2"] and {h[1:] for h in links} <= ids
    # +/- counts and the five-block bar in each file's summary
    assert "+2 -2" in files[1]["text"] and "+0 -150" in files[2]["text"]
    # a gap stands for the unchanged lines before the first hunk
    assert "⋯ 4 unchanged lines" in files[1]["text"]
    # every block of lines is monospace (a plain stack first: a sanitizer drops the variable)
    assert len(tree.find("pre")) >= 7
    for block in tree.find("pre"):
        assert f"font-family:{static_diff.MONO_FONTS};" in block["attrs"]["style"]


def test_the_planned_preview_says_what_it_is() -> None:
    planned = {
        "app.py": {"type": "update", "unified_diff": "@@\n-a = 1\n+a = 2\n", "move_path": None}
    }
    tree = Tree(render_html(_state(proposed={}, planned=planned, turn_diff="", status="")))
    summary = next(s for s in tree.find("summary") if "Planned changes" in s["text"])
    assert summary["text"].startswith("previewPlanned changes · 1 file: planned, nothing written")
    assert any(
        "nothing is read or written yet" in d["text"] and "context lines appear" in d["text"]
        for d in tree.find("div")
    )
    # a progress diff has no numbers: its lines have none either
    spans = [c["text"] for c in tree.find("span")]
    assert spans[spans.index("-") - 1].strip() == ""
    assert any(re.fullmatch(r" +- a = 1", t) for t in spans), spans


def test_hostile_names_and_lines_are_escaped_everywhere() -> None:
    hostile = '<img src=x onerror=alert(1)>"\x1b[2J\u202e.py'
    state = _state(
        proposed={f"/w/{hostile}": {"type": "add", "content": f"{hostile}\n</table></details>\n"}},
        turn_diff="",
        turn_diff_files=[],
    )
    page = render_html(state)
    tree = Tree(page)  # well formed: nothing closed an element early
    assert "<img" not in page and "\x1b" not in page and "\u202e" not in page
    assert "␛[2J\\u202e.py" in page
    assert [t["tag"] for t in tree.elements].count("pre") == 1


def test_a_big_add_is_cut_marked_and_the_record_bounded() -> None:
    lines = [f"VALUE_{i} = {'x' * 90}  # {i}" for i in range(12_000)]  # ~1.2 MB
    content = "\n".join(lines) + "\n"
    diff = "".join(
        [
            "diff --git a/big.py b/big.py\nnew file mode 100644\nindex 0000000..1111111\n",
            "--- /dev/null\n+++ b/big.py\n@@ -0,0 +1,12000 @@\n",
            *(f"+{line}\n" for line in lines),
        ]
    )
    assert len(content) > 1_200_000
    state = _state(
        proposed={"/w/big.py": {"type": "add", "content": content}},
        planned={"big.py": {"type": "add", "content": content}},
        delta={
            "exact": True,
            "changes": [{"type": "add", "path": "/w/big.py", "content": content}],
        },
        stdout="Success. Updated the following files:\nA big.py\n",
        turn_diff=diff,
        turn_diff_files=[{"old_path": "", "path": "big.py", "diff": diff}],
        events=[
            {"type": "patch_apply_updated", "time": i / 100, "summary": "1 file"}
            for i in range(5000)
        ],
    )
    bundle = record_bundle("r" * 32, state)
    assert _saved_size(bundle) <= RECORD_BOUND, {k: len(v) for k, v in bundle.items()}
    tree = Tree(bundle["text/html"])
    # what is cut is marked: how many lines, how many bytes, and where the whole is
    cuts = [e for e in tree.elements if "data-applypatch-cut" in e["attrs"]]
    assert len(cuts) == 2  # the call's Add, the turn's block
    kept = sum(
        bool(re.match(r"^ *\d+ +\+ VALUE_", s["text"]))
        for s in tree.find("span")
        if s["attrs"].get("style") == f"display:block;background-color:{static_diff.ADD_BG}"
    )
    first, second = (int(c["attrs"]["data-applypatch-cut"]) for c in cuts)
    assert kept > 100 and first + second + kept == 2 * 12_000  # the call's Add, the turn's
    assert second == 12_000  # the call's own change came first and took the room
    assert re.match(rf"✂ {first} more lines \(\d+(\.\d)? (MB|KB)\) of this file", cuts[0]["text"])
    assert WHOLE_DIFF_IS in cuts[0]["text"] and "%apply_patch_turn" in WHOLE_DIFF_IS
    for text in (bundle["text/plain"], bundle["text/markdown"]):
        assert "VALUE_0 = " in text and "VALUE_11999" not in text
        assert re.search(r"✂ \d+ more lines \(\d+(\.\d)? (MB|KB)\) of `?big\.py`? not saved", text)
    # the timeline is cut too, and says so
    assert "patch_apply_updated" in bundle["text/html"] and "of the timeline" in bundle["text/html"]


def test_five_hundred_files_stay_within_the_bound() -> None:
    diffs = {
        f"/w/src/module_{i:03}.py": {
            "type": "update",
            "unified_diff": f"@@ -1,2 +1,2 @@\n-x = {i}\n+x = {i + 1}\n y = 'unchanged'\n",
            "move_path": None,
        }
        for i in range(500)
    }
    blocks = [
        {
            "old_path": p[3:],
            "path": p[3:],
            "diff": f"diff --git a/{p[3:]} b/{p[3:]}\n" + c["unified_diff"],
        }
        for p, c in diffs.items()
    ]
    state = _state(
        proposed=diffs,
        turn_diff="".join(b["diff"] for b in blocks),
        turn_diff_files=blocks,
        stdout="Success. Updated the following files:\n" + "".join(f"M {p}\n" for p in diffs),
    )
    bundle = record_bundle("r" * 32, state)
    assert _saved_size(bundle) <= RECORD_BOUND, {k: len(v) for k, v in bundle.items()}
    tree = Tree(bundle["text/html"])
    files = [e for e in tree.elements if "data-applypatch-file" in e["attrs"]]
    assert 40 < len(files) < 1000
    # the files left out are counted, each list says how many it does not link
    cuts = [e["text"] for e in tree.elements if "data-applypatch-cut" in e["attrs"]]
    assert cuts and re.match(r"✂ \d+ more lines \(.*\) in \d+ more files not saved", cuts[-1])
    assert any("more files (not saved)" in li["text"] for li in tree.find("li"))
    assert "more line" in bundle["text/plain"] and "more files" in bundle["text/plain"]


def test_a_small_call_is_not_cut() -> None:
    bundle = record_bundle("r" * 32, _state())
    assert "data-applypatch-cut" not in bundle["text/html"]
    assert "✂" not in bundle["text/plain"] + bundle["text/markdown"]
    assert "+    value = compute(1, 3)" in render_plain(_state())
    assert "```diff" in render_markdown(_state())


PARITY_INPUTS = [
    ("    value = compute(1, 2)", "    value = compute(1, 3)"),
    ("return run(debug=True, verbose=False)", "return run(debug=False, verbose=False)"),
    ("totally different", "nothing in common at all"),
    ("snake_case_name = 1", "snake_case_name = 2  # changed"),
    ("", "added"),
    ("a\tb", "a  b"),
]
LONG_RUN = "@@ -1,2 +1,80 @@\n a\n" + "".join(f"+line {i}\n" for i in range(78)) + " b\n"
PARITY_DIFFS = [
    LONG_RUN,
    UPDATE_DIFF,
    TURN_BLOCK,
    "@@\n-a\n+b\n",
    "@@ -0,0 +1,2 @@\n+x\n+y\n@@ -9,2 +11,0 @@\n-p\n-q\n",
]
PARITY_BARS = [(0, 0), (1, 0), (0, 1), (3, 2), (1, 99), (99, 1), (5, 5), (2, 1)]


def test_the_diff_model_is_the_widgets() -> None:
    """The same inputs through widget.js (node) and static_diff.py give the same rows, word
    segments and bars: the static record and the live view cannot drift apart."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the widget's diff model runs in node)")
    script = f"""
        import {{
            wordSegments, diffRows, classifyDiffLines, changeBar, pairWords, foldRuns, FOLDS,
        }} from {json.dumps(JS.as_uri())};
        const input = JSON.parse(process.argv[1]);
        console.log(JSON.stringify({{
            words: input.words.map(([a, b]) => wordSegments(a, b)),
            rows: input.diffs.map((d) => diffRows(classifyDiffLines(d))),
            bars: input.bars.map(([a, r]) => changeBar(a, r)),
            paired: input.diffs.map((d) => pairWords(diffRows(classifyDiffLines(d)))
                .map((r) => r.words ?? null)),
            folds: input.diffs.map((d) => foldRuns(diffRows(classifyDiffLines(d)), FOLDS)
                .map((r) => r.type === "fold" ? ["fold", r.rows.length] : [r.type, 1])),
            limits: [FOLDS.max, FOLDS.head, FOLDS.tail],
        }}));
    """
    payload = json.dumps({"words": PARITY_INPUTS, "diffs": PARITY_DIFFS, "bars": PARITY_BARS})
    proc = subprocess.run(
        [node, "--input-type=module", "-e", script, payload],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    js = json.loads(proc.stdout)
    words = [static_diff.word_segments(a, b) for a, b in PARITY_INPUTS]
    assert [None if w is None else [[list(s) for s in side] for side in w] for w in words] == js[
        "words"
    ]
    assert sum(w is not None for w in words) >= 3  # the comparison compared something

    def as_js(row: static_diff.Row) -> dict[str, Any]:
        if row.kind == "gap":
            return {"type": "gap", "from": row.old, "to": row.new}
        if row.kind in ("header", "hunk", "meta"):
            return {"type": row.kind, "text": row.text}
        return {"type": "line", "kind": row.kind, "text": row.text, "old": row.old, "new": row.new}

    for diff, rows in zip(PARITY_DIFFS, js["rows"], strict=True):
        expected = [{k: v for k, v in r.items() if k != "offset"} for r in rows]
        assert [as_js(r) for r in static_diff.diff_rows(diff)] == expected, diff
    assert [static_diff.change_bar(a, r) for a, r in PARITY_BARS] == js["bars"]
    assert js["limits"] == [static_diff.FOLD_MAX, static_diff.FOLD_HEAD, static_diff.FOLD_TAIL]
    for diff, paired, folds in zip(PARITY_DIFFS, js["paired"], js["folds"], strict=True):
        rows = static_diff.pair_words(static_diff.diff_rows(diff))
        words = [None if r.words is None else [list(w) for w in r.words] for r in rows]
        assert words == paired, diff
        shape = [
            ["fold", len(e.rows)]
            if isinstance(e, static_diff.Fold)
            else ["line" if e.kind in ("add", "del", "context") else e.kind, 1]
            for e in static_diff.fold_runs(static_diff.diff_rows(diff))
        ]
        assert shape == folds, diff
    assert any(f[0] == "fold" for fold in js["folds"] for f in fold)  # a long run was folded


def test_each_record_links_to_its_own_files() -> None:
    """Two records on one page (two calls, or one result shown twice) never share an id, and a
    record keeps its ids across its updates (its links keep working)."""

    def ids(page: str) -> set[str]:
        return {e["attrs"]["id"] for e in Tree(page).elements if "id" in e["attrs"]}

    first, second = record_bundle("a" * 32, _state()), record_bundle("b" * 32, _state())
    assert ids(first["text/html"]) and not ids(first["text/html"]) & ids(second["text/html"])
    assert ids(record_bundle("a" * 32, _state())["text/html"]) == ids(first["text/html"])
    other = _state(call_id="call-1", turn_diff="", turn_diff_files=[], proposed={})
    other["planned"] = {"x.txt": {"type": "add", "content": "x\n"}}
    assert ids(render_html(other)) and not ids(render_html(_state())) & ids(render_html(other))
