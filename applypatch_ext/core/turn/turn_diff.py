"""The turn diff: one git-style diff of everything apply_patch committed during a user turn.

What this module does (docs/behaviour.md §8): :class:`TurnDiffTracker` folds the committed deltas
(:class:`~..apply.changes.AppliedPatchDelta`, docs/behaviour.md §5.4) of every apply_patch call of a
turn into three maps keyed by ``(environment id, absolute path)`` -- the text at the start of
the turn, the text now, and where a moved file came from -- and renders them as one
``diff --git`` text (mode ``100644``, full git blob ids, radius-3 hunks of
:mod:`~applypatch_ext.core.apply.diff`). :func:`find_display_root` picks the directory that display
paths are relative to: the nearest ancestor of a cwd holding a ``.git`` entry.

What it does not do: it never reads a file's contents (only :func:`find_display_root` asks for
the metadata of ``.git`` entries), so it knows nothing the deltas do not say; an inexact delta
therefore makes it give up for the rest of the turn. It writes no ``old mode``/``new mode``,
``rename from``/``to`` or ``similarity index`` lines and no binary patches (a rename shows only
through differing ``a/`` and ``b/`` paths, which ``git apply`` understands). It sends no events
(docs/behaviour.md §6.5 and §8.8 belong to the caller, helped by the return value of
:meth:`TurnDiffTracker.track_delta`) and it is not thread-safe.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, TypeAlias

from ..apply.changes import AppliedAdd, AppliedDelete, AppliedPatchDelta, AppliedUpdate
from ..apply.diff import NULL_OID, git_blob_oid, unified_diff_with_status
from ..apply.fs import Filesystem, LocalFilesystem, normalize_path

__all__ = [
    "CONTEXT_RADIUS",
    "DEFAULT_DIFF_TIMEOUT",
    "DEV_NULL",
    "REGULAR_FILE_MODE",
    "FileDiff",
    "FileTexts",
    "TurnDiffTracker",
    "find_display_root",
]

DEV_NULL: Final = "/dev/null"
REGULAR_FILE_MODE: Final = "100644"
#: Lines of context around each hunk of the turn diff.
CONTEXT_RADIUS: Final = 3
#: Seconds one file's diff may search before it falls back to delete-all + insert-all. Upstream
#: gives its Rust diff 0.1 s; a pure-Python Myers needs about that for a 20,000-line file with
#: 200 edits, so we allow 0.3 s: a typical large edit keeps its exact diff, and a complete
#: rewrite of a huge file still renders (coarsely) well under half a second.
DEFAULT_DIFF_TIMEOUT: Final = 0.3

#: ``(environment id, absolute path)``: the same path in two environments is two files.
TrackedPath: TypeAlias = tuple[str, str]


def find_display_root(cwd: str, fs: Filesystem | None = None) -> str:
    """The nearest directory from ``cwd`` upwards (``cwd`` included) holding a ``.git`` entry.

    Any kind of entry counts (a repository's directory, a worktree's or submodule's file, a
    link). Without one the lexically normalised ``cwd`` is returned. A ``cwd`` that is not a
    POSIX absolute path (say a Windows path of a remote environment) cannot be looked up and is
    returned as it is.
    """
    if not cwd.startswith("/"):
        return cwd
    filesystem = fs if fs is not None else LocalFilesystem()
    start = normalize_path(cwd)
    directory = start
    while True:
        try:
            filesystem.metadata(posixpath.join(directory, ".git"), follow_symlinks=False)
        except OSError:
            pass
        else:
            return directory
        if directory == "/":
            return start
        directory = posixpath.dirname(directory)


def _relative_to_root(path: str, root: str) -> str | None:
    """``path`` relative to ``root``, or None if it is not inside it.

    A POSIX root (starting with ``/``) is split on ``/`` only, where a backslash is an ordinary
    character of a name; any other root is taken as a foreign Windows path, split on both.
    """
    separators = "/" if root.startswith("/") else "/\\"
    base = root.rstrip(separators)
    if path in (root, base):
        return ""
    if len(path) > len(base) and path.startswith(base) and path[len(base)] in separators:
        # Empty components (`a//b`) vanish, as when Rust strips a path prefix.
        return path[len(base) :].lstrip(separators)
    return None


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file's block of the aggregate, with the paths it was rendered from.

    ``old_path`` and ``path`` are the display paths of the left (baseline) and right (current)
    sides; they differ only for a rename. Front ends label a block with these, never by parsing
    the ``diff --git`` header, whose ``a/`` and ``b/`` paths are ambiguous once a name contains
    `` b/``.
    """

    old_path: str
    path: str
    text: str


