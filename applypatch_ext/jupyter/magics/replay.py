"""``%apply_patch_replay``: replay a Codex session file in a notebook, one widget per call.

Every replayed call streams into its own :class:`~..live.widget.ApplyPatchWidget` (through the same
:class:`~..live.view.CallView` as ``%%apply_patch``), and a :class:`ReplayStepper` shows one call
at a time with Previous / Next buttons, a header saying which call of which turn it is and how
it compares with the recording, and the call's widget (its TurnDiff is the turn's, after that
call). :class:`ReplayResult` is what the magic stores in its optional result variable.

Bad input (no such file, no usable directory, no such turn, a bad option) raises exactly
``UsageError``; the file's malformed lines are listed under the stepper, with their numbers.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

import ipywidgets  # type: ignore[import-untyped]
from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from ...core.agents.replay import (
    ReplayedCall,
    ReplayReport,
    load_replay_source,
    replay_cwd,
    replay_rollout,
)
from ...core.agents.rollout import RolloutCall
from ...core.turn.options import Decision, FrontEnd, PipelineOptions
from ...core.turn.result import CallResult
from ...core.turn.turn import Turn
from ...notebooks import front_end_options, with_notebook_check
from ..live.result import PatchCallResult
from ..live.undo import HOOKS
from ..live.view import CallView
from ..live.widget import ApplyPatchWidget
from ..records.display import render_html, render_plain
from ..records.record import live
from .arguments import parse_options, table_arguments

#: How the refusal to replay without ``--cwd`` says to replay into a copy, in a notebook.
REPLAY_INTO_A_COPY = (
    "!cp -a {recorded} /tmp/replay-copy in a cell, then "
    "%apply_patch_replay {file} --cwd /tmp/replay-copy"
)

__all__ = ["ReplayMagics", "ReplayResult", "ReplayStepper", "replay_session"]


def _verdict(replayed: ReplayedCall) -> str:
    agrees = replayed.comparison.agrees
    if agrees is None:
        return "nothing recorded"
    return "agrees" if agrees else "differs"


def _header_text(replayed: ReplayedCall, index: int, total: int, turns: int) -> str:
    call = replayed.call
    comparison = replayed.comparison
    return (
        f"call {index + 1} of {total} ({call.call_id}, {call.call.form} {call.call.name}, "
        f"line {call.line}) - turn {call.turn} of {turns}: recorded "
        f"{comparison.recorded_status}, replayed {comparison.replayed_status}: "
        f"{_verdict(replayed)}"
    )


class ReplayStepper(ipywidgets.VBox):  # type: ignore[misc]
    """Previous / Next through the replayed calls; shows the current call's widget."""

    def __init__(self, source: str) -> None:
        self.previous_button = ipywidgets.Button(description="Previous", icon="arrow-left")
        self.next_button = ipywidgets.Button(description="Next", icon="arrow-right")
        self.header = ipywidgets.HTML(f"<b>replaying {html.escape(source)}</b>")
        self.reasons = ipywidgets.HTML("")
        self.footer = ipywidgets.HTML("")
        self.widgets: list[ApplyPatchWidget] = []
        self.replayed: list[ReplayedCall | None] = []
        self.index = -1
        self.turns = 0
        self.display_handle: Any = None
        self.nav = ipywidgets.HBox([self.previous_button, self.next_button, self.header])
        super().__init__(children=[self.nav, self.reasons, self.footer])
        self.add_class("applypatch-replay")
        self.previous_button.on_click(lambda _button: self.show(self.index - 1))
        self.next_button.on_click(lambda _button: self.show(self.index + 1))
        self._refresh()

    def add(self, widget: ApplyPatchWidget) -> int:
        """A new call's widget (shown at once, so the call streams visibly)."""
        self.widgets.append(widget)
        self.replayed.append(None)
        self.show(len(self.widgets) - 1)
        return len(self.widgets) - 1

    def done(self, index: int, replayed: ReplayedCall) -> None:
        self.replayed[index] = replayed
        self._refresh()

    def show(self, index: int) -> None:
        if not self.widgets:
            return
        self.index = max(0, min(index, len(self.widgets) - 1))
        self._refresh()

    def _refresh(self) -> None:
        total = len(self.widgets)
        self.previous_button.disabled = self.index <= 0
        self.next_button.disabled = self.index >= total - 1
        current = self.current
        if current is None:
            self.reasons.value = ""
        else:
            text = _header_text(current, self.index, total, self.turns)
            self.header.value = f"<b>{html.escape(text)}</b>"
            reasons = current.comparison.reasons
            self.reasons.value = (
                "<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>"
                if reasons and current.comparison.agrees is False
                else ""
            )
        rows = [self.nav, self.reasons]
        if 0 <= self.index < total:
            rows.append(self.widgets[self.index])
        rows.append(self.footer)
        self.children = rows
        if self.display_handle is not None:
            self.display_handle.update(self)

    @property
    def current(self) -> ReplayedCall | None:
        if 0 <= self.index < len(self.replayed):
            return self.replayed[self.index]
        return None

    def _static_state(self) -> dict[str, Any] | None:
        if 0 <= self.index < len(self.widgets):
            return self.widgets[self.index].state_json()
        return None

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data or {})
        state = self._static_state()
        current = self.current
        head = (
            ""
            if current is None
            else _header_text(current, self.index, len(self.widgets), self.turns)
        )
        footer = self.footer.value
        if state is not None:
            data["text/html"] = (
                f"<p><b>{html.escape(head)}</b></p>{self.reasons.value}{render_html(state)}{footer}"
            )
            data["text/plain"] = render_plain(state) + (f"\n{head}" if head else "")
        return data, metadata


