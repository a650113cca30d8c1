"""What a saved notebook keeps of a call: its static record, and while a kernel may live on, a
live view that shows nothing unless that kernel still has it.

Every ``%%apply_patch`` call shows two outputs (see :mod:`applypatch_ext.jupyter.records.record`):
its static record and its live widget. A widget view cannot outlive its kernel: reopened, JupyterLab
and Notebook 7 show "Error displaying widget: model not found" in its place and never fall back to
another mime type. There are two saved forms, from one rule:

* **headless** (nbconvert, papermill, ``python -m applypatch_ext strip``: no kernel will ever
  serve the file again): the file leaves out each output marked
  ``metadata["applypatch_ext"]["live"]`` whose record (an output marked ``{"record": <the same
  id>}``) is in the same cell, and the saved widget state of those outputs' models, if any was
  saved (nbclient, nbconvert and papermill save it by default): about 165 KB per call, most of
  it the widget's own JavaScript and CSS; and the models only they referred to (each widget's
  ``layout``).
* **restorable** (the Jupyter server's save, :mod:`applypatch_ext.serverext`: the kernel may
  live on, and a page reloaded, or left and come back to, should show the live, answerable
  view again): each such live output is kept, as the widget view alone (its text fallback
  emptied), and its model is saved as a :data:`PLACEHOLDER`, a core Output widget with no
  output: a widget manager takes a model the kernel still has before a saved one, so a page
  whose kernel lives shows the live view (which hides the record beside it), and a page
  without it shows the placeholder, nothing, and the record. The models only the live ones
  referred to go, as in the headless form, and a placeholder no output shows any more.

This module is the one implementation of that rule. Everything that writes a notebook stands
on it: the Jupyter server's pre-save hook (:mod:`applypatch_ext.serverext`), the nbconvert
preprocessor and the papermill engine (:mod:`applypatch_ext.headless`), and ``python -m
applypatch_ext strip``; the headless form of a restorable file is the headless form of the
notebook it was saved from. Standard library only, and linear in the notebook's size: one pass
over the cells, one over the saved widget state to learn which model refers to which.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

#: The key of the output metadata that marks a call's record and live widget (the
#: labextension's ``OUTPUT_KEY``, labextension/src/records.js, is the same word: a test checks).
OUTPUT_KEY: Final = "applypatch_ext"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: What a restorable save keeps of a live view's model: the core Output widget, empty (the
#: module ``@jupyter-widgets/output`` 1.0.0 is in every widget manager of ipywidgets 7 and 8),
#: which shows nothing and takes no room (lumino's hidden class: an empty one takes a line of
#: JupyterLab's output area). A manager prefers the kernel's live model of the same id.
PLACEHOLDER: Final[dict[str, Any]] = {
    "model_name": "OutputModel",
    "model_module": "@jupyter-widgets/output",
    "model_module_version": "1.0.0",
    "state": {
        "_model_name": "OutputModel",
        "_model_module": "@jupyter-widgets/output",
        "_model_module_version": "1.0.0",
        "_view_name": "OutputView",
        "_view_module": "@jupyter-widgets/output",
        "_view_module_version": "1.0.0",
        "msg_id": "",
        "_dom_classes": ["lm-mod-hidden"],
        "outputs": [],
    },
}
#: How ipywidgets writes a reference to another model inside a model's state.
_PREFIX = "IPY_MODEL_"
_MODEL_ID = re.compile(r"[0-9A-Za-z_-]+")


@dataclass
class Stripped:
    """What :func:`strip_live_views` took out of a notebook."""

    #: the model ids of the live views removed from the cells, in the order of the cells
    views: list[str] = field(default_factory=list)
    #: the models dropped from the saved widget state (those views' models and what only
    #: they referred to)
    models: list[str] = field(default_factory=list)
    #: a restorable save: the model ids of the live views kept, each saved as a placeholder
    kept: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.views or self.models)


def record_mark(record_id: str) -> dict[str, Any]:
    """The metadata of a record's output: ``{"applypatch_ext": {"record": ID}}``."""
    return {OUTPUT_KEY: {"record": record_id}}


def live_mark(record_id: str) -> dict[str, Any]:
    """The metadata of a live output beside the record ``record_id``."""
    return {OUTPUT_KEY: {"live": record_id}}


def _marks(output: Any) -> dict[str, Any]:
    if not isinstance(output, dict):
        return {}
    metadata = output.get("metadata")
    marks = metadata.get(OUTPUT_KEY) if isinstance(metadata, dict) else None
    return marks if isinstance(marks, dict) else {}


def _view_model(output: Any) -> str | None:
    data = output.get("data") if isinstance(output, dict) else None
    view = data.get(WIDGET_VIEW) if isinstance(data, dict) else None
    model = view.get("model_id") if isinstance(view, dict) else None
    return model if isinstance(model, str) else None


def _strip_cells(cells: list[Any], restorable: bool) -> tuple[list[str], set[str]]:
    """Remove (``restorable``: keep as the view alone) the live outputs whose record is in
    their cell. Returns their model ids, and the models the other outputs show (a view of
    somebody else's widget keeps its model)."""
    live: list[str] = []
    shown: set[str] = set()
    for cell in cells:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        if not isinstance(outputs, list):
            continue
        records = {_marks(o).get("record") for o in outputs} - {None}
        kept = []
        for output in outputs:
            mark = _marks(output).get("live")
            model = _view_model(output)
            if mark is None or mark not in records:
                kept.append(output)
                if model is not None:
                    shown.add(model)
                continue
            if model is not None:
                live.append(model)
                if restorable:
                    kept.append(_view_only(output, mark))
        if len(kept) != len(outputs) or restorable:
            cell["outputs"] = kept
    return live, shown


