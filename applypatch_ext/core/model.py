"""Records of the pipeline, named after Codex's types so the code reads next to the spec.

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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from .text import LineEndings

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


# --- parse result ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AddFile:
    """``*** Add File: path`` with its ``+`` lines; ``contents`` ends every line with LF."""

    path: str
    contents: str

    kind: ClassVar[Literal["add"]] = "add"
    is_add: ClassVar[bool] = True
    is_delete: ClassVar[bool] = False
    is_update: ClassVar[bool] = False

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

    kind: ClassVar[Literal["delete"]] = "delete"
    is_add: ClassVar[bool] = False
    is_delete: ClassVar[bool] = True
    is_update: ClassVar[bool] = False

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
    those file lines untouched.
    """

    change_context: str | None
    old_lines: tuple[str, ...]
    new_lines: tuple[str, ...]
    context_line_indices: tuple[tuple[int, int], ...] = ()
    is_end_of_file: bool = False

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

    kind: ClassVar[Literal["update"]] = "update"
    is_add: ClassVar[bool] = False
    is_delete: ClassVar[bool] = False
    is_update: ClassVar[bool] = True

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
    """The result of :func:`~applypatch_ext.core.parser.parse_patch`.

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


@dataclass(frozen=True, slots=True)
class FileAdd:
    """Proposed: create or overwrite a file with ``content``."""

    content: str

    type: ClassVar[Literal["add"]] = "add"

    def to_json(self) -> dict[str, Any]:
        """The protocol ``FileChange`` shape (spec 6.4)."""
        return {"type": "add", "content": self.content}


@dataclass(frozen=True, slots=True)
class FileDelete:
    """Proposed: delete a file whose current text is ``content``."""

    content: str

    type: ClassVar[Literal["delete"]] = "delete"

    def to_json(self) -> dict[str, Any]:
        return {"type": "delete", "content": self.content}


@dataclass(frozen=True, slots=True)
class FileUpdate:
    """Proposed: rewrite a file (radius-1 ``unified_diff``), possibly moving it."""

    unified_diff: str
    move_path: str | None
    new_content: str = field(repr=False, default="")

    type: ClassVar[Literal["update"]] = "update"

    def to_json(self) -> dict[str, Any]:
        return {"type": "update", "unified_diff": self.unified_diff, "move_path": self.move_path}


ApplyPatchFileChange: TypeAlias = FileAdd | FileDelete | FileUpdate


@dataclass(frozen=True)
class ApplyPatchAction:
    """A verified patch: the proposed change map keyed by resolved absolute path.

    The map keeps patch order; nothing observable may depend on it (the reference's map is a
    hash map).
    """

    changes: Mapping[str, ApplyPatchFileChange]
    patch: str
    cwd: str
    line_endings: LineEndings = LineEndings.PRESERVE
    hunks: tuple[Hunk, ...] = field(default=(), repr=False)

    def is_empty(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {path: change.to_json() for path, change in self.changes.items()}


# --- application result (the committed delta) ----------------------------------------------


@dataclass(frozen=True, slots=True)
class AppliedAdd:
    """Committed: ``path`` now holds ``content``; ``overwritten_content`` is what was there."""

    path: str
    content: str
    overwritten_content: str | None = None

    type: ClassVar[Literal["add"]] = "add"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "add",
            "path": self.path,
            "content": self.content,
            "overwritten_content": self.overwritten_content,
        }


@dataclass(frozen=True, slots=True)
class AppliedDelete:
    """Committed: ``path`` was removed; it held ``content``."""

    path: str
    content: str

    type: ClassVar[Literal["delete"]] = "delete"

    def to_json(self) -> dict[str, Any]:
        return {"type": "delete", "path": self.path, "content": self.content}


@dataclass(frozen=True, slots=True)
class AppliedUpdate:
    """Committed: ``path`` (moved to ``move_path`` if set) went from old to new content."""

    path: str
    move_path: str | None
    old_content: str
    overwritten_move_content: str | None
    new_content: str

    type: ClassVar[Literal["update"]] = "update"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "update",
            "path": self.path,
            "move_path": self.move_path,
            "old_content": self.old_content,
            "overwritten_move_content": self.overwritten_move_content,
            "new_content": self.new_content,
        }


AppliedPatchChange: TypeAlias = AppliedAdd | AppliedDelete | AppliedUpdate


@dataclass(frozen=True, slots=True)
class AppliedPatchDelta:
    """What an application really committed, in order.

    ``exact`` is False when something happened that the changes cannot describe (a symlink, a
    non-regular file, an unreadable old content, a failed write): the list is then a lower bound.
    """

    changes: tuple[AppliedPatchChange, ...] = ()
    exact: bool = True

    def append(self, other: AppliedPatchDelta) -> AppliedPatchDelta:
        """The delta of two attempts one after the other (``exact`` is the AND)."""
        return AppliedPatchDelta(self.changes + other.changes, self.exact and other.exact)

    def is_empty(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, Any]:
        return {"changes": [c.to_json() for c in self.changes], "exact": self.exact}
