"""Per-file and per-hunk review, re-verification on resume, decline with a reason (issue 17,
items 1-3; docs/behaviour.md §6.7-§6.9), on real files, trees compared whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.options import (
    Answer,
    CallStatus,
    Decision,
    PipelineOptions,
    options_of,
)
from applypatch_ext.core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.review import (
    NOT_APPLIED,
    normalize_selection,
    not_applied,
    review_files,
    select_hunks,
)
from applypatch_ext.core.turn.stages import CHANGED_WHILE_WAITING
from applypatch_ext.core.turn.turn import ApplyPatchCall, Turn
from tests.trees import snapshot_dir

THREE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
PATCH = (
    "*** Begin Patch\n"
    "*** Update File: a.txt\n"
    "@@\n-one\n+ONE\n"
    "@@\n four\n-five\n+FIVE\n"
    "@@\n-nine\n+NINE\n"
    "*** Add File: b.txt\n+bee\n"
    "*** Delete File: c.txt\n"
    "*** End Patch"
)


def workspace(root: Path, **options: Any) -> PipelineOptions:
    sandbox = SandboxPolicy(
        PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
    )
    return PipelineOptions(**{"sandbox": sandbox, **options})


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def start(root: Path, text: str, **options: Any) -> tuple[Turn, ApplyPatchCall]:
    turn = Turn(str(root), options=workspace(root, **options), filesystem=LocalFilesystem())
    call = turn.call()
    call.push_delta(text)
    return turn, call


def types(result: CallResult) -> list[str]:
    return [e.event.type for e in result.events]


def event(result: CallResult, kind: str, n: int = -1) -> dict[str, Any]:
    found = [e.event.to_json() for e in result.events if e.event.type == kind]
    return found[n]


# -- the selection -> the patch of the selected hunks ------------------------------------------


def test_a_selection_is_a_new_patch_in_canonical_text() -> None:
    parsed = parse_patch(PATCH)
    selection = normalize_selection(parsed, {"a.txt": [0, 2], "b.txt": True, "c.txt": False})
    selected = select_hunks(parsed, selection)
    assert selected is not None
    assert selected.patch == (
        "*** Begin Patch\n"
        "*** Update File: a.txt\n@@\n-one\n+ONE\n@@\n-nine\n+NINE\n"
        "*** Add File: b.txt\n+bee\n"
        "*** End Patch"
    )
    assert parse_patch(selected.patch).hunks == selected.hunks  # it parses back to itself
    assert not_applied(selection) == [
        "not applied, by the user: a.txt chunk 2 of 3",
        "not applied, by the user: c.txt",
    ]
    assert selection.to_json() == {"a.txt": [0, 2], "b.txt": True, "c.txt": False}


def test_everything_and_nothing() -> None:
    parsed = parse_patch(PATCH)
    assert normalize_selection(parsed, {"a.txt": True, "b.txt": True, "c.txt": True}).everything
    assert normalize_selection(
        parsed, {"a.txt": [0, 1, 2], "b.txt": True, "c.txt": True}
    ).everything
    nothing = normalize_selection(parsed, {"a.txt": [], "b.txt": False})
    assert nothing.nothing and select_hunks(parsed, nothing) is None
    assert normalize_selection(parsed, {}).nothing  # an approval covers what it names
    # an added or deleted file left out is not everything, the rest kept whole or not
    for left_out in ("b.txt", "c.txt"):
        accept = {"a.txt": True, "b.txt": True, "c.txt": True, left_out: False}
        partial = normalize_selection(parsed, accept)
        assert not partial.everything and not partial.nothing
        kept = select_hunks(parsed, partial)
        assert kept is not None and left_out not in kept.patch
        assert not_applied(partial) == [f"not applied, by the user: {left_out}"]
    assert not_applied(nothing) == [
        "not applied, by the user: a.txt",
        "not applied, by the user: b.txt",
        "not applied, by the user: c.txt",
    ]


@pytest.mark.parametrize(
    ("accept", "message"),
    [
        (
            {"z.txt": True},
            "accept: 'z.txt' is not a path of this patch; its paths are: a.txt, b.txt, c.txt",
        ),
        (
            {"a.txt": [3]},
            "accept: 'a.txt': chunk index 3 is out of range; it has 3 chunks, indexes 0 to 2",
        ),
        (
            {"b.txt": [0]},
            "accept: 'b.txt' is an added file: accept it whole (True) or not at all (False), "
            "not by chunk",
        ),
        (
            {"c.txt": [0]},
            "accept: 'c.txt' is a deleted file: accept it whole (True) or not at all (False), "
            "not by chunk",
        ),
        ({"a.txt": "0"}, "accept: 'a.txt': give True, False or a list of chunk indexes, not '0'"),
        ({"a.txt": [True]}, "accept: 'a.txt': chunk indexes are integers, got True"),
    ],
)
def test_a_bad_selection_says_what_is_valid(accept: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        normalize_selection(parse_patch(PATCH), accept)
    assert str(raised.value) == message


def test_a_move_is_all_or_nothing() -> None:
    parsed = parse_patch(
        "*** Begin Patch\n*** Update File: m.txt\n*** Move to: n.txt\n@@\n-a\n+A\n*** End Patch"
    )
    with pytest.raises(ValueError, match=r"'m\.txt' is a file moved to n\.txt: accept it whole"):
        normalize_selection(parsed, {"m.txt": [0]})
    kept = select_hunks(parsed, normalize_selection(parsed, {"m.txt": True}))
    assert kept is not None and kept.hunks == parsed.hunks


# -- partial approval through the pipeline ------------------------------------------------------


def test_partial_approval_applies_the_selected_hunks_only(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    _turn, call = start(tmp_path, PATCH, review=True)
    waiting = call.run()
    assert waiting.status == CallStatus.AWAITING_APPROVAL
    assert event(waiting, "patch_apply_begin")["auto_approved"] is False  # --review asks
    assert call.reviewable
    result = call.resume("approve", accept={"a.txt": [0, 2], "b.txt": True})
    assert result.status == CallStatus.COMPLETED
    assert snapshot_dir(tmp_path) == {
        "a.txt": THREE.replace("one", "ONE").replace("nine", "NINE").encode(),
        "b.txt": b"bee\n",
        "c.txt": b"sea\n",
    }
    skipped = "not applied, by the user: a.txt chunk 2 of 3\nnot applied, by the user: c.txt\n"
    assert result.stdout == f"Success. Updated the following files:\nA b.txt\nM a.txt\n{skipped}"
    assert result.output.endswith(f"Output:\n{result.stdout}")
    assert event(result, "patch_apply_end")["stdout"] == result.stdout
    assert result.not_applied == (
        "not applied, by the user: a.txt chunk 2 of 3",
        "not applied, by the user: c.txt",
    )
    assert result.selected is not None and "-five" not in result.selected.patch
    decision = event(result, "apply_patch_approval_decision")
    assert decision["accept"] == {"a.txt": [0, 2], "b.txt": True, "c.txt": False}
    # the selection is a new patch: assessed again, then applied at once (inside the root)
    assert types(result).count("patch_safety_assessed") == 2
    assert types(result).count("apply_patch_approval_request") == 1
    assert [c.path for c in result.delta.changes] == [f"{tmp_path}/a.txt", f"{tmp_path}/b.txt"]
    assert result.delta.exact
    assert result.turn_diff is not None and "c.txt" not in result.turn_diff


def test_a_fixed_answer_with_a_selection(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    turn = Turn(str(tmp_path), options=workspace(tmp_path, review=True))
    result = turn.run(PATCH, Answer(Decision.APPROVE, accept={"a.txt": [1], "c.txt": True}))
    assert result.status == CallStatus.COMPLETED
    assert snapshot_dir(tmp_path) == {"a.txt": THREE.replace("five", "FIVE").encode()}
    assert result.not_applied == (
        "not applied, by the user: a.txt chunk 1 of 3",
        "not applied, by the user: a.txt chunk 3 of 3",
        "not applied, by the user: b.txt",
    )


def test_a_selection_reaching_outside_the_root_is_approved_by_its_answer(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(tmp_path, {"root/in.txt": "in\n", "outside/out.txt": "out\n"})
    text = (
        "*** Begin Patch\n*** Update File: in.txt\n@@\n-in\n+IN\n"
        f"*** Update File: {outside}/out.txt\n@@\n-out\n+OUT\n*** End Patch"
    )
    _turn, call = start(root, text)
    first = call.run()
    assert first.status == CallStatus.AWAITING_APPROVAL  # outside the root: asks
    assert first.pending_request is not None
    assert list(first.pending_request.changes) == [f"{root}/in.txt", f"{outside}/out.txt"]
    done = call.resume("approve", accept={f"{outside}/out.txt": True})
    # the request showed out.txt's change: approving it approves it, no second request
    assert done.status == CallStatus.COMPLETED
    assert types(done).count("apply_patch_approval_request") == 1
    assert types(done).count("patch_safety_assessed") == 2  # the selection is assessed again
    assert event(done, "patch_safety_assessed")["decision"] == "ask-user"
    assert snapshot_dir(tmp_path) == {
        "outside": None,
        "outside/out.txt": b"OUT\n",
        "root": None,
        "root/in.txt": b"in\n",
    }
    assert done.stdout.endswith("not applied, by the user: in.txt\n")
    assert [c.path for c in done.delta.changes] == [f"{outside}/out.txt"]


@pytest.mark.parametrize(
    ("accept", "written"),
    [
        ({"a.txt": [0], "b.txt": False}, {"a.txt": "ONE\ntwo\n", "b.txt": "bee\n"}),
        ({"a.txt": True, "b.txt": True}, {"a.txt": "ONE\nTWO\n", "b.txt": "BEE\n"}),
        ({"b.txt": True}, {"a.txt": "one\ntwo\n", "b.txt": "BEE\n"}),
    ],
    ids=["a-chunk", "everything", "one-file"],
)
def test_untrusted_approving_a_selection_approves_it(
    tmp_path: Path, accept: dict[str, Any], written: dict[str, str]
) -> None:
    # issue 23 item 7: under untrusted every patch asks, the selection's own patch too; it was
    # asked for again, so a second decide("approve") was needed
    write(tmp_path, {"a.txt": "one\ntwo\n", "b.txt": "bee\n"})
    text = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n@@\n-two\n+TWO\n"
        "*** Update File: b.txt\n@@\n-bee\n+BEE\n*** End Patch"
    )
    _turn, call = start(tmp_path, text, approval_policy=ApprovalPolicy.parse("untrusted"))
    assert call.run().status == CallStatus.AWAITING_APPROVAL
    done = call.resume("approve", accept=accept)
    assert done.status == CallStatus.COMPLETED
    assert types(done).count("apply_patch_approval_request") == 1
    assert snapshot_dir(tmp_path) == {k: v.encode() for k, v in written.items()}


def test_a_selection_inside_the_root_applies_without_a_second_request(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(tmp_path, {"root/in.txt": "in\n", "outside/out.txt": "out\n"})
    text = (
        "*** Begin Patch\n*** Update File: in.txt\n@@\n-in\n+IN\n"
        f"*** Update File: {outside}/out.txt\n@@\n-out\n+OUT\n*** End Patch"
    )
    _turn, call = start(root, text)
    call.run()
    done = call.resume("approve", accept={"in.txt": True})
    assert done.status == CallStatus.COMPLETED
    assert event(done, "patch_safety_assessed")["decision"] == "auto-approve"
    assert (root / "in.txt").read_text() == "IN\n" and (outside / "out.txt").read_text() == "out\n"


def test_nothing_selected_applies_nothing_and_says_so(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    before = snapshot_dir(tmp_path)
    _turn, call = start(tmp_path, PATCH, review=True)
    call.run()
    result = call.resume("approve", accept={"a.txt": False})
    assert result.status == CallStatus.DECLINED
    assert result.output == (
        "patch rejected by user\nnot applied, by the user: a.txt\n"
        "not applied, by the user: b.txt\nnot applied, by the user: c.txt"
    )
    assert snapshot_dir(tmp_path) == before and result.delta.is_empty()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"decision": "approve", "reason": "why"}, "a reason goes with a decline"),
        ({"decision": "decline", "accept": {"a.txt": True}}, "give it with approve"),
        ({"decision": "approve", "accept": {"a.txt": [7]}}, "chunk index 7 is out of range"),
    ],
)
def test_a_bad_answer_leaves_the_call_waiting(
    tmp_path: Path, kwargs: dict[str, Any], message: str
) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    _turn, call = start(tmp_path, PATCH, review=True)
    call.run()
    with pytest.raises(ValueError, match=message):
        call.resume(**kwargs)
    assert call.result is not None and call.result.status == CallStatus.AWAITING_APPROVAL
    assert call.resume("approve").status == CallStatus.COMPLETED


# -- an approval covers what was shown ---------------------------------------------------------


def test_an_edit_that_changes_the_diff_asks_again(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "one\ntwo\n"})
    _turn, call = start(
        tmp_path,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch",
        review=True,
    )
    first = call.run()
    shown = first.pending_request
    assert shown is not None
    (tmp_path / "a.txt").write_text("one\nTWO, edited while waiting\n")
    again = call.resume("approve")
    assert again.status == CallStatus.AWAITING_APPROVAL
    request = again.pending_request
    assert request is not None and request.reason == CHANGED_WHILE_WAITING + "a.txt"
    diff = request.changes[f"{tmp_path}/a.txt"]["unified_diff"]
    assert diff == "@@ -1,2 +1,2 @@\n-one\n+ONE\n TWO, edited while waiting\n"
    assert diff != shown.changes[f"{tmp_path}/a.txt"]["unified_diff"]
    assert snapshot_dir(tmp_path) == {"a.txt": b"one\nTWO, edited while waiting\n"}  # unwritten
    done = call.resume("approve")
    assert done.status == CallStatus.COMPLETED
    assert snapshot_dir(tmp_path) == {"a.txt": b"ONE\nTWO, edited while waiting\n"}
    assert types(done).count("apply_patch_approval_request") == 2


def test_an_edit_outside_the_diff_applies_at_once(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "one\ntwo\nthree\nfour\n"})
    _turn, call = start(
        tmp_path,
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch",
        review=True,
    )
    call.run()
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\nfour\nfive, added meanwhile\n")
    done = call.resume("approve")
    assert done.status == CallStatus.COMPLETED
    assert types(done).count("apply_patch_approval_request") == 1
    assert snapshot_dir(tmp_path) == {"a.txt": b"ONE\ntwo\nthree\nfour\nfive, added meanwhile\n"}


def test_an_edit_that_breaks_the_patch_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "one\n", "b.txt": "bee\n"})
    text = (
        "*** Begin Patch\n*** Update File: b.txt\n@@\n-bee\n+BEE\n"
        "*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch"
    )
    _turn, call = start(tmp_path, text, review=True)
    call.run()
    (tmp_path / "a.txt").write_text("uno\n")
    done = call.resume("approve")
    assert done.status == CallStatus.FAILED
    assert done.output == (
        f"apply_patch verification failed: Failed to find expected lines in {tmp_path}/a.txt:\none"
    )
    assert event(done, "patch_apply_end")["status"] == "failed"
    assert snapshot_dir(tmp_path) == {"a.txt": b"uno\n", "b.txt": b"bee\n"}


# -- fuzzy matches are marked ------------------------------------------------------------------


def test_the_review_marks_fuzzy_chunks_with_the_files_line(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "alpha  \nbeta\n\u201cquoted\u201d \u2014 dash\nomega\n"})
    text = (
        "*** Begin Patch\n*** Update File: a.txt\n"
        "@@\n-alpha\n+ALPHA\n"
        '@@\n-"quoted" - dash\n+QUOTED\n'
        "@@\n-omega\n+OMEGA\n"
        "*** End Patch"
    )
    _turn, call = start(tmp_path, text, review=True)
    call.run()
    (entry,) = call.review()
    assert entry["path"] == "a.txt" and entry["kind"] == "update" and not entry["whole"]
    first, second, third = entry["chunks"]
    assert (first["pass"], first["fuzzy"], first["line"]) == ("rstrip", True, 1)
    assert first["pairs"] == [{"patch": "alpha", "file": "alpha  "}]
    assert first["note"] == "matched by the rstrip pass: the file's text differs from the patch's"
    assert second["pass"] == "punctuation" and second["line"] == 3
    assert second["pairs"] == [
        {"patch": '"quoted" - dash', "file": "\u201cquoted\u201d \u2014 dash"}
    ]
    assert (third["pass"], third["fuzzy"], third["pairs"], third["note"]) == (
        "exact",
        False,
        [],
        "",
    )
    assert third["text"] == "@@\n-omega\n+OMEGA"
    done = call.resume("approve")
    assert done.status == CallStatus.COMPLETED
    assert call.review() == []  # nothing waits any more


def test_review_files_lists_whole_files(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    entries = review_files(parse_patch(PATCH), str(tmp_path), LocalFilesystem())
    assert [(e["path"], e["kind"], e["whole"], len(e["chunks"])) for e in entries] == [
        ("a.txt", "update", False, 3),
        ("b.txt", "add", True, 0),
        ("c.txt", "delete", True, 0),
    ]
    assert [c["index"] for c in entries[0]["chunks"]] == [0, 1, 2]
    assert entries[1]["text"] == "*** Add File: b.txt\n+bee"


def test_review_files_words_every_label_the_views_show(tmp_path: Path) -> None:
    """The labels of a review's files and chunks are worded here, once: the widget and the
    records show them (tests/jupyter: test_js, test_review_magic, test_review_browser); a
    chunk's name is what the model reads when it is left out."""
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n", "m.txt": "em\n"})
    text = PATCH.replace(
        "*** End Patch",
        f"*** Update File: {tmp_path}/m.txt\n*** Move to: {tmp_path}/n.txt\n@@\n-em\n+EM\n"
        "*** Update File: a.txt\n@@\n-absent\n+ABSENT\n*** End Patch",
    )
    entries = review_files(parse_patch(text), str(tmp_path), LocalFilesystem())
    assert [e["label"] for e in entries] == [
        "a.txt (updated, 3 chunks)",
        "b.txt (added, all or nothing)",
        "c.txt (deleted, all or nothing)",
        "m.txt (moved to n.txt, all or nothing)",  # paths as a user reads them, under cwd
        "a.txt (updated, 1 chunk)",
    ]
    first, second = entries[0], entries[-1]
    # counted over every Update hunk of the path, as a selection counts them
    assert [c["name"] for c in first["chunks"] + second["chunks"]] == [
        f"a.txt chunk {k} of 4" for k in (1, 2, 3, 4)
    ]
    assert first["chunks"][0]["label"] == "a.txt chunk 1 of 4, line 1"
    assert second["chunks"][0]["label"] == "a.txt chunk 4 of 4"  # no match: no line to name
    whole = {path: True for path in ("b.txt", "c.txt", f"{tmp_path}/m.txt")}
    selection = normalize_selection(parse_patch(text), {"a.txt": [0, 1, 2], **whole})
    assert not_applied(selection) == [f"{NOT_APPLIED}{second['chunks'][0]['name']}"]


