"""The incremental patch parser (docs/behaviour.md §2): the one implementation of the grammar.

:class:`StreamingPatchParser` consumes text as it arrives (``push_delta``), acts only on complete
lines, keeps the rest buffered, and returns a snapshot of every hunk so far, the last one possibly
partial. ``finish`` handles a last line without newline and requires ``*** End Patch``. The batch
parser (:func:`applypatch_ext.core.parse.parser.parse_patch`) feeds the canonical text through this
class, so both always agree.

Work per delta is proportional to the delta: lines are never re-parsed, completed hunks are frozen
once, and a snapshot is a lazy view that builds the partial last hunk only when it is read (a
delta that completes no line returns the previous snapshot). Text taken in by ``feed`` waits and
is processed in bulk at the next read. A large text (the whole patch, for the batch parser, or
what ``feed`` gathered) is cut into windows split at C level; inside an Add hunk a run of ``+``
lines becomes its contents with two ``str.replace`` calls, without a Python step per line.

This module does not trim the outer text or unwrap heredocs (that is ``parse_patch``'s job) and
never touches the disk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ErrorReason, InvalidHunkError, InvalidPatchError, ParseError
from ..interrupts import checkpoint
from ..text import RUST_WHITESPACE
from ._hunks import AddBuilder, Builder, ChunkBuilder, HunkSnapshot, UpdateBuilder
from .model import (
    ADD_FILE_MARKER,
    BEGIN_PATCH_MARKER,
    CHANGE_CONTEXT_MARKER,
    DELETE_FILE_MARKER,
    DUPLICATE_ENVIRONMENT_ERROR,
    EMPTY_CHANGE_CONTEXT_MARKER,
    EMPTY_CHUNK_ERROR,
    EMPTY_ENVIRONMENT_ERROR,
    END_PATCH_MARKER,
    ENVIRONMENT_ID_MARKER,
    EOF_MARKER,
    FIRST_LINE_ERROR,
    LAST_LINE_ERROR,
    MOVE_TO_MARKER,
    UPDATE_FILE_MARKER,
    DeleteFile,
    Hunk,
    expected_context_marker_message,
    invalid_header_message,
    unexpected_update_line_message,
)

__all__ = ["HunkSnapshot", "StreamingPatchParser"]

# Parser modes (docs/behaviour.md §2.1). Small ints keep the per-line dispatch cheap.
_NOT_STARTED, _STARTED, _ADD, _DELETE, _UPDATE, _ENDED = range(6)

# Characters of a large delta split into lines at once (bounds the memory of the batch parse).
_WINDOW = 1 << 16


def _next_star_line(text: str, pos: int, end: int) -> int:
    """Where the first line after ``pos`` that starts with ``*`` begins, or ``end``.

    ``text[pos:end]`` holds whole lines. A lone ``*`` is found with ``memchr``; a few stars
    inside lines are stepped over before falling back to searching for ``"\\n*"``.
    """
    i = pos + 1
    for _ in range(32):
        i = text.find("*", i, end)
        if i < 0:
            return end
        if text[i - 1] == "\n":
            return i
        i += 1
    i = text.find("\n*", i - 1, end)
    return end if i < 0 else i + 1


class StreamingPatchParser:
    """Parse patch text incrementally (docs/behaviour.md §2).

    Two ways in. ``push_delta`` processes the lines a delta completes and returns the hunks.
    ``feed`` (a C-level list append, the cheapest call there is) only takes the delta in: the
    text waits until the hunks are next read (``snapshot``, ``push_delta``, ``finish``) and is
    then processed in bulk, so a consumer that reads the hunks now and then pays almost nothing
    per delta. A bad line then raises at that read.

    >>> parser = StreamingPatchParser()
    >>> len(parser.push_delta("*** Begin Patch\\n*** Add File: a.txt\\n+hel"))
    1
    """

    #: ``feed(delta)``: take a delta in, to be parsed at the next read (the bound ``append`` of
    #: the parser's buffer, so that a call costs no Python frame).
    feed: Callable[[str], None]

    def __init__(self) -> None:
        self.line_number = 0
        self.environment_id: str | None = None
        self._mode = _NOT_STARTED
        # Text taken in and not processed yet: the pieces from ``_clean`` on may hold a line
        # end; those before it hold none (they are the start of a line still incomplete).
        self._buffer: list[str] = []
        self._clean = 0
        self.feed = self._buffer.append
        self._hunks: list[Hunk] = []  # completed hunks, frozen
        self._current: Builder | None = None  # the hunk still growing
        self._error: ParseError | None = None
        self._snapshot: HunkSnapshot | None = None  # valid until the next processed line

    # -- public API ---------------------------------------------------------------------------

    def push_delta(self, delta: str) -> HunkSnapshot:
        """Consume ``delta``; act on every line it completes; return all hunks so far.

        Raises :class:`ParseError` at the first bad line; the parser then stays failed and every
        later call raises the same error.
        """
        if self._error is not None:
            raise self._error
        buffer = self._buffer
        if len(buffer) != self._clean:
            self._settle()  # text fed before this delta comes first
        nl = delta.find("\n")
        if nl < 0:  # the line goes on: nothing to process
            if delta:
                buffer.append(delta)
                self._clean += 1
            snapshot = self._snapshot
            return snapshot if snapshot is not None else self.snapshot()
        if buffer:
            buffer.append(delta[:nl])
            first = "".join(buffer)
            buffer.clear()
        else:
            first = delta[:nl]
        self._clean = 0
        self._process_lines([first])
        last_nl = delta.rfind("\n")
        if last_nl > nl:
            self._process_text(delta, nl + 1, last_nl + 1)
        if last_nl + 1 < len(delta):
            buffer.append(delta[last_nl + 1 :])
            self._clean = 1
        return self.snapshot()

    def finish(self) -> HunkSnapshot:
        """Process a final unterminated line and require ``*** End Patch`` (docs/behaviour.md
        §2.3)."""
        self._settle()
        line = "".join(self._buffer)
        self._buffer.clear()
        self._clean = 0
        if line:
            if line.strip(RUST_WHITESPACE) == END_PATCH_MARKER:
                # The last line ends the patch even inside an Update hunk, in any mode
                # (docs/behaviour.md §2.3).
                self._snapshot = None
                self.line_number += 1
                try:
                    self._close_hunk(line, is_end_patch=True)
                except ParseError as exc:
                    self._error = exc
                    raise
                self._mode = _ENDED
            else:
                self._process_lines([line])
        if self._mode != _ENDED:
            self._error = InvalidPatchError(LAST_LINE_ERROR, ErrorReason.LAST_LINE)
            raise self._error
        return self.snapshot()

    @staticmethod
    def completed_count(snapshot: Sequence[Hunk]) -> int:
        """How many leading hunks of ``snapshot`` are complete (they will never change)."""
        if isinstance(snapshot, HunkSnapshot):
            return snapshot._count
        return 0

    def snapshot(self) -> HunkSnapshot:
        """All hunks so far; the last one may still be growing."""
        if len(self._buffer) != self._clean:
            self._settle()
        if self._snapshot is not None:
            return self._snapshot
        current = self._current
        mark: object = None
        if isinstance(current, AddBuilder):
            mark = len(current.pieces)
        elif current is not None:
            mark = current.mark()
        self._snapshot = HunkSnapshot(self._hunks, len(self._hunks), current, mark)
        return self._snapshot

    @property
    def hunks(self) -> HunkSnapshot:
        return self.snapshot()

    # -- line processing ----------------------------------------------------------------------

    def _settle(self) -> None:
        """Process every complete line waiting in the buffer; keep the incomplete rest."""
        if self._error is not None:
            raise self._error
        buffer = self._buffer
        last = len(buffer) - 1
        while last >= self._clean and "\n" not in buffer[last]:
            last -= 1
        if last < self._clean:  # no line end in the new pieces
            self._clean = len(buffer)
            return
        if last == len(buffer) - 1:
            text = "".join(buffer)
            rest = []
        else:
            text = "".join(buffer[: last + 1])
            rest = buffer[last + 1 :]
        end = text.rfind("\n") + 1
        buffer.clear()
        if end < len(text):
            buffer.append(text[end:])
        buffer.extend(rest)
        self._clean = len(buffer)
        self._process_text(text, 0, end)

    def _process_text(self, text: str, pos: int, end: int) -> None:
        """Process ``text[pos:end]``, whole lines each ending with ``\\n``, window by window.

        A window ends after the next line that could open an Add hunk (so that a run of ``+``
        lines after it is taken in bulk) or after about ``_WINDOW`` characters (so that the
        split lines of a huge delta never all exist at once).
        """
        while pos < end:
            checkpoint("parsing")  # once a window: an interrupt stops a huge patch's parse
            if self._mode == _ADD and text.startswith("+", pos):
                pos = self._add_run(text, pos, end)
                continue
            stop = text.find(ADD_FILE_MARKER, pos, end)
            stop = end if stop < 0 else text.find("\n", stop, end) + 1
            if stop - pos > _WINDOW:
                cut = text.rfind("\n", pos, pos + _WINDOW)
                if cut >= pos:
                    stop = cut + 1
            self._process_lines(text[pos : stop - 1].split("\n"))
            pos = stop

    def _add_run(self, text: str, pos: int, end: int) -> int:
        """Append the run of ``+`` lines starting at ``pos`` to the Add hunk; return its end.

        The run is taken to end before the next line starting with ``*`` (a header or End Patch)
        if a C-level count proves that every line before it starts with ``+``; otherwise the
        lines up to there go through the line-by-line path, which gives the same result.
        """
        stop = _next_star_line(text, pos, end)
        n_lines = text.count("\n", pos, stop)
        piece = text[pos + 1 : stop]
        if "\r" in piece:
            piece = piece.replace("\r\n", "\n")  # one CR before each LF, as the line path drops
        contents = piece.replace("\n+", "\n")
        # Each "\n+" removed one character: all lines after the first started with "+".
        if len(piece) - len(contents) != n_lines - 1:
            self._process_lines(text[pos : stop - 1].split("\n"))
            return stop
        self._snapshot = None
        current = self._current
        assert isinstance(current, AddBuilder)
        current.pieces.append(contents)
        self.line_number += n_lines
        return stop

    def _process_lines(self, lines: list[str]) -> None:
        self._snapshot = None
        # The common lines, a diff line inside an open chunk or a "+" line of an Add, are handled
        # here inline; everything else goes through `_line`, the rules of docs/behaviour.md §1.5 in
        # order.
        chunk, add = self._fast_targets()
        try:
            for raw in lines:
                if raw.endswith("\r"):
                    raw = raw[:-1]
                self.line_number += 1
                if chunk is not None:
                    first = raw[:1]
                    if first == "+":
                        chunk.new.append(raw[1:])
                        continue
                    if first == "-":
                        chunk.old.append(raw[1:])
                        continue
                    if first == " ":
                        text = raw[1:]
                        old, new = chunk.old, chunk.new
                        chunk.context_line_indices.append((len(old), len(new)))
                        old.append(text)
                        new.append(text)
                        continue
                elif add is not None and raw.startswith("+"):
                    add.append(raw[1:] + "\n")
                    continue
                self._line(raw)
                chunk, add = self._fast_targets()
        except ParseError as exc:
            self._error = exc
            raise

    def _fast_targets(self) -> tuple[ChunkBuilder | None, list[str] | None]:
        """Where a diff line or an Add line can go without the full rules, if anywhere.

        A line starting with ``+``, ``-`` or space inside an Update is a diff line of the last
        chunk as long as that chunk exists and is not closed by ``*** End of File`` (no other
        rule of docs/behaviour.md §1.5 can match such a line).
        """
        current = self._current
        if self._mode == _UPDATE:
            assert isinstance(current, UpdateBuilder)
            if current.chunks and not current.chunks[-1].is_end_of_file:
                return current.chunks[-1], None
        elif self._mode == _ADD:
            assert isinstance(current, AddBuilder)
            return None, current.pieces
        return None, None

    def _line(self, raw: str) -> None:
        """One line (one CR already dropped), by the parser's mode."""
        mode = self._mode
        if mode == _UPDATE:
            self._update_line(raw)
        elif mode == _ADD and raw.startswith("+"):
            current = self._current
            assert isinstance(current, AddBuilder)
            current.pieces.append(raw[1:] + "\n")
        elif mode == _ENDED:
            if raw.strip(RUST_WHITESPACE):
                raise InvalidPatchError(LAST_LINE_ERROR, ErrorReason.LAST_LINE)
        elif mode == _NOT_STARTED:
            if raw.strip(RUST_WHITESPACE) != BEGIN_PATCH_MARKER:
                raise InvalidPatchError(FIRST_LINE_ERROR, ErrorReason.FIRST_LINE)
            self._mode = _STARTED
        else:
            self._header_line(raw)

    def _header_line(self, raw: str) -> None:
        """A line outside an Update hunk: right after Begin, or after an Add or Delete hunk."""
        trimmed = raw.strip(RUST_WHITESPACE)
        if self._start_hunk(trimmed):
            return
        if self._mode == _STARTED and trimmed.startswith(ENVIRONMENT_ID_MARKER):
            if self.environment_id is not None:
                raise InvalidPatchError(DUPLICATE_ENVIRONMENT_ERROR, ErrorReason.ENVIRONMENT)
            value = trimmed[len(ENVIRONMENT_ID_MARKER) :].strip(RUST_WHITESPACE)
            if not value:
                raise InvalidPatchError(EMPTY_ENVIRONMENT_ERROR, ErrorReason.ENVIRONMENT)
            self.environment_id = value
            return
        raise InvalidHunkError(
            invalid_header_message(trimmed), self.line_number, ErrorReason.INVALID_HUNK_HEADER
        )

    def _start_hunk(self, marker_line: str) -> bool:
        """Act on a hunk header or ``*** End Patch``; return False if ``marker_line`` is neither.

        ``marker_line`` is the line as matched (trimmed, or right-trimmed inside an Update hunk);
        a closing-check error quotes it in that form, as the reference does.
        """
        if not marker_line.startswith("*** "):
            return False
        if marker_line == END_PATCH_MARKER:
            self._close_hunk(marker_line, is_end_patch=True)
            self._mode = _ENDED
            return True
        if marker_line.startswith(ADD_FILE_MARKER):
            self._close_hunk(marker_line, is_end_patch=False)
            self._current = AddBuilder(marker_line[len(ADD_FILE_MARKER) :], self.line_number)
            self._mode = _ADD
            return True
        if marker_line.startswith(DELETE_FILE_MARKER):
            self._close_hunk(marker_line, is_end_patch=False)
            self._hunks.append(DeleteFile(marker_line[len(DELETE_FILE_MARKER) :], self.line_number))
            self._mode = _DELETE
            return True
        if marker_line.startswith(UPDATE_FILE_MARKER):
            self._close_hunk(marker_line, is_end_patch=False)
            self._current = UpdateBuilder(marker_line[len(UPDATE_FILE_MARKER) :], self.line_number)
            self._mode = _UPDATE
            return True
        return False

    def _close_hunk(self, line: str, *, is_end_patch: bool) -> None:
        """Freeze the growing hunk, with the closing checks of docs/behaviour.md §1.6 for an
        Update."""
        current = self._current
        if current is None:
            return
        if isinstance(current, UpdateBuilder):
            if not current.chunks:
                raise InvalidHunkError(
                    f"Update file hunk for path '{current.path}' is empty",
                    current.header_line,
                    ErrorReason.EMPTY_UPDATE,
                )
            if not current.chunks[-1].old and not current.chunks[-1].new:
                if is_end_patch:
                    raise InvalidHunkError(
                        EMPTY_CHUNK_ERROR, self.line_number, ErrorReason.EMPTY_CHUNK
                    )
                raise InvalidHunkError(
                    unexpected_update_line_message(line),
                    self.line_number,
                    ErrorReason.UNEXPECTED_LINE,
                )
        self._hunks.append(current.freeze())
        self._current = None

    def _update_line(self, raw: str) -> None:
        """A line inside an Update hunk (docs/behaviour.md §1.5, rules 1 to 10 in order)."""
        update = self._current
        assert isinstance(update, UpdateBuilder)
        u = raw.rstrip(RUST_WHITESPACE)
        # 1. a hunk header or End Patch (matched on the right-trimmed line only)
        if u.startswith("*** ") and self._start_hunk(u):
            return
        chunks = update.chunks
        last = chunks[-1] if chunks else None
        is_context_marker = u == EMPTY_CHANGE_CONTEXT_MARKER or u.startswith(CHANGE_CONTEXT_MARKER)
        # 2. after an End of File marker only blank lines or a new @@ chunk may follow
        if last is not None and last.is_end_of_file:
            if not u:
                return
            if not is_context_marker:
                raise InvalidHunkError(
                    expected_context_marker_message(raw),
                    self.line_number,
                    ErrorReason.EXPECTED_CONTEXT_MARKER,
                )
        # 3. Move to, only as the first line after the header
        if last is None and update.move_path is None and u.startswith(MOVE_TO_MARKER):
            update.move_path = u[len(MOVE_TO_MARKER) :]
            return
        if is_context_marker:
            # 4. two @@ in a row
            if last is not None and not last.old and not last.new:
                raise InvalidHunkError(
                    unexpected_update_line_message(raw),
                    self.line_number,
                    ErrorReason.UNEXPECTED_LINE,
                )
            # 5. and 6.
            context = None if u == EMPTY_CHANGE_CONTEXT_MARKER else u[3:]
            update.start_chunk(context, self.line_number)
            return
        # 7. End of File
        if u == EOF_MARKER:
            if last is not None:
                if not last.old and not last.new:
                    raise InvalidHunkError(
                        EMPTY_CHUNK_ERROR, self.line_number, ErrorReason.EMPTY_CHUNK
                    )
                last.is_end_of_file = True
            return
        # 8. and 9. diff lines
        first = raw[:1]
        if first in ("", " ", "+", "-"):
            if last is None:
                last = update.start_chunk(None, self.line_number)
            if first == "+":
                last.new.append(raw[1:])
            elif first == "-":
                last.old.append(raw[1:])
            else:
                text = raw[1:]
                last.context_line_indices.append((len(last.old), len(last.new)))
                last.old.append(text)
                last.new.append(text)
            return
        # 10. anything else
        if last is not None and (last.old or last.new):
            raise InvalidHunkError(
                expected_context_marker_message(raw),
                self.line_number,
                ErrorReason.EXPECTED_CONTEXT_MARKER,
            )
        raise InvalidHunkError(
            unexpected_update_line_message(raw), self.line_number, ErrorReason.UNEXPECTED_LINE
        )
