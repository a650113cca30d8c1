"""The Jupyter server extension: a saved notebook keeps each call's static record only.

Every ``%%apply_patch`` call shows two outputs (see :mod:`applypatch_ext.jupyter.record`): its
static record and its live widget. A widget view cannot outlive its kernel: reopened, JupyterLab
and Notebook 7 show "Error displaying widget: model not found" in its place and never fall back
to another mime type. So, when a notebook is saved through the server (JupyterLab, Notebook 7,
autosave, real-time collaboration alike), a pre-save hook leaves out of the file

* each output marked ``metadata["applypatch_ext"]["live"]`` whose record (an output marked
  ``{"record": <the same id>}``) is in the same cell, and
* the widget state of those outputs' models, if the front end saved any ("Save Widget State
  Automatically"): each is ~100 KB of the widget's own JavaScript.

The page keeps its live views; only the file changes. Enabled by
``etc/jupyter/jupyter_server_config.d/applypatch_ext.json`` (installed with the package; see
``jupyter server extension list``). Standard library only: the server process imports nothing
of the kernel side.
"""

from __future__ import annotations

from typing import Any

#: The key of the output metadata that marks a call's record and live widget.
OUTPUT_KEY = "applypatch_ext"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _marks(output: Any) -> dict[str, Any]:
    if not isinstance(output, dict):
        return {}
    metadata = output.get("metadata")
    marks = metadata.get(OUTPUT_KEY) if isinstance(metadata, dict) else None
    return marks if isinstance(marks, dict) else {}


def strip_live_views(notebook: dict[str, Any]) -> list[str]:
    """Remove, in place, the live widget outputs that have their record beside them, and the
    saved widget state of their models. Returns the model ids of the removed outputs."""
    removed: list[str] = []
    cells = notebook.get("cells")
    for cell in cells if isinstance(cells, list) else []:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        if not isinstance(outputs, list):
            continue
        records = {_marks(o).get("record") for o in outputs} - {None}
        kept = []
        for output in outputs:
            live = _marks(output).get("live")
            if live is None or live not in records:
                kept.append(output)
                continue
            view = output.get("data", {}).get(WIDGET_VIEW)
            if isinstance(view, dict) and isinstance(view.get("model_id"), str):
                removed.append(view["model_id"])
        if len(kept) != len(outputs):
            cell["outputs"] = kept
    widgets = notebook.get("metadata", {}).get("widgets")
    state = widgets.get(WIDGET_STATE, {}).get("state") if isinstance(widgets, dict) else None
    if isinstance(state, dict):
        for model_id in removed:
            state.pop(model_id, None)
    return removed


def pre_save_hook(model: dict[str, Any], **_kwargs: Any) -> None:
    """``ContentsManager`` pre-save hook: strip the live views of a notebook being saved."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        strip_live_views(model["content"])


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "applypatch_ext.serverext"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    serverapp.contents_manager.register_pre_save_hook(pre_save_hook)
    serverapp.log.info(
        "applypatch_ext: saved notebooks keep each call's static record, not its live widget"
    )
