"""Records of the pipeline, named after Codex's types so the code reads next to Codex's source.

Three representations of one patch stay distinct:

* the ordered hunks of a parse (:class:`AddFile`, :class:`DeleteFile`, :class:`UpdateFile`,
  collected in :class:`ParsedPatch`);
* the proposed change map of a verification (:class:`ApplyPatchAction` whose values are
  :class:`FileAdd`, :class:`FileDelete`, :class:`FileUpdate`);
* the committed delta of an application (:class:`AppliedPatchDelta` of :class:`AppliedAdd`,
  :class:`AppliedDelete`, :class:`AppliedUpdate`), ordered, with its ``exact`` flag.

All records are frozen; none of them touches the disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeAlias

BEGIN_PATCH_MARKER = "*** Begin Patch"
END_PATCH_MARKER = "*** End Patch"
ADD_FILE_MARKER = "*** Add File: "
DELETE_FILE_MARKER = "*** Delete File: "
UPDATE_FILE_MARKER = "*** Update File: "
MOVE_TO_MARKER = "*** Move to: "
EOF_MARKER = "*** End of File"
CHANGE_CONTEXT_MARKER = "@@ "
EMPTY_CHANGE_CONTEXT_MARKER = "@@"
ENVIRONMENT_ID_MARKER = "*** Environment ID:"

# The grammar's error texts, byte for byte (docs/behaviour.md §1.7): both parsers raise them.
FIRST_LINE_ERROR = "The first line of the patch must be '*** Begin Patch'"
LAST_LINE_ERROR = "The last line of the patch must be '*** End Patch'"
EMPTY_ENVIRONMENT_ERROR = "apply_patch environment_id cannot be empty"
DUPLICATE_ENVIRONMENT_ERROR = "apply_patch environment_id cannot be specified more than once"
EMPTY_CHUNK_ERROR = "Update hunk does not contain any lines"


def invalid_header_message(line: str) -> str:
    return (
        f"'{line}' is not a valid hunk header. Valid hunk headers: '*** Add File: {{path}}', "
        "'*** Delete File: {path}', '*** Update File: {path}'"
    )


def unexpected_update_line_message(line: str) -> str:
    return (
        f"Unexpected line found in update hunk: '{line}'. Every line should start with ' ' "
        "(context line), '+' (added line), or '-' (removed line)"
    )


def expected_context_marker_message(line: str) -> str:
    return f"Expected update hunk to start with a @@ context marker, got: '{line}'"


# --- parse result ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AddFile:
    """``*** Add File: path`` with its ``+`` lines; ``contents`` ends every line with LF.

    ``line`` (as in the other records) is the 1-based line of the canonical patch text where it
    starts, 0 when it was not parsed from a text; it is not part of its value."""

    path: str
    contents: str
    line: int = field(default=0, compare=False, repr=False)

    kind: ClassVar[Literal["add"]] = "add"

    @property
    def target_path(self) -> str:
        """The path this hunk leaves behind, as written."""
        return self.path

    def __str__(self) -> str:
        lines = [ADD_FILE_MARKER + self.path]
        lines.extend("+" + line for line in self.contents.split("\n")[:-1])
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class DeleteFile:
    """``*** Delete File: path``."""

    path: str
    line: int = field(default=0, compare=False, repr=False)

    kind: ClassVar[Literal["delete"]] = "delete"

    @property
    def target_path(self) -> str:
        return self.path

    def __str__(self) -> str:
        return DELETE_FILE_MARKER + self.path


@dataclass(frozen=True, slots=True)
class UpdateFileChunk:
    """One ``@@`` chunk: the old lines to find and the new lines that replace them.

    Context lines are in both ``old_lines`` and ``new_lines``; ``context_line_indices`` holds the
    (old index, new index) of each line written as context, so that the preserve mode can leave
    those file lines untouched. ``line`` is the 1-based line of the canonical patch text where
    the chunk starts: its ``@@`` line, or its first line when it has none (0: not parsed).
    """

    change_context: str | None
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    context_line_indices: tuple[tuple[int, int], ...] = ()
    is_end_of_file: bool = False
    line: int = field(default=0, compare=False, repr=False)

    def __str__(self) -> str:
        header = (
            EMPTY_CHANGE_CONTEXT_MARKER
            if self.change_context is None
            else CHANGE_CONTEXT_MARKER + self.change_context
        )
        out = [header]
        contexts = dict(self.context_line_indices)
        context_new = set(contexts.values())
        old_i = new_i = 0
        old, new = self.old_lines, self.new_lines
        while old_i < len(old) or new_i < len(new):
            if contexts.get(old_i) == new_i and old_i < len(old):
                out.append(" " + old[old_i])
                old_i += 1
                new_i += 1
            elif old_i < len(old) and old_i not in contexts:
                out.append("-" + old[old_i])
                old_i += 1
            elif new_i < len(new) and new_i not in context_new:
                out.append("+" + new[new_i])
                new_i += 1
            else:  # pragma: no cover - inconsistent indices cannot come from the parser
                raise ValueError("inconsistent context_line_indices")
        if self.is_end_of_file:
            out.append(EOF_MARKER)
        return "\n".join(out)


@dataclass(frozen=True, slots=True)
class UpdateFile:
    """``*** Update File: path`` with an optional ``*** Move to:`` and its chunks."""

    path: str
    move_path: str | None
    chunks: tuple[UpdateFileChunk, ...]
    line: int = field(default=0, compare=False, repr=False)

    kind: ClassVar[Literal["update"]] = "update"

    @property
    def target_path(self) -> str:
        return self.move_path if self.move_path is not None else self.path

    def __str__(self) -> str:
        lines = [UPDATE_FILE_MARKER + self.path]
        if self.move_path is not None:
            lines.append(MOVE_TO_MARKER + self.move_path)
        lines.extend(str(chunk) for chunk in self.chunks)
        return "\n".join(lines)


Hunk: TypeAlias = AddFile | DeleteFile | UpdateFile


@dataclass(frozen=True, slots=True)
class ParsedPatch:
    """The result of :func:`~applypatch_ext.core.parse.parser.parse_patch`.

    ``patch`` is the canonical text (outer whitespace and a heredoc wrapper removed, CRLF gone):
    the text that application re-parses. ``str()`` returns it.
    """

    hunks: tuple[Hunk, ...]
    patch: str
    environment_id: str | None = None
    workdir: str | None = None

    def __str__(self) -> str:
        return self.patch

    def __iter__(self) -> Iterator[Hunk]:
        return iter(self.hunks)

    def __len__(self) -> int:
        return len(self.hunks)


def render_patch(hunks: tuple[Hunk, ...] | list[Hunk], environment_id: str | None = None) -> str:
    """Write hunks back as patch text that parses to the same hunks."""
    lines = [BEGIN_PATCH_MARKER]
    if environment_id is not None:
        lines.append(f"{ENVIRONMENT_ID_MARKER} {environment_id}")
    lines.extend(str(hunk) for hunk in hunks)
    lines.append(END_PATCH_MARKER)
    text = "\n".join(lines)
    if "\r\n" not in text:
        return text
    # parse_patch drops one trailing CR of every line twice (Rust-lines, then the streaming
    # parser), so a line whose text really ends with CR needs two more to survive.
    return "\n".join(line + "\r\r" if line.endswith("\r") else line for line in text.split("\n"))


# --- verification result (the proposed change map) ------------------------------------------


# --- application result (the committed delta) ----------------------------------------------
