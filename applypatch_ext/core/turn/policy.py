"""The policy records of a turn: the permission profile and writable roots, the approval policy.

Pure: lexical answers to "may this path be written?" and "may we ask?", without touching
the disk. The filesystem views that enforce them are in :mod:`~applypatch_ext.core.turn.sandbox`.

Besides the carve-outs of each root, applypatch_ext's own state folders (its crash journals and
their key, :func:`~applypatch_ext.core.apply.state.state_folders`) are never writable, under any
root, even one configured inside them: a journal there is what recovery acts on."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from ..apply.fs import normalize_path
from ..apply.state import state_folders

#: The root that stands for "the whole disk" in :meth:`SandboxPolicy.roots`.
FULL_DISK_ROOT: Final = "/"


SLASH_TMP: Final = "/tmp"


#: Directories kept read-only directly under every writable root (docs/behaviour.md §7.2).
DEFAULT_READ_ONLY_SUBPATHS: Final = (".git", ".agents", ".codex")


class PermissionProfile(StrEnum):
    """How Codex runs commands: no sandbox, someone else's sandbox, or a managed one."""

    #: No sandbox at all (Codex's ``Disabled`` profile).
    DANGER_FULL_ACCESS = "danger-full-access"
    #: An external sandbox confines the process; Codex itself grants full write and auto-approves.
    EXTERNAL = "external"
    #: Managed: the cwd, extra roots and the temp directories are writable.
    WORKSPACE_WRITE = "workspace-write"
    #: Managed without a writable root.
    READ_ONLY = "read-only"

    @property
    def is_managed(self) -> bool:
        """Codex enforces this profile itself (a platform sandbox is needed)."""
        return self in (PermissionProfile.WORKSPACE_WRITE, PermissionProfile.READ_ONLY)


def _is_within(path: str, root: str) -> bool:
    """``path`` equals ``root`` or lies below it; both lexically normalised and absolute."""
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass(frozen=True)
class WritableRoot:
    """A writable root with the subpaths under it that stay read-only (absolute, normalised)."""

    root: str
    read_only_subpaths: tuple[str, ...] = ()

    def contains(self, path: str) -> bool:
        return _is_within(path, self.root)

    def carve_out_containing(self, path: str) -> str | None:
        """The read-only subpath that ``path`` is in, if any."""
        return next((sub for sub in self.read_only_subpaths if _is_within(path, sub)), None)


def state_folder_reason(path: str, folders: Sequence[str]) -> str | None:
    """Why the absolute, normalised ``path`` may not be written because it lies in one of the
    state ``folders``; None if it lies in none."""
    folder = next((f for f in folders if _is_within(path, f)), None)
    if folder is None:
        return None
    return f"inside {folder}, applypatch_ext's state folder (its crash journals and their key)"


def denial_reason(
    path: str, roots: Sequence[WritableRoot], protected: Sequence[str] = ()
) -> str | None:
    """Why writing the absolute, normalised ``path`` is not allowed by ``roots``; None if it is.

    A path inside one of the ``protected`` folders never is. Otherwise the deepest root
    containing the path decides, and only carve-outs deeper than that root count (the most
    specific entry wins).
    """
    protected_reason = state_folder_reason(path, protected)
    if protected_reason is not None:
        return protected_reason
    if not roots:
        return "the sandbox is read-only (no writable roots)"
    containing = [r for r in roots if r.contains(path)]
    if not containing:
        return "outside the writable roots " + ", ".join(r.root for r in roots)
    best = max(len(r.root) for r in containing)
    for root in roots:
        carve_out = root.carve_out_containing(path)
        if carve_out is not None and len(carve_out) > best:
            return f"inside the read-only path {carve_out}"
    return None