# -- decline with a reason ---------------------------------------------------------------------


def test_a_declines_reason_reaches_the_model_and_the_end_event(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    before = snapshot_dir(tmp_path)
    _turn, call = start(tmp_path, PATCH, review=True)
    call.run()
    result = call.resume("decline", reason="  keep c.txt; use a constant  ")
    expected = "patch rejected by user\nThe user's reason: keep c.txt; use a constant"
    assert result.status == CallStatus.DECLINED
    assert result.output == expected and result.stderr == expected
    end = event(result, "patch_apply_end")
    assert end["status"] == "declined" and end["stderr"] == expected
    assert event(result, "apply_patch_approval_decision")["reason"] == "keep c.txt; use a constant"
    assert snapshot_dir(tmp_path) == before


def test_a_decline_without_a_reason_keeps_the_reference_text(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    turn = Turn(str(tmp_path), options=workspace(tmp_path, review=True))
    result = turn.run(PATCH, Answer(Decision.DECLINE, reason="   "))
    assert result.output == "patch rejected by user"
    assert "reason" not in event(result, "apply_patch_approval_decision")


def test_review_is_a_call_option_of_the_one_table(tmp_path: Path) -> None:
    from applypatch_ext.core.turn.options import FrontEnd

    names = {o.name for o in options_of(FrontEnd.MAGIC)} & {
        o.name for o in options_of(FrontEnd.TURN)
    }
    assert "--review" in names
    assert PipelineOptions.from_strings(str(tmp_path), review=True).review


def test_approve_for_session_with_a_selection_grants_only_the_selection(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": THREE, "c.txt": "sea\n"})
    turn, call = start(tmp_path, PATCH, review=True)
    call.run()
    call.resume("approve-for-session", accept={"b.txt": True})
    assert turn.session_approvals == {("", f"{tmp_path}/b.txt")}


def test_leaving_out_only_an_added_file_applies_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    turn = Turn(str(tmp_path))
    call = turn.call(options=PipelineOptions(review=True))
    call.push_delta(
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: new.txt\n+n\n"
        "*** End Patch"
    )
    assert call.run().status == CallStatus.AWAITING_APPROVAL
    result = call.resume("approve-for-session", accept={"a.txt": True, "new.txt": False})
    assert result.status == CallStatus.COMPLETED
    assert snapshot_dir(tmp_path) == {"a.txt": b"A\n"}
    assert result.not_applied == ("not applied, by the user: new.txt",)
    # the session grant covers what was written, not the file left out
    assert ("", str(tmp_path / "a.txt")) in turn.session_approvals
    assert ("", str(tmp_path / "new.txt")) not in turn.session_approvals
