"""Notebook files (``.ipynb``) as data: cells, a cell-level diff, and validation.

The floor the command line and the Jupyter layer both stand on: standard library and nbformat
(imported when there, a structural check without it), no Jupyter module. The modules:
:mod:`._read` (a notebook's text as cells), :mod:`._match` (which cells are the same),
:mod:`.diff` (:func:`notebook_diff`), :mod:`.views` (a call's and a turn's notebooks, and what
an undo or redo restores), :mod:`.check` (:func:`validate_notebook`). Import from here. Their
static views (HTML, Markdown, text) are the Jupyter layer's
(:mod:`applypatch_ext.jupyter.records.notebooks`).

A patch edits a notebook as JSON text; a reader wants the cells. :func:`notebook_diff` takes
the text before and after (None for a file that is added or deleted) and returns a plain,
JSON-able structure (ready for a widget trait): the cells added, removed, moved and changed,
each changed cell with a unified diff of its source and summaries of what else changed
(outputs, execution count, metadata, with the details), runs of unchanged cells folded, the
notebook's own metadata, and the raw JSON diff (what the model wrote). It never raises: a
text that is not JSON or not a notebook gives ``ok: False`` and the reason, with the raw diff.

Cells are matched by their ``id`` when every cell of both sides has a distinct one (nbformat
4.5; the cells left over, such as one whose id changed, as below); otherwise by content: a
line alignment of the cells (the core's Myers diff over one key per cell), then equal cells
found elsewhere (moves), then the most similar remaining pairs (changed cells, possibly
moved). A matched cell is *moved* when it is not on the longest run
of matched cells that keeps its order.

:func:`validate_notebook` is the content validator every front end registers (``(path, text) ->
str | None``, see :mod:`applypatch_ext.core.apply.content_check`), through
:func:`with_notebook_check`: for an ``.ipynb`` path it parses the text and validates it with
nbformat (without it: as JSON and cell by cell), and says what is wrong and where (JSON line
and column, or the cell's index and id).
"""

from __future__ import annotations

from ._read import is_notebook_path
from .check import front_end_options, notebook_problem, validate_notebook, with_notebook_check
from .diff import notebook_diff
from .views import (
    call_notebook_views,
    delta_notebook_diffs,
    proposed_notebook_diffs,
    revert_notebook_diffs,
    tracker_notebook_diffs,
    turn_notebook_diffs,
)

__all__ = [
    "call_notebook_views",
    "delta_notebook_diffs",
    "front_end_options",
    "is_notebook_path",
    "notebook_diff",
    "notebook_problem",
    "proposed_notebook_diffs",
    "revert_notebook_diffs",
    "tracker_notebook_diffs",
    "turn_notebook_diffs",
    "validate_notebook",
    "with_notebook_check",
]
