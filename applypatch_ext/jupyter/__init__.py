"""The Jupyter layer: the magics, the widget, and the streaming API.

This is the only part of the package that imports IPython, ipywidgets, anywidget or traitlets,
in three floors that import downward only (docs/architecture.md), on the package's ground
(:mod:`applypatch_ext.markup`: escaping, fences, visible control characters): :mod:`.records`
(the static renderers: a call's record, its diff view, the panels, the notebook views),
:mod:`.live` (the widget, the call's view and result, the session, streams, undo as a call) and
:mod:`.magics` (the magics, the Agents SDK editor). The names below load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "PatchCallResult": "applypatch_ext.jupyter.live.result",
    "SESSION": "applypatch_ext.jupyter.live.session",
    "iter_deltas": "applypatch_ext.jupyter.live.streams",
    "stream_patch": "applypatch_ext.jupyter.live.streams",
}

__all__ = ["SESSION", "PatchCallResult", "iter_deltas", "stream_patch"]

if TYPE_CHECKING:
    from .live.result import PatchCallResult
    from .live.session import SESSION
    from .live.streams import iter_deltas, stream_patch


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'applypatch_ext.jupyter' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
