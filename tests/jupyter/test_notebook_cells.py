"""Patches to ``.ipynb`` files as cells (applypatch_ext/notebooks/): the cell-level
diff, nbformat validation at verification (through a real Turn and through the magic in a real
IPython shell), and the static renderers. The inputs are the repository's own teaching
notebooks, copied to a temporary directory and edited by real patches."""

from __future__ import annotations

import copy
import difflib
import json
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from IPython.core.interactiveshell import InteractiveShell
from markdown_it import MarkdownIt

from applypatch_ext.core.apply.content_check import InvalidContent
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.turn import VERIFICATION_FAILED, Turn
from applypatch_ext.jupyter.records.notebooks import (
    render_call_notebooks_html,
    render_notebook_diff_html,
    render_notebook_diff_markdown,
)
from applypatch_ext.notebooks import (
    call_notebook_views,
    delta_notebook_diffs,
    notebook_diff,
    notebook_problem,
    tracker_notebook_diffs,
    turn_notebook_diffs,
    validate_notebook,
)

from .conftest import Magic

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
TOUR = "01_tour.ipynb"


def dumps(nb: dict[str, Any]) -> str:
    """The way Jupyter writes a notebook (indent 1, a final newline)."""
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def update_patch(name: str, old: str, new: str, context: int = 3) -> str:
    """An ``*** Update File`` patch taking ``old`` to ``new`` (both LF texts), as a model would
    write it: one ``@@`` chunk per difflib group, ``context`` lines around each."""
    a, b = old.split("\n"), new.split("\n")
    lines = ["*** Begin Patch", f"*** Update File: {name}"]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        lines.append("@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[i1:i2]]
            else:
                lines += ["-" + line for line in a[i1:i2]]
                lines += ["+" + line for line in b[j1:j2]]
    lines.append("*** End Patch")
    return "\n".join(lines)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in (TOUR, "05_turn_diff.ipynb"):
        shutil.copy(NOTEBOOKS / name, tmp_path / name)
    return tmp_path


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def nb_options(mode: InvalidContent = InvalidContent.REFUSE) -> PipelineOptions:
    sandbox = SandboxPolicy(
        PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
    )
    return PipelineOptions(
        sandbox=sandbox, content_validator=validate_notebook, invalid_content=mode
    )


def apply(project: Path, name: str, new_nb: dict[str, Any] | str, **kw: Any) -> Any:
    """Patch ``name`` to ``new_nb`` through a Turn with the nbformat validator."""
    path = project / name
    old = path.read_text(encoding="utf-8")
    new = new_nb if isinstance(new_nb, str) else dumps(new_nb)
    turn = Turn(str(project), options=nb_options(**kw))
    return turn, turn.run(update_patch(name, old, new), "approve")


def entries(view: dict[str, Any]) -> list[tuple[Any, ...]]:
    """(status, old index, new index) of every entry; a folded run as ("unchanged", N)."""
    out: list[tuple[Any, ...]] = []
    for entry in view["cells"]:
        if "count" in entry:
            out.append(("unchanged", entry["count"]))
        else:
            out.append((entry["status"], entry["old_index"], entry["new_index"]))
    return out


# ------------------------------------------------------------------ cells through the pipeline


def test_a_changed_cell_shows_its_source_diff_and_the_rest_is_folded(project: Path) -> None:
    nb = load(project / TOUR)
    new = copy.deepcopy(nb)
    source = "".join(new["cells"][3]["source"])
    new["cells"][3]["source"] = source.replace("return 42", "return 43").splitlines(True)
    turn, result = apply(project, TOUR, new)
    assert result.status == CallStatus.COMPLETED, result.output
    assert load(project / TOUR) == new
    (view,) = delta_notebook_diffs(result.delta)
    assert view["ok"] and view["matched_by"] == "id" and view["path"] == str(project / TOUR)
    count = len(nb["cells"])
    assert entries(view) == [("unchanged", 3), ("changed", 3, 3), ("unchanged", count - 4)]
    changed = view["cells"][1]
    assert changed["id"] == "cell-03" and changed["changes"] == ["source"]
    assert "No newline" not in changed["source_diff"]  # no cell's last line has one
    assert (
        '-        "project/src/util.py": "def helper():\\n    return 42\\n",'
        in (changed["source_diff"])
    )
    assert view["summary"] == f"1 changed, {count - 1} unchanged cells"
    # The raw JSON diff is the JSON lines that the patch changed.
    assert "return 42" in view["raw_diff"] and '"source": [' not in view["raw_diff"]
    # The turn's view says the same, and its undo view restores the cell.
    (turn_view,) = turn_notebook_diffs(c.result.delta for c in turn.calls)
    assert entries(turn_view) == entries(view)
    (undo,) = turn_notebook_diffs((c.result.delta for c in turn.calls), undo=True)
    assert (
        "+" + '        "project/src/util.py": "def helper():\\n    return 42\\n",'
        in (undo["cells"][1]["source_diff"])
    )


def test_added_removed_and_moved_cells(project: Path) -> None:
    nb = load(project / TOUR)
    new = copy.deepcopy(nb)
    added = {"cell_type": "markdown", "id": "note-1", "metadata": {}, "source": ["A new note."]}
    new["cells"].insert(5, added)
    del new["cells"][9]  # the old cell 8
    moved = new["cells"].pop(1)  # the old cell 1 goes to the end
    new["cells"].append(moved)
    _, result = apply(project, TOUR, new)
    assert result.status == CallStatus.COMPLETED, result.output
    (view,) = delta_notebook_diffs(result.delta)
    count = len(nb["cells"])
    # The old cell 1 left its place: the cells around it stay one unchanged run.
    assert entries(view) == [
        ("unchanged", 4),
        ("added", None, 4),
        ("unchanged", 3),
        ("removed", 8, None),
        ("unchanged", count - 9),
        ("moved", 1, count - 1),
    ]
    assert view["counts"] == {
        "added": 1,
        "removed": 1,
        "moved": 1,
        "changed": 0,
        "unchanged": count - 2,
    }
    assert view["summary"] == f"1 added, 1 removed, 1 moved, {count - 2} unchanged cells"


def test_without_ids_cells_are_matched_by_content(project: Path) -> None:
    """nbformat 4.4 notebooks have no cell ids: alignment, moves and similar cells."""
    nb = load(project / TOUR)
    for cell in nb["cells"]:
        del cell["id"]
    nb["nbformat_minor"] = 4
    (project / "old.ipynb").write_text(dumps(nb))
    new = copy.deepcopy(nb)
    new["cells"][2]["source"] = [*new["cells"][2]["source"], "\n", "One more line."]
    new["cells"][6], new["cells"][10] = new["cells"][10], new["cells"][6]
    del new["cells"][12]
    view = notebook_diff(dumps(nb), dumps(new), path="old.ipynb")
    assert view["ok"] and view["matched_by"] == "content"
    statuses = [(e["status"], e.get("old_index"), e.get("new_index")) for e in view["cells"]]
    assert ("changed", 2, 2) in statuses
    assert ("removed", 12, None) in statuses
    moved = [s for s in statuses if s[0] == "moved"]
    assert moved and {s[1] for s in moved} <= {6, 7, 8, 9, 10}
    assert view["counts"]["changed"] == 1 and view["counts"]["added"] == 0
    assert view["validation"] == {"before": None, "after": None}


def test_outputs_only_changes(project: Path) -> None:
    nb = load(project / TOUR)
    new = copy.deepcopy(nb)
    code = next(i for i, c in enumerate(new["cells"]) if c["cell_type"] == "code")
    new["cells"][code]["outputs"] = [
        {"output_type": "stream", "name": "stdout", "text": ["hello\n"]},
        {
            "output_type": "execute_result",
            "execution_count": 1,
            "data": {"text/plain": ["42"]},
            "metadata": {},
        },
    ]
    new["cells"][code]["execution_count"] = 1
    _, result = apply(project, TOUR, new)
    assert result.status == CallStatus.COMPLETED, result.output
    (view,) = delta_notebook_diffs(result.delta)
    (cell,) = [e for e in view["cells"] if e["status"] != "unchanged"]
    assert cell["changes"] == ["outputs", "execution count"]
    assert "source_diff" not in cell
    assert cell["outputs"]["summary"] == (
        "no outputs → 2 outputs: stream stdout; execute_result text/plain"
    )
    assert '"text/plain"' in cell["outputs"]["diff"]
    assert cell["execution_count"] == [None, 1]
    html = render_notebook_diff_html(view)
    # Collapsed by default: outputs inside a closed <details>, the raw JSON diff too.
    assert "<details><summary>outputs: no outputs → 2 outputs" in html
    assert "<details><summary>raw JSON diff" in html
    assert "execution count none → 1" in html


def test_metadata_changes_of_a_cell_and_of_the_notebook(project: Path) -> None:
    nb = load(project / TOUR)
    new = copy.deepcopy(nb)
    new["cells"][4]["metadata"] = {"tags": ["hide-input"]}
    new["metadata"]["title"] = "Tour"
    view = notebook_diff(dumps(nb), dumps(new))
    (cell,) = [e for e in view["cells"] if e["status"] != "unchanged"]
    assert cell["changes"] == ["metadata"] and cell["metadata"]["summary"] == "added 'tags'"
    assert view["metadata"]["summary"] == "added 'title'"
    assert '"title": "Tour"' in view["metadata"]["diff"]


def test_a_source_as_a_string_or_a_list_is_the_same_cell(project: Path) -> None:
    nb = load(project / TOUR)
    new = copy.deepcopy(nb)
    for cell in new["cells"]:
        cell["source"] = "".join(cell["source"])
    view = notebook_diff(dumps(nb), dumps(new))
    assert view["counts"]["unchanged"] == len(nb["cells"]) and view["summary"] == (
        f"{len(nb['cells'])} unchanged cells"
    )
    assert view["raw_diff"]  # the JSON did change


def test_an_old_v3_notebook_is_read_as_cells() -> None:
    v3 = nbformat.v3
    cells = [v3.new_code_cell(input="x = 1"), v3.new_text_cell("markdown", source="hi")]
    text = nbformat.writes(v3.new_notebook(worksheets=[v3.new_worksheet(cells=cells)]), version=3)
    edited = json.loads(text)
    edited["worksheets"][0]["cells"][0]["input"] = "x = 2"
    view = notebook_diff(text, json.dumps(edited))
    assert view["ok"] and view["nbformat"] == {"before": "3.0", "after": "3.0"}
    assert view["summary"] == "1 changed, 1 unchanged cell"
    assert view["cells"][0]["source_diff"] == "@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    assert notebook_problem(text) is None


def test_an_added_and_a_deleted_notebook(project: Path) -> None:
    text = (project / TOUR).read_text()
    added = notebook_diff(None, text, path="new.ipynb")
    count = len(json.loads(text)["cells"])
    assert added["kind"] == "add" and added["counts"]["added"] == count
    deleted = notebook_diff(text, None)
    assert deleted["kind"] == "delete" and deleted["counts"]["removed"] == count
    turn = Turn(str(project), options=nb_options())
    result = turn.run("*** Begin Patch\n*** Delete File: 01_tour.ipynb\n*** End Patch", "approve")
    assert result.status == CallStatus.COMPLETED
    (view,) = delta_notebook_diffs(result.delta)
    assert view["kind"] == "delete" and view["summary"] == f"{count} removed cells"


# ------------------------------------------------------------------------- validation


def test_a_patch_that_breaks_the_json_is_refused_with_line_and_column(project: Path) -> None:
    before = (project / TOUR).read_text()
    text = before.replace(
        '"cell_type": "markdown",\n   "id": "cell-02"',
        '"cell_type": "markdown"\n   "id": "cell-02"',
        1,
    )
    assert text != before
    _, result = apply(project, TOUR, text)
    assert result.status == CallStatus.ERROR and result.stage == "verifying"
    line = next(i for i, row in enumerate(text.split("\n"), 1) if '"id": "cell-02"' in row)
    assert result.error == (
        f"the proposed content of {project / TOUR} is invalid: not valid JSON: Expecting ',' "
        f'delimiter at line {line}, column 4: "\\"id\\": \\"cell-02\\","; a notebook is one '
        "JSON object: check the commas, quotes and brackets the patch changed. Jupyter cannot "
        "open an invalid notebook: fix the patch"
    )
    assert result.output == VERIFICATION_FAILED + result.error
    assert (project / TOUR).read_text() == before
    # The cell view of what was refused: it cannot show cells, says why, keeps the raw diff.
    view = notebook_diff(before, text)
    assert not view["ok"] and view["reason"].startswith("the new text is not valid JSON")
    assert view["raw_diff"].count("\n-") == 1


def test_valid_json_but_a_missing_cell_type_names_the_cell(project: Path) -> None:
    before = (project / TOUR).read_text()
    nb = load(project / TOUR)
    del nb["cells"][2]["cell_type"]
    _, result = apply(project, TOUR, nb)
    assert result.status == CallStatus.ERROR
    assert result.error == (
        f"the proposed content of {project / TOUR} is invalid: cell 2 (id 'cell-02', starting "
        "\"## Some files to work on\"): 'cell_type' is missing; every cell needs one: 'code', "
        "'markdown', 'raw'. Jupyter cannot open an invalid notebook: fix the patch"
    )
    assert (project / TOUR).read_text() == before
    # The cells still show (the broken one has no type), with nbformat's verdict.
    view = notebook_diff(before, dumps(nb))
    assert view["ok"] and view["validation"]["after"].startswith("cell 2 (id 'cell-02'")
    (cell,) = [e for e in view["cells"] if e["status"] != "unchanged"]
    assert cell["changes"] == ["cell type"] and cell["cell_type"] is None


def test_the_views_of_a_refused_call_show_the_broken_cell(project: Path) -> None:
    nb = load(project / TOUR)
    del nb["cells"][2]["cell_type"]
    _, result = apply(project, TOUR, nb)
    views = call_notebook_views(result)
    assert views["committed"] == []
    (view,) = views["proposed"]
    assert view["path"] == str(project / TOUR) and view["kind"] == "update"
    assert entries(view)[1] == ("changed", 2, 2)
    assert view["validation"]["after"].startswith("cell 2 (id 'cell-02'")
    json.dumps(views)  # trait-ready
    html = render_call_notebooks_html(views)
    assert "<i>proposed, nothing written</i>" in html and "invalid notebook: cell 2" in html


def test_the_views_of_a_completed_call_are_its_committed_delta(project: Path) -> None:
    nb = load(project / TOUR)
    nb["cells"][0]["source"][0] = "# edited\n"
    _, result = apply(project, TOUR, nb)
    views = call_notebook_views(result)
    assert views["proposed"] == [] and entries(views["committed"][0])[0] == ("changed", 0, 0)
    assert "<i>committed</i>" in render_call_notebooks_html(views)


def test_a_moved_notebook_is_shown_at_its_new_path(project: Path) -> None:
    text = "*** Begin Patch\n*** Update File: 01_tour.ipynb\n*** Move to: tour.ipynb\n@@\n"
    text += '-   "id": "cell-00",\n+   "id": "intro",\n*** End Patch'
    turn = Turn(str(project), options=nb_options())
    call = turn.call()
    call.push_delta(text)
    dry = call.dry_run()
    (planned,) = call_notebook_views(dry)["proposed"]
    assert planned["path"] == str(project / "tour.ipynb")
    assert planned["moved_from"] == str(project / TOUR)
    result = turn.run(text, "approve")
    assert result.status == CallStatus.COMPLETED, result.output
    (view,) = delta_notebook_diffs(result.delta)
    assert view["moved_from"] == str(project / TOUR)
    assert view["cells"][0]["changes"] == ["id"]
    (net,) = turn_notebook_diffs(c.result.delta for c in turn.calls if c.result)
    assert net["path"] == str(project / "tour.ipynb") and net["kind"] == "update"
    assert net["moved_from"] == str(project / TOUR)


# ------------------------------------------------------------------ the TurnDiff as cells


def run_edits(project: Path, name: str, *edits: Any, **kw: Any) -> tuple[Turn, list[Any]]:
    """One turn of calls on ``name``, each taking the notebook on disk through ``edit(nb)``
    (an edit returning a str gives the new text as it is); every call must complete."""
    turn = Turn(str(project), options=nb_options(**kw))
    results = []
    for edit in edits:
        path = project / name
        old = path.read_bytes().decode("utf-8")
        lf = old.replace("\r\n", "\n")
        nb = json.loads(lf)
        new = edit(nb)
        new_text = new if isinstance(new, str) else dumps(nb)
        result = turn.run(update_patch(name, lf, new_text), "approve")
        assert result.status == CallStatus.COMPLETED, result.output
        results.append(result)
    return turn, results


def turn_block(turn: Turn, path: Path) -> Any:
    (side,) = [t for t in turn.tracker.file_texts() if t.absolute == str(path)]
    return side


def test_the_turndiff_shows_the_net_cells_of_several_calls(project: Path) -> None:
    original = (project / TOUR).read_text(encoding="utf-8")
    count = len(json.loads(original)["cells"])
    added = {"cell_type": "markdown", "id": "note-1", "metadata": {}, "source": ["A new note."]}

    def add_and_change(nb: dict[str, Any]) -> None:
        nb["cells"][0]["source"][0] = "# 01 · Tour, edited\n"
        nb["cells"].insert(5, added)

    def remove_and_move(nb: dict[str, Any]) -> None:
        del nb["cells"][9]  # the old cell 8
        nb["cells"].append(nb["cells"].pop(1))  # the old cell 1 goes to the end

    def outputs_only(nb: dict[str, Any]) -> None:
        cell = nb["cells"][2]  # the old cell 3, a code cell
        assert cell["cell_type"] == "code"
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}]
        cell["execution_count"] = 3

    turn, results = run_edits(project, TOUR, add_and_change, remove_and_move, outputs_only)
    (net,) = tracker_notebook_diffs(turn.tracker)
    # the net change of the turn: from the text before the turn to the text now
    side = turn_block(turn, project / TOUR)
    assert side.before == original and side.after == (project / TOUR).read_text(encoding="utf-8")
    assert net == notebook_diff(original, side.after, path=str(project / TOUR))
    # in the new order (the old cell 1 at the end), the removed cell where it was
    assert entries(net) == [
        ("changed", 0, 0),
        ("unchanged", 1),
        ("changed", 3, 2),
        ("unchanged", 1),
        ("added", None, 4),
        ("unchanged", 3),
        ("removed", 8, None),
        ("unchanged", count - 9),
        ("moved", 1, count - 1),
    ]
    outputs = [e for e in net["cells"] if e.get("old_index") == 3]
    assert outputs[0]["changes"] == ["outputs", "execution count"]
    assert net["summary"] == f"1 added, 1 removed, 1 moved, 2 changed, {count - 4} unchanged cells"
    # its raw JSON diff is the TurnDiff's block of that notebook (what git apply would take)
    (block,) = [b for b in turn.tracker.file_diffs() if b.path == TOUR]
    assert net["raw_diff"] and block.text.endswith(net["raw_diff"])
    # each call: its own committed cells, and the turn's net cells so far
    first, second, third = (call_notebook_views(r) for r in results)
    assert first["turn"] == second["turn"] == third["turn"] == []  # no tracker: no TurnDiff
    views = call_notebook_views(results[-1], turn.tracker)
    assert [e["status"] for e in views["committed"][0]["cells"] if "count" not in e] == ["changed"]
    assert views["turn"] == [{**net}] and "same_as" not in views["turn"][0]
    # undoing the turn would bring back the old cell 8 and remove the new note
    (undo,) = tracker_notebook_diffs(turn.tracker, undo=True)
    undo_statuses = {(e["status"], e.get("id")) for e in undo["cells"] if "count" not in e}
    assert {("added", "cell-08"), ("removed", "note-1")} <= undo_statuses


