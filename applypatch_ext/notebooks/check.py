"""Is a text a valid notebook? nbformat's schema, with the cell it concerns named.

:func:`front_end_options` is the one factory of a front end's options, and
:func:`with_notebook_check` the one place that gives them their content validator: the magics
and the ``turn``, ``replay`` and ``mcp`` commands build their options from their parsed command
line with the first; :func:`~applypatch_ext.jupyter.live.streams.stream_patch`, ``replay_session``,
the Agents SDK editor and the desk (a ``Desk(Turn(...))`` made in Python too) run the options
they are given through the second.
Where nbformat cannot be imported (the JupyterLite site, an environment without it) the
check is structural: the JSON, the format version, unique ids, every cell's type and the keys
the schema requires of the notebook, its cells and outputs (:mod:`._structure`), without the
rest of the schema; a refusal then says so.

Which writes are checked: a path named ``.ipynb``, as the patch names it or as a symbolic link
leads to it (the pipeline gives both, :mod:`~applypatch_ext.core.apply.content_check`), and a
file of another name that is a hard link of a notebook (it has other names, and holds a notebook
now): a write through that name changes the notebook.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import warnings
from dataclasses import replace
from typing import Any, Final

from ..core.turn.options import PipelineOptions
from ._read import (
    CELL_TYPES,
    _json_error,
    _kind,
    _nbformat,
    _quote,
    _text,
    is_notebook_path,
)
from ._structure import cell_problem as _structural_cell_problem
from ._structure import notebook_problem as _structural_notebook_problem


def _cell_label(index: int, cell: Any) -> str:
    if not isinstance(cell, dict):
        return f"cell {index} ({_kind(cell)}, not an object)"
    parts = []
    if isinstance(cell.get("id"), str):
        parts.append(f"id {cell['id']!r}")
    if isinstance(cell.get("cell_type"), str):
        parts.append(f"a {cell['cell_type']} cell")
    first = _text(cell.get("source")).strip().split("\n", 1)[0]
    if first:
        parts.append(f"starting {_quote(first)}")
    return f"cell {index} ({', '.join(parts)})" if parts else f"cell {index}"


def _cell_problem(index: int, cell: Any, version: tuple[int, int]) -> str | None:
    """What is wrong with one cell whose type the schema could not tell, or None."""
    if not isinstance(cell, dict):
        return "a cell must be a JSON object"
    cell_type = cell.get("cell_type")
    valid = ", ".join(repr(t) for t in CELL_TYPES)
    if "cell_type" not in cell:
        return f"'cell_type' is missing; every cell needs one: {valid}"
    if cell_type not in CELL_TYPES:
        return f"cell_type {cell_type!r} is not valid; it must be one of {valid}"
    nbf = _nbformat()
    if nbf is None:
        return _structural_cell_problem(cell)
    try:
        nbf.validate(cell, ref=f"{cell_type}_cell", version=version[0], version_minor=version[1])
    except Exception as exc:
        return _schema_message(exc)
    return None


def _schema_message(exc: Exception) -> str:
    message = str(getattr(exc, "message", exc))
    where = [str(p) for p in getattr(exc, "relative_path", ())]
    at = f" (at {'.'.join(where)})" if where else ""
    if len(message) > 300:
        message = message[:299] + "…"
    return message + at


def notebook_problem(text: str) -> str | None:
    """What makes ``text`` an invalid notebook (None when nbformat accepts it)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return _json_error(exc)
    except RecursionError:
        return "not readable: the JSON is nested too deeply"
    if not isinstance(data, dict):
        return (
            f"not a notebook: the JSON document is {_kind(data)}; a notebook is an object with "
            "'cells', 'metadata', 'nbformat' and 'nbformat_minor'"
        )
    major, minor = data.get("nbformat"), data.get("nbformat_minor")
    if not isinstance(major, int) or isinstance(major, bool) or major not in (3, 4):
        return (
            f"not a notebook nbformat can read: 'nbformat' is {json.dumps(major)}; it must be "
            "4 (or 3 for an old notebook)"
        )
    if not isinstance(minor, int) or isinstance(minor, bool):
        return (
            f"'nbformat_minor' is {json.dumps(minor)}; it must be an integer (5 for nbformat 4.5)"
        )
    structure = _structural_notebook_problem(data, major)
    if structure is not None:
        return structure
    cells = data.get("cells")
    if major == 4 and isinstance(cells, list):
        seen: dict[str, int] = {}
        for index, cell in enumerate(cells):
            cell_id = cell.get("id") if isinstance(cell, dict) else None
            if isinstance(cell_id, str):
                if cell_id in seen:
                    return (
                        f"{_cell_label(index, cell)}: its id is also the id of cell "
                        f"{seen[cell_id]}; cell ids must be unique within a notebook"
                    )
                seen[cell_id] = index
    nbf = _nbformat()
    if nbf is None:  # no schema here: each cell's type at least (see _nbformat)
        if major == 4 and isinstance(cells, list):
            for index, cell in enumerate(cells):
                problem = _cell_problem(index, cell, (major, minor))
                if problem is not None:
                    return f"{_cell_label(index, cell)}: {problem}"
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbf.validate(data)
    except Exception as exc:  # nbformat's ValidationError, or its ImportError for a version
        path = list(getattr(exc, "absolute_path", ()))
        if major == 4 and isinstance(cells, list) and len(path) >= 2 and path[0] == "cells":
            index = path[1]
            if isinstance(index, int) and 0 <= index < len(cells):
                cell = cells[index]
                detail = None
                if len(path) == 2 and getattr(exc, "validator", None) == "oneOf":
                    detail = _cell_problem(index, cell, (major, minor))
                if detail is None:
                    where = ".".join(str(p) for p in path[2:])
                    detail = _schema_message(exc).split(" (at ", 1)[0]
                    detail += f" (at {where})" if where else ""
                return f"{_cell_label(index, cell)}: {detail}"
        where = ".".join(str(p) for p in path)
        return f"{_schema_message(exc).split(' (at ', 1)[0]}" + (f" (at {where})" if where else "")
    return None


