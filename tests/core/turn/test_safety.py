"""assess_patch_safety: the decision table, the path check and the folded-map gap (docs/behaviour.md
§7)."""

from __future__ import annotations

import pickle
import posixpath

import pytest

from applypatch_ext.core.apply.changes import (
    ApplyPatchAction,
    ApplyPatchFileChange,
    FileAdd,
    FileDelete,
    FileUpdate,
)
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.runtime import apply_hunks
from applypatch_ext.core.apply.verify import verify_patch
from applypatch_ext.core.errors import InvalidPatchError, IoError
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.policy import (
    DEFAULT_READ_ONLY_SUBPATHS,
    ApprovalPolicy,
    PermissionProfile,
    SandboxPolicy,
)
from applypatch_ext.core.turn.safety import (
    EMPTY_PATCH_REASON,
    PATCH_REJECTED_OUTSIDE_PROJECT_REASON,
    PATCH_REJECTED_READ_ONLY_REASON,
    AskUser,
    AutoApprove,
    Reject,
    SafetyCheck,
    assess_patch_safety,
    hunk_write_paths,
    is_write_patch_constrained_to_writable_paths,
    writable_paths,
)
from applypatch_ext.core.turn.sandbox import SandboxDenied, SandboxedFilesystem

CWD = "/home/user/project"
PARENT = "/home/user"

ON_REQUEST = ApprovalPolicy.parse("on-request")
NEVER = ApprovalPolicy.parse("never")


def action(changes: dict[str, ApplyPatchFileChange], cwd: str = CWD) -> ApplyPatchAction:
    return ApplyPatchAction(changes, patch="", cwd=cwd)


def add_at(path: str) -> ApplyPatchAction:
    return action({path: FileAdd("")})


def workspace_only(
    *extra_roots: str, read_only_subpaths: tuple[str, ...] = DEFAULT_READ_ONLY_SUBPATHS
) -> SandboxPolicy:
    """Codex's test policy: workspace-write with the temp roots excluded."""
    return SandboxPolicy(
        PermissionProfile.WORKSPACE_WRITE,
        extra_roots,
        include_tmp=False,
        include_tmpdir_env=False,
        read_only_subpaths=read_only_subpaths,
    )


# --- ApprovalPolicy -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "sandbox_approval", "rejects", "may_ask_for_retry", "canonical"),
    [
        ("untrusted", "untrusted", True, False, True, "untrusted"),
        ("on-request", "on-request", True, False, True, "on-request"),
        ("never", "never", True, True, False, "never"),
        ("granular", "granular", True, False, True, "granular"),
        (
            "granular:no-sandbox-approval",
            "granular",
            False,
            True,
            False,
            "granular:no-sandbox-approval",
        ),
        (
            "granular:sandbox_approval=false",
            "granular",
            False,
            True,
            False,
            "granular:no-sandbox-approval",
        ),
        ("granular:sandbox_approval=true", "granular", True, False, True, "granular"),
        ("  never\n", "never", True, True, False, "never"),
    ],
    ids=[
        "untrusted",
        "on-request",
        "never",
        "granular",
        "granular-no-sandbox-approval",
        "granular-flag-false",
        "granular-flag-true",
        "surrounding-whitespace",
    ],
)
def test_approval_policy_parse(
    text: str,
    kind: str,
    sandbox_approval: bool,
    rejects: bool,
    may_ask_for_retry: bool,
    canonical: str,
) -> None:
    policy = ApprovalPolicy.parse(text)
    assert (policy.kind, policy.sandbox_approval) == (kind, sandbox_approval)
    assert policy.rejects is rejects
    assert policy.may_ask_for_retry is may_ask_for_retry
    assert str(policy) == canonical
    assert ApprovalPolicy.parse(str(policy)) == policy


@pytest.mark.parametrize(
    "text",
    ["", "on-failure", "OnRequest", "never:x", "granular:bogus", "granular:sandbox_approval=no"],
    ids=[
        "empty",
        "legacy-on-failure",
        "rust-spelling",
        "option-on-never",
        "bad-option",
        "bad-flag",
    ],
)
def test_approval_policy_parse_rejects_unknown_text(text: str) -> None:
    with pytest.raises(ValueError, match="approval policy"):
        ApprovalPolicy.parse(text)


