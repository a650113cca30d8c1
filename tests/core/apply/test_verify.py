"""Verification: the read-only proposed change map and its radius-1 diffs (docs/behaviour.md §5.2,
§4.5)."""

from __future__ import annotations

import pytest

from applypatch_ext.core.apply.changes import ApplyPatchAction, FileAdd, FileDelete, FileUpdate
from applypatch_ext.core.apply.verify import verify_patch
from applypatch_ext.core.errors import ComputeReplacementsError, InvalidPatchError, IoError
from applypatch_ext.core.parse.parser import parse_patch

from ..conftest import Workspace


def verify(ws: Workspace, body: str, **options: str) -> ApplyPatchAction:
    parsed = parse_patch(f"*** Begin Patch\n{body}\n*** End Patch")
    return verify_patch(parsed, ws.root, ws.fs, **options)


def test_map_of_every_kind_and_nothing_written(ws: Workspace) -> None:
    ws.put("del.txt", "bye\n")
    ws.put("mod.txt", "foo\nbar\nbaz\nqux\n")
    before = ws.tree()
    action = verify(
        ws,
        "*** Add File: new/a.txt\n+hi\n*** Delete File: del.txt\n"
        "*** Update File: mod.txt\n*** Move to: moved.txt\n@@\n foo\n-bar\n+BAR\n baz\n-qux\n+QUX",
    )
    assert ws.tree() == before
    assert dict(action.changes) == {
        ws.path("new/a.txt"): FileAdd("hi\n"),
        ws.path("del.txt"): FileDelete("bye\n"),
        ws.path("mod.txt"): FileUpdate(
            "@@ -1,4 +1,4 @@\n foo\n-bar\n+BAR\n baz\n-qux\n+QUX\n",
            ws.path("moved.txt"),
            "foo\nBAR\nbaz\nQUX\n",
        ),
    }
    assert action.cwd == ws.root
    assert action.to_json()[ws.path("mod.txt")] == {
        "type": "update",
        "unified_diff": "@@ -1,4 +1,4 @@\n foo\n-bar\n+BAR\n baz\n-qux\n+QUX\n",
        "move_path": ws.path("moved.txt"),
    }


@pytest.mark.parametrize(
    ("original", "body", "diff"),
    [
        ("foo\nbar\nbaz\n", "@@\n baz\n+quux", "@@ -3 +3,2 @@\n baz\n+quux\n"),
        ("a\nb\nc\n", "@@\n-a\n+A", "@@ -1,2 +1,2 @@\n-a\n+A\n b\n"),
        ("a\nb\nc\n", "@@\n-c\n+C", "@@ -2,2 +2,2 @@\n b\n-c\n+C\n"),
        ("old", "@@\n-old\n+new", "@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n"),
        ("x\r\n", "@@\n-x\n+y", "@@ -1 +1 @@\n-x\r\n+y\r\n"),
    ],
    ids=["append", "first-line", "last-line", "no-final-newline", "crlf-verbatim"],
)
def test_radius_one_diff(ws: Workspace, original: str, body: str, diff: str) -> None:
    ws.put("f.txt", original)
    action = verify(ws, f"*** Update File: f.txt\n{body}")
    change = action.changes[ws.path("f.txt")]
    assert isinstance(change, FileUpdate)
    assert change.unified_diff == diff


@pytest.mark.parametrize("second", ["f.txt", "./f.txt", "sub/../f.txt"])
def test_duplicate_paths_are_rejected_by_default(ws: Workspace, second: str) -> None:
    ws.put("f.txt", "a\n")
    with pytest.raises(InvalidPatchError) as info:
        verify(ws, f"*** Update File: f.txt\n@@\n-a\n+b\n*** Delete File: {second}")
    assert str(info.value) == f"invalid patch: multiple operations target {ws.path('f.txt')}"


def test_fold_mode_keeps_the_later_hunk(ws: Workspace) -> None:
    ws.put("a.txt", "x\n")
    action = verify(
        ws,
        "*** Update File: a.txt\n*** Move to: ../outside/evil.txt\n@@\n-x\n+y\n"
        "*** Add File: a.txt\n+z",
        duplicates="fold",
    )
    assert dict(action.changes) == {ws.path("a.txt"): FileAdd("z\n")}


def test_distinct_sources_moving_to_one_destination_are_accepted(ws: Workspace) -> None:
    ws.put("a.txt", "a\n")
    ws.put("b.txt", "b\n")
    action = verify(
        ws,
        "*** Update File: a.txt\n*** Move to: c.txt\n@@\n-a\n+A\n"
        "*** Update File: b.txt\n*** Move to: c.txt\n@@\n-b\n+B",
    )
    assert len(action.changes) == 2


def test_every_hunk_is_checked_against_the_current_disk(ws: Workspace) -> None:
    # The Add is not simulated: the Update of the same new path fails.
    with pytest.raises(IoError) as info:
        verify(ws, "*** Add File: n.txt\n+x\n*** Update File: m.txt\n@@\n-x\n+y")
    assert str(info.value) == (
        f"Failed to read file to update {ws.path('m.txt')}: No such file or directory (os error 2)"
    )


@pytest.mark.parametrize(
    ("setup", "body", "message"),
    [
        (
            None,
            "*** Delete File: gone.txt",
            "Failed to read {}: No such file or directory (os error 2)",
        ),
        ("dir", "*** Delete File: dir", "Failed to read {}: Is a directory (os error 21)"),
        (
            "bin",
            "*** Delete File: bin.dat",
            "Failed to read {}: invalid utf-8 sequence of 1 bytes from index 0",
        ),
        (
            "dir",
            "*** Update File: dir\n@@\n-a\n+b",
            "Failed to read file to update {}: path `{}` is not a file",
        ),
    ],
    ids=["delete-missing", "delete-directory", "delete-non-utf8", "update-directory"],
)
def test_read_errors(ws: Workspace, setup: str | None, body: str, message: str) -> None:
    if setup == "dir":
        ws.put("dir/inner.txt", "x\n")
    if setup == "bin":
        ws.put("bin.dat", b"\xff")
    path = ws.path(body.split(": ", 1)[1].split("\n", 1)[0])
    with pytest.raises(IoError) as info:
        verify(ws, body)
    assert str(info.value) == message.format(path, path)


def test_match_error_propagates_unchanged(ws: Workspace) -> None:
    ws.put("m.txt", "a\n")
    with pytest.raises(ComputeReplacementsError) as info:
        verify(ws, "*** Update File: m.txt\n@@\n-missing\n+b")
    assert str(info.value) == f"Failed to find expected lines in {ws.path('m.txt')}:\nmissing"


def test_lf_mode_is_used_for_new_content(ws: Workspace) -> None:
    ws.put("f.txt", "one\r\ntwo\r\n")
    action = verify(ws, "*** Update File: f.txt\n@@\n-one\n+uno", line_endings="lf")
    change = action.changes[ws.path("f.txt")]
    assert isinstance(change, FileUpdate) and change.new_content == "uno\ntwo\r\n"


def test_empty_patch_gives_an_empty_map(ws: Workspace) -> None:
    parsed = parse_patch("*** Begin Patch\n*** End Patch")
    assert verify_patch(parsed, ws.root, ws.fs).is_empty()
