"""The diff view's syntax colouring (applypatch_ext/jupyter/records/highlight.py, sources.py),
against real Pygments, real files verified and applied by the real pipeline, and real TurnDiffs."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.apply.diff import unified_diff
from applypatch_ext.core.apply.verify import verify_patch
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.jupyter.records import highlight
from applypatch_ext.jupyter.records import sources as sources_module
from applypatch_ext.jupyter.records.highlight import highlight_lines
from applypatch_ext.jupyter.records.sources import (
    EXPAND_WINDOW,
    MAX_LINE_CHARS,
    MAX_LINES,
    call_sources,
    file_sources,
    hunk_lines,
    sources_size,
    turn_sources,
)

from .conftest import Magic


def text_of(line: Any) -> str:
    return line if isinstance(line, str) else "".join(run[1] for run in line)


def side(entry: dict[str, Any], name: str) -> dict[int, Any]:
    """The lines of one side of a sources entry, by line number."""
    return {start + k: line for start, lines in entry[name] for k, line in enumerate(lines)}


def classes(line: Any) -> dict[str, str]:
    return {} if isinstance(line, str) else {text: cls for cls, text in line}


def test_python_is_coloured_by_token_class() -> None:
    lines = highlight_lines("pkg/mod.py", 'def f(x):\n    return "a"  # note\n\nN = 10\r\n')
    assert [text_of(line) for line in lines] == [
        "def f(x):",
        '    return "a"  # note',
        "",
        "N = 10",  # the CR is not part of the line the diff shows
    ]
    assert classes(lines[0])["def"] == "k" and classes(lines[0])["f"] == "d"
    assert classes(lines[1]) | {} == {
        "    ": "",
        "return": "k",
        " ": "",
        '"a"': "s",
        "  ": "",
        "# note": "c",
    }
    assert classes(lines[3])["10"] == "n"


def test_a_multi_line_string_keeps_its_class_on_every_line() -> None:
    lines = highlight_lines("a.py", 'x = """one\ntwo\nthree"""\n')
    assert classes(lines[1]) == {"two": "s"}
    assert classes(lines[2])['three"""'] == "s"


def test_an_unknown_file_type_or_a_huge_text_is_sent_plain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert highlight_lines("notes.unknownext", "a\nb") == ["a", "b"]
    assert highlight_lines("Makefile", "all:\n\techo hi\n") != ["all:", "\techo hi"]
    monkeypatch.setattr(highlight, "MAX_LEX_CHARS", 10)
    assert highlight_lines("a.py", "def f():\n    pass\n") == ["def f():", "    pass"]


def test_markup_in_a_file_stays_text() -> None:
    # the classes are short names; a file's text is data, never a class or markup
    lines = highlight_lines("page.html", '<script>alert("x")</script>\n')
    runs = lines[0]
    assert isinstance(runs, list)
    assert text_of(runs) == '<script>alert("x")</script>'
    assert {cls for cls, _ in runs} <= set(highlight.CLASSES.values()) | {""}


def test_hunk_lines_reads_the_numbers_of_a_unified_diff() -> None:
    diff = unified_diff("a\nb\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\nG\n", context_radius=1)
    removed, shown = hunk_lines(diff)
    assert removed == {2, 7}
    assert shown == {1, 2, 3, 6, 7}


def test_an_update_sends_its_removed_lines_and_a_window_of_the_new_side() -> None:
    old = "".join(f"v{i} = {i}\n" for i in range(1, 201))
    new = old.replace("v100 = 100\n", "v100 = 'hundred'\n")
    diff = unified_diff(old, new, context_radius=1)
    entry = file_sources("m.py", old, new, diff=diff)
    assert entry["language"] == "Python"
    assert entry["old_lines"] == entry["new_lines"] == 200
    assert list(side(entry, "old")) == [100]
    assert text_of(side(entry, "old")[100]) == "v100 = 100"
    new_side = side(entry, "new")
    # the hunk (99..101) and EXPAND_WINDOW lines around it, on the new side only
    assert list(new_side) == list(range(99 - EXPAND_WINDOW, 101 + EXPAND_WINDOW + 1))
    assert classes(new_side[100])["'hundred'"] == "s"
    assert entry["cut"] is False
    json.dumps(entry)  # what the trait sends is plain JSON


