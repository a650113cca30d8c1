"""Headless execution with nbclient (no browser): the saved notebook has the call's static
record, updated to the final state at the end, and its widget view with the saved state."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from applypatch_ext.jupyter.live.assets import asset_path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

PATCH = "*** Begin Patch\n*** Add File: headless.txt\n+written by nbclient\n*** End Patch"


def test_saved_outputs_have_the_widget_and_final_fallbacks(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext applypatch_ext"),
        nbformat.v4.new_code_cell(
            f"%%apply_patch result --stream-chunk 8 --stream-delay 0.01\n{PATCH}"
        ),
        nbformat.v4.new_code_cell(
            f"%%apply_patch --no-widget\n{PATCH.replace('headless', 'plain')}"
        ),
        nbformat.v4.new_code_cell("print(result.status)"),
    ]
    client = NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    nbformat.write(nb, tmp_path / "executed.ipynb")
    assert (tmp_path / "headless.txt").read_text() == "written by nbclient\n"

    # the widget cell: the static record, updated in place to the final state, and the view
    record, live = nb.cells[1].outputs
    assert record.output_type == live.output_type == "display_data"
    record_id = record.metadata["applypatch_ext"]["record"]
    assert live.metadata["applypatch_ext"] == {"live": record_id}
    data = record.data
    assert set(data) == {"text/html", "text/markdown", "text/plain"}
    assert "completed" in data["text/plain"]
    assert "running" not in data["text/plain"]
    assert "completed" in data["text/html"]
    assert 'data-applypatch-file="headless.txt"' in data["text/html"]
    assert set(live.data) == {WIDGET_VIEW, "text/plain"}
    model_id = live.data[WIDGET_VIEW]["model_id"]

    # nbclient saves the widget state (the final one): a reopened notebook restores the view
    state = nb.metadata["widgets"][WIDGET_STATE]["state"][model_id]["state"]
    assert state["status"] == "completed"
    assert state["stage"] == "done"
    assert state["record_id"] == record_id
    assert state["_esm"] == asset_path("widget.js").read_text()  # the bundle, whole

    # --no-widget: rich output only
    [plain] = nb.cells[2].outputs
    assert WIDGET_VIEW not in plain.data
    assert {"text/html", "text/markdown", "text/plain"} <= set(plain.data)
    assert "completed" in plain.data["text/plain"]

    assert nb.cells[3].outputs[0].text == "completed\n"
