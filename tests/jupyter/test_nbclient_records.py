"""What a saved notebook holds after the calls a user runs (issue 23), executed by a real kernel
(nbclient) and saved through jupyter_server's contents manager with the server extension, as
JupyterLab saves it:

* item 3: a failed, declined or rejected call's record shows the text the tool returned (what
  the model read) in every representation (text/html, text/markdown, text/plain);
* item 4: a bounded record names every file with its +/- counts and shows small files whole
  before it cuts large ones, and ``%apply_patch_turn`` shows the whole turn;
* item 5: after a 1,300-line call, a one-line (or declined) call adds a few KB to the file, not
  the turn's bounded TurnDiff again (the figure is in ``make bench-browser``);
* item 7: approving a selection under ``--approval-policy untrusted`` approves it;
* item 8: ``replay`` of a two-turn session marks each turn's closing TurnDiff final.

Item 1's part here (a waiting call's record says how to answer it) and the records' texts of
item 10 are here too; item 1's reload and items 6 and 10 in the live widget are browser tests
(test_reload_browser.py, test_widget_texts_browser.py).
"""

from __future__ import annotations

import html
import html.parser
import json
import re
import sys
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from applypatch_ext.core.diagnosis import KINDS, DiagnosisKind

from ..rollouts import project_before, rollout_path
from .bounded import APP, BIG, BIG_LINES, patch
from .test_saved_notebook import _save
from .test_static_diff import Tree

pytestmark = pytest.mark.slow