class ReplayResult:
    """The replay: its report, one :class:`~..live.result.PatchCallResult` per call, the stepper."""

    def __init__(
        self,
        report: ReplayReport,
        calls: list[PatchCallResult],
        stepper: ReplayStepper | None,
    ) -> None:
        self.report = report
        self.calls = calls
        self.stepper = stepper

    @property
    def summary(self) -> dict[str, Any]:
        return self.report.summary_json()

    @property
    def agree(self) -> int:
        return self.report.agree

    @property
    def differ(self) -> int:
        return self.report.differ

    @property
    def comparisons(self) -> list[dict[str, Any]]:
        """One ``replay_call`` record per call (as the command prints them)."""
        return [call.to_json() for call in self.report.calls]

    @property
    def turn_diffs(self) -> list[str]:
        """The TurnDiff of each replayed turn."""
        return [turn.turn_diff for turn in self.report.turns]

    @property
    def answers(self) -> list[dict[str, Any]]:
        """The output item answering each call, as this pipeline would send it to the model."""
        return [call.answer for call in self.report.calls]

    def show(self, index: int) -> ReplayResult:
        """Step to call ``index`` (0-based) in the stepper."""
        if self.stepper is not None:
            self.stepper.show(index)
        return self

    def _rows(self) -> list[tuple[str, ...]]:
        return [
            (
                str(c.call.turn),
                c.call.call_id,
                f"{c.call.call.form} {c.call.call.name}",
                c.comparison.recorded_status,
                c.comparison.replayed_status,
                _verdict(c),
                "; ".join(c.comparison.reasons) if c.comparison.agrees is False else "",
            )
            for c in self.report.calls
        ]

    def _title(self) -> str:
        s = self.summary
        return (
            f"replay of {s['source']} (Codex {s['cli_version'] or '?'}) in {s['cwd']}: "
            f"{s['calls']} call(s) in {s['turns']} turn(s), {s['agree']} agree, "
            f"{s['differ']} differ, {s['not_recorded']} not recorded"
        )

    def _problem_lines(self) -> list[str]:
        return [f"line {p.line}: {p.message} (skipped)" for p in self.report.rollout.problems]

    def __repr__(self) -> str:
        lines = [self._title()]
        lines += ["  " + " | ".join(row) for row in self._rows()]
        lines += self._problem_lines()
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = ("turn", "call", "form", "recorded", "replayed", "verdict", "why")
        cells = "".join(
            "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row) + "</tr>"
            for row in self._rows()
        )
        problems = "".join(f"<li>{html.escape(p)}</li>" for p in self._problem_lines())
        return (
            f'<div class="applypatch-replay-summary"><p><b>{html.escape(self._title())}</b></p>'
            "<table><tr>"
            + "".join(f"<th>{h}</th>" for h in head)
            + f"</tr>{cells}</table>"
            + (f"<p>Lines skipped:</p><ul>{problems}</ul>" if problems else "")
            + "</div>"
        )


