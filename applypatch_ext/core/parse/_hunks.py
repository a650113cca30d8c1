"""The hunks of a patch while they grow: the streaming parser's builders and its snapshots.

:class:`StreamingPatchParser <.streaming.StreamingPatchParser>` appends each line to a builder
(:class:`AddBuilder`, :class:`UpdateBuilder` with its :class:`ChunkBuilder`) and freezes it into
a hunk record once, when the hunk ends. :class:`HunkSnapshot` is what every ``push_delta``
returns: the completed hunks, shared, and the partial last one, built from its builder only when
it is read, with the sizes recorded when the snapshot was taken, so later input never leaks into
an older snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import overload

from .model import AddFile, Hunk, UpdateFile, UpdateFileChunk

# (move_path, chunk count, and the last chunk's old/new/context counts and end-of-file flag)
UpdateMark = tuple[str | None, int, int, int, int, bool]


class ChunkBuilder:
    __slots__ = ("change_context", "context_line_indices", "is_end_of_file", "line", "new", "old")

    def __init__(self, change_context: str | None, line: int = 0) -> None:
        self.change_context = change_context
        self.line = line
        self.old: list[str] = []
        self.new: list[str] = []
        self.context_line_indices: list[tuple[int, int]] = []
        self.is_end_of_file = False

    def freeze(
        self, n_old: int | None = None, n_new: int | None = None, n_ctx: int | None = None
    ) -> UpdateFileChunk:
        return UpdateFileChunk(
            change_context=self.change_context,
            old_lines=tuple(self.old[:n_old]),
            new_lines=tuple(self.new[:n_new]),
            context_line_indices=tuple(self.context_line_indices[:n_ctx]),
            is_end_of_file=self.is_end_of_file,
            line=self.line,
        )


class AddBuilder:
    __slots__ = ("line", "path", "pieces")

    def __init__(self, path: str, line: int = 0) -> None:
        self.path = path
        self.line = line
        # The contents so far: one or more whole lines per piece, each line followed by "\n".
        self.pieces: list[str] = []

    def freeze(self, n_pieces: int | None = None) -> AddFile:
        return AddFile(self.path, "".join(self.pieces[:n_pieces]), self.line)


class UpdateBuilder:
    __slots__ = ("chunks", "frozen", "header_line", "move_path", "path")

    def __init__(self, path: str, header_line: int) -> None:
        self.path = path
        self.header_line = header_line
        self.move_path: str | None = None
        self.chunks: list[ChunkBuilder] = []
        self.frozen: list[UpdateFileChunk] = []  # every chunk but the last, frozen once

    def start_chunk(self, change_context: str | None, line: int = 0) -> ChunkBuilder:
        if self.chunks:
            self.frozen.append(self.chunks[-1].freeze())
        chunk = ChunkBuilder(change_context, line)
        self.chunks.append(chunk)
        return chunk

    def freeze(self, mark: UpdateMark | None = None) -> UpdateFile:
        if mark is None:
            chunks = list(self.frozen)
            if self.chunks:
                chunks.append(self.chunks[-1].freeze())
            return UpdateFile(self.path, self.move_path, tuple(chunks), self.header_line)
        move_path, n_chunks, n_old, n_new, n_ctx, eof = mark
        chunks = self.frozen[: max(n_chunks - 1, 0)]
        if n_chunks:
            last = self.chunks[n_chunks - 1].freeze(n_old, n_new, n_ctx)
            if last.is_end_of_file != eof:
                last = replace(last, is_end_of_file=eof)
            chunks.append(last)
        return UpdateFile(self.path, move_path, tuple(chunks), self.header_line)

    def mark(self) -> UpdateMark:
        if not self.chunks:
            return (self.move_path, 0, 0, 0, 0, False)
        last = self.chunks[-1]
        return (
            self.move_path,
            len(self.chunks),
            len(last.old),
            len(last.new),
            len(last.context_line_indices),
            last.is_end_of_file,
        )


Builder = AddBuilder | UpdateBuilder


class HunkSnapshot(Sequence[Hunk]):
    """An immutable view of the hunks parsed so far, built lazily.

    Completed hunks are shared with the parser (they never change); the partial last hunk is
    materialised from the parser's builders on first access, using the sizes recorded when the
    snapshot was taken, so later input does not leak into an older snapshot.
    """

    __slots__ = ("_cache", "_completed", "_count", "_mark", "_partial")

    def __init__(
        self,
        completed: list[Hunk],
        count: int,
        partial: Builder | None,
        mark: object,
    ) -> None:
        self._completed = completed
        self._count = count
        self._partial = partial
        self._mark = mark
        self._cache: Hunk | None = None

    def __len__(self) -> int:
        return self._count + (self._partial is not None)

    @overload
    def __getitem__(self, index: int) -> Hunk: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Hunk]: ...
    def __getitem__(self, index: int | slice) -> Hunk | Sequence[Hunk]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("hunk index out of range")
        if index < self._count:
            return self._completed[index]
        return self._partial_hunk()

    def __iter__(self) -> Iterator[Hunk]:
        yield from self._completed[: self._count]
        if self._partial is not None:
            yield self._partial_hunk()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"HunkSnapshot({list(self)!r})"

    def _partial_hunk(self) -> Hunk:
        if self._cache is None:
            partial = self._partial
            if isinstance(partial, AddBuilder):
                assert isinstance(self._mark, int)
                self._cache = partial.freeze(self._mark)
            else:
                assert partial is not None
                self._cache = partial.freeze(self._mark)  # type: ignore[arg-type]
        return self._cache
