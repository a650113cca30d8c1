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

Everything is bounded, to fit the share of a call's record (``display.RECORD_BOUND``): at
most :data:`REVIEW_ITEMS` files and chunks of :data:`REVIEW_LINES` lines each and
:data:`REVIEW_CHARS` characters in all, :data:`CONFLICTS` conflicting files
(:data:`CONFLICT_CHARS` of versions) whose versions keep :data:`VERSION_LINES` lines and
:data:`VERSION_CHARS` characters, each cut marked (``… N more lines``). The
widget's ``undo`` trait holds its conflicts already cut the same way (:func:`bounded_conflict`),
so the browser never receives a whole large file either. Pure functions, no IPython import.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Final

from .display import md_code, md_fence, md_text, visible, visible_lines
from .vocabulary import call_vocabulary

#: At most this many files and chunks of a review are listed (the rest are counted).
REVIEW_ITEMS: Final = 100
#: At most this many lines of each file's or chunk's text in a review.
REVIEW_LINES: Final = 40
#: At most this many characters of review text (the files' and chunks' texts together): the
#: record of a call is bounded (display.RECORD_BOUND), and its diffs get what is left.
REVIEW_CHARS: Final = 8_000
#: At most this many conflicting files are shown with their versions, and this many
#: characters of versions in all.
CONFLICTS: Final = 20
CONFLICT_CHARS: Final = 16_000
#: At most this many lines, and characters, of each version of a conflicting file.
VERSION_LINES: Final = 200
VERSION_CHARS: Final = 4_000
#: At most this many characters of one label (a path) or of an undo's error or output.
LABEL_CHARS: Final = 400
TEXT_CHARS: Final = 4_000

#: The three versions of a conflicting file, as the conflict and the widget name them.
VERSIONS: Final = (("before", "before the call"), ("left", "as the call left it"), ("now", "now"))

_PRE: Final = (
    '<pre style="margin:0;font-family:var(--jp-code-font-family,SFMono-Regular,Menlo,'
    "Consolas,'DejaVu Sans Mono','Liberation Mono',monospace)\">"
)


def _esc(text: object) -> str:
    return html.escape(visible(text), quote=True)


def _esc_lines(text: object) -> str:
    return html.escape(visible_lines(text), quote=True)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _cut(text: str, max_lines: int, max_chars: int | None = None) -> tuple[str, int]:
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
        kept = kept[: max(count, 0)]
        if not kept and lines:  # one huge line: its start
            return lines[0][:max_chars] + "…\n", len(lines) - 1
    return "".join(kept), len(lines) - len(kept)


