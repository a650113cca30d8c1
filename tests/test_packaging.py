"""The wheel ships the package with its front end (js/ inside the package), its type marker and
its licence, and asks for no more than the magic and the widget import."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import applypatch_ext
from applypatch_ext.extras import EXTRAS, MissingExtraError, missing_extra

REPO = Path(__file__).resolve().parents[1]
#: Top-level import name -> distribution, for what the package may import outside the stdlib.
RUNTIME = {
    "IPython": "ipython",
    "ipywidgets": "ipywidgets",
    "anywidget": "anywidget",
    "traitlets": "traitlets",
    "pygments": "pygments",
    "nbformat": "nbformat",
}
#: Imports allowed in the listed modules only, each brought by an extra (whose error names it).
_DESK = "applypatch_ext/desk/"
OPTIONAL = {
    "agents": {"applypatch_ext/jupyter/magics/agents.py"},
    "nbconvert": {"applypatch_ext/headless/nbconvert.py"},
    "papermill": {
        "applypatch_ext/headless/papermill.py",
        "applypatch_ext/headless/_papermill_engine.py",
    },
    # the agent's desk: the MCP SDK and what it brings (its types, anyio, uvicorn)
    "mcp": {f"{_DESK}server.py", f"{_DESK}http.py", f"{_DESK}stdio.py"},
    "mcp_types": {f"{_DESK}server.py", f"{_DESK}stdio.py"},
    "anyio": {f"{_DESK}server.py", f"{_DESK}stdio.py"},
    "uvicorn": {f"{_DESK}http.py"},
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("applypatch_ext-*.whl")
    return built


def metadata(wheel: Path) -> tuple[set[str], dict[str, list[str]]]:
    """The wheel's file names, and its METADATA headers (each header's values, in order)."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (meta,) = (n for n in names if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(meta).decode())
    headers: dict[str, list[str]] = {}
    for key, value in message.items():
        headers.setdefault(key, []).append(value)
    return names, headers


