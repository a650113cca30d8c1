"""Issue 21 item 7: the save hook was quadratic in the notebook's size and stalled the server.

The hook (applypatch_ext.live_views, one pass over the cells and one over the widget state) is
exercised here through a real Jupyter server's contents API, on a notebook whose calls a real
kernel ran, then on 150 calls of it: correctness only. How long a save of 400 calls takes with
the hook, against a save without it, is section (j) of ``make bench`` (bench/saving.py): no
duration is asserted here.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from applypatch_ext.live_views import (
    OUTPUT_KEY,
    PLACEHOLDER,
    WIDGET_STATE,
    WIDGET_VIEW,
    strip_live_views,
)

from ..contents_server import ContentsServer, many_calls

pytest.importorskip("jupyter_server", reason="jupyter_server (the `browser` extra) saves the file")

PATCH = "*** Begin Patch\n*** Add File: {name}.txt\n+saved\n*** End Patch"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One call alone, two in one cell, and a slider of somebody else's, run by a real kernel
    with the widget state saved."""
    where = tmp_path_factory.mktemp("run")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext applypatch_ext"),
        nbformat.v4.new_code_cell(f"%%apply_patch --stream-chunk 0\n{PATCH.format(name='one')}"),
        nbformat.v4.new_code_cell(
            "from applypatch_ext.jupyter import stream_patch\n"
            f"stream_patch({PATCH.format(name='two')!r}, approve='approve')\n"
            f"stream_patch({PATCH.format(name='three')!r}, approve='approve');"
        ),
        nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider(3)"),
    ]
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(where)}}
    ).execute()
    content: dict[str, Any] = json.loads(nbformat.writes(nb))
    return content


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, ContentsServer]]:
    started = {
        hook: ContentsServer(tmp_path_factory.mktemp(f"server-{hook}"), hook=hook)
        for hook in (True, False)
    }
    try:
        yield started
    finally:
        for server in started.values():
            server.stop()


def _saved(server: ContentsServer, name: str) -> dict[str, Any]:
    content: dict[str, Any] = json.loads((server.root / name).read_text())
    nbformat.validate(nbformat.from_dict(content))
    return content


def _expected(content: dict[str, Any]) -> dict[str, Any]:
    """What the hook saves: the restorable form (live views kept, models as placeholders)."""
    reference = copy.deepcopy(content)
    strip_live_views(reference, restorable=True)
    saved: dict[str, Any] = json.loads(nbformat.writes(nbformat.from_dict(reference)))
    return saved


def _views(content: dict[str, Any]) -> list[str]:
    return [
        o["data"][WIDGET_VIEW]["model_id"]
        for c in content["cells"]
        for o in c.get("outputs", [])
        if WIDGET_VIEW in o.get("data", {})
    ]


def test_a_save_through_the_contents_api_keeps_the_records_and_placeholders(
    executed: dict[str, Any], servers: dict[bool, ContentsServer]
) -> None:
    reply = servers[True].save("calls.ipynb", executed)
    assert reply["type"] == "notebook" and reply["path"] == "calls.ipynb"
    saved = _saved(servers[True], "calls.ipynb")
    assert saved == _expected(executed)
    state = saved["metadata"]["widgets"][WIDGET_STATE]["state"]
    # the slider's view, model, layout and style, and a placeholder per call's view, are all
    # that is left of the widget state
    *calls, slider = _views(saved)
    assert state[slider]["model_name"] == "IntSliderModel" and len(state) == 3 + len(calls)
    assert len(calls) == 3 and all(state[m] == PLACEHOLDER for m in calls)
    records = [
        o
        for c in saved["cells"][1:3]
        for o in c["outputs"]
        if "record" in o["metadata"][OUTPUT_KEY]
    ]
    assert len(records) == 3
    # the same save without the extension keeps everything: the hook did it
    servers[False].save("calls.ipynb", executed)
    assert len(_views(_saved(servers[False], "calls.ipynb"))) == 4


def _reachable(state: dict[str, Any], model: str) -> dict[str, Any]:
    """``model`` and the models it refers to (``IPY_MODEL_<id>``), transitively."""
    found: dict[str, Any] = {}
    pending = [model]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        found[current] = state[current]
        pending += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state[current]))
    return found


def test_a_save_of_many_calls_keeps_placeholders_of_their_models(
    executed: dict[str, Any], servers: dict[bool, ContentsServer]
) -> None:
    """150 calls (the first call's cell and models cloned with fresh ids) and the slider: each
    call's models go, a placeholder in their place, the slider's stay; the file is what the
    hook computes."""
    state = executed["metadata"]["widgets"][WIDGET_STATE]["state"]
    call, slider = executed["cells"][1], executed["cells"][3]
    [call_view] = _views({"cells": [call]})
    [slider_view] = _views({"cells": [slider]})
    one = copy.deepcopy(executed)
    one["cells"] = executed["cells"][:2]
    one["metadata"]["widgets"][WIDGET_STATE]["state"] = _reachable(state, call_view)
    content = many_calls(one, 150)
    content["cells"].append(slider)
    slider_models = _reachable(state, slider_view)
    content["metadata"]["widgets"][WIDGET_STATE]["state"].update(slider_models)
    assert len(_views(content)) == 151

    servers[True].save("many.ipynb", content)
    saved = _saved(servers[True], "many.ipynb")
    assert saved == _expected(content)
    *calls, last = _views(saved)
    assert last == slider_view and len(calls) == 150
    placeholders = {m: PLACEHOLDER for m in calls}
    assert saved["metadata"]["widgets"][WIDGET_STATE]["state"] == {**slider_models, **placeholders}
    assert (servers[True].root / "many.ipynb").stat().st_size < len(json.dumps(content)) / 10