@dataclass(frozen=True)
class SandboxPolicy:
    """The filesystem part of a permission profile (Codex's ``SandboxPolicy``).

    ``writable_roots`` are extra absolute roots; ``include_tmp`` adds ``/tmp`` and
    ``include_tmpdir_env`` adds ``tmpdir`` (``$TMPDIR``, see :meth:`from_environment`), both only
    for the workspace-write profile. Nothing here reads the disk or the environment.
    """

    profile: PermissionProfile = PermissionProfile.WORKSPACE_WRITE
    writable_roots: tuple[str, ...] = ()
    include_tmp: bool = True
    include_tmpdir_env: bool = True
    tmpdir: str | None = None
    read_only_subpaths: tuple[str, ...] = DEFAULT_READ_ONLY_SUBPATHS

    def __post_init__(self) -> None:
        object.__setattr__(self, "profile", PermissionProfile(self.profile))
        object.__setattr__(self, "writable_roots", tuple(self.writable_roots))
        object.__setattr__(self, "read_only_subpaths", tuple(self.read_only_subpaths))
        for root in self.writable_roots:
            if not posixpath.isabs(root):
                raise ValueError(f"writable root {root!r} is not an absolute path")
        for sub in self.read_only_subpaths:
            if posixpath.isabs(sub) or not normalize_path(sub).strip("/"):
                raise ValueError(f"read-only subpath {sub!r} must be relative to a root")

    @classmethod
    def from_environment(
        cls,
        profile: PermissionProfile | str = PermissionProfile.WORKSPACE_WRITE,
        *,
        environ: Mapping[str, str] | None = None,
        writable_roots: Sequence[str] = (),
        include_tmp: bool = True,
        include_tmpdir_env: bool = True,
    ) -> SandboxPolicy:
        """A policy whose ``tmpdir`` is ``$TMPDIR`` of ``environ`` (default: ``os.environ``).

        A relative or empty ``$TMPDIR`` is ignored, as Codex ignores it.
        """
        env = os.environ if environ is None else environ
        tmpdir = env.get("TMPDIR") or None
        if tmpdir is not None and not posixpath.isabs(tmpdir):
            tmpdir = None
        return cls(
            PermissionProfile(profile),
            tuple(writable_roots),
            include_tmp=include_tmp,
            include_tmpdir_env=include_tmpdir_env,
            tmpdir=tmpdir,
        )

    def has_full_disk_write(self) -> bool:
        return self.profile in (PermissionProfile.DANGER_FULL_ACCESS, PermissionProfile.EXTERNAL)

    def roots(self, cwd: str) -> tuple[str, ...]:
        """The writable roots for ``cwd``: ``("/",)`` with full-disk write, none if read-only."""
        if self.has_full_disk_write():
            return (FULL_DISK_ROOT,)
        if self.profile is not PermissionProfile.WORKSPACE_WRITE:
            return ()
        candidates = [cwd, *self.writable_roots]
        if self.include_tmp:
            candidates.append(SLASH_TMP)
        if self.include_tmpdir_env and self.tmpdir is not None:
            candidates.append(self.tmpdir)
        return tuple(dict.fromkeys(normalize_path(c) for c in candidates))

    def writable_roots_with_carve_outs(self, cwd: str) -> tuple[WritableRoot, ...]:
        """:meth:`roots` with the read-only subpaths under each (none with full-disk write)."""
        if self.has_full_disk_write():
            return (WritableRoot(FULL_DISK_ROOT),)
        return tuple(
            WritableRoot(
                root, tuple(normalize_path(f"{root}/{s}") for s in self.read_only_subpaths)
            )
            for root in self.roots(cwd)
        )

    def denial_reason(self, path: str, cwd: str) -> str | None:
        """Why ``path`` (relative to ``cwd``) may not be written; None if it may. No disk access
        (the state folders are read from the environment)."""
        return denial_reason(
            normalize_path(posixpath.join(cwd, path)),
            self.writable_roots_with_carve_outs(cwd),
            state_folders(),
        )

    def is_writable(self, path: str, cwd: str) -> bool:
        """``path`` (relative to ``cwd``), lexically normalised, lies where writing is allowed."""
        return self.denial_reason(path, cwd) is None


UNTRUSTED: Final = "untrusted"


ON_REQUEST: Final = "on-request"


NEVER: Final = "never"


GRANULAR: Final = "granular"


APPROVAL_KINDS: Final = (UNTRUSTED, ON_REQUEST, NEVER, GRANULAR)


_NO_SANDBOX_APPROVAL: Final = "no-sandbox-approval"


@dataclass(frozen=True)
class ApprovalPolicy:
    """When Codex asks the user (``AskForApproval``).

    ``kind`` is ``untrusted`` (Codex's ``UnlessTrusted``), ``on-request``, ``never`` or
    ``granular``; ``sandbox_approval`` is the granular policy's flag that allows asking about
    sandbox escalations (the other granular flags do not matter to ``apply_patch``).
    """

    kind: str = ON_REQUEST
    sandbox_approval: bool = True

    def __post_init__(self) -> None:
        if self.kind not in APPROVAL_KINDS:
            expected = ", ".join(APPROVAL_KINDS)
            raise ValueError(f"unknown approval policy {self.kind!r}; expected one of {expected}")
        if not self.sandbox_approval and self.kind != GRANULAR:
            raise ValueError(
                f"sandbox_approval=False only applies to {GRANULAR!r}, not {self.kind!r}"
            )

    @classmethod
    def parse(cls, text: str) -> ApprovalPolicy:
        """Read ``untrusted``, ``on-request``, ``never``, ``granular`` or
        ``granular:no-sandbox-approval`` (also ``granular:sandbox_approval=true|false``)."""
        kind, sep, option = text.strip().partition(":")
        if not sep:
            return cls(kind)
        if kind == GRANULAR:
            if option == _NO_SANDBOX_APPROVAL:
                return cls(GRANULAR, sandbox_approval=False)
            name, eq, value = option.partition("=")
            if name.strip() == "sandbox_approval" and eq and value.strip() in ("true", "false"):
                return cls(GRANULAR, sandbox_approval=value.strip() == "true")
        raise ValueError(
            f"cannot read approval policy {text!r}; expected one of {', '.join(APPROVAL_KINDS)} "
            f"or {GRANULAR}:{_NO_SANDBOX_APPROVAL}"
        )

    def __str__(self) -> str:
        """The text :meth:`parse` reads back."""
        return f"{GRANULAR}:{_NO_SANDBOX_APPROVAL}" if not self.sandbox_approval else self.kind

    @property
    def rejects(self) -> bool:
        """Out-of-sandbox writes are refused instead of asked about."""
        return self.kind == NEVER or (self.kind == GRANULAR and not self.sandbox_approval)

    @property
    def may_ask_for_retry(self) -> bool:
        """After a sandbox denial, the user may be asked to retry without the sandbox."""
        if self.kind == GRANULAR:
            return self.sandbox_approval
        return self.kind != NEVER
