"""The turn diff tracker (docs/behaviour.md §8): worked examples, upstream's tracker tests, display
roots, and a property test that ``git apply`` of the rendered diff turns the baseline into the
current tree.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from applypatch_ext.core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
)
from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.apply.runtime import apply_hunks
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.options import PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.core.turn.turn_diff import TurnDiffTracker, find_display_root

ZERO = "0" * 40


def oid(text: str) -> str:
    """git's blob id, computed here independently of the module under test."""
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


A_OID = oid("a\n")
AFTER_OID = oid("after\n")
BEFORE_OID = oid("before\n")
CONTENT_OID = oid("content\n")
FRESH_OID = oid("fresh\n")
M_OID = oid("m\n")
ONE_OID = oid("one\n")
SAME_OID = oid("same\n")
THREE_OID = oid("three\n")
TWO_OID = oid("two\n")
X_OID = oid("x\n")
Z_OID = oid("z\n")


def apply_text(root: str, body: str) -> AppliedPatchDelta:
    """Apply ``*** Begin Patch`` + body + ``*** End Patch`` on disk; it must succeed."""
    parsed = parse_patch(f"*** Begin Patch\n{body}\n*** End Patch")
    outcome = apply_hunks(parsed.hunks, root, LocalFilesystem())
    assert outcome.error is None, outcome.error
    return outcome.delta


def seed(root: str, files: Mapping[str, str]) -> None:
    Path(root).mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        target = Path(root, rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode())


def git(cwd: str, *args: str, stdin: bytes | None = None) -> bytes:
    result = subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return result.stdout


def git_apply(cwd: str, diff: str) -> None:
    git(cwd, "apply", "--whitespace=nowarn", "-", stdin=diff.encode())


def files_of(root: str) -> dict[str, bytes]:
    """Every regular file under ``root`` (but ``.git``) by relative path."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath, name)
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return dict(sorted(out.items()))


@pytest.fixture
def root(tmp_path: Path) -> Iterator[str]:
    yield str(tmp_path.resolve())


def tracker_at(root: str) -> TurnDiffTracker:
    """A tracker whose display root is ``root`` itself, as in docs/behaviour.md §8.5."""
    return TurnDiffTracker({"": root}, display_roots={"": root})


# --------------------------------------------------------------------------------------------
# docs/behaviour.md §8.5 worked examples and upstream's turn_diff_tracker_tests.rs, one table.

_MOVE_OVER_EXISTING = f"""\
diff --git a/a.txt b/a.txt
deleted file mode 100644
index 3940df7cd8791c48c101a7543b3a9fd7ef930e78..{ZERO}
--- a/a.txt
+++ /dev/null
@@ -1 +0,0 @@
-from
diff --git a/b.txt b/b.txt
index cbaf024e5e7fa87bdd8ad76b1393d9973585bc97..3e757656cf36eca53338e520d134963a44f793f8
--- a/b.txt
+++ b/b.txt
@@ -1 +1 @@
-existing
+new
"""

EXAMPLES = [
    pytest.param(
        {},
        ["*** Add File: a.txt\n+foo", "*** Update File: a.txt\n@@\n foo\n+bar"],
        f"""\
diff --git a/a.txt b/a.txt
new file mode 100644
index {ZERO}..3bd1f0e29744a1f32b08d5650e62e2e62afb177c
--- /dev/null
+++ b/a.txt
@@ -0,0 +1,2 @@
+foo
+bar
""",
        id="add-then-update-is-one-new-file",
    ),
    pytest.param(
        {"src.txt": "line\n"},
        ["*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+line2"],
        """\
diff --git a/src.txt b/dst.txt
index a999a0c211215fd28e77d6a7c66ade6ec76ccbcb..8a6a2d098ecaf90105f1cf2fa90fc4608bb08067
--- a/src.txt
+++ b/dst.txt
@@ -1 +1 @@
-line
+line2
""",
        id="move-with-change-is-a-rename-block",
    ),
    pytest.param(
        {"a.txt": "from\n", "b.txt": "existing\n"},
        ["*** Update File: a.txt\n*** Move to: b.txt\n@@\n-from\n+new"],
        _MOVE_OVER_EXISTING,
        id="move-over-existing-deletes-source-and-updates-destination",
    ),
    pytest.param(
        {"a.txt": "from\n", "b.txt": "existing\n"},
        ["*** Delete File: b.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-from\n+new"],
        _MOVE_OVER_EXISTING,
        id="delete-then-move-overwrite-renders-the-same",
    ),
    pytest.param(
        {"a.txt": "same\n", "b.txt": "same\n"},
        ["*** Update File: a.txt\n*** Move to: b.txt\n@@\n same"],
        f"""\
