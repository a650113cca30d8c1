"""The coloured lines a call's diff views may show: the ``sources`` and ``turn_sources``
traits (their lines lexed by :mod:`.highlight`).

The widget (``js/src/``) never receives HTML: per file it gets, for each side of the diff
(``old``, ``new``), the lines it may show as token runs ``[css_class, text]`` and builds DOM
nodes from them, so nothing in a file can inject markup. The static fallback can use the same
data. Everything is bounded: only the lines of the hunks (and, on the new side, a window of
unchanged lines around them that the view can expand) are sent, long lines are cut, and a
call sends at most :data:`MAX_LINES` lines in all. Only those lines are lexed (each block of
them with :data:`LEAD_IN` lines before it for the lexer's state), so the cost follows what is
shown, not the size of the file.

The data of one file (see :func:`file_sources`)::

    {"language": "Python",
     "old": [[first_line_number, [line, line, ...]], ...],   # ranges, 1-based, ascending
     "new": [[first_line_number, [line, ...]], ...],
     "old_lines": 120, "new_lines": 124,                       # the sides' total line counts
     "cut": False}                                             # True when lines were left out

where a ``line`` is a plain string (no colouring) or a list of ``[css_class, text]`` runs whose
texts join to the line. The classes are the short names of :data:`CLASSES` (the CSS colours
them with JupyterLab's editor theme variables).

Two entry points fill the widget's traits (the session calls them, see the widget's help):
:func:`call_sources` for the call's own changes (``sources``: from the verified change map and
the committed delta, which know the files' old and new texts) and :func:`turn_sources` for the
TurnDiff (``turn_sources``: lexed from the diff's own lines, as the turn's other texts are not
known here).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from ...core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
    ApplyPatchAction,
    FileAdd,
    FileDelete,
    FileUpdate,
)
from .highlight import _HUNK, Line, highlight_lines, lexer_for, plain_lines

#: ``[first_line_number, lines]`` ranges of one side.
Ranges: TypeAlias = list[list[Any]]

#: Unchanged lines sent around each hunk on the new side (what "show N lines" can reveal).
EXPAND_WINDOW: Final = 20
#: Lines sent per file and per call (both sides together).
MAX_FILE_LINES: Final = 800
MAX_LINES: Final = 4000
#: A line longer than this is cut (its first characters kept) and the file marked ``cut``.
MAX_LINE_CHARS: Final = 1000
#: Seconds of lexing per trait (a call's ``sources``, a TurnDiff's ``turn_sources``): Pygments
#: lexes about 6,000 code lines a second, and the colours come between the pipeline's end and
#: the final state shown; past this, the remaining texts are sent plain and marked ``cut``.
LEX_SECONDS: Final = 0.15
#: Lines lexed before each block of wanted lines, for the lexer's state (a string or comment
#: opened further up is not seen: only the lines shown are lexed, so the cost follows them).
LEAD_IN: Final = 10


def _cut(line: Line) -> tuple[Line, bool]:
    """``line`` cut to :data:`MAX_LINE_CHARS` characters, and whether it was."""
    if isinstance(line, str):
        return (line, False) if len(line) <= MAX_LINE_CHARS else (line[:MAX_LINE_CHARS], True)
    total = sum(len(run[1]) for run in line)
    if total <= MAX_LINE_CHARS:
        return line, False
    kept: list[list[str]] = []
    room = MAX_LINE_CHARS
    for cls, text in line:
        if room <= 0:
            break
        kept.append([cls, text[:room]])
        room -= len(text)
    return kept, True


class _Budget:
    """Lines left to send, and the time left to lex them (see :data:`LEX_SECONDS`)."""

    def __init__(self, total: int, seconds: float | None = None) -> None:
        self.left = total
        self.seconds = LEX_SECONDS if seconds is None else seconds
        self.started: float | None = None  # when the first text was lexed
        self.plain = 0  # texts sent plain: out of time

    def take(self, wanted: int) -> int:
        granted = max(0, min(wanted, self.left))
        self.left -= granted
        return granted

    def lex(self, path: str, text: str) -> list[Line]:
        """``text`` coloured (see :func:`highlight_lines`), or plain once the time is up; the
        first text is always coloured (the clock starts once its lexer is ready)."""
        now = time.monotonic()
        if self.started is not None and now - self.started > self.seconds:
            self.plain += 1
            return list(plain_lines(text))
        lines = highlight_lines(path, text)
        if self.started is None:
            self.started = time.monotonic()
        return lines


def ranges_of(
    lines: Mapping[int, Line], wanted: Iterable[int], room: int
) -> tuple[Ranges, bool, int]:
    """The ``wanted`` 1-based line numbers of ``lines`` (by number) as ascending ranges, at most
    ``room`` lines in all; also whether anything was left out or cut, and how many were sent."""
    numbers = sorted({n for n in wanted if n in lines})
    cut = len(numbers) > room
    numbers = numbers[: max(0, room)]
    out: Ranges = []
    for n in numbers:
        line, was_cut = _cut(lines[n])
        cut = cut or was_cut
        if out and out[-1][0] + len(out[-1][1]) == n:
            out[-1][1].append(line)
        else:
            out.append([n, [line]])
    return out, cut, len(numbers)


def coloured(
    path: str, plain: list[str], wanted: Iterable[int], room: int, budget: _Budget | None = None
) -> dict[int, Line]:
    """The lines ``wanted`` (1-based, at most ``room`` of them) of the text whose lines are
    ``plain``, coloured: each block of them lexed with :data:`LEAD_IN` lines before it (while
    the ``budget``'s time lasts; plain after)."""
    lex = budget.lex if budget is not None else highlight_lines
    numbers = sorted({n for n in wanted if 1 <= n <= len(plain)})[: max(0, room)]
    out: dict[int, Line] = {}
    blocks: list[list[int]] = []
    for n in numbers:
        if blocks and n - blocks[-1][1] <= LEAD_IN:
            blocks[-1][1] = n
        else:
            blocks.append([n, n])
    for first, last in blocks:
        start = max(1, first - LEAD_IN)
        chunk = lex(path, "\n".join(plain[start - 1 : last]) + "\n")
        for n in range(first, last + 1):
            out[n] = chunk[n - start]
    return {n: out[n] for n in numbers}


def hunk_lines(diff: str) -> tuple[set[int], set[int]]:
    """The old line numbers a unified diff removes and the new ones its hunks show."""
    removed: set[int] = set()
    shown: set[int] = set()
    old = new = 0
    for line in diff.split("\n"):
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if old == 0 and new == 0:
            continue
        if line.startswith("-"):
            removed.add(old)
            old += 1
        elif line.startswith("+"):
            shown.add(new)
            new += 1
        elif line.startswith(" "):
            shown.add(new)
            old += 1
            new += 1
    return removed, shown


def _around(numbers: set[int], window: int) -> set[int]:
    out: set[int] = set()
    for n in numbers:
        out.update(range(n - window, n + window + 1))
    return out


def file_sources(
    path: str,
    old: str | None,
    new: str | None,
    *,
    diff: str | None = None,
    budget: _Budget | None = None,
) -> dict[str, Any]:
    """The lines of one file a diff view shows, coloured (see the module's docstring).

    ``old`` / ``new`` are the whole texts (None for the side an Add or a Delete lacks). With
    the ``diff`` between them, the old side sends its removed lines and the new side its hunks
    plus :data:`EXPAND_WINDOW` lines around them; without it (an Add, a Delete) a side is sent
    from its start.
    """
    budget = budget if budget is not None else _Budget(MAX_LINES)
    room = budget.take(MAX_FILE_LINES)
    old_plain = plain_lines(old) if old is not None else []
    new_plain = plain_lines(new) if new is not None else []
    if diff is not None:
        removed, shown = hunk_lines(diff)
        old_wanted: Iterable[int] = removed
        new_wanted: Iterable[int] = _around(shown, EXPAND_WINDOW)
    else:
        old_wanted = range(1, len(old_plain) + 1)
        new_wanted = range(1, len(new_plain) + 1)
    late = budget.plain
    # one more line than room: to know it is cut
    old_lines = coloured(path, old_plain, old_wanted, room + 1, budget)
    old_ranges, old_cut, used = ranges_of(old_lines, old_wanted, room)
    new_lines = coloured(path, new_plain, new_wanted, room - used + 1, budget)
    new_ranges, new_cut, used_new = ranges_of(new_lines, new_wanted, room - used)
    budget.left += room - used - used_new  # give back what this file did not need
    lexer = lexer_for(path)
    return {
        "language": lexer.name if lexer is not None else "",
        "old": old_ranges,
        "new": new_ranges,
        "old_lines": len(old_plain),
        "new_lines": len(new_plain),
        "cut": old_cut or new_cut or budget.plain > late,
    }


def _reverse(new: str, diff: str) -> str | None:
    """The old text of an Update from its new text and its unified diff (None if they do not
    fit together). Lines keep their terminators; a ``\\ No newline`` marker is honoured."""
    new_lines = new.splitlines(keepends=True)
    out: list[str] = []
    at = 0  # lines of new consumed
    last_side = ""
    for line in diff.split("\n"):
        m = _HUNK.match(line)
        if m:
            start = int(m.group(3)) - (0 if m.group(4) == "0" else 1)
            if start < at or start > len(new_lines):
                return None
            out.extend(new_lines[at:start])
            at = start
            continue
        if line.startswith("\\"):
            if last_side == "-" and out and out[-1].endswith("\n"):
                out[-1] = out[-1][:-1]
            continue
        if line.startswith("-"):
            out.append(line[1:] + "\n")
        elif line.startswith(" "):
            if at >= len(new_lines):
                return None
            out.append(new_lines[at])
            at += 1
        elif line.startswith("+"):
            at += 1
        else:
            continue
        last_side = line[:1]
    if at > len(new_lines):
        return None
    out.extend(new_lines[at:])
    return "".join(out)


def call_sources(
    proposed: ApplyPatchAction | None, delta: AppliedPatchDelta | None = None
) -> dict[str, dict[str, Any]]:
    """The ``sources`` trait: per path of the verified change map (the key ``proposed`` has),
    the coloured lines of its diff. The texts come from the committed delta when it has the
    file (its old and new contents), else from the verified map (an Update's new text with
    its old text recovered from the radius-1 diff)."""
    budget = _Budget(MAX_LINES)
    committed: dict[str, tuple[str | None, str | None]] = {}
    for change in delta.changes if delta is not None else ():
        match change:
            case AppliedAdd(path=path, content=content):
                committed[path] = (None, content)
            case AppliedDelete(path=path, content=content):
                committed[path] = (content, None)
            case AppliedUpdate(path=path, old_content=old, new_content=new):
                committed[path] = (old, new)
    out: dict[str, dict[str, Any]] = {}
    if proposed is None:
        return out
    for path, proposed_change in proposed.changes.items():
        if budget.left <= 0:
            out[path] = {"language": "", "old": [], "new": [], "cut": True}
            continue
        match proposed_change:
            case FileAdd(content=content):
                out[path] = file_sources(path, None, content, budget=budget)
            case FileDelete(content=content):
                out[path] = file_sources(path, content, None, budget=budget)
            case FileUpdate(unified_diff=diff, new_content=new, move_path=move):
                old_text, new_text = committed.get(path, (None, None))
                if new_text is None:
                    new_text, old_text = new, _reverse(new, diff)
                shown = move or path
                out[path] = (
                    file_sources(shown, old_text, new_text, diff=diff, budget=budget)
                    if old_text is not None
                    else _diff_side_sources(shown, diff, budget)
                )
    return out


def _diff_side_sources(path: str, diff: str, budget: _Budget) -> dict[str, Any]:
    """Coloured lines lexed from a diff's own lines: its old side (context and removed lines)
    and its new side (context and added lines), each as one text, by hunk line numbers."""
    old_text: list[str] = []
    new_text: list[str] = []
    old_numbers: list[int] = []
    new_numbers: list[int] = []
    old = new = 0
    for line in diff.split("\n"):
        m = _HUNK.match(line)
        if m:
            old, new = int(m.group(1)), int(m.group(3))
            continue
        if (old == 0 and new == 0) or line[:1] not in ("-", "+", " "):
            continue
        body = line[1:]
        if line[0] in "- ":
            old_text.append(body)
            old_numbers.append(old)
            old += 1
        if line[0] in "+ ":
            new_text.append(body)
            new_numbers.append(new)
            new += 1
    room = budget.take(MAX_FILE_LINES)
    sides = []
    cut = False
    for text, numbers in ((old_text, old_numbers), (new_text, new_numbers)):
        taken = min(len(text), max(0, room))
        cut = cut or taken < len(text)
        room -= taken
        late = budget.plain
        lines = budget.lex(path, "\n".join(text[:taken]) + "\n") if taken else []
        cut = cut or budget.plain > late
        ranges: Ranges = []
        for n, source in zip(numbers, lines, strict=False):
            kept, was_cut = _cut(source)
            cut = cut or was_cut
            if ranges and ranges[-1][0] + len(ranges[-1][1]) == n:
                ranges[-1][1].append(kept)
            else:
                ranges.append([n, [kept]])
        sides.append(ranges)
    budget.left += max(0, room)
    lexer = lexer_for(path)
    return {
        "language": lexer.name if lexer is not None else "",
        "old": sides[0],
        "new": sides[1],
        "cut": cut,
    }


def turn_sources(blocks: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The ``turn_sources`` trait: per file block of the TurnDiff (``turn_diff_files``: the
    tracker's blocks, keyed by their ``path``), its lines coloured, lexed from the diff's own old
    and new sides."""
    budget = _Budget(MAX_LINES)
    out: dict[str, dict[str, Any]] = {}
    for block in blocks:
        path, text = str(block.get("path", "")), str(block.get("diff", ""))
        if budget.left <= 0:
            out[path] = {"language": "", "old": [], "new": [], "cut": True}
            continue
        out[path] = _diff_side_sources(path, text, budget)
    return out


def sources_size(sources: Mapping[str, Any]) -> int:
    """How many lines ``sources`` (a ``sources`` or ``turn_sources`` value) sends."""
    return sum(
        len(r[1]) for entry in sources.values() for side in ("old", "new") for r in entry[side]
    )