def test_wheel_contains_the_front_end_and_the_console_script(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    front_end = {"widget.js", "widget.css", "diff-words.json"}  # the bundle and what it reads
    assert {f"applypatch_ext/js/{name}" for name in front_end} <= names
    assert not any(".test." in name or name.startswith("js/") for name in names)
    assert "applypatch_ext/core/turn/turn.py" in names
    assert not any(name.startswith("tests/") for name in names)
    assert "apply_patch = applypatch_ext.cli:run" in scripts


def test_wheel_ships_the_exercises_corpus_with_its_licence(wheel: Path) -> None:
    """The diagnose exercises and notebook 10 read the corpus from the package (the JupyterLite
    site installs the wheel); its MIT licence and attribution go with it."""
    names, _ = metadata(wheel)
    data = "applypatch_ext/exercises/data/"
    assert {f"{data}model-patches.json.gz", f"{data}LICENSE", f"{data}README.md"} <= names


def test_wheel_is_typed_and_licensed(wheel: Path) -> None:
    names, headers = metadata(wheel)
    assert "applypatch_ext/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), sorted(names)
    assert headers["License-Expression"] == ["Apache-2.0"]


def test_wheel_requires_only_what_the_magic_and_the_widget_import(wheel: Path) -> None:
    _, headers = metadata(wheel)
    requires = headers.get("Requires-Dist", [])
    plain = sorted(r.split(">")[0].split("=")[0] for r in requires if ";" not in r)
    assert plain == sorted(RUNTIME.values()), requires
    # JupyterLab and the test and browser tools come only with an extra.
    assert set(headers["Provides-Extra"]) == {
        "lab",
        "agents",
        "mcp",
        "nbconvert",
        "papermill",
        "test",
        "browser",
    }
    assert any(r.startswith("jupyterlab") and "'lab'" in r for r in requires), requires
    # make lab installs Notebook 7 too (the README advertises it; issue 23 item 10)
    assert any(r.startswith("notebook>=7") and "'lab'" in r for r in requires), requires
    assert any(r.startswith("playwright") and "'browser'" in r for r in requires), requires
    assert not any(r.startswith(("jupyterlab", "notebook")) for r in plain)


def test_the_package_imports_nothing_else_outside_the_standard_library() -> None:
    """Every import in applypatch_ext/ is the standard library, the package itself, one of the
    runtime dependencies (so the dependency list above is complete), or an optional one in the
    modules listed for it, each in the table of extras with its distribution in that extra."""
    outside: dict[str, set[str]] = {}
    for path in sorted((REPO / "applypatch_ext").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                if top not in sys.stdlib_module_names and top != "applypatch_ext":
                    outside.setdefault(top, set()).add(str(path.relative_to(REPO)))
    optional = {top: where for top, where in outside.items() if top in OPTIONAL}
    assert set(outside) - set(optional) <= set(RUNTIME), outside
    for top, where in optional.items():
        assert where <= OPTIONAL[top], f"{top} imported outside {OPTIONAL[top]}: {where}"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for top in OPTIONAL:
        [extra] = [e for e in EXTRAS.values() if top in e.modules]
        assert any(req.startswith(extra.distribution) for req in extras[extra.name]), extra


def test_each_optional_import_turns_into_the_error_that_names_its_extra() -> None:
    """Every module with an optional import catches its ModuleNotFoundError and raises
    missing_extra's, for the extra of that import (the built wheel, without the extras, is
    tests/test_artefacts.py)."""
    for top, modules in OPTIONAL.items():
        for module in modules:
            tree = ast.parse((REPO / module).read_text())
            guarded = [
                node
                for node in tree.body
                if isinstance(node, ast.Try)
                and any(
                    (isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == top)
                    or (
                        isinstance(n, ast.Import)
                        and any(a.name.split(".")[0] == top for a in n.names)
                    )
                    for n in node.body
                )
            ]
            assert guarded, f"{module}: the import of {top} is not guarded"
            handler = ast.unparse(guarded[0].handlers[0])
            assert "ModuleNotFoundError" in handler and "missing_extra(" in handler, handler
            [extra] = [e for e in EXTRAS.values() if top in e.modules]
            assert f"missing_extra(exc, {extra.name!r})" in handler, handler


def test_a_missing_extra_names_what_to_install() -> None:
    error = missing_extra(ModuleNotFoundError("No module named 'agents'", name="agents"), "agents")
    assert isinstance(error, MissingExtraError) and isinstance(error, ImportError)
    assert str(error) == (
        "PipelineEditor (the Agents SDK editor) needs openai-agents, which is not installed (No "
        "module named 'agents'). It comes with the `agents` extra: "
        "pip install 'applypatch_ext[agents]'"
    )
    # a module the extra's package itself lacks is not a missing extra: the error is kept
    broken = ModuleNotFoundError("No module named 'griffe'", name="griffe")
    assert missing_extra(broken, "agents") is broken


SOURCE_SUFFIXES = {".py", ".toml", ".json", ".js", ".mjs", ".cfg"}


def test_the_version_is_written_once() -> None:
    """In labextension/package.json (JupyterLab's template does the same): the Python metadata
    takes it from there at build time, ``applypatch_ext.__version__`` from the installed
    metadata, the built labextension from the build. No other source names it."""
    source = json.loads((REPO / "labextension/package.json").read_text())["version"]
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["hatch"]["version"] == {
        "source": "nodejs",
        "path": "labextension/package.json",
    }
    assert applypatch_ext.__version__ == importlib.metadata.version("applypatch_ext") == source
    built = json.loads((REPO / "applypatch_ext/labextension/package.json").read_text())
    assert built["version"] == source  # the build's copy (SOURCES.sha256 ties it to the source)
    generated = {"labextension/package-lock.json"}  # npm writes the root package's version there
    quoted = f'"{source}"'
    naming = set()
    skipped = {"node_modules", "build", "dist", "test-results", "__pycache__"}
    for folder, subfolders, files in os.walk(REPO):
        here = Path(folder)
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in skipped]
        if here == REPO / "applypatch_ext" / "labextension":
            subfolders.clear()
            continue
        for name in files:
            path = here / name
            text = path.read_text(errors="replace") if path.suffix in SOURCE_SUFFIXES else ""
            if quoted in text:
                naming.add(path.relative_to(REPO).as_posix())
    assert naming - generated == {"labextension/package.json"}, naming


def test_wheel_enables_the_server_extension(wheel: Path) -> None:
    """The config file that makes jupyter_server load applypatch_ext.serverext (saved
    notebooks keep each call's static record) is shared data, where the server reads it."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [config] = [n for n in names if n.endswith("/jupyter_server_config.d/applypatch_ext.json")]
        assert ".data/data/etc/jupyter/jupyter_server_config.d/" in config
        enabled = json.loads(archive.read(config))
    assert enabled == {"ServerApp": {"jpserver_extensions": {"applypatch_ext.serverext": True}}}
