"""applypatch_ext: the Codex CLI ``apply_patch`` pipeline in Python, made visible in Jupyter.

The public names below are loaded lazily, so ``import applypatch_ext`` (and the ``apply_patch``
command) stays cheap.

>>> from applypatch_ext import apply_patch, parse_patch
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "apply_patch": "applypatch_ext.core.apply",
    "apply_hunks": "applypatch_ext.core.apply",
    "ApplyPatchResult": "applypatch_ext.core.apply",
    "ApplyOutcome": "applypatch_ext.core.apply",
    "AffectedPaths": "applypatch_ext.core.apply",
    "parse_patch": "applypatch_ext.core.parser",
    "StreamingPatchParser": "applypatch_ext.core.streaming",
    "HunkSnapshot": "applypatch_ext.core.streaming",
    "verify_patch": "applypatch_ext.core.verify",
    "DuplicatePaths": "applypatch_ext.core.verify",
    "derive_new_contents": "applypatch_ext.core.contents",
    "seek_sequence": "applypatch_ext.core.seek",
    "unified_diff": "applypatch_ext.core.diff",
    "LineEndings": "applypatch_ext.core.text",
    "Filesystem": "applypatch_ext.core.fs",
    "LocalFilesystem": "applypatch_ext.core.fs",
    "MemoryFilesystem": "applypatch_ext.core.fs",
    "ApplyPatchError": "applypatch_ext.core.errors",
    "ParseError": "applypatch_ext.core.errors",
    "InvalidPatchError": "applypatch_ext.core.errors",
    "InvalidHunkError": "applypatch_ext.core.errors",
    "IoError": "applypatch_ext.core.errors",
    "ComputeReplacementsError": "applypatch_ext.core.errors",
    **{
        name: "applypatch_ext.core.model"
        for name in (
            "AddFile",
            "DeleteFile",
            "UpdateFile",
            "UpdateFileChunk",
            "Hunk",
            "ParsedPatch",
            "ApplyPatchAction",
            "ApplyPatchFileChange",
            "FileAdd",
            "FileDelete",
            "FileUpdate",
            "AppliedPatchDelta",
            "AppliedPatchChange",
            "AppliedAdd",
            "AppliedDelete",
            "AppliedUpdate",
        )
    },
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .core.apply import (
        AffectedPaths,
        ApplyOutcome,
        ApplyPatchResult,
        apply_hunks,
        apply_patch,
    )
    from .core.contents import derive_new_contents
    from .core.diff import unified_diff
    from .core.errors import (
        ApplyPatchError,
        ComputeReplacementsError,
        InvalidHunkError,
        InvalidPatchError,
        IoError,
        ParseError,
    )
    from .core.fs import Filesystem, LocalFilesystem, MemoryFilesystem
    from .core.model import (
        AddFile,
        AppliedAdd,
        AppliedDelete,
        AppliedPatchChange,
        AppliedPatchDelta,
        AppliedUpdate,
        ApplyPatchAction,
        ApplyPatchFileChange,
        DeleteFile,
        FileAdd,
        FileDelete,
        FileUpdate,
        Hunk,
        ParsedPatch,
        UpdateFile,
        UpdateFileChunk,
    )
    from .core.parser import parse_patch
    from .core.seek import seek_sequence
    from .core.streaming import HunkSnapshot, StreamingPatchParser
    from .core.text import LineEndings
    from .core.verify import DuplicatePaths, verify_patch


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext applypatch_ext``: register the magics (imported only now)."""
    from .jupyter.magic import ApplyPatchMagics
    from .jupyter.replay import ReplayMagics

    ipython.register_magics(ApplyPatchMagics)
    ipython.register_magics(ReplayMagics)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'applypatch_ext' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
