"""The bound of what a call saves, and the helpers that keep a record within it.

A call's static record (:mod:`.record`: text/html, text/markdown, text/plain) is what a saved
notebook keeps of it, so its size is what each call adds to the file. It is bounded, whatever
the size of the patch: each representation has a share of RECORD_BOUND; the short fields
(status, safety, lists of paths, stdout, the timeline...) are capped, and the diffs get what
is left of the share. A record holds its call's own changes; the turn's diff is a summary there
(its files and their +/- counts), and ``%apply_patch_turn`` shows it whole, within a larger
bound (:data:`TURN`). Within a bound the files share the room fairly (:func:`fair_shares`):
every file is named with its counts, the small ones are shown whole, and what is left goes to
the large ones, which are cut. What is cut is marked (how many lines, how many bytes) and says
where the whole is (:attr:`Bound.where`). README.md, "In a notebook", says it for users. The
panels (review, undo, conflicts) cut their texts by lines and characters with :func:`cut` and
say what they left out with :func:`more`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ...core.text import plural
from ...markup import visible, visible_lines
from .vocabulary import status_meaning

#: The most one call's record adds to a saved notebook, in bytes: its output as the file holds
#: it (UTF-8 JSON: escaping, the display id and metadata included).
RECORD_BOUND: Final = 256 * 1024
#: What ``%apply_patch_turn`` shows of the turn's diff at most, in bytes: a larger bound than
#: a call's record (a user asked to see the turn), past which it says what it leaves out.
TURN_BOUND: Final = 4 * RECORD_BOUND
#: Caps of the short fields, per representation: characters of a text block (stdout, stderr,
#: the timeline, the explanation), entries of a list of paths, characters of one path.
FIELD_CHARS: Final = 4096
LIST_ITEMS: Final = 50
ITEM_CHARS: Final = 400
#: Where what a record cuts is found (said by every cut marker of a record).
WHOLE_DIFF_IS: Final = (
    "while the kernel runs, the call's result has it all (`%%apply_patch NAME` stores it: "
    "`NAME.proposed`, `NAME.turn_diff`) and `%apply_patch_turn` shows the turn's diff "
    "(`%apply_patch_turn --export FILE` writes all of it)"
)
#: Where what ``%apply_patch_turn`` cuts is found.
TURN_DIFF_WHOLE_IS: Final = (
    "`%apply_patch_turn --export FILE` writes the turn's whole diff (a .diff that git apply "
    "accepts)"
)


@dataclass(frozen=True)
class Bound:
    """How much one output may take (``total`` bytes as the file holds it), what its cut
    markers say of what is cut (``cut``) and where the whole is (``where``).

    The HTML has 9/16 of it, each text representation 3/16; the last sixteenth is left for
    the JSON escaping (a quote or a line feed takes two bytes there) and the output's metadata.
    """

    total: int
    where: str
    cut: str

    @property
    def html(self) -> int:
        return self.total * 9 // 16

    @property
    def text(self) -> int:
        return self.total * 3 // 16

    @property
    def file_lines(self) -> int:
        """Lines of one file the HTML keeps at most: a line takes at least ~90 bytes of it
        (its block, gutter and sign), so the lines past this are not even read (nor lexed)."""
        return self.html // 90


#: A call's record: its own changes whole within the bound, the turn's diff as a summary.
RECORD: Final = Bound(RECORD_BOUND, WHOLE_DIFF_IS, "not saved in this record")
#: ``%apply_patch_turn``: the turn's whole diff.
TURN: Final = Bound(TURN_BOUND, TURN_DIFF_WHOLE_IS, "not shown here")


def human_size(size: int) -> str:
    """``1.2 MB``, ``340 KB``, ``12 bytes``."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 10_000:
        return f"{size // 1000} KB"
    if size >= 1000:
        return f"{size / 1000:.1f} KB"
    return plural(size, "byte")


def size_of(text: str) -> int:
    """``text``'s size in UTF-8 (a lone surrogate, made visible elsewhere, counted as 3)."""
    return len(text.encode("utf-8", "surrogatepass"))


