"""The Jupyter layer: the magics, the widget, and the streaming API.

This is the only part of the package that imports IPython, ipywidgets, anywidget or traitlets.
"""

from __future__ import annotations

from .result import PatchCallResult
from .streams import iter_deltas, stream_patch

__all__ = ["PatchCallResult", "iter_deltas", "stream_patch"]
