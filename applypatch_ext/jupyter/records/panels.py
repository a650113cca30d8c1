"""The static views of two panels of a call's widget: the review and the undo panel.

A call's static record (:mod:`.record`: what a notebook reopened without a kernel, nbconvert
or GitHub show) is rendered from the widget's displayed state by :mod:`.display`; these are
the parts of it for

* the **review** of a waiting call (the ``review`` trait; docs/behaviour.md §6.7): every file
  and chunk the request covers, with its text, the line where it matched and the seek pass (a
  fuzzy one with the patch's line beside the file's);
* the **undo panel** (the ``undo`` trait; docs/behaviour.md §11): the call's place in its
  turn, whether it is undone, the last undo its buttons ran (status, output or error, an
  approval it waits for) and any conflict with its three versions;
* the note beside an ``auto-approve`` that ``--review`` turned into a question.

Everything is bounded, to fit the share of a call's record (``bound.RECORD_BOUND``): at
most :data:`REVIEW_ITEMS` files and chunks of :data:`REVIEW_LINES` lines each and
:data:`REVIEW_CHARS` characters in all, and the conflicts as :mod:`.conflicts` bounds and
renders them, each cut marked (``… N more lines``). Pure functions, no IPython import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...core.text import plural
from ...markup import esc, esc_lines, md_code, md_fence, md_text, visible, visible_lines
from .bound import PRE as _PRE
from .bound import cut as _cut
from .bound import item as _item
from .bound import more as _more
from .conflicts import conflicts_html, conflicts_markdown, conflicts_plain
from .vocabulary import call_vocabulary, status_meaning, undone_meanings

#: At most this many files and chunks of a review are listed (the rest are counted).
REVIEW_ITEMS: Final = 100
#: At most this many lines of each file's or chunk's text in a review.
REVIEW_LINES: Final = 40
#: At most this many characters of review text (the files' and chunks' texts together): the
#: record of a call is bounded (bound.RECORD_BOUND), and its diffs get what is left.
REVIEW_CHARS: Final = 8_000
TEXT_CHARS: Final = 4_000
#: What a review's list counts past the ones it shows.
_FILES_OR_CHUNKS: Final = ("file or chunk", "files or chunks")

# -- the safety note -----------------------------------------------------------------------------


def safety_note(safety: Mapping[str, Any]) -> str:
    """What an ``auto-approve`` that ``--review`` asked about says beside it (plain text)."""
    if not safety.get("review"):
        return ""
    meaning = call_vocabulary()["safety_review"]
    return f"{meaning['label']} ({meaning['reason']})"


# -- the review ----------------------------------------------------------------------------------


def review_items(state: Mapping[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The review's files and chunks as the static views list them: per item its depth (0 a
    file, 1 a chunk), label (the one the widget shows: review.review_files words it), bounded
    text and fuzzy note; and how many items were left out."""
    review = state.get("review") or {}
    items: list[dict[str, Any]] = []
    total = spent = 0
    for file in review.get("files") or []:
        chunks = list(file.get("chunks") or [])
        whole = bool(file.get("whole")) or not chunks
        entries = [
            (0, str(file.get("label") or ""), str(file.get("text") or "") if whole else "", "")
        ]
        for chunk in chunks:
            label = str(chunk.get("label") or "")
            note = str(chunk.get("note") or "")
            pairs = "; ".join(
                f"patch {str(pair.get('patch', ''))!r}, file {str(pair.get('file', ''))!r}"
                for pair in chunk.get("pairs") or []
            )
            if note and pairs:
                note += f" ({pairs})"
            entries.append((1, label, str(chunk.get("text") or ""), note))
        for depth, label, text, note in entries:
            total += 1
            if len(items) >= REVIEW_ITEMS or spent >= REVIEW_CHARS:
                continue
            body, hidden = _cut(text, REVIEW_LINES, REVIEW_CHARS - spent)
            spent += len(body) + len(label) + len(note)
            if hidden:
                body += _more(hidden) + "\n"
            items.append({"depth": depth, "label": _item(label), "text": body, "note": _item(note)})
    return items, total - len(items)


