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

from ..diagnosis import Diagnosis


def _undo_json(**fields: int | tuple[str, ...] | None) -> dict[str, Any]:
    """What an undo needs besides the contents (docs/behaviour.md §11): file modes as octal
    text (``"0o755"``), directories the change created; only the ones that were recorded."""
    out: dict[str, Any] = {}
    for name, value in fields.items():
        if isinstance(value, int):
            out[name] = oct(value)
        elif value:
            out[name] = list(value)
    return out


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
    #: Every file a hunk leaves behind, ``(resolved path, its new text)`` in hunk order: an
    #: Add's content, an Update's new content at its destination. Unlike the map it keeps the
    #: hunks a ``--duplicates fold`` map folded away, which application still runs (§7.4).
    #: Empty for an action made elsewhere (an undo's): then the map is what runs.
    left_behind: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)
    #: What to check in chunks that will apply (a pure addition sent to the end of the file, a
    #: fuzzy match that rewrites lines, lines that occur twice): warnings of the failure atlas.
    warnings: tuple[Diagnosis, ...] = field(default=(), compare=False, repr=False)

    def is_empty(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {path: change.to_json() for path, change in self.changes.items()}


@dataclass(frozen=True, slots=True)
class AppliedAdd:
    """Committed: ``path`` now holds ``content``; ``overwritten_content`` is what was there.

    For an undo: ``mode`` is the file's mode as the add left it, ``overwritten_mode`` the mode of
    the file it overwrote, ``created_dirs`` the parent directories it created (None / empty when
    not recorded: a filesystem without modes, or nothing created). They take no part in
    equality: two deltas are equal when they wrote the same texts to the same paths.
    """

    path: str
    content: str
    overwritten_content: str | None = None
    mode: int | None = field(default=None, compare=False)
    overwritten_mode: int | None = field(default=None, compare=False)
    created_dirs: tuple[str, ...] = field(default=(), compare=False)

    type: ClassVar[Literal["add"]] = "add"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "add",
            "path": self.path,
            "content": self.content,
            "overwritten_content": self.overwritten_content,
            **_undo_json(
                mode=self.mode,
                overwritten_mode=self.overwritten_mode,
                created_dirs=self.created_dirs,
            ),
        }


@dataclass(frozen=True, slots=True)
class AppliedDelete:
    """Committed: ``path`` was removed; it held ``content`` with permission bits ``mode``."""

    path: str
    content: str
    mode: int | None = field(default=None, compare=False)

    type: ClassVar[Literal["delete"]] = "delete"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "delete",
            "path": self.path,
            "content": self.content,
            **_undo_json(mode=self.mode),
        }


@dataclass(frozen=True, slots=True)
class AppliedUpdate:
    """Committed: ``path`` (moved to ``move_path`` if set) went from old to new content.

    For an undo: ``mode`` is the source's mode (kept by an update in place), ``move_mode`` the
    destination's as the move left it, ``overwritten_move_mode`` the mode of the file the move
    overwrote, ``created_dirs`` the destination's parent directories the move created.
    """

    path: str
    move_path: str | None
    old_content: str
    overwritten_move_content: str | None
    new_content: str
    mode: int | None = field(default=None, compare=False)
    move_mode: int | None = field(default=None, compare=False)
    overwritten_move_mode: int | None = field(default=None, compare=False)
    created_dirs: tuple[str, ...] = field(default=(), compare=False)

    type: ClassVar[Literal["update"]] = "update"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "update",
            "path": self.path,
            "move_path": self.move_path,
            "old_content": self.old_content,
            "overwritten_move_content": self.overwritten_move_content,
            "new_content": self.new_content,
            **_undo_json(
                mode=self.mode,
                move_mode=self.move_mode,
                overwritten_move_mode=self.overwritten_move_mode,
                created_dirs=self.created_dirs,
            ),
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
    #: the paths where what happened is unknown (an inexact delta's reasons, when the runtime
    #: could name them; an undo offers only the other files)
    unknown: tuple[str, ...] = field(default=(), compare=False)
    #: the unknown paths whose write a filesystem view (the sandbox, no-follow mode) refused
    #: before anything reached the disk: nothing was written there
    refused: tuple[str, ...] = field(default=(), compare=False)

    def append(self, other: AppliedPatchDelta) -> AppliedPatchDelta:
        """The delta of two attempts one after the other (``exact`` is the AND)."""
        unknown = tuple(dict.fromkeys(self.unknown + other.unknown))
        refused = tuple(dict.fromkeys(self.refused + other.refused))
        return AppliedPatchDelta(
            self.changes + other.changes, self.exact and other.exact, unknown, refused
        )

    @property
    def inexact_only_by_refusals(self) -> bool:
        """Inexact only because writes were refused before they reached the disk: the changes
        are then all that happened (the reference still calls the delta inexact)."""
        return not self.exact and bool(self.unknown) and set(self.unknown) <= set(self.refused)

    def is_empty(self) -> bool:
        return not self.changes

    def to_json(self) -> dict[str, Any]:
        out = {"changes": [c.to_json() for c in self.changes], "exact": self.exact}
        if self.unknown:
            out["unknown"] = list(self.unknown)
        if self.refused:
            out["refused"] = list(self.refused)
        return out
