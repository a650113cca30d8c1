"""Decide whether a verified patch runs on its own, needs the user, or is refused (docs/behaviour.md
§7).

:func:`assess_patch_safety` is Codex's decision table: it looks at the proposed change map of a
verification (every key and every move destination), the approval policy and the sandbox
policy, and answers :class:`AutoApprove`, :class:`AskUser` or :class:`Reject`. The path check
is lexical (:meth:`~applypatch_ext.core.turn.policy.SandboxPolicy.is_writable`): hard links and
symlinks are not looked at, which is why an auto-approved patch still runs inside the sandbox.

Nothing here reads or writes files, and nothing asks anyone: the caller acts on the result.
The check only sees the map, so a legacy (folded) map can hide a hunk's paths (docs/behaviour.md
§7.4); verification rejects duplicate paths by default for that reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, TypeAlias

from ..apply.changes import ApplyPatchAction, FileUpdate
from ..apply.fs import resolve_path
from ..apply.state import state_folders
from ..parse.model import Hunk, UpdateFile
from .policy import (
    UNTRUSTED,
    ApprovalPolicy,
    SandboxPolicy,
    state_folder_reason,
)

EMPTY_PATCH_REASON: Final = "empty patch"
PATCH_REJECTED_OUTSIDE_PROJECT_REASON: Final = (
    "writing outside of the project; rejected by user approval settings"
)
PATCH_REJECTED_READ_ONLY_REASON: Final = (
    "writing is blocked by read-only sandbox; rejected by user approval settings"
)


@dataclass(frozen=True)
class AutoApprove:
    """Run without asking; ``sandboxed`` says whether the platform sandbox confines the run."""

    sandboxed: bool

    decision: ClassVar[Literal["auto-approve"]] = "auto-approve"

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision, "sandboxed": self.sandboxed}


@dataclass(frozen=True)
class AskUser:
    """Ask the user before running."""

    decision: ClassVar[Literal["ask-user"]] = "ask-user"

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision}


@dataclass(frozen=True)
class Reject:
    """Refuse; the model sees ``patch rejected: <reason>``."""

    reason: str

    decision: ClassVar[Literal["reject"]] = "reject"

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.decision, "reason": self.reason}


SafetyCheck: TypeAlias = AutoApprove | AskUser | Reject


def writable_paths(action: ApplyPatchAction) -> list[str]:
    """The paths the patch needs to write: every key plus every move destination."""
    paths = list(action.changes)
    paths.extend(
        change.move_path
        for change in action.changes.values()
        if isinstance(change, FileUpdate) and change.move_path is not None
    )
    return paths


def hunk_write_paths(hunks: Iterable[Hunk], cwd: str) -> list[str]:
    """Every path the hunks can write, resolved against ``cwd``: each hunk's path, then each
    move destination, without repeats.

    Unlike :func:`writable_paths` this reads the hunks that will run, not the proposed map, so
    a path folded away by ``--duplicates fold`` (docs/behaviour.md §7.4) is still listed. Without
    duplicate hunks both give the same list in the same order. Raises ``InvalidPathError`` like
    verification for a path no file name can hold.
    """
    hunks = list(hunks)
    paths = [resolve_path(cwd, hunk.path) for hunk in hunks]
    paths.extend(
        resolve_path(cwd, hunk.move_path)
        for hunk in hunks
        if isinstance(hunk, UpdateFile) and hunk.move_path is not None
    )
    return list(dict.fromkeys(paths))


def is_write_patch_constrained_to_writable_paths(
    action: ApplyPatchAction, sandbox: SandboxPolicy, cwd: str
) -> bool:
    """Every path of :func:`writable_paths` is writable under ``sandbox`` (lexically)."""
    return all(sandbox.is_writable(path, cwd) for path in writable_paths(action))


def assess_patch_safety(
    action: ApplyPatchAction,
    policy: ApprovalPolicy,
    sandbox: SandboxPolicy,
    cwd: str,
    *,
    platform_sandbox_available: bool = True,
) -> SafetyCheck:
    """Codex's decision for a verified patch (the table of docs/behaviour.md §7.3, in its order),
    after ours: a patch that writes into applypatch_ext's state folder is refused whatever the
    profile and the policy (nobody is asked: recovery trusts what is there)."""
    if action.is_empty():
        return Reject(EMPTY_PATCH_REASON)
    folders = state_folders()
    for path in writable_paths(action):
        reason = state_folder_reason(path, folders)
        if reason is not None:
            return Reject(f"writing {path}: {reason}; no patch may write there")
    if policy.kind == UNTRUSTED:
        return AskUser()
    if is_write_patch_constrained_to_writable_paths(action, sandbox, cwd):
        if sandbox.has_full_disk_write():
            return AutoApprove(sandboxed=False)
        if platform_sandbox_available:
            return AutoApprove(sandboxed=True)
    if policy.rejects:
        read_only = sandbox.profile.is_managed and not sandbox.roots(cwd)
        return Reject(
            PATCH_REJECTED_READ_ONLY_REASON if read_only else PATCH_REJECTED_OUTSIDE_PROJECT_REASON
        )
    return AskUser()
