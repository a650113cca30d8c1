"""An undo's conflicts (docs/behaviour.md §11.2): a file that is not as the undo (or redo)
expects it, with its three versions, and the words of each refusal.

A file changed since the call is a :class:`Conflict` and nothing is written; ``force``
overwrites it, but never through a symbolic link on the way, nor a file a call of a later turn
changed since (:func:`changed_later`: that turn's TurnDiff would no longer say what is on disk).
What a call changed is :func:`call_records`: its committed delta as each file's states.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..apply.revert import FileRecord, FileState, file_states
from .call import ApplyPatchCall, CallTurn

Kind = Literal["undo", "redo"]


def with_article(kind: Kind) -> str:
    """``an undo``, ``a redo``."""
    return "an undo" if kind == "undo" else "a redo"


@dataclass(frozen=True)
class Conflict:
    """A file that is not as the undo expects it: the three versions.

    ``before``: before the call; ``left``: as the call left it; ``now``: on disk now (None when
    it cannot be read as a text file; ``found`` then says what it is: ``a symbolic link to
    precious.txt``, a directory, binary). ``through``: a directory on the way that is now a
    symbolic link (never written through, also forced). ``path`` as the patch writes it,
    ``abs_path`` resolved. A readable file with other names (a hard link, e.g. swapped for one
    of ``precious.txt``) has ``now`` and ``found`` (``a hard link: another name shares these
    bytes``): a forced undo replaces this name, never writing the others. After a forced undo
    ran: ``forced``, and ``written`` when it overwrote the file (its ``now`` is then what it
    overwrote).
    """

    path: str
    abs_path: str
    before: FileState
    left: FileState
    now: FileState | None
    kind: Kind = "undo"
    found: str | None = None
    through: str | None = None
    forced: bool = False
    written: bool = False

    def _now(self) -> str:
        if self.now is not None:
            shared = "" if self.found is None else f" ({self.found})"
            return self.now.describe() + shared
        return self.found or "unreadable as text"

    def reason(self) -> str:
        expected = "as the call left it" if self.kind == "undo" else "as the undo left it"
        if self.through is not None:
            return (
                f"{self.path} is reached through {self.through} now: an undo never writes "
                "through a symbolic link, also with --force"
            )
        if not self.written:
            text = f"{self.path} is not {expected}: now {self._now()}"
            if self.forced:
                text += f"; --force did not write it: the {self.kind} stopped before"
            return text
        target = self.before if self.kind == "undo" else self.left
        state = "as it was before the call" if self.kind == "undo" else "as the call left it"
        thing = "it"
        if self.is_link:
            thing = "the link (its target is untouched)"
        elif self.is_shared:
            thing = "this name of the hard link (its other names keep their bytes)"
        if target.exists:
            done = f"--force replaced {thing} with the file {state} ({target.describe()})"
        else:
            done = f"--force removed {thing} (absent {state})"
        return f"{self.path} was not {expected} (it was {self._now()}): {done}"

    @property
    def is_link(self) -> bool:
        return self.now is None and (self.found or "").startswith("a symbolic link")

    @property
    def is_shared(self) -> bool:
        """A text file with other names (a hard link): forced, only this name is replaced."""
        return self.now is not None and self.found is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "abs_path": self.abs_path,
            "kind": self.kind,
            "reason": self.reason(),
            "before": self.before.to_json(),
            "left": self.left.to_json(),
            "now": None if self.now is None else self.now.to_json(),
            "found": self.found,
            "through": self.through,
            "forced": self.forced,
            "written": self.written,
        }


def conflict_message(conflicts: Sequence[Conflict], kind: Kind, target: str) -> str:
    lines = [f"{kind} of {target}: {len(conflicts)} file(s) changed since; nothing was written"]
    lines += [f"  {c.reason()}" for c in conflicts]
    lines.append(
        f"{kind} only the other files (only=[...], --only PATH), or overwrite them (force=True, "
        "--force)"
    )
    return "\n".join(lines)


def linked_message(conflicts: Sequence[Conflict], kind: Kind, target: str) -> str:
    """Why an undo does not write a file reached through a symbolic link, also when forced."""
    lines = [
        f"{kind} of {target}: {len(conflicts)} file(s) reached through a symbolic link now; "
        "nothing was written"
    ]
    lines += [f"  {c.reason()}" for c in conflicts]
    lines.append(
        f"put the directory back (or remove the link), then {kind} again; or {kind} the other "
        "files only (only=[...], --only PATH)"
    )
    return "\n".join(lines)


def later_message(
    conflicts: Sequence[Conflict], later: dict[str, ApplyPatchCall], kind: Kind, target: str
) -> str:
    """Why ``force`` does not overwrite a file a later turn's call changed, and the way on."""
    lines = [
        f"{kind} of {target}: {len(conflicts)} file(s) changed since by a later turn; "
        "--force does not overwrite those, nothing was written"
    ]
    for c in conflicts:
        call = later[c.abs_path]
        lines.append(f"  {c.path}: changed by {call.call_id} of {call.turn.turn_id}")
    lines.append(
        "undo those calls first, in their turn (%apply_patch_undo CALL_ID --turn TURN), or "
        f"{kind} the other files only (only=[...], --only PATH): each turn's diff then still "
        "says what its calls did"
    )
    return "\n".join(lines)


# -- what a call changed, and what a later turn changed since --------------------------------------


def call_records(call: ApplyPatchCall) -> dict[str, FileRecord]:
    """The files ``call`` changed (none until it has a result)."""
    if call.result is None:
        return {}
    return file_states(call.result.delta)


def changed_later(later: Iterable[CallTurn], paths: Iterable[str]) -> dict[str, ApplyPatchCall]:
    """Which of ``paths`` a call of the ``later`` turns changed: the last such call of each."""
    wanted = set(paths)
    found: dict[str, ApplyPatchCall] = {}
    for turn in later:
        for call in turn.calls:
            for path in call_records(call):
                if path in wanted:
                    found[path] = call
    return found


__all__ = [
    "Conflict",
    "Kind",
    "call_records",
    "changed_later",
    "conflict_message",
    "later_message",
    "linked_message",
    "with_article",
]