def test_sandbox_approval_flag_only_exists_for_granular() -> None:
    with pytest.raises(ValueError, match="only applies to 'granular'"):
        ApprovalPolicy("never", sandbox_approval=False)


# --- SafetyCheck records --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "decision", "json"),
    [
        (
            AutoApprove(sandboxed=True),
            "auto-approve",
            {"decision": "auto-approve", "sandboxed": True},
        ),
        (
            AutoApprove(sandboxed=False),
            "auto-approve",
            {"decision": "auto-approve", "sandboxed": False},
        ),
        (AskUser(), "ask-user", {"decision": "ask-user"}),
        (Reject("empty patch"), "reject", {"decision": "reject", "reason": "empty patch"}),
    ],
    ids=["auto-sandboxed", "auto-unsandboxed", "ask", "reject"],
)
def test_safety_check_records(check: SafetyCheck, decision: str, json: dict[str, object]) -> None:
    assert check.decision == decision
    assert check.to_json() == json


def test_hunk_write_paths_list_what_a_folded_map_hides() -> None:
    """Fold mode keeps one map entry per key (docs/behaviour.md §7.4); the hunks still hold every
    path."""
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../out/evil.txt\n@@\n-a\n+b\n"
        "*** Add File: ./a.txt\n+z\n*** Delete File: /abs/gone.txt\n*** End Patch"
    )
    hunks = parse_patch(patch).hunks
    evil = posixpath.normpath(f"{CWD}/../out/evil.txt")
    assert hunk_write_paths(hunks, CWD) == [f"{CWD}/a.txt", "/abs/gone.txt", evil]


def test_hunk_write_paths_match_writable_paths_without_duplicates() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: s.txt\n*** Move to: d.txt\n"
        "@@\n-s\n+t\n*** Update File: u.txt\n@@\n-u\n+v\n*** End Patch"
    )
    fs = MemoryFilesystem()
    fs.add_file(f"{CWD}/s.txt", b"s\n")
    fs.add_file(f"{CWD}/u.txt", b"u\n")
    parsed = parse_patch(patch)
    assert hunk_write_paths(parsed.hunks, CWD) == writable_paths(verify_patch(parsed, CWD, fs))


def test_writable_paths_are_every_key_and_every_move_destination() -> None:
    act = action(
        {
            f"{CWD}/new.txt": FileAdd("x\n"),
            f"{CWD}/old.txt": FileDelete("y\n"),
            f"{CWD}/in-place.txt": FileUpdate("", None),
            f"{CWD}/src.txt": FileUpdate("", "/elsewhere/dst.txt"),
        }
    )
    assert sorted(writable_paths(act)) == sorted(
        [
            f"{CWD}/new.txt",
            f"{CWD}/old.txt",
            f"{CWD}/in-place.txt",
            f"{CWD}/src.txt",
            "/elsewhere/dst.txt",
        ]
    )


# --- the decision table of 7.3, every policy x profile x location x platform ----------------------

POLICIES = ("untrusted", "on-request", "never", "granular", "granular:no-sandbox-approval")
AUTO_SANDBOXED = AutoApprove(sandboxed=True)
AUTO_UNSANDBOXED = AutoApprove(sandboxed=False)
ASK = AskUser()
OUTSIDE = Reject(PATCH_REJECTED_OUTSIDE_PROJECT_REASON)
READ_ONLY = Reject(PATCH_REJECTED_READ_ONLY_REASON)

