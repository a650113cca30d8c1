"""Undo on notebooks (issue 15, item 3) through a real IPython shell: an undo of a call that
changed a teaching notebook of this repository gives its bytes and mode back, like any file,
and the cell view says what the undo would restore before anyone clicks, then what it did
(docs/behaviour.md §11.7). Trees compared whole, modes included (tests/trees.py)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.jupyter.live import undo as undo_module
from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.notebooks import notebook_diff

from ..trees import snapshot_dir_with_modes
from .conftest import Magic, RecordingWidget

TOUR = Path(__file__).resolve().parents[2] / "notebooks" / "01_tour.ipynb"
NB = "01_tour.ipynb"

UPDATE = (
    f"*** Update File: {NB}\n"
    "@@\n"
    '-    "# 01 · A tour of `%%apply_patch`\\n",\n'
    '+    "# 01 · A short tour of `%%apply_patch`\\n",\n'
    "@@\n"
    '-    "print(\\"working in\\", PROJECT)"\n'
    '+    "print(\\"working in\\", PROJECT, flush=True)"'
)


def patch(body: str) -> str:
    return f"*** Begin Patch\n{body}\n*** End Patch\n"


@pytest.fixture
def magic(run_magic: Magic, monkeypatch: pytest.MonkeyPatch) -> Magic:
    monkeypatch.setattr(undo_module, "ApplyPatchWidget", RecordingWidget)
    return run_magic


def undo_line(ip: InteractiveShell, name: str, text: str = "") -> list[RecordingWidget]:
    before = len(RecordingWidget.instances)
    with capture_output():
        ip.run_line_magic(name, text)
    return RecordingWidget.instances[before:]


def click(widget: RecordingWidget, content: dict[str, Any]) -> None:
    """What a click on the widget's Undo / Redo button delivers to the kernel."""
    if content.get("type") == "undo-approval":  # it names the request the widget shows
        approval = widget.undo.get("last", {}).get("approval", {})
        content = {"request": approval.get("request_id"), **content}
    widget._handle_custom_msg(content, [])


def cells(view: dict[str, Any]) -> list[tuple[str, Any]]:
    """A cell view's entries by status and cell id (folded runs by their count)."""
    return [(c["status"], c.get("id", c.get("count"))) for c in view["cells"]]


@pytest.mark.parametrize("endings", ["lf", "crlf"])
def test_undo_of_a_teaching_notebook_is_byte_identical_and_shown_as_cells(
    magic: Magic, ip: InteractiveShell, tmp_path: Path, endings: str
) -> None:
    data = TOUR.read_bytes()
    if endings == "crlf":
        data = data.replace(b"\n", b"\r\n")
    (tmp_path / NB).write_bytes(data)
    os.chmod(tmp_path / NB, 0o640)
    before = snapshot_dir_with_modes(tmp_path)
    run = magic("result --stream-chunk 0", patch(UPDATE))
    assert ip.user_ns["result"].status == "completed"
    after = snapshot_dir_with_modes(tmp_path)
    assert after != before
    path = str(tmp_path / NB)
    changed = (tmp_path / NB).read_bytes().decode()

    # before any click: the notebook as cells, from now back to before the call
    panel = run.widget.undo
    assert panel["can_undo"] is True and panel["notebooks"]["redo"] == []
    (preview,) = panel["notebooks"]["undo"]
    assert preview["path"] == path and preview["kind"] == "update" and preview["ok"] is True
    assert preview["summary"].startswith("2 changed, ")
    assert preview == notebook_diff(changed, data.decode(), path=path)
    title = next(c for c in preview["cells"] if c.get("id") == "cell-00")
    assert "-# 01 · A short tour of `%%apply_patch`" in title["source_diff"]
    assert "+# 01 · A tour of `%%apply_patch`" in title["source_diff"]

    # the undo: byte for byte, mode included; its own view shows the same cells, committed
    (undo_widget,) = undo_line(ip, "apply_patch_undo")
    assert undo_widget.status == "completed"
    assert snapshot_dir_with_modes(tmp_path) == before
    (written,) = undo_widget.notebooks["committed"]
    assert cells(written) == cells(preview) and written["summary"] == preview["summary"]
    assert SESSION.turn is not None and SESSION.turn.turn_diff() == ""

    # the call's widget now offers Redo, and shows what it would put back
    panel = run.widget.undo
    assert panel["notebooks"]["undo"] == []
    (forward,) = panel["notebooks"]["redo"]
    assert forward == notebook_diff(data.decode(), changed, path=path)
    click(run.widget, {"type": "undo", "kind": "redo"})
    assert run.widget.undo["last"]["status"] == "completed"
    assert snapshot_dir_with_modes(tmp_path) == after


