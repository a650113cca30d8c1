"""Headless execution with nbclient (no browser): the saved notebook has the widget view and
the static fallbacks, all showing the final state (the display is updated at the end)."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

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

    # the widget cell: one display, updated in place to the final state
    [output] = nb.cells[1].outputs
    assert output.output_type == "display_data"
    data = output.data
    assert set(data) >= {WIDGET_VIEW, "text/html", "text/plain"}
    assert "completed" in data["text/plain"]
    assert "running" not in data["text/plain"]
    assert "completed" in data["text/html"]
    assert "diff --git a/headless.txt b/headless.txt" in data["text/html"]
    model_id = data[WIDGET_VIEW]["model_id"]

    # the saved widget state is the final one too
    state = nb.metadata["widgets"][WIDGET_STATE]["state"][model_id]["state"]
    assert state["status"] == "completed"
    assert state["stage"] == "done"
    assert "export default" in state["_esm"]

    # --no-widget: rich output only
    [plain] = nb.cells[2].outputs
    assert WIDGET_VIEW not in plain.data
    assert {"text/html", "text/markdown", "text/plain"} <= set(plain.data)
    assert "completed" in plain.data["text/plain"]

    assert nb.cells[3].outputs[0].text == "completed\n"
