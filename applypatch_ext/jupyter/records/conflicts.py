"""A conflicting file of an undo, in a call's record: its three versions, bounded and named.

An undo that finds a file changed since the call (docs/behaviour.md §11.2) shows it with its
three versions (before the call, as the call left it, now), each cut to :data:`VERSION_LINES`
lines and :data:`VERSION_CHARS` characters, at most :data:`CONFLICTS` files
(:data:`CONFLICT_CHARS` of versions in all). The widget's ``undo`` trait holds its conflicts
already cut the same way (:func:`bounded_conflict`), so the browser never receives a whole
large file either, and with the labels its versions go by (a forced undo's say what it wrote
and what it overwrote). Pure functions, no IPython import.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...markup import esc, esc_lines, md_code, md_fence, md_text, visible, visible_lines
from .bound import cut as _cut
from .bound import more as _more
from .notebooks import render_notebook_diff_html, render_notebook_diff_markdown

#: At most this many conflicting files are shown with their versions, and this many
#: characters of versions in all.
CONFLICTS: Final = 20
CONFLICT_CHARS: Final = 16_000
#: At most this many lines, and characters, of each version of a conflicting file.
VERSION_LINES: Final = 200
VERSION_CHARS: Final = 4_000

#: The three versions of a conflicting file, as the conflict and the widget name them.
VERSIONS: Final = (("before", "before the call"), ("left", "as the call left it"), ("now", "now"))


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
    """``Conflict.to_json()`` with each of its three versions bounded (:func:`bounded_state`),
    and ``labels``, what each version is called (the widget shows them, as the records do)."""
    return {
        **conflict,
        **{key: bounded_state(conflict.get(key)) for key, _label in VERSIONS},
        "labels": dict(_versions(conflict)),
    }


def version_text(state: Mapping[str, Any] | None, found: str | None = None) -> str:
    """One version as the static views show it: its (bounded) text, or what stands for it
    (``found``: what a conflict found where no text could be read, ``a symbolic link to ...``)."""
    if state is None:
        return f"({found})" if found else "(not readable as a text file)"
    if not state.get("exists"):
        return "(absent)"
    text, hidden = _cut(str(state.get("content", "")), VERSION_LINES, VERSION_CHARS)
    hidden += int(state.get("more_lines") or 0)
    if hidden:
        text += ("" if not text or text.endswith("\n") else "\n") + _more(hidden) + "\n"
    mode = f"mode {state['mode']}, " if state.get("mode") else ""
    return text if text else f"(empty, {mode}sha256 {state.get('sha256')})"


CONFLICT_HEADING: Final = "Undo conflict: nothing was written"


def conflict_heading(conflicts: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """The conflicts' heading, its title and the rest: a conflict stopped the undo and nothing
    was written (:data:`CONFLICT_HEADING`), or a forced undo says what it overwrote."""
    kind = str(conflicts[0].get("kind") or "undo") if conflicts else "undo"
    forced = [c for c in conflicts if c.get("forced")]
    if not forced:
        title, rest = CONFLICT_HEADING.split(": ", 1)
        return (title if kind == "undo" else f"{kind.capitalize()} conflict"), rest
    written = sum(1 for c in forced if c.get("written"))
    rest = f"--force overwrote {written} file(s) changed since the call"
    if written < len(conflicts):
        rest += f"; {len(conflicts) - written} not written (the {kind} stopped before)"
    return f"Forced {kind}", rest + ": what it wrote and what it overwrote, below"


def _versions(conflict: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The three versions and their labels: once a forced undo overwrote the file, what was
    there is what it overwrote, and the state it wrote says so."""
    if not conflict.get("written"):
        return list(VERSIONS)
    wrote = "before" if conflict.get("kind", "undo") == "undo" else "left"
    kind = str(conflict.get("kind") or "undo")
    return [
        (key, f"{label} (written by the {kind})" if key == wrote else label)
        for key, label in VERSIONS
        if key != "now"
    ] + [("now", "overwritten by --force")]


def _version(conflict: Mapping[str, Any], key: str) -> str:
    found = conflict.get("found") if key == "now" else None
    return version_text(conflict.get(key), found if isinstance(found, str) else None)


def _shown_conflicts(conflicts: Sequence[Mapping[str, Any]]) -> tuple[list[Any], int]:
    """The conflicts shown (at most :data:`CONFLICTS`, :data:`CONFLICT_CHARS` of versions)."""
    shown: list[Any] = []
    spent = 0
    for c in conflicts[:CONFLICTS]:
        if shown and spent >= CONFLICT_CHARS:
            break
        spent += sum(len(_version(c, key)) for key, _label in VERSIONS)
        shown.append(c)
    return shown, len(conflicts) - len(shown)


def conflicts_plain(conflicts: Sequence[Mapping[str, Any]]) -> list[str]:
    if not conflicts:
        return []
    shown, hidden = _shown_conflicts(conflicts)
    title, rest = conflict_heading(conflicts)
    lines = [f"{title}: {rest}"]
    for c in shown:
        lines.append(f"{visible(c.get('path', ''))}: {visible(c.get('reason', ''))}")
        for key, label in _versions(c):
            lines.append(f"--- {label}")
            lines.append(visible_lines(_version(c, key)).rstrip("\n"))
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
    shown, hidden = _shown_conflicts(conflicts)
    title, rest = conflict_heading(conflicts)
    lines = [f"**{title}**: {md_text(rest)}", ""]
    for c in shown:
        lines += [f"- {md_code(c.get('path', ''))}: {md_text(c.get('reason', ''))}", ""]
        for key, label in _versions(c):
            lines += [f"  {md_text(label)}:", "", *md_fence(_version(c, key)), ""]
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
    shown, hidden = _shown_conflicts(conflicts)
    title, rest = conflict_heading(conflicts)
    parts = [
        f'<div class="applypatch-conflicts"><strong>{html.escape(title)}</strong>: '
        f"{html.escape(rest)}"
    ]
    for c in shown:
        versions = _versions(c)
        parts.append(f"<details open><summary><code>{esc(c.get('path', ''))}</code>: ")
        parts.append(f"{esc(c.get('reason', ''))}</summary><table><tr>")
        parts.extend(f"<th>{html.escape(label)}</th>" for _key, label in versions)
        parts.append("</tr><tr>")
        for key, _label in versions:
            text = esc_lines(_version(c, key))
            parts.append(f'<td style="vertical-align:top"><pre>{text}</pre></td>')
        parts.append("</tr></table>")
        view = (cells or {}).get(str(c.get("abs_path")))
        if view is not None:
            parts.append(f"<p>{html.escape(CELLS_SINCE)}</p>{render_notebook_diff_html(view)}")
        parts.append("</details>")
    if hidden:
        parts.append(f"<div>{esc(_more(hidden, 'conflicting file'))}</div>")
    parts.append("</div>")
    return "".join(parts)


__all__ = [
    "CONFLICTS",
    "CONFLICT_CHARS",
    "VERSIONS",
    "VERSION_CHARS",
    "VERSION_LINES",
    "bounded_conflict",
    "bounded_state",
    "conflict_heading",
    "conflicts_html",
    "conflicts_markdown",
    "conflicts_plain",
    "version_text",
]
