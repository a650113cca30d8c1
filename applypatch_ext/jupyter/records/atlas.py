"""Why a call failed and what to check in one that applied, as a record shows it.

The failure atlas's diagnosis (``diagnosis`` trait) and warnings (``warnings``), with the near
miss the explainer found (``explanation``), in the record's three forms: plain text, Markdown,
HTML. Each diagnosis shows its kind with the kind's meaning (the vocabulary's, as the widget
shows it), where it points (the patch's line, the file's line or why there is none), its
sentence and, when there is one, the suggested patch text, marked as not applied. Every text
is made harmless (:mod:`applypatch_ext.markup`) and capped (:mod:`.bound`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from ...core.apply.explain import explanation_lines
from ...core.diagnosis import SUGGESTION_NOTE, Diagnosis, Role
from ...markup import esc, esc_lines, md_code, md_fence, md_text, visible, visible_lines
from .bound import FIELD_CHARS, LIST_ITEMS, capped, item
from .vocabulary import TONE_COLOURS, atlas_roles

#: Characters of a suggestion a record keeps.
SUGGESTION_CHARS: Final = FIELD_CHARS // 2
_PRE: Final = '<pre style="font-family:monospace;font-size:12px;margin:2px 0">'


def diagnosis_state(diagnosis: Diagnosis) -> dict[str, Any]:
    """A diagnosis as the widget's trait holds it: its JSON, and where it points in the
    diagnosis's own words (:meth:`~...core.diagnosis.Diagnosis.where`), which the front end
    shows as they are."""
    return {**diagnosis.to_json(), "where": diagnosis.where()}


def _read(data: Mapping[str, Any]) -> Diagnosis | str:
    """The diagnosis a state holds, made fit for a record (its path, message and suggestion
    capped), or why it cannot be read (a saved state from elsewhere)."""
    try:
        found = Diagnosis.from_json(data)
    except ValueError as error:
        return f"unreadable ({error})"
    suggestion = found.suggestion
    return replace(
        found,
        path=None if found.path is None else item(found.path),
        message=item(found.message),
        suggestion=suggestion and capped(suggestion, SUGGESTION_CHARS, "of the suggestion"),
    )


def _entries(state: Mapping[str, Any]) -> list[tuple[Role, Diagnosis | str]]:
    """``(role, diagnosis)``: the call's diagnosis, then its warnings (at most a list's)."""
    out: list[tuple[Role, Diagnosis | str]] = []
    diagnosis = state.get("diagnosis") or {}
    if isinstance(diagnosis, Mapping) and diagnosis.get("kind"):
        out.append((Role.DIAGNOSIS, _read(diagnosis)))
    warnings = [w for w in state.get("warnings") or [] if isinstance(w, Mapping)]
    out.extend((Role.WARNING, _read(warning)) for warning in warnings[:LIST_ITEMS])
    return out


def _hidden_warnings(state: Mapping[str, Any]) -> str:
    """``... and 3 more``, when a record shows only the first warnings."""
    hidden = len(state.get("warnings") or []) - LIST_ITEMS
    return f"... and {hidden} more" if hidden > 0 else ""


def why_plain(state: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for role, diagnosis in _entries(state):
        if isinstance(diagnosis, str):
            out.append(visible(f"{role}: {diagnosis}"))
            continue
        heading, *rest = diagnosis.describe(role)
        out.append(visible(heading))
        out.extend(visible(line) for line in rest)
    hidden = _hidden_warnings(state)
    out.extend([f"warnings: {hidden}"] if hidden else [])
    explanation = state.get("explanation") or {}
    if explanation:
        out.append("why it did not match:")
        out.append(visible_lines(capped("\n".join(explanation_lines(explanation)))))
    return out


def why_markdown(state: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for role, diagnosis in _entries(state):
        if isinstance(diagnosis, str):
            out += ["", f"- **{role}** {md_text(diagnosis)}"]
            continue
        place = diagnosis.where()
        out += [
            "",
            f"- **{role}** {md_code(diagnosis.kind)} ({md_text(diagnosis.meaning)})"
            + (f", at {md_text(place)}" if place else "")
            + f": {md_text(diagnosis.message)}",
        ]
        if diagnosis.suggestion:
            out += ["", f"  {md_text(SUGGESTION_NOTE)}:", *md_fence(diagnosis.suggestion, "diff")]
    hidden = _hidden_warnings(state)
    out += ["", f"- warnings: {md_text(hidden)}"] if hidden else []
    explanation = state.get("explanation") or {}
    if explanation:
        text = capped("\n".join(explanation_lines(explanation)))
        out += ["", "why it did not match:", *md_fence(text)]
    return out


def why_html(state: Mapping[str, Any]) -> str:
    parts = []
    roles = atlas_roles()
    for role, diagnosis in _entries(state):
        colour = TONE_COLOURS[roles[role]["tone"]]
        head = (
            f'<div class="applypatch-{role}" style="border-left:3px solid {colour};'
            f'padding-left:6px;margin:4px 0"><b style="color:{colour}">{esc(role)}</b> '
        )
        if isinstance(diagnosis, str):
            parts.append(f"{head}{esc(diagnosis)}</div>")
            continue
        meaning, place = diagnosis.meaning, diagnosis.where()
        body = [
            head,
            f'<code title="{esc(meaning)}">{esc(diagnosis.kind)}</code>',
            f" <span>{esc(meaning)}</span>",
            f"<div>{esc(place)}</div>" if place else "",
            f"<div>{esc(diagnosis.message)}</div>",
        ]
        if diagnosis.suggestion:
            text = esc_lines(diagnosis.suggestion)
            body.append(f"<div>{esc(SUGGESTION_NOTE)}:{_PRE}{text}</pre></div>")
        body.append("</div>")
        parts.append("".join(body))
    hidden = _hidden_warnings(state)
    if hidden:
        parts.append(f"<div>warnings: {esc(hidden)}</div>")
    explanation = state.get("explanation") or {}
    if explanation:
        text = esc_lines(capped("\n".join(explanation_lines(explanation))))
        parts.append(f"<div>why it did not match:{_PRE}{text}</pre></div>")
    return "".join(parts)
