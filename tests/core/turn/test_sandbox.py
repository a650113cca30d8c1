"""The sandbox policy (writable roots, carve-outs) and the confining filesystem view
(docs/behaviour.md §7.2)."""

from __future__ import annotations

import errno
import os
import pickle
import posixpath
from collections.abc import Callable
from pathlib import Path

import pytest

from applypatch_ext.core.apply.changes import AppliedAdd, AppliedPatchDelta
from applypatch_ext.core.apply.fs import FileMetadata, LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.runtime import ApplyOutcome, apply_hunks
from applypatch_ext.core.errors import IoError
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.text import format_io_error
from applypatch_ext.core.turn.faults import FaultyFilesystem
from applypatch_ext.core.turn.policy import (
    DEFAULT_READ_ONLY_SUBPATHS,
    PermissionProfile,
    SandboxPolicy,
)
from applypatch_ext.core.turn.recovery import RecoveryFilesystem
from applypatch_ext.core.turn.sandbox import (
    NOT_GRANTED,
    Confinement,
    GrantedFilesystem,
    GuardedFilesystem,
    NoFollowFilesystem,
    SandboxDenied,
    SandboxedFilesystem,
    SymlinkRefused,
)

from ..conftest import Workspace

CWD = "/w"


def workspace(*extra: str, tmpdir: str | None = None, include_tmp: bool = False) -> SandboxPolicy:
    return SandboxPolicy(
        PermissionProfile.WORKSPACE_WRITE,
        extra,
        include_tmp=include_tmp,
        include_tmpdir_env=tmpdir is not None,
        tmpdir=tmpdir,
    )


# --- PermissionProfile and roots ------------------------------------------------------------------


def test_profiles_and_their_texts() -> None:
    assert [p.value for p in PermissionProfile] == [
        "danger-full-access",
        "external",
        "workspace-write",
        "read-only",
    ]
    assert PermissionProfile("read-only") is PermissionProfile.READ_ONLY
    assert [p.is_managed for p in PermissionProfile] == [False, False, True, True]


@pytest.mark.parametrize(
    ("policy", "roots", "full_disk"),
    [
        (SandboxPolicy(PermissionProfile.DANGER_FULL_ACCESS), ("/",), True),
        (SandboxPolicy(PermissionProfile.EXTERNAL), ("/",), True),
        (SandboxPolicy(PermissionProfile.READ_ONLY, ("/extra",), tmpdir="/var/t"), (), False),
        (SandboxPolicy(PermissionProfile.WORKSPACE_WRITE), ("/w", "/tmp"), False),
        (
            SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, ("/extra", "/w"), tmpdir="/var/t/"),
            ("/w", "/extra", "/tmp", "/var/t"),
            False,
        ),
        (
            SandboxPolicy(
                PermissionProfile.WORKSPACE_WRITE,
                tmpdir="/var/t",
                include_tmp=False,
                include_tmpdir_env=False,
            ),
            ("/w",),
            False,
        ),
        (SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, tmpdir="/tmp"), ("/w", "/tmp"), False),
    ],
    ids=[
        "danger",
        "external",
        "read-only-ignores-roots",
        "workspace-defaults",
        "workspace-extra-and-tmpdir-deduplicated",
        "workspace-tmp-excluded",
        "tmpdir-equal-to-tmp",
    ],
)
def test_roots(policy: SandboxPolicy, roots: tuple[str, ...], full_disk: bool) -> None:
    assert policy.roots(CWD) == roots
    assert policy.has_full_disk_write() is full_disk


def test_profile_may_be_given_as_text() -> None:
    policy = SandboxPolicy("read-only")  # type: ignore[arg-type]
    assert policy.profile is PermissionProfile.READ_ONLY


@pytest.mark.parametrize(
    ("environ", "tmpdir"),
    [({"TMPDIR": "/var/tmp/x"}, "/var/tmp/x"), ({"TMPDIR": "rel"}, None), ({}, None)],
    ids=["absolute", "relative-ignored", "unset"],
)
def test_from_environment_reads_tmpdir(environ: dict[str, str], tmpdir: str | None) -> None:
    policy = SandboxPolicy.from_environment("workspace-write", environ=environ)
    assert policy.tmpdir == tmpdir
    assert policy.roots(CWD) == ("/w", "/tmp", *([tmpdir] if tmpdir else []))


