"""Static representations of a call's state: HTML, Markdown and plain text.

They are what a reader sees where no widget front end runs (nbconvert, GitHub, a terminal) and
what the result object shows. All three are rendered from the same plain-JSON state the widget
syncs, so they cannot drift apart. No IPython import: these are pure functions.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .vocabulary import TONE_COLOURS, call_vocabulary, status_meaning

#: The words each status is shown as: the vocabulary's labels, the widget's words.
STATUS_TEXT = {
    status: meaning["label"] for status, meaning in call_vocabulary()["statuses"].items()
}


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


def _relative(path: str, cwd: str) -> str:
    prefix = cwd.rstrip("/") + "/"
    return path[len(prefix) :] if cwd and path.startswith(prefix) else path


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
        if len(lines) > CHANGE_LINES:
            more = len(lines) - CHANGE_LINES
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
    return f"{label} {path}" + (f" -> {move}" if move else "")


def _delta_lines(delta: Mapping[str, Any]) -> list[str]:
    lines = []
    for change in delta.get("changes", []):
        move = change.get("move_path")
        lines.append(
            f"{change.get('type', '?')} {change.get('path')}" + (f" -> {move}" if move else "")
        )
    return lines


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


def render_plain(state: Mapping[str, Any]) -> str:
    """A terminal-friendly summary of the call."""
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
        reason = f": {safety['reason']}" if safety.get("reason") else ""
        note = f", {panels.safety_note(safety)}" if safety.get("review") else ""
        out.append(visible(f"safety: {safety.get('decision')}{note}{reason}"))
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(visible(f) for f in approval.get("files", []))
        out.append("waiting for approval of: " + files)
    out.extend(panels.review_plain(state))
    proposed = state.get("proposed") or {}
    planned = state.get("planned") or {}
    if proposed:
        out.append("verified changes:")
        out.extend(f"  {visible(_change_line(p, c))}" for p, c in proposed.items())
    elif planned:
        out.append("planned changes (nothing written yet):")
        out.extend(f"  {visible(_change_line(p, c))}" for p, c in planned.items())
    delta = state.get("delta") or {}
    if delta:
        out.append(f"committed (exact={delta.get('exact')}):")
        out.extend(f"  {visible(line)}" for line in _delta_lines(delta) or ["nothing"])
    for name in ("stdout", "stderr", "error"):
        if state.get(name):
            out.append(f"{name}: {visible_lines(str(state[name]).rstrip())}")
    out.extend(panels.undo_plain(state))
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        from .notebooks import render_call_notebooks_plain  # it imports this module

        out.append(render_call_notebooks_plain(notebooks))
    explanation = state.get("explanation") or {}
    if explanation:
        out.append("why it did not match:")
        out.extend(visible(line) for line in _explanation_lines(explanation))
    own = own_change_diffs(state)
    if own:
        out.append("changes of this call:")
        for label, text in own:
            out.append(f"  {visible(label)}")
            out.append(visible_lines(text.rstrip("\n")))
    if state.get("turn_diff"):
        out.append("turn diff: (the whole turn, every call so far)")
        out.append(visible_lines(str(state["turn_diff"]).rstrip("\n")))
    elif state.get("turn_diff_note"):
        out.append(f"turn diff: {visible(state['turn_diff_note'])}")
    return "\n".join(out)


def render_markdown(state: Mapping[str, Any]) -> str:
    """Markdown for GitHub and nbconvert."""
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
        reason = f" ({md_text(safety['reason'])})" if safety.get("reason") else ""
        note = f", {md_text(panels.safety_note(safety))}" if safety.get("review") else ""
        out += [f"- safety: {md_code(safety.get('decision'))}{note}{reason}"]
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(md_code(f) for f in approval.get("files", []))
        out += [f"- **waiting for approval** of {files}"]
    out += panels.review_markdown(state)
    proposed = state.get("proposed") or state.get("planned") or {}
    if proposed:
        label = "verified changes" if state.get("proposed") else "planned changes"
        out += [
            f"- {label}: " + ", ".join(md_code(_change_line(p, c)) for p, c in proposed.items())
        ]
    delta = state.get("delta") or {}
    if delta:
        committed = ", ".join(md_code(line) for line in _delta_lines(delta)) or "nothing"
        out += [f"- committed (exact={md_text(delta.get('exact'))}): {committed}"]
    for name in ("stdout", "stderr"):
        if state.get(name):
            out += ["", f"{name}:", *md_fence(str(state[name]).rstrip())]
    out += panels.undo_markdown(state)
    explanation = state.get("explanation") or {}
    if explanation:
        out += ["", "why it did not match:", *md_fence("\n".join(_explanation_lines(explanation)))]
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        from .notebooks import render_call_notebooks_markdown  # it imports this module

        out += ["", render_call_notebooks_markdown(notebooks)]
    own = own_change_diffs(state)
    if own:
        out += ["", "changes of this call:"]
        for label, text in own:
            out += ["", md_code(label), *md_fence(text.rstrip("\n"), "diff")]
    if state.get("turn_diff"):
        out += [
            "",
            "turn diff: (the whole turn, every call so far)",
            *md_fence(str(state["turn_diff"]).rstrip("\n"), "diff"),
        ]
    elif state.get("turn_diff_note"):
        out += ["", f"turn diff: {md_text(state['turn_diff_note'])}"]
    return "\n".join(out)


def _esc(text: object) -> str:
    return html.escape(visible(text), quote=True)


def _esc_lines(text: object) -> str:
    return html.escape(visible_lines(text), quote=True)


#: Every diff and text block is monospace, also where no notebook CSS styles a ``<pre>``
#: (nbconvert's HTML, a page of its own): the theme's code font first, then common ones.
_MONO = (
    "font-family:var(--jp-code-font-family,SFMono-Regular,Menlo,Consolas,"
    "'DejaVu Sans Mono','Liberation Mono',monospace)"
)
_PRE = f'<pre style="{_MONO}">'


def _diff_html(text: str) -> str:
    rows = []
    for line in text.rstrip("\n").split("\n"):
        colour = ""
        if line.startswith("+") and not line.startswith("+++"):
            colour = "color:#1a7f37"
        elif line.startswith("-") and not line.startswith("---"):
            colour = "color:#cf222e"
        elif line.startswith("@@"):
            colour = "color:#8250df"
        rows.append(f'<span style="{colour}">{_esc(line)}</span>' if colour else _esc(line))
    return f'<pre style="margin:0;{_MONO}">' + "\n".join(rows) + "</pre>"


def render_html(state: Mapping[str, Any], *, turn_open: bool = False) -> str:
    """Self-contained HTML (inline styles only: no CSS file, no script).

    The call's own changes come first; the turn's diff (every call so far) is one section,
    closed unless ``turn_open`` (``%apply_patch_turn``, which shows the turn itself)."""
    status = str(state.get("status", ""))
    meaning = status_meaning(status)
    colour = TONE_COLOURS[meaning["tone"]]
    parts = [
        '<div class="applypatch-static" style="font-family:sans-serif;font-size:13px">',
        f"<div><b>apply_patch</b> <code>{_esc(state.get('call_id', ''))}</code> in "
        f"<code>{_esc(state.get('cwd', ''))}</code>: "
        f'<b style="color:{colour}">{_esc(meaning["label"])}</b> '
        f"(stage: {_esc(state.get('stage', ''))})</div>",
    ]
    from . import panels  # it imports this module

    safety = state.get("safety") or {}
    if safety:
        reason = f": {_esc(safety['reason'])}" if safety.get("reason") else ""
        note = f", {_esc(panels.safety_note(safety))}" if safety.get("review") else ""
        parts.append(
            f"<div>safety: <code>{_esc(safety.get('decision'))}</code>{note}{reason}</div>"
        )
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(f"<code>{_esc(f)}</code>" for f in approval.get("files", []))
        parts.append(f"<div><b>waiting for approval</b> of {files}</div>")
    parts.append(panels.review_html(state))
    proposed = state.get("proposed") or {}
    planned = state.get("planned") or {}
    if proposed or planned:
        label = "verified changes" if proposed else "planned changes (nothing written yet)"
        items = "".join(
            f"<li><code>{_esc(_change_line(p, c))}</code></li>"
            for p, c in (proposed or planned).items()
        )
        parts.append(f"<div>{label}:<ul>{items}</ul></div>")
    delta = state.get("delta") or {}
    if delta:
        items = "".join(f"<li><code>{_esc(line)}</code></li>" for line in _delta_lines(delta))
        parts.append(
            f"<div>committed (exact={_esc(delta.get('exact'))}):<ul>{items or '<li>nothing</li>'}"
            "</ul></div>"
        )
    for name in ("stdout", "stderr"):
        if state.get(name):
            parts.append(f"<div>{name}:{_PRE}{_esc_lines(state[name])}</pre></div>")
    parts.append(panels.undo_html(state))
    explanation = state.get("explanation") or {}
    if explanation:
        body = _esc_lines("\n".join(_explanation_lines(explanation)))
        parts.append(f"<div>why it did not match:{_PRE}{body}</pre></div>")
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        from .notebooks import render_call_notebooks_html  # it imports this module

        parts.append(f"<div>notebooks as cells:{render_call_notebooks_html(notebooks)}</div>")
    own = own_change_diffs(state)
    if own:
        files = "".join(
            f"<details open><summary><code>{_esc(label)}</code></summary>{_diff_html(text)}"
            "</details>"
            for label, text in own
        )
        parts.append(f'<div class="applypatch-own-changes">changes of this call:{files}</div>')
    blocks = turn_diff_files(state)
    if blocks:
        files = "".join(
            f"<details open><summary><code>{_esc(label)}</code></summary>{_diff_html(text)}"
            "</details>"
            for label, text in blocks
        )
        count = f"{len(blocks)} file{'' if len(blocks) == 1 else 's'}"
        parts.append(
            f'<details class="applypatch-turn-diff"{" open" if turn_open else ""}><summary>'
            f"turn diff: {count}, the whole turn (every call so far)</summary>{files}</details>"
        )
    elif state.get("turn_diff_note"):
        parts.append(f"<div>turn diff: {_esc(state['turn_diff_note'])}</div>")
    events = state.get("events") or []
    if events:
        parts.append(
            f"<details><summary>timeline</summary>{_PRE}"
            + _esc_lines("\n".join(_event_lines(events)))
            + "</pre></details>"
        )
    parts.append("</div>")
    return "".join(parts)
