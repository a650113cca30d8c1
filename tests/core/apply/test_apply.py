"""Application hunk by hunk and the committed delta (docs/behaviour.md §5.3, §5.4), on disk and in
memory."""

from __future__ import annotations

import pytest

from applypatch_ext.core.apply.changes import (
    AppliedAdd,
    AppliedDelete,
    AppliedPatchDelta,
    AppliedUpdate,
)
from applypatch_ext.core.apply.runtime import ApplyOutcome, apply_hunks
from applypatch_ext.core.apply.standalone import apply_patch
from applypatch_ext.core.errors import CancelledError, ComputeReplacementsError, IoError
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.faults import FaultyFilesystem

from ..conftest import Workspace


def run(ws: Workspace, body: str, *faults: str, line_endings: str = "preserve") -> ApplyOutcome:
    fs = FaultyFilesystem.from_specs(ws.fs, list(faults), ws.root) if faults else ws.fs
    parsed = parse_patch(f"*** Begin Patch\n{body}\n*** End Patch")
    from applypatch_ext.core.text import LineEndings

    return apply_hunks(parsed.hunks, ws.root, fs, LineEndings(line_endings))


def test_add_new_file_records_no_overwritten_content(ws: Workspace) -> None:
    out = run(ws, "*** Add File: dir/new.txt\n+hello")
    assert out.ok
    assert out.delta == AppliedPatchDelta((AppliedAdd(ws.path("dir/new.txt"), "hello\n"),), True)
    assert ws.get("dir/new.txt") == b"hello\n"


def test_add_over_existing_file_records_what_it_overwrote(ws: Workspace) -> None:
    ws.put("a.txt", "old\n")
    out = run(ws, "*** Add File: a.txt\n+new")
    assert out.delta == AppliedPatchDelta((AppliedAdd(ws.path("a.txt"), "new\n", "old\n"),))


def test_add_over_non_utf8_file_is_inexact(ws: Workspace) -> None:
    ws.put("bin.dat", b"\xff\xfe\x00")
    out = run(ws, "*** Add File: bin.dat\n+text")
    assert out.ok
    assert out.delta == AppliedPatchDelta((AppliedAdd(ws.path("bin.dat"), "text\n", None),), False)
    assert ws.get("bin.dat") == b"text\n"


def test_add_through_symlink_is_inexact_and_writes_the_target(ws: Workspace) -> None:
    ws.put("target.txt", "t\n")
    ws.symlink("link.txt", "target.txt")
    out = run(ws, "*** Add File: link.txt\n+via link")
    assert out.ok and not out.delta.exact
    assert ws.get("target.txt") == b"via link\n"


def test_add_write_failure_is_inexact_with_the_reference_text(ws: Workspace) -> None:
    out = run(ws, "*** Add File: a.txt\n+x", "write:1")
    assert isinstance(out.error, IoError)
    assert str(out.error) == f"Failed to write file {ws.path('a.txt')}"
    assert out.delta == AppliedPatchDelta((), False)


def test_add_under_a_file_fails_to_write(ws: Workspace) -> None:
    ws.put("file", "x\n")
    out = run(ws, "*** Add File: file/child.txt\n+x")
    assert str(out.error) == f"Failed to write file {ws.path('file/child.txt')}"
    assert not out.delta.exact


def test_delete_records_the_removed_text(ws: Workspace) -> None:
    ws.put("gone.txt", "bye\n")
    out = run(ws, "*** Delete File: gone.txt")
    assert out.delta == AppliedPatchDelta((AppliedDelete(ws.path("gone.txt"), "bye\n"),), True)
    assert not ws.exists("gone.txt")


def test_delete_symlink_removes_the_link_only_and_is_inexact(ws: Workspace) -> None:
    ws.put("target.txt", "t\n")
    ws.symlink("link.txt", "target.txt")
    out = run(ws, "*** Delete File: link.txt")
    assert out.ok and not out.delta.exact
    assert not ws.exists("link.txt")
    assert ws.get("target.txt") == b"t\n"


