"""Notebooks run without a Jupyter server keep each call's record, not its live widget: the
command ``python -m applypatch_ext strip``, the nbconvert preprocessor and the papermill engine,
each run for real (a real kernel executes the calls, the real ``jupyter nbconvert`` and
``papermill`` commands), and all three write the headless form of ``live_views``, the one
implementation the server's save hook stands on too (the server writes its restorable form,
whose headless form is this one: the strip command on a file the server saved writes it).

The same on the built wheel, in a venv of its own, is tests/test_artefacts.py.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from applypatch_ext.live_views import OUTPUT_KEY, WIDGET_STATE, WIDGET_VIEW, strip_live_views

PATCH = "*** Begin Patch\n*** Add File: {name}.txt\n+headless\n*** End Patch"
BIN = Path(sys.executable).parent


def calls_notebook(calls: int) -> nbformat.NotebookNode:
    """A notebook of ``calls`` ``%%apply_patch`` cells and one of somebody else's widget."""
    nb: nbformat.NotebookNode = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell("%load_ext applypatch_ext")]
    nb.cells += [
        nbformat.v4.new_code_cell(f"%%apply_patch --stream-chunk 0\n{PATCH.format(name=f'f{k}')}")
        for k in range(calls)
    ]
    nb.cells.append(nbformat.v4.new_code_cell("import ipywidgets\nipywidgets.IntSlider(3)"))
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two calls run by nbclient (widget state saved, its default), as the JSON of the file."""
    where = tmp_path_factory.mktemp("run")
    nb = calls_notebook(2)
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(where)}}
    ).execute()
    content: dict[str, Any] = json.loads(nbformat.writes(nb))
    return content


def _size(content: dict[str, Any]) -> int:
    return len(nbformat.writes(nbformat.from_dict(content)).encode())


def _live_outputs(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        o
        for c in content["cells"]
        for o in c.get("outputs", [])
        if "live" in o.get("metadata", {}).get(OUTPUT_KEY, {})
    ]


def _assert_stripped(content: dict[str, Any], executed: dict[str, Any]) -> None:
    """Each call keeps its record and loses its live view and its model; the slider keeps
    both; what is left is valid and a fraction of the size."""
    nbformat.validate(nbformat.from_dict(content))
    assert _live_outputs(executed) and not _live_outputs(content)
    records = [
        o
        for c in content["cells"][1:3]
        for o in c["outputs"]
        if "record" in o["metadata"][OUTPUT_KEY]
    ]
    assert len(records) == 2
    assert all("completed" in "".join(o["data"]["text/plain"]) for o in records)
    state = content["metadata"]["widgets"][WIDGET_STATE]["state"]
    [slider] = content["cells"][3]["outputs"]
    assert state[slider["data"][WIDGET_VIEW]["model_id"]]["model_name"] == "IntSliderModel"
    assert not [m for m in state.values() if m["model_name"] == "AnyModel"]
    assert _size(content) < _size(executed) / 4


def _headless(content: dict[str, Any]) -> dict[str, Any]:
    """The headless form of ``content`` (the reference)."""
    reference = copy.deepcopy(content)
    strip_live_views(reference)
    return reference


def test_the_strip_command_writes_the_headless_form(
    executed: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "run.ipynb"
    path.write_text(nbformat.writes(nbformat.from_dict(executed)))
    before = path.stat().st_size
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "strip", "--check", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr
    assert "would leave out 2 live view(s)" in proc.stdout and path.stat().st_size == before
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "strip", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    stripped = json.loads(path.read_text())
    assert stripped == _headless(executed)
    _assert_stripped(stripped, executed)
    after = path.stat().st_size
    assert f"left out 2 live view(s) and 4 saved widget model(s): {before / 1000:.1f} KB" in (
        proc.stdout
    )
    assert f"-> {after / 1000:.1f} KB" in proc.stdout
    # a second time: nothing to strip, the file untouched
    again = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "strip", "--check", str(path)],
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0 and "nothing to strip" in again.stdout


def test_the_strip_command_on_a_file_the_server_saved(
    executed: dict[str, Any], tmp_path: Path
) -> None:
    """The server's restorable form (live views kept, their models placeholders) stripped is
    the headless form of the notebook it was saved from."""
    restorable = copy.deepcopy(executed)
    strip_live_views(restorable, restorable=True)
    path = tmp_path / "saved.ipynb"
    path.write_text(nbformat.writes(nbformat.from_dict(restorable)))
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", "strip", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "left out 2 live view(s) and 2 saved widget model(s)" in proc.stdout  # placeholders
    assert json.loads(path.read_text()) == _headless(executed)


def test_the_strip_command_names_what_it_cannot_use_and_goes_on(
    executed: dict[str, Any], tmp_path: Path
) -> None:
    good = tmp_path / "good.ipynb"
    good.write_text(nbformat.writes(nbformat.from_dict(executed)))
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "applypatch_ext",
            "strip",
            "missing.ipynb",
            "broken.ipynb",
            "list.ipynb",
            "good.ipynb",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    errors = proc.stderr.splitlines()
    assert errors[0] == "error: No such file or directory (missing.ipynb)"
    assert errors[1].startswith("error: broken.ipynb: not a notebook (not JSON: ")
    assert errors[2] == "error: list.ipynb: not a notebook (no list of cells)"
    assert (tmp_path / "broken.ipynb").read_text() == '{"cells": ['
    assert "good.ipynb: left out 2 live view(s)" in proc.stdout
    assert not _live_outputs(json.loads(good.read_text()))


def _loaded(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.split())


def test_the_strip_command_imports_nothing_of_the_jupyter_layer(
    executed: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps(executed))
    loaded = _loaded(
        f"from applypatch_ext.__main__ import main\nassert main(['strip', {str(path)!r}]) == 0"
    )
    assert "applypatch_ext.live_views" in loaded
    heavy = {"IPython", "ipywidgets", "anywidget", "traitlets", "nbformat", "nbconvert", "comm"}
    assert not {m for m in loaded if m.split(".")[0] in heavy}
    # of the package's Jupyter layer, nothing beyond what the command line itself loads (the
    # notebook check of `turn` and `replay`, standard library only)
    command_line = _loaded("import applypatch_ext.__main__")
    assert not {m for m in loaded - command_line if m.startswith("applypatch_ext.jupyter")}
    assert not {m for m in loaded if m.startswith("applypatch_ext.headless")}


def test_strip_keeps_a_model_that_another_output_still_shows(executed: dict[str, Any]) -> None:
    """The same widget displayed again in another cell, without its record: that view stays,
    and so does its model (and its layout)."""
    content = copy.deepcopy(executed)
    [live] = [o for o in content["cells"][1]["outputs"] if "live" in o["metadata"][OUTPUT_KEY]]
    again = copy.deepcopy(live)
    again["metadata"] = {}
    content["cells"][3]["outputs"].append(again)
    model = live["data"][WIDGET_VIEW]["model_id"]
    stripped = strip_live_views(content)
    assert model in stripped.views and model not in stripped.models
    state = content["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert model in state
    layout = state[model]["state"]["layout"].removeprefix("IPY_MODEL_")
    assert layout in state


@pytest.mark.slow
def test_nbconvert_with_the_preprocessor_writes_the_headless_form(tmp_path: Path) -> None:
    """``jupyter nbconvert --execute`` with ``ClearLiveViews``: the live views are gone after
    the run; the records, in their final state, stay."""
    source = tmp_path / "calls.ipynb"
    source.write_text(nbformat.writes(calls_notebook(2)))
    command = [str(BIN / "jupyter-nbconvert"), "--to", "notebook", "--execute"]
    plain = subprocess.run(
        [*command, "--output", "plain.ipynb", str(source)], capture_output=True, text=True
    )
    assert plain.returncode == 0, plain.stderr
    stripped = subprocess.run(
        [
            *command,
            "--Exporter.preprocessors=applypatch_ext.headless.ClearLiveViews",
            "--output",
            "stripped.ipynb",
            str(source),
        ],
        capture_output=True,
        text=True,
    )
    assert stripped.returncode == 0, stripped.stderr
    assert "left out 2 live view(s) and 4 saved widget model(s)" in stripped.stderr
    executed = json.loads((tmp_path / "plain.ipynb").read_text())
    _assert_stripped(json.loads((tmp_path / "stripped.ipynb").read_text()), executed)


@pytest.mark.slow
def test_papermill_with_the_engine_writes_the_headless_form(tmp_path: Path) -> None:
    if shutil.which("papermill", path=str(BIN)) is None:
        pytest.fail("papermill (the `test` extra) is not installed")
    source = tmp_path / "calls.ipynb"
    source.write_text(nbformat.writes(calls_notebook(2)))
    runs = {}
    for engine in ("nbclient", "applypatch_ext"):
        out = tmp_path / f"{engine}.ipynb"
        proc = subprocess.run(
            [
                str(BIN / "papermill"),
                "--engine",
                engine,
                "--cwd",
                str(tmp_path),
                "--no-progress-bar",
                str(source),
                str(out),
            ],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
        runs[engine] = json.loads(out.read_text())
    _assert_stripped(runs["applypatch_ext"], runs["nbclient"])


@pytest.mark.parametrize(
    "first",
    [
        "from applypatch_ext.headless import StripLiveViewsEngine as engine",
        "from applypatch_ext.headless.papermill import StripLiveViewsEngine as engine",
        "import papermill; from applypatch_ext.headless import StripLiveViewsEngine as engine",
    ],
    ids=["the package's name", "the module", "after papermill"],
)
def test_the_engine_imports_before_papermill_and_is_the_one_registered(first: str) -> None:
    """papermill registers its engines' entry points while it is imported, this package's
    among them: imported first, the engine must not be caught half-defined in that import."""
    code = (
        f"{first}\n"
        "from papermill.engines import papermill_engines\n"
        "assert papermill_engines.get_engine('applypatch_ext') is engine, engine\n"
        "print(engine.__name__)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "StripLiveViewsEngine"