diff --git a/a.txt b/a.txt
deleted file mode 100644
index {SAME_OID}..{ZERO}
--- a/a.txt
+++ /dev/null
@@ -1 +0,0 @@
-same
""",
        id="move-over-existing-without-change-deletes-source-only",
    ),
    pytest.param(
        {},
        ["*** Add File: e.txt"],
        f"""\
diff --git a/e.txt b/e.txt
new file mode 100644
index {ZERO}..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391
""",
        id="empty-add-has-no-file-header-lines",
    ),
    pytest.param(
        {"n.txt": "old"},
        ["*** Update File: n.txt\n@@\n-old\n+new"],
        """\
diff --git a/n.txt b/n.txt
index 489ce0f857e7634a0eb9f328265a3e91fad49f61..3e757656cf36eca53338e520d134963a44f793f8
--- a/n.txt
+++ b/n.txt
@@ -1 +1 @@
-old
\\ No newline at end of file
+new
""",
        id="update-of-file-without-final-newline",
    ),
    pytest.param(
        {"old.txt": "same\n"},
        ["*** Update File: old.txt\n*** Move to: new.txt\n@@\n same"],
        None,
        id="pure-rename-vanishes",
    ),
    pytest.param(
        {"b.txt": "x\n"},
        ["*** Delete File: b.txt"],
        f"""\
diff --git a/b.txt b/b.txt
deleted file mode 100644
index {X_OID}..{ZERO}
--- a/b.txt
+++ /dev/null
@@ -1 +0,0 @@
-x
""",
        id="delete",
    ),
    pytest.param(
        {"dup.txt": "before\n"},
        ["*** Add File: dup.txt\n+after"],
        f"""\
diff --git a/dup.txt b/dup.txt
index {BEFORE_OID}..{AFTER_OID}
--- a/dup.txt
+++ b/dup.txt
@@ -1 +1 @@
-before
+after
""",
        id="add-over-existing-is-an-update",
    ),
    pytest.param(
        {"cycle.txt": "before\n"},
        ["*** Delete File: cycle.txt", "*** Add File: cycle.txt\n+after"],
        f"""\
diff --git a/cycle.txt b/cycle.txt
index {BEFORE_OID}..{AFTER_OID}
--- a/cycle.txt
+++ b/cycle.txt
@@ -1 +1 @@
-before
+after
""",
        id="delete-then-re-add-is-an-update",
    ),
    pytest.param(
        {"a.txt": "one\n"},
        [
            "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+two",
            "*** Update File: b.txt\n*** Move to: c.txt\n@@\n-two\n+three",
        ],
        f"""\
diff --git a/a.txt b/c.txt
index {ONE_OID}..{THREE_OID}
--- a/a.txt
+++ b/c.txt
@@ -1 +1 @@
-one
+three
""",
        id="moves-chain",
    ),
    pytest.param(
        {"a.txt": "one\n"},
        [
            "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+two",
            "*** Update File: b.txt\n*** Move to: a.txt\n@@\n-two\n+three",
        ],
        f"""\
diff --git a/a.txt b/a.txt
index {ONE_OID}..{THREE_OID}
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-one
+three
""",
        id="moving-back-to-the-origin-removes-the-rename",
    ),
    pytest.param(
        {"a.txt": "one\n"},
        [
            "*** Add File: b.txt\n+b",
            "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+two",
        ],
        f"""\
diff --git a/a.txt b/b.txt
index {ONE_OID}..{TWO_OID}
--- a/a.txt
+++ b/b.txt
@@ -1 +1 @@
-one
+two
""",
        id="move-onto-a-file-added-this-turn-is-a-rename",
    ),
    pytest.param(
        {"a.txt": "one\n"},
        [
            "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+two",
            "*** Add File: a.txt\n+fresh",
        ],
        f"""\
diff --git a/a.txt b/a.txt
index {ONE_OID}..{FRESH_OID}
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-one
+fresh
diff --git a/b.txt b/b.txt
new file mode 100644
index {ZERO}..{TWO_OID}
--- /dev/null
+++ b/b.txt
@@ -0,0 +1 @@
+two
""",
        id="re-added-source-ends-the-rename",
    ),
    pytest.param(
        {},
        ["*** Add File: a.txt\n+one", "*** Add File: a.txt\n+two"],
        f"""\
