"""The streaming preview: ``ApplyPatchArgumentDiffConsumer`` (spec 6.3).

While a tool call's arguments stream in, each delta goes to the streaming parser; every change
in the parsed hunks may produce a ``PatchApplyUpdated`` event with the *planned* changes (nothing
is read from or written to the disk). Events are throttled: one sent less than ``throttle``
seconds ago makes the new one *pending* (replacing an older pending one); ``finish`` flushes the
pending event. Parse errors are swallowed (no event). The consumer is gated by a feature flag
(on by default in this product, off by default in Codex).

Work per delta stays proportional to the delta: a pending event keeps only the parser's lazy
snapshot, and the changes map is built only for an event that is really sent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from .errors import ParseError
from .events import PatchApplyUpdated
from .model import EOF_MARKER, AddFile, DeleteFile, Hunk, UpdateFile
from .streaming import StreamingPatchParser

#: Codex's interval between two PatchApplyUpdated events, in seconds.
DEFAULT_THROTTLE: Final = 0.5


def progress_diff(hunk: UpdateFile) -> str:
    """The progress text of an Update (spec 6.3): per chunk ``@@ ctx``, ``-old``, ``+new``."""
    parts: list[str] = []
    for chunk in hunk.chunks:
        parts.append("@@\n" if chunk.change_context is None else f"@@ {chunk.change_context}\n")
        parts.extend(f"-{line}\n" for line in chunk.old_lines)
        parts.extend(f"+{line}\n" for line in chunk.new_lines)
        if chunk.is_end_of_file:
            parts.append(EOF_MARKER + "\n")
    return "".join(parts)


def planned_change(hunk: Hunk) -> tuple[str, dict[str, Any]]:
    """One hunk's entry of the planned changes: (source path as written, FileChange JSON)."""
    match hunk:
        case AddFile(path=path, contents=contents):
            return path, {"type": "add", "content": contents}
        case DeleteFile(path=path):
            return path, {"type": "delete", "content": ""}
        case UpdateFile(path=path, move_path=move_path):
            return path, {
                "type": "update",
                "unified_diff": progress_diff(hunk),
                "move_path": move_path,
            }


def planned_changes(hunks: Sequence[Hunk]) -> dict[str, dict[str, Any]]:
    """The planned changes keyed by source path as written; a later hunk replaces an earlier."""
    return dict(map(planned_change, hunks))


class ApplyPatchArgumentDiffConsumer:
    """Turns streamed patch text into throttled ``PatchApplyUpdated`` events."""

    def __init__(
        self,
        call_id: str,
        *,
        enabled: bool = True,
        throttle: float = DEFAULT_THROTTLE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.call_id = call_id
        self.enabled = enabled
        self.throttle = throttle
        self.clock = clock
        self.parser = StreamingPatchParser()
        self.last_sent_at: float | None = None
        self.error: str | None = None
        self._pending: Sequence[Hunk] | None = None
        self._has_hunks = False  # hunks never go away once parsed; saves a len() per delta
        # Entries of completed hunks, built once: a completed hunk never changes, so an event
        # costs one C-level dict() over them plus the entry of the hunk still growing.
        self._completed_entries: list[tuple[str, dict[str, Any]]] = []

    @property
    def has_pending(self) -> bool:
        return self._pending is not None

    def push_delta(self, delta: str) -> PatchApplyUpdated | None:
        """Feed a delta; return the event to send now, if any."""
        if not self.enabled:
            return None
        try:
            hunks = self.parser.push_delta(delta)
        except ParseError:
            return None
        if not self._has_hunks:
            if not hunks:
                return None
            self._has_hunks = True
        now = self.clock()
        if self.last_sent_at is not None and now - self.last_sent_at < self.throttle:
            self._pending = hunks
            return None
        self._pending = None
        self.last_sent_at = now
        return self._event(hunks)

    def finish(self) -> PatchApplyUpdated | None:
        """The tool call's input is complete: flush the pending event (unless parsing failed)."""
        if not self.enabled:
            return None
        try:
            self.parser.finish()
        except ParseError as exc:
            self.error = f"failed to parse apply_patch: {exc}"
            self._pending = None
            return None
        pending, self._pending = self._pending, None
        if pending is None:
            return None
        self.last_sent_at = self.clock()
        return self._event(pending)

    def _event(self, hunks: Sequence[Hunk]) -> PatchApplyUpdated:
        completed = self.parser.completed_count(hunks)
        entries = self._completed_entries
        if len(entries) < completed:
            entries.extend(map(planned_change, hunks[len(entries) : completed]))
        changes = dict(entries[:completed])
        changes.update(map(planned_change, hunks[completed:]))
        return PatchApplyUpdated(self.call_id, changes)