def test_long_lines_are_cut_and_said_so() -> None:
    entry = file_sources("a.txt", None, "x" * (MAX_LINE_CHARS + 50) + "\nshort\n")
    lines = side(entry, "new")
    assert len(text_of(lines[1])) == MAX_LINE_CHARS
    assert lines[2] == "short"
    assert entry["cut"] is True


def test_the_old_text_of_an_update_is_recovered_from_its_diff() -> None:
    for trial in range(200):
        rnd = random.Random(trial)
        old = "".join(rnd.choice(["a\n", "b\n", "c\r\n", "d\n"]) for _ in range(rnd.randint(0, 30)))
        if rnd.random() < 0.3:
            old += "tail"  # no newline at the end
        lines = old.splitlines(keepends=True)
        for _ in range(rnd.randint(0, 5)):
            i = rnd.randint(0, len(lines))
            if rnd.random() < 0.5:
                lines.insert(i, rnd.choice(["x\n", "y\n", "z"]))
            elif i < len(lines):
                del lines[i]
        new = "".join(lines)
        diff = unified_diff(old, new, context_radius=1)
        assert sources_module._reverse(new, diff) == old, (old, new, diff)
    assert sources_module._reverse("a\n", "@@ -5,1 +5,1 @@\n-x\n+y\n") is None


def _verify(tmp_path: Path, patch: str) -> Any:
    return verify_patch(parse_patch(patch), str(tmp_path))


def test_call_sources_of_a_verified_patch_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("import os\n\n\ndef main():\n    print('old')\n")
    (tmp_path / "gone.js").write_text("const x = 1;\n")
    action = _verify(
        tmp_path,
        "*** Begin Patch\n"
        "*** Add File: new.rs\n+fn main() {}\n"
        "*** Delete File: gone.js\n"
        "*** Update File: app.py\n@@ def main():\n-    print('old')\n+    print('new')\n"
        "*** End Patch",
    )
    sources = call_sources(action)
    assert set(sources) == {str(tmp_path / n) for n in ("new.rs", "gone.js", "app.py")}
    add = sources[str(tmp_path / "new.rs")]
    assert add["language"] == "Rust" and add["old"] == []
    assert classes(side(add, "new")[1])["fn"] == "k"
    delete = sources[str(tmp_path / "gone.js")]
    assert delete["new"] == [] and text_of(side(delete, "old")[1]) == "const x = 1;"
    update = sources[str(tmp_path / "app.py")]
    assert text_of(side(update, "old")[5]) == "    print('old')"  # recovered, not read again
    new = side(update, "new")
    assert [text_of(new[n]) for n in sorted(new)] == [
        "import os",
        "",
        "",
        "def main():",
        "    print('new')",
    ]
    assert update["old_lines"] == update["new_lines"] == 5