diff --git a/a.txt b/a.txt
new file mode 100644
index {ZERO}..{TWO_OID}
--- /dev/null
+++ b/a.txt
@@ -0,0 +1 @@
+two
""",
        id="add-over-a-file-added-this-turn-stays-new",
    ),
    pytest.param(
        {},
        ["*** Add File: new.txt\n+x", "*** Delete File: new.txt"],
        None,
        id="add-then-delete-vanishes",
    ),
    pytest.param(
        {"z.txt": "z\n", "a.txt": "a\n"},
        ["*** Delete File: z.txt\n*** Add File: m.txt\n+m\n*** Delete File: a.txt"],
        f"""\
diff --git a/a.txt b/a.txt
deleted file mode 100644
index {A_OID}..{ZERO}
--- a/a.txt
+++ /dev/null
@@ -1 +0,0 @@
-a
diff --git a/m.txt b/m.txt
new file mode 100644
index {ZERO}..{M_OID}
--- /dev/null
+++ b/m.txt
@@ -0,0 +1 @@
+m
diff --git a/z.txt b/z.txt
deleted file mode 100644
index {Z_OID}..{ZERO}
--- a/z.txt
+++ /dev/null
@@ -1 +0,0 @@
-z
""",
        id="files-sorted-by-display-path",
    ),
]


@pytest.mark.parametrize(("files", "patches", "expected"), EXAMPLES)
def test_worked_example(
    root: str, files: dict[str, str], patches: list[str], expected: str | None
) -> None:
    seed(root, files)
    tracker = tracker_at(root)
    for body in patches:
        tracker.track_delta(apply_text(root, body))
    assert tracker.get_unified_diff() == expected


def test_same_add_in_two_environments_renders_two_prefixed_blocks(root: str) -> None:
    add = apply_text(root, "*** Add File: shared.txt\n+content")
    tracker = TurnDiffTracker(display_roots={"local": root, "remote": root})
    tracker.track_delta(add, "remote")
    tracker.track_delta(add, "local")
    block = f"""\
