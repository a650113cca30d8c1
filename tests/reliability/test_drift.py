"""Content drift (issue 7, item 4): a file that changes between verification and application.

The drift is real here, not injected: the approver runs after verification and before the
first attempt (policy ``untrusted`` always asks), and it edits the tree the way a user or
another process would while the approval is pending. The runtime re-reads every file and
recomputes from what is there (docs/behaviour.md §5.3, as the reference does), so:

* a change elsewhere in the file is kept, and the patch still applies (its diff is the one
  shown);
* a change the diff shows (a file to delete edited) asks again, and the answer applies;
* a change to the lines the patch expects fails the verification the answer runs: nothing is
  written (an approval covers what was shown, docs/behaviour.md §6.8);
* the committed delta records the texts really found (old, overwritten), so the TurnDiff's
  ``index`` line carries the blob id of the drifted text and the diff never claims the outside
  edit as the patch's own;
* the begin and end events carry the same verified plan (docs/behaviour.md §6.4), and the TurnDiff
event is
  the tracker's diff.

The ``drift:`` fault spec does the same from inside the filesystem; the fault sweep covers it on
every path of its patches.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from applypatch_ext.core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
)
from applypatch_ext.core.apply.diff import git_blob_oid
from applypatch_ext.core.apply.fs import Filesystem, LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.faults import DRIFT_LINE
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.turn import Turn

from ._support import FIGURES, Tree, disk_tree, memory_tree


class Env:
    def __init__(self, kind: str, tmp_path: Path, files: dict[str, str]) -> None:
        if kind == "memory":
            self.root = "/w"
            self.memory: MemoryFilesystem | None = MemoryFilesystem(
                {f"/w/{p}": c for p, c in files.items()}
            )
            self.memory.create_dirs("/w")
            self.fs: Filesystem = self.memory
        else:
            self.root = str(tmp_path.resolve())
            self.memory = None
            self.fs = LocalFilesystem()
            for rel, text in files.items():
                Path(self.root, rel).parent.mkdir(parents=True, exist_ok=True)
                Path(self.root, rel).write_text(text)

    def p(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def write(self, rel: str, text: str) -> None:
        self.fs.write_bytes(self.p(rel), text.encode())

    def read(self, rel: str) -> str:
        return self.fs.read_bytes(self.p(rel)).decode()

    def tree(self) -> Tree:
        return memory_tree(self.memory, self.root) if self.memory else disk_tree(self.root)

    def run(
        self,
        body: str,
        drift: Callable[[Env], None],
        *,
        transaction: Transaction = Transaction.NONE,
    ) -> CallResult:
        def approver(request: ApplyPatchApprovalRequest) -> Decision:
            FIGURES["drifts between verify and apply"] += 1
            drift(self)
            return Decision.APPROVE

        options = PipelineOptions(
            approval_policy=ApprovalPolicy("untrusted"),
            sandbox=SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, include_tmp=False),
            transaction=transaction,
        )
        text = f"*** Begin Patch\n{body}\n*** End Patch"
        return Turn(self.root, options=options, filesystem=self.fs).run(text, approver)


@pytest.fixture(params=["local", "memory"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def events_of(result: CallResult) -> dict[str, dict[str, object]]:
    return {e.event.type: e.event.to_json() for e in result.events}


def check_events(result: CallResult) -> None:
    """Begin and end carry the same verified plan; the TurnDiff event is the tracker's diff."""
    events = events_of(result)
    assert events["patch_apply_begin"]["changes"] == events["patch_apply_end"]["changes"]
    assert events["patch_apply_end"]["status"] == result.status
    if result.turn_diff is not None:
        assert events["turn_diff"]["unified_diff"] == result.turn_diff


def index_line(old: str | None, new: str | None) -> str:
    zero = "0" * 40
    return (
        f"index {git_blob_oid(old) if old is not None else zero}.."
        f"{git_blob_oid(new) if new is not None else zero}"
    )


def test_a_change_elsewhere_is_kept_and_the_diff_starts_from_it(kind: str, tmp_path: Path) -> None:
    env = Env(kind, tmp_path, {"a.txt": "one\ntwo\nthree\n"})
    drifted = "one\ntwo\nthree\nfour, added meanwhile\n"
    result = env.run("*** Update File: a.txt\n@@\n-one\n+uno", lambda e: e.write("a.txt", drifted))
    assert result.status == CallStatus.COMPLETED
    final = drifted.replace("one", "uno")
    assert env.read("a.txt") == final
    assert result.delta == AppliedPatchDelta(
        (AppliedUpdate(env.p("a.txt"), None, drifted, None, final),)
    )
    assert result.turn_diff is not None
    assert index_line(drifted, final) in result.turn_diff
    assert "+four, added meanwhile" not in result.turn_diff
    # The plan in the events is the verified one (it did not know about the new line).
    begin = events_of(result)["patch_apply_begin"]["changes"]
    assert begin == {
        env.p("a.txt"): {
            "type": "update",
            "unified_diff": "@@ -1,2 +1,2 @@\n-one\n+uno\n two\n",
            "move_path": None,
        }
    }
    check_events(result)


