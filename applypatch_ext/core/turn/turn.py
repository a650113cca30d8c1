"""The turn: :class:`Turn` holds what lives for one user turn and starts its tool calls
(docs/behaviour.md §6).

A :class:`Turn` holds its environments (named working directories), the
:class:`~.turn_diff.TurnDiffTracker`, the :class:`~.events.EventRecorder`, the paths approved
for the session and its calls. :meth:`Turn.call` starts an :class:`~.call.ApplyPatchCall` (the
call's pipeline, :mod:`.call`); :meth:`Turn.undo` and :meth:`Turn.redo` make an undo or a redo
a call of the turn (:mod:`.undo`). This is the top of the floor: the call and the undo know the
turn only as the parts they use (:class:`~.call.CallTurn`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..apply.fs import Filesystem, LocalFilesystem
from ..interrupts import CancellationToken
from . import undo
from .call import ApplyPatchCall
from .events import Clock, EventRecorder
from .hooks import POST_HOOK_FAILED, PRE_HOOK_FAILED, HookBlock, PostToolUseHook, PreToolUseHook
from .options import Answer, Approver, Decision, PipelineOptions
from .result import CallResult
from .stages import (
    ENVIRONMENT_UNAVAILABLE,
    PATCH_REJECTED,
    REJECTED_BY_USER,
    RETRY_REASON,
    VERIFICATION_FAILED,
)
from .turn_diff import TurnDiffTracker


class Turn:
    """One user turn: environments, TurnDiff tracker, event recorder, session approvals."""

    def __init__(
        self,
        cwd: str | None = None,
        *,
        environments: Mapping[str, str] | None = None,
        options: PipelineOptions | None = None,
        filesystem: Filesystem | None = None,
        clock: Clock = time.monotonic,
        turn_id: str = "turn-1",
        pre_tool_use: PreToolUseHook | None = None,
        post_tool_use: PostToolUseHook | None = None,
        session_approvals: set[tuple[str, str]] | None = None,
    ) -> None:
        if environments:
            self.environments = dict(environments)
        elif cwd is not None:
            self.environments = {"": cwd}
        else:
            raise ValueError("a turn needs a cwd or at least one environment")
        self.primary = next(iter(self.environments))
        self.options = options or PipelineOptions()
        self.fs = filesystem if filesystem is not None else LocalFilesystem()
        self.clock = clock
        self.turn_id = turn_id
        self.recorder = EventRecorder(clock)
        self.tracker = TurnDiffTracker(self.environments, filesystem=self.fs)
        # (environment, path) pairs approved "for session"; pass the same set to every turn of
        # a session so that they outlive the turn, as in Codex.
        self.session_approvals = session_approvals if session_approvals is not None else set()
        self.pre_tool_use = pre_tool_use
        self.post_tool_use = post_tool_use
        self.calls: list[ApplyPatchCall] = []
        self._ids = itertools.count(1)

    @property
    def cwd(self) -> str:
        return self.environments[self.primary]

    @property
    def multi_environment(self) -> bool:
        return len(self.environments) > 1

    def call(
        self,
        *,
        call_id: str | None = None,
        options: PipelineOptions | None = None,
        cancel: CancellationToken | None = None,
        approvals: set[tuple[str, str]] | None = None,
        shell_forms: bool = True,
    ) -> ApplyPatchCall:
        """Start a call whose input will be streamed with ``push_delta``.

        ``approvals``: the "approve for session" grants this call reads and adds to, when they
        are not the turn's (:attr:`session_approvals`): an agent at the desk keeps its own, so
        that it never writes unasked where the person granted a path for their own cells.
        ``shell_forms``: whether the input may be a shell-form invocation (``cd DIR &&
        apply_patch <<'EOF'``), as a cell's and a recorded shell call's may; the desk's tool,
        like Codex's freeform apply_patch, takes a patch only.

        Call ids are unique in a turn: a ``call_id`` an earlier call of the turn has (a session
        file or an agent repeating one, two editors on one turn) is made unique (``x#2``, the
        next free number) and the result says so (``CallResult.requested_call_id``), so that
        an undo by id, or a call's Undo button, can never reach another call.
        """
        unique = self.fresh_call_id() if call_id is None else self.unique_call_id(call_id)
        call = ApplyPatchCall(
            self,
            unique,
            options or self.options,
            cancel or CancellationToken(),
            approvals,
            shell_forms=shell_forms,
        )
        if call_id is not None and unique != call_id:
            call.requested_call_id = call_id
        self.calls.append(call)
        return call

    def unique_call_id(self, wanted: str) -> str:
        """``wanted`` if no call of the turn has it, else ``wanted#N`` with the first N from 2
        that none has."""
        taken = {call.call_id for call in self.calls}
        if wanted not in taken:
            return wanted
        for n in itertools.count(2):
            candidate = f"{wanted}#{n}"
            if candidate not in taken:
                return candidate
        raise AssertionError("unreachable")

    def fresh_call_id(self) -> str:
        """``call-N`` with the next N that no call of the turn has: a call named by its caller
        (a replayed call, an agent's) may have taken it, and two calls never share an id."""
        taken = {call.call_id for call in self.calls}
        while True:
            candidate = f"call-{next(self._ids)}"
            if candidate not in taken:
                return candidate

    def run(
        self,
        patch: str | Iterable[str],
        approver: Approver | Answer | Decision | str | None = None,
        **call_options: Any,
    ) -> CallResult:
        """Feed a whole patch (or an iterable of deltas) as one call and run it."""
        call = self.call(**call_options)
        deltas = [patch] if isinstance(patch, str) else patch
        for delta in deltas:
            call.push_delta(delta)
        return call.run(approver)

    def turn_diff(self) -> str:
        return self.tracker.get_unified_diff() or ""

    # -- undo, redo and the history (docs/behaviour.md §11; the machinery is in .undo) ---------

    def undo(self, call_id: str | None = None, **kwargs: Any) -> CallResult:
        """Undo a call (default: the last one not undone) as a call of this turn."""
        return undo.undo(self, call_id, **kwargs)

    def redo(self, call_id: str | None = None, **kwargs: Any) -> CallResult:
        """Redo what an undo put back (default: the last call undone)."""
        return undo.redo(self, call_id, **kwargs)

    def undo_all(self, **kwargs: Any) -> list[CallResult]:
        """Undo every call of the turn, newest first."""
        return undo.undo_turn(self, **kwargs)


def run_patch(
    patch: str,
    cwd: str,
    *,
    approver: Approver | Answer | Decision | str | None = Decision.APPROVE,
    options: PipelineOptions | None = None,
    filesystem: Filesystem | None = None,
) -> CallResult:
    """One call in a fresh turn: the whole pipeline for a single patch."""
    return Turn(cwd, options=options, filesystem=filesystem).run(patch, approver)


__all__: Sequence[str] = (
    "ENVIRONMENT_UNAVAILABLE",
    "PATCH_REJECTED",
    "POST_HOOK_FAILED",
    "PRE_HOOK_FAILED",
    "REJECTED_BY_USER",
    "RETRY_REASON",
    "VERIFICATION_FAILED",
    "ApplyPatchCall",
    "CallResult",
    "CancellationToken",
    "Decision",
    "HookBlock",
    "PipelineOptions",
    "PostToolUseHook",
    "PreToolUseHook",
    "Turn",
    "run_patch",
)
