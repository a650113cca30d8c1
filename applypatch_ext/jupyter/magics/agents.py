"""An editor for the OpenAI Agents SDK's ``ApplyPatchTool`` that runs every operation through
this pipeline, with the live widget in a notebook.

The SDK's hosted ``apply_patch`` tool hands its editor one operation at a time
(``create_file`` / ``update_file`` / ``delete_file`` with a ``path`` and a V4A ``diff``; see
``agents.editor.ApplyPatchEditor``). :class:`PipelineEditor` turns each into a Codex patch
(:func:`~applypatch_ext.core.agents.responses.operations_to_patch`) and runs it as one call of its
:class:`~applypatch_ext.core.turn.turn.Turn`: parse, verify (read only), safety, begin, apply,
end, TurnDiff, each call in its own widget when ``widget=True``. The editor returns the SDK's
``ApplyPatchResult`` (``completed`` or ``failed``, and the text the model reads).

Approval maps onto the SDK's hook. :meth:`PipelineEditor.tool` builds the ``ApplyPatchTool``
with ``needs_approval`` = :meth:`PipelineEditor.needs_approval`, which dry-runs the operation
(parse, verify, safety, nothing written) and asks exactly when this pipeline's safety check
would ask (a write outside the writable roots, into ``.git`` ...). With ``approve="ask"`` the
SDK then interrupts the run, as it does for any tool needing approval (``result.interruptions``,
``state.approve(item)`` / ``state.reject(item)``, run again); with a fixed answer or a callable
it answers through the tool's ``on_approval`` hook. A call the SDK approved is approved in the
pipeline too; a call it rejected never reaches the editor. This module needs ``openai-agents``
(the ``agents`` extra; without it, importing it says so).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ...core.agents.responses import field_of, operations_to_patch
from ...core.turn.events import ApplyPatchApprovalRequest
from ...core.turn.options import CallStatus, Decision, PipelineOptions
from ...core.turn.result import CallResult
from ...core.turn.safety import AskUser
from ...core.turn.turn import Turn
from ...extras import missing_extra
from ...notebooks import with_notebook_check
from ..live.result import PatchCallResult
from ..live.undo import HOOKS
from ..live.view import CallView
from ..live.widget import ApplyPatchWidget
from ..records.record import live, show_call

try:
    from agents import ApplyPatchTool
    from agents.editor import ApplyPatchOperation, ApplyPatchResult
except ModuleNotFoundError as exc:  # the `agents` extra is not installed
    raise missing_extra(exc, "agents") from None

__all__ = ["PipelineEditor"]

ApproveAnswer = str | Callable[[ApplyPatchApprovalRequest], Any]


class PipelineEditor:
    """An ``agents.editor.ApplyPatchEditor`` backed by the apply_patch pipeline.

    ``cwd`` is the directory the agent edits (relative operation paths resolve there);
    ``options`` the pipeline's options (default: on-request, workspace-write); ``approve`` is
    ``"ask"`` (the SDK interrupts the run for approval), ``"approve"``, ``"decline"`` or a
    callable receiving the pipeline's approval request and returning one of those. ``widget``
    shows each call's live widget (needs IPython). ``results`` lists every call's result.
    """

    def __init__(
        self,
        cwd: str | None = None,
        *,
        options: PipelineOptions | None = None,
        approve: ApproveAnswer = "ask",
        widget: bool = False,
        turn: Turn | None = None,
    ) -> None:
        if isinstance(approve, str) and approve != "ask":
            Decision(approve)  # a ValueError naming the bad answer
        self.turn = turn or Turn(
            os.path.abspath(cwd or os.getcwd()), options=with_notebook_check(options)
        )
        self.approve = approve
        self.widget = widget
        self.results: list[PatchCallResult] = []
        self._ids = 0
        # id(operation) -> (the operation, kept so that its id is not reused, and the SDK's
        # call id); and the call id of the last needs_approval, for the operations it did not
        # see (the SDK stops asking at the first yes of a call, and does not ask again when a
        # run resumes with an approved call)
        self._operations: dict[int, tuple[ApplyPatchOperation, str]] = {}
        self._current: str | None = None
        # SDK calls needs_approval said yes to: the SDK calls the editor for them only once they
        # are approved (by on_approval, or by state.approve and a new run, which asks no more)
        self._asked: set[str] = set()
        self._runs: dict[str, int] = {}

    @property
    def cwd(self) -> str:
        return self.turn.cwd

    # -- the SDK's approval hook ----------------------------------------------------------------

    def tool(self, **kwargs: Any) -> ApplyPatchTool:
        """The SDK's ``ApplyPatchTool`` with this editor and the approval flow mapped."""
        if self.approve != "ask":
            kwargs.setdefault("on_approval", self.on_approval)
        return ApplyPatchTool(editor=self, needs_approval=self.needs_approval, **kwargs)

    def needs_approval(self, _ctx: Any, operation: ApplyPatchOperation, call_id: str) -> bool:
        """``ApplyPatchTool.needs_approval``: True when the pipeline's safety check would ask
        (the operation is dry-run: parsed, verified and assessed, nothing written)."""
        self._current = call_id
        probe = Turn(
            self.turn.cwd,
            options=with_notebook_check(self.turn.options),
            session_approvals=set(self.turn.session_approvals),
        )
        call = probe.call(call_id=call_id)
        call.push_delta(operations_to_patch([operation], call_id=call_id))
        result = call.dry_run()
        needs = isinstance(result.safety, AskUser)
        self._operations[id(operation)] = (operation, call_id)
        if needs:
            self._asked.add(call_id)
        return needs

    def on_approval(self, _ctx: Any, item: Any) -> dict[str, Any]:
        """``ApplyPatchTool.on_approval``: the fixed answer, or the callable's on a request
        describing the call."""
        raw = getattr(item, "raw_item", None)
        call_id = field_of(raw, "call_id") or ""
        if callable(self.approve):
            operation = field_of(raw, "operation")
            patch = operations_to_patch([operation]) if operation is not None else ""
            request = ApplyPatchApprovalRequest(
                call_id=call_id,
                turn_id=self.turn.turn_id,
                environment_id=None,
                cwd=self.turn.cwd,
                files=(str(field_of(operation, "path")),),
                patch=patch,
                changes={},
                reason=None,
                retry=False,
            )
            answer = Decision(self.approve(request))
        else:
            answer = Decision(self.approve)
        if answer.approved:
            return {"approve": True}
        return {"approve": False, "reason": "patch rejected by user"}

    # -- the editor protocol --------------------------------------------------------------------

    def create_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return self._run(operation)

    def update_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return self._run(operation)

    def delete_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return self._run(operation)

    def _call_id(self, operation: ApplyPatchOperation) -> tuple[str, bool]:
        """The pipeline call id of an operation, and whether the SDK approved its call."""
        entry = self._operations.pop(id(operation), None)
        sdk_id = entry[1] if entry is not None else self._current
        if sdk_id is None:  # the editor used without the tool's hooks
            self._ids += 1
            return f"op-{self._ids}", False
        count = self._runs[sdk_id] = self._runs.get(sdk_id, 0) + 1
        return (sdk_id if count == 1 else f"{sdk_id}#{count}"), sdk_id in self._asked

    def _approver(self, approved: bool) -> Any:
        if approved:
            return Decision.APPROVE
        if self.approve == "ask":
            # The SDK did not ask (the dry run said no) but the call asks anyway (a sandbox
            # denial's retry): nobody can be asked from inside the editor.
            return Decision.DECLINE
        return self.approve

    def _run(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        call_id, approved = self._call_id(operation)
        text = operations_to_patch([operation], call_id=call_id)
        call = self.turn.call(call_id=call_id, options=with_notebook_check(self.turn.options))
        widget = None
        if live(self.widget):
            widget = ApplyPatchWidget()
        view = CallView(call, widget, undo=HOOKS)
        if widget is not None:
            view.display_handle = show_call(widget)  # the widget and its static record
        view.push(text)
        result = view.run(self._approver(approved))
        self.results.append(result)
        return _sdk_result(result.raw)


def _sdk_result(result: CallResult) -> ApplyPatchResult:
    if result.status == CallStatus.COMPLETED:
        return ApplyPatchResult(status="completed", output=result.output)
    return ApplyPatchResult(status="failed", output=result.output)