# (profile, where the patch writes, platform sandbox available) -> one result per POLICIES entry
DECISION_TABLE: dict[tuple[str, str, bool], tuple[SafetyCheck, ...]] = {
    # Disabled / External: constrained (full-disk write) -> AutoApprove without a Codex sandbox.
    ("danger-full-access", "inside", True): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("danger-full-access", "inside", False): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("danger-full-access", "outside", True): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("danger-full-access", "outside", False): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("external", "inside", True): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("external", "inside", False): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("external", "outside", True): (ASK, *[AUTO_UNSANDBOXED] * 4),
    ("external", "outside", False): (ASK, *[AUTO_UNSANDBOXED] * 4),
    # Managed, constrained, platform sandbox -> AutoApprove in the sandbox.
    ("workspace-write", "inside", True): (ASK, *[AUTO_SANDBOXED] * 4),
    # Managed, constrained, no platform sandbox -> rejects ? Reject : AskUser (outside reason).
    ("workspace-write", "inside", False): (ASK, ASK, OUTSIDE, ASK, OUTSIDE),
    # Not constrained -> rejects ? Reject : AskUser.
    ("workspace-write", "outside", True): (ASK, ASK, OUTSIDE, ASK, OUTSIDE),
    ("workspace-write", "outside", False): (ASK, ASK, OUTSIDE, ASK, OUTSIDE),
    # Read-only: never constrained; the reason names the read-only sandbox.
    ("read-only", "inside", True): (ASK, ASK, READ_ONLY, ASK, READ_ONLY),
    ("read-only", "inside", False): (ASK, ASK, READ_ONLY, ASK, READ_ONLY),
    ("read-only", "outside", True): (ASK, ASK, READ_ONLY, ASK, READ_ONLY),
    ("read-only", "outside", False): (ASK, ASK, READ_ONLY, ASK, READ_ONLY),
}

DECISION_CASES = [
    pytest.param(
        profile,
        where,
        platform,
        policy,
        expected,
        id=f"{policy}-{profile}-{where}-{'platform' if platform else 'no-platform'}",
    )
    for (profile, where, platform), results in DECISION_TABLE.items()
    for policy, expected in zip(POLICIES, results, strict=True)
]


@pytest.mark.parametrize(("profile", "where", "platform", "policy", "expected"), DECISION_CASES)
def test_decision_table(
    profile: str, where: str, platform: bool, policy: str, expected: SafetyCheck
) -> None:
    path = f"{CWD}/inner.txt" if where == "inside" else f"{PARENT}/outside.txt"
    sandbox = (
        workspace_only()
        if profile == "workspace-write"
        else SandboxPolicy(PermissionProfile(profile))
    )
    result = assess_patch_safety(
        add_at(path),
        ApprovalPolicy.parse(policy),
        sandbox,
        CWD,
        platform_sandbox_available=platform,
    )
    assert result == expected


@pytest.mark.parametrize("profile", [p.value for p in PermissionProfile])
@pytest.mark.parametrize("policy", POLICIES)
def test_empty_patch_is_rejected_first(policy: str, profile: str) -> None:
    result = assess_patch_safety(
        action({}),
        ApprovalPolicy.parse(policy),
        SandboxPolicy(PermissionProfile(profile)),
        CWD,
    )
    assert result == Reject(EMPTY_PATCH_REASON)
    assert result.to_json() == {"decision": "reject", "reason": "empty patch"}