def test_from_environment_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", "/var/folders/t")
    assert SandboxPolicy.from_environment().tmpdir == "/var/folders/t"
    monkeypatch.delenv("TMPDIR")
    assert SandboxPolicy.from_environment().tmpdir is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"writable_roots": ("relative/root",)}, "is not an absolute path"),
        ({"read_only_subpaths": ("/abs",)}, "must be relative to a root"),
        ({"read_only_subpaths": ("./",)}, "must be relative to a root"),
    ],
    ids=["relative-root", "absolute-carve-out", "empty-carve-out"],
)
def test_policy_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, **kwargs)  # type: ignore[arg-type]


# --- is_writable: lexical, no disk access ---------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "path", "writable"),
    [
        (workspace(), "/w/a.txt", True),
        (workspace(), "a.txt", True),
        (workspace(), "/w", True),
        (workspace(), "/w/deep/er/file", True),
        (workspace(), "/x", False),
        (workspace(), "/w2/a.txt", False),
        (workspace(), "sub/../../x", False),
        (workspace(), "./a/./b", True),
        (workspace(), "/w/../w/a", True),
        (workspace(), "/w/.git", False),
        (workspace(), "/w/.git/config", False),
        (workspace(), ".codex/config.toml", False),
        (workspace(), ".agents/a.md", False),
        (workspace(), "sub/../.git/x", False),
        (workspace(), ".gitignore", True),
        (workspace(), "sub/.git/config", True),
        (workspace("/extra"), "/extra/.git/x", False),
        (workspace("/extra"), "/extra/x", True),
        (workspace(include_tmp=True), "/tmp/x", True),
        (workspace(include_tmp=True), "/tmp/.git/x", False),
        (workspace(tmpdir="/var/t"), "/var/t/x", True),
        (workspace(), "/tmp/x", False),
        (workspace("/w/.codex"), "/w/.codex/config.toml", True),
        (workspace("/w/.codex"), "/w/.codex/.git/x", False),
        (SandboxPolicy(PermissionProfile.READ_ONLY), "/w/a.txt", False),
        (SandboxPolicy(PermissionProfile.DANGER_FULL_ACCESS), "/etc/passwd", True),
        (SandboxPolicy(PermissionProfile.DANGER_FULL_ACCESS), "/w/.git/config", True),
        (SandboxPolicy(PermissionProfile.EXTERNAL), "/w/.codex/config.toml", True),
        (
            SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, read_only_subpaths=()),
            "/w/.git/config",
            True,
        ),
    ],
    ids=[
        "inside",
        "relative-inside",
        "root-itself",
        "deep",
        "outside",
        "sibling-with-common-prefix",
        "dotdot-leaves-root",
        "dot-segments-stay",
        "out-and-back",
        "git-dir-itself",
        "git-config",
        "missing-codex-config",
        "agents",
        "dotdot-into-git",
        "gitignore-is-not-git",
        "nested-git-is-not-carved",
        "extra-root-carve-out",
        "extra-root",
        "slash-tmp",
        "slash-tmp-carve-out",
        "tmpdir-env",
        "tmp-excluded",
        "configured-root-beats-carve-out",
        "carve-out-under-configured-root",
        "read-only",
        "danger-anywhere",
        "danger-no-carve-outs",
        "external-no-carve-outs",
        "carve-outs-configurable",
    ],
)
def test_is_writable(policy: SandboxPolicy, path: str, writable: bool) -> None:
    assert policy.is_writable(path, CWD) is writable


def test_project_carve_out_wins_over_an_enclosing_tmp_root() -> None:
    # The project lives under /tmp: /tmp alone would allow /tmp/p/.git, the project root's
    # carve-out is more specific and keeps it read-only.
    policy = workspace(include_tmp=True)
    assert not policy.is_writable("/tmp/p/.git/config", "/tmp/p")
    assert policy.is_writable("/tmp/p/a.txt", "/tmp/p")
    assert policy.is_writable("/tmp/other/.git/config", "/tmp/p")  # a .git deeper under /tmp


