"""The ``%%apply_patch`` cell magic, ``%apply_patch FILE`` and the ``%apply_patch_turn`` line
magic.

Errors in the user's input (bad options, a missing ``--cwd``, an unparsable patch with
``--dry-run``) raise exactly ``UsageError``; pipeline failures are not exceptions but statuses,
shown in the widget and in the result object.
"""

from __future__ import annotations

import html
import math
import os
import re
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import (
    argument,
    kwds,
    magic_arguments,
)
from IPython.display import display

from ...core.errors import ApplyPatchError
from ...core.text import plural
from ...core.turn.faults import fault_help
from ...core.turn.options import (
    ASK,
    Answer,
    CallStatus,
    Decision,
    FrontEnd,
    PipelineOptions,
    Stage,
)
from ...core.turn.pacing import StreamPlan, plan_stream
from ...core.turn.result import Stop
from ...core.turn.review import normalize_selection, parse_accept
from ...core.turn.stages import parse_input
from ...core.turn.turn import Turn
from ...exercises import exercise
from ...exercises.document import plain_text
from ...exercises.model import Feedback
from ...exercises.write import WritePatch
from ...markup import md_code, visible
from ...notebooks import front_end_options, tracker_notebook_diffs
from ..live.result import PatchCallResult
from ..live.session import SESSION, summarize_event
from ..live.undo import HOOKS
from ..live.view import CallView, views_of
from ..live.widget import ApplyPatchWidget
from ..records.diffs import turn_diff_files_json, turn_diff_text
from ..records.display import (
    TURN_DIFF_INVALIDATED,
    events_heading,
    render_events_html,
    render_events_plain,
    render_html,
    render_markdown,
    render_plain,
)
from ..records.history import HistoryView
from ..records.record import show_call
from .arguments import CALL_MAGIC_OWN, cwd_option, parse_options, table_arguments
from .undo import undo_whole_turn

#: The longest pause between two deltas (a longer one would only freeze the kernel; ``inf`` or
#: ``1e308`` overflowed time.sleep after the call had started).
MAX_STREAM_DELAY = 60.0


def _options(args: Any, cwd: str) -> PipelineOptions:
    try:
        # an .ipynb must stay a valid notebook (docs/architecture.md, notebook files)
        return front_end_options(cwd, args)
    except (ValueError, ApplyPatchError) as exc:  # an InvalidPathError for a bad root
        raise UsageError(str(exc)) from None


def _answer(args: Any, text: str) -> Answer | None:
    """The fixed answer of ``--approve`` with its ``--accept`` selection or ``--reason``, None
    for ``ask``; UsageError naming what is wrong (checked against the patch before it runs)."""
    accept_specs = list(args.accept or [])
    if args.reason is not None and args.approve != Decision.DECLINE:
        raise UsageError(
            "--reason tells the model why a patch was declined: give it with --approve "
            f"decline, not with --approve {args.approve}"
        )
    if accept_specs and args.approve not in (Decision.APPROVE, Decision.APPROVE_FOR_SESSION):
        raise UsageError(
            "--accept selects what an approval applies: give it with --approve approve or "
            f"--approve approve-for-session, not with --approve {args.approve} (in a "
            "notebook, ask shows a toggle per file and chunk instead)"
        )
    if args.approve == ASK:
        return None
    if not accept_specs:
        return Answer(Decision(args.approve), reason=args.reason)
    try:
        accept = parse_accept(accept_specs)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    parsed = parse_input(text)
    if not isinstance(parsed, Stop):  # an unparsable patch fails in the call, as always
        try:
            normalize_selection(parsed.parsed, accept)
        except ValueError as exc:
            raise UsageError(f"--{exc}") from None
    return Answer(Decision(args.approve), accept=accept)


def _reject_nul(args: Any) -> None:
    """No option may hold a NUL byte: no path can, and no other value is valid with one."""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str) and "\0" in item:
                option = "--" + name.replace("_", "-") if name != "result" else "the result name"
                raise UsageError(
                    f"{option}: {item!r} contains a NUL byte, which no path or option value "
                    "can hold"
                )


