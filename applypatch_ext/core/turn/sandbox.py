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

These views, and :class:`StateGuardFilesystem` (the view of an attempt the sandbox does not
confine), refuse any change in applypatch_ext's state folders (:class:`StateFolders`), whatever
the profile, the roots and the grants. Each is the one :class:`GuardedFilesystem` with its
rules (:class:`SandboxRules`, :class:`NoSymlinks`, :class:`GrantRules`, :class:`StateFolders`),
and so is recovery's view. :class:`Confinement` is the choice among these views for
one attempt, as data: the attempt wraps its filesystem with it, records it in its crash
journal, and a recovery checks every change against the same view (``check(path, operation)``).

This module does not decide whether a patch needs approval (that is :mod:`.safety`), and it is
not a security boundary: it only confines writes that go through the view.
"""

from __future__ import annotations

import errno
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ..apply.fs import FileMetadata, Filesystem, WriteRefused, canonicalizer, normalize_path
from ..apply.state import state_folders
from .policy import (
    PermissionProfile,
    SandboxPolicy,
    WritableRoot,
    denial_reason,
    state_folder_reason,
)


class SandboxDenied(WriteRefused):
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


#: The changes a view confines, as their denials name them.
WRITING: Final = "writing"
CREATING_DIRECTORY: Final = "creating directory"
REMOVING: Final = "removing"
REMOVING_DIRECTORY: Final = "removing directory"
CREATING_SYMLINK: Final = "creating symlink"  # only recovery creates symlinks
OPERATIONS: Final = (WRITING, CREATING_DIRECTORY, REMOVING, REMOVING_DIRECTORY, CREATING_SYMLINK)
#: The changes to a directory entry itself: its symlink, if it is one, is not followed.
_ENTRY_CHANGES: Final = (REMOVING, REMOVING_DIRECTORY, CREATING_SYMLINK)
_DIRECTORY_CHANGES: Final = (CREATING_DIRECTORY, REMOVING_DIRECTORY)


def _resolved(lexical: str, operation: str, canonical: Callable[[str], str] | None) -> str | None:
    """What ``operation`` at ``lexical`` really changes, symlinks resolved (None without a
    resolver): the path itself, or for a change of the entry, its resolved parent."""
    if canonical is None:
        return None
    if operation not in _ENTRY_CHANGES:
        return canonical(lexical)
    return posixpath.join(canonical(posixpath.dirname(lexical)), posixpath.basename(lexical))


class StateFolders:
    """applypatch_ext's state folders as a view sees them, lexical and resolved (looked up once,
    when the view is made: a view lives for one attempt)."""

    def __init__(self, canonical: Callable[[str], str] | None) -> None:
        self._canonical = canonical
        self.lexical = state_folders()
        self.real = None if canonical is None else tuple(canonical(f) for f in self.lexical)

    def denial(self, lexical: str, real: str | None) -> str | None:
        """Why a change at ``lexical`` (resolving to ``real``) is refused because it lies in a
        state folder (whatever the roots and the grants); None if it does not."""
        reason = state_folder_reason(lexical, self.lexical)
        if reason is None and real is not None and self.real is not None:
            real_reason = state_folder_reason(real, self.real)
            if real_reason is not None:
                reason = f"it resolves to {real}, {real_reason}"
        return reason

    def __call__(self, path: str, operation: str) -> None:
        """The state folders alone as a view's rules (a :data:`Check`): raise
        :class:`SandboxDenied` if ``operation`` would change one."""
        lexical = normalize_path(path)
        reason = self.denial(lexical, _resolved(lexical, operation, self._canonical))
        if reason is not None:
            raise SandboxDenied(path, reason, operation)


#: ``check(path, operation)``, the rules of a view: raises a ``WriteRefused``
#: (:class:`SandboxDenied`, :class:`SymlinkRefused`) for a change (one of :data:`OPERATIONS`)
#: the view refuses, returns None for one it allows.
Check: TypeAlias = Callable[[str, str], None]


class GuardedFilesystem:
    """The one confining view: a :class:`~applypatch_ext.core.apply.fs.Filesystem` that asks
    ``rules`` (a :data:`Check`) before every change and lets reads and metadata pass through.

    ``write_bytes``, ``create_dirs``, ``remove_file`` and ``remove_dir`` run only when the
    rules allow the change; the paths refused with :class:`SandboxDenied` are kept in
    ``denials``. The rules are what differ from one view to another: the sandbox's roots
    (:class:`SandboxRules`), the approved paths (:class:`GrantRules`), the state folders alone
    (:class:`StateFolders`), no symlink on the way (:class:`NoSymlinks`), or several of them
    (:func:`all_of`).
    """

    def __init__(self, inner: Filesystem, rules: Check) -> None:
        self.inner = inner
        self.rules = rules
        self.denials: list[str] = []

    def check(self, path: str, operation: str) -> None:
        """Raise unless the rules allow ``operation`` (one of :data:`OPERATIONS`) at
        ``path``."""
        try:
            self.rules(path, operation)
        except SandboxDenied:
            self.denials.append(path)
            raise

    def read_bytes(self, path: str) -> bytes:
        return self.inner.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        self.check(path, WRITING)
        self.inner.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self.check(path, CREATING_DIRECTORY)
        self.inner.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self.check(path, REMOVING)
        self.inner.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self.check(path, REMOVING_DIRECTORY)
        self.inner.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self.inner.metadata(path, follow_symlinks=follow_symlinks)


def all_of(*checks: Check) -> Check:
    """The rules that allow a change when each of ``checks`` does, asked in order (the first
    refusal is the one raised)."""

    def check(path: str, operation: str) -> None:
        for each in checks:
            each(path, operation)

    return check


class SandboxRules:
    """The sandbox's rules (a :data:`Check`): a change is allowed when its target is writable
    lexically and, when symlinks can be resolved (``canonical``), also once resolved against
    the resolved roots; an approved path is allowed wherever it is (not where a symlink
    leads); never in a state folder. A removal (and the creation of a symlink) resolves only
    the parent directory: unlinking a symlink changes the directory that holds it, not the
    link's target."""

    def __init__(
        self,
        policy: SandboxPolicy,
        cwd: str,
        canonical: Callable[[str], str] | None,
        approved: Iterable[str] = (),
    ) -> None:
        self.policy = policy
        self.cwd = normalize_path(cwd)
        self._canonical = canonical
        self._state = StateFolders(canonical)
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
        elif operation == CREATING_DIRECTORY and lexical in self._approved_ancestors:
            granted = self._approved_ancestors
        else:
            return False
        canonical = self._canonical
        return canonical is None or canonical(lexical) in granted or canonical(lexical) == lexical

    def _outside(self, lexical: str, real: str | None) -> str | None:
        """Why the roots and their carve-outs refuse ``lexical`` (or what it resolves to)."""
        roots = self.policy.writable_roots_with_carve_outs(self.cwd)
        reason = denial_reason(lexical, roots)
        canonical = self._canonical
        if reason is not None or canonical is None or real is None:
            return reason
        if self.policy.has_full_disk_write():
            return None
        real_roots = tuple(
            WritableRoot(canonical(r.root), tuple(canonical(s) for s in r.read_only_subpaths))
            for r in roots
        )
        real_reason = denial_reason(real, real_roots)
        return None if real_reason is None else f"it resolves to {real}, {real_reason}"

    def __call__(self, path: str, operation: str) -> None:
        lexical = normalize_path(posixpath.join(self.cwd, path))
        real = _resolved(lexical, operation, self._canonical)
        reason = self._state.denial(lexical, real)
        if reason is None and not self._granted(lexical, operation):
            reason = self._outside(lexical, real)
        if reason is not None:
            raise SandboxDenied(path, reason, operation)