def test_default_carve_outs() -> None:
    assert DEFAULT_READ_ONLY_SUBPATHS == (".git", ".agents", ".codex")
    assert SandboxPolicy().read_only_subpaths == DEFAULT_READ_ONLY_SUBPATHS


@pytest.mark.parametrize(
    ("policy", "path", "reason"),
    [
        (workspace(include_tmp=True), "/x", "outside the writable roots /w, /tmp"),
        (workspace(), "/w/.git/config", "inside the read-only path /w/.git"),
        (
            SandboxPolicy(PermissionProfile.READ_ONLY),
            "/w/a",
            "the sandbox is read-only (no writable roots)",
        ),
        (workspace(), "/w/a", None),
    ],
    ids=["outside", "carve-out", "read-only", "allowed"],
)
def test_denial_reason(policy: SandboxPolicy, path: str, reason: str | None) -> None:
    assert policy.denial_reason(path, CWD) == reason


# --- SandboxDenied --------------------------------------------------------------------------------


def test_sandbox_denied_is_an_eperm_permission_error() -> None:
    exc = SandboxDenied("/x", "outside the writable roots /w, /tmp")
    assert isinstance(exc, PermissionError)
    assert exc.errno == errno.EPERM
    assert exc.filename == "/x"
    assert str(exc) == "sandbox: writing /x is not permitted: outside the writable roots /w, /tmp"
    assert format_io_error(exc) == "Operation not permitted (os error 1)"
    copy = pickle.loads(pickle.dumps(exc))
    assert (type(copy), str(copy), copy.errno) == (SandboxDenied, str(exc), errno.EPERM)


# --- canonical_path (the addition to fs.py the view relies on) ------------------------------------


def test_memory_canonical_path() -> None:
    fs = MemoryFilesystem({"/w/real/f.txt": "x", "/out/t.txt": "t"})
    fs.add_symlink("/w/abs", "/out")
    fs.add_symlink("/w/rel", "../out")
    fs.add_symlink("/w/chain", "abs")
    fs.add_symlink("/w/dangling", "/nowhere/x")
    fs.add_symlink("/w/loop", "loop")
    assert fs.canonical_path("/w/real/f.txt") == "/w/real/f.txt"
    assert fs.canonical_path("/w/missing/a/b") == "/w/missing/a/b"
    assert fs.canonical_path("/w/abs/t.txt") == "/out/t.txt"
    assert fs.canonical_path("/w/rel/new/dir") == "/out/new/dir"
    assert fs.canonical_path("/w/chain/t.txt") == "/out/t.txt"
    assert fs.canonical_path("/w/dangling") == "/nowhere/x"
    assert fs.canonical_path("/w/real/f.txt/under-a-file") == "/w/real/f.txt/under-a-file"
    assert fs.canonical_path("/w/loop").startswith("/w")  # ends without hanging


def test_canonical_path_on_both_filesystems(ws: Workspace) -> None:
    ws.put("real/f.txt", "x")
    ws.put("out/t.txt", "t")
    ws.symlink("link", "out")
    fs = ws.fs
    assert isinstance(fs, LocalFilesystem | MemoryFilesystem)
    assert fs.canonical_path(ws.path("link/t.txt")) == ws.path("out/t.txt")
    assert fs.canonical_path(ws.path("link/new/x")) == ws.path("out/new/x")
    assert fs.canonical_path(ws.path("real/f.txt")) == ws.path("real/f.txt")


# --- SandboxedFilesystem on disk and in memory ----------------------------------------------------


class Sandbox:
    """A project directory and an outside directory next to it, in one workspace."""

    def __init__(self, ws: Workspace, policy: SandboxPolicy | None = None) -> None:
        self.ws = ws
        ws.mkdir("project")
        ws.mkdir("outside")
        self.cwd = ws.path("project")
        self.fs = SandboxedFilesystem(ws.fs, policy or workspace(), self.cwd)

    def p(self, rel: str) -> str:
        return f"{self.cwd}/{rel}"

    def o(self, rel: str) -> str:
        return self.ws.path(f"outside/{rel}")


def denied(call: Callable[..., object], *args: object) -> SandboxDenied:
    with pytest.raises(SandboxDenied) as info:
        call(*args)
    assert info.value.errno == errno.EPERM
    return info.value