def _review_heading(state: Mapping[str, Any]) -> str:
    review = state.get("review") or {}
    files = review.get("files") or []
    chunks = sum(len(f.get("chunks") or []) for f in files)
    what = f"{plural(len(files), 'file')}, {plural(chunks, 'chunk')}"
    if review.get("selectable"):
        return f"review: {what}, each to apply or leave out"
    return f"review: {what}, what this request covers (answered whole)"


def review_plain(state: Mapping[str, Any]) -> list[str]:
    if not (state.get("review") or {}).get("files"):
        return []
    items, hidden = review_items(state)
    out = [visible(_review_heading(state))]
    for item in items:
        indent = "  " * (item["depth"] + 1)
        out.append(indent + visible(item["label"]))
        if item["note"]:
            out.append(indent + "  " + visible(item["note"]))
        out.extend(indent + "  " + line for line in visible_lines(item["text"]).splitlines())
    if hidden:
        out.append("  " + _more(hidden, *_FILES_OR_CHUNKS))
    return out


def review_markdown(state: Mapping[str, Any]) -> list[str]:
    if not (state.get("review") or {}).get("files"):
        return []
    items, hidden = review_items(state)
    out = ["", md_text(_review_heading(state)), ""]
    for item in items:
        indent = "  " * item["depth"]
        out.append(f"{indent}- {md_code(item['label'])}")
        if item["note"]:
            out.append(f"{indent}  {md_text(item['note'])}")
        if item["text"]:
            out += ["", *(f"{indent}  {line}" for line in md_fence(item["text"].rstrip("\n"))), ""]
    if hidden:
        out.append(f"- {md_text(_more(hidden, *_FILES_OR_CHUNKS))}")
    return out


def review_html(state: Mapping[str, Any]) -> str:
    if not (state.get("review") or {}).get("files"):
        return ""
    items, hidden = review_items(state)
    parts = [f'<details open class="applypatch-review"><summary>{esc(_review_heading(state))}']
    parts.append("</summary><ul>")
    for item in items:
        margin = "margin-left:1.5em;" if item["depth"] else ""
        parts.append(f'<li style="{margin}"><code>{esc(item["label"])}</code>')
        if item["note"]:
            parts.append(f"<div><i>{esc(item['note'])}</i></div>")
        if item["text"]:
            parts.append(f"{_PRE}{esc_lines(item['text'].rstrip(chr(10)))}</pre>")
        parts.append("</li>")
    if hidden:
        parts.append(f"<li>{esc(_more(hidden, *_FILES_OR_CHUNKS))}</li>")
    parts.append("</ul></details>")
    return "".join(parts)


# -- the undo panel ------------------------------------------------------------------------------


def place_text(undo: Mapping[str, Any]) -> str:
    """``call 2 of 3 in turn-1``, and for an undo's own view what it undoes (as the widget)."""
    place = undo.get("place") or {}
    if not place.get("index"):
        return ""
    turn = f" in {place['turn_id']}" if place.get("turn_id") else ""
    of = f" · {undo.get('kind') or 'undo'} of {undo['of']}" if undo.get("of") else ""
    return f"call {place['index']} of {place.get('count')}{turn}{of}"


def _panel_place(undo: Mapping[str, Any]) -> str:
    """The place line of a record's undo panel; none for a call with nothing to undo or redo
    (it wrote nothing) and no undo of its own to show: it has no undo to speak of."""
    if not any(undo.get(key) for key in ("can_undo", "can_redo", "last", "of")):
        return ""
    return place_text(undo)


def _undone_text(undo: Mapping[str, Any]) -> str:
    meaning = undone_meanings().get(str(undo.get("undone") or ""))
    return meaning["text"] if meaning else ""


