"""Static representations of a call's state: HTML, Markdown and plain text.

They are what a reader sees where no widget front end runs (nbconvert, GitHub, a terminal) and
what the result object shows. All three are rendered from the same plain-JSON state the widget
syncs, so they cannot drift apart. No IPython import: these are pure functions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...core.text import plural
from ...core.turn.options import CallStatus
from ...markup import esc, esc_lines, md_code, md_fence, md_text, visible, visible_lines
from . import atlas, panels, static_diff
from .bound import (
    FIELD_CHARS,
    RECORD,
    TOOL_OUTPUT,
    TURN,
    ByteBudget,
    capped,
    cut_marker,
    item,
    items,
    shared,
    tool_output,
)
from .diffs import (
    change_label,
    diff_sections_html,
    preview,
    text_diffs,
    turn_summary_markdown,
    turn_summary_plain,
)
from .notebooks import (
    render_call_notebooks_html,
    render_call_notebooks_markdown,
    render_call_notebooks_plain,
)
from .vocabulary import TONE_COLOURS, call_vocabulary, status_meaning, undone_meanings

#: The words each status is shown as: the vocabulary's labels, the widget's words.
STATUS_TEXT = {
    status: meaning["label"] for status, meaning in call_vocabulary()["statuses"].items()
}


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


def _delta_lines(delta: Mapping[str, Any]) -> list[str]:
    lines = []
    for change in delta.get("changes", []):
        move = change.get("move_path")
        lines.append(
            item(
                f"{change.get('type', '?')} {change.get('path')}" + (f" -> {move}" if move else "")
            )
        )
    return items(lines)


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
    return f"The turn's timeline{where}: {plural(len(events), 'event')} of {plural(calls, 'call')}"


def render_events_html(events: Sequence[Mapping[str, Any]], cwd: str) -> str:
    """A turn's timeline as self-contained HTML: its heading, then one line per event."""
    heading = f"<div>{esc(events_heading(events, cwd))}</div>"
    body = f"{_PRE}{esc_lines(chr(10).join(_event_lines(events)))}</pre>" if events else ""
    style = "font-family:sans-serif;font-size:13px"
    return f'<div class="applypatch-static" style="{style}">{heading}{body}</div>'


def shown_meaning(state: Mapping[str, Any]) -> dict[str, Any]:
    """What the record's header says the call is: its status's meaning, or, for a completed
    call an undo put back (the ``undo`` trait's ``undone``), the vocabulary's ``undone``."""
    meaning = status_meaning(str(state.get("status", "")))
    undone = undone_meanings().get(str((state.get("undo") or {}).get("undone") or ""))
    return {**meaning, **undone} if undone else meaning


def how_to_answer(state: Mapping[str, Any]) -> str:
    """For a call waiting for approval: how to answer it, with the buttons of its live view
    (when one shows it: its record has an id) or from code: its result's name, when
    ``%%apply_patch NAME`` stored it, and ``%apply_patch_turn``, which shows the turn's
    waiting calls with their buttons."""
    if state.get("status") != CallStatus.AWAITING_APPROVAL:
        return ""
    name = str(state.get("result_name") or "")
    code = (
        [
            f'`{name}.decide("approve")`',
            f'`{name}.decide("decline", reason="...")`',
            f'`{name}.decide("approve", accept={{PATH: [CHUNK, ...]}})`',
        ]
        if name
        else []
    )
    gone = "A restarted kernel has forgotten the call: nothing of it was written."
    if not state.get("record_id"):  # no live view: from code only
        if not code:
            return (
                "no live view and no name answer this call (`%%apply_patch NAME` stores a "
                f"call's result: `NAME.decide(...)` answers it). {gone}"
            )
        return f"to answer from code, in a new cell: {', '.join(code)}. {gone}"
    turn = "`%apply_patch_turn`, which shows this turn's waiting calls with their buttons"
    return (
        "to answer: the buttons of its live view (a page reloaded while the kernel runs shows "
        f"them again), or from code in a new cell: {', '.join([*code, turn])}. {gone}"
    )


