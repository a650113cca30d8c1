"""A notebook saved through the Jupyter server keeps each call's static record, and its live
view as the view alone whose model is saved as a placeholder: a page reloaded while the kernel
runs shows the live view again, one without it the record (issue 23 item 1; no browser here:
reopening in JupyterLab and Notebook 7 is test_saved_browser.py and test_reload_browser.py).

A real kernel runs the calls (nbclient, which also saves the widget state, as JupyterLab's
"Save Widget State Automatically" does); the notebook is then saved through jupyter_server's
own contents manager, with the server extension loaded as the server loads it.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from applypatch_ext import serverext
from applypatch_ext.live_views import PLACEHOLDER, WIDGET_STATE, WIDGET_VIEW, strip_live_views

# A real jupyter_server saves the file: it comes with the `browser` extra (JupyterLab), not with
# `test` alone (`make check`); `make test` installs it, and CI runs these.
pytest.importorskip("jupyter_server", reason="jupyter_server (the `browser` extra) saves the file")

PATCH = "*** Begin Patch\n*** Add File: {name}.txt\n+saved\n*** End Patch"
SLIDER = "import ipywidgets\nipywidgets.IntSlider(3)"


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A notebook run by a real kernel: two calls in one cell, one alone, and a widget of
    somebody else's (a slider), with the widget state saved."""
    where = tmp_path_factory.mktemp("run")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext applypatch_ext"),
        nbformat.v4.new_code_cell(
            "from applypatch_ext.jupyter import stream_patch\n"
            f"stream_patch({PATCH.format(name='one')!r}, approve='approve')\n"
            f"stream_patch({PATCH.format(name='two')!r}, approve='approve');"
        ),
        nbformat.v4.new_code_cell(f"%%apply_patch --stream-chunk 0\n{PATCH.format(name='three')}"),
        nbformat.v4.new_code_cell(SLIDER),
    ]
    NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(where)}}
    ).execute()
    content: dict[str, Any] = json.loads(nbformat.writes(nb))
    return content


def _save(content: dict[str, Any], root: Path) -> dict[str, Any]:
    """Save ``content`` as JupyterLab does (PUT /api/contents): the server's own contents
    manager, with the extension loaded into a real ServerApp; the file as written."""
    from jupyter_server.serverapp import ServerApp

    app = ServerApp(root_dir=str(root))
    app.init_event_logger()
    app.init_configurables()
    serverext._load_jupyter_server_extension(app)
    model = {"type": "notebook", "format": "json", "content": copy.deepcopy(content)}
    # In a thread of its own: another test of this session may have left an event loop running
    # in this one (asyncio.run refuses to start then).
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, app.contents_manager.save(model, "saved.ipynb")).result()
    saved: dict[str, Any] = json.loads((root / "saved.ipynb").read_text())
    nbformat.validate(nbformat.from_dict(saved))
    return saved


def _text(value: str | list[str]) -> str:
    """A multi-line string as nbformat stores it (a list of lines) or as it is."""
    return value if isinstance(value, str) else "".join(value)


def _marks(output: dict[str, Any]) -> dict[str, Any]:
    marks: dict[str, Any] = output.get("metadata", {}).get("applypatch_ext", {})
    return marks


