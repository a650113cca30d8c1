"""An answer to an approval request is honoured exactly, or refused with a clear error; never
dropped, never taken for another request's (issue 21: items 5, 11, and stale approval messages).

* Item 5: ``%%apply_patch --approve approve --accept a.py:0`` and ``Turn.run(patch,
  Answer(APPROVE, accept=...))`` on a patch the policy would apply without asking: the selection
  implies review, so only what it names is written, and the model is told what was left out.
  A selection that cannot answer (with a decline, for a retry, naming no path of the patch) is a
  ``ValueError`` / exactly ``UsageError``, and nothing is written.
* Item 11: ``decide("decline", reason=5)`` (bytes, a list): ``ValueError``, the call keeps
  waiting; from the widget, the refusal is shown in it.
* Stale messages: every request has a ``request_id`` (``CALL_ID:N``), in the widget's
  ``approval`` trait and in the ``turn`` JSON lines, and every decision names the one it
  answers. A widget message naming another request (a second tab's, after the call asked again)
  or none is refused, visibly, and the call waits for an answer to the request it shows.

All with the real thing: real files, the real IPython shell with the real widget (its messages
delivered as the front end sends them), the ``turn`` command in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.options import Answer, CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.magics import magic as magic_module

from ..trees import snapshot_dir_with_modes
from ._ipython import ipython

__all__ = ["ipython"]  # the fixture

A_PY = "".join(f"line {n}\n" for n in range(1, 21))
#: two chunks of a.py far apart, and a new file: inside the root, so auto-approved
PATCH = (
    "*** Begin Patch\n*** Update File: a.py\n@@\n-line 1\n+LINE 1\n@@\n-line 20\n+LINE 20\n"
    "*** Add File: b.py\n+b\n*** End Patch"
)
#: what a.py:0 applies
ONLY_FIRST = A_PY.replace("line 1\n", "LINE 1\n", 1)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text(A_PY)
    return root


def options(root: Path, **extra: Any) -> PipelineOptions:
    return PipelineOptions.from_strings(str(root), exclude_tmp=True, **extra)


class KeptWidget(ApplyPatchWidget):
    """The real widget, kept where the test can read its traits and send it messages."""

    made: ClassVar[list[ApplyPatchWidget]] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        KeptWidget.made.append(self)


@pytest.fixture
def widgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[ApplyPatchWidget]]:
    KeptWidget.made = []
    monkeypatch.setattr(magic_module, "ApplyPatchWidget", KeptWidget)
    yield KeptWidget.made


def cell(ipython: InteractiveShell, line: str, body: str) -> Any:
    with capture_output():
        ipython.run_cell_magic("apply_patch", f"res {line}", body)
    return ipython.user_ns.pop("res")


def message(widget: ApplyPatchWidget, **content: Any) -> None:
    """A message from the front end, as the comm delivers it."""
    widget._handle_custom_msg({"type": "approval", **content}, [])


# -- item 5: a selection is always honoured ------------------------------------------------------


def test_a_fixed_selection_is_applied_where_the_policy_asks_nothing(project: Path) -> None:
    turn = Turn(str(project), options=options(project))
    result = turn.run(PATCH, Answer(Decision.APPROVE, accept={"a.py": [0]}))
    assert result.status == CallStatus.COMPLETED
    assert snapshot_dir_with_modes(project) == {"a.py": (ONLY_FIRST.encode(), 0o644)}
    assert result.not_applied == (
        "not applied, by the user: a.py chunk 2 of 2",
        "not applied, by the user: b.py",
    )
    assert "not applied, by the user: b.py" in result.output  # the model is told
    events = [e.to_json() for e in result.events]
    kinds = [e["type"] for e in events]
    # it implies review: asked (and answered by the selection), never auto-approved
    (begin,) = [e for e in events if e["type"] == "patch_apply_begin"]
    assert begin["auto_approved"] is False
    assert kinds.count("apply_patch_approval_request") == 1
    (decision,) = [e for e in events if e["type"] == "apply_patch_approval_decision"]
    assert decision["accept"] == {"a.py": [0], "b.py": False}
    assert decision["request_id"] == f"{result.call_id}:1"


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (Answer(Decision.DECLINE, accept={"a.py": [0]}), "give it with approve, not decline"),
        (Answer(Decision.APPROVE, reason="no"), "a reason goes with a decline"),
        (Answer(Decision.DECLINE, reason=b"no"), "reason: give a string"),  # type: ignore[arg-type]
    ],
    ids=["accept-with-decline", "reason-with-approve", "bytes-reason"],
)
def test_a_fixed_answer_no_request_can_take_is_refused_before_anything(
    project: Path, answer: Answer, error: str
) -> None:
    turn = Turn(str(project), options=options(project))
    before = snapshot_dir_with_modes(project)
    with pytest.raises(ValueError, match=error):
        turn.run(PATCH, answer)
    assert snapshot_dir_with_modes(project) == before
    # not even parsed: only the streamed preview (no disk access) came before the refusal
    assert {e.event.type for e in turn.recorder.events} == {"patch_apply_updated"}


def test_a_selection_that_does_not_fit_is_refused_and_the_call_waits(project: Path) -> None:
    turn = Turn(str(project), options=options(project))
    with pytest.raises(ValueError, match=r"'z\.py' is not a path of this patch"):
        turn.run(PATCH, Answer(Decision.APPROVE, accept={"z.py": True}))
    call = turn.calls[-1]
    assert call.result is not None and call.result.status == CallStatus.AWAITING_APPROVAL
    assert (project / "a.py").read_text() == A_PY and not (project / "b.py").exists()
    done = call.resume(Decision.APPROVE, accept={"b.py": True})
    assert done.status == CallStatus.COMPLETED
    assert (project / "a.py").read_text() == A_PY and (project / "b.py").read_text() == "b\n"


def test_an_approvers_selection_for_a_retry_is_refused_not_dropped(project: Path) -> None:
    outside = project.parent / "outside"
    outside.mkdir()
    (project / "link").symlink_to(outside)  # the sandbox denies it: a retry is asked
    text = "*** Begin Patch\n*** Add File: link/x.txt\n+x\n*** End Patch"
    turn = Turn(str(project), options=options(project))
    seen: list[ApplyPatchApprovalRequest] = []

    def approver(request: ApplyPatchApprovalRequest) -> Answer:
        seen.append(request)
        return Answer(Decision.APPROVE, accept={"link/x.txt": True})

    with pytest.raises(ValueError, match="accept answers the first approval request"):
        turn.run(text, approver)
    assert [r.retry for r in seen] == [True]
    call = turn.calls[-1]
    assert call.result is not None and call.result.status == CallStatus.AWAITING_APPROVAL
    assert call.pending_request_id == f"{call.call_id}:1"
    assert list(outside.iterdir()) == []
    assert call.resume(Decision.DECLINE).status == CallStatus.FAILED


def test_the_magic_applies_its_accept_where_the_policy_asks_nothing(
    ipython: InteractiveShell, project: Path, widgets: list[ApplyPatchWidget]
) -> None:
    result = cell(ipython, f"--cwd {project} --approve approve --accept a.py:0", PATCH)
    assert result.status == CallStatus.COMPLETED
    assert snapshot_dir_with_modes(project) == {"a.py": (ONLY_FIRST.encode(), 0o644)}
    (widget,) = widgets
    assert "not applied, by the user: b.py" in widget.stdout
    begin = next(e.event for e in result.raw.events if e.event.type == "patch_apply_begin")
    assert begin.auto_approved is False  # asked (answered by the selection), not auto-approved
    assert [e["type"] for e in widget.events].count("apply_patch_approval_decision") == 1
    with pytest.raises(UsageError) as raised:
        cell(ipython, f"--cwd {project} --approve approve --accept z.py", PATCH)
    assert type(raised.value) is UsageError
    assert "'z.py' is not a path of this patch" in str(raised.value)
    assert snapshot_dir_with_modes(project) == {"a.py": (ONLY_FIRST.encode(), 0o644)}


# -- item 11: a reason is text ---------------------------------------------------------------------


@pytest.mark.parametrize("reason", [5, b"bytes", ["a", "list"]], ids=["int", "bytes", "list"])
def test_a_reason_that_is_not_text_is_refused_and_the_call_waits(
    ipython: InteractiveShell, project: Path, widgets: list[ApplyPatchWidget], reason: Any
) -> None:
    result = cell(ipython, f"--cwd {project} --exclude-tmp --review", PATCH)
    with pytest.raises(ValueError, match=f"reason: give a string .* not {type(reason).__name__}"):
        result.decide("decline", reason=reason)
    assert result.status == CallStatus.AWAITING_APPROVAL
    # the widget: the refusal is shown in it, and the call still waits
    (widget,) = widgets
    message(widget, decision="decline", reason=reason, request=widget.approval["request_id"])
    assert "reason: give a string" in widget.review["error"]
    assert result.status == CallStatus.AWAITING_APPROVAL and widget.approval
    # the library, on the call itself
    call = result._call
    with pytest.raises(ValueError, match="reason: give a string"):
        call.resume("decline", reason=reason)
    assert call.result.status == CallStatus.AWAITING_APPROVAL
    result.decide("decline", reason="not this one")
    assert result.status == CallStatus.DECLINED
    assert result.output.endswith("The user's reason: not this one")
    assert (project / "a.py").read_text() == A_PY


# -- stale approval messages ---------------------------------------------------------------------


def test_a_stale_message_from_another_tab_is_refused_visibly(
    ipython: InteractiveShell, project: Path, widgets: list[ApplyPatchWidget]
) -> None:
    result = cell(ipython, f"--cwd {project} --exclude-tmp --review", PATCH)
    (widget,) = widgets
    first = widget.approval["request_id"]
    assert first == f"{result.call_id}:1"
    # a file changes while the call waits: the first tab's Approve is asked again (request 2)
    (project / "a.py").write_text(A_PY.replace("line 2\n", "line two\n"))
    message(widget, decision="approve", request=first)
    second = widget.approval["request_id"]
    assert second == f"{result.call_id}:2" and "changed while the call waited" in str(
        widget.approval["reason"]
    )
    # the second tab's Approve, sent for the first request, arrives now: refused, shown
    message(widget, decision="approve", request=first)
    assert result.status == CallStatus.AWAITING_APPROVAL
    assert widget.approval["request_id"] == second
    error = widget.review["error"]
    assert f"this answer is for request '{first}'" in error and repr(second) in error
    # a message that names no request is refused too (a script, an old front end)
    message(widget, decision="approve")
    assert "the message names no request" in widget.review["error"]
    assert not (project / "b.py").exists()
    # the answer to the request shown goes through
    message(widget, decision="decline", request=second)
    assert result.status == CallStatus.DECLINED and widget.approval == {}
    raw = [e.to_json() for e in result.raw.events]
    requests = [e["request_id"] for e in raw if e["type"] == "apply_patch_approval_request"]
    decisions = [
        (e["request_id"], e["decision"])
        for e in raw
        if e["type"] == "apply_patch_approval_decision"
    ]
    assert requests == [first, second]
    assert decisions == [(first, "approve"), (second, "decline")]
    assert not (project / "b.py").exists()


def test_a_stale_undo_approval_is_refused_visibly(
    ipython: InteractiveShell, project: Path, widgets: list[ApplyPatchWidget]
) -> None:
    outside = project.parent / "out.txt"
    body = f"*** Begin Patch\n*** Add File: {outside}\n+x\n*** End Patch"
    result = cell(ipython, f"--cwd {project} --exclude-tmp --approve approve", body)
    assert result.status == CallStatus.COMPLETED
    (widget,) = widgets
    widget._handle_custom_msg({"type": "undo", "kind": "undo"}, [])
    last = widget.undo["last"]
    assert last["status"] == "awaiting-approval"  # writing outside the root asks
    request = last["approval"]["request_id"]
    for stale in (f"{request}-old", None):
        content = {"type": "undo-approval", "decision": "approve", "request": stale}
        widget._handle_custom_msg(content, [])
        assert widget.undo["last"]["status"] == "awaiting-approval"
        assert widget.undo["last"]["error"].startswith("not sent: ")
        assert outside.read_text() == "x\n"
    content = {"type": "undo-approval", "decision": "approve", "request": request}
    widget._handle_custom_msg(content, [])
    assert widget.undo["last"]["status"] == "completed" and not outside.exists()


def test_the_turn_commands_lines_pair_every_decision_with_its_request(project: Path) -> None:
    (project / "change.patch").write_text(PATCH)
    command = ["turn", "--cwd", str(project), "--exclude-tmp", "--review", "--approve", "approve"]
    proc = subprocess.run(
        [sys.executable, "-m", "applypatch_ext", *command, str(project / "change.patch")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (request,) = [x for x in lines if x["type"] == "apply_patch_approval_request"]
    (decision,) = [x for x in lines if x["type"] == "apply_patch_approval_decision"]
    assert request["request_id"] == f"{request['call_id']}:1"
    assert decision["request_id"] == request["request_id"]