def test_a_call_that_leaves_the_notebook_alone_reuses_its_turndiff_view(project: Path) -> None:
    def edit(nb: dict[str, Any]) -> None:
        nb["cells"][0]["source"][0] = "# edited\n"

    turn, (first,) = run_edits(project, TOUR, edit)
    (view,) = call_notebook_views(first, turn.tracker)["turn"]
    (project / "notes.txt").write_text("one\n")
    other = turn.run("*** Begin Patch\n*** Update File: notes.txt\n@@\n-one\n+two\n*** End Patch")
    assert other.status == CallStatus.COMPLETED, other.output
    (again,) = call_notebook_views(other, turn.tracker)["turn"]
    # the same cells, not diffed again (the very objects), and no longer the call's own change
    assert again["cells"] is view["cells"] and again["raw_diff"] == view["raw_diff"]
    assert view["same_as"] == "committed" and "same_as" not in again
    # a call that changes the notebook again: its TurnDiff view is made anew
    before = (project / TOUR).read_text(encoding="utf-8")
    nb = json.loads(before)
    nb["cells"][2]["source"].append("\nmore")
    third = turn.run(update_patch(TOUR, before, dumps(nb)), "approve")
    assert third.status == CallStatus.COMPLETED, third.output
    (changed,) = call_notebook_views(third, turn.tracker)["turn"]
    assert changed["cells"] is not view["cells"]
    assert [e["new_index"] for e in changed["cells"] if "count" not in e] == [0, 2]