def render_plain(state: Mapping[str, Any]) -> str:
    """A terminal-friendly summary of the call, within the text share of its record: its own
    changes get what the other fields leave of it; the turn's diff is a summary."""
    meaning = shown_meaning(state)
    out = [
        visible(
            f"apply_patch {state.get('call_id', '')} in {state.get('cwd', '')}: "
            f"{meaning['label']} (stage: {state.get('stage', '')})"
        )
    ]
    safety = state.get("safety") or {}
    if safety:
        reason = f": {item(str(safety['reason']))}" if safety.get("reason") else ""
        note = f", {panels.safety_note(safety)}" if safety.get("review") else ""
        out.append(visible(f"safety: {safety.get('decision')}{note}{reason}"))
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(visible(item(str(f))) for f in items(approval.get("files", [])))
        out.append("waiting for approval of: " + files)
    if how_to_answer(state):
        out.append(visible(how_to_answer(state)))
    out.extend(panels.review_plain(state))
    proposed = state.get("proposed") or {}
    planned = state.get("planned") or {}
    if proposed:
        out.append("verified changes:")
        out.extend(f"  {visible(line)}" for line in items(_changes(proposed)))
    elif planned:
        out.append(f"planned changes ({preview(state)['note']}):")
        out.extend(f"  {visible(line)}" for line in items(_changes(planned)))
    delta = state.get("delta") or {}
    if delta:
        out.append(f"committed (exact={delta.get('exact')}):")
        out.extend(f"  {visible(line)}" for line in _delta_lines(delta) or ["nothing"])
    for name in ("stdout", "stderr", "error"):
        if state.get(name):
            out.append(f"{name}: {visible_lines(capped(str(state[name]).rstrip(), what=name))}")
    if tool_output(state):
        out.append(f"{TOOL_OUTPUT}: {visible_lines(tool_output(state))}")
    out.extend(panels.undo_plain(state))
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        out.append(capped(render_call_notebooks_plain(notebooks), 4 * FIELD_CHARS, "notebooks"))
    out.extend(atlas.why_plain(state))
    summary = turn_summary_plain(state)
    own, _turn = text_diffs(state, RECORD.text - shared([*out, *summary]) - 128)
    if own:
        out.append("changes of this call:")
        for label, kept, marker in own:
            out.extend(
                line for line in (label and f"  {visible(label)}", kept.rstrip("\n")) if line
            )
            out.extend([marker] if marker else [])
    if summary:
        out.extend(summary)
    elif state.get("turn_diff_note"):
        out.append(f"turn diff: {visible(state['turn_diff_note'])}")
    return "\n".join(out)


def _changes(changes: Mapping[str, Any]) -> list[str]:
    return [change_label(p, c) for p, c in changes.items()]


def render_markdown(state: Mapping[str, Any], *, whole_turn: bool = False) -> str:
    """Markdown for GitHub and nbconvert (bounded as :func:`render_plain`)."""
    bound = TURN if whole_turn else RECORD
    out = [
        f"**apply_patch** {md_code(state.get('call_id', ''))}: "
        f"**{md_text(shown_meaning(state)['label'])}** "
        f"(stage: {md_text(state.get('stage', ''))})",
        "",
    ]
    safety = state.get("safety") or {}
    if safety:
        reason = f" ({md_text(item(str(safety['reason'])))})" if safety.get("reason") else ""
        note = f", {md_text(panels.safety_note(safety))}" if safety.get("review") else ""
        out += [f"- safety: {md_code(safety.get('decision'))}{note}{reason}"]
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(md_code(item(str(f))) for f in items(approval.get("files", [])))
        out += [f"- **waiting for approval** of {files}"]
    if how_to_answer(state):
        out += [f"- {_md_with_code(how_to_answer(state))}"]
    out += panels.review_markdown(state)
    proposed = state.get("proposed") or state.get("planned") or {}
    if proposed:
        label = "verified changes" if state.get("proposed") else "planned changes"
        out += [f"- {label}: " + ", ".join(md_code(line) for line in items(_changes(proposed)))]
    delta = state.get("delta") or {}
    if delta:
        committed = ", ".join(md_code(line) for line in _delta_lines(delta)) or "nothing"
        out += [f"- committed (exact={md_text(delta.get('exact'))}): {committed}"]
    for name in ("stdout", "stderr"):
        if state.get(name):
            out += ["", f"{name}:", *md_fence(capped(str(state[name]).rstrip(), what=name))]
    if tool_output(state):
        out += ["", f"{md_text(TOOL_OUTPUT)}:", *md_fence(tool_output(state))]
    out += panels.undo_markdown(state)
    out += atlas.why_markdown(state)
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        shown = render_call_notebooks_markdown(notebooks, turn_cells=whole_turn)
        if len(shown) > 4 * FIELD_CHARS:
            shown = cut_marker(shown.count("\n"), len(shown), "of the notebook views")
        out += ["", shown]
    summary = [] if whole_turn else turn_summary_markdown(state)
    room = bound.text - shared([*out, *summary]) - 128
    own, turn = text_diffs(state, room, md_code, whole_turn=whole_turn)
    if own:
        out += ["", "changes of this call:"]
        for label, kept, marker in own:
            out += ["", md_code(label)] if label else []
            out += md_fence(kept.rstrip("\n"), "diff") if kept else []
            out += ["", marker, ""] if marker else []
    if turn:
        out += ["", "turn diff: (the whole turn, every call so far)"]
        for label, kept, marker in turn:
            out += ["", md_code(label)] if label else []
            out += md_fence(kept.rstrip("\n"), "diff") if kept else []
            out += ["", marker, ""] if marker else []
    elif summary:
        out += summary
    elif state.get("turn_diff_note"):
        out += ["", f"turn diff: {md_text(state['turn_diff_note'])}"]
    return "\n".join(out)


