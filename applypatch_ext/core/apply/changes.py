"""The proposed change map of a verification and the committed delta of an application.

The second and third of the three representations of one patch (the first, the ordered hunks
of a parse, is :mod:`~applypatch_ext.core.parse.model`): :class:`ApplyPatchAction` maps each
resolved path to :class:`FileAdd`, :class:`FileDelete` or :class:`FileUpdate`;
:class:`AppliedPatchDelta` lists what was really written, in order, with its ``exact`` flag.
All records are frozen; none of them touches the disk."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias


@dataclass(frozen=True, slots=True)
class FileAdd:
    """Proposed: create or overwrite a file with ``content``."""

    content: str

    type: ClassVar[Literal["add"]] = "add"

    def to_json(self) -> dict[str, Any]:
        """The protocol ``FileChange`` shape (docs/behaviour.md §6.4)."""
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

    def is_empty(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {path: change.to_json() for path, change in self.changes.items()}


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