class ByteBudget:
    """Bytes (UTF-8) left to a part of the record; :meth:`take` spends them."""

    def __init__(self, total: int) -> None:
        self.left = total

    def fits(self, piece: str) -> bool:
        return size_of(piece) <= self.left

    def take(self, piece: str) -> bool:
        """Spend ``piece``'s size if it fits; whether it did."""
        size = size_of(piece)
        if size > self.left:
            return False
        self.left -= size
        return True


def fair_shares(
    needs: Sequence[int], room: int, least: int, spend: Callable[[int, int], int]
) -> list[bool]:
    """Share ``room`` among items of sizes ``needs`` (estimates), the smallest first: each is
    offered its fair share of what is left (what is left over the items still to serve) and
    ``spend(index, share)`` returns what it took (its whole size when that fits, else at most
    the share), so that what a small item leaves goes to the larger ones. An item that needs
    more than its share when the share is under ``least`` is left out (not spent). Returns,
    per item, whether it was spent."""
    spent = [False] * len(needs)
    order = sorted(range(len(needs)), key=lambda i: needs[i])
    for position, index in enumerate(order):
        share = room // (len(order) - position)
        if needs[index] > share and share < least:
            continue
        room -= spend(index, share)
        spent[index] = True
    return spent


# -- bounding the short fields ------------------------------------------------------------------


def item(text: str, limit: int = ITEM_CHARS) -> str:
    """One entry of a list (a path, a change) or a label, cut to ``limit`` characters."""
    return text if len(text) <= limit else text[:limit] + "… (cut)"


def items(items: Sequence[str]) -> list[str]:
    """At most :data:`LIST_ITEMS` entries, then one saying how many more there are."""
    if len(items) <= LIST_ITEMS:
        return list(items)
    return [*items[:LIST_ITEMS], f"... and {len(items) - LIST_ITEMS} more"]


def counts_text(added: int, removed: int) -> str:
    """A file's ``+N -M``, as the file lists say it."""
    return f"+{added} -{removed}"


def cut_amount(lines: int, size: int) -> str:
    """How much a cut left out: ``3 more lines (1.2 KB)``."""
    return plural(lines, "more line") + (f" ({human_size(size)})" if size else "")


def cut_marker(lines: int, size: int, what: str, bound: Bound = RECORD) -> str:
    """What a representation says where it cut: how much, of what, and where the whole is."""
    return f"✂ {cut_amount(lines, size)} {what} {bound.cut}: {bound.where}"


def capped(text: str, limit: int = FIELD_CHARS, what: str = "") -> str:
    """``text`` cut at a line end to about ``limit`` characters, the cut marked."""
    if len(text) <= limit:
        return text
    kept = text[:limit]
    end = kept.rfind("\n")
    if end > limit // 2:
        kept = kept[: end + 1]
    rest = text[len(kept) :]
    lines = rest.count("\n") + (0 if rest.endswith("\n") else 1)
    marker = cut_marker(lines, size_of(rest), what)
    return kept + ("" if kept.endswith("\n") else "\n") + marker