def test_a_change_to_the_expected_lines_while_waiting_writes_nothing(
    kind: str, tmp_path: Path
) -> None:
    """The approval covers what was shown (docs/behaviour.md §6.8): the call verifies again
    when answered, and a hunk that no longer matches stops it before any write (the
    reference's runtime would have written a.txt and failed on b.txt)."""
    env = Env(kind, tmp_path, {"a.txt": "a\n", "b.txt": "beta\n"})
    result = env.run(
        "*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-beta\n+BETA",
        lambda e: e.write("b.txt", "gamma\n"),
    )
    assert result.status == CallStatus.FAILED
    assert result.stderr == f"Failed to find expected lines in {env.p('b.txt')}:\nbeta\n"
    assert result.output == (
        f"apply_patch verification failed: Failed to find expected lines in {env.p('b.txt')}:\nbeta"
    )
    assert env.tree() == {"a.txt": b"a\n", "b.txt": b"gamma\n"}
    assert result.delta == AppliedPatchDelta() and result.turn_diff is None
    check_events(result)


def test_a_file_removed_meanwhile_fails_with_the_reference_text(kind: str, tmp_path: Path) -> None:
    env = Env(kind, tmp_path, {"a.txt": "a\n"})
    result = env.run("*** Update File: a.txt\n@@\n-a\n+A", lambda e: e.fs.remove_file(e.p("a.txt")))
    assert result.status == CallStatus.FAILED
    assert result.stderr == (
        f"Failed to read file to update {env.p('a.txt')}: No such file or directory (os error 2)\n"
    )
    assert result.delta == AppliedPatchDelta() and env.tree() == {}
    check_events(result)


def test_delete_add_and_move_record_the_texts_really_replaced(kind: str, tmp_path: Path) -> None:
    env = Env(kind, tmp_path, {"del.txt": "old\n", "m.txt": "m\n"})

    def drift(e: Env) -> None:
        e.write("del.txt", "edited meanwhile\n")
        e.write("add.txt", "created meanwhile\n")
        e.write("dest.txt", "destination created meanwhile\n")

    result = env.run(
        "*** Delete File: del.txt\n*** Add File: add.txt\n+added\n"
        "*** Update File: m.txt\n*** Move to: dest.txt\n@@\n-m\n+M",
        drift,
    )
    assert result.status == CallStatus.COMPLETED
    assert result.delta == AppliedPatchDelta(
        (
            AppliedDelete(env.p("del.txt"), "edited meanwhile\n"),
            AppliedAdd(env.p("add.txt"), "added\n", "created meanwhile\n"),
            AppliedUpdate(
                env.p("m.txt"), env.p("dest.txt"), "m\n", "destination created meanwhile\n", "M\n"
            ),
        )
    )
    diff = result.turn_diff
    assert diff is not None
    assert index_line("edited meanwhile\n", None) in diff
    assert index_line("created meanwhile\n", "added\n") in diff
    assert "-destination created meanwhile" in diff
    assert env.tree() == {"add.txt": b"added\n", "dest.txt": b"M\n"}
    check_events(result)


def test_atomic_mode_keeps_the_drifted_tree_whole(kind: str, tmp_path: Path) -> None:
    env = Env(kind, tmp_path, {"a.txt": "a\n", "b.txt": "beta\n"})
    result = env.run(
        "*** Add File: new/n.txt\n+n\n*** Update File: a.txt\n@@\n-a\n+A\n"
        "*** Update File: b.txt\n@@\n-beta\n+BETA",
        lambda e: e.write("b.txt", "gamma\n"),
        transaction=Transaction.ATOMIC,
    )
    assert result.status == CallStatus.FAILED
    assert env.tree() == {"a.txt": b"a\n", "b.txt": b"gamma\n"}
    assert result.delta == AppliedPatchDelta() and result.turn_diff is None
    check_events(result)


def test_the_drift_fault_on_a_path_verification_does_not_read(kind: str, tmp_path: Path) -> None:
    """``drift:`` on an Add's target fires before the attempt, so the overwritten text recorded
    is the drifted one (it used to fire between the runtime's read and its write)."""
    env = Env(kind, tmp_path, {"b.txt": "bee\n"})
    options = PipelineOptions(
        sandbox=SandboxPolicy(PermissionProfile.WORKSPACE_WRITE, include_tmp=False),
        faults=("drift:b.txt",),
    )
    result = Turn(env.root, options=options, filesystem=env.fs).run(
        "*** Begin Patch\n*** Add File: b.txt\n+new b\n*** End Patch", "approve"
    )
    assert result.status == CallStatus.COMPLETED
    drifted = "bee\n" + DRIFT_LINE
    assert result.delta.changes == (AppliedAdd(env.p("b.txt"), "new b\n", drifted),)
    assert result.turn_diff is not None and index_line(drifted, "new b\n") in result.turn_diff