def test_the_first_change_of_a_turn_is_its_calls_and_said_once(project: Path) -> None:
    def edit(nb: dict[str, Any]) -> None:
        nb["cells"][0]["source"][0] = "# edited\n"

    turn, (result,) = run_edits(project, TOUR, edit)
    views = call_notebook_views(result, turn.tracker)
    (committed,) = views["committed"]
    (turn_view,) = views["turn"]
    assert turn_view["same_as"] == "committed"
    assert {k: v for k, v in turn_view.items() if k != "same_as"} == committed
    assert turn_view["cells"] is committed["cells"]  # the same texts: diffed once
    html = render_call_notebooks_html(views)
    assert html.count("<i>in the TurnDiff</i>") == 1
    assert "the same change as committed above: this call is the turn&#x27;s only change" in html
    assert html.count("raw JSON diff") == 1  # the cells and the JSON once, under committed


def test_the_turndiff_of_a_notebook_broken_then_repaired(project: Path) -> None:
    """--invalid-notebooks warn writes a broken notebook: the TurnDiff says why its cells
    cannot show, with its raw JSON open; the repair leaves no TurnDiff at all."""
    original = (project / TOUR).read_text(encoding="utf-8")
    broken = original.replace('"cell_type": "markdown",', '"cell_type": "markdown"', 1)
    turn, results = run_edits(project, TOUR, lambda nb: broken, mode=InvalidContent.WARN)
    (view,) = tracker_notebook_diffs(turn.tracker)
    assert not view["ok"] and view["cells"] == []
    assert view["reason"].startswith("the new text is not valid JSON: Expecting ',' delimiter")
    assert view["validation"]["after"].startswith("not valid JSON: Expecting ',' delimiter at")
    html = render_call_notebooks_html(call_notebook_views(results[0], turn.tracker))
    assert "<details open><summary>raw JSON diff" in html
    repair = turn.run(update_patch(TOUR, broken, original), "approve")
    assert repair.status == CallStatus.COMPLETED, repair.output
    assert tracker_notebook_diffs(turn.tracker) == [] and turn.turn_diff() == ""