RECORD = "applypatch_ext"
# the cells, by name: (source, what the test reads of it)
CELLS: dict[str, str] = {
    "load": "%load_ext applypatch_ext",
    "files": (
        "from pathlib import Path\n"
        "Path('keep.txt').write_text('keep\\nthis\\n')\n"
        f"Path('app.py').write_text({APP!r})\n"
        "Path('s1.txt').write_text('one\\ntwo\\n')\n"
        "Path('s2.txt').write_text('bee\\n')\n"
        "Path('w.py').write_text('def a():\\n    return 1\\n\\n\\nz = 2\\n')"
    ),
    "warned": "%%apply_patch warned --stream-chunk 0\n"
    + patch("*** Update File: w.py", "@@ def a():", "+    print('a')"),
    "mismatch": "%%apply_patch mismatch --stream-chunk 0\n"
    + patch("*** Update File: keep.txt", "@@", "-kept", "+KEPT"),
    "declined": "%%apply_patch declined --stream-chunk 0 --review --approve decline "
    "--reason 'not this file'\n" + patch("*** Add File: nope.txt", "+no"),
    "rejected": "%%apply_patch rejected --stream-chunk 0 --approval-policy never --exclude-tmp\n"
    + patch("*** Add File: ../outside.txt", "+out"),
    "big": "%%apply_patch --stream-chunk 0\n" + BIG,
    "one": "%%apply_patch --stream-chunk 0\n" + patch("*** Add File: one.txt", "+one line"),
    "one_declined": "%%apply_patch --stream-chunk 0 --review --approve decline\n"
    + patch("*** Add File: two.txt", "+two"),
    "turn": "%apply_patch_turn",
    "waiting": "%%apply_patch waiting --approval-policy untrusted --stream-chunk 0\n"
    + patch(
        "*** Update File: s1.txt",
        "@@",
        "-one",
        "+ONE",
        "@@",
        "-two",
        "+TWO",
        "*** Update File: s2.txt",
        "@@",
        "-bee",
        "+BEE",
    ),
    "decide": 'waiting.decide("approve", accept={"s1.txt": [0], "s2.txt": False})\n'
    "print(waiting.status, Path('s1.txt').read_text().split(), Path('s2.txt').read_text())",
    "nb_setup": "import nbformat\n"
    "_nb = nbformat.v4.new_notebook()\n"
    "_nb.cells = [nbformat.v4.new_code_cell('x = 1', id='a1')]\n"
    "nbformat.write(_nb, 'nb.ipynb')",
    "nb_call": "%%apply_patch --stream-chunk 0\n"
    + patch("*** Update File: nb.ipynb", "@@", '-    "x = 1"', '+    "x = 2"'),
    "nb_declined": "%%apply_patch --stream-chunk 0 --review --approve decline\n"
    + patch("*** Add File: three.txt", "+three"),
    "pending": "%%apply_patch pending --approval-policy untrusted --stream-chunk 0\n"
    + patch("*** Add File: later.txt", "+later"),
    "replay": "",  # the command, filled in with the fixture's paths
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The notebook of CELLS run by a real kernel and saved through the server: each cell by
    name, as the file holds it."""
    where = tmp_path_factory.mktemp("records")
    project = project_before(where, "0.163.0", "session")
    cells = dict(CELLS)
    cells["replay"] = (
        "import subprocess, sys\n"
        "proc = subprocess.run([sys.executable, '-m', 'applypatch_ext', 'replay', "
        f"{str(rollout_path('0.163.0', 'session'))!r}, '--cwd', {str(project)!r}], "
        "capture_output=True, text=True)\n"
        "print(proc.stdout, end='')"
    )
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells.values()]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(where)}}
    ).execute()
    content = json.loads(nbformat.writes(nb))
    file = _save(content, where)
    return dict(zip(cells, file["cells"], strict=True))


def record(cell: dict[str, Any]) -> dict[str, str]:
    """The data of the cell's one static record."""
    (found,) = [o for o in cell["outputs"] if o.get("metadata", {}).get(RECORD, {}).get("record")]
    # the file keeps a multi-line text as a list of lines
    return {mime: "".join(value) for mime, value in found["data"].items()}


def text_of(html_text: str) -> str:
    """The HTML's text as a reader sees it (tags dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def printed(cell: dict[str, Any]) -> str:
    """What the cell printed (the file keeps a stream's text as a list of lines)."""
    return "".join("".join(o["text"]) for o in cell["outputs"] if o["output_type"] == "stream")


def cell_bytes(cell: dict[str, Any]) -> int:
    """What the cell's outputs take in the saved file."""
    return len(json.dumps(cell["outputs"], indent=1, ensure_ascii=False).encode())


# -- item 3: the tool's output in every record --------------------------------------------------

TOOL_OUTPUTS = {
    "mismatch": "apply_patch verification failed: Failed to find expected lines in {where}"
    "/keep.txt:\nkept",
    "declined": "patch rejected by user\nThe user's reason: not this file",
    "rejected": "patch rejected: writing outside of the project; rejected by user approval "
    "settings",
}


@pytest.mark.parametrize("name", sorted(TOOL_OUTPUTS))
def test_a_failed_declined_or_rejected_record_shows_the_tools_output(
    saved: dict[str, dict[str, Any]], name: str
) -> None:
    data = record(saved[name])
    where = re.search(r" in (/\S+): ", data["text/plain"])
    assert where is not None
    expected = TOOL_OUTPUTS[name].format(where=where[1])
    assert expected in data["text/plain"], data["text/plain"]
    assert expected in text_of(data["text/html"])
    first = expected.splitlines()[0]
    assert first in data["text/markdown"].replace("\\", "")


# -- the failure atlas in the saved file (issue 25) ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("mismatch", ["diagnosis: context_not_found", "patch line 4, keep.txt line 1"]),
        ("rejected", ["diagnosis: rejected"]),
        ("warned", ["warning: appended_at_end", "suggested patch text (not applied)"]),
    ],
)
def test_the_saved_record_keeps_the_diagnosis_and_the_warnings(
    saved: dict[str, dict[str, Any]], name: str, says: list[str]
) -> None:
    data = record(saved[name])
    kind = says[0].split(": ")[1]
    meaning = KINDS[DiagnosisKind(kind)].meaning
    markdown = data["text/markdown"].replace("\\", "")
    for text in (data["text/plain"], text_of(data["text/html"]), markdown):
        assert kind in text and meaning in text, (name, text)
    for needle in says:
        assert needle in data["text/plain"], (needle, data["text/plain"])
    if name == "warned":
        assert " def a():\n+    print('a')" in html.unescape(data["text/html"])


