"""The agent's desk: an agent's tool calls through the pipeline of a :class:`Turn`, answered by a
person (standard library and the core only; the MCP server and the notebook stand on it).

A :class:`Desk` runs each ``apply_patch`` call as a call of the turn it is given (the
notebook's, by default, so that a person's cells and the agent's calls share one TurnDiff and
one undo history), with the desk's options and its own session approvals (never the ones the
person gave their cells): the client chooses the patch and nothing else. The patch is the
text of Codex's freeform apply_patch tool, read as that tool reads it: a shell-form
``cd DIR && apply_patch <<'EOF'`` (which a cell may send) is an invalid patch here, as there,
and no ``cd`` moves where the paths resolve.
A call that asks for approval waits, in the thread that runs it, until someone answers:

- a person, through :meth:`DeskCall.decide` (the widget's buttons call it too);
- the stdio server, for its client's user (MCP elicitation) or with the desk's fixed policy;
- nobody within ``answer_timeout`` seconds: the call is declined, and the model told so;
- :meth:`Desk.stop`: every waiting call is declined with the reason.

Threads: the turn is not thread-safe, so every step that touches it (a call's pipeline up to
its approval stop, a resume, a dry run, the TurnDiff) runs under the desk's lock, which a front
end running its own calls on the same turn must take too (``Desk.lock``). Waiting for an answer
holds no lock, so several calls wait at once and are answered in any order.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

from ..core.apply.changes import FileAdd, FileDelete, FileUpdate
from ..core.apply.fs import relative_path
from ..core.diagnosis import Diagnosis, Role
from ..core.turn.events import ApplyPatchApprovalRequest
from ..core.turn.options import Accept, Answer, CallStatus, Decision, PipelineOptions
from ..core.turn.result import CallResult
from ..core.turn.safety import AskUser, AutoApprove
from ..core.turn.turn import ApplyPatchCall, Turn
from ..notebooks import with_notebook_check

#: A listener: told each time a call of the desk starts, waits, is answered or ends.
Listener: TypeAlias = Callable[["DeskCall"], None]

#: The reason of a call declined because nobody answered in time (the seconds follow).
NO_ANSWER: Final = "nobody at the desk answered within {seconds:g} seconds"
#: The reason of a call declined because the desk stopped while it waited.
DESK_STOPPED: Final = "the desk was stopped while the call waited for approval"
#: The text of the turn_diff tool when nothing changed yet.
NO_CHANGES: Final = "No changes in this turn yet."
#: The text of the turn_diff tool when the TurnDiff is gone for the rest of the turn.
NO_TURN_DIFF: Final = (
    "The TurnDiff is not available: a change in this turn could not be described exactly (a "
    "write failed midway, or went through a symlink), so it was dropped for the rest of the turn."
)


class DeskStopped(RuntimeError):
    """The desk is stopped: it takes no call."""


class DeskCall:
    """One agent call at the desk: the pipeline's call, and how it is being answered."""

    def __init__(self, desk: Desk, call: ApplyPatchCall, number: int) -> None:
        self.desk = desk
        self.call = call
        self.number = number
        self._answer: Answer | None = None
        self._answered = threading.Event()
        self._done = threading.Event()
        self._settled = threading.Condition(desk.lock)

    @property
    def call_id(self) -> str:
        return self.call.call_id

    @property
    def result(self) -> CallResult | None:
        return self.call.result

    @property
    def status(self) -> CallStatus | None:
        result = self.call.result
        return None if result is None else result.status

    @property
    def pending(self) -> bool:
        """The call waits for an answer that nobody has given yet."""
        return self.status is CallStatus.AWAITING_APPROVAL and self._answer is None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def output(self) -> str:
        """What the model is told (empty until the call ends)."""
        result = self.call.result
        return "" if result is None or not result.status.terminal else result.output

    @property
    def request(self) -> ApplyPatchApprovalRequest | None:
        result = self.call.result
        return None if result is None else result.pending_request

    def decide(
        self,
        decision: Decision | str,
        *,
        accept: Accept | None = None,
        reason: str | None = None,
        request: str | None = None,
    ) -> None:
        """Answer the call's pending request (the call goes on in its own thread).

        ``accept`` approves only some hunks, ``reason`` goes with a decline, ``request`` names
        the request answered (as for :meth:`ApplyPatchCall.resume`). Raises ``ValueError`` for
        an answer the request cannot take (another request's) and ``RuntimeError`` when the
        call is not waiting; the call still waits then.
        """
        self.desk.answer(self, Answer(Decision(decision), accept, reason, request))

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the call ended; False if it has not within ``timeout`` seconds."""
        return self._done.wait(timeout)

    def wait_settled(self, previous: ApplyPatchApprovalRequest | None) -> None:
        """Wait until the call ended or waits, unanswered, on another request than
        ``previous`` (after an answer, while the call's thread resumes it)."""
        with self._settled:
            self._settled.wait_for(
                lambda: self.done or (self.pending and self.request is not previous)
            )

    def __repr__(self) -> str:
        return f"<DeskCall {self.call_id} {self.status or 'starting'}>"


@dataclass(frozen=True)
class Verified:
    """What verify_patch found: the dry run's result, and whether apply_patch would ask."""

    result: CallResult
    asks: bool


class Desk:
    """An agent's calls through the pipeline of a turn, answered by a person.

    ``turn`` is the turn to run in, or a function returning the current one (a notebook may
    start a new turn between two calls). ``options`` are the desk's: they hold its sandbox and
    approval policy, and no call can change them; an ``.ipynb`` must stay a valid notebook
    (:func:`~applypatch_ext.notebooks.with_notebook_check`, unless they carry a content
    validator of their own). ``approvals`` are the desk's own "approve
    for session" grants: given to its calls, they hold for its later calls while it lives; the
    grants the turn holds for the person's own cells are not the agent's (a path granted there
    is asked again when the agent writes it).
    """

    def __init__(
        self,
        turn: Turn | Callable[[], Turn],
        *,
        options: PipelineOptions | None = None,
        answer_timeout: float = 300.0,
        lock: threading.RLock | None = None,
    ) -> None:
        self._turn = turn if callable(turn) else (lambda: turn)
        self.options = with_notebook_check(options if options is not None else self._turn().options)
        self.answer_timeout = answer_timeout
        self.lock = lock if lock is not None else threading.RLock()
        self.calls: list[DeskCall] = []
        self.approvals: set[tuple[str, str]] = set()
        self._listeners: list[Listener] = []
        self._numbers = itertools.count(1)
        self._stopped: str | None = None

    @property
    def turn(self) -> Turn:
        return self._turn()

    @property
    def cwd(self) -> str:
        return self.turn.cwd

    @property
    def stopped(self) -> bool:
        return self._stopped is not None

    @property
    def pending(self) -> list[DeskCall]:
        with self.lock:
            return [call for call in self.calls if call.pending]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` as each call starts, waits, is answered and ends; returns the
        function that unsubscribes it. A listener runs in the call's thread, under no lock."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _tell(self, call: DeskCall) -> None:
        for listener in list(self._listeners):
            listener(call)

    # -- apply_patch --------------------------------------------------------------------------

    def start(self, patch: str) -> DeskCall:
        """Start an apply_patch call and run it until it ends or waits for approval."""
        with self.lock:
            if self._stopped is not None:
                raise DeskStopped(f"the desk is stopped: {self._stopped}")
            turn = self.turn
            pipeline_call = turn.call(
                options=self.options, approvals=self.approvals, shell_forms=False
            )
            call = DeskCall(self, pipeline_call, next(self._numbers))
            self.calls.append(call)
            self.feed(call, patch)
            call.call.run(None)
        self._settle(call)
        return call

    def feed(self, call: DeskCall, patch: str) -> None:
        """Give the call its input (a front end that shows the call streams it to its view)."""
        call.call.push_delta(patch)

    def wait_for_answer(self, call: DeskCall) -> Answer:
        """Block until the waiting call has its answer: a person's (or a server's for its
        client's user), the timeout's decline or the stop's. Holds no lock while it waits."""
        if not call._answered.wait(self.answer_timeout):
            timeout = NO_ANSWER.format(seconds=self.answer_timeout)
            self._give(call, Answer(Decision.DECLINE, reason=timeout))
        answer = call._answer
        assert answer is not None
        return answer

    def resume(self, call: DeskCall) -> DeskCall:
        """Go on with the answer given; the call may wait again (a file changed meanwhile, a
        selection asks for itself)."""
        with self.lock:
            answer = call._answer
            assert answer is not None, "resume() needs an answer"
            call._answer = None
            call._answered.clear()
            call.call.resume(
                answer.decision, accept=answer.accept, reason=answer.reason, request=answer.request
            )
        self._settle(call)
        return call

    def apply_patch(self, patch: str) -> DeskCall:
        """A whole call in this thread: start, then wait for each answer and resume."""
        call = self.start(patch)
        self.drive(call)
        return call

    def answer(self, call: DeskCall, answer: Answer) -> None:
        """A person's answer to a waiting call (:meth:`DeskCall.decide`)."""
        with self.lock:
            if call.status is not CallStatus.AWAITING_APPROVAL:
                raise RuntimeError(f"call {call.call_id} is not waiting for approval")
            if call._answer is not None:
                raise RuntimeError(f"call {call.call_id} has been answered already")
            call.call.check_answer(answer)
            self._give(call, answer)
        self._tell(call)

    def _give(self, call: DeskCall, answer: Answer) -> None:
        """Record the first answer to the pending request (a later one is ignored)."""
        with self.lock:
            if call._answer is None and call.status is CallStatus.AWAITING_APPROVAL:
                call._answer = answer
                call._answered.set()

    def _settle(self, call: DeskCall) -> None:
        """After a step of the call (its start, a resume): the listeners first (a person who
        waits for the step reads what they show), then the call is done or waits (declined at
        once when the desk stopped meanwhile)."""
        self._tell(call)
        with self.lock:
            if call.status is not CallStatus.AWAITING_APPROVAL:
                call._done.set()
            elif self._stopped is not None:
                self._give(call, Answer(Decision.DECLINE, reason=self._stopped))
            call._settled.notify_all()

    def drive(self, call: DeskCall) -> None:
        """Wait for each answer and resume, until the call ends (a call's own thread)."""
        while not call.done:
            self.wait_for_answer(call)
            self.resume(call)

    # -- the other tools ----------------------------------------------------------------------

    def verify_patch(self, patch: str) -> Verified:
        """A dry run in a scratch turn over the same folder and files, with the desk's session
        approvals: nothing is written, and the turn's history does not list it."""
        with self.lock:
            turn = self.turn
            scratch = Turn(
                environments=turn.environments,
                options=self.options,
                filesystem=turn.fs,
                session_approvals=set(self.approvals),
            )
            call = scratch.call(shell_forms=False)
            call.push_delta(patch)
            result = call.dry_run()
        asks = self.options.review or isinstance(result.safety, AskUser)
        return Verified(result, asks)

    def turn_diff(self) -> str:
        """The text of the turn_diff tool."""
        with self.lock:
            turn = self.turn
            if not turn.tracker.valid:
                return NO_TURN_DIFF
            return turn.turn_diff() or NO_CHANGES

    # -- stopping -----------------------------------------------------------------------------

    def stop(self, reason: str = DESK_STOPPED, *, wait: float | None = 10.0) -> list[DeskCall]:
        """Take no more calls and decline every waiting one with ``reason``; wait up to
        ``wait`` seconds for them to end (their threads resume them). Returns them."""
        with self.lock:
            self._stopped = reason
            waiting = [call for call in self.calls if not call.done]
            for call in waiting:
                self._give(call, Answer(Decision.DECLINE, reason=reason))
        for call in waiting:
            call.wait(wait)
        return waiting


def _atlas_lines(role: Role, diagnosis: Diagnosis) -> list[str]:
    """A diagnosis or a warning of the failure atlas, for the model, in the diagnosis's own
    words: its kind, where it points, its sentence and the suggested patch text, unindented
    so that the model may send it itself."""
    return ["", *diagnosis.describe(role, indent="")]


def verify_text(verified: Verified, cwd: str) -> str:
    """The text of the verify_patch tool: the changes and the approval it would need, or why
    the patch does not apply (the closest lines of the file, the failure atlas's diagnosis);
    the atlas's warnings of a patch that applies."""
    result = verified.result
    if result.status is not CallStatus.DRY_RUN:
        lines = [result.output]
        if result.explanation is not None:
            lines += ["", *result.explanation.describe()]
        if result.diagnosis is not None:
            lines += _atlas_lines(Role.DIAGNOSIS, result.diagnosis)
        lines += ["", "Nothing was written."]
        return "\n".join(lines)
    if isinstance(result.safety, AutoApprove) and not verified.asks:
        header = "The patch applies cleanly: apply_patch would write it at once."
    else:
        header = "The patch applies cleanly: apply_patch would ask the person at the desk first."
    lines = [header, "Nothing was written."]
    for warning in result.warnings:
        lines += _atlas_lines(Role.WARNING, warning)
    lines.append("")
    assert result.proposed is not None
    for path, change in result.proposed.changes.items():
        shown = relative_path(path, cwd)
        match change:
            case FileAdd(content=content):
                lines.append(f"A {shown}")
                lines += [f"+{line}" for line in content.splitlines()]
            case FileDelete():
                lines.append(f"D {shown}")
            case FileUpdate(unified_diff=diff, move_path=move_path):
                target = "" if move_path is None else f" -> {relative_path(move_path, cwd)}"
                lines.append(f"M {shown}{target}")
                lines.append(diff.rstrip("\n"))
    return "\n".join(lines) + "\n"
