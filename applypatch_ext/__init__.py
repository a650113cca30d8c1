"""applypatch_ext: the Codex CLI ``apply_patch`` pipeline in Python, made visible in Jupyter.

The public names below are loaded lazily, so ``import applypatch_ext`` (and the ``apply_patch``
command) stays cheap.

>>> from applypatch_ext import apply_patch, parse_patch
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Where each public name lives (imported on first use): what the README, docs/ and the teaching
#: notebooks have a user import, and what a user catches, passes or reads of them. Import these
#: from ``applypatch_ext``: the modules below may move. The engine's other parts (the hunk and
#: change records, the runtime, the tracker...) are importable from their modules.
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
    "applypatch_ext.core.interrupts": ("CancellationToken",),
    "applypatch_ext.core.diagnosis": ("DiagnosisKind",),
    "applypatch_ext.core.parse.model": ("ParsedPatch",),
    "applypatch_ext.core.parse.parser": ("parse_patch",),
    "applypatch_ext.core.parse.streaming": ("StreamingPatchParser",),
    "applypatch_ext.core.apply.changes": ("ApplyPatchAction", "AppliedPatchDelta"),
    "applypatch_ext.core.apply.fs": ("Filesystem", "LocalFilesystem"),
    "applypatch_ext.core.apply.memfs": ("MemoryFilesystem",),
    "applypatch_ext.core.apply.seek": ("seek_sequence",),
    "applypatch_ext.core.apply.verify": ("verify_patch",),
    "applypatch_ext.core.apply.standalone": ("apply_patch", "ApplyPatchResult"),
    "applypatch_ext.core.turn.policy": ("ApprovalPolicy", "PermissionProfile", "SandboxPolicy"),
    "applypatch_ext.core.turn.safety": ("assess_patch_safety", "AutoApprove", "AskUser", "Reject"),
    "applypatch_ext.core.turn.options": ("PipelineOptions", "Decision", "Approver"),
    "applypatch_ext.core.turn.result": ("CallResult",),
    "applypatch_ext.core.turn.turn": ("Turn", "run_patch"),
    "applypatch_ext.core.turn.hooks": ("HookBlock", "PreToolUseHook", "PostToolUseHook"),
    # the Jupyter layer (imported on first use only: the core stays standard library)
    "applypatch_ext.jupyter.live.result": ("PatchCallResult",),
    "applypatch_ext.jupyter.live.streams": ("stream_patch",),
    # needs the `agents` extra (the OpenAI Agents SDK)
    "applypatch_ext.jupyter.magics.agents": ("PipelineEditor",),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    # `X as X`: the names are re-exported (`__all__` above is computed, so a type checker
    # cannot read it), and `from applypatch_ext import apply_patch` type-checks in strict mode.
    __version__: str

    from .core.apply.changes import AppliedPatchDelta as AppliedPatchDelta
    from .core.apply.changes import ApplyPatchAction as ApplyPatchAction
    from .core.apply.fs import Filesystem as Filesystem
    from .core.apply.fs import LocalFilesystem as LocalFilesystem
    from .core.apply.memfs import MemoryFilesystem as MemoryFilesystem
    from .core.apply.seek import seek_sequence as seek_sequence
    from .core.apply.standalone import ApplyPatchResult as ApplyPatchResult
    from .core.apply.standalone import apply_patch as apply_patch
    from .core.apply.verify import verify_patch as verify_patch
    from .core.diagnosis import DiagnosisKind as DiagnosisKind
    from .core.errors import ApplyPatchError as ApplyPatchError
    from .core.errors import CancelledError as CancelledError
    from .core.errors import ComputeReplacementsError as ComputeReplacementsError
    from .core.errors import InvalidHunkError as InvalidHunkError
    from .core.errors import InvalidPatchError as InvalidPatchError
    from .core.errors import IoError as IoError
    from .core.errors import ParseError as ParseError
    from .core.interrupts import CancellationToken as CancellationToken
    from .core.parse.model import ParsedPatch as ParsedPatch
    from .core.parse.parser import parse_patch as parse_patch
    from .core.parse.streaming import StreamingPatchParser as StreamingPatchParser
    from .core.turn.hooks import HookBlock as HookBlock
    from .core.turn.hooks import PostToolUseHook as PostToolUseHook
    from .core.turn.hooks import PreToolUseHook as PreToolUseHook
    from .core.turn.options import Approver as Approver
    from .core.turn.options import Decision as Decision
    from .core.turn.options import PipelineOptions as PipelineOptions
    from .core.turn.policy import ApprovalPolicy as ApprovalPolicy
    from .core.turn.policy import PermissionProfile as PermissionProfile
    from .core.turn.policy import SandboxPolicy as SandboxPolicy
    from .core.turn.result import CallResult as CallResult
    from .core.turn.safety import AskUser as AskUser
    from .core.turn.safety import AutoApprove as AutoApprove
    from .core.turn.safety import Reject as Reject
    from .core.turn.safety import assess_patch_safety as assess_patch_safety
    from .core.turn.turn import Turn as Turn
    from .core.turn.turn import run_patch as run_patch
    from .jupyter.live.result import PatchCallResult as PatchCallResult
    from .jupyter.live.streams import stream_patch as stream_patch
    from .jupyter.magics.agents import PipelineEditor as PipelineEditor


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext applypatch_ext``: register the magics (imported only now)."""
    from .jupyter.magics.desk import DeskMagics
    from .jupyter.magics.lite import guard_lite_kernel
    from .jupyter.magics.magic import ApplyPatchMagics
    from .jupyter.magics.replay import ReplayMagics
    from .jupyter.magics.undo import UndoMagics

    ipython.register_magics(ApplyPatchMagics)
    ipython.register_magics(ReplayMagics)
    ipython.register_magics(UndoMagics)
    ipython.register_magics(DeskMagics)
    guard_lite_kernel(ipython)  # JupyterLite: a patch's indentation must not hang the cell


def __getattr__(name: str) -> Any:
    if name == "__version__":  # written once, in labextension/package.json: read from the install
        from importlib.metadata import version

        globals()[name] = value = version("applypatch_ext")
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'applypatch_ext' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