def test_the_turndiff_of_a_notebook_left_without_a_cell_type(project: Path) -> None:
    def drop(nb: dict[str, Any]) -> None:
        del nb["cells"][2]["cell_type"]

    def touch(nb: dict[str, Any]) -> None:
        nb["cells"][0]["source"][0] = "# edited\n"

    turn, _ = run_edits(project, TOUR, drop, touch, mode=InvalidContent.WARN)
    (view,) = tracker_notebook_diffs(turn.tracker)
    assert view["ok"] and view["validation"]["before"] is None
    assert view["validation"]["after"].startswith("cell 2 (id 'cell-02', starting")
    assert [(e["status"], e["changes"]) for e in view["cells"] if "count" not in e] == [
        ("changed", ["source"]),
        ("changed", ["cell type"]),
    ]
    assert "invalid notebook: cell 2 (id" in render_notebook_diff_html(view)


def test_the_turndiff_of_a_crlf_notebook(project: Path) -> None:
    name = "05_turn_diff.ipynb"
    lf = (project / name).read_text(encoding="utf-8")
    (project / name).write_bytes(lf.replace("\n", "\r\n").encode())

    def first(nb: dict[str, Any]) -> None:
        nb["cells"][0]["source"][0] = "# 05 · edited\n"

    def last(nb: dict[str, Any]) -> None:
        nb["cells"][-1]["source"].append("\nmore")

    turn, _ = run_edits(project, name, first, last)
    side = turn_block(turn, project / name)
    assert side.before == lf.replace("\n", "\r\n") and "\r\n" in (side.after or "")
    assert "\n" not in (side.after or "").replace("\r\n", "")  # every line keeps its CRLF
    (view,) = tracker_notebook_diffs(turn.tracker)
    count = len(json.loads(lf)["cells"])
    assert view["ok"] and view["validation"] == {"before": None, "after": None}
    assert entries(view) == [
        ("changed", 0, 0),
        ("unchanged", count - 2),
        ("changed", count - 1, count - 1),
    ]
    assert "+more" in view["cells"][-1]["source_diff"]


