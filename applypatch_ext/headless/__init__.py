"""Notebooks run without a Jupyter server (nbclient, nbconvert, papermill) keep each call's
static record, not its live widget, as a notebook saved in JupyterLab does.

A headless run saves the widget state (nbclient's default), about 165 KB per call, most of it
the widget's own JavaScript and CSS (``make bench`` section (j) measures it). Two ways to leave
it out, both :func:`applypatch_ext.live_views.strip_live_views` (the server's save hook):

* nbconvert: ``jupyter nbconvert --to notebook --execute
  --Exporter.preprocessors=applypatch_ext.headless.ClearLiveViews NOTEBOOK`` (or in
  ``jupyter_nbconvert_config.py``: ``c.Exporter.preprocessors = [...]``); ``ClearLiveViews`` is a
  preprocessor like nbconvert's own ``ClearOutputPreprocessor``, run after ``--execute``;
* papermill: ``papermill --engine applypatch_ext IN OUT``, the ``nbclient`` engine that strips
  the notebook when the run ends (registered as a ``papermill.engine`` entry point).

After the fact, ``python -m applypatch_ext strip NOTEBOOK...`` does the same to files.

The names load on first use: each needs its tool (the ``nbconvert`` / ``papermill`` extra).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "ClearLiveViews": "applypatch_ext.headless.nbconvert",
    "StripLiveViewsEngine": "applypatch_ext.headless.papermill",
}

__all__ = ["ClearLiveViews", "StripLiveViewsEngine"]

if TYPE_CHECKING:
    from .nbconvert import ClearLiveViews
    from .papermill import StripLiveViewsEngine


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'applypatch_ext.headless' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
