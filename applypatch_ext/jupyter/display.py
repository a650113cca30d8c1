"""Static representations of a call's state: HTML, Markdown and plain text.

They are what a reader sees where no widget front end runs (nbconvert, GitHub, a terminal) and
what the result object shows. All three are rendered from the same plain-JSON state the widget
syncs, so they cannot drift apart. No IPython import: these are pure functions.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from . import static_diff
from .vocabulary import TONE_COLOURS, call_vocabulary, status_meaning

#: The words each status is shown as: the vocabulary's labels, the widget's words.
STATUS_TEXT = {
    status: meaning["label"] for status, meaning in call_vocabulary()["statuses"].items()
}

# -- the bound of what a call saves -------------------------------------------------------------
#
# A call's static record (record.py: text/html, text/markdown, text/plain) is what a saved
# notebook keeps of it, so its size is what each call adds to the file. It is bounded, whatever
# the size of the patch: each representation has a share of RECORD_BOUND; the short fields
# (status, safety, lists of paths, stdout, the timeline...) are capped, and the diffs get what
# is left of the share. What is cut is marked (how many lines, how many bytes) and says where
# the whole is (WHOLE_DIFF_IS). README.md, "In a notebook", says it for users.

#: The most one call's record adds to a saved notebook, in bytes: its output as the file holds
#: it (UTF-8 JSON: escaping, the display id and metadata included).
RECORD_BOUND: Final = 256 * 1024
#: The shares of the three representations; the last sixteenth is left for the JSON escaping
#: (a quote or a line feed takes two bytes there) and the output's metadata.
HTML_SHARE: Final = RECORD_BOUND * 9 // 16
TEXT_SHARE: Final = RECORD_BOUND * 3 // 16
#: Caps of the short fields, per representation: characters of a text block (stdout, stderr,
#: the timeline, the explanation), entries of a list of paths, characters of one path.
FIELD_CHARS: Final = 4096
LIST_ITEMS: Final = 50
ITEM_CHARS: Final = 400
#: Lines of one file a record keeps at most (before its byte share is spent).
#: A line takes at least ~90 bytes of HTML (its block, gutter and sign), so no file can show
#: more than this: the lines past it are not even read (nor lexed).
FILE_LINES: Final = HTML_SHARE // 90
#: Where what a record cuts is found (said by every cut marker).
WHOLE_DIFF_IS: Final = (
    "while the kernel runs, the call's result has it all (`%%apply_patch NAME` stores it: "
    "`NAME.turn_diff`, `NAME.proposed`) and `%apply_patch_turn` shows the turn's whole diff "
    "(`--export FILE` writes it)"
)


# -- making hostile text harmless ------------------------------------------------------------
#
# A file name or a file's content may hold anything. What these renderers show of them:
#
# * control characters are made visible, the same way in all three (text, Markdown, HTML): the
#   C0 controls and DEL as their Unicode Control Pictures (ESC as ``␛``, CR as ``␍``, NUL as
#   ``␀``, LF as ``␊`` inside a one-line field such as a path), the C1 controls, the bidi
#   controls and the other invisible format characters as a Python escape (``\x9b``,
#   ``\u202e``, ``\u200b``). Tabs stay; line feeds stay where a block has lines (stdout, a diff).
#   So no ESC sequence, no CR overwrite, no bidi reordering reaches a terminal or a page.
# * Markdown: inline code and fenced blocks use a backtick run longer than any in the text, so
#   a backtick in a path or a ``\`\`\``` line in a file cannot end them, and text outside code is
#   backslash-escaped, so that no ``<img onerror>`` or ``<script>`` is ever live once rendered.
# * HTML: everything is escaped.

_INVISIBLE: dict[int, str] = {i: chr(0x2400 + i) for i in range(0x20) if i != 0x09}
_INVISIBLE[0x7F] = "\u2421"  # ␡
_INVISIBLE.update({i: f"\\x{i:02x}" for i in range(0x80, 0xA0)})
_INVISIBLE.update(
    {
        i: f"\\u{i:04x}"
        for i in (
            0x061C,  # arabic letter mark
            *range(0x200B, 0x2010),  # zero-width space/joiners, LRM, RLM
            0x2028,  # line separator
            0x2029,  # paragraph separator
            *range(0x202A, 0x202F),  # LRE, RLE, PDF, LRO, RLO
            *range(0x2060, 0x2065),  # word joiner, invisible operators
            *range(0x2066, 0x206A),  # LRI, RLI, FSI, PDI
            0xFEFF,  # zero-width no-break space (BOM)
        )
    }
)
_INVISIBLE_KEEP_LINES = {k: v for k, v in _INVISIBLE.items() if k != 0x0A}
_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_BACKTICKS = re.compile(r"`+")


def visible(text: object) -> str:
    """``text`` with every control character made visible, line feeds included (one line)."""
    return str(text).translate(_INVISIBLE)


def visible_lines(text: object) -> str:
    """The same, keeping line feeds: for blocks that have lines (stdout, a diff)."""
    return str(text).translate(_INVISIBLE_KEEP_LINES)


def _longest_backtick_run(text: str) -> int:
    return max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)


def md_code(text: object) -> str:
    """An inline code span that nothing in ``text`` can close (CommonMark 6.1)."""
    shown = visible(text)
    if not shown:
        return "` `"
    ticks = "`" * (_longest_backtick_run(shown) + 1)
    # One space each side is stripped by the renderer: pad when the text starts or ends with a
    # backtick (else it would join the fence), or with spaces on both sides (else one is lost).
    pad = (
        " "
        if shown[0] == "`"
        or shown[-1] == "`"
        or (shown[0] == " " and shown[-1] == " " and shown.strip(" "))
        else ""
    )
    return f"{ticks}{pad}{shown}{pad}{ticks}"


def md_fence(text: object, info: str = "") -> list[str]:
    """A fenced code block (as lines) whose fence no line of ``text`` can close."""
    shown = visible_lines(text)
    fence = "`" * max(3, _longest_backtick_run(shown) + 1)
    return [fence + info, *shown.split("\n"), fence]


def md_text(text: object) -> str:
    """Plain text for a Markdown paragraph: visible, every ASCII punctuation backslash-escaped
    (so no ``<`` starts HTML, no ``*`` or ``[`` starts markup)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", visible(text))


def turn_diff_files(state: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(label, text)`` per file of the state's TurnDiff.

    The paths come from the tracker (``turn_diff_files``: each block with the display paths it
    was rendered from), never from the ``diff --git`` header, which is ambiguous once a path
    contains `` b/``. A state without them shows the diff as one block.
    """
    files = state.get("turn_diff_files") or []
    if files:
        out = []
        for file in files:
            old, new = str(file.get("old_path", "")), str(file.get("path", ""))
            out.append((new if old in ("", new) else f"{old} → {new}", str(file.get("diff", ""))))
        return out
    diff = str(state.get("turn_diff") or "")
    return [("turn diff", diff)] if diff else []


def view_cuts(state: Mapping[str, Any]) -> list[tuple[int, int]]:
    """Per block of :func:`turn_diff_files`, the lines and bytes the view's cut left out of it
    (``cut_lines``, ``cut_bytes``: jupyter/result.py ``view_blocks``)."""
    return [
        (int(f.get("cut_lines") or 0), int(f.get("cut_bytes") or 0))
        for f in state.get("turn_diff_files") or []
    ]


#: Why a turn's diff shows nothing although the turn changed files (the ``turn_diff_note``
#: trait; ``%apply_patch_turn`` says the same).
TURN_DIFF_INVALIDATED = (
    "The TurnDiff of this turn is unavailable: a call committed changes that its delta could "
    "not describe exactly (exact=False), so the turn's diff stays invalid until the turn ends "
    "(%apply_patch_turn --reset)."
)
TURN_DIFF_EMPTIED = (
    "The TurnDiff of this turn is empty again: its calls so far leave every file as it was "
    "when the turn started."
)
#: The most lines of one file's change the static views show (the rest is counted).
CHANGE_LINES = 200


def change_diff(change: Mapping[str, Any]) -> str:
    """The lines a change of the verified map (or a planned one) makes, as a diff body: an
    Update's radius-1 diff, an Add's lines as ``+``, a Delete's as ``-``."""
    kind = change.get("type")
    if kind == "update":
        return str(change.get("unified_diff") or "")
    sign = {"add": "+", "delete": "-"}.get(str(kind))
    if sign is None:
        return ""
    content = str(change.get("content") or "")
    return "".join(f"{sign}{line}\n" for line in content.splitlines())


def own_change_diffs(state: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(label, diff)`` per file of the call's own verified changes (what a dry run would
    write), each cut to :data:`CHANGE_LINES` lines with the rest counted."""
    cwd = str(state.get("cwd") or "")
    out = []
    for path, change in (state.get("proposed") or {}).items():
        lines = change_diff(change).splitlines()
        # the lines beyond CHANGE_LINES, and those the view's own cut left out (view_changes)
        more = max(0, len(lines) - CHANGE_LINES) + int(change.get("cut_lines") or 0)
        if more:
            lines = [*lines[:CHANGE_LINES], f"… {more} more line(s): result.proposed has them all"]
        label = _change_line(_relative(str(path), cwd), change)
        if lines:
            out.append((label, "\n".join(lines) + "\n"))
    return out


def turn_diff_files_json(files: Sequence[Any]) -> list[dict[str, str]]:
    """:class:`~..core.turn.turn_diff.FileDiff` records as the plain JSON of a state."""
    return [{"old_path": f.old_path, "path": f.path, "diff": f.text} for f in files]


def _change_line(path: str, change: Mapping[str, Any]) -> str:
    kind = change.get("type", "?")
    label = {"add": "Add", "delete": "Delete", "update": "Update"}.get(kind, kind)
    move = change.get("move_path")
    return _item(f"{label} {path}" + (f" -> {move}" if move else ""))


def _delta_lines(delta: Mapping[str, Any]) -> list[str]:
    lines = []
    for change in delta.get("changes", []):
        move = change.get("move_path")
        lines.append(
            _item(
                f"{change.get('type', '?')} {change.get('path')}" + (f" -> {move}" if move else "")
            )
        )
    return _items(lines)


def _event_lines(events: Sequence[Mapping[str, Any]]) -> list[str]:
    return [
        f"+{float(e.get('time', 0.0)):7.3f}s  {e.get('type')}"
        + (f"  {e['summary']}" if e.get("summary") else "")
        for e in events
    ]


def render_events_plain(events: Sequence[Mapping[str, Any]]) -> str:
    """A timeline as plain text: one line per event (time, type, summary)."""
    return "\n".join(visible(line) for line in _event_lines(events)) or "No events yet."


def events_heading(events: Sequence[Mapping[str, Any]], cwd: str) -> str:
    """What a turn's timeline is (``%apply_patch_turn --events``): no call, no status, no
    stage of its own, so it says how many events of how many calls, and where."""
    calls = len({str(e["call_id"]) for e in events if e.get("call_id") is not None})
    where = f" in {cwd}" if cwd else ""
    if not events:
        return f"The turn's timeline{where}: no events yet."
    return (
        f"The turn's timeline{where}: {len(events)} event{'' if len(events) == 1 else 's'} of "
        f"{calls} call{'' if calls == 1 else 's'}"
    )


def render_events_html(events: Sequence[Mapping[str, Any]], cwd: str) -> str:
    """A turn's timeline as self-contained HTML: its heading, then one line per event."""
    heading = f"<div>{_esc(events_heading(events, cwd))}</div>"
    body = f"{_PRE}{_esc_lines(chr(10).join(_event_lines(events)))}</pre>" if events else ""
    style = "font-family:sans-serif;font-size:13px"
    return f'<div class="applypatch-static" style="{style}">{heading}{body}</div>'


def _explanation_lines(explanation: Mapping[str, Any]) -> list[str]:
    lines = [str(explanation.get("summary", ""))]
    for pair in explanation.get("pairs", []):
        number = pair.get("line_number")
        where = f"line {number}" if number else "no line"
        verdict = pair.get("pass_name") or "differs"
        actual = pair.get("actual")
        shown = repr(actual) if actual is not None else f"({pair.get('absent') or 'no line'})"
        lines.append(f"  expected: {pair.get('expected')!r}")
        lines.append(f"  {where:>9}: {shown}  [{verdict}]")
    return lines


# -- bounding the short fields ------------------------------------------------------------------


def _item(text: str) -> str:
    """One entry of a list (a path, a change), cut to :data:`ITEM_CHARS` characters."""
    return text if len(text) <= ITEM_CHARS else text[:ITEM_CHARS] + "… (cut)"


def _items(items: Sequence[str]) -> list[str]:
    """At most :data:`LIST_ITEMS` entries, then one saying how many more there are."""
    if len(items) <= LIST_ITEMS:
        return list(items)
    return [*items[:LIST_ITEMS], f"... and {len(items) - LIST_ITEMS} more"]


def _cut_marker(lines: int, size: int, what: str) -> str:
    amount = f"{lines} more line{'' if lines == 1 else 's'}" + (
        f" ({static_diff.human_size(size)})" if size else ""
    )
    return f"✂ {amount} {what} not saved in this record: {WHOLE_DIFF_IS}"


def _capped(text: str, limit: int = FIELD_CHARS, what: str = "") -> str:
    """``text`` cut at a line end to about ``limit`` characters, the cut marked."""
    if len(text) <= limit:
        return text
    kept = text[:limit]
    end = kept.rfind("\n")
    if end > limit // 2:
        kept = kept[: end + 1]
    rest = text[len(kept) :]
    lines = rest.count("\n") + (0 if rest.endswith("\n") else 1)
    marker = _cut_marker(lines, len(rest.encode("utf-8", "surrogatepass")), what)
    return kept + ("" if kept.endswith("\n") else "\n") + marker


def _bounded_blocks(
    blocks: Sequence[tuple[str, str]],
    room: int,
    name: Callable[[str], str] = visible,
    view_cuts: Sequence[tuple[int, int]] = (),
) -> list[tuple[str, str, str]]:
    """``(label, kept text, cut marker or "")`` per ``(label, diff)`` block, all of them within
    ``room`` bytes (each file its first lines, at most a quarter of the room if there are
    other files after it); once the room is spent, one marker for the files left out.
    ``view_cuts``: per block, the lines and bytes the view's cut already left out of it."""
    out: list[tuple[str, str, str]] = []
    cuts = [*view_cuts, *[(0, 0)] * (len(blocks) - len(view_cuts))]
    for index, (label, text) in enumerate(blocks):
        room -= _MARKER_BYTES  # the cut marker of this file, if it has one
        if room <= 0:
            rest = blocks[index:]
            lines = sum(t.count("\n") for _, t in rest) + sum(c[0] for c in cuts[index:])
            size = sum(len(t.encode("utf-8", "surrogatepass")) for _, t in rest)
            size += sum(c[1] for c in cuts[index:])
            what = f"in {len(rest)} more file{'' if len(rest) == 1 else 's'}"
            out.append(("", "", _cut_marker(lines, size, what)))
            break
        cap = room if index == len(blocks) - 1 else max(room // 4, min(room, 2048))
        shown = visible_lines(text)
        size = len(shown.encode("utf-8", "surrogatepass"))
        if size <= cap:
            kept = shown
        else:
            kept = shown[: cap * len(shown) // size]
            kept = kept[: kept.rfind("\n") + 1]
        room -= len(kept.encode("utf-8", "surrogatepass"))
        marker = ""
        view_lines, view_bytes = cuts[index]
        if len(kept) < len(shown) or view_lines:
            rest_text = shown[len(kept) :]
            lines = (rest_text.count("\n") + (0 if rest_text.endswith("\n") else 1)) * bool(
                rest_text
            )
            size = len(rest_text.encode("utf-8", "surrogatepass")) + view_bytes
            marker = _cut_marker(lines + view_lines, size, f"of {name(label)}")
        else:
            room += _MARKER_BYTES
        out.append((label, kept, marker))
    return out


#: The most a cut marker of the text representations takes (escaped, in Markdown).
_MARKER_BYTES: Final = 700


def _shared(parts: Sequence[str]) -> int:
    return sum(len(p.encode("utf-8", "surrogatepass")) for p in parts)


def render_plain(state: Mapping[str, Any]) -> str:
    """A terminal-friendly summary of the call (at most :data:`TEXT_SHARE` bytes or so: the
    TurnDiff gets what the other fields leave of it, each file its first lines)."""
    status = str(state.get("status", ""))
    out = [
        visible(
            f"apply_patch {state.get('call_id', '')} in {state.get('cwd', '')}: "
            f"{status_meaning(status)['label']} (stage: {state.get('stage', '')})"
        )
    ]
    from . import panels  # it imports this module

    safety = state.get("safety") or {}
    if safety:
        reason = f": {_item(str(safety['reason']))}" if safety.get("reason") else ""
        note = f", {panels.safety_note(safety)}" if safety.get("review") else ""
        out.append(visible(f"safety: {safety.get('decision')}{note}{reason}"))
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(visible(_item(str(f))) for f in _items(approval.get("files", [])))
        out.append("waiting for approval of: " + files)
    out.extend(panels.review_plain(state))
    proposed = state.get("proposed") or {}
    planned = state.get("planned") or {}
    if proposed:
        out.append("verified changes:")
        out.extend(f"  {visible(line)}" for line in _items(_changes(proposed)))
    elif planned:
        out.append("planned changes (nothing written yet):")
        out.extend(f"  {visible(line)}" for line in _items(_changes(planned)))
    delta = state.get("delta") or {}
    if delta:
        out.append(f"committed (exact={delta.get('exact')}):")
        out.extend(f"  {visible(line)}" for line in _delta_lines(delta) or ["nothing"])
    for name in ("stdout", "stderr", "error"):
        if state.get(name):
            out.append(f"{name}: {visible_lines(_capped(str(state[name]).rstrip(), what=name))}")
    out.extend(panels.undo_plain(state))
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        from .notebooks import render_call_notebooks_plain  # it imports this module

        out.append(_capped(render_call_notebooks_plain(notebooks), 4 * FIELD_CHARS, "notebooks"))
    explanation = state.get("explanation") or {}
    if explanation:
        out.append("why it did not match:")
        out.append(visible_lines(_capped("\n".join(_explanation_lines(explanation)))))
    room = TEXT_SHARE - _shared(out) - 128
    own, turn = _text_diff_blocks(state, room)
    if own:
        out.append("changes of this call:")
        for label, kept, marker in own:
            out.extend(
                line for line in (label and f"  {visible(label)}", kept.rstrip("\n")) if line
            )
            out.extend([marker] if marker else [])
    if turn:
        out.append("turn diff: (the whole turn, every call so far)")
        for _label, kept, marker in turn:
            out.extend(line for line in (kept.rstrip("\n"), marker) if line)
    elif state.get("turn_diff_note"):
        out.append(f"turn diff: {visible(state['turn_diff_note'])}")
    return "\n".join(out)


def _text_diff_blocks(
    state: Mapping[str, Any], room: int, name: Callable[[str], str] = visible
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """The call's own changes and the TurnDiff, bounded for the text representations: the
    own changes first, within half of ``room`` when a TurnDiff follows; the TurnDiff gets the
    rest."""
    own_blocks = own_change_diffs(state)
    turn_blocks = turn_diff_files(state)
    own_room = room // 2 if turn_blocks else room
    own = _bounded_blocks(own_blocks, own_room, name) if own_blocks else []
    spent = sum(_shared([label, kept, marker]) for label, kept, marker in own)
    turn = _bounded_blocks(turn_blocks, room - spent, name, view_cuts(state)) if turn_blocks else []
    return own, turn


def _changes(changes: Mapping[str, Any]) -> list[str]:
    return [_change_line(p, c) for p, c in changes.items()]


def render_markdown(state: Mapping[str, Any]) -> str:
    """Markdown for GitHub and nbconvert (bounded as :func:`render_plain`)."""
    status = str(state.get("status", ""))
    out = [
        f"**apply_patch** {md_code(state.get('call_id', ''))}: "
        f"**{md_text(status_meaning(status)['label'])}** "
        f"(stage: {md_text(state.get('stage', ''))})",
        "",
    ]
    from . import panels  # it imports this module

    safety = state.get("safety") or {}
    if safety:
        reason = f" ({md_text(_item(str(safety['reason'])))})" if safety.get("reason") else ""
        note = f", {md_text(panels.safety_note(safety))}" if safety.get("review") else ""
        out += [f"- safety: {md_code(safety.get('decision'))}{note}{reason}"]
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(md_code(_item(str(f))) for f in _items(approval.get("files", [])))
        out += [f"- **waiting for approval** of {files}"]
    out += panels.review_markdown(state)
    proposed = state.get("proposed") or state.get("planned") or {}
    if proposed:
        label = "verified changes" if state.get("proposed") else "planned changes"
        out += [f"- {label}: " + ", ".join(md_code(line) for line in _items(_changes(proposed)))]
    delta = state.get("delta") or {}
    if delta:
        committed = ", ".join(md_code(line) for line in _delta_lines(delta)) or "nothing"
        out += [f"- committed (exact={md_text(delta.get('exact'))}): {committed}"]
    for name in ("stdout", "stderr"):
        if state.get(name):
            out += ["", f"{name}:", *md_fence(_capped(str(state[name]).rstrip(), what=name))]
    out += panels.undo_markdown(state)
    explanation = state.get("explanation") or {}
    if explanation:
        text = _capped("\n".join(_explanation_lines(explanation)))
        out += ["", "why it did not match:", *md_fence(text)]
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        from .notebooks import render_call_notebooks_markdown  # it imports this module

        shown = render_call_notebooks_markdown(notebooks)
        if len(shown) > 4 * FIELD_CHARS:
            shown = _cut_marker(shown.count("\n"), len(shown), "of the notebook views")
        out += ["", shown]
    # the fences take a few bytes per file: a file's share is its diff and its marker
    fences = 16 * (len(turn_diff_files(state)) + len(state.get("proposed") or {}))
    own, turn = _text_diff_blocks(state, TEXT_SHARE - _shared(out) - 128 - fences, md_code)
    if own:
        out += ["", "changes of this call:"]
        for label, kept, marker in own:
            out += ["", md_code(label)] if label else []
            out += md_fence(kept.rstrip("\n"), "diff") if kept else []
            out += ["", marker, ""] if marker else []
    if turn:
        out += ["", "turn diff: (the whole turn, every call so far)"]
        for _label, kept, marker in turn:
            out += md_fence(kept.rstrip("\n"), "diff") if kept else []
            out += ["", marker, ""] if marker else []
    elif state.get("turn_diff_note"):
        out += ["", f"turn diff: {md_text(state['turn_diff_note'])}"]
    return "\n".join(out)


def _esc(text: object) -> str:
    return html.escape(visible(text), quote=True)


def _esc_lines(text: object) -> str:
    return html.escape(visible_lines(text), quote=True)


#: Every diff and text block is monospace, also where no notebook CSS styles a ``<pre>``
#: (nbconvert's HTML, a page of its own, a sanitized output that lost the theme's variable).
_MONO = static_diff.MONO
_PRE = f'<pre style="{_MONO};font-size:12px">'
#: What the "Planned changes" preview says it is (the widget's words).
PREVIEW_NOTE: Final = (
    "Preview, planned from the streamed text: nothing is read or written yet. An update shows "
    "the patch's own lines: its context lines appear as removed and added, with no line numbers."
)
#: The notebooks' cell views in a record at most (else a marker says they are left out).
_NOTEBOOK_VIEWS_CHARS: Final = 8 * FIELD_CHARS


def _diff_html(text: str) -> str:
    """A small diff as coloured lines of one ``<pre>`` (the notebook views' cell diffs)."""
    rows = []
    for line in text.rstrip("\n").split("\n"):
        colour = ""
        if line.startswith("+") and not line.startswith("+++"):
            colour = f"color:{static_diff.ADD_FG}"
        elif line.startswith("-") and not line.startswith("---"):
            colour = f"color:{static_diff.DEL_FG}"
        elif line.startswith("@@"):
            colour = f"color:{static_diff.HUNK_FG}"
        rows.append(f'<span style="{colour}">{_esc(line)}</span>' if colour else _esc(line))
    return f'<pre style="margin:0;{_MONO}">' + "\n".join(rows) + "</pre>"


def _digest(state: Mapping[str, Any]) -> str:
    shown = [state.get(key) for key in ("call_id", "cwd", "proposed", "planned", "turn_diff")]
    text = json.dumps(shown, sort_keys=True, default=str)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()[
        :12
    ]


def _relative(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when it is under it (widget.js ``relativePath``)."""
    if not cwd:
        return path
    base = cwd if cwd.endswith(("/", "\\")) else cwd + "/"
    return path[len(base) :] if path.startswith(base) else path


def _section(title: str, body: str, *, open_: bool, note: str = "", style: str = "") -> str:
    return (
        f'<details{" open" if open_ else ""} style="margin-top:6px;{style}">'
        f'<summary style="cursor:pointer"><b>{title}</b>{note}</summary>{body}</details>'
    )


def _diff_sections(
    state: Mapping[str, Any], budget: static_diff.ByteBudget, anchor: str, turn_open: bool
) -> tuple[str, str]:
    """The call's own changes (verified, or the planned preview) and the turn's diff, as the
    static diff view, within ``budget``; the turn's diff is folded under the call's own changes
    unless ``turn_open`` or it is all there is."""
    cwd = str(state.get("cwd", ""))
    proposed = state.get("proposed") or {}
    planned = state.get("planned") or {}
    own = turn = ""
    changes = proposed or planned
    if changes:
        preview = not proposed
        files = static_diff.change_files(
            changes, lambda p: _relative(p, cwd), preview=preview, limit=FILE_LINES
        )
        count = f" · {len(files)} file{'' if len(files) == 1 else 's'}"
        body = static_diff.files_html(files, f"{anchor}-c", budget, visible, _esc(WHOLE_DIFF_IS))
        if preview:
            badge = (
                '<span style="border:1px dashed #c49102;color:#c49102;border-radius:8px;'
                'padding:0 6px;margin-right:6px;font-size:11px">preview</span>'
            )
            note = (
                '<div style="margin:4px 0;font-style:italic;color:#8b949e">'
                f"{_esc(PREVIEW_NOTE)}</div>"
            )
            own = _section(
                f"{badge}Planned changes",
                note + body,
                open_=True,
                note=f"{count}: planned, nothing written yet",
                style="border-left:3px dashed #c49102;padding-left:6px",
            )
        else:
            own = _section("Verified changes", body, open_=True, note=count)
    blocks = turn_diff_files(state)
    if blocks:
        files = static_diff.block_files(
            [(label, label, text) for label, text in blocks], FILE_LINES, view_cuts(state)
        )
        added = sum(f.added for f in files)
        removed = sum(f.removed for f in files)
        note = (
            f" · {len(files)} file{'' if len(files) == 1 else 's'}"
            f"{static_diff.counts_html(added, removed)}"
        )
        body = static_diff.files_html(
            files, f"{anchor}-t", budget, visible, _esc(WHOLE_DIFF_IS), open_files=not changes
        )
        # the turn's aggregate: folded under the call's own changes, open when it is all
        turn = _section(
            "Turn diff",
            body,
            open_=turn_open or not changes,
            note=f"{note}: the whole turn, every call so far",
        )
    elif state.get("turn_diff_note"):
        turn = f"<div>turn diff: {_esc(state['turn_diff_note'])}</div>"
    return own, turn


def render_html(state: Mapping[str, Any], *, anchor: str = "", turn_open: bool = False) -> str:
    """Self-contained HTML (inline styles only: no CSS file, no script), at most
    :data:`HTML_SHARE` bytes or so; ``anchor`` prefixes the ids of its files (the file list
    links to them); by default one derived from what it shows (two calls named alike, in two
    turns, show other diffs: their ids differ). The call's own changes come first; the turn's
    diff is closed under them unless ``turn_open`` (``%apply_patch_turn`` shows the turn)."""
    anchor = anchor or f"ap-{_digest(state)}"
    status = str(state.get("status", ""))
    meaning = status_meaning(status)
    colour = TONE_COLOURS[meaning["tone"]]
    head = [
        '<div class="applypatch-static" style="font-family:sans-serif;font-size:13px">',
        f"<div><b>apply_patch</b> <code>{_esc(state.get('call_id', ''))}</code> in "
        f"<code>{_esc(state.get('cwd', ''))}</code>: "
        f'<b style="color:{colour}">{_esc(meaning["label"])}</b> '
        f"(stage: {_esc(state.get('stage', ''))})</div>",
    ]
    from . import panels  # it imports this module

    safety = state.get("safety") or {}
    if safety:
        reason = f": {_esc(_item(str(safety['reason'])))}" if safety.get("reason") else ""
        note = f", {_esc(panels.safety_note(safety))}" if safety.get("review") else ""
        head.append(f"<div>safety: <code>{_esc(safety.get('decision'))}</code>{note}{reason}</div>")
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(
            f"<code>{_esc(_item(str(f)))}</code>" for f in _items(approval.get("files", []))
        )
        head.append(f"<div><b>waiting for approval</b> of {files}</div>")
    head.append(panels.review_html(state))
    middle = []
    delta = state.get("delta") or {}
    if delta:
        items = "".join(f"<li><code>{_esc(line)}</code></li>" for line in _delta_lines(delta))
        middle.append(
            f"<div>committed (exact={_esc(delta.get('exact'))}):<ul>{items or '<li>nothing</li>'}"
            "</ul></div>"
        )
    for name in ("stdout", "stderr"):
        if state.get(name):
            text = _capped(str(state[name]), what=name)
            middle.append(f"<div>{name}:{_PRE}{_esc_lines(text)}</pre></div>")
    middle.append(panels.undo_html(state))
    explanation = state.get("explanation") or {}
    if explanation:
        body = _esc_lines(_capped("\n".join(_explanation_lines(explanation))))
        middle.append(f"<div>why it did not match:{_PRE}{body}</pre></div>")
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        from .notebooks import render_call_notebooks_html  # it imports this module

        shown = render_call_notebooks_html(notebooks)
        if len(shown) > _NOTEBOOK_VIEWS_CHARS:
            shown = _esc(_cut_marker(shown.count("<tr"), len(shown), "of the notebook views"))
        middle.append(f"<div>notebooks as cells:{shown}</div>")
    tail = []
    events = state.get("events") or []
    if events:
        lines = "\n".join(_event_lines(events))
        tail.append(
            f"<details><summary>timeline</summary>{_PRE}"
            + _esc_lines(_capped(lines, what="of the timeline"))
            + "</pre></details>"
        )
    tail.append("</div>")
    # the sections' frames (summaries, notes): a little of the share
    budget = static_diff.ByteBudget(HTML_SHARE - _shared([*head, *middle, *tail]) - 4096)
    own, turn = _diff_sections(state, budget, anchor, turn_open)
    return "".join([*head, own, *middle, turn, *tail])