def test_an_added_then_deleted_notebook_leaves_no_turndiff(project: Path) -> None:
    turn = Turn(str(project), options=nb_options())
    text = (project / TOUR).read_text(encoding="utf-8")
    add = "*** Begin Patch\n*** Add File: new.ipynb\n" + "".join(
        "+" + line + "\n" for line in text.rstrip("\n").split("\n")
    )
    added = turn.run(add + "*** End Patch", "approve")
    assert added.status == CallStatus.COMPLETED, added.output
    (view,) = tracker_notebook_diffs(turn.tracker)
    assert view["kind"] == "add" and view["counts"]["added"] == len(json.loads(text)["cells"])
    deleted = turn.run("*** Begin Patch\n*** Delete File: new.ipynb\n*** End Patch", "approve")
    assert deleted.status == CallStatus.COMPLETED, deleted.output
    assert tracker_notebook_diffs(turn.tracker) == []
    assert call_notebook_views(deleted, turn.tracker)["turn"] == []


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda nb: nb["cells"][1].update(outputs=[{"output_type": "stream"}]),
            "cell 1 (id 'cell-01', a code cell, starting \"import tempfile\"): 'name' is a "
            "required property (at outputs.0)",
        ),
        (
            lambda nb: nb["cells"][3].update(cell_type="python"),
            "cell 3 (id 'cell-03', a python cell, starting \"write_files(\"): cell_type "
            "'python' is not valid; it must be one of 'code', 'markdown', 'raw'",
        ),
        (
            lambda nb: nb["cells"][4].update(id="cell-00"),
            "cell 4 (id 'cell-00', a markdown cell, starting \"## The patch format in one "
            'minute"): its id is also the id of cell 0; cell ids must be unique within a '
            "notebook",
        ),
        (
            lambda nb: nb["metadata"].update(kernelspec={}),
            "'name' is a required property (at metadata.kernelspec)",
        ),
        (lambda nb: nb.update(nbformat=7), "not a notebook nbformat can read: 'nbformat' is 7"),
    ],
)
def test_validation_errors_say_what_and_where(project: Path, edit: Any, expected: str) -> None:
    nb = load(project / TOUR)
    edit(nb)
    problem = notebook_problem(dumps(nb))
    assert problem is not None and problem.startswith(expected), problem


