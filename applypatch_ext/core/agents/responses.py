"""OpenAI Responses API items and stream events <-> apply_patch tool calls of the pipeline.

A model asks for a patch in one of three forms, each answered with its own output item:

* the custom (freeform) tool: a ``custom_tool_call`` named ``apply_patch`` whose ``input`` is the
  patch, answered with a ``custom_tool_call_output``;
* the function tool: a ``function_call`` named ``apply_patch`` whose ``arguments`` are the JSON
  ``{"input": "<patch>"}``, answered with a ``function_call_output``; its
  ``response.function_call_arguments.delta`` events are decoded incrementally
  (:class:`ArgumentsInputDecoder`) so the preview streams as the arguments arrive;
* the built-in ``apply_patch`` tool: an ``apply_patch_call`` whose ``operation`` (or
  ``operations``) is ``create_file`` / ``update_file`` / ``delete_file`` with a ``path`` and a
  V4A ``diff``, converted to one Codex patch (:func:`operations_to_patch`) and answered with an
  ``apply_patch_call_output`` (``status`` completed or failed, and ``output``).

A shell call is an apply_patch call too when its command is an apply_patch invocation
(docs/behaviour.md §1.3): a ``function_call`` named ``shell`` or ``container.exec`` (``command``
argv), ``shell_command`` (``command`` string) or ``exec_command`` (``cmd`` string), or a
``local_shell_call`` (its ``action.command``), each with an optional working directory. Such a call
is answered with a ``function_call_output`` (``local_shell_call_output`` for the local shell).

Items are read duck-typed: plain dicts, or the ``openai`` package's typed objects (any object
with the same attributes). This module never imports ``openai``; nothing here touches the disk.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..parse.invocation import (
    ApplyPatchInvocation,
    ImplicitInvocation,
    InvocationParseError,
    maybe_parse_apply_patch,
)
from ..turn.options import Approver, CallStatus, Decision
from ..turn.result import CallResult
from ..turn.turn import Turn
from ._arguments import ArgumentsInputDecoder, ResponseItemError
from ._json import loads as json_loads

__all__ = [
    "APPLY_PATCH",
    "SHELL_TOOLS",
    "ArgumentsInputDecoder",
    "PatchCall",
    "ResponseItemError",
    "calls_from_items",
    "field_of",
    "iter_patch_deltas",
    "operations_to_patch",
    "output_item",
    "patch_call_from_item",
    "run_item",
    "run_stream",
]

APPLY_PATCH: Final = "apply_patch"
#: Function tools whose command may be an apply_patch invocation, with the argument holding it.
SHELL_TOOLS: Final = {
    "shell": "command",
    "container.exec": "command",
    "shell_command": "command",
    "exec_command": "cmd",
}

CUSTOM_DELTA: Final = "response.custom_tool_call_input.delta"
CUSTOM_DONE: Final = "response.custom_tool_call_input.done"
ARGUMENTS_DELTA: Final = "response.function_call_arguments.delta"
ARGUMENTS_DONE: Final = "response.function_call_arguments.done"
ITEM_ADDED: Final = "response.output_item.added"


def field_of(item: Any, name: str) -> Any:
    """``item[name]`` for a mapping, ``item.name`` for an object; None when absent."""
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


@dataclass(frozen=True)
class PatchCall:
    """One apply_patch tool call read from a Responses API item.

    ``form`` is ``freeform`` (custom tool), ``function`` (function tool), ``shell`` (a shell
    command that invokes apply_patch) or ``operations`` (the built-in tool). ``text`` is what
    the pipeline is given: the patch, or for a shell call a command line that
    :func:`~..parse.invocation.parse_command_line` reads as the same invocation. ``command`` is the
    shell call's argv and ``workdir`` its tool-level working directory (relative paths resolve
    against the session's directory).
    """

    call_id: str
    item_type: str
    name: str
    form: str
    text: str
    command: tuple[str, ...] | None = None
    workdir: str | None = None
    item_id: str | None = None

    @property
    def shell_forms(self) -> bool:
        """Whether the text may be a shell command: for a shell call only (Codex's apply_patch
        tools refuse ``apply_patch <<'EOF'`` or ``cd DIR && ...`` as an invalid patch)."""
        return self.form == "shell"

    @property
    def output_type(self) -> str:
        if self.item_type == "custom_tool_call":
            return "custom_tool_call_output"
        if self.item_type == "apply_patch_call":
            return "apply_patch_call_output"
        if self.item_type == "local_shell_call":
            return "local_shell_call_output"
        return "function_call_output"

    def pipeline_text(self, recorded_cwd: str | None = None) -> str:
        """The text for the pipeline, with the shell call's working directory folded in.

        The tool's ``workdir`` and the script's ``cd DIR`` combine into one ``cd``; an absolute
        directory inside ``recorded_cwd`` (the session's directory) becomes relative to it, so
        that a replay elsewhere writes into its own directory.
        """
        if self.command is None:
            return self.text
        invocation = maybe_parse_apply_patch(self.command)
        if not isinstance(invocation, ApplyPatchInvocation):
            return self.text
        directory = self.workdir
        if invocation.workdir is not None:
            directory = (
                invocation.workdir
                if directory is None
                else posixpath.join(directory, invocation.workdir)
            )
        if directory is not None and recorded_cwd is not None:
            directory = _relative_to(directory, recorded_cwd)
        if directory is None or directory == invocation.workdir:
            return self.text
        if directory == ".":
            return invocation.parsed.patch
        return heredoc_command(invocation.parsed.patch, directory)


def _relative_to(directory: str, root: str) -> str:
    if posixpath.isabs(directory):
        root = root.rstrip("/") or "/"
        if directory == root:
            return "."
        if directory.startswith(root + "/"):
            return directory[len(root) + 1 :]
    return directory


_CD_REFUSED: Final = set("'$`\\*?[]{}")


def heredoc_command(patch: str, directory: str) -> str:
    """``cd DIR && apply_patch <<'DELIM'`` around ``patch``, with a delimiter it does not hold."""
    if not directory or directory.startswith(("-", "~")) or _CD_REFUSED & set(directory):
        raise ResponseItemError(
            f"cannot replay in working directory {directory!r}: it must not be empty, start "
            "with '-' or '~', or contain quotes, '$', '`', '\\' or glob characters"
        )
    lines = set(patch.split("\n"))
    delimiter = "EOF"
    counter = 0
    while delimiter in lines:
        counter += 1
        delimiter = f"EOF{counter}"
    return f"cd '{directory}' && apply_patch <<'{delimiter}'\n{patch}\n{delimiter}\n"


def _escape_double_quoted(text: str) -> str:
    return "".join("\\" + c if c in '\\"$`' else c for c in text)


def _command_text(argv: tuple[str, ...]) -> str:
    """A command line that :func:`~..parse.invocation.parse_command_line` splits back into
    ``argv``."""
    if len(argv) == 2 and argv[0] in ("apply_patch", "applypatch"):
        return argv[1]
    if len(argv) == 1:
        return f'bash -lc "{_escape_double_quoted(argv[0])}"'
    *words, script = argv
    return " ".join(words) + f' "{_escape_double_quoted(script)}"'


def _arguments(item: Any) -> dict[str, Any]:
    raw = field_of(item, "arguments")
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise ResponseItemError(f"function_call {field_of(item, 'name')!r}: no arguments string")
    try:
        value = json_loads(raw)
    except ValueError as exc:
        raise ResponseItemError(
            f"function_call {field_of(item, 'name')!r}: arguments are not JSON ({exc})"
        ) from None
    if not isinstance(value, dict):
        raise ResponseItemError(
            f"function_call {field_of(item, 'name')!r}: arguments must be a JSON object, "
            f"got {type(value).__name__}"
        )
    return value


def _shell_argv(name: str, arguments: Mapping[str, Any]) -> tuple[str, ...] | None:
    key = SHELL_TOOLS[name]
    command = arguments.get(key)
    if name in ("shell_command", "exec_command"):
        if not isinstance(command, str):
            return None
        shell = arguments.get("shell")
        program = shell if isinstance(shell, str) and shell else "bash"
        flag = "-c" if arguments.get("login") is False else "-lc"
        return (program, flag, command)
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        return tuple(command)
    return None


def _shell_call(
    item: Any, call_id: str, item_type: str, name: str, argv: tuple[str, ...], workdir: Any
) -> PatchCall | None:
    invocation = maybe_parse_apply_patch(argv)
    if not isinstance(invocation, ApplyPatchInvocation | InvocationParseError | ImplicitInvocation):
        return None
    return PatchCall(
        call_id=call_id,
        item_type=item_type,
        name=name,
        form="shell",
        text=_command_text(argv),
        command=argv,
        workdir=workdir if isinstance(workdir, str) and workdir else None,
        item_id=field_of(item, "id"),
    )


def patch_call_from_item(item: Any, *, shell: bool = True) -> PatchCall | None:
    """The apply_patch call an output item makes, or None when it makes none.

    Raises :class:`ResponseItemError` for an item named ``apply_patch`` that cannot be read
    (no call id, arguments that are not JSON, no ``input``, an unknown operation).
    ``shell=False`` leaves shell commands alone.
    """
    item_type = field_of(item, "type")
    name = field_of(item, "name")
    call_id = field_of(item, "call_id")
    if item_type == "local_shell_call" and shell:
        action = field_of(item, "action")
        command = field_of(action, "command")
        if not isinstance(command, list):
            return None
        call_id = call_id or field_of(item, "id")
        if not isinstance(call_id, str):
            raise ResponseItemError("local_shell_call without a call_id")
        workdir = field_of(action, "working_directory")
        return _shell_call(item, call_id, item_type, "local_shell", tuple(command), workdir)
    if item_type not in ("custom_tool_call", "function_call", "apply_patch_call"):
        return None
    if item_type == "function_call" and name in SHELL_TOOLS:
        if not shell:
            return None
        arguments = _arguments(item)
        argv = _shell_argv(name, arguments)
        if argv is None:
            return None
        if not isinstance(call_id, str):
            raise ResponseItemError(f"function_call {name!r} without a call_id")
        return _shell_call(item, call_id, item_type, name, argv, arguments.get("workdir"))
    if item_type != "apply_patch_call" and name != APPLY_PATCH:
        return None
    if not isinstance(call_id, str) or not call_id:
        raise ResponseItemError(f"{item_type} {APPLY_PATCH!r} without a call_id")
    item_id = field_of(item, "id")
    if item_type == "custom_tool_call":
        text = field_of(item, "input")
        if not isinstance(text, str):
            raise ResponseItemError(f"custom_tool_call {call_id}: 'input' must be a string")
        return PatchCall(call_id, item_type, APPLY_PATCH, "freeform", text, item_id=item_id)
    if item_type == "function_call":
        text = _arguments(item).get("input")
        if not isinstance(text, str):
            raise ResponseItemError(
                f'function_call {call_id}: arguments must be {{"input": "<patch>"}}'
            )
        return PatchCall(call_id, item_type, APPLY_PATCH, "function", text, item_id=item_id)
    operations = field_of(item, "operations")
    if operations is None:
        operation = field_of(item, "operation")
        if operation is None:
            raise ResponseItemError(f"apply_patch_call {call_id}: no 'operation'")
        operations = [operation]
    text = operations_to_patch(operations, call_id=call_id)
    return PatchCall(call_id, item_type, APPLY_PATCH, "operations", text, item_id=item_id)


def operations_to_patch(operations: Iterable[Any], *, call_id: str = "") -> str:
    """The built-in tool's operations as one Codex patch.

    ``create_file`` becomes ``*** Add File`` (its V4A diff is the ``+``-prefixed content),
    ``update_file`` ``*** Update File`` (with ``*** Move to`` for ``move_to``; the V4A hunks are
    the Codex hunks), ``delete_file`` ``*** Delete File``.
    """
    where = f"apply_patch_call {call_id}: " if call_id else ""
    lines = ["*** Begin Patch"]
    for index, operation in enumerate(operations, 1):
        kind = field_of(operation, "type")
        path = field_of(operation, "path")
        if not isinstance(path, str) or not path:
            raise ResponseItemError(f"{where}operation {index} has no path")
        diff = field_of(operation, "diff")
        if kind in ("create_file", "update_file") and not isinstance(diff, str):
            raise ResponseItemError(f"{where}operation {index} ({kind} {path}) has no diff")
        body = diff.replace("\r\n", "\n").rstrip("\n").split("\n") if diff else []
        if kind == "create_file":
            lines.append(f"*** Add File: {path}")
            lines.extend(body)
        elif kind == "update_file":
            lines.append(f"*** Update File: {path}")
            move_to = field_of(operation, "move_to")
            if isinstance(move_to, str) and move_to:
                lines.append(f"*** Move to: {move_to}")
            lines.extend(body)
        elif kind == "delete_file":
            lines.append(f"*** Delete File: {path}")
        else:
            raise ResponseItemError(
                f"{where}operation {index} has type {kind!r}; valid: create_file, update_file, "
                "delete_file"
            )
    lines.append("*** End Patch")
    return "\n".join(lines)


def output_item(call: PatchCall, result: CallResult) -> dict[str, Any]:
    """The output item answering ``call``, ready to send back to the model."""
    kind = call.output_type
    if kind == "apply_patch_call_output":
        return {
            "type": kind,
            "call_id": call.call_id,
            "status": "completed" if result.status == CallStatus.COMPLETED else "failed",
            "output": result.output,
        }
    if kind == "local_shell_call_output":
        return {"type": kind, "id": call.call_id, "output": result.output}
    return {"type": kind, "call_id": call.call_id, "output": result.output}


# --- streaming -------------------------------------------------------------------------------


def iter_patch_deltas(events: Iterable[Any]) -> Iterator[str]:
    """The patch text of the first apply_patch call in a Responses API event stream, in deltas.

    Strings pass as they are. Custom tool calls stream through
    ``response.custom_tool_call_input.delta``; function-tool calls named ``apply_patch``
    (announced by ``response.output_item.added``) through
    ``response.function_call_arguments.delta``, decoded incrementally. The first such event
    fixes the call followed (its ``item_id``); other calls' events are skipped and the call's
    ``...done`` event ends the stream. Any other event is skipped.
    """
    followed: Any = None
    function_items: set[Any] = set()
    decoder: ArgumentsInputDecoder | None = None
    for event in events:
        if isinstance(event, str):
            yield event
            continue
        kind = field_of(event, "type")
        if kind == ITEM_ADDED:
            item = field_of(event, "item")
            if field_of(item, "type") == "function_call" and field_of(item, "name") == APPLY_PATCH:
                function_items.add(field_of(item, "id"))
            continue
        if kind in (CUSTOM_DELTA, CUSTOM_DONE):
            item_id = field_of(event, "item_id")
            if followed is None:
                followed = item_id if item_id is not None else object()
            elif item_id is not None and item_id != followed:
                continue
            if kind == CUSTOM_DONE:
                return
            delta = field_of(event, "delta")
            if not isinstance(delta, str):
                raise ResponseItemError(f"{CUSTOM_DELTA} event without a string 'delta'")
            yield delta
        elif kind in (ARGUMENTS_DELTA, ARGUMENTS_DONE):
            item_id = field_of(event, "item_id")
            if item_id not in function_items:
                continue
            if followed is None:
                followed = item_id
                decoder = ArgumentsInputDecoder()
            elif item_id != followed or decoder is None:
                continue
            if kind == ARGUMENTS_DONE:
                text = decoder.close()
                streamed = decoder.decoded
                if text.startswith(streamed) and len(text) > len(streamed):
                    yield text[len(streamed) :]
                elif text != streamed:
                    raise ResponseItemError(
                        "the streamed function call arguments do not decode to their final 'input'"
                    )
                return
            delta = field_of(event, "delta")
            if not isinstance(delta, str):
                raise ResponseItemError(f"{ARGUMENTS_DELTA} event without a string 'delta'")
            piece = decoder.feed(delta)
            if piece:
                yield piece


def calls_from_items(items: Sequence[Any]) -> list[PatchCall]:
    """Every apply_patch call among ``items``, in order (:func:`patch_call_from_item`)."""
    calls = []
    for item in items:
        call = patch_call_from_item(item)
        if call is not None:
            calls.append(call)
    return calls


def run_item(
    turn: Turn, item: Any, approver: Approver | Decision | str
) -> tuple[CallResult, dict[str, Any]] | None:
    """Run the apply_patch call an output item makes (None when it makes none) as one call of
    ``turn``, with its ``call_id``; returns the result and the output item answering it."""
    call = patch_call_from_item(item)
    if call is None:
        return None
    result = turn.run(
        call.pipeline_text(), approver, call_id=call.call_id, shell_forms=call.shell_forms
    )
    return result, output_item(call, result)


def run_stream(
    turn: Turn, events: Iterable[Any], approver: Approver | Decision | str
) -> tuple[CallResult, dict[str, Any]] | None:
    """Run the first apply_patch call of a Responses API event stream in ``turn`` and answer it;
    None when the stream holds none.

    A custom or function-tool call is streamed: its deltas go into the call as they arrive
    (the preview events follow them), its identity comes from its
    ``response.output_item.added`` (or ``.done``) event. A call that only arrives whole (the
    built-in tool's ``apply_patch_call``, a shell call) is read from its
    ``response.output_item.done`` event and run as :func:`run_item` does.
    """
    items: list[Any] = []
    whole: list[Any] = []

    def watch(source: Iterable[Any]) -> Iterator[Any]:
        for event in source:
            kind = field_of(event, "type")
            if kind in (ITEM_ADDED, "response.output_item.done"):
                item = field_of(event, "item")
                if field_of(item, "type") in ("custom_tool_call", "function_call") and (
                    field_of(item, "name") == APPLY_PATCH
                ):
                    items.append(item)
                elif kind == "response.output_item.done":
                    whole.append(item)
            yield event

    deltas = iter_patch_deltas(watch(events))
    first = next(deltas, None)
    if first is None or not items:
        # nothing streamed: the whole stream was read; run its first whole call, if any
        for item in whole:
            ran = run_item(turn, item, approver)
            if ran is not None:
                return ran
        return None
    item = items[0]
    call_id = field_of(item, "call_id")
    if not isinstance(call_id, str) or not call_id:
        raise ResponseItemError("the streamed apply_patch call has no call_id")
    pipeline_call = turn.call(call_id=call_id, shell_forms=False)  # an apply_patch tool's
    pipeline_call.push_delta(first)
    pieces = [first]
    for delta in deltas:
        pipeline_call.push_delta(delta)
        pieces.append(delta)
    result = pipeline_call.run(approver)
    kind = field_of(item, "type")
    form = "freeform" if kind == "custom_tool_call" else "function"
    call = PatchCall(
        call_id, kind, APPLY_PATCH, form, "".join(pieces), item_id=field_of(item, "id")
    )
    return result, output_item(call, result)
