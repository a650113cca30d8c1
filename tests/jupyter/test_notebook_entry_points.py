"""Every entry point keeps an ``.ipynb`` a valid notebook (``with_notebook_check``): the cell
magic, ``%apply_patch FILE``, ``stream_patch``, the ``turn`` and ``replay`` commands,
``%apply_patch_replay``, the Agents SDK editor and the desk (made in Python, or the ``mcp``
command) each refuse a patch that leaves the tour notebook with a cell without ``cell_type``,
and write nothing; no front end builds its options but through ``front_end_options``. Where
nbformat cannot be imported (a real interpreter without site-packages) the check is structural
and says so."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from agents.editor import ApplyPatchOperation
from IPython.core.interactiveshell import InteractiveShell

from applypatch_ext import stream_patch
from applypatch_ext.core.apply.content_check import InvalidContent
from applypatch_ext.core.turn.options import PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.desk.desk import Desk
from applypatch_ext.jupyter.magics.agents import PipelineEditor
from applypatch_ext.notebooks import validate_notebook, with_notebook_check
from applypatch_ext.notebooks.check import WITHOUT_SCHEMA

from ..desk.conftest import stdio_client, text_of
from .conftest import Magic
from .test_notebook_cells import NOTEBOOKS, TOUR, dumps, update_patch

ROOT = Path(__file__).resolve().parents[2]
#: What every refusal names: the cell and what is missing.
PROBLEM = "cell 2 (id 'cell-02', starting \"## Some files to work on\"): 'cell_type' is missing"


@dataclass
class Project:
    root: Path
    before: bytes
    patch: str

    @property
    def notebook(self) -> Path:
        return self.root / TOUR

    def unchanged(self) -> bool:
        return self.notebook.read_bytes() == self.before and sorted(
            p.name for p in self.root.iterdir()
        ) == sorted([TOUR, "change.patch", "items.json"])


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    root.mkdir()
    shutil.copy(NOTEBOOKS / TOUR, root / TOUR)
    text = (root / TOUR).read_text(encoding="utf-8")
    nb = json.loads(text)
    del nb["cells"][2]["cell_type"]
    patch = update_patch(TOUR, text, dumps(nb))
    (root / "change.patch").write_text(patch, encoding="utf-8")
    items = [{"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": patch}]
    (root / "items.json").write_text(json.dumps(items), encoding="utf-8")
    return Project(root, (root / TOUR).read_bytes(), patch)


def command(*args: str, cwd: Path, no_site: bool = False) -> tuple[int, list[dict[str, Any]]]:
    """``python -m applypatch_ext ARGS``; with ``no_site`` a real interpreter without its
    site-packages (no nbformat, no IPython), the package from the checkout."""
    flags = ["-S"] if no_site else []
    env = {**os.environ, "PYTHONPATH": str(ROOT)} if no_site else dict(os.environ)
    proc = subprocess.run(
        [sys.executable, *flags, "-m", "applypatch_ext", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines()]


def call_output(lines: list[dict[str, Any]]) -> str:
    (result,) = [line for line in lines if line["type"] == "call_result"]
    assert result["status"] == "error" and result["delta"]["changes"] == []
    output: str = result["output"]
    return output


# ------------------------------------------------------------------------ each entry point


def via_turn_command(p: Project, _: Any) -> str:
    code, lines = command("turn", "--cwd", str(p.root), "change.patch", cwd=p.root)
    assert code == 1
    return call_output(lines)


def via_replay_command(p: Project, _: Any) -> str:
    code, lines = command(
        "replay", "items.json", "--cwd", str(p.root), "--approve", "approve", cwd=p.root
    )
    assert code in (0, 1)  # a list of items records no outcome to agree with
    return call_output(lines)


def via_stream_patch(p: Project, _: Any) -> str:
    chunks = [p.patch[i : i + 40] for i in range(0, len(p.patch), 40)]
    result = stream_patch(chunks, cwd=str(p.root), approve="approve", widget=False)
    assert result.status == "error"
    return result.output


def via_stream_patch_with_options(p: Project, _: Any) -> str:
    """Options of the caller's own (no validator): the check is added all the same."""
    options = PipelineOptions.from_strings(str(p.root), exclude_tmp=True)
    result = stream_patch(p.patch, cwd=str(p.root), options=options, widget=False)
    assert result.status == "error"
    return result.output


def via_cell_magic(p: Project, run_magic: Magic) -> str:
    run_magic(f"res --cwd {p.root} --stream-chunk 0 --no-widget", p.patch)
    result = run_magic.shell.user_ns["res"]
    assert result.status == "error"
    output: str = result.output
    return output


def via_file_magic(p: Project, run_magic: Magic) -> str:
    run_magic.line("apply_patch", f"{p.root / 'change.patch'} res --cwd {p.root} --no-widget")
    result = run_magic.shell.user_ns["res"]
    assert result.status == "error"
    output: str = result.output
    return output


