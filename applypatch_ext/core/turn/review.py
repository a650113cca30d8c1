"""Per-file and per-hunk review of a call waiting for approval (docs/behaviour.md §6.7).

A reviewer sees every file of the patch and every chunk of an Update, each with its diff (the
chunk's own text) and, for a chunk the seek cascade matched only fuzzily, the file's actual
lines beside the patch's (:func:`review_files`). An approval may then accept only some of them
(an :data:`~.options.Accept` selection): :func:`normalize_selection` checks it against the
parsed patch, :func:`select_hunks` builds the new patch of the selected hunks only (its own
canonical text, verified and assessed again by the call), and :func:`not_applied` words what
was left out for the model.

Added, deleted and moved files are all or nothing: a chunk of a move cannot be applied without
the move. Keys are the paths as the patch writes them (the source path of a move).
"""

from __future__ import annotations

import reprlib
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..apply.contents import locate_chunks
from ..apply.fs import Filesystem, relative_path, resolve_path
from ..errors import ApplyPatchError
from ..parse.model import AddFile, DeleteFile, Hunk, ParsedPatch, UpdateFile, render_patch
from ..parse.parser import parse_patch
from ..text import LineEndings, plural
from .options import Accept

#: The model-visible line of each file or chunk the user left out.
NOT_APPLIED: Final = "not applied, by the user: "
#: Before the reason of a decline, on the line after ``patch rejected by user``.
DECLINE_REASON: Final = "The user's reason: "
#: A decline's reason is cut after this many characters as shown (docs/behaviour.md §6.9).
MAX_REASON_CHARS: Final = 2000
#: The indentation of a reason's further lines: none of them can pass for a line of the output.
REASON_INDENT: Final = "  "
#: Characters shown escaped in a reason: bidi controls and the Unicode line separators (the C0
#: and C1 controls, DEL included, are too: see :func:`_shown_char`).
_ESCAPED: Final = frozenset(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


class _Brief(reprlib.Repr):
    """``repr`` cut short: a value quoted in an error message stays a few dozen characters, and
    an integer too long for ``str`` (Python's 4300-digit limit) is described, not converted."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 80
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdict = 6

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() <= 64:
            return repr(x)
        return f"(an integer of about {int(x.bit_length() * 0.30103) + 1} digits)"


_brief = _Brief().repr


def _chunk_counts(parsed: ParsedPatch) -> dict[str, int]:
    """Per path as written, the number of chunks of its Update hunks (0 for Add/Delete)."""
    counts: dict[str, int] = {}
    for hunk in parsed.hunks:
        chunks = len(hunk.chunks) if isinstance(hunk, UpdateFile) else 0
        counts[hunk.path] = counts.get(hunk.path, 0) + chunks
    return counts


def _whole_only(parsed: ParsedPatch) -> dict[str, str]:
    """The paths that can only be accepted whole, with what they are (for the error)."""
    kinds: dict[str, str] = {}
    for hunk in parsed.hunks:
        if isinstance(hunk, AddFile):
            kinds[hunk.path] = "an added file"
        elif isinstance(hunk, DeleteFile):
            kinds[hunk.path] = "a deleted file"
        elif hunk.move_path is not None:
            kinds[hunk.path] = f"a file moved to {hunk.move_path}"
    return kinds


@dataclass(frozen=True)
class Selection:
    """A checked selection: per path as written, the chunk indexes kept (all for True)."""

    keep: Mapping[str, frozenset[int]]
    counts: Mapping[str, int]

    @property
    def everything(self) -> bool:
        """Every path kept whole: an all-or-nothing file (no chunks) only if it is kept."""
        return all(
            self._whole(path) if count == 0 else len(self.keep[path]) == count
            for path, count in self.counts.items()
        )

    @property
    def nothing(self) -> bool:
        return not any(self.kept(path) for path in self.counts)

    def _whole(self, path: str) -> bool:
        return self.counts[path] == 0 and -1 in self.keep[path]

    def kept(self, path: str) -> bool:
        """Something of ``path`` is applied."""
        return bool(self.keep[path]) if self.counts[path] else -1 in self.keep[path]

    def to_json(self) -> dict[str, Any]:
        """Per path: True, False, or the sorted chunk indexes kept."""
        out: dict[str, Any] = {}
        for path, count in self.counts.items():
            keep = self.keep[path]
            if count == 0 or len(keep) == count or not keep:
                out[path] = self.kept(path)
            else:
                out[path] = sorted(keep)
        return out


def normalize_selection(parsed: ParsedPatch, accept: Accept) -> Selection:
    """Check ``accept`` against the patch. It names what the approval covers: a path it does
    not name is not applied (an approval covers what was named, nothing else).

    Raises ``ValueError`` naming the path and what is valid: a path not in the patch, a chunk
    index out of range, a list for a file that is all or nothing, a value of another type.
    """
    counts = _chunk_counts(parsed)
    whole = _whole_only(parsed)
    valid_paths = ", ".join(counts)
    keep: dict[str, frozenset[int]] = {path: frozenset() for path in counts}
    moves = {h.move_path: h.path for h in parsed.hunks if isinstance(h, UpdateFile) and h.move_path}
    for path, value in accept.items():
        if path not in counts and path in moves:
            raise ValueError(
                f"accept: {_brief(path)} is where {moves[path]} moves to: name the move by its "
                f"source path, {moves[path]}; the patch's paths are: {valid_paths}"
            )
        if path not in counts:
            raise ValueError(
                f"accept: {_brief(path)} is not a path of this patch; its paths are: {valid_paths}"
            )
        count = counts[path]
        if isinstance(value, bool):
            if count:
                keep[path] = frozenset(range(count)) if value else frozenset()
            else:
                keep[path] = frozenset((-1,)) if value else frozenset()
            continue
        if isinstance(value, str | bytes) or not isinstance(value, Sequence | set | frozenset):
            raise ValueError(
                f"accept: {_brief(path)}: give True, False or a list of chunk indexes, not "
                f"{_brief(value)}"
            )
        if path in whole:
            raise ValueError(
                f"accept: {_brief(path)} is {whole[path]}: accept it whole (True) or not at all "
                "(False), not by chunk"
            )
        indexes: set[int] = set()
        for item in value:
            if isinstance(item, bool) or not isinstance(item, int):
                raise ValueError(
                    f"accept: {_brief(path)}: chunk indexes are integers, got {_brief(item)}"
                )
            if not 0 <= item < count:
                raise ValueError(
                    f"accept: {_brief(path)}: chunk index {_brief(item)} is out of range; it has "
                    f"{plural(count, 'chunk')}, indexes 0 to {count - 1}"
                )
            indexes.add(item)
        keep[path] = frozenset(indexes)
    return Selection(keep, counts)


def parse_accept(specs: Sequence[str]) -> dict[str, bool | tuple[int, ...]]:
    """A selection from ``--accept`` texts: ``PATH`` or ``PATH:all`` (the whole file),
    ``PATH:none`` (not at all), ``PATH:0,2`` (those 0-based chunks). A suffix after the last
    ``:`` that is none of these is part of the path. Raises ``ValueError`` naming the text."""
    accept: dict[str, bool | tuple[int, ...]] = {}
    for spec in specs:
        path, colon, suffix = spec.rpartition(":")
        value: bool | tuple[int, ...]
        if colon and suffix.strip() in ("all", "none"):
            value = suffix.strip() == "all"
        elif colon and suffix.replace(",", "").replace(" ", "").isdigit():
            items = [item.strip() for item in suffix.split(",")]
            if not all(item.isascii() and item.isdigit() for item in items):
                raise ValueError(
                    f"--accept {spec!r}: chunk indexes are 0-based integers separated by "
                    f"commas, e.g. {path}:0,2"
                )
            value = tuple(int(item) for item in items)
        else:
            path, value = spec, True
        if not path:
            raise ValueError(
                f"--accept {spec!r}: name a path of the patch: PATH, PATH:0,2, PATH:all or "
                "PATH:none"
            )
        if path in accept:
            raise ValueError(f"--accept names {path!r} twice; give each path once")
        accept[path] = value
    return accept


def select_hunks(parsed: ParsedPatch, selection: Selection) -> ParsedPatch | None:
    """The patch of the selected hunks only, parsed from its canonical text (None when nothing
    is selected). Chunk indexes count every chunk of a path, across its Update hunks."""
    hunks: list[Hunk] = []
    seen: dict[str, int] = {}
    for hunk in parsed.hunks:
        if not isinstance(hunk, UpdateFile) or selection.counts[hunk.path] == 0:
            if selection.kept(hunk.path):
                hunks.append(hunk)
            continue
        if hunk.move_path is not None:  # all or nothing
            if selection.kept(hunk.path):
                hunks.append(hunk)
            seen[hunk.path] = seen.get(hunk.path, 0) + len(hunk.chunks)
            continue
        first = seen.get(hunk.path, 0)
        seen[hunk.path] = first + len(hunk.chunks)
        keep = selection.keep[hunk.path]
        chunks = tuple(c for i, c in enumerate(hunk.chunks, first) if i in keep)
        if chunks:
            hunks.append(UpdateFile(hunk.path, None, chunks))
    if not hunks:
        return None
    return parse_patch(render_patch(hunks, parsed.environment_id))


def _shown_lines(
    parsed: ParsedPatch, cwd: str, fs: Filesystem, line_endings: LineEndings
) -> dict[tuple[str, int], int]:
    """Per (path as written, chunk index), the 1-based line where the review shows it matched."""
    return {
        (entry["path"], chunk["index"]): chunk["line"]
        for entry in review_files(parsed, cwd, fs, line_endings)
        for chunk in entry["chunks"]
        if chunk["line"] is not None
    }


def moved_chunks(
    parsed: ParsedPatch,
    selection: Selection,
    selected: ParsedPatch,
    cwd: str,
    fs: Filesystem,
    line_endings: LineEndings = LineEndings.PRESERVE,
) -> list[str]:
    """The kept chunks that the patch of the selected hunks matches at other lines than the
    whole patch does (what the review showed): the chunks of a file are sought in order, each
    from where the one before matched, so dropping a chunk can let a later one match earlier
    lines. One text per chunk, ``a.py chunk 2 of 3 (shown at line 40, now line 12)``."""
    shown = _shown_lines(parsed, cwd, fs, line_endings)
    now = _shown_lines(selected, cwd, fs, line_endings)
    moved: list[str] = []
    for path, count in selection.counts.items():
        for new_index, index in enumerate(sorted(i for i in selection.keep[path] if i >= 0)):
            before, after = shown.get((path, index)), now.get((path, new_index))
            if before is not None and after is not None and before != after:
                moved.append(
                    f"{path} chunk {index + 1} of {count} (shown at line {before}, now line "
                    f"{after})"
                )
    return moved


def not_applied(selection: Selection) -> list[str]:
    """The model-visible lines of what the user left out, in patch order."""
    lines: list[str] = []
    for path, count in selection.counts.items():
        keep = selection.keep[path]
        if not selection.kept(path):
            lines.append(f"{NOT_APPLIED}{path}")
            continue
        lines.extend(
            f"{NOT_APPLIED}{chunk_name(path, i, count)}" for i in range(count) if i not in keep
        )
    return lines


def chunk_name(path: str, index: int, count: int) -> str:
    """A chunk as the model and the reviewer read it: ``a.txt chunk 2 of 3`` (``index`` from 0,
    counted over every Update hunk of the path, as a selection counts them)."""
    return f"{path} chunk {index + 1} of {count}"


#: What each kind of hunk does, as a review labels its file (a move says where to).
_DOES: Final = {"add": "added", "delete": "deleted", "update": "updated"}


def file_label(path: str, kind: str, move_path: str | None, chunks: int, cwd: str) -> str:
    """A review's file as a reviewer reads it: ``a.txt (updated, 3 chunks)``, ``b.txt (added,
    all or nothing)``, ``m.txt (moved to n.txt, all or nothing)`` (paths relative to ``cwd``)."""
    does = f"moved to {relative_path(move_path, cwd)}" if move_path else _DOES.get(kind, kind)
    size = plural(chunks, "chunk") if chunks else "all or nothing"
    return f"{relative_path(path, cwd)} ({does}, {size})"


def fuzzy_note(seek_pass: str | None) -> str:
    """What a review says of a chunk the seek cascade matched only fuzzily (``seek_pass`` the
    pass that did); an exact match gets no note (:func:`review_files`)."""
    return f"matched by the {seek_pass} pass: the file's text differs from the patch's"


def chunk_label(name: str, line: int | None) -> str:
    """A review's chunk as a reviewer reads it: its name (:func:`chunk_name`) and the file's
    line where it matched, when it did (``a.txt chunk 2 of 3, line 4``)."""
    return name if line is None else f"{name}, line {line}"


def _shown_char(char: str) -> str:
    """A character of a reason as the model gets it: a control character escaped as Python
    writes it (``\\x1b``, ``\\r``, ``\\u202e``), so that no ANSI sequence, carriage return
    or bidi override reaches a terminal or the model raw; a tab and every other one as it is."""
    if char == "\t" or (unicodedata.category(char) != "Cc" and char not in _ESCAPED):
        return char
    return repr(char)[1:-1]


def clean_reason(reason: str | None) -> str | None:
    """A decline's reason as the model, the events and stderr get it (docs/behaviour.md §6.9):
    trimmed (None when blank), control characters escaped, each line trimmed at its end and
    every line after the first indented by :data:`REASON_INDENT` (so no line of it reads as an
    ``Exit code:`` or ``Output:`` line of the tool's output), and cut after
    :data:`MAX_REASON_CHARS` characters as shown, saying how many more there were."""
    text = (reason or "").replace("\r\n", "\n").strip()
    if not text:
        return None
    shown: list[str] = []
    size = 0
    cut = 0
    for index, char in enumerate(text):
        piece = "\n" if char == "\n" else _shown_char(char)
        if size + len(piece) > MAX_REASON_CHARS:
            cut = len(text) - index
            break
        shown.append(piece)
        size += len(piece)
    lines = [line.rstrip() for line in "".join(shown).split("\n")]
    body = "\n".join([lines[0], *(REASON_INDENT + line if line else "" for line in lines[1:])])
    return body if not cut else f"{body} ... ({cut} more characters not shown)"


def declined_text(rejected: str, reason: str | None) -> str:
    """The reference's decline text, then the user's reason (if any, :func:`clean_reason`) on
    its own line."""
    cleaned = clean_reason(reason)
    return rejected if cleaned is None else f"{rejected}\n{DECLINE_REASON}{cleaned}"


def review_files(
    parsed: ParsedPatch,
    cwd: str,
    fs: Filesystem,
    line_endings: LineEndings = LineEndings.PRESERVE,
) -> list[dict[str, Any]]:
    """What a reviewer sees, per hunk in patch order: path, kind, move path, whether it is all
    or nothing, its chunks (index, the chunk's diff text, the pass that matched it and, for a
    fuzzy match, the file's line beside the patch's where they differ).

    Each file and chunk has its ``label``, the words every view shows (:func:`file_label`,
    :func:`chunk_label`); each chunk its ``name``, the words the model reads when it is left
    out (:func:`chunk_name`), and its ``note`` when it matched fuzzily (:func:`fuzzy_note`):
    the widget and the records show these, never words of their own.

    Reads each updated file once; computed only for a call that asks. A file that no longer
    matches (edited meanwhile) gets no marks: the call verifies again when answered.
    """
    files: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    counts = _chunk_counts(parsed)
    for hunk in parsed.hunks:
        entry: dict[str, Any] = {"path": hunk.path, "kind": hunk.kind, "move_path": None}
        if not isinstance(hunk, UpdateFile):
            label = file_label(hunk.path, hunk.kind, None, 0, cwd)
            entry.update(whole=True, chunks=[], text=str(hunk), label=label)
            files.append(entry)
            continue
        first = seen.get(hunk.path, 0)
        seen[hunk.path] = first + len(hunk.chunks)
        marks: dict[int, dict[str, Any]] = {}
        try:
            original = fs.read_bytes(resolve_path(cwd, hunk.path)).decode("utf-8")
            for match in locate_chunks(original, hunk.path, hunk.chunks, line_endings):
                marks[match.index] = match.to_json()
        except (OSError, UnicodeDecodeError, ApplyPatchError):
            pass
        chunks = []
        for i, chunk in enumerate(hunk.chunks):
            mark = marks.get(i, {"line": None, "pass": None, "fuzzy": False, "pairs": []})
            name = chunk_name(hunk.path, first + i, counts[hunk.path])
            chunks.append(
                {
                    "index": first + i,
                    "name": name,
                    "label": chunk_label(name, mark["line"]),
                    "text": str(chunk),
                    "line": mark["line"],
                    "pass": mark["pass"],
                    "fuzzy": mark["fuzzy"],
                    "note": fuzzy_note(mark["pass"]) if mark["fuzzy"] else "",
                    "pairs": mark["pairs"],
                }
            )
        whole = hunk.move_path is not None
        entry.update(
            move_path=hunk.move_path,
            whole=whole,
            chunks=chunks,
            text=str(hunk),
            label=file_label(
                hunk.path, hunk.kind, hunk.move_path, 0 if whole else len(chunks), cwd
            ),
        )
        files.append(entry)
    return files
