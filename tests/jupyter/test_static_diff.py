"""The static record's diff view (static_diff.py via display.render_html) and its bound: the HTML
parsed and checked for gutters, syntax colours, word marks, folds, the header toggle, the file
list's anchors, escaping and the cut marker; the diff model checked against the widget's own
(js/src/diff-model.js, run by node on the same inputs); the record's size bounded for a 1.2 MB
Add."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

from applypatch_ext.jupyter.records import highlight, static_diff
from applypatch_ext.jupyter.records.bound import RECORD_BOUND, WHOLE_DIFF_IS
from applypatch_ext.jupyter.records.display import render_html, render_markdown, render_plain
from applypatch_ext.jupyter.records.record import record_bundle

ROOT = Path(__file__).resolve().parents[2]
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
    ]
    # the call's own files open; the turn's diff a summary (its files and counts) folded under
    assert all("open" in f["attrs"] for f in files)
    turn = next(d for d in tree.find("details") if d["text"].startswith("Turn diff"))
    assert "open" not in turn["attrs"] and "app.py+2 -2" in turn["text"]
    assert "%apply_patch_turn` shows its diff" in turn["text"]
    # line-number gutters: old and new numbers of each line, beside its sign
    spans = [c["text"] for c in tree.find("span")]
    assert "5 5 " in spans and "6   " in spans and "  6 " in spans and "  1 " in spans
    assert spans[spans.index("6   ") + 1] == "-"
    assert "6   -     value = compute(1, 2)" in spans  # the line's own block
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
    assert marked == ["2", "3", "True", "False"]  # the call's change (the turn's is a summary)
    # the deleted file's 150 lines: 20 shown, 120 behind "show", the last 10 shown
    folds = [e for e in tree.elements if "data-applypatch-fold" in e["attrs"]]
    assert [f["attrs"]["data-applypatch-fold"] for f in folds] == ["120"]
    assert "open" not in folds[0]["attrs"]
    summary = tree.elements[tree.elements.index(folds[0]) + 1]
    assert summary["tag"] == "summary" and summary["text"] == "⋯ Show 120 more removed lines"
    assert "line 21" in folds[0]["text"] and "line 140" in folds[0]["text"]
    assert "line 141" not in folds[0]["text"] and "line 141" in files[2]["text"]
    # %apply_patch_turn shows the turn's diff whole, open: its `diff --git` and `index` lines
    # behind a toggle of their own
    whole = Tree(render_html(_state(proposed={}), anchor="turn", whole_turn=True))
    [block] = [e for e in whole.find("details") if "data-applypatch-file" in e["attrs"]]
    assert "open" in block["attrs"] and "+2 -2" in block["text"]
    toggle = [
        e for e in whole.find("details") if e["text"].startswith("diff --git a/app.py b/app.py (4")
    ]
    assert len(toggle) == 1 and "index 1111111..2222222" in toggle[0]["text"]
    assert "open" not in toggle[0]["attrs"]
    headers = next(p for p in whole.find("pre") if p["text"].startswith("diff --git"))
    assert headers["text"].split("\n")[1] == "index 1111111..2222222 100644"
    assert [
        s["text"]
        for s in whole.find("span")
        if static_diff.ADD_WORD_BG in s["attrs"].get("style", "")
    ] == ["3", "False"]
    # the file list links to each file of the call
    links = [a["attrs"]["href"] for a in tree.find("a")]
    ids = {e["attrs"]["id"] for e in files}
    assert links == ["#rec-c-0", "#rec-c-1", "#rec-c-2"] and {h[1:] for h in links} <= ids
    # +/- counts and the five-block bar in each file's summary
    assert "+2 -2" in files[1]["text"] and "+0 -150" in files[2]["text"]
    # a gap stands for the unchanged lines before the first hunk
    assert "⋯ 4 unchanged lines" in files[1]["text"]
    # every block of lines is monospace (a plain stack first: a sanitizer drops the variable)
    assert len(tree.find("pre")) >= 5
    for block in [*tree.find("pre"), *whole.find("pre")]:
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
    assert len(cuts) == 1  # the call's Add (the turn's diff is a summary: its files, counts)
    kept = sum(
        bool(re.match(r"^ *\d+ +\+ VALUE_", s["text"]))
        for s in tree.find("span")
        if s["attrs"].get("style") == f"display:block;background-color:{static_diff.ADD_BG}"
    )
    first = int(cuts[0]["attrs"]["data-applypatch-cut"])
    assert kept > 100 and first + kept == 12_000
    assert re.match(rf"✂ {first} more lines \(\d+(\.\d)? (MB|KB)\) of this file", cuts[0]["text"])
    assert WHOLE_DIFF_IS in cuts[0]["text"] and "%apply_patch_turn --export FILE" in WHOLE_DIFF_IS
    turn = next(d for d in tree.find("details") if d["text"].startswith("Turn diff"))
    assert "big.py+12000 -0" in turn["text"] and "VALUE_" not in turn["text"]
    for text in (bundle["text/plain"], bundle["text/markdown"]):
        assert "VALUE_0 = " in text and "VALUE_11999" not in text
        assert re.search(
            r"✂ \d+ more lines \(\d+(\.\d)? (MB|KB)\) of `?Add big\.py \+12000 -0`? not saved", text
        )
        assert "big.py +12000 -0" in text  # the turn's summary
    # the timeline is cut too, and says so
    assert "patch_apply_updated" in bundle["text/html"] and "of the timeline" in bundle["text/html"]


def test_five_hundred_files_stay_within_the_bound() -> None:
    diffs: dict[str, dict[str, Any]] = {
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
    # the list names files with their counts while a quarter of the share lasts, then counts
    listed = [li["text"] for li in tree.find("li") if li["text"].startswith("src/module_")]
    assert len(listed) > 200 and listed[0] == "src/module_000.py+1 -1"
    assert any(
        re.fullmatch(r"… and \d+ more files \(\+\d+ -\d+\), not listed", li["text"])
        for li in tree.find("li")
    )
    assert "more line" in bundle["text/plain"] and "more files" in bundle["text/plain"]


def test_a_small_call_is_not_cut() -> None:
    bundle = record_bundle("r" * 32, _state())
    assert "data-applypatch-cut" not in bundle["text/html"]
    assert "✂" not in bundle["text/plain"] + bundle["text/markdown"]
    assert "+    value = compute(1, 3)" in render_plain(_state())
    assert "```diff" in render_markdown(_state())


def _css_rules(css: str) -> dict[str, dict[str, str]]:
    """The declarations of each top-level rule of a stylesheet, by selector."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        declarations = (d.split(":", 1) for d in body.split(";") if ":" in d)
        rules[selector.strip()] = {k.strip(): v.strip() for k, v in declarations}
    return rules


