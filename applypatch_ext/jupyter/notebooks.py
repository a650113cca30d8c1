"""The former home of the notebook functions, kept so that code written to README 0.1
(``applypatch_ext.jupyter.notebooks``) still imports: the data functions live in
:mod:`applypatch_ext.notebooks`, their static views in :mod:`.records.notebooks`."""

from __future__ import annotations

from ..notebooks import (
    call_notebook_views,
    delta_notebook_diffs,
    front_end_options,
    is_notebook_path,
    notebook_diff,
    notebook_problem,
    proposed_notebook_diffs,
    revert_notebook_diffs,
    tracker_notebook_diffs,
    turn_notebook_diffs,
    validate_notebook,
    with_notebook_check,
)
from .records.notebooks import (
    CALL_VIEWS,
    render_call_notebooks_html,
    render_call_notebooks_markdown,
    render_call_notebooks_plain,
    render_notebook_diff_html,
    render_notebook_diff_markdown,
)

__all__ = [
    "CALL_VIEWS",
    "call_notebook_views",
    "delta_notebook_diffs",
    "front_end_options",
    "is_notebook_path",
    "notebook_diff",
    "notebook_problem",
    "proposed_notebook_diffs",
    "render_call_notebooks_html",
    "render_call_notebooks_markdown",
    "render_call_notebooks_plain",
    "render_notebook_diff_html",
    "render_notebook_diff_markdown",
    "revert_notebook_diffs",
    "tracker_notebook_diffs",
    "turn_notebook_diffs",
    "validate_notebook",
    "with_notebook_check",
]