def test_the_saved_file_keeps_the_records_and_placeholder_views(
    executed: dict[str, Any], tmp_path: Path
) -> None:
    cells = executed["cells"]
    live_ids = [
        o["data"][WIDGET_VIEW]["model_id"]
        for c in cells[1:3]
        for o in c["outputs"]
        if "live" in _marks(o)
    ]
    assert len(live_ids) == 3
    state = executed["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert set(live_ids) <= set(state)

    saved = _save(executed, tmp_path)
    two, one = saved["cells"][1]["outputs"], saved["cells"][2]["outputs"]
    # each call: its record, in its final state, then its live view, in the order of the calls
    assert [list(_marks(o)) for o in two] == [["record"], ["live"], ["record"], ["live"]]
    assert [list(_marks(o)) for o in one] == [["record"], ["live"]]
    records = [o for o in [*two, *one] if "record" in _marks(o)]
    texts = [_text(o["data"]["text/plain"]) for o in records]
    assert [re.sub(r" in .*?:", ":", t.splitlines()[0]) for t in texts] == [
        "apply_patch call-1: completed (stage: done)",
        "apply_patch call-2: completed (stage: done)",
        "apply_patch call-3: completed (stage: done)",
    ]
    for output in records:
        assert set(output["data"]) == {"text/html", "text/markdown", "text/plain"}
        record_id = _marks(output)["record"]
        assert _text(output["data"]["text/html"]).startswith(
            f'<div data-applypatch-record="{record_id}">'
        )
    # each live view alone: the widget view of its model, an empty text, its record's id
    views = [o for o in [*two, *one] if "live" in _marks(o)]
    assert [o["data"][WIDGET_VIEW]["model_id"] for o in views] == live_ids
    for view, record in zip(views, records, strict=True):
        assert view["output_type"] == "display_data" and set(view["data"]) == {
            WIDGET_VIEW,
            "text/plain",
        }
        assert _text(view["data"]["text/plain"]) == ""  # (the file keeps "" as [])
        assert view["metadata"] == {"applypatch_ext": {"live": _marks(record)["record"]}}
    # their models saved as placeholders (not ~100 KB each of the widget's own JavaScript)
    kept = saved["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert all(kept[m] == PLACEHOLDER for m in live_ids)
    assert not [m for m in kept.values() if m["model_name"] == "AnyModel"]
    # somebody else's widget keeps its output and its state
    [slider] = saved["cells"][3]["outputs"]
    slider_id = slider["data"][WIDGET_VIEW]["model_id"]
    assert kept[slider_id]["model_name"] == "IntSliderModel"
    # what only the calls' views referred to (their layouts) went with them; the slider's stayed
    slider_refs = set(re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(kept[slider_id])))
    assert slider_refs and set(kept) == {slider_id} | slider_refs | set(live_ids)
    layouts = [m for m, v in state.items() if v["model_name"] == "LayoutModel"]
    assert len(layouts) == 4  # one per call's view, one for the slider
    assert len(json.dumps(saved)) < len(json.dumps(executed)) / 3


BIG_LINES = 12_000  # ~1.2 MB


def _big_patch(name: str) -> str:
    body = "".join(f"+VALUE_{i} = {'x' * 90!r}  # line {i}\n" for i in range(BIG_LINES))
    return f"*** Begin Patch\n*** Add File: {name}\n{body}*** End Patch\n"


def test_a_big_call_and_a_cancelled_one_add_a_bounded_amount(tmp_path: Path) -> None:
    """A 1.2 MB Add, applied, and the same cancelled: each call's saved output is at most
    RECORD_BOUND (it was 3 MB), what is cut is marked and says where the whole is."""
    from applypatch_ext.jupyter.records.bound import RECORD_BOUND, WHOLE_DIFF_IS

    where = tmp_path / "run"
    where.mkdir()
    (where / "big.patch").write_text(_big_patch("big.py"))
    (where / "cancelled.patch").write_text(_big_patch("cancelled.py"))
    assert (where / "big.patch").stat().st_size > 1_200_000
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext applypatch_ext"),
        nbformat.v4.new_code_cell("%apply_patch big.patch result --stream-chunk 0"),
        nbformat.v4.new_code_cell(
            "%apply_patch cancelled.patch cancelled --stream-chunk 0 --fault cancel:1"
        ),
        nbformat.v4.new_code_cell("print(result.status, cancelled.status, len(result.turn_diff))"),
    ]
    NotebookClient(  # coalesced: a busy kernel may flush one print in several messages
        nb,
        timeout=300,
        kernel_name="python3",
        coalesce_streams=True,
        resources={"metadata": {"path": str(where)}},
    ).execute()
    executed: dict[str, Any] = json.loads(nbformat.writes(nb))
    saved = _save(executed, tmp_path)
    status = "".join(saved["cells"][3]["outputs"][0]["text"]).split()
    assert status[:2] == ["completed", "cancelled"] and int(status[2]) > 1_200_000
    for cell in saved["cells"][1:3]:
        outputs = cell["outputs"]
        assert [list(_marks(o)) for o in outputs] == [["record"], ["live"]]
        size = len(json.dumps(outputs, ensure_ascii=False).encode())
        assert size <= RECORD_BOUND, size
        html = _text(outputs[0]["data"]["text/html"])
        cut = re.search(r'data-applypatch-cut="(\d+)"[^>]*>✂ (\d+) more lines \((.+?)\)', html)
        assert cut is not None and cut.group(1) == cut.group(2) and int(cut.group(1)) > 10_000
        assert WHOLE_DIFF_IS.replace("'", "&#x27;") in html
        assert "VALUE_0 = " in html and f"VALUE_{BIG_LINES - 1} = " not in html
        for mime in ("text/plain", "text/markdown"):
            assert "✂ " in _text(outputs[0]["data"][mime])
    # the file grew by the two records and the small cells, not by the 2.4 MB of patches
    assert len(json.dumps(saved).encode()) < 2 * RECORD_BOUND + 20_000