def test_delete_non_utf8_file_succeeds_inexact_without_a_change(ws: Workspace) -> None:
    ws.put("bin.dat", b"\xff")
    out = run(ws, "*** Delete File: bin.dat")
    assert out.ok
    assert out.delta == AppliedPatchDelta((), False)
    assert not ws.exists("bin.dat")


def test_delete_failure_keeps_exact_when_the_file_is_unchanged(ws: Workspace) -> None:
    ws.put("keep.txt", "k\n")
    out = run(ws, "*** Delete File: keep.txt", "delete:keep.txt")
    assert str(out.error) == f"Failed to delete file {ws.path('keep.txt')}"
    assert out.delta == AppliedPatchDelta((), True)
    assert ws.get("keep.txt") == b"k\n"


@pytest.mark.parametrize("missing", [True, False], ids=["missing", "directory"])
def test_delete_missing_or_directory_fails(ws: Workspace, missing: bool) -> None:
    if not missing:
        ws.put("dir/inner.txt", "x\n")
    out = run(ws, "*** Delete File: dir" if not missing else "*** Delete File: nope")
    assert str(out.error) == f"Failed to delete file {ws.path('nope' if missing else 'dir')}"
    assert out.delta.changes == ()
    if not missing:
        assert ws.get("dir/inner.txt") == b"x\n"


def test_update_in_place(ws: Workspace) -> None:
    ws.put("m.txt", "a\nb\n")
    out = run(ws, "*** Update File: m.txt\n@@\n-a\n+A")
    assert out.delta == AppliedPatchDelta(
        (AppliedUpdate(ws.path("m.txt"), None, "a\nb\n", None, "A\nb\n"),)
    )


def test_update_match_failure_has_no_side_effects(ws: Workspace) -> None:
    ws.put("a.txt", "a\n")
    ws.put("m.txt", "x\n")
    out = run(ws, "*** Add File: new.txt\n+n\n*** Update File: m.txt\n@@\n-missing\n+y")
    assert isinstance(out.error, ComputeReplacementsError)
    assert str(out.error) == f"Failed to find expected lines in {ws.path('m.txt')}:\nmissing"
    assert out.delta == AppliedPatchDelta((AppliedAdd(ws.path("new.txt"), "n\n"),), True)
    assert out.affected.added == ("new.txt",)


def test_update_read_failure_text(ws: Workspace) -> None:
    ws.put("bin.dat", b"ok\n\xc3")
    out = run(ws, "*** Update File: bin.dat\n@@\n-ok\n+no")
    assert str(out.error) == (
        f"Failed to read file to update {ws.path('bin.dat')}: "
        "incomplete utf-8 byte sequence from index 3"
    )
    assert out.delta == AppliedPatchDelta((), True)


def test_update_write_failure_is_inexact(ws: Workspace) -> None:
    ws.put("m.txt", "a\n")
    out = run(ws, "*** Update File: m.txt\n@@\n-a\n+b", "write:m.txt")
    assert str(out.error) == f"Failed to write file {ws.path('m.txt')}"
    assert out.delta == AppliedPatchDelta((), False)


def test_move_records_update_with_destination(ws: Workspace) -> None:
    ws.put("src.txt", "line\n")
    out = run(ws, "*** Update File: src.txt\n*** Move to: deep/er/dst.txt\n@@\n-line\n+line2")
    assert out.delta == AppliedPatchDelta(
        (AppliedUpdate(ws.path("src.txt"), ws.path("deep/er/dst.txt"), "line\n", None, "line2\n"),)
    )
    assert not ws.exists("src.txt")
    assert out.affected.modified == ("deep/er/dst.txt",)


def test_move_onto_existing_file_records_overwritten_content(ws: Workspace) -> None:
    ws.put("a.txt", "from\n")
    ws.put("b.txt", "existing\n")
    out = run(ws, "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-from\n+new")
    assert out.delta.changes == (
        AppliedUpdate(ws.path("a.txt"), ws.path("b.txt"), "from\n", "existing\n", "new\n"),
    )
    assert out.delta.exact