def via_replay_magic(p: Project, run_magic: Magic) -> str:
    line = f"{p.root / 'items.json'} rep --cwd {p.root} --approve approve --no-widget"
    run_magic.line("apply_patch_replay", line)
    (result,) = run_magic.shell.user_ns["rep"].calls
    assert result.status == "error"
    output: str = result.output
    return output


def via_agents_editor(p: Project, _: Any) -> str:
    body = p.patch.split("\n", 2)[2].rsplit("\n", 1)[0]  # the hunk, without the markers
    editor = PipelineEditor(str(p.root), approve="approve")
    result = editor.update_file(ApplyPatchOperation(type="update_file", path=TOUR, diff=body))
    assert result.status == "failed" and editor.results[0].status == "error"
    return result.output or ""


def via_desk_in_python(p: Project, _: Any) -> str:
    """A desk made in Python on a bare ``Turn`` (no validator in its options)."""
    desk = Desk(Turn(str(p.root)))
    call = desk.start(p.patch)
    assert call.result is not None and call.result.status == "error"
    return call.result.output


def via_mcp_command(p: Project, _: Any) -> str:
    async def session() -> str:
        async with stdio_client(p.root) as client:
            return text_of(await client.call_tool("apply_patch", {"patch": p.patch}))

    return anyio.run(session)


ENTRY_POINTS: list[Callable[[Project, Any], str]] = [
    via_cell_magic,
    via_file_magic,
    via_stream_patch,
    via_stream_patch_with_options,
    via_turn_command,
    via_replay_command,
    via_replay_magic,
    via_agents_editor,
    via_desk_in_python,
    via_mcp_command,
]


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=lambda f: f.__name__[4:])
def test_every_entry_point_refuses_a_notebook_it_would_break(
    entry: Callable[[Project, Any], str],
    project: Project,
    run_magic: Magic,
    ip: InteractiveShell,
) -> None:
    output = entry(project, run_magic)
    assert PROBLEM in output, output
    assert "Jupyter cannot open an invalid notebook: fix the patch" in output
    assert WITHOUT_SCHEMA not in output  # nbformat is installed here: the whole schema
    assert project.unchanged()


def test_every_front_end_builds_its_options_through_the_factory() -> None:
    """``front_end_options`` is the only caller of ``PipelineOptions.from_namespace``: a front
    end cannot build its options from its command line without the notebook check."""
    package = ROOT / "applypatch_ext"
    callers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "from_namespace":
                callers.add(path.relative_to(package).as_posix())
    assert callers == {"notebooks/check.py"}


def test_without_nbformat_the_check_is_structural_and_says_so(project: Project) -> None:
    code, lines = command(
        "turn", "--cwd", str(project.root), "change.patch", cwd=project.root, no_site=True
    )
    assert code == 1
    output = call_output(lines)
    assert PROBLEM in output and WITHOUT_SCHEMA in output
    assert project.unchanged()
    # a valid edit goes through, and the TurnDiff is printed
    text = project.notebook.read_text(encoding="utf-8")
    nb = json.loads(text)
    nb["cells"][0]["source"][0] = "# edited\n"
    (project.root / "change.patch").write_text(update_patch(TOUR, text, dumps(nb)))
    code, lines = command(
        "turn", "--cwd", str(project.root), "change.patch", cwd=project.root, no_site=True
    )
    assert code == 0, lines
    assert json.loads(project.notebook.read_text(encoding="utf-8")) == nb
    assert '+    "# edited\\n",' in lines[-1]["unified_diff"]


def test_warn_keeps_the_reference_behaviour_at_the_entry_points(project: Project) -> None:
    code, lines = command(
        "turn",
        "--cwd",
        str(project.root),
        "--invalid-notebooks",
        "warn",
        "change.patch",
        cwd=project.root,
    )
    assert code == 0
    (result,) = [line for line in lines if line["type"] == "call_result"]
    assert result["status"] == "completed"
    (warning,) = [line for line in lines if line["type"] == "patch_warning"]
    assert warning["kind"] == "invalid_content" and str(project.notebook) in warning["message"]
    assert any(PROBLEM in str(value) for value in warning.values()), warning
    # the call_result line carries the same warning
    assert result["warnings"] == [
        {k: v for k, v in warning.items() if k not in ("type", "call_id", "time")}
    ]
    assert "cell_type" not in json.loads(project.notebook.read_text())["cells"][2]


def test_with_notebook_check_adds_the_validator_and_keeps_one_of_the_callers() -> None:
    assert with_notebook_check().content_validator is validate_notebook
    warn = PipelineOptions(invalid_content=InvalidContent.WARN)
    checked = with_notebook_check(warn)
    assert checked.content_validator is validate_notebook
    assert checked.invalid_content is InvalidContent.WARN

    def own(path: str, text: str) -> str | None:
        return None

    mine = PipelineOptions(content_validator=own)
    assert with_notebook_check(mine) is mine
