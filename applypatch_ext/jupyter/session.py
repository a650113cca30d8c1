"""The former home of the kernel's session, kept so that code written to the 0.1 teaching
notebooks (``from applypatch_ext.jupyter.session import SESSION``) still imports: it lives in
:mod:`.live.session` (``from applypatch_ext.jupyter import SESSION``)."""

from __future__ import annotations

from .live.session import SESSION, ApplyPatchSession

__all__ = ["SESSION", "ApplyPatchSession"]