def test_writes_inside_the_root_pass(ws: Workspace) -> None:
    sb = Sandbox(ws)
    sb.fs.create_dirs(sb.p("a/b"))
    sb.fs.write_bytes(sb.p("a/b/c.txt"), b"c\n")
    assert ws.get("project/a/b/c.txt") == b"c\n"
    sb.fs.remove_file(sb.p("a/b/c.txt"))
    assert not ws.exists("project/a/b/c.txt")
    assert sb.fs.denials == []


def test_writes_outside_the_root_are_denied(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("outside/keep.txt", "keep\n")
    exc = denied(sb.fs.write_bytes, sb.o("new.txt"), b"x")
    assert str(exc) == (
        f"sandbox: writing {sb.o('new.txt')} is not permitted: outside the writable roots {sb.cwd}"
    )
    denied(sb.fs.create_dirs, sb.o("dir"))
    denied(sb.fs.remove_file, sb.o("keep.txt"))
    assert sb.fs.denials == [sb.o("new.txt"), sb.o("dir"), sb.o("keep.txt")]
    assert ws.tree() == {
        "outside": None,
        "outside/keep.txt": b"keep\n",
        "project": None,
    }


def test_reads_and_metadata_pass_through_everywhere(ws: Workspace) -> None:
    ws.put("outside/r.txt", "read me\n")
    sb = Sandbox(ws, SandboxPolicy(PermissionProfile.READ_ONLY))
    assert sb.fs.read_bytes(sb.o("r.txt")) == b"read me\n"
    assert sb.fs.metadata(sb.o("r.txt")).kind == "file"
    assert sb.fs.metadata(sb.cwd).kind == "dir"


def test_write_through_a_symlinked_directory_pointing_outside_is_denied(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.symlink("project/linkdir", ws.path("outside"))
    exc = denied(sb.fs.write_bytes, sb.p("linkdir/x.txt"), b"x")
    assert f"it resolves to {sb.o('x.txt')}, outside the writable roots" in str(exc)
    denied(sb.fs.create_dirs, sb.p("linkdir/sub"))
    assert not ws.exists("outside/x.txt") and not ws.exists("outside/sub")


def test_write_to_a_symlink_file_pointing_outside_is_denied(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("outside/target.txt", "target\n")
    ws.symlink("project/link.txt", "../outside/target.txt")
    denied(sb.fs.write_bytes, sb.p("link.txt"), b"overwritten\n")
    assert ws.get("outside/target.txt") == b"target\n"


def test_removing_a_symlink_pointing_outside_is_allowed(ws: Workspace) -> None:
    # Unlinking changes the directory holding the link, not the target.
    sb = Sandbox(ws)
    ws.put("outside/target.txt", "target\n")
    ws.symlink("project/link.txt", "../outside/target.txt")
    sb.fs.remove_file(sb.p("link.txt"))
    assert not ws.exists("project/link.txt")
    assert ws.get("outside/target.txt") == b"target\n"


def test_removing_through_a_symlinked_directory_is_denied(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("outside/f.txt", "f\n")
    ws.symlink("project/linkdir", "../outside")
    denied(sb.fs.remove_file, sb.p("linkdir/f.txt"))
    assert ws.get("outside/f.txt") == b"f\n"


def test_symlink_pointing_inside_the_root_is_allowed(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("project/real.txt", "old\n")
    ws.symlink("project/alias.txt", "real.txt")
    sb.fs.write_bytes(sb.p("alias.txt"), b"new\n")
    assert ws.get("project/real.txt") == b"new\n"


def test_symlink_from_outside_into_the_root_is_denied_lexically(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("project/real.txt", "old\n")
    ws.symlink("outside/in.txt", "../project/real.txt")
    denied(sb.fs.write_bytes, sb.o("in.txt"), b"x")


@pytest.mark.parametrize("carve_out", [".git", ".codex", ".agents"])
def test_carve_outs_under_the_root_are_denied(ws: Workspace, carve_out: str) -> None:
    sb = Sandbox(ws)
    ws.put(f"project/{carve_out}/existing", "e\n")
    exc = denied(sb.fs.write_bytes, sb.p(f"{carve_out}/existing"), b"x")
    assert str(exc).endswith(f"inside the read-only path {sb.p(carve_out)}")
    denied(sb.fs.create_dirs, sb.p(f"{carve_out}/new/dir"))
    denied(sb.fs.remove_file, sb.p(f"{carve_out}/existing"))
    assert ws.get(f"project/{carve_out}/existing") == b"e\n"


def test_missing_carve_out_cannot_be_created(ws: Workspace) -> None:
    sb = Sandbox(ws)
    denied(sb.fs.create_dirs, sb.p(".codex"))
    denied(sb.fs.write_bytes, sb.p(".codex"), b"a file named like the carve-out")
    assert not ws.exists("project/.codex")


def test_symlinked_carve_out_is_denied_both_ways(ws: Workspace) -> None:
    # .git -> gitdir: writing gitdir/x resolves into the carve-out.
    sb = Sandbox(ws)
    ws.mkdir("project/gitdir")
    ws.symlink("project/.git", "gitdir")
    denied(sb.fs.write_bytes, sb.p(".git/config"), b"x")
    exc = denied(sb.fs.write_bytes, sb.p("gitdir/config"), b"x")
    assert "resolves to" in str(exc)


@pytest.mark.parametrize("view", ["sandbox", "granted", "unconfined"])
def test_every_view_is_the_one_guard_with_its_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, view: str
) -> None:
    """Each attempt's view, and recovery's through the same confinement, is the one
    ``GuardedFilesystem`` asking its rules: what the journal's ``check`` refuses, the view
    refuses, before anything is written (the state folder under every view; outside the
    roots or the grants where they apply); a symlink on the way where no-follow applies."""
    ws = Workspace("local", tmp_path)
    ws.mkdir("project")
    monkeypatch.setenv("APPLYPATCH_STATE_DIR", ws.path("project/st"))
    full = view == "unconfined"
    policy = SandboxPolicy(PermissionProfile.DANGER_FULL_ACCESS) if full else workspace()
    confinement = Confinement.of(
        policy, ws.path("project"), sandboxed=view == "sandbox", approved=[ws.path("project/a")]
    )
    assert confinement.view == view
    attempt = confinement.wrap(ws.fs)
    recovery = RecoveryFilesystem(LocalFilesystem(), confinement.check(ws.fs))
    assert type(attempt) is GuardedFilesystem and isinstance(recovery, GuardedFilesystem)
    refused = ["project/st/key"] if full else ["project/st/key", "elsewhere.txt"]
    for rel in refused:
        with pytest.raises(SandboxDenied) as raised:
            confinement.check(ws.fs)(ws.path(rel), "writing")
        for fs in (attempt, recovery):
            assert str(denied(fs.write_bytes, ws.path(rel), b"x")) == str(raised.value)
        assert not ws.exists(rel)
    assert attempt.denials == [ws.path(rel) for rel in refused]
    attempt.write_bytes(ws.path("project/a"), b"a")  # allowed by every view
    assert ws.get("project/a") == b"a"
    ws.mkdir("project/real")
    ws.symlink("project/link", "real")
    views = (attempt, recovery) if view == "granted" else (recovery,)  # no-follow applies
    for fs in views:
        with pytest.raises(SymlinkRefused):
            fs.write_bytes(ws.path("project/link/a"), b"x")
    assert not ws.exists("project/real/a")


@pytest.mark.parametrize("variable", ["APPLYPATCH_STATE_DIR", "XDG_STATE_HOME", "HOME"])
def test_the_state_folder_is_refused_under_every_root_even_when_approved(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """Issue 21 item 1: the state folder (crash journals, their key) lies in the root when the
    notebook runs in ``$HOME``; wherever the variable that places it points, no write there
    passes: not lexically, not through a symlink, not as an approved path, not with the state
    folder itself configured as a writable root, not in an approved retry's granted view."""
    for name in ("APPLYPATCH_STATE_DIR", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    ws.mkdir("project")
    monkeypatch.setenv("HOME", ws.path("elsewhere"))
    monkeypatch.setenv(variable, ws.path("project/st" if variable != "HOME" else "project"))
    state = {
        "APPLYPATCH_STATE_DIR": "project/st",
        "XDG_STATE_HOME": "project/st/applypatch_ext",
        "HOME": "project/.local/state/applypatch_ext",
    }[variable]
    journal = f"{ws.path(state)}/journals/0123.journal"
    approved = [journal, ws.path(f"{state}/key")]
    policy = workspace(ws.path(state))  # even configured as a root
    sb = SandboxedFilesystem(ws.fs, policy, ws.path("project"), approved=approved)
    calls: list[tuple[Callable[..., object], tuple[object, ...]]] = [
        (sb.write_bytes, (journal, b"x")),
        (sb.create_dirs, (posixpath.dirname(journal),)),
        (sb.remove_file, (approved[1],)),
    ]
    for call, args in calls:
        exc = denied(call, *args)
        assert f"inside {ws.path(state)}, applypatch_ext's state folder" in str(exc)
    ws.symlink("project/alias", state.removeprefix("project/"))
    exc = denied(sb.write_bytes, ws.path("project/alias/journals/0123.journal"), b"x")
    assert f"it resolves to {journal}, inside {ws.path(state)}" in str(exc)
    granted = GrantedFilesystem(ws.fs, approved)
    denied(granted.write_bytes, journal, b"x")
    assert "applypatch_ext's state folder" in str(denied(granted.create_dirs, ws.path(state)))
    assert policy.denial_reason(journal, ws.path("project")) == (
        f"inside {ws.path(state)}, applypatch_ext's state folder (its crash journals and their key)"
    )
    assert not ws.exists(f"{state}/journals")


def test_tmpdir_is_writable_in_workspace_write(ws: Workspace) -> None:
    ws.mkdir("tmp")
    sb = Sandbox(ws, workspace(tmpdir=ws.path("tmp")))
    sb.fs.write_bytes(ws.path("tmp/scratch.txt"), b"s\n")
    assert ws.get("tmp/scratch.txt") == b"s\n"
    denied(sb.fs.write_bytes, sb.o("x"), b"x")


def test_slash_tmp_is_writable_in_workspace_write() -> None:
    fs = MemoryFilesystem({"/tmp/.keep": "", "/w/a.txt": "a"})
    view = SandboxedFilesystem(fs, SandboxPolicy(PermissionProfile.WORKSPACE_WRITE), "/w")
    view.write_bytes("/tmp/scratch.txt", b"s")
    assert fs.read_bytes("/tmp/scratch.txt") == b"s"
    excluded = SandboxedFilesystem(fs, workspace(), "/w")
    denied(excluded.write_bytes, "/tmp/scratch.txt", b"s")


def test_everything_is_denied_in_read_only(ws: Workspace) -> None:
    ws.put("project/a.txt", "a\n")
    ws.mkdir("tmp")
    sb = Sandbox(ws, SandboxPolicy(PermissionProfile.READ_ONLY, tmpdir=ws.path("tmp")))
    before = ws.tree()
    exc = denied(sb.fs.write_bytes, sb.p("a.txt"), b"x")
    assert str(exc).endswith("the sandbox is read-only (no writable roots)")
    denied(sb.fs.write_bytes, sb.p("new.txt"), b"x")
    denied(sb.fs.create_dirs, sb.p("d"))
    denied(sb.fs.remove_file, sb.p("a.txt"))
    denied(sb.fs.write_bytes, ws.path("tmp/x"), b"x")
    assert ws.tree() == before
    assert len(sb.fs.denials) == 5


@pytest.mark.parametrize("profile", ["danger-full-access", "external"])
def test_everything_is_allowed_with_full_disk_write(ws: Workspace, profile: str) -> None:
    sb = Sandbox(ws, SandboxPolicy(PermissionProfile(profile)))
    ws.put("outside/target.txt", "t\n")
    ws.symlink("project/link.txt", "../outside/target.txt")
    sb.fs.write_bytes(sb.o("x.txt"), b"x")
    sb.fs.create_dirs(sb.p(".git/hooks"))
    sb.fs.write_bytes(sb.p(".git/config"), b"c")
    sb.fs.write_bytes(sb.p("link.txt"), b"via link\n")
    sb.fs.remove_file(sb.o("x.txt"))
    assert ws.get("outside/target.txt") == b"via link\n"
    assert ws.get("project/.git/config") == b"c"
    assert sb.fs.denials == []


class Opaque:
    """A filesystem wrapper with neither ``canonical_path`` nor ``inner``."""

    def __init__(self, wrapped: MemoryFilesystem) -> None:
        self._wrapped = wrapped

    def read_bytes(self, path: str) -> bytes:
        return self._wrapped.read_bytes(path)

    def write_bytes(self, path: str, data: bytes) -> None:
        self._wrapped.write_bytes(path, data)

    def create_dirs(self, path: str) -> None:
        self._wrapped.create_dirs(path)

    def remove_file(self, path: str, *, move_source: bool = False) -> None:
        self._wrapped.remove_file(path, move_source=move_source)

    def remove_dir(self, path: str) -> None:
        self._wrapped.remove_dir(path)

    def metadata(self, path: str, *, follow_symlinks: bool = True) -> FileMetadata:
        return self._wrapped.metadata(path, follow_symlinks=follow_symlinks)


def escape_fs() -> MemoryFilesystem:
    mem = MemoryFilesystem({"/out/t.txt": "t"})
    mem.create_dirs("/w")
    mem.add_symlink("/w/link", "/out")
    return mem


def test_view_without_a_resolver_checks_lexically_only() -> None:
    mem = escape_fs()
    view = SandboxedFilesystem(Opaque(mem), workspace(), "/w")
    view.write_bytes("/w/link/t.txt", b"escaped")  # nothing resolves the link
    assert mem.read_bytes("/out/t.txt") == b"escaped"
    denied(view.write_bytes, "/out/t.txt", b"x")


def test_view_takes_an_explicit_resolver() -> None:
    mem = escape_fs()
    view = SandboxedFilesystem(Opaque(mem), workspace(), "/w", canonical_path=mem.canonical_path)
    denied(view.write_bytes, "/w/link/t.txt", b"x")
    assert mem.read_bytes("/out/t.txt") == b"t"


def test_view_finds_the_resolver_through_wrappers() -> None:
    # A sandbox over a fault injector over the real tree still resolves symlinks.
    mem = escape_fs()
    view = SandboxedFilesystem(FaultyFilesystem(mem, []), workspace(), "/w")
    denied(view.write_bytes, "/w/link/t.txt", b"x")
    assert mem.read_bytes("/out/t.txt") == b"t"


def test_local_filesystem_view_uses_realpath(tmp_path: os.PathLike[str]) -> None:
    root = os.path.realpath(tmp_path)
    os.mkdir(f"{root}/project")
    os.mkdir(f"{root}/outside")
    os.symlink(f"{root}/outside", f"{root}/project/escape")
    view = SandboxedFilesystem(LocalFilesystem(), workspace(), f"{root}/project")
    denied(view.write_bytes, f"{root}/project/escape/x", b"x")
    assert os.listdir(f"{root}/outside") == []


# --- apply_hunks through the view -----------------------------------------------------------------


def run(sb: Sandbox, body: str) -> ApplyOutcome:
    parsed = parse_patch(f"*** Begin Patch\n{body}\n*** End Patch")
    return apply_hunks(parsed.hunks, sb.cwd, sb.fs)


def test_apply_stops_at_the_first_denied_write(ws: Workspace) -> None:
    sb = Sandbox(ws)
    out = run(
        sb,
        "*** Add File: first.txt\n+1\n"
        "*** Add File: ../outside/second.txt\n+2\n"
        "*** Add File: third.txt\n+3",
    )
    assert isinstance(out.error, IoError)
    assert str(out.error) == f"Failed to write file {sb.o('second.txt')}"
    assert isinstance(out.error.cause, SandboxDenied)
    assert out.error.cause.errno == errno.EPERM
    assert out.delta == AppliedPatchDelta((AppliedAdd(sb.p("first.txt"), "1\n"),), exact=False)
    assert out.affected.added == ("first.txt",)
    assert sb.fs.denials == [sb.o("second.txt")]
    assert ws.tree() == {"outside": None, "project": None, "project/first.txt": b"1\n"}


def test_apply_move_out_of_the_root_keeps_the_source(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("project/a.txt", "x\n")
    out = run(sb, "*** Update File: a.txt\n*** Move to: ../outside/b.txt\n@@\n-x\n+y")
    assert isinstance(out.error, IoError) and isinstance(out.error.cause, SandboxDenied)
    assert ws.get("project/a.txt") == b"x\n"
    assert not ws.exists("outside/b.txt")


def test_apply_into_new_directories_inside_the_root_passes(ws: Workspace) -> None:
    sb = Sandbox(ws)
    out = run(sb, "*** Add File: new/deep/dir/f.txt\n+f")
    assert out.ok
    assert ws.get("project/new/deep/dir/f.txt") == b"f\n"


def test_apply_into_a_new_directory_under_a_symlink_out_is_denied(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.symlink("project/escape", "../outside")
    out = run(sb, "*** Add File: escape/new/f.txt\n+f")
    assert isinstance(out.error, IoError) and isinstance(out.error.cause, SandboxDenied)
    assert ws.tree() == {
        "outside": None,
        "project": None,
        "project/escape": ("symlink", "../outside"),
    }


def test_apply_delete_in_a_carve_out_is_denied(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.put("project/.git/HEAD", "ref\n")
    out = run(sb, "*** Delete File: .git/HEAD")
    assert isinstance(out.error, IoError)
    assert str(out.error) == f"Failed to delete file {sb.p('.git/HEAD')}"
    assert isinstance(out.error.cause, SandboxDenied)
    assert out.delta == AppliedPatchDelta()
    assert ws.get("project/.git/HEAD") == b"ref\n"


def test_remove_dir_is_confined_like_remove_file(ws: Workspace) -> None:
    sb = Sandbox(ws)
    ws.mkdir("project/empty")
    ws.mkdir("outside/empty")
    ws.mkdir("project/.git/empty")
    sb.fs.remove_dir(sb.p("empty"))
    assert not ws.exists("project/empty")
    denied(sb.fs.remove_dir, sb.o("empty"))
    denied(sb.fs.remove_dir, sb.p(".git/empty"))
    assert ws.exists("outside/empty") and ws.exists("project/.git/empty")


def test_granted_view_changes_only_the_granted_paths(tmp_path: os.PathLike[str]) -> None:
    """The unsandboxed retry's view, on the real disk: a granted file may be written and
    removed, its missing parents created; any other change is an EPERM naming the grant."""
    root = os.fspath(tmp_path)
    granted = f"{root}/out/new/evil.txt"
    other = f"{root}/out/other.txt"
    os.makedirs(f"{root}/out")
    with open(other, "w") as handle:
        handle.write("other\n")
    fs = GrantedFilesystem(LocalFilesystem(), [granted, "a.txt"], cwd=root)
    fs.create_dirs(f"{root}/out/new")
    fs.write_bytes(granted, b"x\n")
    fs.write_bytes(f"{root}/a.txt", b"a\n")  # granted as "a.txt", relative to cwd
    fs.remove_file(f"{root}/a.txt")
    for call, path in (
        (lambda p: fs.write_bytes(p, b"y"), other),
        (fs.remove_file, other),
        (fs.create_dirs, f"{root}/elsewhere"),
        (fs.remove_dir, f"{root}/out/new/evil.txt/x"),
    ):
        with pytest.raises(SandboxDenied) as info:
            call(path)
        assert info.value.errno == errno.EPERM
        assert NOT_GRANTED in str(info.value) and granted in str(info.value)
    assert fs.denials == [other, other, f"{root}/elsewhere", f"{root}/out/new/evil.txt/x"]
    with open(granted) as handle:
        assert handle.read() == "x\n"
    with open(other) as handle:
        assert handle.read() == "other\n"
    assert not os.path.exists(f"{root}/a.txt") and not os.path.exists(f"{root}/elsewhere")


def test_granted_view_under_no_follow_refuses_a_granted_path_through_a_link(
    tmp_path: os.PathLike[str],
) -> None:
    """As the pipeline stacks them: a lexical grant cannot be redirected by a symlink."""
    root = os.fspath(tmp_path)
    os.makedirs(f"{root}/real")
    os.symlink(f"{root}/real", f"{root}/link")
    fs = NoFollowFilesystem(GrantedFilesystem(LocalFilesystem(), [f"{root}/link/x.txt"]))
    with pytest.raises(PermissionError):
        fs.write_bytes(f"{root}/link/x.txt", b"x")
    assert os.listdir(f"{root}/real") == []