diff --git a/{{env}}/shared.txt b/{{env}}/shared.txt
new file mode 100644
index {ZERO}..{CONTENT_OID}
--- /dev/null
+++ b/{{env}}/shared.txt
@@ -0,0 +1 @@
+content
"""
    assert tracker.get_unified_diff() == block.format(env="local") + block.format(env="remote")


# --------------------------------------------------------------------------------------------
# Folding rules that a rendered example does not show directly.


def test_second_copy_of_a_moved_source_renders_as_new_file() -> None:
    # a -> b, re-add a, a -> c: both b and c name a as their origin. Only one can be the
    # rename; upstream's hash map keeps an arbitrary one, we keep the first in display order.
    tracker = TurnDiffTracker({"": "/w"}, display_roots={"": "/w"})
    tracker.track_delta(
        AppliedPatchDelta(
            (
                AppliedUpdate("/w/a", "/w/b", "one\n", None, "one\nb\n"),
                AppliedAdd("/w/a", "fresh\n"),
                AppliedUpdate("/w/a", "/w/c", "fresh\n", None, "fresh\nc\n"),
            )
        )
    )
    diff = tracker.get_unified_diff()
    assert diff is not None
    headers = [line for line in diff.splitlines() if line.startswith("diff --git")]
    assert headers == ["diff --git a/a b/b", "diff --git a/c b/c"]
    assert "new file mode 100644\n" in diff.split("diff --git a/c")[1]


@pytest.mark.parametrize(
    ("deltas", "results"),
    [
        pytest.param([AppliedPatchDelta()], [False], id="empty-exact-delta"),
        pytest.param(
            [AppliedPatchDelta((AppliedAdd("/w/a", "x\n"),))] * 2,
            [True, False],
            id="identical-add-tracked-twice",
        ),
        pytest.param(
            [
                AppliedPatchDelta((AppliedAdd("/w/a", "x\n"),)),
                AppliedPatchDelta((AppliedDelete("/w/a", "x\n"),)),
            ],
            [True, True],
            id="net-zero-still-changes-the-state",
        ),
        pytest.param(
            [AppliedPatchDelta((AppliedAdd("/w/a", "x\n"), AppliedDelete("/w/a", "x\n")))],
            [False],
            id="delta-that-cancels-itself",
        ),
        pytest.param(
            [AppliedPatchDelta((), exact=False), AppliedPatchDelta((AppliedAdd("/w/a", "x"),))],
            [True, False],
            id="inexact-invalidates-then-everything-is-ignored",
        ),
    ],
)
def test_track_delta_reports_state_changes(
    deltas: list[AppliedPatchDelta], results: list[bool]
) -> None:
    tracker = TurnDiffTracker({"": "/w"})
    assert [tracker.track_delta(delta) for delta in deltas] == results


def test_invalidation_suppresses_the_diff_for_the_rest_of_the_turn(root: str) -> None:
    tracker = tracker_at(root)
    tracker.track_delta(apply_text(root, "*** Add File: a.txt\n+foo"))
    assert tracker.get_unified_diff() is not None
    tracker.invalidate()
    assert not tracker.valid
    assert tracker.get_unified_diff() is None
    assert not tracker.track_delta(apply_text(root, "*** Add File: b.txt\n+bar"))
    assert tracker.get_unified_diff() is None
    tracker.invalidate()
    assert not tracker.valid


def test_inexact_delta_from_a_real_apply_invalidates(root: str) -> None:
    seed(root, {"target.txt": "t\n"})
    os.symlink("target.txt", f"{root}/link.txt")
    tracker = tracker_at(root)
    tracker.track_delta(apply_text(root, "*** Add File: a.txt\n+foo"))
    delta = apply_text(root, "*** Add File: link.txt\n+via link")
    assert not delta.exact
    assert tracker.track_delta(delta)
    assert not tracker.valid
    assert tracker.get_unified_diff() is None


def test_file_texts_are_each_blocks_two_sides(root: str) -> None:
    seed(root, {"keep.txt": "one\n", "old.txt": "moved\n", "gone.txt": "bye\n"})
    tracker = tracker_at(root)
    tracker.track_delta(apply_text(root, "*** Update File: keep.txt\n@@\n-one\n+two"))
    tracker.track_delta(
        apply_text(root, "*** Update File: old.txt\n*** Move to: new.txt\n@@\n-moved\n+moved!")
    )
    tracker.track_delta(apply_text(root, "*** Delete File: gone.txt\n*** Add File: add.txt\n+hi"))
    tracker.track_delta(apply_text(root, "*** Add File: tmp.txt\n+x"))
    tracker.track_delta(apply_text(root, "*** Delete File: tmp.txt"))  # net zero: no block
    sides = {t.path: t for t in tracker.file_texts()}
    assert list(sides) == [b.path for b in tracker.file_diffs()]
    assert list(sides) == ["add.txt", "gone.txt", "keep.txt", "new.txt"]
    assert (sides["add.txt"].before, sides["add.txt"].after) == (None, "hi\n")
    assert (sides["gone.txt"].before, sides["gone.txt"].after) == ("bye\n", None)
    assert (sides["keep.txt"].before, sides["keep.txt"].after) == ("one\n", "two\n")
    moved = sides["new.txt"]
    assert (moved.old_path, moved.old_absolute) == ("old.txt", f"{root}/old.txt")
    assert (moved.absolute, moved.before, moved.after) == (f"{root}/new.txt", "moved\n", "moved!\n")
    assert tracker.render_count == 1  # file_diffs rendered; file_texts diffed nothing
    tracker.invalidate()
    assert tracker.file_texts() == ()


def test_tracker_needs_an_environment() -> None:
    with pytest.raises(ValueError, match="at least one environment"):
        TurnDiffTracker()
    with pytest.raises(ValueError, match="at least one environment"):
        TurnDiffTracker({})


# --------------------------------------------------------------------------------------------
# Render cache.


def test_cached_aggregate_renders_no_file_diff_again(root: str) -> None:
    tracker = tracker_at(root)
    tracker.track_delta(apply_text(root, "*** Add File: a.txt\n+one"))
    first = tracker.get_unified_diff()
    assert (tracker.render_count, tracker.rendered_diff_count) == (1, 1)
    tracker.track_delta(apply_text(root, "*** Add File: b.txt\n+two"))
    second = tracker.get_unified_diff()
    assert (tracker.render_count, tracker.rendered_diff_count) == (2, 2)
    assert tracker.get_unified_diff() == second
    assert tracker.get_unified_diff() is second
    assert (tracker.render_count, tracker.rendered_diff_count) == (2, 2)
    assert first is not None and second is not None and second.startswith(first)


def test_an_equal_text_keeps_its_cached_block(root: str) -> None:
    tracker = tracker_at(root)
    tracker.track_delta(
        AppliedPatchDelta((AppliedAdd(f"{root}/a", "x\n"), AppliedAdd(f"{root}/b", "y\n")))
    )
    tracker.get_unified_diff()
    assert tracker.rendered_diff_count == 2
    tracker.track_delta(
        AppliedPatchDelta((AppliedAdd(f"{root}/a", "x\n"), AppliedAdd(f"{root}/b", "z\n")))
    )
    tracker.get_unified_diff()
    assert tracker.rendered_diff_count == 3


def test_repeated_updates_only_rerender_the_touched_path(root: str) -> None:
    tracker = tracker_at(root)
    for body in ("*** Add File: stable.txt\n+stable", "*** Add File: hot.txt\n+value 0"):
        tracker.track_delta(apply_text(root, body))
        tracker.get_unified_diff()
    for value in range(1, 41):
        body = f"*** Update File: hot.txt\n@@\n-value {value - 1}\n+value {value}"
        tracker.track_delta(apply_text(root, body))
        tracker.get_unified_diff()
    assert tracker.rendered_diff_count == 42
    fresh = tracker_at(root)
    fresh.track_delta(
        AppliedPatchDelta(
            (
                AppliedAdd(f"{root}/stable.txt", "stable\n"),
                AppliedAdd(f"{root}/hot.txt", "value 40\n"),
            )
        )
    )
    assert fresh.get_unified_diff() == tracker.get_unified_diff()


# --------------------------------------------------------------------------------------------
# Deadline.


def test_large_rewrite_falls_back_and_still_applies(root: str) -> None:
    old = "".join(f"old line {n:05}\n" for n in range(48_000))
    new = "".join(f"new line {n:05}\n" for n in range(48_000))
    seed(root, {"large.txt": old})
    git(root, "init", "-q")
    tracker = tracker_at(root)
    tracker.track_delta(
        AppliedPatchDelta((AppliedUpdate(f"{root}/large.txt", None, old, None, new),))
    )
    diff = tracker.get_unified_diff()
    assert diff is not None
    # Whether the search finished or was cut short, a complete rewrite is one hunk.
    assert "\n@@ -1,48000 +1,48000 @@\n" in diff
    git_apply(root, diff)
    assert Path(root, "large.txt").read_text() == new


def test_expired_deadline_keeps_a_coarse_diff_that_applies(root: str) -> None:
    old, new = "a\nb\nc\nd\ne\n", "a\nB\nc\nD\ne\n"
    seed(root, {"f.txt": old})
    git(root, "init", "-q")
    delta = AppliedPatchDelta((AppliedUpdate(f"{root}/f.txt", None, old, None, new),))
    exact = TurnDiffTracker(display_roots={"": root}, timeout=None)
    exact.track_delta(delta)
    exact_diff = exact.get_unified_diff()
    assert not exact.timed_out
    # A deadline in the past cuts every search short, deterministically.
    coarse = TurnDiffTracker(display_roots={"": root}, timeout=-1.0)
    coarse.track_delta(delta)
    coarse_diff = coarse.get_unified_diff()
    assert coarse.timed_out and coarse.valid
    assert exact_diff is not None and coarse_diff is not None
    assert "@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n-d\n+D\n e\n" in exact_diff
    assert "@@ -1,5 +1,5 @@\n a\n-b\n-c\n-d\n+B\n+c\n+D\n e\n" in coarse_diff
    git_apply(root, coarse_diff)
    assert Path(root, "f.txt").read_text() == new


# --------------------------------------------------------------------------------------------
# Display roots and display paths.


@pytest.mark.parametrize(
    ("entries", "cwd", "expected"),
    [
        pytest.param(["/repo/.git/"], "/repo/sub/dir", "/repo", id="git-dir-in-ancestor"),
        pytest.param(["/repo/.git"], "/repo/sub", "/repo", id="git-file-of-a-worktree"),
        pytest.param(
            ["/repo/.git/", "/repo/sub/.git"], "/repo/sub/x", "/repo/sub", id="nearest-wins"
        ),
        pytest.param(["/repo/.git/"], "/repo", "/repo", id="cwd-itself"),
        pytest.param([], "/repo/sub/", "/repo/sub", id="no-git-means-cwd"),
        pytest.param(["/repo/.git/"], "C:\\repo", "C:\\repo", id="foreign-cwd-unchanged"),
    ],
)
def test_find_display_root_in_memory(entries: list[str], cwd: str, expected: str) -> None:
    fs = MemoryFilesystem()
    fs.create_dirs("/repo/sub/dir")
    fs.create_dirs("/repo/sub/x")
    for entry in entries:
        if entry.endswith("/"):
            fs.create_dirs(entry)
        else:
            fs.add_file(entry, "gitdir: elsewhere\n")
    assert find_display_root(cwd, fs) == expected


def test_find_display_root_on_disk(root: str) -> None:
    Path(root, "repo/.git").mkdir(parents=True)
    Path(root, "repo/pkg/mod").mkdir(parents=True)
    Path(root, "plain").mkdir()
    assert find_display_root(f"{root}/repo/pkg/mod") == f"{root}/repo"
    # Without a `.git` of its own the directory is its own root, unless the temporary directory
    # itself lies inside some repository.
    assert find_display_root(f"{root}/plain") in (f"{root}/plain", find_display_root(root))


def _add_header(tracker: TurnDiffTracker, path: str, environment_id: str = "") -> str:
    tracker.track_delta(AppliedPatchDelta((AppliedAdd(path, "x\n"),)), environment_id)
    diff = tracker.get_unified_diff()
    assert diff is not None
    return diff.splitlines()[0]


def test_environment_display_root_defaults_to_the_git_root() -> None:
    fs = MemoryFilesystem()
    fs.create_dirs("/repo/.git")
    fs.create_dirs("/repo/sub")
    tracker = TurnDiffTracker({"": "/repo/sub"}, filesystem=fs)
    assert dict(tracker.display_roots) == {"": "/repo"}
    assert _add_header(tracker, "/repo/sub/x.txt") == "diff --git a/sub/x.txt b/sub/x.txt"


def test_environment_display_root_without_git_is_the_cwd() -> None:
    fs = MemoryFilesystem()
    fs.create_dirs("/work/sub")
    tracker = TurnDiffTracker({"": "/work/sub"}, filesystem=fs)
    assert _add_header(tracker, "/work/sub/x.txt") == "diff --git a/x.txt b/x.txt"


def test_explicit_display_root_wins_over_the_lookup() -> None:
    fs = MemoryFilesystem()
    fs.create_dirs("/repo/.git")
    fs.create_dirs("/repo/sub")
    tracker = TurnDiffTracker({"": "/repo/sub"}, display_roots={"": "/repo/sub"}, filesystem=fs)
    assert _add_header(tracker, "/repo/sub/x.txt") == "diff --git a/x.txt b/x.txt"


def test_path_outside_the_root_renders_absolute() -> None:
    tracker = TurnDiffTracker(display_roots={"": "/work"})
    tracker.track_delta(AppliedPatchDelta((AppliedAdd("/elsewhere/x.txt", "x\n"),)))
    assert tracker.get_unified_diff() == (
        "diff --git a//elsewhere/x.txt b//elsewhere/x.txt\n"
        "new file mode 100644\n"
        f"index {ZERO}..{X_OID}\n"
        "--- /dev/null\n"
        "+++ b//elsewhere/x.txt\n"
        "@@ -0,0 +1 @@\n"
        "+x\n"
    )


@pytest.mark.parametrize(
    ("roots", "environment_id", "path", "header"),
    [
        pytest.param(
            {"": "/work"}, "", "/work/src\\main.rs", "a/src/main.rs b/src/main.rs", id="backslash"
        ),
        pytest.param(
            {"local": "/work", "remote": "C:\\repo"},
            "remote",
            "C:\\repo\\src\\main.rs",
            "a/remote/src/main.rs b/remote/src/main.rs",
            id="foreign-windows-root",
        ),
        pytest.param(
            {"": "/work", "remote": "/work"},
            "",
            "/work/a.txt",
            "a/a.txt b/a.txt",
            id="empty-id-is-never-prefixed",
        ),
        pytest.param(
            {"local": "/work", "remote": "/work"},
            "other",
            "/work/a.txt",
            "a/other//work/a.txt b/other//work/a.txt",
            id="unconfigured-environment-is-absolute",
        ),
        pytest.param({"": "/work/"}, "", "/work/a.txt", "a/a.txt b/a.txt", id="trailing-slash"),
        pytest.param({"": "/"}, "", "/a.txt", "a/a.txt b/a.txt", id="filesystem-root"),
        pytest.param(
            {"": "/work"},
            "",
            "/workshop/a.txt",
            "a//workshop/a.txt b//workshop/a.txt",
            id="sibling",
        ),
    ],
)
def test_display_path(roots: dict[str, str], environment_id: str, path: str, header: str) -> None:
    tracker = TurnDiffTracker(display_roots=roots)
    assert _add_header(tracker, path, environment_id) == f"diff --git {header}"


# --------------------------------------------------------------------------------------------
# Property: git apply of the turn diff turns the baseline tree into the current tree.

PATHS = ("a.txt", "b.txt", "c.txt", "d/e.txt", "g/h/i.txt")
WORDS = ("alpha", "beta", "gamma", "alpha", "  indented", "", "tail  ")


@st.composite
def texts(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(WORDS), max_size=6))
    if not lines:
        return ""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    final = draw(st.booleans())
    return eol.join(lines) + (eol if final else "")


def _lines(text: str) -> list[str]:
    """The lines a patch names (terminators dropped), as apply_patch sees them."""
    if not text:
        return []
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    return lines


class _Fresh:
    """Lines no baseline holds: every edit adds one, so no moved file is ever a pure rename."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"fresh {self.n}"