def test_move_onto_non_utf8_destination_is_inexact(ws: Workspace) -> None:
    ws.put("a.txt", "from\n")
    ws.put("b.txt", b"\xff")
    out = run(ws, "*** Update File: a.txt\n*** Move to: b.txt\n@@\n-from\n+new")
    assert out.ok and not out.delta.exact
    assert out.delta.changes[0] == AppliedUpdate(
        ws.path("a.txt"), ws.path("b.txt"), "from\n", None, "new\n"
    )


def test_failed_move_keeps_the_provisional_add(ws: Workspace) -> None:
    ws.put("src.txt", "line\n")
    out = run(
        ws,
        "*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+line2",
        "remove-source:src.txt",
    )
    assert str(out.error) == f"Failed to remove original {ws.path('src.txt')}"
    assert out.delta == AppliedPatchDelta((AppliedAdd(ws.path("dst.txt"), "line2\n", None),), True)
    assert ws.get("src.txt") == b"line\n"
    assert ws.get("dst.txt") == b"line2\n"


def test_move_destination_write_failure(ws: Workspace) -> None:
    ws.put("src.txt", "line\n")
    out = run(ws, "*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+x", "write:1")
    assert str(out.error) == f"Failed to write file {ws.path('dst.txt')}"
    assert out.delta == AppliedPatchDelta((), False)
    assert ws.get("src.txt") == b"line\n"


def test_two_hunks_on_one_path_both_run_in_order(ws: Workspace) -> None:
    ws.put("f.txt", "one\n")
    out = run(
        ws, "*** Update File: f.txt\n@@\n-one\n+two\n*** Update File: f.txt\n@@\n-two\n+three"
    )
    assert out.ok
    assert ws.get("f.txt") == b"three\n"
    assert [c.type for c in out.delta.changes] == ["update", "update"]


def test_cancellation_keeps_what_was_written(ws: Workspace) -> None:
    out = run(ws, "*** Add File: a.txt\n+a\n*** Add File: b.txt\n+b", "cancel:2")
    assert isinstance(out.error, CancelledError)
    assert out.delta == AppliedPatchDelta((AppliedAdd(ws.path("a.txt"), "a\n"),), True)
    assert ws.exists("a.txt") and not ws.exists("b.txt")


def test_special_file_target_is_inexact(ws: Workspace) -> None:
    if ws.memory is None:
        import os

        os.mkfifo(ws.path("fifo"))
    else:
        ws.memory.add_special(ws.path("fifo"))
    out = run(ws, "*** Delete File: fifo")
    assert not out.delta.exact


def test_no_hunks() -> None:
    out = apply_hunks((), "/", None)  # type: ignore[arg-type]
    assert str(out.error) == "No files were modified."


def test_append_ands_exactness() -> None:
    a = AppliedPatchDelta((AppliedAdd("/a", "x\n"),), True)
    b = AppliedPatchDelta((AppliedDelete("/b", "y\n"),), False)
    assert a.append(b) == AppliedPatchDelta(a.changes + b.changes, False)
    assert a.append(AppliedPatchDelta()).exact


def test_apply_patch_result_for_bad_patch_and_success(ws: Workspace) -> None:
    bad = apply_patch("nope", ws.root, filesystem=ws.fs)
    assert (bad.exit_code, bad.stdout, bad.stderr) == (
        1,
        "",
        "Invalid patch: The first line of the patch must be '*** Begin Patch'\n",
    )
    good = apply_patch(
        "*** Begin Patch\n*** Add File: x\n+1\n*** End Patch", ws.root, filesystem=ws.fs
    )
    assert good.exit_code == 0 and good.stdout.endswith("A x\n")
    assert good.delta.changes == (AppliedAdd(ws.path("x"), "1\n"),)
    assert len(good.hunks) == 1


def test_apply_patch_rejects_a_bad_mode_value() -> None:
    with pytest.raises(ValueError):
        apply_patch("", line_endings="crlf")
