"""The built artefacts, as a user, a packager and JupyterLab's Extension Manager meet them.

``python -m build`` makes the sdist and, from it, the wheel (``make dist`` does the same with
isolated build environments; here the venv's hatchling builds them, without the network). Then:

* the file lists: the wheel ships the package, its front end, the labextension and the server
  config, and nothing test-only; the sdist has what its own tests need (``tools/`` too);
* the wheel rebuilt from the unpacked sdist is the same wheel, and the sdist's fast tests pass;
* the wheel in fresh venvs outside the checkout: alone (the base install: no JupyterLab, each
  missing extra named by the error), and next to the oldest and the newest JupyterLab this
  package supports, where ``jupyter labextension list`` and ``jupyter server extension list``
  say OK (the extension template's isolated install check), a notebook is saved through a real
  server, executed by ``jupyter nbconvert`` and by ``papermill`` with the package's stripping.

Marked ``slow`` (``make test``): the venvs come from PyPI (pip's cache makes a second run
quick).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

from applypatch_ext.live_views import OUTPUT_KEY, WIDGET_VIEW

from .contents_server import ContentsServer

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
FAST = "not slow and not browser"
VERSION = json.loads((REPO / "labextension/package.json").read_text())["version"]
NAME = "applypatch-ext"
#: The oldest and the newest JupyterLab the `lab` extra allows (jupyterlab>=4.2,<5).
JUPYTERLABS = {"oldest": "jupyterlab==4.2.0", "newest": "jupyterlab>=4.6,<5"}
PATCH = "*** Begin Patch\n*** Add File: built.txt\n+from the wheel\n*** End Patch"
#: What is test-only or a build input, never shipped in the wheel.
TEST_ONLY = re.compile(r"(^|/)(tests?|bench|tools|node_modules)/|\.test\.m?js$|(^|/)conftest\.py$")


@dataclass
class Built:
    wheel: Path
    sdist: Path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = out.glob("applypatch_ext-*.whl")
    (sdist,) = out.glob("applypatch_ext-*.tar.gz")
    return Built(wheel, sdist)


def _wheel_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _sdist_root(sdist: Path, where: Path) -> Path:
    with tarfile.open(sdist) as archive:
        archive.extractall(where, filter="data")
    (root,) = where.iterdir()
    return root


def test_the_wheel_ships_the_package_and_nothing_test_only(built: Built) -> None:
    files = _wheel_files(built.wheel)
    data = f"applypatch_ext-{VERSION}.data/data/"
    assert {
        "applypatch_ext/live_views.py",
        "applypatch_ext/headless/nbconvert.py",
        "applypatch_ext/js/widget.js",
        "applypatch_ext/js/widget.css",
        "applypatch_ext/py.typed",
        f"{data}share/jupyter/labextensions/{NAME}/package.json",
        f"{data}share/jupyter/labextensions/{NAME}/install.json",
        f"{data}etc/jupyter/jupyter_server_config.d/applypatch_ext.json",
    } <= set(files)
    assert not [n for n in files if TEST_ONLY.search(n)], "test-only files in the wheel"
    assert not [n for n in files if n.startswith(("applypatch_ext/labextension/", "js/"))]
    [entry_points] = [n for n in files if n.endswith(".dist-info/entry_points.txt")]
    points = files[entry_points].decode()
    assert "apply_patch = applypatch_ext.cli:run" in points
    assert "[papermill.engine]" in points
    engine = "applypatch_ext.headless._papermill_engine:StripLiveViewsEngine"
    assert f"applypatch_ext = {engine}" in points
    print(f"\nwheel: {built.wheel.stat().st_size} bytes, {len(files)} files")


def test_the_sdist_has_what_its_tests_need_and_builds_the_same_wheel(
    built: Built, tmp_path: Path
) -> None:
    root = _sdist_root(built.sdist, tmp_path / "sdist")
    names = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert {
        "tools/serve_lite.py",
        "tools/build_lite.py",
        "tests/conftest.py",
        "labextension/package.json",
        "labextension/src/index.js",
        f"applypatch_ext/labextension/{_built_entry()}",
        "jupyter-config/jupyter_server_config.d/applypatch_ext.json",
        "pyproject.toml",
        "LICENSE",
    } <= names
    junk = re.compile(r"(^|/)(\.venv|\.cache|node_modules|dist|build|__pycache__|\.git)/")
    assert not [n for n in names if junk.search(n)]
    # every test module the checkout has, the sdist has
    tests = {p.relative_to(REPO).as_posix() for p in (REPO / "tests").rglob("test_*.py")}
    assert tests <= names
    print(f"\nsdist: {built.sdist.stat().st_size} bytes, {len(names)} files")

    out = tmp_path / "rebuilt"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (rebuilt,) = out.glob("*.whl")
    assert rebuilt.name == built.wheel.name
    assert _wheel_files(rebuilt) == _wheel_files(built.wheel)


def _built_entry() -> str:
    meta = json.loads((REPO / "applypatch_ext/labextension/package.json").read_text())
    load: str = meta["jupyterlab"]["_build"]["load"]
    return load


def test_the_sdists_fast_tests_pass(built: Built, tmp_path: Path) -> None:
    """In the unpacked sdist, with this venv's packages: the sdist's own code and tests (the
    package is imported from the sdist's folder, which pytest puts first on sys.path)."""
    root = _sdist_root(built.sdist, tmp_path / "sdist")
    # A packager's run: no ../shared, no js/node_modules, no git checkout beside the sdist. What
    # needs them skips there, saying why; CI's rule (a missing prerequisite fails) is for the
    # checkout CI verifies, so it is not passed on.
    env = {k: v for k, v in _clean_env(tmp_path).items() if k != "CI"}
    where = subprocess.run(
        [sys.executable, "-c", "import applypatch_ext; print(applypatch_ext.__file__)"],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert where.stdout.strip() == str(root / "applypatch_ext" / "__init__.py")
    workers = ["-n", "2"] if _has_xdist() else []
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *workers, "-m", FAST],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    tail = "\n".join(proc.stdout.splitlines()[-40:])
    assert proc.returncode == 0, tail + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", tail), tail


def _has_xdist() -> bool:
    try:
        import xdist  # noqa: F401
    except ImportError:
        return False
    return True


# -- the wheel in venvs of its own -------------------------------------------------------------


def _clean_env(base: Path) -> dict[str, str]:
    """The environment of a fresh install: nothing of this venv, this checkout or the user's
    Jupyter folders."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("JUPYTER", "PYTHON", "VIRTUAL_ENV", "IPYTHON"))
    }
    for var, sub in [
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("IPYTHONDIR", "ipython"),
    ]:
        (base / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(base / sub)
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    return env


@dataclass
class Venv:
    root: Path
    env: dict[str, str]

    @property
    def python(self) -> str:
        return str(self.root / "bin" / "python")

    def run(self, *args: str, check: bool = True, **kw: Any) -> subprocess.CompletedProcess[str]:
        env = dict(self.env, PATH=f"{self.root / 'bin'}{os.pathsep}{self.env.get('PATH', '')}")
        proc = subprocess.run(
            list(args), capture_output=True, text=True, env=env, cwd=self.root.parent, **kw
        )
        if check:
            assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]}{proc.stderr[-3000:]}"
        return proc


def _venv(base: Path, requirements: list[str]) -> Venv:
    base.mkdir(parents=True)
    venv = Venv(base / "venv", _clean_env(base))
    subprocess.run([sys.executable, "-m", "venv", str(venv.root)], check=True)
    venv.run(venv.python, "-m", "pip", "install", "--quiet", *requirements)
    return venv


@pytest.fixture(scope="module")
def venvs(built: Built, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Venv]:
    """The base install and the two JupyterLabs, installed side by side (pip waits on the
    network and the disk more than on the cores)."""
    base = tmp_path_factory.mktemp("venvs")
    wanted = {
        "base": [str(built.wheel)],
        "oldest": [str(built.wheel), JUPYTERLABS["oldest"]],
        "newest": [f"{built.wheel}[nbconvert,papermill]", JUPYTERLABS["newest"]],
    }
    with ThreadPoolExecutor(len(wanted)) as pool:
        futures = {k: pool.submit(_venv, base / k, reqs) for k, reqs in wanted.items()}
        return {k: future.result() for k, future in futures.items()}


def test_the_base_install_runs_alone_and_names_each_missing_extra(venvs: dict[str, Venv]) -> None:
    venv = venvs["base"]
    listed = json.loads(venv.run(venv.python, "-m", "pip", "list", "--format=json").stdout)
    names = {p["name"].lower() for p in listed} - {"pip", "setuptools"}
    print(f"\nbase install: {len(names)} packages")
    assert "applypatch-ext" in names or "applypatch_ext" in names
    assert not names & {"jupyterlab", "notebook", "jupyter-server", "nbconvert", "openai-agents"}
    assert len(names) <= 40, sorted(names)
    # the installed package, its version, and its front end inside it (no checkout file)
    info = venv.run(
        venv.python,
        "-c",
        "import applypatch_ext as a; from applypatch_ext.jupyter.live.assets import asset_path\n"
        "print(a.__file__, a.__version__, asset_path('widget.js'))",
    ).stdout.split()
    site = str(venv.root / "lib")
    assert info[0].startswith(site) and info[2].startswith(site) and info[1] == VERSION
    # the magic in a plain IPython terminal, and the command line
    shown = venv.run(
        str(venv.root / "bin" / "ipython"),
        "--no-banner",
        "-c",
        "%load_ext applypatch_ext\n"
        f"get_ipython().run_cell_magic('apply_patch', 'result --stream-chunk 0', {PATCH!r})\n"
        "print(result.status)",
    )
    assert "completed" in shown.stdout, shown.stdout + shown.stderr
    assert (venv.root.parent / "built.txt").read_text() == "from the wheel\n"
    # each optional part names its extra
    for code, extra in [
        ("from applypatch_ext import PipelineEditor", "agents"),
        ("from applypatch_ext.headless import ClearLiveViews", "nbconvert"),
        ("from applypatch_ext.headless import StripLiveViewsEngine", "papermill"),
    ]:
        proc = venv.run(venv.python, "-c", code, check=False)
        last = proc.stderr.strip().splitlines()[-1]
        assert proc.returncode == 1 and last.startswith(
            "applypatch_ext.extras.MissingExtraError: "
        ), proc.stderr
        assert f"It comes with the `{extra}` extra: pip install 'applypatch_ext[{extra}]'" in last
    # the strip command needs none of them
    nb = venv.root.parent / "plain.ipynb"
    nb.write_text(nbformat.writes(nbformat.v4.new_notebook()))
    assert (
        "nothing to strip" in venv.run(venv.python, "-m", "applypatch_ext", "strip", str(nb)).stdout
    )


def _calls_notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = dict(name="python3", display_name="Python 3", language="python")
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext applypatch_ext"),
        nbformat.v4.new_code_cell(f"%%apply_patch --stream-chunk 0\n{PATCH}"),
        nbformat.v4.new_code_cell(
            f"%%apply_patch --stream-chunk 0\n{PATCH.replace('built', 'b2')}"
        ),
    ]
    path.write_text(nbformat.writes(nb))


def _live_views(path: Path) -> int:
    content = json.loads(path.read_text())
    return sum(
        "live" in o.get("metadata", {}).get(OUTPUT_KEY, {})
        for c in content["cells"]
        for o in c.get("outputs", [])
    )


def _check_jupyterlab(venv: Venv) -> str:
    """The template's isolated install check; the JupyterLab version."""
    lab = venv.run(venv.python, "-m", "jupyterlab", "--version").stdout.strip()
    listing = venv.run(str(venv.root / "bin" / "jupyter"), "labextension", "list")
    text = re.sub(r"\x1b\[[0-9;]*m", "", listing.stdout + listing.stderr)
    assert re.search(
        rf"{NAME} v{re.escape(VERSION)} enabled OK \(python, applypatch_ext\)", text
    ), f"JupyterLab {lab}:\n{text}"
    assert "not compatible" not in text.lower() and " X" not in text, text
    servers = venv.run(str(venv.root / "bin" / "jupyter"), "server", "extension", "list")
    text = re.sub(r"\x1b\[[0-9;]*m", "", servers.stdout + servers.stderr)
    assert re.search(r"applypatch_ext\.serverext enabled", text), text
    assert re.search(r"applypatch_ext\.serverext\s+OK", text), text
    return lab


def test_the_oldest_jupyterlab_lists_it_ok(venvs: dict[str, Venv]) -> None:
    lab = _check_jupyterlab(venvs["oldest"])
    print(f"\nJupyterLab {lab}: {NAME} v{VERSION} enabled OK")
    assert lab.startswith("4.2.")


def test_the_newest_jupyterlab_lists_it_ok_and_every_writer_strips(
    venvs: dict[str, Venv], tmp_path: Path
) -> None:
    venv = venvs["newest"]
    lab = _check_jupyterlab(venv)
    print(f"\nJupyterLab {lab}: {NAME} v{VERSION} enabled OK")
    source = venv.root.parent / "calls.ipynb"
    _calls_notebook(source)
    # nbconvert: without the preprocessor the live views stay, with it they go
    convert = [str(venv.root / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute"]
    venv.run(*convert, "--output", "plain.ipynb", str(source))
    venv.run(
        *convert,
        "--Exporter.preprocessors=applypatch_ext.headless.ClearLiveViews",
        "--output",
        "stripped.ipynb",
        str(source),
    )
    plain, stripped = source.with_name("plain.ipynb"), source.with_name("stripped.ipynb")
    assert _live_views(plain) == 2 and _live_views(stripped) == 0
    print(f"headless, 2 calls: {plain.stat().st_size} bytes; stripped {stripped.stat().st_size}")
    # papermill with the engine
    out = source.with_name("papermill.ipynb")
    venv.run(
        str(venv.root / "bin" / "papermill"),
        "--engine",
        "applypatch_ext",
        "--no-progress-bar",
        str(source),
        str(out),
    )
    assert _live_views(out) == 0
    # the strip command on nbconvert's plain output writes what the preprocessor wrote
    copy = source.with_name("copy.ipynb")
    shutil.copy(plain, copy)
    venv.run(venv.python, "-m", "applypatch_ext", "strip", str(copy))
    assert _live_views(copy) == 0
    # a save through a real server of this venv: the hook of the installed package
    server = ContentsServer(tmp_path / "server", python=venv.python)
    try:
        server.save("saved.ipynb", json.loads(plain.read_text()))
    finally:
        server.stop()
    saved = json.loads((server.root / "saved.ipynb").read_text())
    # the restorable form: each call's view kept, its model a placeholder; stripped, the
    # headless form the other tools wrote
    views = [
        o["data"][WIDGET_VIEW]["model_id"]
        for c in saved["cells"]
        for o in c.get("outputs", [])
        if "live" in o.get("metadata", {}).get(OUTPUT_KEY, {})
    ]
    state = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert views and all(state[m]["model_name"] == "OutputModel" for m in views)
    (server.root / "stripped.ipynb").write_text(json.dumps(saved))
    venv.run(venv.python, "-m", "applypatch_ext", "strip", str(server.root / "stripped.ipynb"))
    stripped = json.loads((server.root / "stripped.ipynb").read_text())
    assert stripped["cells"] == json.loads(copy.read_text())["cells"]
