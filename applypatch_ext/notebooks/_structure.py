"""A notebook's structure as nbformat's schema requires it, checked without the schema.

Where nbformat cannot be imported (the JupyterLite site, an environment without it) the check
of :mod:`.check` falls back to these rules: the keys the schema requires and the types it
gives them, for the notebook (v4 and v3), each v4 cell and each output. They reject what
nbformat rejects for these shapes (no ``cells``, ``cells`` an object, no ``metadata``, a code
cell without ``source`` or ``outputs``, ``outputs`` a string, a v3 notebook without
``worksheets``), with messages worded as nbformat's (``'cells' is a required property``,
``{} is not of type 'array' (at cells)``). They are not the whole schema: mime bundles, the
metadata's own keys and the attachments are not looked into. The notebook-level rules run
with nbformat too, since its own message for a missing ``cells`` is a bare ``'cells'``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

#: The JSON type names of the schema, with their test.
_TYPES: Final[dict[str, Callable[[Any], bool]]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "null": lambda v: v is None,
    # a multiline string: one string, or a list of them
    "text": lambda v: (
        isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
    ),
}

#: Required keys and their types: the notebook, per version; a cell, per type; an output.
NOTEBOOK: Final[dict[int, dict[str, tuple[str, ...]]]] = {
    4: {"metadata": ("object",), "cells": ("array",)},
    3: {"metadata": ("object",), "worksheets": ("array",)},
}
CELL: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "code": {
        "metadata": ("object",),
        "source": ("text",),
        "outputs": ("array",),
        "execution_count": ("integer", "null"),
    },
    "markdown": {"metadata": ("object",), "source": ("text",)},
    "raw": {"metadata": ("object",), "source": ("text",)},
}
OUTPUT: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "execute_result": {
        "data": ("object",),
        "metadata": ("object",),
        "execution_count": ("integer", "null"),
    },
    "display_data": {"data": ("object",), "metadata": ("object",)},
    "stream": {"name": ("string",), "text": ("text",)},
    "error": {"ename": ("string",), "evalue": ("string",), "traceback": ("array",)},
}


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


def _shown_types(types: tuple[str, ...]) -> str:
    names = ["string' or 'array of strings" if t == "text" else t for t in types]
    return ", ".join(f"'{name}'" for name in names)


def required(record: Mapping[str, Any], keys: Mapping[str, tuple[str, ...]], at: str) -> str | None:
    """The first required key of ``keys`` that ``record`` lacks, or holds with another type."""
    where = f" (at {at})" if at else ""
    for key, types in keys.items():
        if key not in record:
            return f"'{key}' is a required property{where}"
        if not any(_TYPES[t](record[key]) for t in types):
            inner = f"{at}.{key}" if at else key
            return f"{_short(record[key])} is not of type {_shown_types(types)} (at {inner})"
    return None


def notebook_problem(data: Mapping[str, Any], major: int) -> str | None:
    """What the notebook itself lacks (its cells are :func:`cell_problem`'s); for v3, its
    worksheets too."""
    problem = required(data, NOTEBOOK[major], "")
    if problem is not None or major != 3:
        return problem
    for index, sheet in enumerate(data["worksheets"]):
        at = f"worksheets.{index}"
        if not isinstance(sheet, dict):
            return f"{_short(sheet)} is not of type 'object' (at {at})"
        problem = required(sheet, {"cells": ("array",)}, at)
        if problem is not None:
            return problem
        for number, cell in enumerate(sheet["cells"]):
            if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
                where = f"{at}.cells.{number}"
                return f"{_short(cell)} is not a cell, an object with a 'cell_type' (at {where})"
    return None


def cell_problem(cell: Mapping[str, Any]) -> str | None:
    """What a v4 cell of a known ``cell_type`` lacks, its outputs' included, or None."""
    problem = required(cell, CELL[str(cell.get("cell_type"))], "")
    if problem is not None or cell.get("cell_type") != "code":
        return problem
    for index, output in enumerate(cell["outputs"]):
        at = f"outputs.{index}"
        if not isinstance(output, dict):
            return f"{_short(output)} is not of type 'object' (at {at})"
        kind = output.get("output_type")
        if kind not in OUTPUT:
            valid = ", ".join(repr(k) for k in OUTPUT)
            return f"output_type {_short(kind)} is not valid; it must be one of {valid} (at {at})"
        problem = required(output, OUTPUT[kind], at)
        if problem is not None:
            return problem
    return None