@dataclass(frozen=True, slots=True)
class FileTexts:
    """One file's block of the aggregate as its two texts (what the block is the diff of).

    ``old_path`` and ``path`` are the display paths of :class:`FileDiff`; ``old_absolute`` and
    ``absolute`` the tracked paths (they differ only for a rename); ``before`` is the text at
    the start of the turn and ``after`` the text now, None for a file that did not exist then
    or does not exist now. A front end that shows a file otherwise than as lines (a notebook as
    cells) reads these instead of parsing the diff.
    """

    environment_id: str
    old_path: str
    path: str
    old_absolute: str
    absolute: str
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class _Text:
    """A tracked text and the revision that identifies it in the render cache."""

    text: str
    revision: int


@dataclass(frozen=True, slots=True)
class _RenderedFile:
    """One file's block of the aggregate (None when both sides are equal)."""

    text: str | None
    timed_out: bool


_CacheKey: TypeAlias = tuple[TrackedPath, int | None, TrackedPath, int | None]


class TurnDiffTracker:
    """The net diff of one user turn, built only from committed deltas (docs/behaviour.md §8).

    ``environments`` maps each environment id to its cwd; an environment's display root is
    ``display_roots[id]`` if given, else :func:`find_display_root` of its cwd (looked up once,
    here, through ``filesystem``). At least one environment (or display root) is required;
    ``TurnDiffTracker({"": "/work"})`` is the single-environment case. Ids that were not
    configured may still be tracked: their paths display absolute.

    ``timeout`` (seconds, None for none) bounds the diff search of each file. When it expires
    the file falls back to a coarser diff -- all old lines removed, all new lines added for the
    part that was not searched yet -- which is still correct and still applies with
    ``git apply``; :attr:`timed_out` tells whether the last rendered aggregate contains such a
    fallback. Upstream invalidates the whole turn diff on a timeout; keeping the coarse diff
    instead shows the user every change, at the price of a less readable hunk.

    Rendering is lazy: :meth:`get_unified_diff` renders only when the state changed since the
    last call and re-diffs only the files whose texts changed. The cache has no visible effect;
    :attr:`render_count` and :attr:`rendered_diff_count` let tests see it work.
    """

    def __init__(
        self,
        environments: Mapping[str, str] | None = None,
        *,
        display_roots: Mapping[str, str] | None = None,
        timeout: float | None = DEFAULT_DIFF_TIMEOUT,
        filesystem: Filesystem | None = None,
    ) -> None:
        explicit = dict(display_roots or {})
        cwds = dict(environments or {})
        if not explicit and not cwds:
            raise ValueError(
                "TurnDiffTracker needs at least one environment, "
                'e.g. TurnDiffTracker({"": "/path/to/cwd"})'
            )
        roots = {
            env: explicit[env] if env in explicit else find_display_root(cwd, filesystem)
            for env, cwd in cwds.items()
        }
        roots.update(explicit)
        self._display_roots: dict[str, str] = roots
        self._timeout = timeout
        self._valid = True
        self._baseline: dict[TrackedPath, _Text] = {}
        self._current: dict[TrackedPath, _Text] = {}
        self._origin: dict[TrackedPath, TrackedPath] = {}
        self._next_text_revision = 0
        # Bumped on every visible state change; the aggregate is cached against it.
        self._revision = 0
        self._rendered_revision = -1
        self._rendered: str | None = None
        self._rendered_files: tuple[FileDiff, ...] = ()
        self._files_revision = -1
        self._file_cache: dict[_CacheKey, _RenderedFile] = {}
        self._display_cache: dict[TrackedPath, str] = {}
        self._timed_out = False
        self._render_count = 0
        self._rendered_diff_count = 0

    # -- public state ---------------------------------------------------------------------------

    @property
    def valid(self) -> bool:
        """False once the tracker was invalidated; it stays False for the rest of the turn."""
        return self._valid

    @property
    def display_roots(self) -> Mapping[str, str]:
        """Environment id -> the directory its display paths are relative to."""
        return MappingProxyType(self._display_roots)

    @property
    def timed_out(self) -> bool:
        """Whether the last rendered aggregate holds a file diff cut short by the deadline."""
        return self._timed_out

    @property
    def render_count(self) -> int:
        """How many times the aggregate was assembled (a cached read does not count)."""
        return self._render_count

    @property
    def rendered_diff_count(self) -> int:
        """How many file diffs were computed (files with unchanged texts are reused)."""
        return self._rendered_diff_count

    # -- folding --------------------------------------------------------------------------------

    def track_delta(
        self, delta: AppliedPatchDelta, environment_id: str = "", *, keep_refused: bool = False
    ) -> bool:
        """Fold one call's committed delta (docs/behaviour.md §8.2); True if the rendered diff may
        differ.

        An invalid tracker ignores everything. An inexact delta invalidates the tracker (a
        change it cannot describe happened), unless ``keep_refused`` and its only unknowns are
        writes refused before they reached the disk: then its changes are all that happened,
        and they are folded. An empty exact delta changes nothing.
        """
        if not self._valid:
            return False
        if not delta.exact and not (keep_refused and delta.inexact_only_by_refusals):
            self.invalidate()
            return True
        if not delta.changes:
            return False
        before = (dict(self._baseline), dict(self._current), dict(self._origin))
        for change in delta.changes:
            match change:
                case AppliedAdd(path=path, content=content, overwritten_content=overwritten):
                    self._fold_add((environment_id, path), content, overwritten)
                case AppliedDelete(path=path, content=content):
                    self._fold_delete((environment_id, path), content)
                case AppliedUpdate(
                    path=path,
                    move_path=move_path,
                    old_content=old,
                    overwritten_move_content=overwritten,
                    new_content=new,
                ):
                    dest = None if move_path is None else (environment_id, move_path)
                    self._fold_update((environment_id, path), dest, old, overwritten, new)
        changed = (
            not _same_texts(before[0], self._baseline)
            or not _same_texts(before[1], self._current)
            or before[2] != self._origin
        )
        if changed:
            self._revision += 1
        return changed

    def invalidate(self) -> None:
        """Forget everything: no diff for the rest of the turn (docs/behaviour.md §8.7)."""
        if not self._valid:
            return
        self._valid = False
        self._baseline.clear()
        self._current.clear()
        self._origin.clear()
        self._file_cache.clear()
        self._rendered = None
        self._rendered_files = ()
        self._timed_out = False
        self._revision += 1

    def _store(self, target: dict[TrackedPath, _Text], key: TrackedPath, text: str) -> None:
        # Re-storing an equal text keeps its revision, so its rendered block stays cached.
        existing = target.get(key)
        if existing is None or existing.text != text:
            target[key] = _Text(text, self._next_text_revision)
            self._next_text_revision += 1

    def _untracked(self, key: TrackedPath) -> bool:
        return key not in self._current and key not in self._baseline

    def _fold_add(self, key: TrackedPath, content: str, overwritten: str | None) -> None:
        self._origin.pop(key, None)
        if overwritten is not None and self._untracked(key):
            self._store(self._baseline, key, overwritten)
        self._store(self._current, key, content)

    def _fold_delete(self, key: TrackedPath, content: str) -> None:
        if self._current.pop(key, None) is None and key not in self._baseline:
            self._store(self._baseline, key, content)
        self._origin.pop(key, None)

    def _fold_update(
        self,
        source: TrackedPath,
        dest: TrackedPath | None,
        old: str,
        overwritten: str | None,
        new: str,
    ) -> None:
        if self._untracked(source):
            self._store(self._baseline, source, old)
        if dest is None:
            self._store(self._current, source, new)
            return
        if overwritten is not None and self._untracked(dest):
            self._store(self._baseline, dest, overwritten)
        origin = self._origin.pop(source, source)
        self._current.pop(source, None)
        self._store(self._current, dest, new)
        self._origin.pop(dest, None)
        if dest != origin:
            self._origin[dest] = origin

    # -- rendering ------------------------------------------------------------------------------

    def get_unified_diff(self) -> str | None:
        """The aggregate diff of the turn, or None if there is none or the tracker is invalid."""
        if not self._valid:
            return None
        if self._rendered_revision != self._revision:
            self._rendered = self._render()
            self._rendered_revision = self._revision
        return self._rendered

    def file_diffs(self) -> tuple[FileDiff, ...]:
        """The blocks of :meth:`get_unified_diff`, in order, with their paths (empty when there
        is no diff or the tracker is invalid); their texts joined are the aggregate.

        Built on demand from the render cache (no file is diffed again), so that a turn whose
        blocks nobody asks for does not keep them twice.
        """
        if self.get_unified_diff() is None:
            return ()
        if self._files_revision != self._revision:
            files = []
            for key, _, right_key, _, cache_key in self._walk():
                text = self._file_cache[cache_key].text
                if text is not None:
                    files.append(FileDiff(self._display(key), self._display(right_key), text))
            self._rendered_files = tuple(files)
            self._files_revision = self._revision
        return self._rendered_files

    def file_texts(self) -> tuple[FileTexts, ...]:
        """The texts of the blocks of :meth:`file_diffs`, in the same order (empty when there is
        no diff or the tracker is invalid). Nothing is diffed: the texts are the tracker's."""
        if not self._valid:
            return ()
        texts = []
        for key, left, right_key, right, _ in self._walk():
            before = None if left is None else left.text
            after = None if right is None else right.text
            if before != after:  # as _render_file: equal sides render no block
                texts.append(
                    FileTexts(
                        right_key[0],
                        self._display(key),
                        self._display(right_key),
                        key[1],
                        right_key[1],
                        before,
                        after,
                    )
                )
        return tuple(texts)

    def _display(self, key: TrackedPath) -> str:
        cached = self._display_cache.get(key)
        if cached is not None:
            return cached
        environment_id, path = key
        root = self._display_roots.get(environment_id)
        relative = None if root is None else _relative_to_root(path, root)
        display = (path if relative is None else relative).replace("\\", "/")
        if environment_id and len(self._display_roots) > 1:
            display = f"{environment_id}/{display}"
        self._display_cache[key] = display
        return display

    def _sort_key(self, key: TrackedPath) -> tuple[str, str, str]:
        # The display string decides (docs/behaviour.md §8.4); the key only breaks ties between two
        # paths that display alike, so that the order never depends on insertion order.
        return (self._display(key), key[0], key[1])

    def _rename_pairs(self) -> dict[TrackedPath, TrackedPath]:
        """Source -> destination of the moves that render as one rename block (docs/behaviour.md
        §8.3)."""
        pairs: dict[TrackedPath, TrackedPath] = {}
        for dest, source in self._origin.items():
            if (
                dest == source
                or source in self._current
                or dest not in self._current
                or source not in self._baseline
                or dest in self._baseline
            ):
                continue
            # Two live copies of one source (move, re-add, move again) both qualify; upstream's
            # hash map keeps an arbitrary one, we keep the first destination in display order.
            chosen = pairs.get(source)
            if chosen is None or self._sort_key(dest) < self._sort_key(chosen):
                pairs[source] = dest
        return pairs

    def _walk(
        self,
    ) -> Iterator[tuple[TrackedPath, _Text | None, TrackedPath, _Text | None, _CacheKey]]:
        """The file blocks of the aggregate in order (docs/behaviour.md §8.4): left key and text,
        right key and text, render-cache key."""
        pairs = self._rename_pairs()
        paired_destinations = set(pairs.values())
        keys = sorted(self._baseline.keys() | self._current.keys(), key=self._sort_key)
        handled: set[TrackedPath] = set()
        for key in keys:
            if key in handled or key in paired_destinations:
                continue
            handled.add(key)
            right_key = pairs.get(key, key)
            handled.add(right_key)
            left = self._baseline.get(key)
            right = self._current.get(right_key)
            cache_key = (
                key,
                None if left is None else left.revision,
                right_key,
                None if right is None else right.revision,
            )
            yield key, left, right_key, right, cache_key

    def _render(self) -> str | None:
        blocks: list[str] = []
        cache: dict[_CacheKey, _RenderedFile] = {}
        timed_out = False
        for key, left, right_key, right, cache_key in self._walk():
            rendered = self._file_cache.get(cache_key)
            if rendered is None:
                rendered = self._render_file(key, left, right_key, right)
            cache[cache_key] = rendered
            if rendered.text is not None:
                blocks.append(rendered.text)
                timed_out = timed_out or rendered.timed_out
        # Only what this aggregate used stays cached, so the cache never outgrows the maps.
        self._file_cache = cache
        self._timed_out = timed_out
        self._render_count += 1
        return "".join(blocks) or None

    def _render_file(
        self,
        left_key: TrackedPath,
        left: _Text | None,
        right_key: TrackedPath,
        right: _Text | None,
    ) -> _RenderedFile:
        left_text = None if left is None else left.text
        right_text = None if right is None else right.text
        # Equal sides (a pure rename, a net-zero edit) and two absent sides render nothing.
        if left_text == right_text:
            return _RenderedFile(None, False)
        self._rendered_diff_count += 1
        left_display = self._display(left_key)
        right_display = self._display(right_key)
        out = [f"diff --git a/{left_display} b/{right_display}\n"]
        if left_text is None:
            out.append(f"new file mode {REGULAR_FILE_MODE}\n")
        if right_text is None:
            out.append(f"deleted file mode {REGULAR_FILE_MODE}\n")
        left_oid = NULL_OID if left_text is None else git_blob_oid(left_text)
        right_oid = NULL_OID if right_text is None else git_blob_oid(right_text)
        out.append(f"index {left_oid}..{right_oid}\n")
        hunks, timed_out = unified_diff_with_status(
            left_text or "",
            right_text or "",
            context_radius=CONTEXT_RADIUS,
            header=(
                DEV_NULL if left_text is None else f"a/{left_display}",
                DEV_NULL if right_text is None else f"b/{right_display}",
            ),
            timeout=self._timeout,
        )
        out.append(hunks)
        text = "".join(out)
        if not text.endswith("\n"):
            text += "\n"
        return _RenderedFile(text, timed_out)


def _same_texts(before: dict[TrackedPath, _Text], after: dict[TrackedPath, _Text]) -> bool:
    return before.keys() == after.keys() and all(
        before[key].text == text.text for key, text in after.items()
    )