def _theme_variable(value: str, custom: dict[str, str]) -> str:
    """The theme's variable a CSS value takes its colour from: ``var(--jp-x, ...)`` is
    ``--jp-x``; the widget's own ``var(--ap-y)`` is what ``--ap-y`` is defined as."""
    found = re.match(r"var\((--[\w-]+)", value)
    assert found, value
    name = found.group(1)
    return _theme_variable(custom[name], custom) if name.startswith("--ap-") else name


def test_the_record_colours_tokens_as_the_widget_does() -> None:
    """static_diff.SYNTAX is widget.css's syntax colours: the same token classes, each with the
    same theme variable (through the widget's own --ap-* ones) and the same extra declarations;
    the classes the record leaves uncoloured (TEXT_COLOURED) fall back to the text's colour."""
    rules = _css_rules((ROOT / "js" / "src" / "widget.css").read_text())
    custom = {k: v for decls in rules.values() for k, v in decls.items() if k.startswith("--ap-")}
    styled = {
        selector.removeprefix(".applypatch-hl-"): decls
        for selector, decls in rules.items()
        if re.fullmatch(r"\.applypatch-hl-[a-z]", selector)
    }
    assert set(styled) == set(highlight.CLASSES.values())
    assert set(styled) == set(static_diff.SYNTAX) | static_diff.TEXT_COLOURED
    assert not set(static_diff.SYNTAX) & static_diff.TEXT_COLOURED
    for cls, (variable, plain, extra) in static_diff.SYNTAX.items():
        decls = styled[cls]
        assert _theme_variable(decls["color"], custom) == variable, cls
        extras = dict(d.split(":", 1) for d in extra.split(";") if d)
        assert {k: v for k, v in decls.items() if k != "color"} == extras, cls
        assert re.fullmatch(r"#[0-9a-f]{6}", plain), cls
    for cls in static_diff.TEXT_COLOURED:
        fallback = styled[cls]["color"].split(",", 1)[1].strip().removesuffix(")")
        assert _theme_variable(fallback, custom) == _theme_variable(custom["--ap-fg"], custom)


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


