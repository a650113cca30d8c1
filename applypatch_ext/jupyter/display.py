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

_FILE_HEADER = re.compile(r"^diff --git ", re.MULTILINE)
STATUS_TEXT = {
    "": "running",
    "completed": "completed",
    "failed": "failed",
    "declined": "declined",
    "rejected": "rejected",
    "error": "error",
    "cancelled": "cancelled",
    "awaiting-approval": "waiting for approval",
    "dry-run": "dry run (nothing written)",
}
_COLOURS = {
    "completed": "#1a7f37",
    "dry-run": "#0969da",
    "awaiting-approval": "#9a6700",
    "": "#57606a",
}


def split_turn_diff(diff: str) -> list[tuple[str, str]]:
    """``(display path, text)`` per file of a TurnDiff."""
    starts = [m.start() for m in _FILE_HEADER.finditer(diff)]
    parts = []
    for i, start in enumerate(starts):
        text = diff[start : starts[i + 1] if i + 1 < len(starts) else len(diff)]
        header = text.split("\n", 1)[0]
        path = header.split(" b/", 1)[-1] if " b/" in header else header
        parts.append((path, text))
    return parts


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
    return "\n".join(_event_lines(events)) or "No events yet."


def _explanation_lines(explanation: Mapping[str, Any]) -> list[str]:
    lines = [str(explanation.get("summary", ""))]
    for pair in explanation.get("pairs", []):
        number = pair.get("line_number")
        where = f"line {number}" if number else "no line"
        verdict = pair.get("pass_name") or "differs"
        lines.append(f"  expected: {pair.get('expected')!r}")
        lines.append(f"  {where:>9}: {pair.get('actual')!r}  [{verdict}]")
    return lines


def render_plain(state: Mapping[str, Any]) -> str:
    """A terminal-friendly summary of the call."""
    status = str(state.get("status", ""))
    out = [
        f"apply_patch {state.get('call_id', '')} in {state.get('cwd', '')}: "
        f"{STATUS_TEXT.get(status, status)} (stage: {state.get('stage', '')})"
    ]
    safety = state.get("safety") or {}
    if safety:
        reason = f": {safety['reason']}" if safety.get("reason") else ""
        out.append(f"safety: {safety.get('decision')}{reason}")
    approval = state.get("approval") or {}
    if approval:
        out.append("waiting for approval of: " + ", ".join(approval.get("files", [])))
    proposed = state.get("proposed") or {}
    planned = state.get("planned") or {}
    if proposed:
        out.append("verified changes:")
        out.extend(f"  {_change_line(p, c)}" for p, c in proposed.items())
    elif planned:
        out.append("planned changes (nothing written yet):")
        out.extend(f"  {_change_line(p, c)}" for p, c in planned.items())
    delta = state.get("delta") or {}
    if delta:
        out.append(f"committed (exact={delta.get('exact')}):")
        out.extend(f"  {line}" for line in _delta_lines(delta) or ["nothing"])
    for name in ("stdout", "stderr", "error"):
        if state.get(name):
            out.append(f"{name}: {str(state[name]).rstrip()}")
    explanation = state.get("explanation") or {}
    if explanation:
        out.append("why it did not match:")
        out.extend(_explanation_lines(explanation))
    if state.get("turn_diff"):
        out.append("turn diff:")
        out.append(str(state["turn_diff"]).rstrip("\n"))
    return "\n".join(out)


def render_markdown(state: Mapping[str, Any]) -> str:
    """Markdown for GitHub and nbconvert."""
    status = str(state.get("status", ""))
    out = [
        f"**apply_patch** `{state.get('call_id', '')}`: **{STATUS_TEXT.get(status, status)}**"
        f" (stage: {state.get('stage', '')})",
        "",
    ]
    safety = state.get("safety") or {}
    if safety:
        reason = f" ({safety['reason']})" if safety.get("reason") else ""
        out += [f"- safety: `{safety.get('decision')}`{reason}"]
    proposed = state.get("proposed") or state.get("planned") or {}
    if proposed:
        label = "verified changes" if state.get("proposed") else "planned changes"
        out += [f"- {label}: " + ", ".join(f"`{_change_line(p, c)}`" for p, c in proposed.items())]
    delta = state.get("delta") or {}
    if delta:
        committed = ", ".join(f"`{line}`" for line in _delta_lines(delta)) or "nothing"
        out += [f"- committed (exact={delta.get('exact')}): {committed}"]
    for name in ("stdout", "stderr"):
        if state.get(name):
            out += ["", f"{name}:", "```", str(state[name]).rstrip(), "```"]
    explanation = state.get("explanation") or {}
    if explanation:
        out += ["", "why it did not match:", "```", *_explanation_lines(explanation), "```"]
    if state.get("turn_diff"):
        out += ["", "turn diff:", "```diff", str(state["turn_diff"]).rstrip("\n"), "```"]
    return "\n".join(out)


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


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
    return '<pre style="margin:0">' + "\n".join(rows) + "</pre>"


def render_html(state: Mapping[str, Any]) -> str:
    """Self-contained HTML (inline styles only: no CSS file, no script)."""
    status = str(state.get("status", ""))
    colour = _COLOURS.get(status, "#cf222e")
    parts = [
        '<div class="applypatch-static" style="font-family:sans-serif;font-size:13px">',
        f"<div><b>apply_patch</b> <code>{_esc(state.get('call_id', ''))}</code> in "
        f"<code>{_esc(state.get('cwd', ''))}</code>: "
        f'<b style="color:{colour}">{_esc(STATUS_TEXT.get(status, status))}</b> '
        f"(stage: {_esc(state.get('stage', ''))})</div>",
    ]
    safety = state.get("safety") or {}
    if safety:
        reason = f": {_esc(safety['reason'])}" if safety.get("reason") else ""
        parts.append(f"<div>safety: <code>{_esc(safety.get('decision'))}</code>{reason}</div>")
    approval = state.get("approval") or {}
    if approval:
        files = ", ".join(f"<code>{_esc(f)}</code>" for f in approval.get("files", []))
        parts.append(f"<div><b>waiting for approval</b> of {files}</div>")
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
            parts.append(f"<div>{name}:<pre>{_esc(state[name])}</pre></div>")
    explanation = state.get("explanation") or {}
    if explanation:
        body = _esc("\n".join(_explanation_lines(explanation)))
        parts.append(f"<div>why it did not match:<pre>{body}</pre></div>")
    diff = str(state.get("turn_diff") or "")
    if diff:
        files = "".join(
            f"<details open><summary><code>{_esc(path)}</code></summary>{_diff_html(text)}"
            "</details>"
            for path, text in split_turn_diff(diff)
        )
        parts.append(f"<div>turn diff:{files}</div>")
    events = state.get("events") or []
    if events:
        parts.append(
            "<details><summary>timeline</summary><pre>"
            + _esc("\n".join(_event_lines(events)))
            + "</pre></details>"
        )
    parts.append("</div>")
    return "".join(parts)
