"""Path confinement in the sandboxed profiles (issue 7, item 3), through the whole pipeline.

Each hostile patch -- ``..``, absolute paths, a path through a symlinked directory, a symlink as
the target file, a dangling symlink, a move destination outside the roots or through a link,
the ``.git`` / ``.codex`` carve-outs, NUL in a path, very long paths, a path that is a
directory, the folded-map gap -- runs in the workspace-write and read-only profiles, with the
``never`` policy and with an approver that approves the first request but declines the
escalation, in both duplicate modes, on the real disk and in memory. Every time: nothing
outside the writable roots changes, and the call says why (``patch rejected: ...``, a
verification error, or a failure whose ``error`` names the sandbox rule or the OS error).

Unconfined on purpose, and pinned here so that SECURITY.md stays true: ``danger-full-access``
and ``external`` write wherever the patch says (the reference behaviour); an approved
escalation retries without the sandbox; a hard link inside the root to a file outside is
written through; and a symlink swapped in between the sandbox's check and the write is followed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from applypatch_ext.core.apply.fs import Filesystem, LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.verify import DuplicatePaths
from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.safety import (
    PATCH_REJECTED_OUTSIDE_PROJECT_REASON,
    PATCH_REJECTED_READ_ONLY_REASON,
)
from applypatch_ext.core.turn.turn import Turn

from ._support import FIGURES, Tree, disk_tree, memory_tree

OUTSIDE_FILES = {"target.txt": "outside target\n", "existing.txt": "outside existing\n"}


class Env:
    """``root`` (the cwd, the only writable root) next to ``outside``, in memory or on disk.

    The root holds ``a.txt``, a directory ``dir``, ``.git/config``, and symlinks pointing out:
    ``link_dir`` (to the outside directory), ``link_file.txt`` (to ``outside/target.txt``) and
    ``dangling.txt`` (to ``outside/new.txt``, which does not exist).
    """

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        if kind == "memory":
            base = "/x"
            self.memory: MemoryFilesystem | None = MemoryFilesystem()
            self.fs: Filesystem = self.memory
        else:
            base = str(tmp_path.resolve())
            self.memory = None
            self.fs = LocalFilesystem()
        self.root = f"{base}/root"
        self.outside = f"{base}/outside"
        for rel, text in OUTSIDE_FILES.items():
            self.put(f"{self.outside}/{rel}", text)
        self.put(f"{self.root}/a.txt", "a\n")
        self.put(f"{self.root}/dir/inner.txt", "inner\n")
        self.put(f"{self.root}/.git/config", "[core]\n")
        self.link(f"{self.root}/link_dir", self.outside)
        self.link(f"{self.root}/link_file.txt", f"{self.outside}/target.txt")
        self.link(f"{self.root}/dangling.txt", "../outside/new.txt")

    def put(self, path: str, text: str) -> None:
        if self.memory is not None:
            self.memory.add_file(path, text)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).write_text(text)

    def link(self, path: str, target: str) -> None:
        if self.memory is not None:
            self.memory.add_symlink(path, target)
        else:
            os.symlink(target, path)

    def tree(self, where: str) -> Tree:
        if self.memory is not None:
            return memory_tree(self.memory, where)
        return disk_tree(where)

    def run(
        self,
        body: str,
        profile: PermissionProfile,
        approver: Callable[[ApplyPatchApprovalRequest], Decision] | Decision | str,
        *,
        policy: str = "on-request",
        duplicates: DuplicatePaths = DuplicatePaths.REJECT,
    ) -> CallResult:
        sandbox = SandboxPolicy(profile, include_tmp=False, include_tmpdir_env=False)
        options = PipelineOptions(
            approval_policy=ApprovalPolicy(policy), sandbox=sandbox, duplicates=duplicates
        )
        text = f"*** Begin Patch\n{body}\n*** End Patch"
        return Turn(self.root, options=options, filesystem=self.fs).run(text, approver)


@pytest.fixture(params=["local", "memory"])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Env:
    return Env(request.param, tmp_path)


@dataclass(frozen=True)
class Hostile:
    body: str  # {out} stands for the outside directory's absolute path
    #: "outside" (lexically), "escapes" (through a symlink), "carve-out" (.git, .codex),
    #: "error" (refused by verification), "fs" (inside the root; the filesystem refuses it)
    how: str


LONG_NAME = "n" * 300  # longer than NAME_MAX (255)
LONG_PATH = "/".join(["d" * 200] * 25) + "/f.txt"  # longer than PATH_MAX (4096)

HOSTILE = {
    "dotdot-add": Hostile("*** Add File: ../outside/evil.txt\n+evil", "outside"),
    "dotdot-deep": Hostile("*** Add File: dir/../../outside/evil.txt\n+evil", "outside"),
    "parent-of-root": Hostile("*** Add File: ..\n+evil", "outside"),
    "absolute-add": Hostile("*** Add File: {out}/evil.txt\n+evil", "outside"),
    "absolute-update": Hostile(
        "*** Update File: {out}/target.txt\n@@\n-outside target\n+pwned", "outside"
    ),
    "absolute-delete": Hostile("*** Delete File: {out}/existing.txt", "outside"),
    "link-dir-add": Hostile("*** Add File: link_dir/evil.txt\n+evil", "escapes"),
    "link-dir-nested-new-dirs": Hostile(
        "*** Add File: link_dir/new/deeper/evil.txt\n+evil", "escapes"
    ),
    "link-dir-update": Hostile(
        "*** Update File: link_dir/existing.txt\n@@\n-outside existing\n+pwned", "escapes"
    ),
    "link-dir-delete": Hostile("*** Delete File: link_dir/existing.txt", "escapes"),
    "link-file-update": Hostile(
        "*** Update File: link_file.txt\n@@\n-outside target\n+pwned", "escapes"
    ),
    "link-file-add": Hostile("*** Add File: link_file.txt\n+pwned", "escapes"),
    "dangling-link-add": Hostile("*** Add File: dangling.txt\n+evil", "escapes"),
    "move-dest-dotdot": Hostile(
        "*** Update File: a.txt\n*** Move to: ../outside/moved.txt\n@@\n-a\n+b", "outside"
    ),
    "move-dest-absolute": Hostile(
        "*** Update File: a.txt\n*** Move to: {out}/moved.txt\n@@\n-a\n+b", "outside"
    ),
    "move-dest-through-link": Hostile(
        "*** Update File: a.txt\n*** Move to: link_dir/moved.txt\n@@\n-a\n+b", "escapes"
    ),
    "carve-out-git-hook": Hostile("*** Add File: .git/hooks/pre-commit\n+evil", "carve-out"),
    "carve-out-codex-move": Hostile(
        "*** Update File: a.txt\n*** Move to: .codex/config.toml\n@@\n-a\n+b", "carve-out"
    ),
    "nul-in-path": Hostile("*** Add File: a\x00b.txt\n+x", "error"),
    "nul-in-move": Hostile("*** Update File: a.txt\n*** Move to: x\x00y\n@@\n-a\n+b", "error"),
    "long-name": Hostile(f"*** Add File: {LONG_NAME}\n+x", "fs"),
    "long-path": Hostile(f"*** Add File: {LONG_PATH}\n+x", "fs"),
    "directory-add": Hostile("*** Add File: dir\n+x", "fs"),
    "directory-update": Hostile("*** Update File: dir\n@@\n-x\n+y", "error"),
    "directory-delete": Hostile("*** Delete File: dir", "error"),
    "root-itself": Hostile("*** Add File: .\n+x", "fs"),
    # The folded-map gap (docs/behaviour.md §7.4): in fold mode the map hides the move destination.
    "fold-gap": Hostile(
        "*** Update File: a.txt\n*** Move to: ../outside/evil.txt\n@@\n-a\n+b\n"
        "*** Add File: a.txt\n+z",
        "outside",
    ),
}

PROFILES = [PermissionProfile.WORKSPACE_WRITE, PermissionProfile.READ_ONLY]


def decline_everything(request: ApplyPatchApprovalRequest) -> Decision:
    """The user approves nothing: neither a write outside the roots nor a retry unsandboxed."""
    return Decision.DECLINE


def check_refused(env: Env, name: str, result: CallResult, profile: PermissionProfile) -> None:
    """The status and the message fit the case; nothing was written where it may not be."""
    FIGURES["hostile patches run"] += 1
    hostile = HOSTILE[name]
    assert result.status in (
        CallStatus.REJECTED,
        CallStatus.ERROR,
        CallStatus.FAILED,
        CallStatus.DECLINED,
    ), (result.status, result.output)
    message = result.error or ""
    assert message, result
    if result.status == CallStatus.DECLINED:
        assert result.output == "patch rejected by user"
    elif result.status == CallStatus.REJECTED:
        reason = (
            PATCH_REJECTED_READ_ONLY_REASON
            if profile is PermissionProfile.READ_ONLY
            else PATCH_REJECTED_OUTSIDE_PROJECT_REASON
        )
        assert result.output == f"patch rejected: {reason}"
        assert hostile.how != "error"
    elif result.status == CallStatus.ERROR:
        assert result.output.startswith("apply_patch verification failed: ")
        assert hostile.how in ("error", "outside") or name == "fold-gap", message
    else:
        assert result.stderr.startswith("Failed to ")
        if hostile.how in ("escapes", "outside", "carve-out") or (
            profile is PermissionProfile.READ_ONLY
        ):
            assert "sandbox: " in message and "is not permitted: " in message, message
        else:
            assert "(os error " in message or "is not permitted" in message, message
    FIGURES[f"hostile patches {result.status}"] += 1


@pytest.mark.parametrize("duplicates", list(DuplicatePaths), ids=lambda d: f"dup-{d}")
@pytest.mark.parametrize("profile", PROFILES, ids=str)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_patch_writes_nothing_outside(
    env: Env, name: str, profile: PermissionProfile, duplicates: DuplicatePaths
) -> None:
    body = HOSTILE[name].body.replace("{out}", env.outside)
    outside_before = env.tree(env.outside)
    for policy, approver in (
        ("never", Decision.APPROVE),
        ("on-request", decline_everything),
    ):
        result = env.run(body, profile, approver, policy=policy, duplicates=duplicates)
        check_refused(env, name, result, profile)
        assert env.tree(env.outside) == outside_before, (policy, result.output)


def test_the_fold_gap_is_closed_by_the_sandbox_view(env: Env) -> None:
    """In fold mode safety never sees the move destination, yet the write is denied."""
    body = HOSTILE["fold-gap"].body
    result = env.run(body, PermissionProfile.WORKSPACE_WRITE, "approve", policy="never")
    assert result.status == CallStatus.ERROR
    assert result.error == f"invalid patch: multiple operations target {env.root}/a.txt"
    result = env.run(
        body,
        PermissionProfile.WORKSPACE_WRITE,
        "approve",
        policy="never",
        duplicates=DuplicatePaths.FOLD,
    )
    assert result.status == CallStatus.FAILED
    assert result.safety is not None and result.safety.decision == "auto-approve"
    assert result.stderr == f"Failed to write file {env.outside}/evil.txt\n"
    assert result.error == (
        f"Failed to write file {env.outside}/evil.txt (sandbox: writing {env.outside}/evil.txt "
        f"is not permitted: outside the writable roots {env.root})"
    )
    assert "evil.txt" not in env.tree(env.outside)


def test_messages_name_the_rule_and_the_resolved_path(env: Env) -> None:
    result = env.run(
        HOSTILE["link-file-update"].body,
        PermissionProfile.WORKSPACE_WRITE,
        "approve",
        policy="never",
    )
    assert result.status == CallStatus.FAILED
    target = f"{env.outside}/target.txt"
    assert result.stderr == f"Failed to write file {env.root}/link_file.txt\n"
    assert result.error == (
        f"Failed to write file {env.root}/link_file.txt (sandbox: writing {env.root}/"
        f"link_file.txt is not permitted: it resolves to {target}, outside the writable roots "
        f"{env.root})"
    )
    result = env.run(
        HOSTILE["carve-out-git-hook"].body,
        PermissionProfile.WORKSPACE_WRITE,
        decline_everything,
    )
    assert result.status == CallStatus.DECLINED
    assert result.error == "patch rejected by user"


def test_an_approval_grants_the_shown_path_not_where_a_symlink_leads(env: Env) -> None:
    """Read-only: every write asks. Approving ``link_file.txt`` (a link to a file outside)
    grants that path, but the sandbox resolves the link and denies; the escalated retry runs in
    no-follow mode (docs/behaviour.md §5.6) and refuses the link too. Nothing outside changes."""
    outside_before = env.tree(env.outside)
    result = env.run(HOSTILE["link-file-update"].body, PermissionProfile.READ_ONLY, "approve")
    assert result.status == CallStatus.FAILED
    assert result.attempts == 2
    assert "no-follow mode" in (result.error or "")
    assert env.tree(env.outside) == outside_before
    hook = env.run(HOSTILE["carve-out-git-hook"].body, PermissionProfile.WORKSPACE_WRITE, "approve")
    assert hook.status == CallStatus.COMPLETED  # the user approved exactly that path


def test_removing_a_symlink_that_points_outside_only_removes_the_link(env: Env) -> None:
    before = env.tree(env.outside)
    result = env.run("*** Delete File: link_file.txt", PermissionProfile.WORKSPACE_WRITE, "approve")
    assert result.status == CallStatus.COMPLETED
    assert "link_file.txt" not in env.tree(env.root)
    assert env.tree(env.outside) == before
    assert not result.delta.exact  # a symlink was removed: the delta cannot describe it


# -- what is not confined (documented in SECURITY.md) --------------------------------------


@pytest.mark.parametrize(
    "profile", [PermissionProfile.DANGER_FULL_ACCESS, PermissionProfile.EXTERNAL]
)
def test_unconfined_profiles_keep_the_reference_behaviour(
    env: Env, profile: PermissionProfile
) -> None:
    for name in ("dotdot-add", "link-dir-add", "link-file-update", "move-dest-absolute"):
        body = HOSTILE[name].body.replace("{out}", env.outside)
        result = env.run(body, profile, "approve", policy="never")
        assert result.status == CallStatus.COMPLETED, (name, result.output)
    outside = env.tree(env.outside)
    assert outside["evil.txt"] == b"evil\n"
    assert outside["target.txt"] == b"pwned\n"
    assert outside["moved.txt"] == b"b\n"


def test_an_approved_escalation_retries_in_no_follow_mode(env: Env) -> None:
    requests: list[ApplyPatchApprovalRequest] = []

    def approve_everything(request: ApplyPatchApprovalRequest) -> Decision:
        requests.append(request)
        return Decision.APPROVE

    result = env.run(
        HOSTILE["link-dir-add"].body, PermissionProfile.WORKSPACE_WRITE, approve_everything
    )
    # auto-approved (inside lexically), denied by the sandbox (the link leads out), the
    # escalation asked and approved: the unsandboxed retry still refuses the link (docs/behaviour.md
    # §5.6)
    assert [r.retry for r in requests] == [True]
    assert result.status == CallStatus.FAILED
    assert "no-follow mode" in (result.error or "")
    assert "evil.txt" not in env.tree(env.outside)


def test_a_hard_link_to_a_file_outside_is_written_through(tmp_path: Path) -> None:
    env = Env("local", tmp_path)
    os.link(f"{env.outside}/target.txt", f"{env.root}/hard.txt")
    result = env.run(
        "*** Update File: hard.txt\n@@\n-outside target\n+through the hard link",
        PermissionProfile.WORKSPACE_WRITE,
        "approve",
        policy="never",
    )
    assert result.status == CallStatus.COMPLETED
    assert Path(env.outside, "target.txt").read_text() == "through the hard link\n"


class SwapAfterCheck(LocalFilesystem):
    """Replaces ``root/swap`` by a symlink to the outside right before the first write: the
    race a process with concurrent access to the tree could win."""

    def __init__(self, root: str, outside: str) -> None:
        self.root, self.outside, self.swapped = root, outside, False

    def write_bytes(self, path: str, data: bytes) -> None:
        if not self.swapped:
            self.swapped = True
            os.rmdir(f"{self.root}/swap")
            os.symlink(self.outside, f"{self.root}/swap")
        super().write_bytes(path, data)


def test_a_symlink_swapped_in_after_the_check_is_followed(tmp_path: Path) -> None:
    env = Env("local", tmp_path)
    os.mkdir(f"{env.root}/swap")
    env.fs = SwapAfterCheck(env.root, env.outside)
    result = env.run(
        "*** Add File: swap/raced.txt\n+raced",
        PermissionProfile.WORKSPACE_WRITE,
        "approve",
        policy="never",
    )
    assert result.status == CallStatus.COMPLETED
    assert Path(env.outside, "raced.txt").read_text() == "raced\n"


def test_reads_are_not_confined_and_show_in_the_proposed_map(env: Env) -> None:
    """Verification reads before the safety check: a rejected patch still shows the text."""
    result = env.run(
        f"*** Delete File: {env.outside}/target.txt",
        PermissionProfile.READ_ONLY,
        "approve",
        policy="never",
    )
    assert result.status == CallStatus.REJECTED
    assert result.proposed is not None
    assert result.proposed.to_json() == {
        f"{env.outside}/target.txt": {"type": "delete", "content": "outside target\n"}
    }