def test_warn_applies_an_invalid_notebook_anyway(project: Path) -> None:
    nb = load(project / TOUR)
    del nb["cells"][2]["cell_type"]
    _, result = apply(project, TOUR, nb, mode=InvalidContent.WARN)
    assert result.status == CallStatus.COMPLETED
    assert load(project / TOUR) == nb
    [warning] = result.warnings
    assert warning.kind == "invalid_content" and "'cell_type' is missing" in warning.message
    assert any(e.event.type == "patch_warning" for e in result.events)


def test_a_notebook_with_crlf_endings(project: Path) -> None:
    lf = (project / TOUR).read_text()
    (project / TOUR).write_bytes(lf.replace("\n", "\r\n").encode())
    assert notebook_problem(lf.replace("\n", "\r\n")) is None
    nb = json.loads(lf)
    new = copy.deepcopy(nb)
    new["cells"][0]["source"][0] = "# 01 · A tour, edited\n"
    _, result = apply(project, TOUR, new)
    assert result.status == CallStatus.COMPLETED, result.output
    written = (project / TOUR).read_bytes().decode()
    assert written == dumps(new).replace("\n", "\r\n")  # every line keeps its CRLF
    (view,) = delta_notebook_diffs(result.delta)
    assert view["ok"] and entries(view)[0] == ("changed", 0, 0)
    assert view["counts"]["unchanged"] == len(nb["cells"]) - 1
    # A broken CRLF notebook is refused like any other.
    broken = written.replace('"cell_type": "markdown",', '"cell_type": "markdown"', 1)
    _, refused = apply(project, TOUR, broken.replace("\r\n", "\n"))
    assert refused.status == CallStatus.ERROR and "not valid JSON" in (refused.error or "")


