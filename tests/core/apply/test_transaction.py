"""The atomic transaction's journal: roll back to a byte-identical tree."""

from __future__ import annotations

import pytest

from applypatch_ext.core.apply.runtime import apply_hunks
from applypatch_ext.core.apply.transaction import JournalingFilesystem
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.faults import FaultyFilesystem, parse_fault

from ..conftest import Workspace

PATCH = parse_patch(
    "*** Begin Patch\n"
    "*** Add File: new/deep/a.txt\n+a\n"
    "*** Update File: m.txt\n*** Move to: moved/m2.txt\n@@\n-m\n+M\n"
    "*** Delete File: d.txt\n"
    "*** Add File: o.txt\n+over\n"
    "*** Update File: u.txt\n@@\n-u\n+U\n"
    "*** End Patch"
)


def populate(ws: Workspace) -> None:
    ws.put("m.txt", "m\n")
    ws.put("d.txt", "d\n")
    ws.put("o.txt", "old\n")
    ws.put("u.txt", "u\n")


def test_commit_keeps_changes(ws: Workspace) -> None:
    populate(ws)
    journal = JournalingFilesystem(ws.fs)
    assert apply_hunks(PATCH.hunks, ws.root, journal).ok
    journal.commit()
    assert ws.get("moved/m2.txt") == b"M\n"
    assert not journal.changed


@pytest.mark.parametrize("index", range(1, 12))
def test_rollback_after_a_failure_at_every_operation(ws: Workspace, index: int) -> None:
    populate(ws)
    before = ws.tree()
    journal = JournalingFilesystem(ws.fs)
    faulty = FaultyFilesystem(journal, [parse_fault(f"cancel:{index}", ws.root)])
    outcome = apply_hunks(PATCH.hunks, ws.root, faulty)
    journal.rollback()
    assert ws.tree() == before
    assert outcome.error is not None or index > faulty.mutations


def test_rollback_of_a_successful_run_restores_everything(ws: Workspace) -> None:
    populate(ws)
    before = ws.tree()
    journal = JournalingFilesystem(ws.fs)
    assert apply_hunks(PATCH.hunks, ws.root, journal).ok
    assert ws.tree() != before
    journal.rollback()
    assert ws.tree() == before
