"""The teaching set (tools/teaching.py): what ``make lite`` publishes and ``make lab`` works on.

Issue 23 item 9: ``make lite`` published whatever lay in ``notebooks/`` (outputs saved by
``make lab`` with local paths, a 1 MB scratch notebook, a ``play/`` folder), and ``make lab``
saved outputs into the teaching notebooks. Now the site holds the tracked notebooks, cleared,
and their data (or the build refuses, naming what it would publish), and ``make lab`` serves
copies (JupyterLab and Notebook 7), so ``notebooks/`` stays as committed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import unavailable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from teaching import (  # noqa: E402
    STATE,
    TeachingError,
    copy_teaching_set,
    lab_copies,
    teaching_files,
)

OUTPUT = {"output_type": "stream", "name": "stdout", "text": "/home/someone/secret/path\n"}


def notebook(source: str, outputs: int = 0) -> str:
    cell = {
        "cell_type": "code",
        "id": "c1",
        "source": source,
        "metadata": {"execution": {"iopub.status.busy": "2026-01-01T00:00:00Z"}},
        "outputs": [OUTPUT] * outputs,
        "execution_count": 3 if outputs else None,
    }
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}}},
        "cells": [cell],
    }
    return json.dumps(nb, indent=1) + "\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout whose notebooks/ has a tracked notebook saved with outputs, tracked data, and
    what a session leaves beside them (a scratch notebook, a play/ folder, checkpoints)."""
    repo = tmp_path / "repo"
    (repo / "notebooks" / "data").mkdir(parents=True)
    (repo / "notebooks" / "01_tour.ipynb").write_text(notebook("x = 1"))
    (repo / "notebooks" / "data" / "session.txt").write_text('{"type": "session_meta"}\n')
    git(repo, "init", "-q")
    git(repo, "add", "notebooks")
    git(repo, "commit", "-qm", "teaching")
    (repo / "notebooks" / "01_tour.ipynb").write_text(notebook("x = 1", outputs=18))
    (repo / "notebooks" / "scratch.ipynb").write_text(notebook("print('mine')", outputs=1))
    (repo / "notebooks" / "play").mkdir()
    (repo / "notebooks" / "play" / "try.ipynb").write_text(notebook("y = 2"))
    (repo / "notebooks" / ".ipynb_checkpoints").mkdir()
    (repo / "notebooks" / ".ipynb_checkpoints" / "01_tour-checkpoint.ipynb").write_text("{}")
    return repo


def test_the_site_is_built_from_the_tracked_notebooks_cleared(
    checkout: Path, tmp_path: Path
) -> None:
    said: list[str] = []
    site = tmp_path / "contents"
    site.mkdir()
    written = copy_teaching_set(checkout, site, log=said.append)
    assert written == ["01_tour.ipynb", "data/session.txt"]
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()) == written
    nb = json.loads((site / "01_tour.ipynb").read_text())
    (cell,) = nb["cells"]
    assert cell["outputs"] == [] and cell["execution_count"] is None
    assert cell["metadata"] == {} and "widgets" not in nb["metadata"]
    assert cell["source"] == "x = 1"
    assert "/home/someone" not in (site / "01_tour.ipynb").read_text()
    assert (site / "data" / "session.txt").read_bytes() == b'{"type": "session_meta"}\n'
    assert said == [
        "notebooks/01_tour.ipynb: its 18 saved outputs cleared",
        "left out, not tracked by git: notebooks/.ipynb_checkpoints/01_tour-checkpoint.ipynb, "
        "notebooks/play/try.ipynb, notebooks/scratch.ipynb",
    ]


def test_without_git_the_build_refuses_naming_what_it_would_publish(
    checkout: Path, tmp_path: Path
) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(checkout / "notebooks", bare / "notebooks")
    with pytest.raises(TeachingError) as refused:
        copy_teaching_set(bare, tmp_path, log=lambda _line: None)
    message = str(refused.value)
    assert message.startswith(f"{bare}/notebooks is not in a git checkout here (")
    assert "without git they cannot be told from anything else in the folder" in message
    assert message.endswith(
        "it would publish: notebooks/.ipynb_checkpoints/01_tour-checkpoint.ipynb, "
        "notebooks/01_tour.ipynb, notebooks/data/session.txt, notebooks/play/try.ipynb, "
        "notebooks/scratch.ipynb"
    )


def test_a_tracked_file_missing_is_named(checkout: Path) -> None:
    (checkout / "notebooks" / "data" / "session.txt").unlink()
    with pytest.raises(TeachingError, match="missing from the checkout: notebooks/data/session"):
        teaching_files(checkout)