def test_other_files_are_not_checked() -> None:
    assert validate_notebook("/p/notes.json", "{") is None
    assert validate_notebook("/p/NB.IPYNB", "{") is not None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        "null",
        '"cells"',
        '{"cells": 3}',
        '{"cells": [1, "x", null, {"source": 5}], "nbformat": 4, "nbformat_minor": 5}',
        '{"cells": [{"cell_type": "code", "source": [1, 2], "outputs": 7}]}',
        '{"nbformat": 3, "worksheets": [{"cells": "no"}]}',
        "[" * 100_000,
        "\ufeff{}",
    ],
)
def test_anything_gives_a_view_or_a_reason_and_never_raises(text: str) -> None:
    nb = (NOTEBOOKS / TOUR).read_text()
    for before, after in ((nb, text), (text, nb), (None, text), (text, None)):
        view = notebook_diff(before, after)
        json.dumps(view)  # JSON-able
        assert view["ok"] or view["reason"]
        render_notebook_diff_html(view)
        render_notebook_diff_markdown(view)
    assert notebook_problem(text) is not None


def test_hostile_paths_and_contents_are_escaped(project: Path) -> None:
    nb = load(project / TOUR)
    new = copy.deepcopy(nb)
    new["cells"][0]["source"] = ["<script>alert(1)</script>\x1b[2J\u202e\n"]
    new["cells"][1]["outputs"] = [
        {"output_type": "stream", "name": "<img src=x onerror=alert(2)>", "text": "x"}
    ]
    view = notebook_diff(dumps(nb), dumps(new), path="<b>evil</b>\x1b.ipynb")
    html = render_notebook_diff_html(view)
    assert "<script>" not in html and "<img" not in html and "<b>evil" not in html
    assert "\x1b" not in html and "\u202e" not in html
    assert "&lt;script&gt;" in html and "␛" in html and "\\u202e" in html
    markdown = render_notebook_diff_markdown(view)
    assert "\x1b" not in markdown and "\u202e" not in markdown
    # Rendered as CommonMark with raw HTML allowed, nothing hostile is live.
    page = MarkdownIt("commonmark", {"html": True}).render(markdown)
    assert "<script>" not in page and "<img" not in page and "<b>evil" not in page
    assert "&lt;script&gt;" in page