def _draw_hunk(data: st.DataObject, existing: dict[str, str], fresh: _Fresh) -> tuple[str, bool]:
    """One hunk against ``existing`` (path -> text); True if it is meant to fail."""
    kinds = ["add", "fail"] + (["delete", "update", "move", "move"] if existing else [])
    kind = data.draw(st.sampled_from(kinds))
    if kind == "add":
        path = data.draw(st.sampled_from(PATHS))
        lines = data.draw(st.lists(st.sampled_from(WORDS), max_size=3))
        if data.draw(st.booleans()):
            lines.append(fresh())
        return "\n".join([f"*** Add File: {path}", *("+" + line for line in lines)]), False
    if kind == "fail":
        missing = [p for p in PATHS if p not in existing] or ["missing.txt"]
        path = data.draw(st.sampled_from(missing))
        if data.draw(st.booleans()):
            return f"*** Delete File: {path}", True
        return f"*** Update File: {path}\n@@\n-nothing here\n+x", True
    path = data.draw(st.sampled_from(sorted(existing)))
    if kind == "delete":
        return f"*** Delete File: {path}", False
    header = [f"*** Update File: {path}"]
    if kind == "move":
        dest = data.draw(st.sampled_from([p for p in PATHS if p != path]))
        header.append(f"*** Move to: {dest}")
        event("move onto an existing file" if dest in existing else "move to a free path")
    lines = _lines(existing[path])
    added = [fresh(), *data.draw(st.lists(st.sampled_from(WORDS), max_size=1))]
    chunk = ["@@"]
    if lines:
        at = data.draw(st.integers(0, len(lines)))
        removed = data.draw(st.integers(0, min(2, len(lines) - at)))
        if at > 0:
            chunk.append(" " + lines[at - 1])
        chunk.extend("-" + line for line in lines[at : at + removed])
        chunk.extend("+" + line for line in added)
        if at + removed < len(lines):
            chunk.append(" " + lines[at + removed])
    else:
        chunk.extend("+" + line for line in added)
    return "\n".join(header + chunk), False


