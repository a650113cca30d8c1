"""The teaching notebooks: stored clean, executed headlessly, with useful saved outputs.

Every notebook in ``notebooks/`` is copied (with ``notebooks/data``) to a temporary folder and
run there by nbclient in a ``python3`` kernel of this environment; any failing cell (the
notebooks check their claims with plain ``assert``) fails the test. The saved outputs must carry
the static record of every widget (``text/html`` and ``text/plain``) in its final state, and a
few claims specific to each notebook are checked on the outputs. ``TMPDIR`` points the kernels
at a folder of their own, which shows that a run creates its files there and nowhere else.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from applypatch_ext.desk.clients import CACHE_ENV
from applypatch_ext.exercises import EXERCISES, NOTEBOOK_OF, exercise
from applypatch_ext.jupyter.records.display import STATUS_TEXT
from applypatch_ext.jupyter.records.vocabulary import undone_meanings

from .notebook_outcomes import FINAL_STATUSES, labels

# A kernel per notebook (~15 s): make test runs them, make check does not.
pytestmark = pytest.mark.slow

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(path.name for path in NOTEBOOKS_DIR.glob("*.ipynb"))
DATA_DIR = NOTEBOOKS_DIR / "data"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
CELL_TIMEOUT = 120
#: The words of a final state: a terminal status's, or an undone call's.
FINAL_STATUS_TEXTS = {text for status, text in STATUS_TEXT.items() if status} | {
    meaning["label"] for meaning in undone_meanings().values()
}


def execute(source: Path, run_dir: Path, tmpdir: Path) -> nbformat.NotebookNode:
    """Run a copy of ``source`` in ``run_dir`` (kernel cwd) with ``TMPDIR=tmpdir``."""
    run_dir.mkdir(parents=True)
    tmpdir.mkdir(parents=True)
    shutil.copy(source, run_dir / source.name)
    if DATA_DIR.is_dir():
        shutil.copytree(DATA_DIR, run_dir / "data")
    nb: nbformat.NotebookNode = nbformat.read(run_dir / source.name, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        coalesce_streams=True,  # a busy kernel may flush one print in several messages
        resources={"metadata": {"path": str(run_dir)}},
    )
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    # notebook 11's Codex binary: the checkout's cache, shared with the desk's end-to-end test
    env.setdefault(CACHE_ENV, str(NOTEBOOKS_DIR.parent / ".cache"))
    env.pop("ANYWIDGET_HMR", None)
    client.execute(env=env)
    return nb


class Run:
    """One executed notebook and where it ran."""

    def __init__(self, nb: nbformat.NotebookNode, run_dir: Path, tmpdir: Path) -> None:
        self.nb = nb
        self.run_dir = run_dir
        self.tmpdir = tmpdir

    def outputs(self) -> Iterator[dict[str, Any]]:
        for cell in self.nb.cells:
            if cell.cell_type == "code":
                yield from cell.outputs

    def widget_outputs(self) -> list[dict[str, Any]]:
        """The static side of every widget, in order: a call's record (an output of its own,
        beside the call's live view, which is left out), or a widget output carrying its
        fallbacks itself (the replay's stepper)."""
        shown = []
        for output in self.outputs():
            marks = output.get("metadata", {}).get("applypatch_ext", {})
            if "record" in marks or (WIDGET_VIEW in output.get("data", {}) and "live" not in marks):
                shown.append(output)
        return shown

    def widget_statuses(self) -> list[str]:
        """The status word of every widget's plain-text fallback, in order."""
        return [_status_of(o["data"]["text/plain"]) for o in self.widget_outputs()]

    def text(self) -> str:
        """Every stream and text/plain output, joined."""
        parts = []
        for output in self.outputs():
            if output.get("output_type") == "stream":
                parts.append(output["text"])
            else:
                parts.append(output.get("data", {}).get("text/plain", ""))
        return "\n".join(parts)


def _status_of(plain: str) -> str:
    # "apply_patch call-1 in /tmp/...: completed (stage: done)"
    head = plain.splitlines()[0].rsplit(" (stage:", 1)[0]
    return head.rsplit(": ", 1)[1]


class _Runs(dict[str, Run]):
    """Executes each notebook on first access, once per module."""

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base

    def __missing__(self, name: str) -> Run:
        run_dir, tmpdir = self.base / Path(name).stem / "run", self.base / Path(name).stem / "tmp"
        run = self[name] = Run(execute(NOTEBOOKS_DIR / name, run_dir, tmpdir), run_dir, tmpdir)
        return run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    return _Runs(tmp_path_factory.mktemp("notebooks"))


def test_all_notebooks_are_there() -> None:
    assert [name[:2] for name in NOTEBOOKS] == [
        "01",
        "02",
        "03",
        "04",
        "05",
        "06",
        "07",
        "08",
        "09",
        "10",
        "11",
    ]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_clean_and_shaped(name: str) -> None:
    """No outputs, a python3 kernelspec, a fresh temporary folder, learn first, summary last."""
    nb = nbformat.read(NOTEBOOKS_DIR / name, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert "widgets" not in nb.metadata
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)
    assert nb.cells[0].cell_type == "markdown" and "**What you will learn**" in nb.cells[0].source
    assert any(
        "## Summary" in cell.source for cell in nb.cells[-3:] if cell.cell_type == "markdown"
    )
    setup = code[0].source
    assert 'tempfile.mkdtemp(prefix="applypatch-' in setup
    assert "%cd -q $PROJECT" in setup


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_runs_headless_with_fallbacks(name: str, runs: dict[str, Run]) -> None:
    """Every cell runs; each widget output also saves HTML and text in its final state."""
    run = runs[name]
    widgets = run.widget_outputs()
    assert widgets, "every notebook shows at least one widget"
    for output in widgets:
        data = output["data"]
        assert 'class="applypatch-static"' in data["text/html"]
        assert _status_of(data["text/plain"]) in FINAL_STATUS_TEXTS, data["text/plain"][:200]
    states = run.nb.metadata["widgets"][WIDGET_STATE]["state"]
    saved = {m["state"].get("status") for m in states.values() if "status" in m["state"]}
    assert saved - {""}, "the widgets' final states are saved with the notebook"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_runs_only_in_its_temporary_folder(name: str, runs: dict[str, Run]) -> None:
    run = runs[name]
    left = sorted(p.relative_to(run.run_dir).as_posix() for p in run.run_dir.rglob("*"))
    expected = [name]
    if DATA_DIR.is_dir():
        expected += ["data", *(f"data/{p.name}" for p in DATA_DIR.iterdir())]
    assert left == sorted(expected)
    created = [p.name for p in run.tmpdir.iterdir()]
    assert len(created) == 1 and created[0].startswith("applypatch-"), created


def test_every_teaching_notebook_has_its_outcomes() -> None:
    assert set(FINAL_STATUSES) == {name for name in NOTEBOOKS if name[:2].isdigit()}


def _code_sources(name: str) -> list[str]:
    nb = nbformat.read(NOTEBOOKS_DIR / name, as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def test_every_exercise_sits_in_its_notebook() -> None:
    """Each exercise has a cell that shows it and one that answers it (stored unanswered);
    at least three sit in notebooks 02 to 05 (issue 25)."""
    assert set(NOTEBOOK_OF) == set(EXERCISES)
    assert set(NOTEBOOK_OF.values()) <= set(NOTEBOOKS)
    for exercise_id, name in NOTEBOOK_OF.items():
        shown = f'exercise("{exercise_id}")'
        sources = _code_sources(name)
        assert any(source.endswith(shown) for source in sources), (name, exercise_id)
        answers = (f"{shown}.check(", f"%%apply_patch --exercise {exercise_id}\n")
        assert any(source.startswith(answers[1]) or answers[0] in source for source in sources)
    assert len([n for n in NOTEBOOK_OF.values() if "02" <= n[:2] <= "05"]) >= 3


@pytest.mark.parametrize("name", sorted(set(NOTEBOOK_OF.values())))
def test_exercises_show_their_task_and_answer_at_once(name: str, runs: dict[str, Run]) -> None:
    """Run headless, each exercise shows its task (all three forms) and its answer cell's
    feedback: no answer yet, as stored."""
    run = runs[name]
    here = [exercise(i) for i, n in NOTEBOOK_OF.items() if n == name]
    outputs = [o.get("data", {}) for o in run.outputs() if o.get("output_type") != "stream"]
    tasks = [d for d in outputs if d.get("text/plain", "").startswith("\u270e ")]
    assert [d["text/plain"] for d in tasks] == [str(ex) for ex in here]
    assert all('class="applypatch-exercise"' in d["text/html"] for d in tasks)
    markdown = [ex._repr_markdown_() for ex in here]
    assert [d["text/markdown"] for d in tasks] == markdown
    unanswered = [
        d["text/plain"] for d in outputs if d.get("text/plain", "").startswith("\u2026 No answer")
    ]
    assert len(unanswered) == len(here)


def test_tour(runs: dict[str, Run]) -> None:
    run = runs["01_tour.ipynb"]
    assert run.widget_statuses() == labels("01_tour.ipynb")
    assert "diff --git a/hello.py b/hello.py" in run.text()
    assert "4 files in the exported diff" in run.text()


def test_parse_and_stream(runs: dict[str, Run]) -> None:
    run = runs["02_parse_and_stream.ipynb"]
    text = run.text()
    assert "2 PatchApplyUpdated events" in text
    assert "500 ms throttle, 1 char/ms: 6 events" in text
    assert run.widget_statuses() == labels("02_parse_and_stream.ipynb")


def test_verify_safety_apply(runs: dict[str, Run]) -> None:
    run = runs["03_verify_safety_apply.ipynb"]
    text = run.text()
    assert "| mixed endings |" in text
    assert "patch rejected: writing is blocked by read-only sandbox" in text
    assert run.widget_statuses() == labels("03_verify_safety_apply.ipynb")


def test_failure_cases(runs: dict[str, Run]) -> None:
    run = runs["04_failure_cases.ipynb"]
    assert run.widget_statuses() == labels("04_failure_cases.ipynb")
    text = run.text()
    assert "| cancelled | `cancelled` | yes | no | the prefix: k1.txt |" in text
    assert "The TurnDiff of this turn is unavailable" in text


def test_turn_diff(runs: dict[str, Run]) -> None:
    run = runs["05_turn_diff.ipynb"]
    assert run.widget_statuses() == labels("05_turn_diff.ipynb")
    text = run.text()
    assert "git apply exit code: 0" in text
    assert "git apply --check: 1" in text


def test_streaming_from_a_model(runs: dict[str, Run]) -> None:
    run = runs["06_streaming_from_a_model.ipynb"]
    assert "left in the stream: ['response.output_item.done', 'response.completed']" in run.text()
    assert run.widget_statuses() == labels("06_streaming_from_a_model.ipynb")


def test_review_and_undo(runs: dict[str, Run]) -> None:
    run = runs["07_review_and_undo.ipynb"]
    assert run.widget_statuses() == labels("07_review_and_undo.ipynb")
    text = run.text()
    assert "not applied, by the user: app.py chunk 2 of 2" in text
    assert "The user's reason: keep the name greet: other modules import it" in text
    assert "--- before\n# Greeter\n" in text and "--- now\n# The greeter\n" in text
    assert "call-8  redo of call-1" in text  # the history's plain-text table


def test_replay_a_codex_session(runs: dict[str, Run]) -> None:
    run = runs["08_replay_a_codex_session.ipynb"]
    assert run.widget_statuses() == labels("08_replay_a_codex_session.ipynb")
    text = run.text()
    assert "call_mismatch  recorded error     replayed error     agrees: True" in text
    assert 'call_update ["output: recorded ' in text
    assert "4 agree, 1 differ, 0 not recorded" in text


def test_the_notebook_session_is_the_real_fixture() -> None:
    fixture = Path(__file__).parent / "data" / "rollouts" / "0.163.0" / "session.jsonl"
    assert (DATA_DIR / "codex_session.txt").read_bytes() == fixture.read_bytes()


def test_notebook_files(runs: dict[str, Run]) -> None:
    run = runs["09_notebook_files.ipynb"]
    assert run.widget_statuses() == labels("09_notebook_files.ipynb")
    text = run.text()
    assert "1 added, 1 changed, 3 unchanged cells" in text
    assert "this call: 1 changed, 4 unchanged cells" in text
    assert "the turn:  1 added, 2 changed, 2 unchanged cells" in text
    assert (
        "cell 3 (id 'caveat', starting \"Only four months of data.\"): 'cell_type' is missing"
        in text
    )
    assert "not valid JSON: Expecting ',' delimiter at line 36, column 4" in text
    html = [o.get("data", {}).get("text/html", "") for o in run.outputs()]
    # the notebook's own views (the calls' static records show the cells too: not counted here)
    views = [
        h for h in html if 'class="applypatch-notebook"' in h and "data-applypatch-record" not in h
    ]
    # the good edit and the refused one side by side with their JSON, the undo view, then
    # %apply_patch_turn: the turn's notebook as cells beside its diff
    assert len(views) == 4 and all("raw JSON diff" in v for v in views)
    assert (
        "the JSON, as the patch changed it" in views[1] and "invalid notebook: cell 3" in views[1]
    )
    assert "<i>in the TurnDiff</i>" in views[3] and "<b>Turn diff</b>" in views[3]
    assert "1 added, 2 changed, 2 unchanged cells" in views[3]


def test_recorded_stream_is_an_openai_like_event_stream() -> None:
    lines = (DATA_DIR / "recorded_stream.txt").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    kinds = {event["type"] for event in events}
    assert {"response.created", "response.output_text.delta", "response.output_item.added"} <= kinds
    done = [e for e in events if e["type"] == "response.custom_tool_call_input.done"]
    deltas = [e["delta"] for e in events if e["type"] == "response.custom_tool_call_input.delta"]
    assert len(done) == 1 and "".join(deltas) == done[0]["input"]
    tool_events = [e for e in events if "custom_tool_call" in e["type"]]
    assert {e["item_id"] for e in tool_events} == {done[0]["item_id"]}


def test_a_failing_cell_fails(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell("assert 1 + 1 == 3, 'a claim that does not hold'")]
    path = tmp_path / "src" / "failing.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    with pytest.raises(CellExecutionError, match="a claim that does not hold"):
        execute(path, tmp_path / "run", tmp_path / "tmp")


def test_an_agent_at_the_desk(runs: dict[str, Run]) -> None:
    """A real Codex CLI against the desk, driven by the scripted model: one chunk approved, one
    call declined with a reason, and what Codex recorded is the desk's text."""
    run = runs["11_an_agent_at_the_desk.ipynb"]
    text = run.text()
    # the person's own cell, then the desk's record, which starts with the agent's first call
    assert run.widget_statuses() == labels("11_an_agent_at_the_desk.ipynb")
    desk_record = run.widget_outputs()[1]["data"]["text/plain"]
    firsts = [line for line in desk_record.splitlines() if line.startswith("apply_patch call-")]
    assert [_status_of(line) for line in firsts] == ["completed", "declined"]
    assert "not applied, by the user: app.py chunk 2 of 2" in text
    assert "The user's reason: the port stays 8000, so there is nothing to note" in text
    assert "[mcp_servers.desk]" in text and "bearer_token_env_var" in text
