"""The desk's tools as an MCP client sees them: names, descriptions, input schemas, and the
checks of a call's arguments (standard library only: the server module turns them into the
SDK's types).

The descriptions are ours. ``apply_patch``'s tells the model the whole format, as precisely as
Codex's freeform tool does: the envelope, the three file operations, a chunk's lines, where the
context goes and how much of it, the end-of-file anchor, and that paths are relative to the
desk's folder (which the description names, since the client's own folder may be another).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class ToolName(StrEnum):
    APPLY_PATCH = "apply_patch"
    VERIFY_PATCH = "verify_patch"
    TURN_DIFF = "turn_diff"


#: The one argument of apply_patch and verify_patch.
PATCH_ARGUMENT: Final = "patch"

FORMAT: Final = """\
The patch format (plain text; every line ends with a newline):

*** Begin Patch
<one or more file operations>
*** End Patch

A file operation is one of:

*** Add File: <path>
+<first line of the new file>
+<every further line, each one starting with "+">

*** Delete File: <path>

*** Update File: <path>
*** Move to: <new path>          (optional: rename the file as well)
<one or more chunks>

A chunk says where the change goes and what it is:

@@ <a line of the file above the change, such as its class or def line, to find the place>
 <an unchanged line: one space, then the line exactly as it is in the file>
-<a line to remove, exactly as it is in the file>
+<a line to add>

Rules:
- Give three unchanged lines above and three below each change, unless the file starts or
  ends sooner. When two changes are less than six lines apart, do not repeat the lines they
  share: one chunk holds both changes.
- When three lines of context do not make the place unique, add an "@@ <line>" header
  naming the enclosing class or function; several "@@" headers may follow one another.
- The first chunk of an Update may leave out its "@@" line; every later chunk needs one.
- A chunk whose last line is the file's last line may end with the line "*** End of File".
- Every line of a chunk starts with " ", "-" or "+"; a "-" or " " line must match the file
  (whitespace at either end of a line and typographic dashes and quotes are forgiven,
  nothing else).
- Paths are relative to the desk's folder, {cwd}; never absolute.
- Do not send a file's whole text as an Update: send only the chunks that change."""

APPLY_PATCH_DESCRIPTION: Final = (
    """\
Edit files in {cwd} by sending one patch. The patch is parsed and checked against the files
before anything is written; then it is applied, unless a person at the desk is asked first: they
see every file and chunk, and may approve all of it, approve some chunks only, or decline with a
reason, so the call can take a while to return. The result says what was written, in the text
Codex's own apply_patch tool returns (exit code, wall time, the files added, modified and
deleted), followed by the chunks left out, or, for a declined patch, "patch rejected by user"
and the person's reason. A patch that does not match the files is refused with the reason and
nothing is written. Use verify_patch first to check a patch without writing anything, and
turn_diff to see everything changed so far.

"""
    + FORMAT
)

VERIFY_PATCH_DESCRIPTION: Final = (
    """\
Check a patch against the files in {cwd} without writing anything: the result lists the changes
it would make (each file with its diff) and whether apply_patch would apply it at once or ask a
person first; a patch that does not parse or match says why, and where in the file the closest
lines are. Takes the same patch as apply_patch.

"""
    + FORMAT
)

TURN_DIFF_DESCRIPTION: Final = """\
The cumulative diff of this turn in {cwd}: every file changed so far by apply_patch calls (and
by the person working there), as one unified diff, each file compared with how it was before
its first change. Takes no arguments."""

PATCH_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        PATCH_ARGUMENT: {
            "type": "string",
            "description": "The whole patch, from '*** Begin Patch' to '*** End Patch'.",
        }
    },
    "required": [PATCH_ARGUMENT],
    "additionalProperties": False,
}

NO_ARGUMENTS: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, title, description (``{cwd}`` is the desk's folder) and schema."""

    name: ToolName
    title: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool

    def describe(self, cwd: str) -> str:
        return self.description.replace("{cwd}", cwd)


TOOLS: Final[tuple[ToolSpec, ...]] = (
    ToolSpec(
        ToolName.APPLY_PATCH,
        "Apply a patch",
        APPLY_PATCH_DESCRIPTION,
        PATCH_SCHEMA,
        read_only=False,
    ),
    ToolSpec(
        ToolName.VERIFY_PATCH,
        "Check a patch (writes nothing)",
        VERIFY_PATCH_DESCRIPTION,
        PATCH_SCHEMA,
        read_only=True,
    ),
    ToolSpec(
        ToolName.TURN_DIFF,
        "The turn's cumulative diff",
        TURN_DIFF_DESCRIPTION,
        NO_ARGUMENTS,
        read_only=True,
    ),
)
TOOLS_BY_NAME: Final[dict[str, ToolSpec]] = {str(tool.name): tool for tool in TOOLS}

#: What an argument that tries to steer the desk is told (its name follows).
NOT_THE_CLIENTS: Final = (
    "the desk's working directory, sandbox, approval policy and approvals are set by the "
    "person who started it; a call cannot choose them"
)
STEERING_ARGUMENTS: Final = frozenset(
    {
        "cwd",
        "workdir",
        "working_directory",
        "sandbox",
        "sandbox_policy",
        "approval",
        "approval_policy",
        "approve",
        "decision",
        "writable_roots",
        "environment",
        "environment_id",
    }
)


class BadArguments(ValueError):
    """A call's arguments do not fit its tool's schema: the message names what and where."""


def check_arguments(tool: ToolSpec, arguments: Mapping[str, Any] | None) -> str | None:
    """The patch text of a call (None for a tool without arguments); ``BadArguments`` for
    anything else than what the schema allows."""
    given = dict(arguments or {})
    steering = sorted(name for name in given if name in STEERING_ARGUMENTS)
    if steering:
        raise BadArguments(f"{tool.name}: argument {', '.join(steering)}: {NOT_THE_CLIENTS}")
    allowed = set(tool.input_schema.get("properties", {}))
    unknown = sorted(name for name in given if name not in allowed)
    if unknown:
        expected = ", ".join(sorted(allowed)) or "none"
        raise BadArguments(
            f"{tool.name}: unknown argument {', '.join(repr(n) for n in unknown)} "
            f"(it takes: {expected})"
        )
    if PATCH_ARGUMENT not in allowed:
        return None
    if PATCH_ARGUMENT not in given:
        raise BadArguments(f"{tool.name}: the argument {PATCH_ARGUMENT!r} is missing")
    patch = given[PATCH_ARGUMENT]
    if not isinstance(patch, str):
        raise BadArguments(
            f"{tool.name}: the argument {PATCH_ARGUMENT!r} must be a string, got "
            f"{type(patch).__name__}"
        )
    return patch
