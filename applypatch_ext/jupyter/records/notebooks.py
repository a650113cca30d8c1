"""The static views of a notebook diff: HTML and Markdown (escaped), and plain text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...core.text import plural
from ...markup import esc, md_code, md_fence, md_text, visible
from . import static_diff

_STATUS_COLOURS = {
    "added": "#1a7f37",
    "removed": "#cf222e",
    "changed": "#9a6700",
    "moved": "#8250df",
    "unchanged": "#57606a",
}


def diff_html(text: str) -> str:
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
        rows.append(f'<span style="{colour}">{esc(line)}</span>' if colour else esc(line))
    return f'<pre style="margin:0;{static_diff.MONO}">' + "\n".join(rows) + "</pre>"


def _cell_title(entry: Mapping[str, Any]) -> str:
    old, new = entry.get("old_index"), entry.get("new_index")
    if old is not None and new is not None and old != new:
        where = f"cell {old} → {new}"
    else:
        where = f"cell {new if new is not None else old}"
    cell_id = f" id {entry['id']}" if entry.get("id") else ""
    return f"{entry['status']} · {where}{cell_id} · {entry.get('cell_type') or 'no cell_type'}"


def _changes_text(entry: Mapping[str, Any]) -> str:
    changes = list(entry.get("changes") or [])
    if not changes:
        return ""
    count = entry.get("execution_count")
    parts = []
    for change in changes:
        if change == "execution count" and isinstance(count, list):
            shown = ["none" if n is None else str(n) for n in count]
            parts.append(f"execution count {shown[0]} → {shown[1]}")
        elif change == "cell type":
            parts.append(f"cell type {entry.get('old_cell_type')} → {entry.get('cell_type')}")
        else:
            parts.append(change)
    return "changed: " + ", ".join(parts)


def _html_details(label: str, body: str, *, open_: bool = False) -> str:
    state = " open" if open_ else ""
    return f"<details{state}><summary>{label}</summary>{body}</details>"


def _html_cell(entry: Mapping[str, Any]) -> str:
    status = str(entry["status"])
    colour = _STATUS_COLOURS.get(status, "#57606a")
    style = f"border-left:3px solid {colour};padding:2px 6px;margin:4px 0"
    if status == "unchanged" and "count" in entry:
        label = plural(int(entry["count"]), "unchanged cell")
        return (
            f'<div class="applypatch-cell-unchanged" style="{style};color:{colour}">{label}</div>'
        )
    parts = [
        f'<div class="applypatch-cell applypatch-cell-{esc(status)}" style="{style}">',
        f'<div><b style="color:{colour}">{esc(_cell_title(entry))}</b>',
    ]
    changes = _changes_text(entry)
    parts.append(f" <span>{esc(changes)}</span></div>" if changes else "</div>")
    if entry.get("source_diff"):
        parts.append(diff_html(str(entry["source_diff"])))
    elif status in ("added", "removed"):
        sign = "+" if status == "added" else "-"
        lines = str(entry.get("source", "")).split("\n")
        parts.append(diff_html("\n".join(sign + line for line in lines)))
    outputs = entry.get("outputs")
    if outputs:
        body = diff_html(outputs["diff"]) if outputs.get("diff") else ""
        parts.append(_html_details(f"outputs: {esc(outputs['summary'])}", body))
    metadata = entry.get("metadata")
    if metadata:
        parts.append(
            _html_details(f"metadata: {esc(metadata['summary'])}", diff_html(metadata["diff"]))
        )
    parts.append("</div>")
    return "".join(parts)


def render_notebook_diff_html(view: Mapping[str, Any]) -> str:
    """Self-contained HTML of one notebook's cell diff (inline styles, no script)."""
    kind = {"add": "added", "delete": "deleted", "update": "updated"}.get(str(view.get("kind")), "")
    moved = (
        f" (moved from <code>{esc(view['moved_from'])}</code>)" if view.get("moved_from") else ""
    )
    parts = [
        '<div class="applypatch-notebook" style="font-family:sans-serif;font-size:13px">',
        f"<div><b>notebook</b> <code>{esc(view.get('path', ''))}</code>{moved} {kind}: "
        f"{esc(view.get('summary', ''))}</div>",
    ]
    if not view.get("ok"):
        parts.append(f'<div style="color:#cf222e">{esc(view.get("reason", ""))}</div>')
    validation = view.get("validation") or {}
    if validation.get("after"):
        parts.append(
            f'<div style="color:#cf222e">invalid notebook: {esc(validation["after"])}</div>'
        )
    parts.extend(_html_cell(entry) for entry in view.get("cells", []))
    metadata = view.get("metadata")
    if metadata:
        parts.append(
            _html_details(
                f"notebook metadata: {esc(metadata['summary'])}", diff_html(metadata["diff"])
            )
        )
    raw = str(view.get("raw_diff", ""))
    parts.append(
        _html_details(
            "raw JSON diff (what the patch changed)",
            diff_html(raw) if raw else "<pre>(no change)</pre>",
            open_=not view.get("ok"),
        )
    )
    parts.append("</div>")
    return "".join(parts)


#: The keys of :func:`call_notebook_views`, in the order they are shown, with their labels.
CALL_VIEWS: Final = (
    ("proposed", "proposed, nothing written"),
    ("committed", "committed"),
    ("turn", "in the TurnDiff"),
)