def _view_only(output: dict[str, Any], mark: str) -> dict[str, Any]:
    """A live output as a restorable save keeps it: the widget view, an empty text (what a
    front end without a widget manager, nbconvert's Markdown or GitHub shows), its mark."""
    return {
        "output_type": "display_data",
        "data": {WIDGET_VIEW: output["data"][WIDGET_VIEW], "text/plain": ""},
        "metadata": live_mark(mark),
    }


def _widget_state(notebook: dict[str, Any]) -> dict[str, Any] | None:
    metadata = notebook.get("metadata")
    widgets = metadata.get("widgets") if isinstance(metadata, dict) else None
    states = widgets.get(WIDGET_STATE) if isinstance(widgets, dict) else None
    state = states.get("state") if isinstance(states, dict) else None
    return state if isinstance(state, dict) else None


def _references(value: Any) -> set[str]:
    """The models ``value`` refers to: every string ``IPY_MODEL_<id>`` in it (ipywidgets writes
    a reference as a whole string value), found by walking the values, not the characters (a
    widget's state is mostly its JavaScript, one long string)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.startswith(_PREFIX) and _MODEL_ID.fullmatch(item, len(_PREFIX)):
                found.add(item[len(_PREFIX) :])
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def drop_models(state: dict[str, Any], model_ids: Iterable[str], kept: set[str]) -> list[str]:
    """Drop ``model_ids`` from a saved widget state (in place), with the models only they
    referred to (a widget's ``layout``); a model that another kept model, or ``kept`` (the
    models the notebook's cells still refer to), refers to stays. Returns the dropped ids.

    Linear in the size of the state: each model's references are read once, then a model goes
    when the last model that referred to it has gone.
    """
    children = {model: _references(value) for model, value in state.items()}
    parents: dict[str, int] = {}
    for refs in children.values():
        for child in refs:
            parents[child] = parents.get(child, 0) + 1
    pending = [m for m in dict.fromkeys(model_ids) if m in state]
    scheduled = set(pending)
    dropped = []
    while pending:
        model = pending.pop()
        del state[model]
        dropped.append(model)
        for child in children[model]:
            parents[child] -= 1
            if parents[child] or child not in state or child in kept or child in scheduled:
                continue
            scheduled.add(child)
            pending.append(child)
    return dropped


def strip_live_views(notebook: dict[str, Any], *, restorable: bool = False) -> Stripped:
    """Remove, in place, the live widget outputs that have their record beside them, and the
    saved widget state of their models (with the models only they referred to): the headless
    form. ``restorable`` (the server's save): keep those outputs as the view alone and save
    each one's model as a :data:`PLACEHOLDER` (see the module docstring)."""
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        return Stripped()
    views, shown = _strip_cells(cells, restorable)
    state = _widget_state(notebook)
    if restorable:
        return _placeholders(notebook, state, views, shown | _references(cells))
    if state is None or not views:
        return Stripped(views)
    # what the cells still refer to: the views they show (the same widget displayed again in
    # another cell keeps its model) and any reference in an output
    kept = shown | _references(cells)
    return Stripped(views, drop_models(state, [v for v in views if v not in kept], kept))


def _placeholders(
    notebook: dict[str, Any], state: dict[str, Any] | None, views: list[str], shown: set[str]
) -> Stripped:
    """The models of the kept live ``views`` saved as placeholders (their own saved state and
    what only it referred to dropped), and the placeholders no output shows any more."""
    if state is None:
        if not views:
            return Stripped()
        metadata = notebook.setdefault("metadata", {})
        if not isinstance(metadata, dict):
            return Stripped()
        widgets = metadata.setdefault("widgets", {})
        if not isinstance(widgets, dict):
            return Stripped()
        state = {}
        widgets[WIDGET_STATE] = {"version_major": 2, "version_minor": 0, "state": state}
    wanted = set(views)
    stale = [m for m, value in state.items() if value == PLACEHOLDER and m not in wanted]
    live = [m for m in dict.fromkeys(views) if m not in shown]
    dropped = drop_models(state, [*live, *stale], shown)
    for model in live:
        state[model] = copy.deepcopy(PLACEHOLDER)
    return Stripped(models=[m for m in dropped if m not in wanted], kept=live)


def strip_notebook_file(
    path: str | os.PathLike[str], *, write: bool = True
) -> tuple[Stripped, int, int]:
    """Strip the notebook at ``path`` and write it back (only when something was removed and
    ``write``), in nbformat's layout (one-space indent, keys sorted, a final newline),
    atomically: the file is whole before and after. Returns what was (or would be) removed and
    the file's size before and after, in bytes.

    Raises ``OSError`` for an unreadable file and ``ValueError`` for one that is not a notebook
    (not JSON, or not a JSON object with a ``cells`` list), naming the file.
    """
    target = Path(path)
    raw = target.read_bytes()
    try:
        notebook = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"{target}: not a notebook (not JSON: {exc})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError(f"{target}: not a notebook (no list of cells)")
    stripped = strip_live_views(notebook)
    if not stripped:
        return stripped, len(raw), len(raw)
    text = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    data = text.encode("utf-8")
    if not write:
        return stripped, len(raw), len(data)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, target.stat().st_mode & 0o7777)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return stripped, len(raw), len(data)
