"""An agent at the desk has no grant of the person's (the same flaw as issue 21 item 3, for a
live agent): the person approved a path outside the folder "for the session" for their own
cells; the agent's patch to that path, through the real ``mcp`` client, is asked about, and
the desk's own "approve for session" holds for the agent's later calls only, not for the
person's cells, and ends with the desk."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio

from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.desk.desk import Desk

from .conftest import http_client, serving, text_of


def add(path: Path, text: str) -> str:
    return f"*** Begin Patch\n*** Add File: {path}\n+{text}\n*** End Patch\n"


def test_the_agent_never_writes_unasked_where_the_person_granted_a_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    granted, other = tmp_path / "granted.txt", tmp_path / "other.txt"
    options = PipelineOptions.from_strings(str(project), exclude_tmp=True)
    turn = Turn(str(project), options=options)  # the notebook's turn
    mine = turn.run(add(granted, "the person's"), Decision.APPROVE_FOR_SESSION)
    assert mine.status == CallStatus.COMPLETED and turn.session_approvals
    desk = Desk(turn, options=options)
    answers = {str(granted): "decline", str(other): "approve-for-session"}
    asked: list[tuple[str, ...]] = []
    done = threading.Event()

    def person() -> None:  # answers each agent call as it comes, until the agent is done
        while not done.is_set():
            for call in desk.pending:
                assert call.request is not None
                asked.append(call.request.files)
                call.decide(answers[call.request.files[0]])
            done.wait(0.005)

    async def agent() -> list[str]:
        with serving(desk) as server:
            async with http_client(server) as client:
                return [
                    text_of(await client.call_tool("apply_patch", {"patch": patch}))
                    for patch in (
                        add(granted, "the agent's"),  # the person's grant: asked, declined
                        add(other, "the agent's"),  # asked, granted to the desk
                        add(other, "again"),  # the desk's own grant: not asked
                    )
                ]

    answering = threading.Thread(target=person)
    answering.start()
    try:
        texts = anyio.run(agent)
    finally:
        done.set()
        answering.join()
    assert asked == [(str(granted),), (str(other),)]
    assert texts[0] == "patch rejected by user"
    assert texts[2].startswith("Exit code: 0\n") and other.read_text() == "again\n"
    assert granted.read_text() == "the person's\n"
    # the agent's grant is the desk's: the person's next cell to that path asks
    assert (turn.session_approvals, desk.approvals) == (
        {("", str(granted))},
        {("", str(other))},
    )
    again = turn.run(add(other, "the person's"), None)
    assert again.status == CallStatus.AWAITING_APPROVAL