class SandboxedFilesystem(GuardedFilesystem):
    """The sandboxed attempt's view: :class:`SandboxRules` over ``inner``. The resolver is
    ``canonical_path`` if given, else the one of ``inner`` or of the filesystem it wraps
    (through ``.inner``); without one only the lexical check runs."""

    def __init__(
        self,
        inner: Filesystem,
        policy: SandboxPolicy,
        cwd: str,
        *,
        canonical_path: Callable[[str], str] | None = None,
        approved: Iterable[str] = (),
    ) -> None:
        canonical = canonical_path if canonical_path is not None else canonicalizer(inner)
        super().__init__(inner, SandboxRules(policy, cwd, canonical, approved))


class SymlinkRefused(WriteRefused):
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


class NoSymlinks:
    """No-follow rules (a :data:`Check`, docs/behaviour.md §5.6): a change whose path has a
    symlink among its directories fails with :class:`SymlinkRefused` before anything is
    written, and so does one whose path itself is a symlink, for the ``leaf`` operations (a
    recovery removes a symlink itself: its removals do not look at the leaf)."""

    def __init__(self, fs: Filesystem, leaf: Iterable[str] = OPERATIONS) -> None:
        self.fs = fs
        self.leaf = frozenset(leaf)

    def __call__(self, path: str, operation: str) -> None:
        normal = normalize_path(path)
        candidates = _ancestors(normal)[1:]
        if operation in self.leaf:
            candidates.append(normal)
        for candidate in candidates:
            try:
                kind = self.fs.metadata(candidate, follow_symlinks=False).kind
            except OSError:
                return  # the rest does not exist yet: nothing to follow
            if kind == "symlink":
                raise SymlinkRefused(path, candidate)