# -- item 4: a bounded record names every file, small files whole ------------------------------


def file_blocks(html_text: str) -> dict[str, str]:
    """The text of each file's block of a static diff view (``data-applypatch-file``)."""
    tree = Tree(html_text)
    return {
        e["attrs"]["data-applypatch-file"]: e["text"]
        for e in tree.elements
        if "data-applypatch-file" in e["attrs"]
    }


def shown_lines(block: str) -> int:
    """How many lines of the generated file a block shows."""
    return len(re.findall(r"line \d+ of a generated file", block))


def test_a_bounded_record_names_every_file_and_keeps_small_ones_whole(
    saved: dict[str, dict[str, Any]],
) -> None:
    """A 1,300-line Add before a one-line change of app.py: every representation names both
    files with their counts, shows app.py's change whole, and shows big.txt whole or says
    exactly how many of its lines it left out."""
    data = record(saved["big"])
    for text in (data["text/plain"], data["text/markdown"]):
        assert f"Add big.txt +{BIG_LINES} -0" in text and "Update app.py +1 -1" in text
        assert "-    run(debug=True)\n+    run(debug=False)" in text
        cut = re.search(r"✂ (\d+) more lines? .* of `?Add big\.txt", text)
        assert shown_lines(text) + (int(cut[1]) if cut else 0) == BIG_LINES
    blocks = file_blocks(data["text/html"])
    assert list(blocks) == ["big.txt", "app.py"]
    assert "run(debug=True)" in blocks["app.py"] and "run(debug=False)" in blocks["app.py"]
    assert "✂" not in blocks["app.py"] and "+1 -1" in blocks["app.py"]
    assert f"+{BIG_LINES} -0" in blocks["big.txt"]
    cut = re.search(r'data-applypatch-cut="(\d+)"', data["text/html"])
    assert shown_lines(blocks["big.txt"]) + (int(cut[1]) if cut else 0) == BIG_LINES
    listed = text_of(data["text/html"])
    assert f"big.txt+{BIG_LINES} -0" in listed and "app.py+1 -1" in listed  # the file list


def test_apply_patch_turn_in_a_live_session_shows_the_whole_turn(
    saved: dict[str, dict[str, Any]],
) -> None:
    """%apply_patch_turn after the 1,300-line call and a one-line one: the whole turn, every
    file with its counts, nothing cut (it has a larger bound than a record: past it, it says
    what it leaves out and that `%apply_patch_turn --export FILE` writes it)."""
    (output,) = saved["turn"]["outputs"]
    data = {mime: "".join(value) for mime, value in output["data"].items()}
    blocks = file_blocks(data["text/html"])
    assert {"app.py", "big.txt", "one.txt"} <= set(blocks)  # (and the other calls' files)
    assert shown_lines(blocks["big.txt"]) == BIG_LINES and f"+{BIG_LINES} -0" in blocks["big.txt"]
    assert "one line" in blocks["one.txt"] and "+1 -0" in blocks["one.txt"]
    assert "run(debug=False)" in blocks["app.py"] and "+1 -1" in blocks["app.py"]
    for text in (data["text/plain"], data["text/markdown"]):
        assert shown_lines(text) == BIG_LINES and "+one line" in text
        assert "+    run(debug=False)" in text
    assert "✂" not in "".join(data.values())


# -- item 5: a later call's record does not carry the turn's diff again -----------------------

#: The target: the bytes a one-line call adds to the saved file after a 1,300-line call.
SMALL_CALL_BYTES = 20_000


