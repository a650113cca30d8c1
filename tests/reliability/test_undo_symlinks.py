"""An undo or redo never follows a symbolic link at a path it restores, and a forced undo's
record says what it wrote and what it overwrote (issue 21, items 4 and 8; SECURITY.md, "Undo,
redo and symbolic links").

Item 4, the attack: the call updated ``a.txt``; then ``a.txt`` became a link to
``precious.txt``. The conflict said only "now unreadable as text", and ``--force`` overwrote
``precious.txt``, which the undo never listed. Now the conflict names what is there ("a symbolic
link to precious.txt"); a forced undo (or redo) replaces the link itself with the file as it
was, and never reads or writes the link's target; a directory on the way swapped for a link is
refused, also forced. Item 8: a forced undo's record (text, Markdown, HTML) says what it wrote
and what it overwrote, never "nothing was written".

Real files and links, the library, the real IPython shell (``%apply_patch_undo``, exactly
``UsageError`` for what cannot be asked), the real widget's Undo button and its messages.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO, capture_output

from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.core.turn.undo_call import UndoCall
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.magics import magic as magic_module

from ..trees import snapshot_dir_with_modes
from ._ipython import ipython

__all__ = ["ipython"]  # the fixture

UPDATE_A = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch"


def last_undo(turn: Turn) -> UndoCall:
    """The turn's last call, the undo (or redo) that just ran."""
    call = turn.calls[-1]
    assert isinstance(call, UndoCall)
    return call


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    (root / "precious.txt").write_text("precious\n")
    (root / "precious.txt").chmod(0o600)
    return root


def turn_of(root: Path, policy: str = "on-request") -> Turn:
    options = PipelineOptions.from_strings(str(root), exclude_tmp=True, approval_policy=policy)
    return Turn(str(root), options=options)


def swap_for_link(path: Path, target: str) -> None:
    path.unlink()
    path.symlink_to(target)


# -- item 4: the library -------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["precious.txt", "OUTSIDE"], ids=["inside", "outside"])
def test_a_file_swapped_for_a_link_is_named_and_a_forced_undo_replaces_the_link(
    project: Path, target: str
) -> None:
    outside = project.parent / "victim.txt"
    outside.write_text("victim\n")
    link = str(outside) if target == "OUTSIDE" else target
    turn = turn_of(project)
    assert turn.run(UPDATE_A, "approve").status == CallStatus.COMPLETED
    swap_for_link(project / "a.txt", link)
    precious = snapshot_dir_with_modes(project.parent)
    refused = turn.undo()
    assert refused.status == CallStatus.ERROR
    assert f"a.txt is not as the call left it: now a symbolic link to {link}" in (
        refused.error or ""
    )
    assert snapshot_dir_with_modes(project.parent) == precious  # nothing written
    forced = turn.undo(force=True)
    assert forced.status == CallStatus.COMPLETED, forced.error
    after = snapshot_dir_with_modes(project.parent)
    # the link is gone, a.txt is the file as it was; the link's target is untouched
    assert not (project / "a.txt").is_symlink()
    assert after["project/a.txt"] == (b"a\n", 0o644)
    assert after["project/precious.txt"] == (b"precious\n", 0o600)
    assert after["victim.txt"] == precious["victim.txt"]
    assert forced.delta.exact and [c.path for c in forced.delta.changes] == [str(project / "a.txt")]
    (conflict,) = last_undo(turn).conflicts
    assert conflict.written and conflict.found == f"a symbolic link to {link}"
    assert "--force replaced the link (its target is untouched)" in conflict.reason()


def test_a_forced_redo_replaces_a_link_too(project: Path) -> None:
    turn = turn_of(project)
    turn.run(UPDATE_A, "approve")
    assert turn.undo().status == CallStatus.COMPLETED
    swap_for_link(project / "a.txt", "precious.txt")
    refused = turn.redo()
    assert "a.txt is not as the undo left it: now a symbolic link to precious.txt" in (
        refused.error or ""
    )
    assert turn.redo(force=True).status == CallStatus.COMPLETED
    assert (project / "a.txt").read_text() == "A\n" and not (project / "a.txt").is_symlink()
    assert (project / "precious.txt").read_text() == "precious\n"


