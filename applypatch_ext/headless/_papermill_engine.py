"""The class of the ``applypatch_ext`` papermill engine (:mod:`.papermill` says what it does).

It is the ``papermill.engine`` entry point: papermill imports this module while papermill itself
is being imported (it registers its engines' entry points then), so it is never imported first
(:mod:`.papermill` imports papermill whole, then this).
"""

from __future__ import annotations

from typing import Any

from ..extras import missing_extra
from ..live_views import strip_live_views

try:
    from papermill.engines import NBClientEngine
except ModuleNotFoundError as exc:  # the `papermill` extra is not installed
    raise missing_extra(exc, "papermill") from None

__all__ = ["StripLiveViewsEngine"]


class StripLiveViewsEngine(NBClientEngine):  # type: ignore[misc]
    """papermill's ``nbclient`` engine; the executed notebook is stripped of its live views
    before papermill writes it for the last time."""

    @classmethod
    def execute_managed_notebook(cls, nb_man: Any, kernel_name: str, **kwargs: Any) -> Any:
        try:
            return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
        finally:
            # papermill saves nb_man.nb once more right after this (notebook_complete), then
            # writes what the engine returns: both without the live views
            strip_live_views(nb_man.nb)