#: What a refusal adds when nbformat is missing: the check was not the whole schema.
WITHOUT_SCHEMA: Final = (
    " (checked as JSON and cell by cell only: nbformat, which checks the whole schema, "
    "cannot be imported here)"
)


def validate_notebook(path: str, text: str) -> str | None:
    """The front ends' content validator: an ``.ipynb`` must be a valid notebook (nbformat's
    schema, or the structural check where nbformat cannot be imported); other paths are not
    checked. Returns None or what is wrong, naming the cell (index, id)."""
    named = is_notebook_path(path)
    if not named and not _linked_notebook(path):
        return None
    problem = notebook_problem(text)
    if problem is None:
        return None
    how = "" if _nbformat() is not None else WITHOUT_SCHEMA
    linked = "" if named else "a hard link of a notebook (its other name is a notebook): "
    return f"{linked}{problem}. Jupyter cannot open an invalid notebook: fix the patch{how}"


def _linked_notebook(path: str) -> bool:
    """``path`` is a regular file with other names (a hard link) that holds a notebook now:
    the name it is written by says nothing of what it is."""
    try:
        info = os.stat(path, follow_symlinks=False)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
            return False
        with open(path, "rb") as handle:
            head = handle.read(1 << 20)
    except (OSError, ValueError):
        return False
    try:
        data = json.loads(head.decode("utf-8"))
    except (ValueError, RecursionError):
        return head.lstrip()[:1] == b"{" and b'"nbformat"' in head  # too big or torn: look
    return isinstance(data, dict) and "nbformat" in data


def front_end_options(cwd: str, args: argparse.Namespace) -> PipelineOptions:
    """A front end's options from its parsed command line: the option table's
    (:meth:`PipelineOptions.from_namespace`, a ``ValueError`` naming a bad option) with the
    notebook check (:func:`with_notebook_check`). The magics, ``turn``, ``replay`` and ``mcp``
    build theirs here only (``tests/jupyter/test_notebook_entry_points.py`` checks that nothing
    else calls ``from_namespace``)."""
    return with_notebook_check(PipelineOptions.from_namespace(cwd, args))


def with_notebook_check(options: PipelineOptions | None = None) -> PipelineOptions:
    """``options`` (default ``PipelineOptions()``) as every front end runs them: with
    :func:`validate_notebook` as their content validator, unless they carry one of their own.

    ``--invalid-notebooks warn`` (``invalid_content=InvalidContent.WARN``) keeps the reference
    behaviour: the patch applies and the result warns. The core itself (``Turn``,
    ``run_patch``) checks nothing unless given a validator.
    """
    base = options if options is not None else PipelineOptions()
    if base.content_validator is not None:
        return base
    return replace(base, content_validator=validate_notebook)