def test_a_deleted_file_whose_place_holds_a_link_comes_back_as_a_file(project: Path) -> None:
    turn = turn_of(project, "never")
    turn.run("*** Begin Patch\n*** Delete File: a.txt\n*** End Patch", "approve")
    (project / "a.txt").symlink_to("precious.txt")
    result = turn.undo(force=True)
    assert result.status == CallStatus.COMPLETED
    assert (project / "a.txt").read_text() == "a\n" and not (project / "a.txt").is_symlink()
    assert (project / "precious.txt").read_text() == "precious\n"


@pytest.mark.parametrize("target", ["precious.txt", "OUTSIDE"], ids=["inside", "outside"])
@pytest.mark.parametrize("kind", ["undo", "redo"])
def test_a_file_swapped_for_a_hard_link_is_named_and_forced_replaces_only_its_name(
    project: Path, target: str, kind: str
) -> None:
    """The same attack with a hard link (``ln -f precious.txt a.txt``, no less easy than
    ``ln -sf``): the conflict said only the new bytes, and ``--force`` wrote the call's bytes
    in place, into ``precious.txt``, which the undo never listed. Now the conflict says it is
    a hard link, and a forced undo (or redo) replaces the name ``a.txt`` only."""
    outside = project.parent / "victim.txt"
    outside.write_text("victim\n")
    other = outside if target == "OUTSIDE" else project / target
    turn = turn_of(project)
    assert turn.run(UPDATE_A, "approve").status == CallStatus.COMPLETED
    if kind == "redo":
        assert turn.undo().status == CallStatus.COMPLETED
    (project / "a.txt").unlink()
    os.link(other, project / "a.txt")
    untouched = snapshot_dir_with_modes(project.parent)
    refused = turn.undo() if kind == "undo" else turn.redo()
    assert refused.status == CallStatus.ERROR
    assert "(a hard link: another name shares these bytes)" in (refused.error or "")
    assert snapshot_dir_with_modes(project.parent) == untouched  # nothing written
    forced = turn.undo(force=True) if kind == "undo" else turn.redo(force=True)
    assert forced.status == CallStatus.COMPLETED, forced.error
    after = snapshot_dir_with_modes(project.parent)
    assert after["project/a.txt"] == ((b"a\n" if kind == "undo" else b"A\n"), 0o644)
    assert os.stat(project / "a.txt").st_nlink == 1
    assert after["project/precious.txt"] == (b"precious\n", 0o600)
    assert after["victim.txt"] == untouched["victim.txt"]
    (conflict,) = last_undo(turn).conflicts
    assert conflict.written and conflict.is_shared
    assert "--force replaced this name of the hard link (its other names keep their bytes)" in (
        conflict.reason()
    )


@pytest.mark.parametrize("force", [False, True], ids=["plain", "forced"])
def test_a_directory_swapped_for_a_link_inside_the_root_is_never_written_through(
    project: Path, force: bool
) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "s.txt").write_text("s\n")
    turn = turn_of(project, "never")
    patch = "*** Begin Patch\n*** Update File: sub/s.txt\n@@\n-s\n+S\n*** End Patch"
    assert turn.run(patch, "approve").status == CallStatus.COMPLETED
    # sub becomes a link to another directory of the project holding the same file: read
    # through the link, it is "as the call left it", and the undo would write other/s.txt
    shutil.move(project / "sub", project / "other")
    (project / "sub").symlink_to("other")
    before = snapshot_dir_with_modes(project)
    result = turn.undo(force=force)
    assert result.status == CallStatus.ERROR
    assert f"sub/s.txt is reached through {project}/sub (a symbolic link to other) now" in (
        result.error or ""
    )
    assert "also with --force" in (result.error or "")
    assert snapshot_dir_with_modes(project) == before


# -- items 4 and 8: the magic, the widget and the records -----------------------------------------


class KeptWidget(ApplyPatchWidget):
    made: ClassVar[list[ApplyPatchWidget]] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        KeptWidget.made.append(self)


@pytest.fixture
def widgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ApplyPatchWidget]]:
    KeptWidget.made = []
    monkeypatch.setattr(magic_module, "ApplyPatchWidget", KeptWidget)
    yield KeptWidget.made


def _shown(captured: CapturedIO) -> dict[str, str]:
    """The last rich output that is not a call's record: the undo's own result."""
    outputs = [
        o.data
        for o in captured.outputs
        if "text/html" in o.data and "record" not in o.metadata.get("applypatch_ext", {})
    ]
    assert outputs
    data: dict[str, str] = outputs[-1]
    return data


