"""Where a patch may write: the permission profile, its writable roots, and a confining view.

:class:`SandboxPolicy` answers "may this path be written?" lexically, without touching the disk,
the way Codex's safety check does (docs/behaviour.md §7.2): a path is writable when it lies inside a
writable root and not inside a read-only carve-out (``.git``, ``.agents``, ``.codex`` directly under
a root, whether they exist or not). When roots nest, the most specific entry wins: a carve-out of
the project root stays read-only even if an enclosing root (``/tmp``) contains it, and a configured
root that is itself a carve-out of another root is writable.

:class:`SandboxedFilesystem` plays the platform sandbox for the pipeline's attempts: a
:class:`~applypatch_ext.core.apply.fs.Filesystem` view whose writes raise :class:`SandboxDenied` (an
``EPERM`` ``PermissionError``) outside the policy. Unlike the lexical check it also resolves
symlinks, so a write through a link that leaves the roots is denied, as a kernel sandbox would
deny it.

:class:`NoFollowFilesystem` and :class:`GrantedFilesystem` together are the view of an
unsandboxed retry: no symlink on the way, and no change outside the paths the user approved.

This module does not decide whether a patch needs approval (that is :mod:`.safety`), and it is
not a security boundary: it only confines writes that go through the view.
"""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Callable, Iterable
from typing import Final

from ..apply.fs import FileMetadata, Filesystem, canonicalizer, normalize_path
from .policy import (
    SandboxPolicy,
    WritableRoot,
    denial_reason,
)


class SandboxDenied(PermissionError):
    """A write the sandbox refused: ``errno`` is ``EPERM``; ``str()`` names the path and why.

    The pipeline recognises a sandbox denial by this type (also when it is an error's cause).
    """

    def __init__(self, path: str, reason: str, operation: str = "writing") -> None:
        self.message = f"sandbox: {operation} {path} is not permitted: {reason}"
        super().__init__(errno.EPERM, self.message, path)
        self.reason = reason
        self.operation = operation

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[SandboxDenied], tuple[str, str, str]]:
        return (SandboxDenied, (str(self.filename), self.reason, self.operation))


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) or "/" for i in range(1, len(parts))]


class SandboxedFilesystem:
    """A :class:`~applypatch_ext.core.apply.fs.Filesystem` view that confines writes to a policy.

    Reads and metadata pass through. ``write_bytes``, ``create_dirs``, ``remove_file`` and
    ``remove_dir`` raise :class:`SandboxDenied` unless the target is writable lexically and,
    when symlinks can be resolved, also once resolved against the resolved roots. The resolver
    is ``canonical_path`` if given, else the one of ``inner`` or of the filesystem it wraps
    (through ``.inner``); without one only the lexical check runs. A removal resolves only the
    parent directory: unlinking a symlink changes the directory that holds it, not the link's
    target. Denied paths are kept in ``denials``.
    """

    def __init__(
        self,
        inner: Filesystem,
        policy: SandboxPolicy,
        cwd: str,
        *,
        canonical_path: Callable[[str], str] | None = None,
        approved: Iterable[str] = (),
    ) -> None:
        self.inner = inner
        self.policy = policy
        self.cwd = normalize_path(cwd)
        self.denials: list[str] = []
        self._canonical = canonical_path if canonical_path is not None else canonicalizer(inner)
        # Paths the user approved for this call (Codex requests them as extra permissions):
        # writable wherever they are, and their missing parent directories may be created.
        self.approved = frozenset(normalize_path(posixpath.join(self.cwd, p)) for p in approved)
        self._approved_ancestors = frozenset(
            ancestor for p in self.approved for ancestor in _ancestors(p)
        )

    def _granted(self, lexical: str, operation: str) -> bool:
        """An approved path (or a parent directory to create for one), not redirected by a
        symlink: the grant covers the path the user saw, not wherever a link leads."""
        if lexical in self.approved:
            granted = self.approved
        elif operation == "creating directory" and lexical in self._approved_ancestors:
            granted = self._approved_ancestors
        else:
            return False
        canonical = self._canonical
        return canonical is None or canonical(lexical) in granted or canonical(lexical) == lexical

    def _check(self, path: str, operation: str, *, follow_leaf: bool = True) -> None:
        lexical = normalize_path(posixpath.join(self.cwd, path))
        if self._granted(lexical, operation):
            return
        roots = self.policy.writable_roots_with_carve_outs(self.cwd)
        reason = denial_reason(lexical, roots)
        canonical = self._canonical
        if reason is None and canonical is not None and not self.policy.has_full_disk_write():
            if follow_leaf:
                real = canonical(lexical)
            else:
                real = posixpath.join(
                    canonical(posixpath.dirname(lexical)), posixpath.basename(lexical)
                )
            real_roots = tuple(
                WritableRoot(canonical(r.root), tuple(canonical(s) for s in r.read_only_subpaths))
                for r in roots
            )
            real_reason = denial_reason(real, real_roots)
            if real_reason is not None:
                reason = f"it resolves to {real}, {real_reason}"
        if reason is not None:
            self.denials.append(path)
            raise SandboxDenied(path, reason, operation)

    # -- the Filesystem protocol ----------------------------------------------------------------

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        self._check(path, "writing")
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self._check(path, "creating directory")
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._check(path, "removing", follow_leaf=False)
        self.inner.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self._check(path, "removing directory", follow_leaf=False)
        self.inner.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)


