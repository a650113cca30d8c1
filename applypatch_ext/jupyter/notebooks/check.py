"""Is a text a valid notebook? nbformat's schema, with the cell it concerns named.

:func:`with_notebook_check` is the one place that gives a front end its content validator:
the magics, :func:`~applypatch_ext.jupyter.streams.stream_patch`, the ``turn`` and ``replay``
commands, ``%apply_patch_replay`` and the Agents SDK editor all run their options through it.
Where nbformat cannot be imported (the JupyterLite site, an environment without it) the
check is structural: the JSON, the format version, unique ids and every cell's type, without
the schema; a refusal then says so.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from typing import Any, Final

from ...core.turn.options import PipelineOptions
from ._read import (
    CELL_TYPES,
    _json_error,
    _kind,
    _nbformat,
    _quote,
    _text,
    is_notebook_path,
)


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
        return None
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
    if not is_notebook_path(path):
        return None
    problem = notebook_problem(text)
    if problem is None:
        return None
    how = "" if _nbformat() is not None else WITHOUT_SCHEMA
    return f"{problem}. Jupyter cannot open an invalid notebook: fix the patch{how}"


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
