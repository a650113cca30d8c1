"""The pre- and post-tool-use hooks of a call: their types, and how their verdicts and
failures end or change the call (docs/behaviour.md §6)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, TypeAlias

from applypatch_ext.core.diagnosis import Diagnosis, DiagnosisKind
from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.core.turn.result import (
    CallResult,
    Stop,
)

PRE_HOOK_FAILED: Final = "pre-tool-use hook failed, nothing was written: "


POST_HOOK_FAILED: Final = "post-tool-use hook failed after the call ran: "


@dataclass(frozen=True)
class HookBlock:
    """Returned by a pre-tool-use hook to block the call; ``reason`` goes to the model."""

    reason: str


PreToolUseHook: TypeAlias = Callable[[str], "HookBlock | str | None"]


PostToolUseHook: TypeAlias = Callable[[CallResult], "str | None"]


def pre_hook(hook: PreToolUseHook | None, text: str) -> str | Stop:
    """The patch text to run (the hook's rewrite, if any), or how a blocking or broken hook
    stopped the call."""
    if hook is None:
        return text
    try:
        verdict = hook(text)
    except Exception as exc:  # any hook error becomes the call's error
        message = PRE_HOOK_FAILED + exception_text(exc)
        return Stop.because(CallStatus.FAILED, message, DiagnosisKind.HOOK_FAILED)
    if verdict is not None and not isinstance(verdict, HookBlock | str):
        message = (
            f"{PRE_HOOK_FAILED}it returned {type(verdict).__name__}; expected a HookBlock "
            "(block the call), a str (the patch to run instead) or None (run it as is)"
        )
        return Stop.because(CallStatus.FAILED, message, DiagnosisKind.HOOK_FAILED)
    if isinstance(verdict, HookBlock):
        diagnosis = Diagnosis(
            DiagnosisKind.REJECTED,
            f"A pre-tool-use hook blocked the patch ({verdict.reason}); nothing was written.",
        )
        return Stop(
            CallStatus.REJECTED,
            f"blocked by hook: {verdict.reason}",
            error=verdict.reason,
            diagnosis=diagnosis,
        )
    return text if verdict is None else verdict


def post_hook(hook: PostToolUseHook, result: CallResult, stop: Stop) -> Stop:
    """The hook may replace the model's output. One that raises (or returns something that is
    not a text) cannot lose the result: the call fails with the hook's error, its delta still
    says what was written."""
    try:
        replacement = hook(result)
    except Exception as exc:  # any hook error becomes the call's error
        return _hook_failed(stop, POST_HOOK_FAILED + exception_text(exc))
    if replacement is not None and not isinstance(replacement, str):
        message = (
            f"{POST_HOOK_FAILED}it returned {type(replacement).__name__}; expected a str "
            "(the output to give the model instead) or None (keep the output)"
        )
        return _hook_failed(stop, message)
    return stop if replacement is None else replace(stop, output=replacement)


def _hook_failed(stop: Stop, message: str) -> Stop:
    """The call as failed by a hook; what it had committed stays in its delta."""
    if stop.status not in (CallStatus.COMPLETED, CallStatus.FAILED) and stop.error:
        message = f"{message} (the call had ended {stop.status}: {stop.error})"
    diagnosis = Diagnosis(DiagnosisKind.HOOK_FAILED, f"{message}.")
    return replace(
        stop, status=CallStatus.FAILED, output=message, error=message, diagnosis=diagnosis
    )


def exception_text(exc: BaseException) -> str:
    """``ValueError: text``, or the type alone when the exception has no text."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