def test_a_live_view_without_its_record_is_kept(executed: dict[str, Any]) -> None:
    content = copy.deepcopy(executed)
    cell = content["cells"][2]
    cell["outputs"] = [o for o in cell["outputs"] if "record" not in _marks(o)]
    [live] = cell["outputs"]
    removed = strip_live_views(content).views
    assert len(removed) == 2  # the two calls of the other cell, with their records
    assert live["data"][WIDGET_VIEW]["model_id"] not in removed
    assert cell["outputs"] == [live]


def test_other_documents_and_odd_notebooks_pass_unchanged() -> None:
    text = {"type": "file", "format": "text", "content": "x"}
    serverext.pre_save_hook(text, path="a.txt")
    assert text == {"type": "file", "format": "text", "content": "x"}
    odd: dict[str, Any] = {
        "cells": [
            {"cell_type": "markdown", "source": ""},
            {"cell_type": "code", "outputs": [{"output_type": "stream", "metadata": None}]},
            {"cell_type": "code", "outputs": [{"metadata": {"applypatch_ext": "x"}}]},
        ],
        "metadata": {"widgets": None},
    }
    before = copy.deepcopy(odd)
    assert not strip_live_views(odd)
    assert odd == before


def test_the_server_loads_the_extension_as_installed() -> None:
    """``jupyter server extension list``: enabled by the config file the package installs."""
    proc = subprocess.run(
        [sys.executable, "-m", "jupyter_server.extension.serverextension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    listing = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    assert re.search(r"applypatch_ext\.serverext enabled", listing), listing
    assert re.search(r"applypatch_ext\.serverext\s+OK", listing), listing


def test_the_restorable_form_is_stable_and_strips_to_the_headless_one(
    executed: dict[str, Any],
) -> None:
    """The server's form, saved again, is the same (a page saves over and over); a cell removed
    takes its placeholder with it; without any saved widget state (JupyterLab's default) the
    placeholders make one; and the headless form of it is the headless form of the notebook."""
    restorable = copy.deepcopy(executed)
    kept = strip_live_views(restorable, restorable=True).kept
    assert len(kept) == 3
    again = copy.deepcopy(restorable)
    strip_live_views(again, restorable=True)
    assert again == restorable
    headless, from_restorable = copy.deepcopy(executed), copy.deepcopy(restorable)
    strip_live_views(headless)
    strip_live_views(from_restorable)
    assert from_restorable == headless
    # the cell of the third call deleted (the page saves without it): its placeholder goes
    without = copy.deepcopy(restorable)
    del without["cells"][2]
    strip_live_views(without, restorable=True)
    placeholders = [
        m
        for m, v in without["metadata"]["widgets"][WIDGET_STATE]["state"].items()
        if v == PLACEHOLDER
    ]
    assert sorted(placeholders) == sorted(kept[:2])
    # no saved widget state at all
    bare = copy.deepcopy(executed)
    del bare["metadata"]["widgets"]
    strip_live_views(bare, restorable=True)
    state = bare["metadata"]["widgets"][WIDGET_STATE]
    assert state["version_major"] == 2 and set(state["state"]) == set(kept)
    nbformat.validate(nbformat.from_dict(bare))
