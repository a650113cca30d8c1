"""Reading a notebook's text: JSON errors with line and column, the cells as records."""

from __future__ import annotations

import json
import warnings
from typing import Any, Final

from ..core.text import plural

#: Context lines around a change in a cell's source diff (and in the raw JSON diff).
SOURCE_CONTEXT: Final = 3


#: Seconds one diff (a source, the raw JSON) may search before it coarsens (see core.diff).
DIFF_TIMEOUT: Final = 0.5


#: Two cells at least this similar (difflib ratio of their sources) are one changed cell.
SIMILARITY: Final = 0.5


#: At most this many cell comparisons per diff (a huge rewrite is shown as added + removed).
MAX_PAIRS: Final = 20_000


#: At most this many characters of a quoted text in a message.
QUOTE_LIMIT: Final = 60


CELL_TYPES: Final = ("code", "markdown", "raw")


def _nbformat() -> Any:
    """nbformat, imported on first use: with jsonschema it takes about a second to load, which
    ``%load_ext applypatch_ext`` should not pay for a session that never touches a notebook.

    None where it cannot be imported (the JupyterLite site has it, with jsonschema 4.17, whose
    later versions need a compiled ``rpds-py``): notebooks are then checked as JSON and cell by
    cell (every cell an object with a valid ``cell_type``), without nbformat's schema.
    """
    try:
        import nbformat
    except ImportError:
        return None
    return nbformat


def is_notebook_path(path: str) -> bool:
    return path.lower().endswith(".ipynb")


def _quote(text: str) -> str:
    text = text.strip()
    short = text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 1] + "…"
    return json.dumps(short, ensure_ascii=False)


def _json_error(exc: json.JSONDecodeError, side: str = "") -> str:
    lines = exc.doc.splitlines()
    where = f"line {exc.lineno}, column {exc.colno}"
    shown = ""
    if 0 < exc.lineno <= len(lines):
        shown = f": {_quote(lines[exc.lineno - 1])}"
    return (
        f"{side}not valid JSON: {exc.msg} at {where}{shown}; a notebook is one JSON object: "
        "check the commas, quotes and brackets the patch changed"
    )


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _load(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The notebook of ``text`` as a v4 dict (a v3 one converted), or None and why not."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, _json_error(exc)
    except RecursionError:
        return None, "not readable: the JSON is nested too deeply"
    if not isinstance(data, dict):
        return None, (
            f"not a notebook: the JSON document is {_kind(data)}; a notebook is an object with "
            "'cells', 'metadata', 'nbformat' and 'nbformat_minor'"
        )
    if isinstance(data.get("cells"), list):
        return data, None
    if data.get("nbformat") == 3 and isinstance(data.get("worksheets"), list):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                nbf = _nbformat()
                if nbf is None:
                    raise ImportError("nbformat, which converts a version 3 notebook")
                converted = json.loads(json.dumps(nbf.convert(nbf.from_dict(data), 4)))
            for cell in converted.get("cells", []):
                cell.pop("id", None)  # made up by the conversion, different every time
            converted["nbformat"], converted["nbformat_minor"] = 3, data.get("nbformat_minor")
            return converted, None
        except Exception as exc:  # a broken v3 notebook: say why, show the raw diff
            return None, f"not readable as a v3 notebook: {type(exc).__name__}: {exc}"
    return None, (
        "not a notebook: the JSON object has no 'cells' array (keys: "
        f"{', '.join(repr(k) for k in list(data)[:8]) or 'none'})"
    )


def _text(value: Any) -> str:
    """A multiline field (a list of strings or a string) as one string."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "".join(value)
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


class _Cell:
    """One cell, read tolerantly (a cell that is not even an object still shows)."""

    def __init__(self, index: int, raw: Any) -> None:
        self.index = index
        cell = raw if isinstance(raw, dict) else {}
        self.valid_shape = isinstance(raw, dict)
        cell_id = cell.get("id")
        self.id = cell_id if isinstance(cell_id, str) else None
        cell_type = cell.get("cell_type")
        self.cell_type = cell_type if isinstance(cell_type, str) else None
        self.source = _text(cell.get("source")) if self.valid_shape else _dump(raw)
        self.outputs = cell.get("outputs")
        self.execution_count = cell.get("execution_count")
        self.metadata = cell.get("metadata")
        self.attachments = cell.get("attachments")
        self.key = f"{self.cell_type}\0{self.source}"
        self.lines = self.source.split("\n")
        self.lines_count = len(self.lines)

    def summary_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "id": self.id,
            "cell_type": self.cell_type,
            "source": self.source,
            "outputs": _outputs_summary(self.outputs),
            "execution_count": self.execution_count,
        }


def _cells(notebook: dict[str, Any] | None) -> list[_Cell]:
    if notebook is None:
        return []
    return [_Cell(i, raw) for i, raw in enumerate(notebook.get("cells", []))]


def _outputs_summary(outputs: Any) -> str:
    if outputs is None:
        return ""
    if not isinstance(outputs, list):
        return f"outputs is {_kind(outputs)}"
    if not outputs:
        return "no outputs"
    kinds = []
    for output in outputs:
        if not isinstance(output, dict):
            kinds.append(_kind(output))
            continue
        kind = str(output.get("output_type", "?"))
        if kind == "stream":
            kind = f"stream {output.get('name', '?')}"
        elif kind == "error":
            kind = f"error {output.get('ename', '?')}"
        elif isinstance(output.get("data"), dict):
            kind = f"{kind} {', '.join(sorted(output['data']))}"
        kinds.append(kind)
    return f"{plural(len(outputs), 'output')}: {'; '.join(kinds)}"
