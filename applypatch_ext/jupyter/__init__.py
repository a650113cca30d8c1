"""The Jupyter layer: the magics, the widget, and the streaming API.

This is the only part of the package that imports IPython, ipywidgets, anywidget or traitlets.
Its names load on first use, so that ``applypatch_ext.jupyter.notebooks`` (the notebook check
the ``turn`` and ``replay`` commands run) imports none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "PatchCallResult": "applypatch_ext.jupyter.result",
    "iter_deltas": "applypatch_ext.jupyter.streams",
    "stream_patch": "applypatch_ext.jupyter.streams",
}

__all__ = ["PatchCallResult", "iter_deltas", "stream_patch"]

if TYPE_CHECKING:
    from .result import PatchCallResult
    from .streams import iter_deltas, stream_patch


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'applypatch_ext.jupyter' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
