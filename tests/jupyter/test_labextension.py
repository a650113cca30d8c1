"""The prebuilt JupyterLab 4 / Notebook 7 extension: built from its sources (``make
labextension``), installed where Jupyter looks, and shipped in the wheel as shared data.
The browser side is tests/jupyter/test_patch_editor.py."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder
from jupyter_core.paths import jupyter_path

from applypatch_ext.live_views import OUTPUT_KEY

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "applypatch_ext" / "labextension"
NAME = "applypatch-ext"


def test_the_committed_build_is_that_of_the_sources() -> None:
    """SOURCES.sha256 (written by ``make labextension``) lists every source of the build, and
    every hash matches: a changed source without a rebuild fails here."""
    listed = {}
    for line in (BUILT / "SOURCES.sha256").read_text().splitlines():
        digest, path = line.split(maxsplit=1)
        listed[path] = digest
    sources = ["labextension/package.json", "labextension/package-lock.json"]
    sources += [p.relative_to(ROOT).as_posix() for p in (ROOT / "labextension/src").glob("*.js")]
    assert sorted(listed) == sorted(sources)
    for path, digest in listed.items():
        assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, (
            f"{path} changed since the last `make labextension`"
        )


def test_the_output_key_is_the_one_python_marks_outputs_with() -> None:
    """The labextension finds a record's outputs by the key Python marks them with
    (``live_views.OUTPUT_KEY``): plain JavaScript with no build step of ours cannot import it,
    so the one literal there must be the same word."""
    source = (ROOT / "labextension/src/records.js").read_text()
    assert re.findall(r"export const OUTPUT_KEY = '([^']*)';", source) == [OUTPUT_KEY]
    assert source.count(f"'{OUTPUT_KEY}'") == 1  # every other use goes through the constant


def test_the_build_loads_its_entry_and_shares_codemirror() -> None:
    meta = json.loads((BUILT / "package.json").read_text())
    assert meta["name"] == NAME
    entry = BUILT / meta["jupyterlab"]["_build"]["load"]
    assert entry.is_file()
    # the editor's modules come from JupyterLab (one CodeMirror), never a bundled copy
    for shared in meta["jupyterlab"]["sharedPackages"].values():
        assert shared == {**shared, "bundled": False, "singleton": True}
    size = sum(p.stat().st_size for p in BUILT.rglob("*") if p.is_file())
    assert size < 40_000, f"the built extension grew to {size} bytes"


def test_installed_where_jupyter_finds_it() -> None:
    found = [Path(d) / NAME for d in jupyter_path("labextensions") if (Path(d) / NAME).is_dir()]
    assert found, f"no {NAME} in {jupyter_path('labextensions')}"
    installed = json.loads((found[0] / "package.json").read_text())
    assert (
        installed["jupyterlab"]["_build"]
        == json.loads((BUILT / "package.json").read_text())["jupyterlab"]["_build"]
    ), "the venv has an older build: run `make labextension` (or `make install`)"
    install = json.loads((found[0] / "install.json").read_text())
    assert install["packageName"] == "applypatch_ext"


def test_jupyterlab_lists_it_enabled_and_ok() -> None:
    """What ``jupyter labextension list`` says: enabled, OK (its metadata is valid), installed
    by the Python package."""
    pytest.importorskip("jupyterlab", reason="JupyterLab is the `lab` extra")
    proc = subprocess.run(
        [sys.executable, "-m", "jupyterlab.labextensions", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    listing = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    version = re.escape(json.loads((ROOT / "labextension/package.json").read_text())["version"])
    assert re.search(rf"{NAME} v{version} enabled OK \(python, applypatch_ext\)", listing), listing


def test_the_wheel_ships_it_as_shared_data(tmp_path: Path) -> None:
    wheel = next(
        iter(WheelBuilder(str(ROOT)).build(directory=str(tmp_path), versions=["standard"]))
    )
    names = zipfile.ZipFile(wheel).namelist()
    prefix = next(n for n in names if n.endswith(f"/labextensions/{NAME}/package.json"))
    prefix = prefix.removesuffix("package.json")
    assert prefix.startswith("applypatch_ext-") and ".data/data/share/jupyter/" in prefix
    meta = json.loads((BUILT / "package.json").read_text())
    for path in ["package.json", "install.json", meta["jupyterlab"]["_build"]["load"]]:
        assert prefix + path in names
    shipped = {n.removeprefix(prefix) for n in names if n.startswith(prefix)}
    assert shipped == {p.relative_to(BUILT).as_posix() for p in BUILT.rglob("*") if p.is_file()} | {
        "install.json"
    }
    # once, as shared data: not a second copy inside the package
    assert not [n for n in names if n.startswith("applypatch_ext/labextension/")]