def _record(captured: CapturedIO, call_id: str) -> dict[str, str]:
    records = [
        o.data
        for o in captured.outputs
        if "record" in o.metadata.get("applypatch_ext", {})
        and o.data["text/plain"].startswith(f"apply_patch {call_id} ")
    ]
    assert records, f"no record of {call_id}"
    data: dict[str, str] = records[-1]
    return data


def _says_what_it_overwrote(views: dict[str, str], edit: str) -> None:
    """Every view of a forced undo's record: what it wrote, what it overwrote; never that
    nothing was written."""
    plain, html = views["text/plain"], views["text/html"]
    markdown = views["text/markdown"].replace("\\", "")  # its punctuation is escaped
    for text in (plain, markdown, html):
        assert "nothing was written" not in text
        assert "Forced undo" in text
        assert "overwrote 1 file(s) changed since the call" in text
        assert "overwritten by --force" in text
        assert "written by the undo" in text
        assert edit in text
    assert "--- before the call (written by the undo)\na\n" in plain
    assert f"--- overwritten by --force\nA\n{edit}" in plain


def test_the_magic_names_the_link_then_a_forced_undo_says_what_it_did(
    ipython: InteractiveShell, project: Path, widgets: list[ApplyPatchWidget]
) -> None:
    with capture_output():
        ipython.run_cell_magic("apply_patch", f"--cwd {project} --exclude-tmp", UPDATE_A)
    swap_for_link(project / "a.txt", "precious.txt")
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_undo", "--no-widget")
    views = _shown(captured)
    markdown = views["text/markdown"].replace("\\", "")  # its punctuation is escaped
    for text in (views["text/plain"], markdown, views["text/html"]):
        assert "now a symbolic link to precious.txt" in text
        assert "(a symbolic link to precious.txt)" in text  # the "now" version
    assert (project / "a.txt").is_symlink()
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_undo", "--no-widget --force")
    views = _shown(captured)
    assert "Forced undo" in views["text/plain"] and "replaced the link" in views["text/plain"]
    assert "nothing was written" not in views["text/plain"]
    assert (project / "a.txt").read_text() == "a\n"
    assert (project / "precious.txt").read_text() == "precious\n"


def test_a_forced_undo_over_a_hand_edit_says_what_it_overwrote_in_every_view(
    ipython: InteractiveShell, project: Path, widgets: list[ApplyPatchWidget]
) -> None:
    with capture_output():
        ipython.run_cell_magic("apply_patch", f"--cwd {project} --exclude-tmp", UPDATE_A)
    (widget,) = widgets
    (project / "a.txt").write_text("A\nmy hand edit\n")
    # the widget's Undo button: a conflict, then its "Overwrite the changed files" way on
    with capture_output():
        widget._handle_custom_msg({"type": "undo", "kind": "undo"}, [])
    last = widget.undo["last"]
    assert last["status"] == "error"
    (way,) = [c for c in last["choices"] if c["message"].get("force")]
    with capture_output() as captured:
        widget._handle_custom_msg(way["message"], [])
    last = widget.undo["last"]
    assert last["status"] == "completed"
    (conflict,) = last["conflicts"]
    assert conflict["forced"] is True and conflict["written"] is True
    assert conflict["reason"].startswith("a.txt was not as the call left it (it was ")
    assert "--force replaced it with the file as it was before the call" in conflict["reason"]
    # the call's saved record (what a reopened notebook and nbconvert show)
    _says_what_it_overwrote(_record(captured, widget.call_id), "my hand edit")
    assert (project / "a.txt").read_text() == "a\n"
    # and the forced undo's own record, by the magic
    (project / "a.txt").write_text("A\nanother edit\n")
    with capture_output():
        ipython.run_line_magic("apply_patch_redo", "--no-widget")  # redo conflicts: a.txt differs
    (project / "a.txt").write_text("a\n")
    with capture_output():
        ipython.run_line_magic("apply_patch_redo", "--no-widget")
    (project / "a.txt").write_text("A\nsecond edit\n")
    with capture_output() as captured:
        ipython.run_line_magic("apply_patch_undo", "--no-widget --force")
    _says_what_it_overwrote(_shown(captured), "second edit")
    assert os.path.isfile(project / "a.txt") and (project / "a.txt").read_text() == "a\n"
