"""The streaming preview: ``ApplyPatchArgumentDiffConsumer`` (docs/behaviour.md §6.3).

While a tool call's arguments stream in, each delta goes to the streaming parser; every change
in the parsed hunks may produce a ``PatchApplyUpdated`` event with the *planned* changes (nothing
is read from or written to the disk). Events are throttled: one sent less than ``throttle``
seconds ago makes the new one *pending* (replacing an older pending one); ``finish`` flushes the
pending event. Parse errors are swallowed (no event). The consumer is gated by a feature flag
(on by default in this product, off by default in Codex).

Work per delta is a few list appends and, for a delta that ends a line, one clock read: the
parser processes lines in bulk when the hunks are read, a pending event is only a flag, and the
changes map is built only for an event that is really sent.

One difference from Codex, in timing only: a delta that completes no line cannot change the
planned changes, so it produces no event and reads no clock. Codex would still send (or keep
pending) an event with the same changes as the last one; here a pending event goes out with the
next completed line or at ``finish``, and no event repeats the changes of the one before.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from ..errors import ParseError
from ..parse.model import EOF_MARKER, AddFile, DeleteFile, Hunk, UpdateFile
from ..parse.streaming import StreamingPatchParser
from .events import PatchApplyUpdated

#: Codex's interval between two PatchApplyUpdated events, in seconds.
DEFAULT_THROTTLE: Final = 0.5


def progress_diff(hunk: UpdateFile) -> str:
    """The progress text of an Update (docs/behaviour.md §6.3): per chunk ``@@ ctx``, ``-old``,
    ``+new``."""
    parts: list[str] = []
    for chunk in hunk.chunks:
        parts.append("@@\n" if chunk.change_context is None else f"@@ {chunk.change_context}\n")
        # Every line prefixed and terminated, by one C-level join per side.
        if chunk.old_lines:
            parts.append("-" + "\n-".join(chunk.old_lines) + "\n")
        if chunk.new_lines:
            parts.append("+" + "\n+".join(chunk.new_lines) + "\n")
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


def _ignore(delta: str) -> None:
    """What a disabled consumer does with a delta."""


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
        self.throttle = throttle
        self.clock = clock
        self.parser = StreamingPatchParser()
        self._enabled = enabled
        self._feed = self.parser.feed if enabled else _ignore
        self.last_sent_at = -math.inf  # never
        self.error: str | None = None
        self._pending = False  # the hunks as of the last delta are still to be sent
        # Entries of completed hunks, built once: a completed hunk never changes, so an event
        # costs one C-level dict() over them plus the entry of the hunk still growing.
        self._completed_entries: list[tuple[str, dict[str, Any]]] = []

    @property
    def enabled(self) -> bool:
        """The feature gate: when off, nothing is parsed and no event is produced."""
        return self._enabled

    @property
    def has_pending(self) -> bool:
        return self._pending

    def push_delta(self, delta: str) -> PatchApplyUpdated | None:
        """Feed a delta; return the event to send now, if any."""
        self._feed(delta)
        if "\n" not in delta or not self._enabled:
            return None  # no line completed: the planned changes are what they were
        now = self.clock()
        if now - self.last_sent_at < self.throttle:
            # Hunks were sent, so there are hunks: these are pending (parsed when read).
            self._pending = True
            return None
        try:
            hunks = self.parser.snapshot()
        except ParseError:
            return None
        if not hunks:
            return None
        self._pending = False
        self.last_sent_at = now
        return self._event(hunks)

    def finish(self) -> PatchApplyUpdated | None:
        """The tool call's input is complete: flush the pending event (unless parsing failed)."""
        if not self._enabled:
            return None
        try:
            hunks = self.parser.snapshot()  # as of the last delta: without a final open line
            self.parser.finish()
        except ParseError as exc:
            self.error = f"failed to parse apply_patch: {exc}"
            self._pending = False
            return None
        if not self._pending:
            return None
        self._pending = False
        self.last_sent_at = self.clock()
        return self._event(hunks)

    def _event(self, hunks: Sequence[Hunk]) -> PatchApplyUpdated:
        completed = self.parser.completed_count(hunks)
        entries = self._completed_entries
        if len(entries) < completed:
            entries.extend(map(planned_change, hunks[len(entries) : completed]))
        changes = dict(entries[:completed])
        changes.update(map(planned_change, hunks[completed:]))
        return PatchApplyUpdated(self.call_id, changes)