class SymlinkRefused(PermissionError):
    """No-follow mode refused a path with a symlink in one of its components (docs/behaviour.md
    §5.6)."""

    def __init__(self, path: str, link: str) -> None:
        self.message = f"no-follow mode: {path} goes through the symlink {link}"
        super().__init__(errno.ELOOP, self.message, path)
        self.link = link

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[type[SymlinkRefused], tuple[str, str]]:
        return (SymlinkRefused, (str(self.filename), self.link))


class NoFollowFilesystem:
    """The unsandboxed retry's view (docs/behaviour.md §5.6): a change to a path whose leaf or any
    ancestor is a symlink fails before anything is written, so an escalated attempt cannot be led
    outside the paths it was approved for. Reads and metadata pass through."""

    def __init__(self, inner: Filesystem) -> None:
        self.inner = inner

    def _check(self, path: str) -> None:
        for candidate in [*_ancestors(normalize_path(path))[1:], normalize_path(path)]:
            try:
                kind = self.inner.metadata(candidate, follow_symlinks=False).kind
            except OSError:
                return  # the rest does not exist yet: nothing to follow
            if kind == "symlink":
                raise SymlinkRefused(path, candidate)

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        self._check(path)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self._check(path)
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._check(path)
        self.inner.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self._check(path)
        self.inner.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)


#: Why :class:`GrantedFilesystem` refuses a change.
NOT_GRANTED: Final = "not among the paths approved for this call"


class GrantedFilesystem:
    """The unsandboxed retry's confinement: changes only to the paths the user approved.

    An escalated attempt runs without the sandbox view, but never beyond the approval that
    allowed it: ``write_bytes`` and ``remove_file`` are allowed for a granted path, and
    ``create_dirs`` and ``remove_dir`` for a directory above one (its missing parents);
    anything else raises :class:`SandboxDenied` naming the path and the granted paths. The
    check is lexical (``granted`` and the paths are absolute, or relative to ``cwd``); the
    pipeline wraps it in a :class:`NoFollowFilesystem`, which refuses any symlink on the way,
    so a lexical match is the file that is changed. Reads and metadata pass through.
    """

    def __init__(self, inner: Filesystem, granted: Iterable[str], cwd: str = "/") -> None:
        self.inner = inner
        self.cwd = normalize_path(cwd)
        self.granted = tuple(
            dict.fromkeys(normalize_path(posixpath.join(self.cwd, p)) for p in granted)
        )
        self._files = frozenset(self.granted)
        self._dirs = frozenset(ancestor for p in self.granted for ancestor in _ancestors(p))
        self.denials: list[str] = []

    def _check(self, path: str, operation: str, allowed: frozenset[str]) -> None:
        if normalize_path(posixpath.join(self.cwd, path)) in allowed:
            return
        self.denials.append(path)
        shown = ", ".join(self.granted) if self.granted else "none"
        raise SandboxDenied(path, f"{NOT_GRANTED} (approved: {shown})", operation)

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        self._check(path, "writing", self._files)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self._check(path, "creating directory", self._dirs)
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._check(path, "removing", self._files)
        self.inner.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self._check(path, "removing directory", self._dirs)
        self.inner.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)