def _memory_texts(fs: MemoryFilesystem, root: str) -> dict[str, str]:
    prefix = root + "/"
    return {
        path[len(prefix) :]: data.decode()
        for path, data in fs.tree().items()
        if isinstance(data, bytes) and path.startswith(prefix)
    }


def _check_index_lines(diff: str, before: str, after: str) -> None:
    """Every ``index A..B`` names the blobs ``git hash-object`` computes for the two sides."""
    blocks: list[tuple[str, str, str, str]] = []
    lines = diff.split("\n")
    for number, line in enumerate(lines):
        if line.startswith("diff --git a/"):
            left, right = line[len("diff --git a/") :].split(" b/")
            index = next(x for x in lines[number + 1 :] if x.startswith("index "))
            left_oid, right_oid = index[len("index ") :].split("..")
            blocks.append((left, left_oid, right, right_oid))
    paths: list[str] = []
    expected: list[str] = []
    for left, left_oid, right, right_oid in blocks:
        for side_root, rel, got in ((before, left, left_oid), (after, right, right_oid)):
            if got == ZERO:
                assert not Path(side_root, rel).is_file(), rel
            else:
                paths.append(f"{side_root}/{rel}")
                expected.append(got)
    if paths:
        out = git(
            before, "hash-object", "--no-filters", "--stdin-paths", stdin="\n".join(paths).encode()
        )
        assert out.decode().split() == expected