def _short(text: str, limit: int = LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + "… (cut)"


def _more(hidden: int, noun: str = "line") -> str:
    return f"… {_plural(hidden, 'more ' + noun)}"


def _more_items(hidden: int) -> str:
    return f"… {hidden} more {'file or chunk' if hidden == 1 else 'files or chunks'}"


# -- the safety note -----------------------------------------------------------------------------


def safety_note(safety: Mapping[str, Any]) -> str:
    """What an ``auto-approve`` that ``--review`` asked about says beside it (plain text)."""
    if not safety.get("review"):
        return ""
    meaning = call_vocabulary()["safety_review"]
    return f"{meaning['label']} ({meaning['reason']})"


# -- the review ----------------------------------------------------------------------------------


def _relative(path: str, cwd: str) -> str:
    prefix = cwd.rstrip("/") + "/"
    return path[len(prefix) :] if cwd and path.startswith(prefix) else path


def review_items(state: Mapping[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The review's files and chunks as the static views list them: per item its depth (0 a
    file, 1 a chunk), label, bounded text and fuzzy note; and how many items were left out."""
    review = state.get("review") or {}
    cwd = str(state.get("cwd") or "")
    items: list[dict[str, Any]] = []
    total = spent = 0
    for file in review.get("files") or []:
        path = _relative(str(file.get("path", "")), cwd)
        chunks = list(file.get("chunks") or [])
        whole = bool(file.get("whole")) or not chunks
        kind = str(file.get("kind", "update"))
        what = {"add": "added", "delete": "deleted"}.get(kind, "updated")
        if file.get("move_path"):
            what = f"moved to {file['move_path']}"
        size = "all or nothing" if whole else _plural(len(chunks), "chunk")
        entries = [
            (0, f"{path} ({what}, {size})", str(file.get("text") or "") if whole else "", "")
        ]
        for k, chunk in enumerate(chunks):
            label = f"chunk {k + 1} of {len(chunks)}, line {chunk.get('line') or '?'}"
            note = ""
            if chunk.get("fuzzy"):
                pairs = "; ".join(
                    f"patch {str(pair.get('patch', ''))!r}, file {str(pair.get('file', ''))!r}"
                    for pair in chunk.get("pairs") or []
                )
                note = f"matched by the {chunk.get('pass')} pass: the file's text differs" + (
                    f" ({pairs})" if pairs else ""
                )
            entries.append((1, label, str(chunk.get("text") or ""), note))
        for depth, label, text, note in entries:
            total += 1
            if len(items) >= REVIEW_ITEMS or spent >= REVIEW_CHARS:
                continue
            body, hidden = _cut(text, REVIEW_LINES, REVIEW_CHARS - spent)
            spent += len(body) + len(label) + len(note)
            if hidden:
                body += _more(hidden) + "\n"
            items.append(
                {"depth": depth, "label": _short(label), "text": body, "note": _short(note)}
            )
    return items, total - len(items)


def _review_heading(state: Mapping[str, Any]) -> str:
    review = state.get("review") or {}
    files = review.get("files") or []
    chunks = sum(len(f.get("chunks") or []) for f in files)
    what = f"{_plural(len(files), 'file')}, {_plural(chunks, 'chunk')}"
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
        out.append("  " + _more_items(hidden))
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
        out.append(f"- {md_text(_more_items(hidden))}")
    return out


def review_html(state: Mapping[str, Any]) -> str:
    if not (state.get("review") or {}).get("files"):
        return ""
    items, hidden = review_items(state)
    parts = [f'<details open class="applypatch-review"><summary>{_esc(_review_heading(state))}']
    parts.append("</summary><ul>")
    for item in items:
        margin = "margin-left:1.5em;" if item["depth"] else ""
        parts.append(f'<li style="{margin}"><code>{_esc(item["label"])}</code>')
        if item["note"]:
            parts.append(f"<div><i>{_esc(item['note'])}</i></div>")
        if item["text"]:
            parts.append(f"{_PRE}{_esc_lines(item['text'].rstrip(chr(10)))}</pre>")
        parts.append("</li>")
    if hidden:
        parts.append(f"<li>{_esc(_more_items(hidden))}</li>")
    parts.append("</ul></details>")
    return "".join(parts)


# -- conflicts -----------------------------------------------------------------------------------


def bounded_state(state: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A version of a file (``FileState.to_json()``) with its content cut to
    :data:`VERSION_LINES` lines and :data:`VERSION_CHARS` characters; ``more_lines`` counts
    the lines left out (the hash and mode are the whole file's)."""
    if state is None:
        return None
    content = state.get("content")
    if not isinstance(content, str):
        return dict(state)
    cut, hidden = _cut(content, VERSION_LINES, VERSION_CHARS)
    return {**state, "content": cut, "more_lines": hidden} if hidden else dict(state)


def bounded_conflict(conflict: Mapping[str, Any]) -> dict[str, Any]:
    """``Conflict.to_json()`` with each of its three versions bounded (:func:`bounded_state`)."""
    return {
        **conflict,
        **{key: bounded_state(conflict.get(key)) for key, _label in VERSIONS},
    }


def version_text(state: Mapping[str, Any] | None) -> str:
    """One version as the static views show it: its (bounded) text, or what stands for it."""
    if state is None:
        return "(not readable as a text file)"
    if not state.get("exists"):
        return "(absent)"
    text, hidden = _cut(str(state.get("content", "")), VERSION_LINES, VERSION_CHARS)
    hidden += int(state.get("more_lines") or 0)
    if hidden:
        text += ("" if not text or text.endswith("\n") else "\n") + _more(hidden) + "\n"
    mode = f"mode {state['mode']}, " if state.get("mode") else ""
    return text if text else f"(empty, {mode}sha256 {state.get('sha256')})"


CONFLICT_HEADING: Final = "Undo conflict: nothing was written"


def _shown_conflicts(conflicts: Sequence[Mapping[str, Any]]) -> tuple[list[Any], int]:
    """The conflicts shown (at most :data:`CONFLICTS`, :data:`CONFLICT_CHARS` of versions)."""
    shown: list[Any] = []
    spent = 0
    for c in conflicts[:CONFLICTS]:
        if shown and spent >= CONFLICT_CHARS:
            break
        spent += sum(len(version_text(c.get(key))) for key, _label in VERSIONS)
        shown.append(c)
    return shown, len(conflicts) - len(shown)


def conflicts_plain(conflicts: Sequence[Mapping[str, Any]]) -> list[str]:
    if not conflicts:
        return []
    shown, hidden = _shown_conflicts(conflicts)
    lines = [CONFLICT_HEADING]
    for c in shown:
        lines.append(f"{visible(c.get('path', ''))}: {visible(c.get('reason', ''))}")
        for key, label in VERSIONS:
            lines.append(f"--- {label}")
            lines.append(visible_lines(version_text(c.get(key))).rstrip("\n"))
    if hidden:
        lines.append(_more(hidden, "conflicting file"))
    return lines


#: Above the cells of a conflicting notebook (how it changed since, as cells).
CELLS_SINCE: Final = "What changed since, as cells:"


def conflicts_markdown(
    conflicts: Sequence[Mapping[str, Any]], cells: Mapping[str, Any] | None = None
) -> list[str]:
    """``cells``: per conflicting notebook (its absolute path), its change since as cells."""
    if not conflicts:
        return []
    from .notebooks import render_notebook_diff_markdown  # it imports display

    shown, hidden = _shown_conflicts(conflicts)
    lines = ["**Undo conflict**: nothing was written", ""]
    for c in shown:
        lines += [f"- {md_code(c.get('path', ''))}: {md_text(c.get('reason', ''))}", ""]
        for key, label in VERSIONS:
            lines += [f"  {label}:", "", *md_fence(version_text(c.get(key))), ""]
        view = (cells or {}).get(str(c.get("abs_path")))
        if view is not None:
            lines += [f"  {CELLS_SINCE}", "", render_notebook_diff_markdown(view), ""]
    if hidden:
        lines.append(md_text(_more(hidden, "conflicting file")))
    return lines


def conflicts_html(
    conflicts: Sequence[Mapping[str, Any]], cells: Mapping[str, Any] | None = None
) -> str:
    if not conflicts:
        return ""
    from .notebooks import render_notebook_diff_html  # it imports display

    shown, hidden = _shown_conflicts(conflicts)
    parts = [
        '<div class="applypatch-conflicts"><strong>Undo conflict</strong>: nothing was written'
    ]
    for c in shown:
        parts.append(f"<details open><summary><code>{_esc(c.get('path', ''))}</code>: ")
        parts.append(f"{_esc(c.get('reason', ''))}</summary><table><tr>")
        parts.extend(f"<th>{html.escape(label)}</th>" for _key, label in VERSIONS)
        parts.append("</tr><tr>")
        for key, _label in VERSIONS:
            text = _esc_lines(version_text(c.get(key)))
            parts.append(f'<td style="vertical-align:top"><pre>{text}</pre></td>')
        parts.append("</tr></table>")
        view = (cells or {}).get(str(c.get("abs_path")))
        if view is not None:
            parts.append(f"<p>{html.escape(CELLS_SINCE)}</p>{render_notebook_diff_html(view)}")
        parts.append("</details>")
    if hidden:
        parts.append(f"<div>{_esc(_more(hidden, 'conflicting file'))}</div>")
    parts.append("</div>")
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


def _undone_text(undo: Mapping[str, Any]) -> str:
    if not undo.get("can_redo"):
        return ""
    if undo.get("can_undo"):
        return "partly undone: some of its files are back as before the call"
    return "undone: its files are back as before the call"


def _last_lines(last: Mapping[str, Any]) -> tuple[str, list[str], str, str]:
    """The last undo's heading, the files its approval waits for, its error and its output."""
    if not last.get("status"):
        return "", [], "", ""
    heading = f"last {last.get('kind') or 'undo'}"
    if last.get("call_id"):
        heading += f" ({last['call_id']})"
    heading += f": {last['status']}"
    files = [str(f) for f in (last.get("approval") or {}).get("files") or []]
    files = [_short(f) for f in files[:REVIEW_ITEMS]]
    error, output = str(last.get("error") or ""), str(last.get("output") or "")
    return heading, files, _short(error, TEXT_CHARS), _short(output, TEXT_CHARS)


def _panel_cells(undo: Mapping[str, Any]) -> dict[str, Any]:
    """The conflicting notebooks of the panel as cells, by absolute path."""
    edited = (undo.get("notebooks") or {}).get("edited") or []
    return {str(view.get("path")): view for view in edited}


def _panel_conflicts(undo: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    last = undo.get("last") or {}
    return [*(last.get("conflicts") or []), *(undo.get("conflicts") or [])]


def undo_plain(state: Mapping[str, Any]) -> list[str]:
    undo = state.get("undo") or {}
    place = place_text(undo)
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
    place = place_text(undo)
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
    place = place_text(undo)
    if not place:
        return ""
    parts = [f'<div class="applypatch-undo"><div>undo: {_esc(place)}</div>']
    if _undone_text(undo):
        parts.append(f"<div>{_esc(_undone_text(undo))}</div>")
    heading, files, error, output = _last_lines(undo.get("last") or {})
    if heading:
        parts.append(f"<div><b>{_esc(heading)}</b></div>")
        if files:
            listed = ", ".join(f"<code>{_esc(f)}</code>" for f in files)
            parts.append(f"<div>waiting for approval of {listed}</div>")
        for text in (error, output):
            if text:
                parts.append(f"{_PRE}{_esc_lines(text.rstrip(chr(10)))}</pre>")
    parts.append(conflicts_html(_panel_conflicts(undo), _panel_cells(undo)))
    parts.append("</div>")
    return "".join(parts)


__all__ = [
    "CONFLICTS",
    "CONFLICT_CHARS",
    "REVIEW_CHARS",
    "REVIEW_ITEMS",
    "REVIEW_LINES",
    "VERSIONS",
    "VERSION_CHARS",
    "VERSION_LINES",
    "bounded_conflict",
    "conflicts_html",
    "conflicts_markdown",
    "conflicts_plain",
    "place_text",
    "review_html",
    "review_markdown",
    "review_plain",
    "safety_note",
    "undo_html",
    "undo_markdown",
    "undo_plain",
    "version_text",
]