def same_as_text(view: Mapping[str, Any]) -> str | None:
    """What a TurnDiff view whose change is the call's own committed one shows instead of its
    cells (``same_as``, see :func:`call_notebook_views`), or None for any other view."""
    if view.get("same_as") != "committed":
        return None
    return "the same change as committed above: this call is the turn's only change to it"


def _head_html(view: Mapping[str, Any]) -> str:
    moved = (
        f" (moved from <code>{esc(view['moved_from'])}</code>)" if view.get("moved_from") else ""
    )
    return (
        f"<div><b>notebook</b> <code>{esc(view.get('path', ''))}</code>{moved}: "
        f"{esc(view.get('summary', ''))}</div>"
    )


#: What a call's record shows of a notebook of the TurnDiff instead of its cells: the turn's
#: diff is a summary there (records/diffs.py).
TURN_CELLS_SHOWN_BY: Final = "`%apply_patch_turn` shows the turn's notebooks as cells"


def _turn_note(key: str, view: Mapping[str, Any], turn_cells: bool) -> str | None:
    """What stands for a view's cells: the same change as committed, or (a notebook of the
    TurnDiff in a call's record) where its cells are; None: its cells are shown."""
    if key == "turn" and not turn_cells:
        return same_as_text(view) or TURN_CELLS_SHOWN_BY
    return same_as_text(view)


def render_call_notebooks_html(
    views: Mapping[str, Sequence[Mapping[str, Any]]], *, turn_cells: bool = True
) -> str:
    """The HTML of :func:`call_notebook_views`: each proposed, then each committed notebook,
    then each notebook of the TurnDiff (the empty string when the call touches no notebook);
    without ``turn_cells`` (a call's record) a TurnDiff's notebook is its summary only."""
    parts = []
    for key, label in CALL_VIEWS:
        for view in views.get(key, ()):
            same = _turn_note(key, view, turn_cells)
            body = (
                f'<div class="applypatch-notebook">{_head_html(view)}<div>{esc(same)}</div></div>'
                if same
                else render_notebook_diff_html(view)
            )
            parts.append(f"<div><i>{label}</i></div>{body}")
    return "".join(parts)


def render_notebook_diff_markdown(view: Mapping[str, Any]) -> str:
    """The same as Markdown (GitHub renders ``<details>`` there too; texts stay escaped)."""
    moved = f" (moved from {md_code(view['moved_from'])})" if view.get("moved_from") else ""
    out = [
        f"**notebook** {md_code(view.get('path', ''))}{moved}: {md_text(view.get('summary', ''))}"
    ]
    if not view.get("ok"):
        out += ["", md_text(view.get("reason", ""))]
    validation = view.get("validation") or {}
    if validation.get("after"):
        out += ["", "invalid notebook: " + md_text(validation["after"])]
    for entry in view.get("cells", []):
        out.append("")
        if entry["status"] == "unchanged" and "count" in entry:
            out.append(f"*{plural(int(entry['count']), 'unchanged cell')}*")
            continue
        line = f"**{md_text(_cell_title(entry))}**"
        changes = _changes_text(entry)
        out.append(line + (f" {md_text(changes)}" if changes else ""))
        if entry.get("source_diff"):
            out += md_fence(str(entry["source_diff"]).rstrip("\n"), "diff")
        elif entry["status"] in ("added", "removed"):
            out += md_fence(str(entry.get("source", "")))
        for name in ("outputs", "metadata"):
            detail = entry.get(name)
            if detail:
                out += ["", f"<details><summary>{name}</summary>", ""]
                out += [md_text(detail["summary"]), ""]
                if detail.get("diff"):
                    out += md_fence(str(detail["diff"]).rstrip("\n"), "diff")
                out += ["", "</details>"]
    raw = str(view.get("raw_diff", ""))
    out += ["", "<details><summary>raw JSON diff</summary>", ""]
    out += md_fence(raw.rstrip("\n") or "(no change)", "diff")
    out += ["", "</details>"]
    return "\n".join(out)


def render_call_notebooks_markdown(
    views: Mapping[str, Sequence[Mapping[str, Any]]], *, turn_cells: bool = True
) -> str:
    """The Markdown of :func:`call_notebook_views`, in the order of the HTML."""
    parts = []
    for key, label in CALL_VIEWS:
        for view in views.get(key, ()):
            same = _turn_note(key, view, turn_cells)
            body = (
                f"**notebook** {md_code(view.get('path', ''))}: "
                f"{md_text(view.get('summary', ''))}\n\n{md_text(same)}"
                if same
                else render_notebook_diff_markdown(view)
            )
            parts.append(f"*{md_text(label)}*\n\n{body}")
    return "\n\n".join(parts)


def render_call_notebooks_plain(views: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """One line per notebook of :func:`call_notebook_views` (its path and summary), and why
    its cells cannot be shown or why it is not a valid notebook, for a terminal."""
    lines = []
    for key, label in CALL_VIEWS:
        for view in views.get(key, ()):
            moved = f" (moved from {view['moved_from']})" if view.get("moved_from") else ""
            lines.append(
                f"notebook {view.get('path', '')}{moved}, {label}: {view.get('summary', '')}"
            )
            same = same_as_text(view)
            if same:
                lines.append(f"  {same}")
                continue
            if not view.get("ok"):
                lines.append(f"  {view.get('reason', '')}")
            problem = (view.get("validation") or {}).get("after")
            if problem:
                lines.append(f"  invalid notebook: {problem}")
    return "\n".join(visible(line) for line in lines)