def test_the_repos_teaching_set_is_what_git_tracks() -> None:
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "notebooks"],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        unavailable(f"{ROOT} is not a git checkout (an unpacked sdist?): {proc.stderr.strip()}")
    assert teaching_files(ROOT) == sorted(proc.stdout.split())
    assert any(name.endswith(".ipynb") for name in teaching_files(ROOT))


def test_lab_copies_keep_what_the_user_changed(checkout: Path, tmp_path: Path) -> None:
    work = tmp_path / "lab"
    said: list[str] = []
    lab_copies(checkout, work, log=said.append)
    tour = work / "01_tour.ipynb"
    assert json.loads(tour.read_text())["cells"][0]["outputs"] == []
    assert (work / STATE).is_file() and not (work / "scratch.ipynb").exists()

    # the user runs and saves the tour; the repo's tour changes too: the user's copy is kept
    tour.write_text(notebook("x = 1", outputs=2))
    (checkout / "notebooks" / "01_tour.ipynb").write_text(notebook("x = 10"))
    (checkout / "notebooks" / "data" / "session.txt").write_text("new\n")
    said.clear()
    lab_copies(checkout, work, log=said.append)
    assert len(json.loads(tour.read_text())["cells"][0]["outputs"]) == 2
    assert (work / "data" / "session.txt").read_text() == "new\n"  # unchanged copy: refreshed
    assert said[-1] == (
        "kept your changed copies of 01_tour.ipynb (newer in notebooks/): make lab-fresh "
        "replaces every copy with the teaching notebook"
    )

    # fresh: every copy replaced
    lab_copies(checkout, work, fresh=True, log=said.append)
    assert json.loads(tour.read_text())["cells"][0]["source"] == "x = 10"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_listening(port: int) -> None:
    """Until the server accepts a connection (it prints its URL just before it listens)."""
    while True:
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except ConnectionRefusedError:
            time.sleep(0.05)


@pytest.fixture
def make_lab(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``make lab`` as a user runs it (its install step taken as done: the test's environment
    has the `lab` extra), in a process group of its own; the URL it prints and its folder."""
    if shutil.which("make") is None:
        pytest.skip("no make")
    work, port = tmp_path / "lab", free_port()
    python = Path(sys.executable)
    venv = python.parent.parent
    proc = subprocess.Popen(
        [
            *("make", "--no-print-directory", "-o", f"{venv}/.installed-lab", "lab"),
            *(f"VENV={venv}", f"PY={python}", f"LAB_DIR={work}", f"LAB_PORT={port}"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        env={**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config")},
    )
    try:
        assert proc.stdout is not None
        lines = []
        url = None
        for line in proc.stdout:  # until the server says where it is (or make ends)
            lines.append(line)
            if f"http://127.0.0.1:{port}/lab?token=" in line:
                url = line[line.index("http://") :].split()[0]
                break
        assert url is not None, "".join(lines)
        wait_listening(port)
        yield url, work
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # make and the server it started, nothing else
        proc.communicate()


@pytest.mark.slow
def test_make_lab_serves_jupyterlab_and_notebook7_on_copies(
    make_lab: tuple[str, Path],
) -> None:
    url, work = make_lab
    before = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "notebooks"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    base, token = url.split("/lab?token=")
    # Notebook 7, which the README advertises, is served by the same server
    with urllib.request.urlopen(f"{base}/tree?token={token}") as response:
        assert response.status == 200
        assert '"appName": "Jupyter Notebook"' in response.read().decode()
    with urllib.request.urlopen(f"{base}/lab?token={token}") as response:
        assert response.status == 200
    names = [Path(n).relative_to("notebooks").as_posix() for n in teaching_files(ROOT)]
    for name in names:
        assert (work / name).is_file(), name

    # the user runs the tour and saves it, and saves a scratch notebook: both land in the copies
    saved = json.loads(notebook("x = 1", outputs=18))
    for name in ("01_tour.ipynb", "scratch.ipynb"):
        body = json.dumps({"type": "notebook", "format": "json", "content": saved}).encode()
        request = urllib.request.Request(
            f"{base}/api/contents/{name}?token={token}", data=body, method="PUT"
        )
        with urllib.request.urlopen(request) as response:
            assert response.status in (200, 201)
    assert len(json.loads((work / "01_tour.ipynb").read_text())["cells"][0]["outputs"]) == 18
    assert (work / "scratch.ipynb").is_file() and not (
        ROOT / "notebooks" / "scratch.ipynb"
    ).exists()
    after = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "notebooks"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert after == before  # the teaching notebooks stay as they are
