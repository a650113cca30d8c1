"""The ``applypatch_ext`` papermill engine: papermill's ``nbclient`` engine, and when the run
ends (completed or failed) the notebook keeps each call's static record, not its live widget
(:func:`applypatch_ext.live_views.strip_live_views`, the same code as the Jupyter server's save
hook)::

    papermill --engine applypatch_ext IN.ipynb OUT.ipynb

Registered as the ``papermill.engine`` entry point ``applypatch_ext``. The notebooks papermill
writes while cells run keep their live views (a view still updates then); the last one does
not. Needs papermill (the ``papermill`` extra).

papermill loads its engines' entry points while it is imported, and the engine's module
(:mod:`._papermill_engine`) imports papermill: so this module imports papermill whole first,
which loads that module, and hands on the engine papermill registered.
"""

from __future__ import annotations

from ..extras import missing_extra

try:
    import papermill  # noqa: F401  (its import registers the engine)
except ModuleNotFoundError as exc:  # the `papermill` extra is not installed
    raise missing_extra(exc, "papermill") from None

from ._papermill_engine import StripLiveViewsEngine

__all__ = ["StripLiveViewsEngine"]