@pytest.mark.parametrize("profile", [p.value for p in PermissionProfile])
@pytest.mark.parametrize("policy", POLICIES)
def test_a_write_into_the_state_folder_is_rejected_whatever_the_profile_and_policy(
    policy: str, profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 1: the notebook's folder is ``$HOME``, so the state folder (journals, their
    key) is in the root; a patch writing there (an Add, a move's destination, a Delete) is
    refused before anyone is asked, also where nothing else is confined."""
    monkeypatch.delenv("APPLYPATCH_STATE_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", PARENT)
    state = f"{PARENT}/.local/state/applypatch_ext"
    journal = f"{state}/journals/0123.journal"
    for act in (
        add_at(journal),
        action({f"{PARENT}/a.txt": FileUpdate("", move_path=journal)}),
        action({f"{state}/key": FileDelete("")}),
    ):
        result = assess_patch_safety(
            act, ApprovalPolicy.parse(policy), SandboxPolicy(PermissionProfile(profile)), PARENT
        )
        assert isinstance(result, Reject), result
        target = journal if state + "/key" not in act.changes else f"{state}/key"
        assert result.reason == (
            f"writing {target}: inside {state}, applypatch_ext's state folder (its crash "
            "journals and their key); no patch may write there"
        )


def test_untrusted_asks_without_looking_at_the_paths() -> None:
    # A read-only profile and a path in the carve-out: untrusted stops before the path check.
    act = add_at(f"{CWD}/.git/config")
    for sandbox in (SandboxPolicy(PermissionProfile.READ_ONLY), workspace_only()):
        assert assess_patch_safety(act, ApprovalPolicy("untrusted"), sandbox, CWD) == AskUser()


# --- safety_tests.rs (docs/behaviour.md §9.2) -----------------------------------------------------


def test_writable_roots_constraint() -> None:
    add_inside = add_at(f"{CWD}/inner.txt")
    add_outside = add_at(f"{PARENT}/outside.txt")
    assert is_write_patch_constrained_to_writable_paths(add_inside, workspace_only(), CWD)
    assert not is_write_patch_constrained_to_writable_paths(add_outside, workspace_only(), CWD)
    # With the parent explicitly added as a writable root, the outside write is permitted.
    assert is_write_patch_constrained_to_writable_paths(add_outside, workspace_only(PARENT), CWD)


def test_external_sandbox_auto_approves_in_on_request() -> None:
    sandbox = SandboxPolicy(PermissionProfile.EXTERNAL)
    result = assess_patch_safety(add_at(f"{CWD}/inner.txt"), ON_REQUEST, sandbox, CWD)
    assert result == AutoApprove(sandboxed=False)


def test_granular_with_all_flags_true_matches_on_request_for_out_of_root_patch() -> None:
    add_outside = add_at(f"{PARENT}/outside.txt")
    granular = ApprovalPolicy("granular", sandbox_approval=True)
    assert assess_patch_safety(add_outside, ON_REQUEST, workspace_only(), CWD) == AskUser()
    assert assess_patch_safety(add_outside, granular, workspace_only(), CWD) == AskUser()


def test_granular_sandbox_approval_false_rejects_out_of_root_patch() -> None:
    granular = ApprovalPolicy.parse("granular:no-sandbox-approval")
    result = assess_patch_safety(add_at(f"{PARENT}/outside.txt"), granular, workspace_only(), CWD)
    assert result == Reject(PATCH_REJECTED_OUTSIDE_PROJECT_REASON)
    assert result.reason == "writing outside of the project; rejected by user approval settings"


def test_read_only_policy_rejects_patch_with_read_only_reason() -> None:
    act = add_at(f"{CWD}/inside.txt")
    sandbox = SandboxPolicy(PermissionProfile.READ_ONLY)
    assert not is_write_patch_constrained_to_writable_paths(act, sandbox, CWD)
    result = assess_patch_safety(act, NEVER, sandbox, CWD)
    assert result == Reject(
        "writing is blocked by read-only sandbox; rejected by user approval settings"
    )


@pytest.mark.parametrize(
    "rel",
    [
        ".git/config",
        ".git",
        ".git/hooks/pre-commit",
        ".codex/config.toml",
        ".codex",
        ".agents/skills/x.md",
    ],
    ids=["git-config", "git-itself", "git-hook", "codex-config", "codex-itself", "agents-file"],
)
def test_read_only_carve_outs_require_approval(rel: str) -> None:
    # Lexical: the directories need not exist (a missing .codex/config.toml still needs approval).
    act = add_at(f"{CWD}/{rel}")
    assert not is_write_patch_constrained_to_writable_paths(act, workspace_only(), CWD)
    assert assess_patch_safety(act, ON_REQUEST, workspace_only(), CWD) == AskUser()
    assert assess_patch_safety(act, NEVER, workspace_only(), CWD) == OUTSIDE


def test_missing_project_dot_codex_config_requires_approval() -> None:
    fs = MemoryFilesystem()
    fs.create_dirs(CWD)
    parsed = parse_patch("*** Begin Patch\n*** Add File: .codex/config.toml\n+x = 1\n*** End Patch")
    act = verify_patch(parsed, CWD, fs)
    assert list(act.changes) == [f"{CWD}/.codex/config.toml"]
    assert assess_patch_safety(act, ON_REQUEST, workspace_only(), CWD) == AskUser()


def test_explicit_read_only_subpaths_prevent_auto_approval() -> None:
    # Codex's test uses a restricted external policy; ours configures the carve-out directly.
    sandbox = workspace_only(read_only_subpaths=(*DEFAULT_READ_ONLY_SUBPATHS, "docs"))
    act = add_at(f"{CWD}/docs/blocked.txt")
    assert not is_write_patch_constrained_to_writable_paths(act, sandbox, CWD)
    assert assess_patch_safety(act, ON_REQUEST, sandbox, CWD) == AskUser()


@pytest.mark.parametrize(
    "rel",
    [".gitignore", ".github/workflows/ci.yml", "sub/.git/config", "sub/.codex/x", "codex/x"],
    ids=["gitignore", "github-dir", "nested-git", "nested-codex", "no-dot"],
)
def test_names_that_are_not_carve_outs_are_auto_approved(rel: str) -> None:
    result = assess_patch_safety(add_at(f"{CWD}/{rel}"), ON_REQUEST, workspace_only(), CWD)
    assert result == AutoApprove(sandboxed=True)


# --- the path check is lexical --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (f"{CWD}/sub/../../x.txt", ASK),
        (f"{CWD}/./a/./b.txt", AUTO_SANDBOXED),
        (f"{CWD}/a/../b.txt", AUTO_SANDBOXED),
        (f"{CWD}/../project/c.txt", AUTO_SANDBOXED),
        (f"{CWD}/../project-other/c.txt", ASK),
        (f"{CWD}/x/../.git/config", ASK),
        ("/../../home/user/project/d.txt", AUTO_SANDBOXED),
    ],
    ids=[
        "dotdot-leaves-root",
        "dot-segments-stay",
        "dotdot-inside",
        "out-and-back-in",
        "sibling-with-common-prefix",
        "dotdot-into-git",
        "dotdot-above-filesystem-root",
    ],
)
def test_keys_are_normalised_lexically(key: str, expected: SafetyCheck) -> None:
    assert assess_patch_safety(add_at(key), ON_REQUEST, workspace_only(), CWD) == expected


def test_path_check_ignores_symlinks_on_disk() -> None:
    # The check never reads the disk: a link inside the root that leaves it is still "inside";
    # the sandboxed run is what stops the write (see test_sandbox.py).
    act = add_at(f"{CWD}/link-to-etc/passwd")
    assert assess_patch_safety(act, ON_REQUEST, workspace_only(), CWD) == AutoApprove(True)


def test_relative_paths_in_the_policy_check_resolve_against_cwd() -> None:
    sandbox = workspace_only()
    assert sandbox.is_writable("sub/../a.txt", CWD)
    assert not sandbox.is_writable("sub/../../x", CWD)
    assert sandbox.is_writable("./a/./b", CWD)


# --- moves and verification -----------------------------------------------------------------------


def verified(body: str, files: dict[str, str], *, duplicates: str = "reject") -> ApplyPatchAction:
    fs = MemoryFilesystem({f"{CWD}/{k}": v for k, v in files.items()})
    fs.create_dirs(CWD)
    return verify_patch(
        parse_patch(f"*** Begin Patch\n{body}\n*** End Patch"), CWD, fs, duplicates=duplicates
    )


MOVE_OUT = "*** Update File: a.txt\n*** Move to: ../outside/b.txt\n@@\n-x\n+y"


def test_move_destination_outside_the_root_needs_approval() -> None:
    act = verified(MOVE_OUT, {"a.txt": "x\n"})
    assert writable_paths(act) == [f"{CWD}/a.txt", f"{PARENT}/outside/b.txt"]
    assert assess_patch_safety(act, ON_REQUEST, workspace_only(), CWD) == AskUser()
    assert assess_patch_safety(act, NEVER, workspace_only(), CWD) == OUTSIDE
    # The parent as an extra root makes the same move acceptable.
    assert assess_patch_safety(act, NEVER, workspace_only(PARENT), CWD) == AUTO_SANDBOXED


def test_move_within_the_root_is_auto_approved() -> None:
    act = verified("*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-x\n+y", {"a.txt": "x\n"})
    assert assess_patch_safety(act, NEVER, workspace_only(), CWD) == AUTO_SANDBOXED


def test_move_into_a_carve_out_needs_approval() -> None:
    act = verified("*** Update File: a.txt\n*** Move to: .git/a.txt\n@@\n-x\n+y", {"a.txt": "x\n"})
    assert assess_patch_safety(act, ON_REQUEST, workspace_only(), CWD) == AskUser()


def test_delete_and_update_outside_the_root_need_approval() -> None:
    fs = MemoryFilesystem({f"{PARENT}/other.txt": "x\n", f"{PARENT}/gone.txt": "g\n"})
    fs.create_dirs(CWD)
    for body in (
        "*** Update File: ../other.txt\n@@\n-x\n+y",
        "*** Delete File: ../gone.txt",
        f"*** Delete File: {PARENT}/gone.txt",
    ):
        act = verify_patch(parse_patch(f"*** Begin Patch\n{body}\n*** End Patch"), CWD, fs)
        assert assess_patch_safety(act, ON_REQUEST, workspace_only(), CWD) == AskUser(), body


def test_one_outside_path_among_many_decides() -> None:
    act = verified(
        "*** Add File: a.txt\n+a\n*** Add File: b/c.txt\n+c\n*** Add File: ../d.txt\n+d", {}
    )
    assert assess_patch_safety(act, NEVER, workspace_only(), CWD) == OUTSIDE


# --- the folded-map gap (docs/behaviour.md §7.4) --------------------------------------------------

GAP_PATCH = """*** Begin Patch
*** Update File: a.txt
*** Move to: ../outside/evil.txt
@@
-x
+y
*** Add File: a.txt
+z
*** End Patch"""


def gap_fs() -> MemoryFilesystem:
    fs = MemoryFilesystem({f"{CWD}/a.txt": "x\n"})
    return fs


def test_folded_map_hides_the_move_destination_from_the_safety_check() -> None:
    fs = gap_fs()
    parsed = parse_patch(GAP_PATCH)
    act = verify_patch(parsed, CWD, fs, duplicates="fold")
    assert act.to_json() == {f"{CWD}/a.txt": {"type": "add", "content": "z\n"}}
    assert writable_paths(act) == [f"{CWD}/a.txt"]  # ../outside/evil.txt is never checked
    assert assess_patch_safety(act, NEVER, workspace_only(), CWD) == AutoApprove(sandboxed=True)
    # ... yet applying the raw patch writes outside the project.
    outcome = apply_hunks(parsed.hunks, CWD, fs)
    assert outcome.ok
    assert fs.read_bytes(f"{PARENT}/outside/evil.txt") == b"y\n"
    assert fs.read_bytes(f"{CWD}/a.txt") == b"z\n"


def test_folded_map_gap_is_caught_by_the_sandboxed_run() -> None:
    fs = gap_fs()
    parsed = parse_patch(GAP_PATCH)
    sandboxed = SandboxedFilesystem(fs, workspace_only(), CWD)
    outcome = apply_hunks(parsed.hunks, CWD, sandboxed)
    assert isinstance(outcome.error, IoError)
    assert str(outcome.error) == f"Failed to write file {PARENT}/outside/evil.txt"
    assert isinstance(outcome.error.cause, SandboxDenied)
    assert sandboxed.denials == [f"{PARENT}/outside/evil.txt"]
    assert fs.tree() == gap_fs().tree()


def test_duplicate_keys_are_rejected_at_verification() -> None:
    with pytest.raises(InvalidPatchError) as info:
        verify_patch(parse_patch(GAP_PATCH), CWD, gap_fs(), duplicates="reject")
    assert str(info.value) == f"invalid patch: multiple operations target {CWD}/a.txt"


def test_distinct_keys_moving_onto_one_outside_destination_are_each_checked() -> None:
    act = verified(
        "*** Update File: a.txt\n*** Move to: ../same.txt\n@@\n-x\n+y\n"
        "*** Update File: b.txt\n*** Move to: ../same.txt\n@@\n-x\n+y",
        {"a.txt": "x\n", "b.txt": "x\n"},
    )
    assert writable_paths(act).count(f"{PARENT}/same.txt") == 2
    assert assess_patch_safety(act, NEVER, workspace_only(), CWD) == OUTSIDE


def test_safety_results_are_plain_values() -> None:
    for check in (AutoApprove(True), AskUser(), Reject("r")):
        assert pickle.loads(pickle.dumps(check)) == check