#: The most a cut marker of the text representations takes (escaped, in Markdown).
MARKER_BYTES: Final = 700
#: A block of a text representation that would show less than this is left out (named only).
LEAST_TEXT_BLOCK: Final = MARKER_BYTES + 300


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def bounded_blocks(
    blocks: Sequence[tuple[str, str]],
    room: int,
    name: Callable[[str], str] = visible,
    view_cuts: Sequence[tuple[int, int]] = (),
    bound: Bound = RECORD,
    frame: int = 16,
) -> list[tuple[str, str, str]]:
    """``(label, kept text, cut marker or "")`` per ``(label, diff)`` block, in their order,
    all of them within ``room`` bytes (each block its label, its text, its marker and
    ``frame`` bytes around them: a fence, line feeds), shared fairly (:func:`fair_shares`):
    the small blocks whole, the large ones cut at a line's end. The blocks that get too little
    to show are left out, and one last ``("", "", marker)`` counts them. ``view_cuts``: per
    block, the lines and bytes the view's cut already left out of it."""
    cuts = [*view_cuts, *[(0, 0)] * (len(blocks) - len(view_cuts))]
    shown = [visible_lines(text) for _, text in blocks]
    sizes = [size_of(text) for text in shown]
    out: list[tuple[str, str, str]] = [(label, "", "") for label, _ in blocks]

    def spend(index: int, share: int) -> int:
        label, text = blocks[index][0], shown[index]
        view_lines, view_bytes = cuts[index]
        share -= frames[index]
        if sizes[index] + (MARKER_BYTES if view_lines else 0) <= share:
            kept = text
        else:
            kept = text[: max(0, share - MARKER_BYTES) * len(text) // max(sizes[index], 1)]
            kept = kept[: kept.rfind("\n") + 1]
        marker = ""
        if len(kept) < len(text) or view_lines:
            rest = text[len(kept) :]
            what = f"of {name(label)}" if label else "of the diff"
            marker = cut_marker(
                _line_count(rest) + view_lines, size_of(rest) + view_bytes, what, bound
            )
        out[index] = (label, kept, marker)
        return frames[index] + size_of(kept) + size_of(marker)

    frames = [frame + size_of(name(label)) for label, _ in blocks]
    needs = [frames[i] + sizes[i] + (MARKER_BYTES if cuts[i][0] else 0) for i in range(len(blocks))]
    spent = fair_shares(needs, room - MARKER_BYTES, LEAST_TEXT_BLOCK, spend)
    left_out = [i for i, done in enumerate(spent) if not done]
    kept = [entry for entry, done in zip(out, spent, strict=True) if done]
    if left_out:
        lines = sum(_line_count(shown[i]) + cuts[i][0] for i in left_out)
        size = sum(sizes[i] + cuts[i][1] for i in left_out)
        what = f"in {plural(len(left_out), 'more file')}"
        kept.append(("", "", cut_marker(lines, size, what, bound)))
    return kept


# -- the panels' cuts --------------------------------------------------------------------------

#: A block of a panel's HTML (a chunk, a version of a file): code font, lines kept.
PRE: Final = (
    '<pre style="margin:0;font-family:var(--jp-code-font-family,SFMono-Regular,Menlo,'
    "Consolas,'DejaVu Sans Mono','Liberation Mono',monospace)\">"
)


def cut(text: str, max_lines: int, max_chars: int | None = None) -> tuple[str, int]:
    """``text`` cut to ``max_lines`` lines (and ``max_chars`` characters); the lines left out."""
    lines = text.splitlines(keepends=True)
    kept = lines[:max_lines]
    if max_chars is not None:
        total, count = 0, 0
        for line in kept:
            if total + len(line) > max_chars:
                break
            total += len(line)
            count += 1
        kept = kept[:count]
        if not kept and lines:  # one huge line: its start
            return lines[0][:max_chars] + "…\n", len(lines) - 1
    return "".join(kept), len(lines) - len(kept)


def more(hidden: int, noun: str = "line", nouns: str | None = None) -> str:
    """What a panel says of what it left out: ``… 3 more lines``."""
    return f"… {plural(hidden, 'more ' + noun, nouns and 'more ' + nouns)}"


def shared(parts: Sequence[str]) -> int:
    return sum(size_of(p) for p in parts)


#: Before the text the tool returned to the model, in a record of a call that did not succeed.
TOOL_OUTPUT: Final = "the tool's output (what the model read)"


def tool_output(state: Mapping[str, Any]) -> str:
    """What the tool returned to the model, for a call that ended without success (failed,
    error, declined, rejected, cancelled), unless stderr already says exactly that."""
    status = str(state.get("status", ""))
    meaning = status_meaning(status) if status else {}
    output = str(state.get("output") or "").rstrip()
    if not output or not meaning.get("terminal") or meaning.get("success"):
        return ""
    if meaning.get("dry_run") or output == str(state.get("stderr") or "").rstrip():
        return ""
    return capped(output, what="the tool's output")