class NoFollowFilesystem(GuardedFilesystem):
    """The unsandboxed retry's view (docs/behaviour.md §5.6): :class:`NoSymlinks` over
    ``inner``, so an escalated attempt cannot be led outside the paths it was approved for."""

    def __init__(self, inner: Filesystem) -> None:
        super().__init__(inner, NoSymlinks(inner))


#: Why :class:`GrantRules` refuses a change.
NOT_GRANTED: Final = "not among the paths approved for this call"


class GrantRules:
    """The unsandboxed retry's confinement (a :data:`Check`): changes only to the paths the
    user approved. A write or a removal is allowed for a granted path, a directory's creation
    or removal for a directory above one (its missing parents); anything else is refused with
    :class:`SandboxDenied` naming the path and the granted paths; never in a state folder. The
    check is lexical (``granted`` and the paths are absolute, or relative to ``cwd``); the
    pipeline adds :class:`NoSymlinks`, which refuses any symlink on the way, so a lexical
    match is the file that is changed."""

    def __init__(
        self, granted: Iterable[str], cwd: str, canonical: Callable[[str], str] | None
    ) -> None:
        self.cwd = normalize_path(cwd)
        self.granted = tuple(
            dict.fromkeys(normalize_path(posixpath.join(self.cwd, p)) for p in granted)
        )
        self._files = frozenset(self.granted)
        self._dirs = frozenset(ancestor for p in self.granted for ancestor in _ancestors(p))
        self._canonical = canonical
        self._state = StateFolders(canonical)

    def __call__(self, path: str, operation: str) -> None:
        lexical = normalize_path(posixpath.join(self.cwd, path))
        reason = self._state.denial(lexical, _resolved(lexical, operation, self._canonical))
        allowed = self._dirs if operation in _DIRECTORY_CHANGES else self._files
        if reason is None and lexical in allowed:
            return
        shown = ", ".join(self.granted) if self.granted else "none"
        raise SandboxDenied(path, reason or f"{NOT_GRANTED} (approved: {shown})", operation)


class GrantedFilesystem(GuardedFilesystem):
    """:class:`GrantRules` over ``inner`` (the pipeline wraps it in a
    :class:`NoFollowFilesystem`)."""

    def __init__(self, inner: Filesystem, granted: Iterable[str], cwd: str = "/") -> None:
        super().__init__(inner, GrantRules(granted, cwd, canonicalizer(inner)))


class StateGuardFilesystem(GuardedFilesystem):
    """The view of an attempt the sandbox does not confine (``danger-full-access``,
    ``external``): anything may change but applypatch_ext's state folders, lexically or through
    a symlink (:class:`StateFolders` as its rules). The safety check refuses them by path
    before anyone is asked; this catches a path that reaches them through a symlinked
    directory (``~/.local/state`` a link into the project, as dotfile managers make)."""

    def __init__(self, inner: Filesystem) -> None:
        super().__init__(inner, StateFolders(canonicalizer(inner)))


# -- what an attempt may change, recorded in its journal -----------------------------------------

ConfinementView: TypeAlias = Literal["sandbox", "granted", "unconfined"]
_POLICY_FIELDS: Final[dict[str, type | tuple[type, ...]]] = {
    "profile": str,
    "writable_roots": list,
    "include_tmp": bool,
    "include_tmpdir_env": bool,
    "tmpdir": (str, type(None)),
    "read_only_subpaths": list,
}