# ------------------------------------------------------------------------------ the magic


def test_the_magic_refuses_a_notebook_it_would_break(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    shutil.copy(NOTEBOOKS / TOUR, tmp_path / TOUR)
    before = (tmp_path / TOUR).read_text()
    nb = json.loads(before)
    del nb["cells"][2]["cell_type"]
    run = run_magic("res --approve approve --stream-chunk 0", update_patch(TOUR, before, dumps(nb)))
    assert run.widget.status == "error" and run.widget.stage == "verifying"
    assert "cell 2 (id 'cell-02'" in run.widget.error
    assert run.widget.output.startswith(VERIFICATION_FAILED)
    assert (tmp_path / TOUR).read_text() == before
    assert ip.user_ns["res"].status == "error"


def test_the_magic_applies_a_good_notebook_edit(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    shutil.copy(NOTEBOOKS / TOUR, tmp_path / TOUR)
    before = (tmp_path / TOUR).read_text()
    nb = json.loads(before)
    nb["cells"][0]["source"][0] = "# 01 · Tour (edited)\n"
    run = run_magic("res --approve approve --stream-chunk 0", update_patch(TOUR, before, dumps(nb)))
    assert run.widget.status == "completed"
    assert json.loads((tmp_path / TOUR).read_text()) == nb
    (view,) = delta_notebook_diffs(ip.user_ns["res"].raw.delta)
    assert entries(view)[0] == ("changed", 0, 0)


# ------------------------------------------------------------------------ invariants

_SOURCES = st.sampled_from(["a = 1", "a = 2", "# Title", "print(a)", "", "x\ny", "a = 1\n"])
_CELL = st.fixed_dictionaries(
    {
        "cell_type": st.sampled_from(["code", "markdown"]),
        "source": _SOURCES,
        "metadata": st.sampled_from([{}, {"tags": ["t"]}]),
    }
)


def _notebook(cells: list[dict[str, Any]], ids: list[str] | None) -> str:
    out = []
    for k, cell in enumerate(cells):
        cell = dict(cell)
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
        if ids is not None:
            cell["id"] = ids[k]
        out.append(cell)
    return dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    old=st.lists(_CELL, max_size=8),
    new=st.lists(_CELL, max_size=8),
    with_ids=st.booleans(),
    shared=st.integers(0, 8),
)
def test_every_cell_is_accounted_for_once(
    old: list[dict[str, Any]], new: list[dict[str, Any]], with_ids: bool, shared: int
) -> None:
    """Whatever the two notebooks, every old cell is matched or removed and every new cell is
    matched or added, exactly once; the new cells appear in their order."""
    old_ids = new_ids = None
    if with_ids:
        old_ids = [f"o{k}" for k in range(len(old))]
        # some ids survive (in a shuffled place), the others are new
        new_ids = [f"o{k}" if k < shared else f"n{k}" for k in range(len(new))][::-1]
    view = notebook_diff(_notebook(old, old_ids), _notebook(new, new_ids))
    assert view["ok"], view["reason"]
    seen_old: list[int] = []
    seen_new: list[int] = []
    for entry in view["cells"]:
        if "count" in entry:
            seen_old += entry["old_indices"]
            seen_new += entry["new_indices"]
        else:
            for key, seen in (("old_index", seen_old), ("new_index", seen_new)):
                if entry[key] is not None:
                    seen.append(entry[key])
    assert sorted(seen_old) == list(range(len(old)))
    assert seen_new == list(range(len(new)))
    counts = view["counts"]
    matched = counts["unchanged"] + counts["moved"] + counts["changed"]
    moved_and_changed = sum(1 for e in view["cells"] if e["status"] == "moved" and e.get("changes"))
    assert matched - moved_and_changed + counts["added"] == len(new)
    assert matched - moved_and_changed + counts["removed"] == len(old)
    if old and old == new and old_ids == new_ids:
        plural = "" if len(old) == 1 else "s"
        assert view["summary"] == f"{len(old)} unchanged cell{plural}"
