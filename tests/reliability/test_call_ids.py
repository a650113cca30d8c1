"""Two calls of one turn never share an id, and an Undo acts on its own call (issue 21, item 12).

Before: ``Turn.call(call_id="x")`` twice, or two ``PipelineEditor`` on one turn (``op-1``
twice), made two calls named alike; undoing by that id, or the second call's Undo button,
undid the first. Now a repeated id is made unique (``x#2``) and the result and the widget's title
say so; the Undo button undoes the call it belongs to, not the first one found by its id.
Real files, the real IPython shell and widgets, the real Agents SDK operations. (A session file
cannot repeat a call id: the reader skips the second call with the line's number.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from agents.editor import ApplyPatchOperation
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.magics import agents as agents_module
from applypatch_ext.jupyter.magics.agents import PipelineEditor

from ._ipython import ipython
from ._sessions import patch

__all__ = ["ipython"]  # the fixture


def add(name: str) -> str:
    return patch(f"*** Add File: {name}", f"+{name}")


def test_a_repeated_call_id_is_made_unique_and_undo_by_id_finds_its_own(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path))
    first = turn.run(add("a.txt"), "approve", call_id="x")
    second = turn.run(add("b.txt"), "approve", call_id="x")
    third = turn.run(add("c.txt"), "approve", call_id="x")
    assert (first.call_id, second.call_id, third.call_id) == ("x", "x#2", "x#3")
    assert (first.requested_call_id, second.requested_call_id) == (None, "x")
    assert second.to_json()["requested_call_id"] == "x"
    # every event of the second call carries its own id
    assert {e.event.call_id for e in second.events if hasattr(e.event, "call_id")} == {"x#2"}
    assert turn.undo("x#2").status == CallStatus.COMPLETED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "c.txt"]
    assert turn.undo("x").status == CallStatus.COMPLETED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]
    # a name already made unique is taken too: x#2 asked for again becomes x#2#2
    assert turn.call(call_id="x#2").call_id == "x#2#2"


def test_two_editors_on_one_turn_keep_their_calls_apart(tmp_path: Path) -> None:
    options = PipelineOptions.from_strings(str(tmp_path), exclude_tmp=True)
    turn = Turn(str(tmp_path), options=options)
    one = PipelineEditor(turn=turn, approve="approve")
    two = PipelineEditor(turn=turn, approve="approve")
    one.create_file(ApplyPatchOperation(type="create_file", path="one.txt", diff="+1\n"))
    two.create_file(ApplyPatchOperation(type="create_file", path="two.txt", diff="+2\n"))
    ids = [r.call_id for r in (*one.results, *two.results)]
    assert ids == ["op-1", "op-1#2"]
    two.results[0].undo(approve="approve")
    assert (tmp_path / "one.txt").read_text() == "1\n" and not (tmp_path / "two.txt").exists()


class KeptWidget(ApplyPatchWidget):
    made: ClassVar[list[ApplyPatchWidget]] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        KeptWidget.made.append(self)


@pytest.fixture
def widgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ApplyPatchWidget]]:
    KeptWidget.made = []
    monkeypatch.setattr(agents_module, "ApplyPatchWidget", KeptWidget)
    yield KeptWidget.made


def test_the_undo_button_of_the_second_op_1_undoes_that_call(
    ipython: InteractiveShell, tmp_path: Path, widgets: list[ApplyPatchWidget]
) -> None:
    turn = Turn(str(tmp_path))
    one = PipelineEditor(turn=turn, approve="approve", widget=True)
    two = PipelineEditor(turn=turn, approve="approve", widget=True)
    with capture_output():
        one.create_file(ApplyPatchOperation(type="create_file", path="one.txt", diff="+1\n"))
        two.create_file(ApplyPatchOperation(type="create_file", path="two.txt", diff="+2\n"))
    first, second = widgets
    assert (first.call_id, second.call_id) == ("op-1", "op-1#2")
    assert second.title == "apply_patch op-1#2 (op-1 is an earlier call's id in this turn)"
    with capture_output():
        second._handle_custom_msg({"type": "undo", "kind": "undo"}, [])
    assert second.undo["last"]["status"] == "completed"
    assert (tmp_path / "one.txt").read_text() == "1\n" and not (tmp_path / "two.txt").exists()
    assert first.undo["can_undo"] is True  # the first call is untouched, still undoable