def _record_events(diff: str | None) -> None:
    """Label the example for ``--hypothesis-show-statistics`` (what the run covered)."""
    if diff is None:
        event("no diff")
        return
    headers = [line.split(" ")[2:] for line in diff.split("\n") if line.startswith("diff --git")]
    for label, seen in (
        ("rename block", any(a[2:] != b[2:] for a, b in headers)),
        ("new file", "\nnew file mode" in diff),
        ("deleted file", "\ndeleted file mode" in diff),
        ("modified file", any(a == "a/" + b[2:] for a, b in headers)),
        ("no final newline", "No newline at end of file" in diff),
        ("CRLF lines", "\r\n" in diff),
    ):
        if seen:
            event(label)


@settings(
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(baseline=st.dictionaries(st.sampled_from(PATHS), texts(), max_size=3), data=st.data())
def test_git_apply_of_the_turn_diff_reproduces_the_current_tree(
    baseline: dict[str, str], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        scratch = os.path.realpath(scratch)
        work, replay = f"{scratch}/work", f"{scratch}/replay"
        seed(work, baseline)
        seed(replay, baseline)
        mirror = MemoryFilesystem({f"/m/{rel}": text for rel, text in baseline.items()})
        mirror.create_dirs("/m")
        tracker = TurnDiffTracker({"": work}, display_roots={"": work})
        fresh = _Fresh()
        deltas: list[AppliedPatchDelta] = []

        for _ in range(data.draw(st.integers(1, 5), label="patches")):
            hunks: list[str] = []
            for _ in range(data.draw(st.integers(1, 5), label="hunks")):
                hunk, must_fail = _draw_hunk(data, _memory_texts(mirror, "/m"), fresh)
                hunks.append(hunk)
                # The mirror runs the hunk alone, so the next one is drawn from real contents.
                one = apply_hunks(
                    parse_patch(f"*** Begin Patch\n{hunk}\n*** End Patch").hunks, "/m", mirror
                )
                assert (one.error is not None) == must_fail, one.error
                if must_fail:
                    break
            patch = parse_patch("*** Begin Patch\n" + "\n".join(hunks) + "\n*** End Patch")
            outcome = apply_hunks(patch.hunks, work, LocalFilesystem())
            assert outcome.delta.exact
            tracker.track_delta(outcome.delta)
            tracker.get_unified_diff()
            deltas.append(outcome.delta)
            assert {k: v.encode() for k, v in _memory_texts(mirror, "/m").items()} == files_of(work)

        diff = tracker.get_unified_diff()
        # The cache and the grouping into calls are invisible: one fold of everything agrees.
        once = TurnDiffTracker({"": work}, display_roots={"": work})
        combined = AppliedPatchDelta()
        for delta in deltas:
            combined = combined.append(delta)
        once.track_delta(combined)
        assert once.get_unified_diff() == diff

        # The blocks' texts are the two trees: the baseline's file and the current one.
        current = _memory_texts(mirror, "/m")
        sides = tracker.file_texts()
        assert [(t.old_path, t.path) for t in sides] == [
            (b.old_path, b.path) for b in tracker.file_diffs()
        ]
        for side in sides:
            assert (side.old_absolute, side.absolute) == (
                f"{work}/{side.old_path}",
                f"{work}/{side.path}",
            )
            assert side.before == baseline.get(side.old_path) != side.after
            assert side.after == current.get(side.path)

        _record_events(diff)
        git(replay, "init", "-q")
        if diff is not None:
            assert diff.endswith("\n")
            _check_index_lines(diff, replay, work)
            git_apply(replay, diff)
        assert files_of(replay) == files_of(work)


# -- a write refused before it reached the disk (issue 26, item 4) ------------------------------


@pytest.mark.parametrize(
    ("refused_writes", "kept"), [("invalidate", False), ("keep", True)], ids=["reference", "keep"]
)
def test_a_refused_write_keeps_the_turn_diff_only_with_keep(
    tmp_path: Path, refused_writes: str, kept: bool
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "a.txt").write_text("one\n")
    os.symlink(outside, root / "link")
    options = PipelineOptions.from_strings(
        str(root), approval_policy="never", exclude_tmp=True, refused_writes=refused_writes
    )
    turn = Turn(str(root), options=options)
    first = turn.run("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch")
    refused = turn.run("*** Begin Patch\n*** Add File: link/x.txt\n+x\n*** End Patch")
    assert first.ok and refused.status == "failed"
    target = str(root / "link" / "x.txt")
    # the reference's verdict stays: inexact; what is new is knowing that nothing was written
    assert not refused.delta.exact and refused.delta.refused == (target,)
    assert refused.delta.inexact_only_by_refusals
    assert refused.delta.to_json()["refused"] == [target]
    assert list(outside.iterdir()) == []
    assert turn.tracker.valid is kept
    assert ("+ONE" in turn.turn_diff()) is kept


def test_an_inexact_delta_that_is_not_only_refusals_still_invalidates() -> None:
    tracker = TurnDiffTracker({"": "/r"}, filesystem=MemoryFilesystem())
    delta = AppliedPatchDelta((), exact=False, unknown=("/r/a", "/r/b"), refused=("/r/a",))
    assert not delta.inexact_only_by_refusals
    tracker.track_delta(delta, keep_refused=True)
    assert not tracker.valid