def _stream_plan(args: Any, length: int) -> StreamPlan:
    """How the cell streams (``--stream``, ``--stream-chunk``, ``--stream-delay``), or
    UsageError naming the option and what is valid."""
    delay = args.stream_delay
    if delay is not None and (not math.isfinite(delay) or not 0 <= delay <= MAX_STREAM_DELAY):
        raise UsageError(
            f"--stream-delay must be a number of seconds from 0 to {MAX_STREAM_DELAY:g}, "
            f"got {delay!r}"
        )
    try:
        return plan_stream(length, args.stream, chunk=args.stream_chunk, delay=delay)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _check_exercise(args: Any, defaults: dict[str, Any], cell: str) -> Feedback:
    """``--exercise ID``: the cell checked as the answer to that write-a-patch exercise (on
    its files in memory: nothing runs here); UsageError for an unknown exercise, one of
    another kind, or another option beside it (none would apply)."""
    given = args.exercise
    try:
        chosen = exercise(given)
    except KeyError as exc:
        raise UsageError(f"--exercise: {exc.args[0]}") from None
    if not isinstance(chosen, WritePatch):
        raise UsageError(
            f"--exercise {given}: a {chosen.kind} exercise is answered in Python, not with a "
            f"patch: {plain_text(chosen.how_to_answer())}"
        )
    others = [
        "--" + name.replace("_", "-")
        for name, value in vars(args).items()
        if name not in ("exercise", "result") and value != defaults[name]
    ]
    if others:
        raise UsageError(
            f"--exercise checks the cell on the exercise's files in memory; no other option "
            f"applies to it, got {', '.join(others)}"
        )
    return chosen.check(cell)


def _display_text(markdown: str, plain: str | None = None) -> None:
    """A short message, with a plain-text copy for front ends without Markdown."""
    text = markdown.replace("`", "") if plain is None else plain
    display({"text/markdown": markdown, "text/plain": text}, raw=True)


# The first word of a line magic: a quoted string or a run of non-blanks.
_WORD = re.compile(r"""\s*("[^"]*"|'[^']*'|\S+)""")


def _read_patch_file(given: str) -> str:
    """The text of a patch file for ``%apply_patch FILE``; UsageError naming it otherwise."""
    if len(given) >= 2 and given[0] == given[-1] and given[0] in "'\"":
        given = given[1:-1]
    path = Path(os.path.expanduser(given))
    if not path.is_absolute():
        path = Path(os.getcwd()) / path
    where = f"%apply_patch {given}"
    if path.is_dir():
        raise UsageError(f"{where}: {path} is a directory; give the patch file itself")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{where}: no such file: {path}") from None
    except OSError as exc:
        raise UsageError(f"{where}: cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise UsageError(
            f"{where}: {path} is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line}, "
            f"column {column} (offset {exc.start}); a patch file must be UTF-8"
        ) from None