def test_call_sources_prefers_the_committed_texts(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run_magic(
        "--stream-chunk 0 res",
        "*** Begin Patch\n*** Update File: main.py\n@@\n"
        '-print("old")\n+print("new")\n*** End Patch\n',
    )
    raw = run_magic.shell.user_ns["res"].raw
    sources = call_sources(raw.proposed, raw.delta)
    entry = sources[str(tmp_path / "main.py")]
    assert text_of(side(entry, "old")[1]) == 'print("old")'
    assert classes(side(entry, "new")[1])["print"] == "b"
    assert sources_size(sources) == 2


def test_the_budget_bounds_a_call_and_marks_what_is_left_out(tmp_path: Path) -> None:
    body = "".join(f"+line {i}\n" for i in range(MAX_LINES // 2 + 10))
    patch = (
        "*** Begin Patch\n"
        + "".join(f"*** Add File: f{k}.txt\n{body}" for k in range(4))
        + "*** End Patch"
    )
    sources = call_sources(_verify(tmp_path, patch))
    assert sources_size(sources) <= MAX_LINES
    assert all(entry["cut"] for entry in sources.values())
    assert len(json.dumps(sources)) < 40 * MAX_LINES


def test_turn_sources_colour_the_turn_diffs_own_lines(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text('x = 1\nprint("old")\n')
    run_magic(
        "--stream-chunk 0 res",
        "*** Begin Patch\n*** Add File: docs/a b.md\n+# Title\n"
        '*** Update File: main.py\n@@\n x = 1\n-print("old")\n+print("new")\n*** End Patch\n',
    )
    blocks = run_magic.shell.user_ns["res"].state_json()["turn_diff_files"]
    paths = [block["path"] for block in blocks]
    assert sorted(paths) == ["docs/a b.md", "main.py"]
    sources = turn_sources(blocks)
    assert set(sources) == set(paths)
    py = sources["main.py"]
    assert text_of(side(py, "old")[2]) == 'print("old")'
    assert text_of(side(py, "new")[2]) == 'print("new")'
    assert classes(side(py, "new")[1])["1"] == "n"
    md = sources["docs/a b.md"]
    assert md["old"] == [] and text_of(side(md, "new")[1]) == "# Title"
    assert turn_sources([]) == {}


def test_only_the_lines_shown_are_lexed_with_a_lead_in_for_the_lexers_state() -> None:
    plain = ["x = 1"] * 50 + ['s = """start', "inside", 'end"""'] + ["y = 2"] * 50
    lines = sources_module.coloured("a.py", plain, [52, 100], room=10)
    assert list(lines) == [52, 100]
    assert classes(lines[52]) == {"inside": "s"}  # the string opened on the line before
    assert classes(lines[100])["2"] == "n"
    assert list(sources_module.coloured("a.py", plain, range(1, 104), room=3)) == [1, 2, 3]


def test_a_long_file_with_many_chunks_sends_a_bounded_coloured_part(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text(
        "".join(f"def f{i}(x):\n    return {i}\n" for i in range(5000))
    )
    chunks = "".join(
        f"@@ def f{i * 50}(x):\n-    return {i * 50}\n+    return -{i * 50}\n" for i in range(100)
    )
    sources = call_sources(
        _verify(tmp_path, f"*** Begin Patch\n*** Update File: big.py\n{chunks}*** End Patch")
    )
    entry = sources[str(tmp_path / "big.py")]
    assert sources_size(sources) == sources_module.MAX_FILE_LINES
    assert entry["cut"] is True and entry["new_lines"] == 10_000
    old = side(entry, "old")
    assert len(old) == 100  # every removed line is coloured: they come first
    assert classes(old[2])["return"] == "k"


def test_the_lexer_of_a_file_name_is_pygments_own_choice() -> None:
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    names = [
        "a.py", "src/deep/file_12.py", "Makefile", "Makefile.am", "CMakeLists.txt", "x.tar.gz",
        "README.md", "noextension", "a.b.c.js", "Dockerfile", "x.php5", "man.1", ".bashrc",
        ".gitignore", "Foo.PY", "t.txt", "MySpec.hs", "a.spec.ts", "nginx.conf", "site.conf",
    ]  # fmt: skip
    for name in names:
        try:
            expected = get_lexer_for_filename(name.rsplit("/", 1)[-1]).name
        except ClassNotFound:
            expected = None
        found = highlight.lexer_for(name)
        assert (found.name if found is not None else None) == expected, name


def test_colouring_stops_when_its_time_is_up_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No time at all: the first file is still coloured (the clock starts after it), the
    # others are sent plain, whole, and marked cut.
    monkeypatch.setattr(sources_module, "LEX_SECONDS", 0.0)
    patch = (
        "*** Begin Patch\n"
        + "".join(f"*** Add File: f{k}.py\n+def f{k}():\n+    return {k}\n" for k in range(3))
        + "*** End Patch"
    )
    sources = call_sources(_verify(tmp_path, patch))
    entries = [sources[str(tmp_path / f"f{k}.py")] for k in range(3)]
    assert classes(side(entries[0], "new")[1])["def"] == "k"
    assert entries[0]["cut"] is False
    for k, entry in enumerate(entries[1:], 1):
        assert side(entry, "new") == {1: f"def f{k}():", 2: f"    return {k}"}
        assert entry["cut"] is True
    blocks = [{"path": f"f{k}.py", "diff": f"@@ -0,0 +1 @@\n+x = {k}\n"} for k in range(2)]
    turn = turn_sources(blocks)
    assert classes(side(turn["f0.py"], "new")[1])["0"] == "n"
    assert side(turn["f1.py"], "new") == {1: "x = 1"} and turn["f1.py"]["cut"] is True