def _last_lines(last: Mapping[str, Any]) -> tuple[str, list[str], str, str]:
    """The last undo's heading, the files its approval waits for, its error and its output."""
    if not last.get("status"):
        return "", [], "", ""
    heading = f"last {last.get('kind') or 'undo'}"
    if last.get("call_id"):
        heading += f" ({last['call_id']})"
    heading += f": {status_meaning(str(last['status']))['label']}"
    files = [str(f) for f in (last.get("approval") or {}).get("files") or []]
    files = [_item(f) for f in files[:REVIEW_ITEMS]]
    error, output = str(last.get("error") or ""), str(last.get("output") or "")
    return heading, files, _item(error, TEXT_CHARS), _item(output, TEXT_CHARS)


def _panel_cells(undo: Mapping[str, Any]) -> dict[str, Any]:
    """The conflicting notebooks of the panel as cells, by absolute path."""
    edited = (undo.get("notebooks") or {}).get("edited") or []
    return {str(view.get("path")): view for view in edited}


def _panel_conflicts(undo: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    last = undo.get("last") or {}
    return [*(last.get("conflicts") or []), *(undo.get("conflicts") or [])]


def undo_plain(state: Mapping[str, Any]) -> list[str]:
    undo = state.get("undo") or {}
    place = _panel_place(undo)
    if not place:
        return []
    out = [visible(f"undo: {place}")]
    if _undone_text(undo):
        out.append(f"  {_undone_text(undo)}")
    heading, files, error, output = _last_lines(undo.get("last") or {})
    if heading:
        out.append(visible(heading))
        if files:
            out.append("  waiting for approval of: " + ", ".join(visible(f) for f in files))
        for text in (error, output):
            if text:
                out.append(visible_lines(text.rstrip("\n")))
    out.extend(conflicts_plain(_panel_conflicts(undo)))
    return out


def undo_markdown(state: Mapping[str, Any]) -> list[str]:
    undo = state.get("undo") or {}
    place = _panel_place(undo)
    if not place:
        return []
    out = ["", f"- undo: {md_text(place)}"]
    if _undone_text(undo):
        out.append(f"- {md_text(_undone_text(undo))}")
    heading, files, error, output = _last_lines(undo.get("last") or {})
    if heading:
        out.append(f"- {md_text(heading)}")
        if files:
            out.append("- waiting for approval of: " + ", ".join(md_code(f) for f in files))
        for text in (error, output):
            if text:
                out += ["", *md_fence(text.rstrip("\n"))]
    conflicts = conflicts_markdown(_panel_conflicts(undo), _panel_cells(undo))
    if conflicts:
        out += ["", *conflicts]
    return out


def undo_html(state: Mapping[str, Any]) -> str:
    undo = state.get("undo") or {}
    place = _panel_place(undo)
    if not place:
        return ""
    parts = [f'<div class="applypatch-undo"><div>undo: {esc(place)}</div>']
    if _undone_text(undo):
        parts.append(f"<div>{esc(_undone_text(undo))}</div>")
    heading, files, error, output = _last_lines(undo.get("last") or {})
    if heading:
        parts.append(f"<div><b>{esc(heading)}</b></div>")
        if files:
            listed = ", ".join(f"<code>{esc(f)}</code>" for f in files)
            parts.append(f"<div>waiting for approval of {listed}</div>")
        for text in (error, output):
            if text:
                parts.append(f"{_PRE}{esc_lines(text.rstrip(chr(10)))}</pre>")
    parts.append(conflicts_html(_panel_conflicts(undo), _panel_cells(undo)))
    parts.append("</div>")
    return "".join(parts)


__all__ = [
    "REVIEW_CHARS",
    "REVIEW_ITEMS",
    "REVIEW_LINES",
    "place_text",
    "review_html",
    "review_markdown",
    "review_plain",
    "safety_note",
    "undo_html",
    "undo_markdown",
    "undo_plain",
]