@pytest.mark.parametrize(
    ("body", "kind", "moved_from"),
    [
        (f"*** Delete File: {NB}", "add", None),
        (
            f'*** Update File: {NB}\n*** Move to: course/tour.ipynb\n@@\n-   "id": "cell-00",\n'
            '+   "id": "tour-00",',
            "update",
            "course/tour.ipynb",
        ),
    ],
    ids=["delete", "move"],
)
def test_undo_of_a_deleted_or_moved_notebook(
    magic: Magic,
    ip: InteractiveShell,
    tmp_path: Path,
    body: str,
    kind: str,
    moved_from: str | None,
) -> None:
    shutil.copy(TOUR, tmp_path / NB)
    before = snapshot_dir_with_modes(tmp_path)
    run = magic("--stream-chunk 0", patch(body))
    assert run.widget.status == "completed"
    (preview,) = run.widget.undo["notebooks"]["undo"]
    # the notebook comes back where it was: re-created, or moved home (one view, not two)
    assert preview["path"] == str(tmp_path / NB) and preview["kind"] == kind
    assert preview.get("moved_from") == (None if moved_from is None else str(tmp_path / moved_from))
    if moved_from is not None:
        # the cell whose id the call changed gets its id back
        assert [c for c in cells(preview) if c[0] != "unchanged"] == [("changed", "cell-00")]
    undo_line(ip, "apply_patch_undo")
    assert snapshot_dir_with_modes(tmp_path) == before  # course/ removed with the move back
    (again,) = run.widget.undo["notebooks"]["redo"]
    assert again["kind"] == ("delete" if moved_from is None else "update")


def test_a_notebook_edited_by_hand_is_a_conflict_then_forced_back(
    magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    shutil.copy(TOUR, tmp_path / NB)
    before = snapshot_dir_with_modes(tmp_path)
    run = magic("--stream-chunk 0", patch(UPDATE))
    saved = (tmp_path / NB).read_text().replace("Next: `02_parse", "Next, `02_parse")
    (tmp_path / NB).write_text(saved)  # the user saves the notebook in between
    click(run.widget, {"type": "undo", "kind": "undo"})
    last = run.widget.undo["last"]
    assert last["status"] == "error"
    (conflict,) = last["conflicts"]
    # the trait carries each version bounded (panels.bounded_conflict): a prefix, the hash whole
    assert saved.startswith(conflict["now"]["content"])
    assert conflict["now"]["sha256"] == hashlib.sha256(saved.encode("utf-8")).hexdigest()
    assert (tmp_path / NB).read_text() == saved  # nothing undone
    # the change since the call, as cells: the summary cell, edited by hand
    (edited,) = run.widget.undo["notebooks"]["edited"]
    assert [c for c in cells(edited) if c[0] != "unchanged"] == [("changed", "cell-30")]
    assert "+Next, `02_parse" in edited["cells"][-1]["source_diff"]

    # the same from the magic without a widget: the static conflict view shows the cells too
    with capture_output() as captured:
        ip.run_line_magic("apply_patch_undo", "--no-widget")
    html = next(
        o.data["text/html"]
        for o in captured.outputs
        if "Undo conflict" in o.data.get("text/html", "")
    )
    assert "What changed since, as cells:" in html and 'class="applypatch-notebook"' in html
    markdown = next(
        o.data["text/markdown"]
        for o in captured.outputs
        if "Undo conflict" in o.data.get("text/markdown", "")
    )
    assert "What changed since, as cells:" in markdown
    assert r"1 changed\, 30 unchanged cells" in markdown  # Markdown-escaped
    # still offered, with its cells: what an undo would restore from the call's own state
    assert run.widget.undo["can_undo"] is True and run.widget.undo["notebooks"]["undo"]
    force = next(c for c in last["choices"] if c["message"].get("force"))
    click(run.widget, force["message"])
    assert run.widget.undo["last"]["status"] == "completed"
    assert snapshot_dir_with_modes(tmp_path) == before
