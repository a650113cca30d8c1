"""The wheel ships the package with its front end (js/ inside the package), its type marker and
its licence, and asks for no more than the magic and the widget import."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

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
#: Imports allowed in one module only, each brought by an extra: (module, distribution, extra).
OPTIONAL = {"agents": ("applypatch_ext/jupyter/agents.py", "openai-agents", "agents")}


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
    assert {"applypatch_ext/js/widget.js", "applypatch_ext/js/widget.css"} <= names
    assert "applypatch_ext/core/turn/turn.py" in names
    assert not any(name.startswith("tests/") for name in names)
    assert "apply_patch = applypatch_ext.cli:run" in scripts


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
    assert set(headers["Provides-Extra"]) == {"lab", "agents", "test", "browser"}
    assert any(r.startswith("jupyterlab") and "'lab'" in r for r in requires), requires
    assert any(r.startswith("playwright") and "'browser'" in r for r in requires), requires
    assert not any(r.startswith(("jupyterlab", "notebook")) for r in plain)


def test_the_package_imports_nothing_else_outside_the_standard_library() -> None:
    """Every import in applypatch_ext/ is the standard library, the package itself, or one of the
    runtime dependencies (so the dependency list above is complete)."""
    outside: dict[str, str] = {}
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
                    outside[top] = str(path.relative_to(REPO))
    optional = {top: where for top, where in outside.items() if top in OPTIONAL}
    assert set(outside) - set(optional) <= set(RUNTIME), outside
    for top, where in optional.items():
        assert where == OPTIONAL[top][0], f"{top} imported outside {OPTIONAL[top][0]}: {where}"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    for _module, distribution, extra in OPTIONAL.values():
        assert any(req.startswith(distribution) for req in extras[extra]), (extra, distribution)


def test_wheel_enables_the_server_extension(wheel: Path) -> None:
    """The config file that makes jupyter_server load applypatch_ext.serverext (saved
    notebooks keep each call's static record) is shared data, where the server reads it."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        [config] = [n for n in names if n.endswith("/jupyter_server_config.d/applypatch_ext.json")]
        assert ".data/data/etc/jupyter/jupyter_server_config.d/" in config
        enabled = json.loads(archive.read(config))
    assert enabled == {"ServerApp": {"jpserver_extensions": {"applypatch_ext.serverext": True}}}
