"""The cell views of a call in the live widget's ``notebooks`` trait and in the call's static
fallbacks (HTML, Markdown, plain text), through the magic in a real IPython shell, on the
repository's own teaching notebooks copied into the working directory."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from markdown_it import MarkdownIt

from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.records.display import render_html, render_markdown, render_plain
from applypatch_ext.jupyter.records.record import record_bundle
from applypatch_ext.markup import md_text
from applypatch_ext.notebooks import call_notebook_views

from .conftest import Magic
from .test_notebook_cells import NOTEBOOKS, TOUR, dumps, update_patch

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def edited_tour(tmp_path: Path, edit: Any) -> str:
    """The patch that applies ``edit(notebook)`` to a copy of the tour notebook."""
    shutil.copy(NOTEBOOKS / TOUR, tmp_path / TOUR)
    before = (tmp_path / TOUR).read_text(encoding="utf-8")
    nb = json.loads(before)
    edit(nb)
    return update_patch(TOUR, before, dumps(nb))


def change_cell_0(nb: dict[str, Any]) -> None:
    nb["cells"][0]["source"][0] = "# 01 · Tour (edited)\n"


def drop_cell_type(nb: dict[str, Any]) -> None:
    del nb["cells"][2]["cell_type"]


def test_a_completed_notebook_edit_fills_the_trait_and_every_fallback(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    run = run_magic("res --stream-chunk 0", edited_tour(tmp_path, change_cell_0))
    widget, res = run.widget, ip.user_ns["res"]
    assert widget.status == "completed"
    views = widget.notebooks
    assert views["proposed"] == []
    (view,) = views["committed"]
    assert view["path"] == str(tmp_path / TOUR) and view["ok"] and view["kind"] == "update"
    changed = [e for e in view["cells"] if e["status"] != "unchanged"]
    assert [(e["status"], e["new_index"], e["changes"]) for e in changed] == [
        ("changed", 0, ["source"])
    ]
    assert "+# 01 · Tour (edited)" in changed[0]["source_diff"]
    # the result's state carries the same views, computed once (no second read of the disk)
    state = res.state_json()
    assert state["notebooks"] == views
    assert state["notebooks"] is res.state_json()["notebooks"]
    # the final update message (what no event carries) brings them: the view renders them once
    (final,) = [u for u in widget.updates() if "notebooks" in u]
    assert final["notebooks"] == json.loads(json.dumps(views))
    # the static fallbacks: the result's and the widget's own (saved with the notebook)
    html = res._repr_html_()
    assert "notebooks as cells:" in html and "<i>committed</i>" in html
    assert "changed · cell 0 id cell-00 · markdown" in html
    assert "unchanged cells</div>" in html and "raw JSON diff (what the patch changed)" in html
    assert html.index("notebooks as cells:") < html.index("<b>Turn diff</b>")
    # the call's static record (an output of its own, saved with the notebook) shows them too
    record = record_bundle(widget.record_id, widget.state_json())
    assert "changed · cell 0 id cell-00 · markdown" in record["text/html"]
    markdown = res._repr_markdown_()
    assert "*committed*" in markdown and "**changed · cell 0 id cell\\-00 · markdown**" in markdown
    assert "<details><summary>raw JSON diff</summary>" in markdown
    page = MarkdownIt("commonmark", {"html": True}).render(markdown)
    assert "<details><summary>raw JSON diff</summary>" in page and "<script" not in page
    plain = repr(res)
    assert f"notebook {tmp_path / TOUR}, committed: 1 changed, " in plain
    assert plain.index("notebook ") < plain.index("turn diff:")


def test_a_refused_notebook_edit_shows_the_proposed_cells_and_why(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    run = run_magic("res --approve approve --stream-chunk 0", edited_tour(tmp_path, drop_cell_type))
    widget, res = run.widget, ip.user_ns["res"]
    assert widget.status == "error" and widget.stage == "verifying"
    assert widget.notebooks["committed"] == []
    (view,) = widget.notebooks["proposed"]
    problem = view["validation"]["after"]
    assert problem.startswith("cell 2 (id 'cell-02', starting \"## Some files to work on\")")
    (cell,) = [e for e in view["cells"] if e["status"] != "unchanged"]
    assert cell["changes"] == ["cell type"] and cell["cell_type"] is None
    html = res._repr_html_()
    assert "<i>proposed, nothing written</i>" in html
    assert "invalid notebook: cell 2 (id &#x27;cell-02&#x27;" in html
    assert "invalid notebook: " + md_text(problem) in res._repr_markdown_()
    plain = repr(res).splitlines()
    i = plain.index(f"notebook {tmp_path / TOUR}, proposed, nothing written: {view['summary']}")
    assert view["summary"].startswith("1 changed, ")
    assert plain[i + 1] == f"  invalid notebook: {problem}"


def test_a_notebook_that_is_not_json_any_more_says_why_its_cells_cannot_show(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    shutil.copy(NOTEBOOKS / TOUR, tmp_path / TOUR)
    before = (tmp_path / TOUR).read_text(encoding="utf-8")
    broken = before.replace('"cell_type": "markdown",', '"cell_type": "markdown"', 1)
    run_magic("res --stream-chunk 0", update_patch(TOUR, before, broken))
    res = ip.user_ns["res"]
    (view,) = res.state_json()["notebooks"]["proposed"]
    assert not view["ok"] and view["cells"] == []
    assert view["reason"].startswith("the new text is not valid JSON: Expecting ',' delimiter")
    plain = repr(res).splitlines()
    i = plain.index(f"notebook {tmp_path / TOUR}, proposed, nothing written: cells cannot be shown")
    assert plain[i + 1] == f"  {view['reason']}"
    html = res._repr_html_()
    # the raw JSON diff opens by itself when the cells cannot be shown
    assert "<details open><summary>raw JSON diff (what the patch changed)</summary>" in html


def test_approval_shows_the_proposal_then_the_committed_cells(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    run = run_magic(
        "res --approval-policy untrusted --stream-chunk 0", edited_tour(tmp_path, change_cell_0)
    )
    widget = run.widget
    assert widget.status == "awaiting-approval"
    (proposed,) = widget.notebooks["proposed"]
    assert widget.notebooks["committed"] == []
    widget.approve("approve")
    assert widget.status == "completed"
    assert widget.notebooks["proposed"] == []
    (committed,) = widget.notebooks["committed"]
    # what was proposed is what was committed
    assert committed["cells"] == proposed["cells"]
    assert ip.user_ns["res"].state_json()["notebooks"] == widget.notebooks


def test_a_call_without_notebooks_shows_no_cell_view(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"
    run = run_magic("res --stream-chunk 0", patch)
    res = ip.user_ns["res"]
    assert run.widget.status == "completed"
    assert run.widget.notebooks == {"proposed": [], "committed": [], "turn": []}
    state = res.state_json()
    without = {k: v for k, v in state.items() if k != "notebooks"}
    for render in (render_html, render_markdown, render_plain):
        assert render(state) == render(without), render.__name__


def test_the_turndiff_shows_as_cells_in_the_widget_and_every_fallback(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    run_magic("first --stream-chunk 0", edited_tour(tmp_path, change_cell_0))
    first = ip.user_ns["first"]
    (same,) = first.notebooks["turn"]  # the turn's first change: the call's own, said once
    assert (
        same["same_as"] == "committed"
        and same["raw_diff"] == first.notebooks["committed"][0]["raw_diff"]
    )
    before = (tmp_path / TOUR).read_text(encoding="utf-8")
    nb = json.loads(before)
    nb["cells"][5]["source"].append("\n# and one more line")
    run = run_magic("second --stream-chunk 0", update_patch(TOUR, before, dumps(nb)))
    widget, second = run.widget, ip.user_ns["second"]
    assert widget.status == "completed"
    (committed,) = widget.notebooks["committed"]
    (net,) = widget.notebooks["turn"]
    assert "same_as" not in net and net["path"] == str(tmp_path / TOUR)
    changed = [(e["status"], e["new_index"]) for e in net["cells"] if "count" not in e]
    assert changed == [("changed", 0), ("changed", 5)]  # both calls' cells, net
    assert [e["new_index"] for e in committed["cells"] if "count" not in e] == [5]
    assert second.state_json()["notebooks"] == widget.notebooks
    # the first call's result keeps what its TurnDiff was when it ended
    assert first.notebooks["turn"] == [same]
    html = second._repr_html_()
    assert html.count("<i>in the TurnDiff</i>") == 1
    assert html.index("<i>committed</i>") < html.index("<i>in the TurnDiff</i>")
    # a record's TurnDiff is a summary: the turn's notebook named, its cells where the turn is
    turn_part = html[html.index("<i>in the TurnDiff</i>") :]
    assert "changed · cell 0 id cell-00 · markdown" not in turn_part
    assert "2 changed, " in turn_part
    assert "%apply_patch_turn` shows the turn&#x27;s notebooks as cells" in turn_part
    markdown = second._repr_markdown_()
    assert (
        "*in the TurnDiff*" in markdown
        and f"2 changed\\, {len(nb['cells']) - 2} unchanged cells" in markdown
    )
    plain = repr(second)
    assert f"notebook {tmp_path / TOUR}, in the TurnDiff: 2 changed, " in plain
    first_html = first._repr_html_()
    assert "the same change as committed above" in first_html
    # %apply_patch_turn shows the turn's notebooks as cells beside its diff
    (shown,) = run_magic.line("apply_patch_turn").outputs
    assert "<i>in the TurnDiff</i>" in shown.data["text/html"]
    assert "changed · cell 0 id cell-00 · markdown" in shown.data["text/html"]
    assert "changed · cell 5 id cell-05" in shown.data["text/html"]
    assert "*in the TurnDiff*\n\n**notebook**" in shown.data["text/markdown"]
    assert shown.data["text/plain"] == second.turn_diff  # the diff, to copy


def test_the_trait_is_displayed_and_its_views_are_the_calls() -> None:
    assert "notebooks" in ApplyPatchWidget.displayed_traits()
    assert ApplyPatchWidget().notebooks == {}
    # a state saved before the trait existed renders as before
    assert "notebooks as cells" not in render_html({"status": "completed"})
    assert call_notebook_views.__name__ in ApplyPatchWidget.notebooks.help