def _md_with_code(text: str) -> str:
    """``text`` in Markdown: its backquoted parts as code, the rest escaped."""
    parts = text.split("`")
    return "".join(md_code(p) if i % 2 else md_text(p) for i, p in enumerate(parts))


def _html_with_code(text: str) -> str:
    """``text`` in HTML: its backquoted parts as ``<code>``, the rest escaped."""
    parts = text.split("`")
    return "".join(f"<code>{esc(p)}</code>" if i % 2 else esc(p) for i, p in enumerate(parts))


#: Every diff and text block is monospace, also where no notebook CSS styles a ``<pre>``
#: (nbconvert's HTML, a page of its own, a sanitized output that lost the theme's variable).
_MONO = static_diff.MONO
_PRE = f'<pre style="{_MONO};font-size:12px">'
#: The notebooks' cell views in a record at most (else a marker says they are left out).
_NOTEBOOK_VIEWS_CHARS: Final = 8 * FIELD_CHARS


def _digest(state: Mapping[str, Any]) -> str:
    shown = [state.get(key) for key in ("call_id", "cwd", "proposed", "planned", "turn_diff")]
    text = json.dumps(shown, sort_keys=True, default=str)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()[
        :12
    ]


def render_html(state: Mapping[str, Any], *, anchor: str = "", whole_turn: bool = False) -> str:
    """Self-contained HTML (inline styles only: no CSS file, no script), within the HTML share
    of its bound; ``anchor`` prefixes the ids of its files (the file list links to them); by
    default one derived from what it shows (two calls named alike, in two turns, show other
    diffs: their ids differ). The call's own changes come first; the turn's diff is a summary
    folded under them, or with ``whole_turn`` (``%apply_patch_turn``) shown whole and open."""
    anchor = anchor or f"ap-{_digest(state)}"
    meaning = shown_meaning(state)
    colour = TONE_COLOURS[meaning["tone"]]
    head = [
        '<div class="applypatch-static" style="font-family:sans-serif;font-size:13px">',
        f"<div><b>apply_patch</b> <code>{esc(state.get('call_id', ''))}</code> in "
        f"<code>{esc(state.get('cwd', ''))}</code>: "
        f'<b style="color:{colour}">{esc(meaning["label"])}</b> '
        f"(stage: {esc(state.get('stage', ''))})</div>",
    ]
    safety = state.get("safety") or {}
    if safety:
        reason = f": {esc(item(str(safety['reason'])))}" if safety.get("reason") else ""
        note = f", {esc(panels.safety_note(safety))}" if safety.get("review") else ""
        head.append(f"<div>safety: <code>{esc(safety.get('decision'))}</code>{note}{reason}</div>")
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(
            f"<code>{esc(item(str(f)))}</code>" for f in items(approval.get("files", []))
        )
        head.append(f"<div><b>waiting for approval</b> of {files}</div>")
    if how_to_answer(state):
        head.append(f"<div>{_html_with_code(how_to_answer(state))}</div>")
    head.append(panels.review_html(state))
    middle = []
    delta = state.get("delta") or {}
    if delta:
        listed = "".join(f"<li><code>{esc(line)}</code></li>" for line in _delta_lines(delta))
        middle.append(
            f"<div>committed (exact={esc(delta.get('exact'))}):<ul>{listed or '<li>nothing</li>'}"
            "</ul></div>"
        )
    for name in ("stdout", "stderr"):
        if state.get(name):
            text = capped(str(state[name]), what=name)
            middle.append(f"<div>{name}:{_PRE}{esc_lines(text)}</pre></div>")
    if tool_output(state):
        middle.append(f"<div>{esc(TOOL_OUTPUT)}:{_PRE}{esc_lines(tool_output(state))}</pre></div>")
    middle.append(panels.undo_html(state))
    middle.append(atlas.why_html(state))
    notebooks = state.get("notebooks") or {}
    if any(notebooks.values()):
        shown = render_call_notebooks_html(notebooks, turn_cells=whole_turn)
        if len(shown) > _NOTEBOOK_VIEWS_CHARS:
            shown = esc(cut_marker(shown.count("<tr"), len(shown), "of the notebook views"))
        middle.append(f"<div>notebooks as cells:{shown}</div>")
    tail = []
    events = state.get("events") or []
    if events:
        lines = "\n".join(_event_lines(events))
        tail.append(
            f"<details><summary>timeline</summary>{_PRE}"
            + esc_lines(capped(lines, what="of the timeline"))
            + "</pre></details>"
        )
    tail.append("</div>")
    # the sections' frames (summaries, notes): a little of the share
    bound = TURN if whole_turn else RECORD
    budget = ByteBudget(bound.html - shared([*head, *middle, *tail]) - 4096)
    own, turn = diff_sections_html(state, budget, anchor, whole_turn=whole_turn)
    return "".join([*head, own, *middle, turn, *tail])