def replay_session(
    source: str,
    *,
    cwd: str | None = None,
    turns: list[int] | None = None,
    approve: str = Decision.DECLINE.value,
    options: PipelineOptions | None = None,
    widget: bool = True,
) -> ReplayResult:
    """Replay ``source`` (a rollout file or a JSON file of items); the magic's Python API.

    Raises ``OSError`` for an unreadable file and :class:`~...core.agents.replay.ReplayError` when
    the replay cannot start.
    """
    rollout = load_replay_source(source)
    directory = replay_cwd(rollout, cwd, how=REPLAY_INTO_A_COPY)
    stepper = ReplayStepper(source) if live(widget) else None
    if stepper is not None:
        stepper.turns = len(rollout.turns) if turns is None else len(turns)
        stepper.display_handle = display(stepper, display_id=True)
        if rollout.problems:
            items = "".join(
                f"<li>line {p.line}: {html.escape(p.message)} (skipped)</li>"
                for p in rollout.problems
            )
            stepper.footer.value = f"<p>Lines of the file skipped:</p><ul>{items}</ul>"
    results: list[PatchCallResult] = []

    def run_call(turn: Turn, call: RolloutCall, text: str) -> CallResult:
        call_widget = None
        if stepper is not None:
            call_widget = ApplyPatchWidget()
            stepper.add(call_widget)
        pipeline_call = turn.call(call_id=call.call_id, shell_forms=call.call.shell_forms)
        view = CallView(pipeline_call, call_widget, undo=HOOKS)
        if call_widget is not None:
            call_widget.title = f"apply_patch {call.call_id} (turn {call.turn}, line {call.line})"
        view.push(text)
        result = view.run(approve)
        results.append(result)
        return result.raw

    def on_call(replayed: ReplayedCall) -> None:
        if stepper is not None:
            stepper.done(len(results) - 1, replayed)

    report = replay_rollout(
        rollout,
        directory,
        options=with_notebook_check(options),
        approver=approve,
        turns=turns,
        run_call=run_call,
        on_call=on_call,
    )
    if stepper is not None:
        stepper.show(0)
    return ReplayResult(report, results, stepper)


@magics_class
class ReplayMagics(Magics):
    """``%apply_patch_replay`` replays a Codex session file."""

    @magic_arguments()
    @argument("source", metavar="ROLLOUT", help="A rollout-*.jsonl file or a JSON file of items.")
    @argument(
        "result",
        nargs="?",
        default=None,
        help="Name of a variable in which to store the replay's result object.",
    )
    @table_arguments(FrontEnd.REPLAY_MAGIC)
    @line_magic
    def apply_patch_replay(self, line: str) -> None:
        """Replay the apply_patch calls of a Codex session file, one pipeline turn per turn.

        Each call streams into its own widget; Previous / Next step through them, each with
        the recorded and the replayed status and, when they differ, why. The session's
        recorded approval policy, sandbox and working directory are not used: the replay runs
        with the options given here (default on-request, workspace-write, approvals declined)
        in the directory of ``--cwd`` (required: a copy of the project as it was before the
        session), with none of this kernel's "approve for session" grants.

        Example::

            %apply_patch_replay data/codex_session.txt replay --cwd project
        """
        try:
            args = parse_options(self.apply_patch_replay, "%apply_patch_replay", line)
        except UsageError as exc:
            raise UsageError(f"%apply_patch_replay: {exc}") from None
        source = os.path.expanduser(args.source)
        cwd = None
        if args.cwd is not None:
            path = Path(os.path.expanduser(args.cwd))
            cwd = str((path if path.is_absolute() else Path(os.getcwd()) / path).resolve())
        try:
            options = front_end_options(cwd or os.getcwd(), args)
            replay = replay_session(
                source,
                cwd=cwd,
                turns=args.turn,
                approve=args.approve,
                options=options,
                widget=not args.no_widget,
            )
        except OSError as exc:
            raise UsageError(f"%apply_patch_replay: cannot read {source}: {exc.strerror}") from None
        except ValueError as exc:  # ReplayError, the options' errors
            raise UsageError(f"%apply_patch_replay: {exc}") from None
        if args.result and self.shell is not None:
            self.shell.user_ns[args.result] = replay
        if args.no_widget:
            display(replay)
