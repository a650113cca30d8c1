"""applypatch_ext: the Codex CLI ``apply_patch`` pipeline in Python, made visible in Jupyter.

The public names below are loaded lazily, so ``import applypatch_ext`` (and the ``apply_patch``
command) stays cheap.

>>> from applypatch_ext import apply_patch, parse_patch
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Where each public name lives (imported on first use). Import these from ``applypatch_ext``:
#: the modules below may move.
_MODULES: dict[str, tuple[str, ...]] = {
    "applypatch_ext.core.errors": (
        "ApplyPatchError",
        "ParseError",
        "InvalidPatchError",
        "InvalidHunkError",
        "IoError",
        "ComputeReplacementsError",
        "CancelledError",
    ),
    "applypatch_ext.core.text": ("LineEndings",),
    "applypatch_ext.core.interrupts": ("CancellationToken",),
    "applypatch_ext.core.parse.model": (
        "AddFile",
        "DeleteFile",
        "UpdateFile",
        "UpdateFileChunk",
        "Hunk",
        "ParsedPatch",
    ),
    "applypatch_ext.core.parse.parser": ("parse_patch",),
    "applypatch_ext.core.parse.streaming": ("StreamingPatchParser", "HunkSnapshot"),
    "applypatch_ext.core.apply.changes": (
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
    ),
    "applypatch_ext.core.apply.fs": ("Filesystem", "LocalFilesystem"),
    "applypatch_ext.core.apply.memfs": ("MemoryFilesystem",),
    "applypatch_ext.core.apply.seek": ("seek_sequence",),
    "applypatch_ext.core.apply.contents": ("derive_new_contents",),
    "applypatch_ext.core.apply.diff": ("unified_diff",),
    "applypatch_ext.core.apply.verify": ("verify_patch", "DuplicatePaths"),
    "applypatch_ext.core.apply.runtime": ("apply_hunks", "ApplyOutcome", "AffectedPaths"),
    "applypatch_ext.core.apply.standalone": ("apply_patch", "ApplyPatchResult"),
    "applypatch_ext.core.apply.transaction": ("Transaction",),
    "applypatch_ext.core.turn.policy": ("ApprovalPolicy", "PermissionProfile", "SandboxPolicy"),
    "applypatch_ext.core.turn.safety": ("assess_patch_safety", "AutoApprove", "AskUser", "Reject"),
    "applypatch_ext.core.turn.turn_diff": ("TurnDiffTracker",),
    "applypatch_ext.core.turn.options": ("PipelineOptions", "Decision", "Approver"),
    "applypatch_ext.core.turn.result": ("CallResult",),
    "applypatch_ext.core.turn.turn": ("Turn", "ApplyPatchCall", "run_patch"),
    "applypatch_ext.core.turn.hooks": ("HookBlock", "PreToolUseHook", "PostToolUseHook"),
    # the Jupyter layer (imported on first use only: the core stays standard library)
    "applypatch_ext.jupyter.result": ("PatchCallResult",),
    "applypatch_ext.jupyter.streams": ("stream_patch",),
    # needs the `agents` extra (the OpenAI Agents SDK)
    "applypatch_ext.jupyter.agents": ("PipelineEditor",),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .core.apply.changes import (
        AppliedAdd,
        AppliedDelete,
        AppliedPatchChange,
        AppliedPatchDelta,
        AppliedUpdate,
        ApplyPatchAction,
        ApplyPatchFileChange,
        FileAdd,
        FileDelete,
        FileUpdate,
    )
    from .core.apply.contents import derive_new_contents
    from .core.apply.diff import unified_diff
    from .core.apply.fs import Filesystem, LocalFilesystem
    from .core.apply.memfs import MemoryFilesystem
    from .core.apply.runtime import AffectedPaths, ApplyOutcome, apply_hunks
    from .core.apply.seek import seek_sequence
    from .core.apply.standalone import ApplyPatchResult, apply_patch
    from .core.apply.transaction import Transaction
    from .core.apply.verify import DuplicatePaths, verify_patch
    from .core.errors import (
        ApplyPatchError,
        CancelledError,
        ComputeReplacementsError,
        InvalidHunkError,
        InvalidPatchError,
        IoError,
        ParseError,
    )
    from .core.interrupts import CancellationToken
    from .core.parse.model import (
        AddFile,
        DeleteFile,
        Hunk,
        ParsedPatch,
        UpdateFile,
        UpdateFileChunk,
    )
    from .core.parse.parser import parse_patch
    from .core.parse.streaming import HunkSnapshot, StreamingPatchParser
    from .core.text import LineEndings
    from .core.turn.hooks import HookBlock, PostToolUseHook, PreToolUseHook
    from .core.turn.options import Approver, Decision, PipelineOptions
    from .core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
    from .core.turn.result import CallResult
    from .core.turn.safety import AskUser, AutoApprove, Reject, assess_patch_safety
    from .core.turn.turn import ApplyPatchCall, Turn, run_patch
    from .core.turn.turn_diff import TurnDiffTracker
    from .jupyter.agents import PipelineEditor
    from .jupyter.result import PatchCallResult
    from .jupyter.streams import stream_patch


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext applypatch_ext``: register the magics (imported only now)."""
    from .jupyter.lite import guard_lite_kernel
    from .jupyter.magic import ApplyPatchMagics
    from .jupyter.replay import ReplayMagics
    from .jupyter.undo import UndoMagics

    ipython.register_magics(ApplyPatchMagics)
    ipython.register_magics(ReplayMagics)
    ipython.register_magics(UndoMagics)
    guard_lite_kernel(ipython)  # JupyterLite: a patch's indentation must not hang the cell


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'applypatch_ext' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
