"""``ClearLiveViews``: the nbconvert preprocessor that leaves each call's live widget out of a
notebook and keeps its static record (:func:`applypatch_ext.live_views.strip_live_views`, the
same code as the Jupyter server's save hook).

Listed after nbconvert's own preprocessors, it runs after ``--execute``::

    jupyter nbconvert --to notebook --execute \\
        --Exporter.preprocessors=applypatch_ext.headless.ClearLiveViews NOTEBOOK

Needs nbconvert (the ``nbconvert`` extra).
"""

from __future__ import annotations

from typing import Any

from ..extras import missing_extra
from ..live_views import strip_live_views

try:
    from nbconvert.preprocessors import Preprocessor
except ModuleNotFoundError as exc:  # the `nbconvert` extra is not installed
    raise missing_extra(exc, "nbconvert") from None

__all__ = ["ClearLiveViews"]


class ClearLiveViews(Preprocessor):
    """Removes each ``%%apply_patch`` call's live widget output whose static record is in the
    same cell, and those widgets' saved state (``metadata.widgets``). nbconvert enables every
    preprocessor named in ``Exporter.preprocessors``: naming it is the choice."""

    def preprocess(self, nb: Any, resources: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        stripped = strip_live_views(nb)
        if stripped:
            self.log.info(
                "applypatch_ext: left out %d live view(s) and %d saved widget model(s)",
                len(stripped.views),
                len(stripped.models),
            )
        return nb, resources
