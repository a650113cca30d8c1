"""The Jupyter server extension: a saved notebook keeps each call's static record only.

Every ``%%apply_patch`` call shows two outputs (see :mod:`applypatch_ext.jupyter.record`): its
static record and its live widget. A widget view cannot outlive its kernel: reopened, JupyterLab
and Notebook 7 show "Error displaying widget: model not found" in its place and never fall back
to another mime type. So, when a notebook is saved through the server (JupyterLab, Notebook 7,
autosave, real-time collaboration alike), a pre-save hook leaves out of the file

* each output marked ``metadata["applypatch_ext"]["live"]`` whose record (an output marked
  ``{"record": <the same id>}``) is in the same cell, and
* the widget state of those outputs' models, if the front end saved any ("Save Widget State
  Automatically"): each is ~100 KB of the widget's own JavaScript; and the models only they
  referred to (each widget's ``layout``).

The page keeps its live views; only the file changes. Enabled by
``etc/jupyter/jupyter_server_config.d/applypatch_ext.json`` (installed with the package; see
``jupyter server extension list``). Standard library only: the server process imports nothing
of the kernel side.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The key of the output metadata that marks a call's record and live widget.
OUTPUT_KEY = "applypatch_ext"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]+)")


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
    metadata = notebook.get("metadata")
    widgets = metadata.get("widgets") if isinstance(metadata, dict) else None
    states = widgets.get(WIDGET_STATE) if isinstance(widgets, dict) else None
    state = states.get("state") if isinstance(states, dict) else None
    if isinstance(state, dict) and removed:
        _drop_models(state, removed, json.dumps(cells))
    return removed


def _drop_models(state: dict[str, Any], model_ids: list[str], outputs_text: str) -> None:
    """Drop ``model_ids`` from a saved widget state, with the models only they referred to
    (a widget's ``layout``): a model another saved model or an output refers to stays."""
    pending = [m for m in model_ids if m in state]
    while pending:
        dropped = {m: state.pop(m) for m in pending if m in state}
        children = set(_REFERENCE.findall(json.dumps(list(dropped.values()))))
        still = json.dumps(list(state.values())) + outputs_text
        pending = [c for c in children if c in state and f"IPY_MODEL_{c}" not in still]
        pending = [c for c in pending if c not in outputs_text]


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