@magics_class
class ApplyPatchMagics(Magics):
    """``%%apply_patch`` runs one Codex apply_patch tool call; ``%apply_patch_turn`` shows the
    turn."""

    @magic_arguments("%apply_patch")  # the cell magic's name, so that the usage reads %%apply_patch
    @kwds(epilog=fault_help())
    @argument(
        "result",
        nargs="?",
        default=None,
        help="Name of a variable in which to store the call's result object.",
    )
    @table_arguments(FrontEnd.MAGIC, CALL_MAGIC_OWN)
    @cell_magic
    def apply_patch(self, line: str, cell: str) -> None:
        """Run the cell body, a patch in the Codex format, as one apply_patch tool call.

        The text streams into a live widget (the planned changes, before anything is
        written), in about a second at most (``--stream model-speed``: at a model's pace;
        ``--stream none``: at once); then the pipeline runs against the working directory:
        parse, verify (read only), safety assessment, FileChange begin, approval, apply (the
        committed delta and its exact flag), FileChange end, and the cumulative TurnDiff of
        the turn.

        By default a patch inside the working directory applies at once and one that reaches
        outside asks first (Approve / Approve for session / Decline buttons); the cell then
        ends in ``awaiting-approval`` and the click resumes the call.

        Example::

            %%apply_patch result
            *** Begin Patch
            *** Add File: hello.txt
            +hello
            *** End Patch
        """
        args = parse_options(self.apply_patch, "%%apply_patch", line)
        _reject_nul(args)
        if args.exercise is not None:
            defaults = vars(parse_options(self.apply_patch, "%%apply_patch", ""))
            feedback = _check_exercise(args, defaults, cell)
            if args.result and self.shell is not None:
                self.shell.user_ns[args.result] = feedback
            display(feedback)
            return
        plan = _stream_plan(args, len(cell))
        if not cell.strip():
            raise UsageError(
                "%%apply_patch: the cell is empty; write a patch starting with '*** Begin Patch'"
            )
        cwd = cwd_option(args.cwd)
        options = _options(args, cwd)
        if args.new_turn:
            SESSION.new_turn()
        turn = SESSION.turn_for(cwd, options)
        call = turn.call(options=options)

        widget = None if args.no_widget else ApplyPatchWidget(dry_run=args.dry_run)
        view = CallView(call, widget, undo=HOOKS, name=args.result or "")
        if widget is not None:
            view.display_handle = show_call(widget)  # the widget and its static record
        approver = _answer(args, cell)
        result = view.stream(
            plan.deltas(cell),
            delay=plan.delay,
            approver=approver,
            dry_run=args.dry_run,
        )
        if args.dry_run and result.status == "error" and result.raw.parsed is None:
            raise UsageError(f"%%apply_patch --dry-run: {result.error}")
        if args.result and self.shell is not None:
            self.shell.user_ns[args.result] = result
        if widget is None:
            display(result)

    @magic_arguments("apply_patch")
    @kwds(
        usage="%(prog)s FILE [result] [options]\n  %%%(prog)s - NAME [result] [options]",
        description="Run a patch kept in a file (or in a str variable) as one apply_patch "
        "tool call: the same call, options and result as the %%apply_patch cell magic, "
        "without pasting the patch into a cell.",
        epilog=fault_help(),
    )
    @argument(
        "source",
        metavar="FILE",
        help="The patch file (UTF-8), relative to the kernel's working directory; or - "
        "followed by NAME, a variable holding the patch as a str.",
    )
    @argument(
        "result",
        nargs="?",
        default=None,
        help="Name of a variable in which to store the call's result object.",
    )
    @table_arguments(FrontEnd.MAGIC, CALL_MAGIC_OWN)
    @line_magic("apply_patch")  # type: ignore[arg-type]  # IPython types the named form badly
    def apply_patch_file(self, line: str) -> None:
        """Run a patch kept in a file, or in a variable, as one apply_patch tool call."""
        usage = "%apply_patch FILE [result] [options], or %apply_patch - NAME [result] [options]"
        first = _WORD.match(line)
        if first is None or (first[1].startswith("-") and first[1] != "-"):
            raise UsageError(f"%apply_patch: the patch comes first: {usage}")
        rest = line[first.end() :]
        if first[1] != "-":
            text = _read_patch_file(first[1])
            where = f"%apply_patch {first[1]}"
        else:
            second = _WORD.match(rest)
            name = "" if second is None else second[1]
            if not name.isidentifier():
                raise UsageError(
                    f"%apply_patch -: give the name of the variable holding the patch: {usage}"
                )
            namespace = self.shell.user_ns if self.shell is not None else {}
            if name not in namespace:
                raise UsageError(f"%apply_patch - {name}: no variable {name!r} is defined")
            text = namespace[name]
            if not isinstance(text, str):
                raise UsageError(
                    f"%apply_patch - {name}: {name} holds a {type(text).__name__}, not a str; "
                    "the patch must be text (decode bytes first)"
                )
            rest = rest[second.end() :] if second is not None else ""
            where = f"%apply_patch - {name}"
        if not text.strip():
            raise UsageError(f"{where}: the patch is empty; a patch starts with '*** Begin Patch'")
        try:
            self.apply_patch(rest, text)
        except UsageError as exc:
            message = str(exc).removeprefix("%%apply_patch").lstrip(": ")
            raise UsageError(f"{where}: {message}") from None

    @magic_arguments()
    @argument("--reset", action="store_true", help="Start a new turn (forget the TurnDiff).")
    @argument(
        "--export",
        metavar="FILE",
        default=None,
        help="Write the TurnDiff to FILE (a .diff that git apply accepts, run in the display "
        "root: the git root or the working directory).",
    )
    @argument("--events", action="store_true", help="Show the whole turn's event timeline.")
    @argument(
        "--undo",
        action="store_true",
        help="Undo every call of the turn, newest first, each as a call of its own (stops at "
        "the first that does not complete: a conflict, an approval to give).",
    )
    @argument(
        "--history",
        action="store_true",
        help="List the turns of the session and their calls: status, files, +/- lines, undone.",
    )
    @line_magic
    def apply_patch_turn(self, line: str) -> None:
        """Show the cumulative TurnDiff of the current turn (or reset, export, show events,
        undo it, list the session's history)."""
        args = parse_options(self.apply_patch_turn, "%apply_patch_turn", line)
        _reject_nul(args)
        if args.undo or args.history:
            if args.undo:
                undo_whole_turn()
            else:
                display(HistoryView(SESSION.turns))
            return
        turn = SESSION.turn
        if args.reset:
            SESSION.new_turn()
            _display_text("A new turn starts: the TurnDiff is empty.")
            return
        diff = "" if turn is None else turn.turn_diff()
        invalidated = turn is not None and not turn.tracker.valid
        if args.export:
            if invalidated:
                raise UsageError(f"--export: {TURN_DIFF_INVALIDATED}")
            target = Path(os.path.expanduser(args.export))
            try:
                target.write_text(diff, encoding="utf-8", newline="")
            except OSError as exc:
                raise UsageError(f"--export: cannot write {target}: {exc.strerror}") from None
            except ValueError as exc:  # a file name that has no byte form (a lone surrogate)
                raise UsageError(f"--export: cannot write {str(target)!r}: {exc}") from None
            count = 0 if turn is None else len(turn.tracker.file_diffs())
            _display_text(
                f"TurnDiff written to {md_code(target)} ({count} file(s)).",
                f"TurnDiff written to {visible(target)} ({count} file(s)).",
            )
            return
        if args.events:
            recorded = [] if turn is None else turn.recorder.to_json()
            events = [{**e, "summary": summarize_event(e)} for e in recorded]
            where = "" if turn is None else turn.cwd
            plain = visible(events_heading(events, where))
            if events:
                plain += "\n" + render_events_plain(events)
            display(
                {"text/html": render_events_html(events, where), "text/plain": plain},
                raw=True,
            )
            return
        state: dict[str, Any] = {
            "call_id": "turn",
            "cwd": "" if turn is None else turn.cwd,
            "stage": Stage.DONE,
            "status": "completed" if diff else "",
            "turn_diff": diff,
            "turn_diff_files": turn_diff_files_json(
                () if turn is None else turn.tracker.file_diffs()
            ),
            "notebooks": {"turn": [] if turn is None else tracker_notebook_diffs(turn.tracker)},
        }
        empty = TURN_DIFF_INVALIDATED if invalidated else "The turn has no changes."
        display(
            {
                "text/html": render_html(state, whole_turn=True)
                if diff
                else f"<p>{html.escape(empty)}</p>",
                "text/markdown": render_markdown(state, whole_turn=True) if diff else empty,
                "text/plain": turn_diff_text(state) if diff else empty,
            },
            raw=True,
        )
        _show_waiting(turn)


def _show_waiting(turn: Turn | None) -> None:
    """The turn's calls that wait for an answer, each as its live view (answerable: a page
    that lost a view, reloaded or left and come back, gets one here) and its record."""
    views = [] if turn is None else views_of(turn)
    waiting = [
        v for v in views if v.result is not None and v.result.status == CallStatus.AWAITING_APPROVAL
    ]
    if not waiting:
        return
    ids = ", ".join(v.call.call_id for v in waiting)
    calls = f"{plural(len(waiting), 'call')} of this turn"
    says = f"wait{'s' if len(waiting) == 1 else ''} for an answer"
    _display_text(f"{calls} {says}: {md_code(ids)}", f"{calls} {says}: {visible(ids)}")
    for view in waiting:
        view.show_again()


__all__ = ["ApplyPatchMagics", "PatchCallResult", "render_plain"]