def _policy_to_json(policy: SandboxPolicy) -> dict[str, Any]:
    return {
        "profile": policy.profile.value,
        "writable_roots": list(policy.writable_roots),
        "include_tmp": policy.include_tmp,
        "include_tmpdir_env": policy.include_tmpdir_env,
        "tmpdir": policy.tmpdir,
        "read_only_subpaths": list(policy.read_only_subpaths),
    }


def _policy_from_json(obj: object) -> SandboxPolicy:
    if not isinstance(obj, dict) or set(obj) != set(_POLICY_FIELDS):
        raise ValueError(f"its sandbox policy {obj!r} is not a policy record")
    for name, kind in _POLICY_FIELDS.items():
        value = obj[name]
        if not isinstance(value, kind) or (
            isinstance(value, list) and not all(isinstance(v, str) for v in value)
        ):
            raise ValueError(f"its sandbox policy's {name} {value!r} has the wrong type")
    return SandboxPolicy(
        PermissionProfile(obj["profile"]),
        tuple(obj["writable_roots"]),
        include_tmp=obj["include_tmp"],
        include_tmpdir_env=obj["include_tmpdir_env"],
        tmpdir=obj["tmpdir"],
        read_only_subpaths=tuple(obj["read_only_subpaths"]),
    )


@dataclass(frozen=True)
class Confinement:
    """What one attempt may change, as its filesystem view enforces it: the sandbox view of
    ``policy`` rooted at ``root`` with the ``approved`` paths (a sandboxed attempt), only the
    ``approved`` paths and no symlink on the way (an unsandboxed retry), or anything
    (``danger-full-access``, ``external``). An atomic attempt records it in its journal, so that
    a recovery after a crash changes nothing the attempt itself could not have changed."""

    view: ConfinementView
    root: str = "/"
    policy: SandboxPolicy | None = None
    approved: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, policy: SandboxPolicy, root: str, *, sandboxed: bool, approved: Iterable[str] = ()
    ) -> Confinement:
        """The confinement of an attempt (the pipeline's choice of view, docs/behaviour.md
        §5.6): sandboxed, else the granted paths unless the profile writes the whole disk."""
        if sandboxed:
            return cls("sandbox", root, policy, tuple(approved))
        if policy.has_full_disk_write():
            return cls("unconfined")
        return cls("granted", approved=tuple(approved))

    def wrap(self, fs: Filesystem) -> Filesystem:
        """The attempt's view over ``fs`` (never one that may change a state folder): its
        rules, and for the granted paths no symlink on the way either."""
        if self.view == "granted":
            return GuardedFilesystem(fs, all_of(NoSymlinks(fs), self.check(fs)))
        return GuardedFilesystem(fs, self.check(fs))

    def check(self, fs: Filesystem) -> Check:
        """The rules of the view over ``fs``, ``check(path, operation)``: raises
        :class:`SandboxDenied` for a change the attempt could not make (the state folders are
        refused also where the attempt was unconfined)."""
        canonical = canonicalizer(fs)
        if self.view == "sandbox":
            assert self.policy is not None
            return SandboxRules(self.policy, self.root, canonical, self.approved)
        if self.view == "granted":
            return GrantRules(self.approved, "/", canonical)
        return StateFolders(canonical)

    def to_json(self) -> dict[str, Any]:
        return {
            "view": self.view,
            "root": self.root,
            "policy": None if self.policy is None else _policy_to_json(self.policy),
            "approved": list(self.approved),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Confinement:
        """The record ``obj`` (from :meth:`to_json`); ``ValueError`` saying what is wrong."""
        if set(obj) != {"view", "root", "policy", "approved"}:
            raise ValueError(f"its confinement has the fields {sorted(obj)}")
        view, root, approved = obj["view"], obj["root"], obj["approved"]
        if view not in ("sandbox", "granted", "unconfined"):
            raise ValueError(f"its confinement's view {view!r} is not a view")
        if not isinstance(root, str) or not root.startswith("/"):
            raise ValueError(f"its confinement's root {root!r} is not absolute")
        if not isinstance(approved, list) or not all(
            isinstance(p, str) and p.startswith("/") for p in approved
        ):
            raise ValueError("its confinement's approved paths are not absolute paths")
        policy = None if obj["policy"] is None else _policy_from_json(obj["policy"])
        if (view == "sandbox") != (policy is not None):
            raise ValueError(f"a {view} confinement with policy {obj['policy']!r}")
        return cls(view, root, policy, tuple(approved))