@pytest.mark.parametrize(("name", "line"), [("one", "+one line"), ("one_declined", "+two")])
def test_a_one_line_call_after_a_big_one_adds_little(
    saved: dict[str, dict[str, Any]], name: str, line: str
) -> None:
    """Its record holds its own change whole, and the turn's diff as a summary: every file
    of the turn with its counts, none of the 1,300 lines."""
    size = cell_bytes(saved[name])
    print(
        f"\n[item 5] {name}: {size} bytes in the saved file (big call: {cell_bytes(saved['big'])})"
    )
    assert size < SMALL_CALL_BYTES
    data = record(saved[name])
    for text in (data["text/plain"], data["text/markdown"], text_of(data["text/html"])):
        assert line in text.replace("+ ", "+")  # the HTML's sign has a space after it
        assert re.search(rf"big\.txt`? ?\+{BIG_LINES} -0", text) and "app.py" in text
        assert "line 5 of a generated file" not in text


# -- items 7 and 8 ------------------------------------------------------------------------------


def test_untrusted_approving_a_selection_approves_it(saved: dict[str, dict[str, Any]]) -> None:
    assert printed(saved["decide"]) == "completed ['ONE', 'two'] bee\n\n"
    data = record(saved["waiting"])  # the record is updated when the call ends
    assert "completed" in data["text/plain"] and "awaiting" not in data["text/plain"]


def test_replay_marks_each_turns_closing_turn_diff_final(
    saved: dict[str, dict[str, Any]],
) -> None:
    lines = [json.loads(line) for line in printed(saved["replay"]).splitlines()]
    closing = [line for line in lines if line["type"] == "turn_diff" and "turn" in line]
    assert [(line["turn"], line["final"]) for line in closing] == [(1, True), (2, True)]
    assert lines[-1]["type"] == "replay_summary" and lines[-1]["turns"] == 2
    assert sys.executable  # the kernel ran the command of this environment


# -- item 1, when the page cannot show the live view: the record says how to answer ----------


def test_a_waiting_record_says_how_to_answer_from_code(saved: dict[str, dict[str, Any]]) -> None:
    data = record(saved["pending"])
    for text in (data["text/plain"], text_of(data["text/html"]), data["text/markdown"]):
        assert 'pending.decide("approve")' in text.replace("\\", "")
        assert "%apply_patch_turn" in text.replace("\\", "")


# -- item 10: the records' small texts ----------------------------------------------------------


@pytest.mark.parametrize("name", ["mismatch", "rejected", "one_declined"])
def test_a_call_that_wrote_nothing_has_no_undo_line(
    saved: dict[str, dict[str, Any]], name: str
) -> None:
    data = record(saved[name])
    assert "undo: call" not in data["text/plain"]
    assert "undo: call" not in text_of(data["text/html"])


def test_a_finished_calls_preview_does_not_say_nothing_is_written_yet(
    saved: dict[str, dict[str, Any]],
) -> None:
    for name in ("one", "big", "mismatch"):
        data = record(saved[name])
        for text in (data["text/plain"], text_of(data["text/html"]), data["text/markdown"]):
            assert "nothing written yet" not in text, name


class _Details(html.parser.HTMLParser):
    """The text of an HTML fragment that shows without a click (outside closed details)."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []  # per open <details>: is it open
        self.summary = 0
        self.shown: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "details":
            self.stack.append(any(name == "open" for name, _ in attrs))
        elif tag == "summary":
            self.summary += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "details" and self.stack:
            self.stack.pop()
        elif tag == "summary":
            self.summary -= 1

    def handle_data(self, data: str) -> None:
        closed = [is_open for is_open in self.stack if not is_open]
        # a closed details shows its summary only (the innermost one's, if it is the closed)
        if not closed or (self.summary and len(closed) == 1 and not self.stack[-1]):
            self.shown.append(data)


def shown_without_a_click(fragment: str) -> str:
    parser = _Details()
    parser.feed(fragment)
    return "".join(parser.shown)


def test_a_declined_calls_record_folds_other_calls_notebook_changes(
    saved: dict[str, dict[str, Any]],
) -> None:
    shown = shown_without_a_click(record(saved["nb_declined"])["text/html"])
    assert "declined" in shown
    assert "x = 2" not in shown  # the notebook change is the other call's, in the TurnDiff