def _big_then_small(lines: int) -> dict[str, Any]:
    """A state whose first file is a large Add, followed by three small changes."""
    content = "".join(f"VALUE_{i} = {'x' * 90}  # {i}\n" for i in range(lines))
    proposed: dict[str, Any] = {"/w/big.py": {"type": "add", "content": content}}
    proposed["/w/app.py"] = {"type": "update", "unified_diff": UPDATE_DIFF, "move_path": None}
    proposed["/w/z.txt"] = {"type": "add", "content": "zed\n"}
    proposed["/w/gone.txt"] = {"type": "delete", "content": "old\nlines\n"}
    return _state(proposed=proposed)


def test_small_files_are_whole_before_a_large_one_is_cut() -> None:
    """Issue 23 item 4: the bound is shared fairly. A 12,000-line Add comes first in the patch;
    the three small files after it are shown whole in every representation, each named with
    its counts, and only the large one is cut (its marker says how much and where it is)."""
    bundle = record_bundle("r" * 32, _big_then_small(12_000))
    assert _saved_size(bundle) <= RECORD_BOUND
    tree = Tree(bundle["text/html"])
    files = {
        e["attrs"]["data-applypatch-file"]: e
        for e in tree.elements
        if "data-applypatch-file" in e["attrs"]
    }
    assert list(files) == ["big.py", "app.py", "z.txt", "gone.txt"]
    for name in ("app.py", "z.txt", "gone.txt"):
        assert "✂" not in files[name]["text"], name
    assert "return run(debug=False, verbose=False)" in files["app.py"]["text"]
    assert "zed" in files["z.txt"]["text"] and "lines" in files["gone.txt"]["text"]
    assert re.search(r"✂ \d+ more lines .* of this file not saved", files["big.py"]["text"])
    listed = [li["text"] for li in tree.find("li") if li["attrs"] == {}]
    assert listed[:4] == ["big.py+12000 -0", "app.py+2 -2", "z.txt+1 -0", "gone.txt+0 -2"]
    for text in (bundle["text/plain"], bundle["text/markdown"]):
        for label in ("Add big.py +12000 -0", "Update app.py +2 -2", "Add z.txt +1 -0"):
            assert label in text, label
        assert "+zed" in text and "-lines" in text
        assert "+    return run(debug=False, verbose=False)" in text
        assert re.search(r"✂ \d+ more lines \(.*\) of `?Add big\.py \+12000 -0`? not saved", text)
        assert text.count("✂") == 1


def test_apply_patch_turn_shows_the_whole_turn_or_says_what_it_leaves_out() -> None:
    """%apply_patch_turn (whole_turn): a larger bound than a record, all of a 1,300-line file
    and a one-line file after it; past the bound, each representation says what it leaves out
    and that `%apply_patch_turn --export FILE` writes it."""
    from applypatch_ext.jupyter.records.bound import TURN_BOUND, TURN_DIFF_WHOLE_IS
    from applypatch_ext.jupyter.records.diffs import turn_diff_text

    def block(path: str, lines: int) -> dict[str, Any]:
        body = "".join(f"+line {i} of {path} {'y' * 60}\n" for i in range(lines))
        head = f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
        diff = f"{head}+++ b/{path}\n@@ -0,0 +1,{lines} @@\n{body}"
        return {"old_path": "", "path": path, "diff": diff}

    def shown(*blocks: dict[str, Any]) -> dict[str, str]:
        state = _state(
            proposed={},
            call_id="turn",
            turn_diff="".join(b["diff"] for b in blocks),
            turn_diff_files=list(blocks),
        )
        return {
            "text/html": render_html(state, whole_turn=True),
            "text/markdown": render_markdown(state, whole_turn=True),
            "text/plain": turn_diff_text(state),
        }

    whole = shown(block("big.txt", 1300), block("z.txt", 1))
    assert _saved_size(whole) <= TURN_BOUND
    for text in whole.values():
        assert "line 1299 of big.txt" in text and "line 0 of z.txt" in text
        assert "✂" not in text
    cut = shown(block("huge.txt", 40_000), block("z.txt", 1))
    assert _saved_size(cut) <= TURN_BOUND
    for mime, text in cut.items():
        assert "line 0 of z.txt" in text, mime  # the small file whole
        assert "line 39999 of huge.txt" not in text, mime
        found = re.search(r"✂ (\d+) more lines \(.+?\) of (this file|`?huge\.txt)", text)
        assert found and int(found[1]) > 10_000, mime
        assert "not shown here" in text and "--export FILE" in TURN_DIFF_WHOLE_IS
        assert TURN_DIFF_WHOLE_IS.split("`")[1] in text, mime
