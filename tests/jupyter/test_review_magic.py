"""Review through a real IPython shell (issue 17, items 1-3; docs/behaviour.md §6.7-§6.9): a file
edited while its call waits, partial approval from code, from the magic and from the widget's
message, a decline with a reason. Trees compared whole (tests/trees.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn.stages import CHANGED_WHILE_WAITING
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from tests.trees import snapshot_dir_with_modes

from .conftest import Magic, Run

NINE = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n"
PATCH = """*** Begin Patch
*** Update File: a.txt
@@
-one
+ONE
@@
 four
-five
+FIVE
@@
-nine
+NINE
*** Add File: b.txt
+bee
*** Delete File: c.txt
*** End Patch"""
WAIT = "result --review --stream-chunk 0"


def setup_files(root: Path) -> None:
    (root / "a.txt").write_text(NINE)
    (root / "c.txt").write_text("sea\n")
    (root / "c.txt").chmod(0o600)


def test_a_review_lists_every_file_and_chunk(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    setup_files(tmp_path)
    run = run_magic(WAIT, PATCH)
    widget, result = run.widget, ip.user_ns["result"]
    assert widget.status == result.status == "awaiting-approval"  # --review asks inside the root
    assert widget.review["selectable"] is True
    files = widget.review["files"]
    assert [(f["path"], f["kind"], f["whole"], len(f["chunks"])) for f in files] == [
        ("a.txt", "update", False, 3),
        ("b.txt", "add", True, 0),
        ("c.txt", "delete", True, 0),
    ]
    assert files[0]["chunks"][1]["text"] == "@@\n four\n-five\n+FIVE"
    assert result.review == files
    assert any(u.get("review") == widget.review for u in widget.updates())  # sent to the view


def test_partial_approval_from_code(ip: InteractiveShell, run_magic: Magic, tmp_path: Path) -> None:
    setup_files(tmp_path)
    before = snapshot_dir_with_modes(tmp_path)
    run_magic(WAIT, PATCH)
    result = ip.user_ns["result"]
    result.decide("approve", accept={"a.txt": [0, 2], "b.txt": True})
    assert result.status == "completed"
    after = snapshot_dir_with_modes(tmp_path)
    assert after == {
        "a.txt": (NINE.replace("one", "ONE").replace("nine", "NINE").encode(), before["a.txt"][1]),
        "b.txt": (b"bee\n", after["b.txt"][1]),
        "c.txt": before["c.txt"],  # kept, with its mode
    }
    assert result.not_applied == [
        "not applied, by the user: a.txt chunk 2 of 3",
        "not applied, by the user: c.txt",
    ]
    assert result.output.endswith(
        "Output:\nSuccess. Updated the following files:\nA b.txt\nM a.txt\n"
        "not applied, by the user: a.txt chunk 2 of 3\nnot applied, by the user: c.txt\n"
    )
    assert result.selected_patch is not None and "five" not in result.selected_patch
    assert [c["path"] for c in result.delta["changes"]] == [
        str(tmp_path / "a.txt"),
        str(tmp_path / "b.txt"),
    ]
    assert "c.txt" not in result.turn_diff


def test_a_bad_selection_from_code_says_so_and_the_call_still_waits(
    ip: InteractiveShell, run_magic: Magic, tmp_path: Path
) -> None:
    setup_files(tmp_path)
    before = snapshot_dir_with_modes(tmp_path)
    run_magic(WAIT, PATCH)
    result = ip.user_ns["result"]
    with pytest.raises(ValueError, match=r"'b\.txt' is an added file: accept it whole"):
        result.decide("approve", accept={"b.txt": [0]})
    with pytest.raises(ValueError, match="a reason goes with a decline"):
        result.decide("approve", reason="because")
    assert result.status == "awaiting-approval"
    assert snapshot_dir_with_modes(tmp_path) == before


def test_partial_approval_from_the_widget(run_magic: Magic, tmp_path: Path) -> None:
    setup_files(tmp_path)
    before = snapshot_dir_with_modes(tmp_path)
    run = run_magic(WAIT, PATCH)
    widget = run.widget
    # what Approve sends while some are unticked (js/widget.js reviewAccept): JSON lists
    widget.answer(
        {"type": "approval", "decision": "approve", "accept": {"a.txt": [1], "c.txt": True}}
    )
    assert widget.status == "completed"
    assert snapshot_dir_with_modes(tmp_path) == {
        "a.txt": (NINE.replace("five", "FIVE").encode(), before["a.txt"][1]),
    }
    assert widget.review == {}
    assert "not applied, by the user: a.txt chunk 1 of 3" in widget.stdout
    assert "not applied, by the user: b.txt" in widget.output
    # the verified changes beside the delta are the selection's, which is what ran: no diff of
    # a chunk or a file left out is shown as committed
    assert list(widget.proposed) == [str(tmp_path / "a.txt"), str(tmp_path / "c.txt")]
    diff = widget.proposed[str(tmp_path / "a.txt")]["unified_diff"]
    assert "+FIVE" in diff and "+ONE" not in diff and "+NINE" not in diff


def test_a_bad_selection_from_the_widget_is_shown_not_raised(
    run_magic: Magic, tmp_path: Path
) -> None:
    setup_files(tmp_path)
    run = run_magic(WAIT, PATCH)
    widget = run.widget
    widget.answer({"type": "approval", "decision": "approve", "accept": {"z.txt": True}})
    assert widget.status == "awaiting-approval"
    assert widget.review["error"] == (
        "accept: 'z.txt' is not a path of this patch; its paths are: a.txt, b.txt, c.txt"
    )
    assert (tmp_path / "c.txt").exists() and not (tmp_path / "b.txt").exists()
    # the same refusal twice still reaches the view (cleared, then set again)
    widget.changed.clear()
    widget.answer({"type": "approval", "decision": "approve", "accept": {"z.txt": True}})
    assert widget.changed.count("review") == 2 and "error" in widget.review
    # then a valid answer goes through
    widget.answer({"type": "approval", "decision": "approve", "accept": {"b.txt": True}})
    assert widget.status == "completed" and widget.review == {}
    assert (tmp_path / "b.txt").read_text() == "bee\n" and (tmp_path / "c.txt").exists()


def test_partial_approval_from_the_magic(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    setup_files(tmp_path)
    run_magic(
        "result --review --stream-chunk 0 --approve approve --accept 'a.txt:0,2' --accept b.txt",
        PATCH,
    )
    result = ip.user_ns["result"]
    assert result.status == "completed"
    assert (tmp_path / "a.txt").read_text() == NINE.replace("one", "ONE").replace("nine", "NINE")
    assert (tmp_path / "b.txt").read_text() == "bee\n" and (tmp_path / "c.txt").exists()
    decision = next(e for e in result.events if e["type"] == "apply_patch_approval_decision")
    assert decision["accept"] == {"a.txt": [0, 2], "b.txt": True, "c.txt": False}


def test_the_magics_selection_outside_the_root_is_approved_by_its_answer(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "in.txt").write_text("in\n")
    (outside / "out.txt").write_text("out\n")
    patch = (
        "*** Begin Patch\n*** Update File: in.txt\n@@\n-in\n+IN\n"
        f"*** Update File: {outside}/out.txt\n@@\n-out\n+OUT\n*** End Patch"
    )
    # asked: the whole patch reaches outside; the request showed out.txt, so approving it
    # approves it
    run = run_magic(f"result --cwd {root} --stream-chunk 0 --exclude-tmp", patch)
    result = ip.user_ns["result"]
    result.decide("approve", accept={f"{outside}/out.txt": True})
    assert result.status == "completed"
    assert run.widget.status == "completed"
    assert (outside / "out.txt").read_text() == "OUT\n" and (root / "in.txt").read_text() == "in\n"


def test_untrusted_approving_a_selection_from_the_magic_approves_it(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "b.txt").write_text("bee\n")
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n@@\n-two\n+TWO\n"
        "*** Update File: b.txt\n@@\n-bee\n+BEE\n*** End Patch"
    )
    run = run_magic("waiting --approval-policy untrusted --stream-chunk 0", patch)
    waiting = ip.user_ns["waiting"]
    assert waiting.status == "awaiting-approval"
    waiting.decide("approve", accept={"a.txt": [0], "b.txt": False})
    assert waiting.status == "completed"
    assert run.widget.status == "completed" and not run.widget.approval
    assert (tmp_path / "a.txt").read_text() == "ONE\ntwo\n"
    assert (tmp_path / "b.txt").read_text() == "bee\n"
    assert waiting.stdout.endswith(
        "not applied, by the user: a.txt chunk 2 of 2\nnot applied, by the user: b.txt\n"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--accept a.txt", "--accept selects what an approval applies: give it with --approve"),
        ("--approve decline --accept a.txt", "not with --approve decline"),
        ("--approve approve --reason no", "--reason tells the model why a patch was declined"),
        (
            "--approve approve --accept z.txt",
            "--accept: 'z.txt' is not a path of this patch; its paths are: a.txt, b.txt, c.txt",
        ),
        (
            "--approve approve --accept a.txt:5",
            "--accept: 'a.txt': chunk index 5 is out of range; it has 3 chunks, indexes 0 to 2",
        ),
        (
            "--approve approve --accept b.txt:0",
            "--accept: 'b.txt' is an added file: accept it whole (True) or not at all (False)",
        ),
        ("--approve approve --accept a.txt --accept a.txt:1", "--accept names 'a.txt' twice"),
    ],
)
def test_the_magics_bad_answers_are_usage_errors(
    run_magic: Magic, tmp_path: Path, line: str, message: str
) -> None:
    setup_files(tmp_path)
    before = snapshot_dir_with_modes(tmp_path)
    with pytest.raises(UsageError) as raised:
        run_magic(f"--review --stream-chunk 0 {line}", PATCH)
    assert message in str(raised.value)
    assert snapshot_dir_with_modes(tmp_path) == before


# -- a file edited while its call waits -------------------------------------------------------


def test_a_file_edited_while_its_call_waits_is_asked_again(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    run = run_magic(WAIT, "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch")
    widget, result = run.widget, ip.user_ns["result"]
    shown = widget.proposed[str(tmp_path / "a.txt")]["unified_diff"]
    (tmp_path / "a.txt").write_text("one\nTWO, typed while it waited\n")  # the user's edit
    widget.approve("approve")
    assert widget.status == result.status == "awaiting-approval"  # asked again, nothing written
    assert widget.approval["reason"] == CHANGED_WHILE_WAITING + "a.txt"
    now = widget.proposed[str(tmp_path / "a.txt")]["unified_diff"]
    assert now != shown and "TWO, typed while it waited" in now  # what changed is shown
    assert (tmp_path / "a.txt").read_text() == "one\nTWO, typed while it waited\n"
    assert widget.review["selectable"] is True  # still the first question, reworded
    widget.approve("approve")
    assert widget.status == "completed"
    assert (tmp_path / "a.txt").read_text() == "ONE\nTWO, typed while it waited\n"
    requests = [e for e in result.events if e["type"] == "apply_patch_approval_request"]
    assert len(requests) == 2


def test_a_fuzzy_chunk_is_marked_in_the_review(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("value = \u201cx\u201d\n")
    run = run_magic(
        WAIT,
        '*** Begin Patch\n*** Update File: a.txt\n@@\n-value = "x"\n+value = "y"\n*** End Patch',
    )
    (chunk,) = run.widget.review["files"][0]["chunks"]
    assert chunk["fuzzy"] is True and chunk["pass"] == "punctuation"
    assert chunk["pairs"] == [{"patch": 'value = "x"', "file": "value = \u201cx\u201d"}]


# -- decline with a reason --------------------------------------------------------------------


def test_a_decline_with_a_reason_from_the_widget(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    setup_files(tmp_path)
    before = snapshot_dir_with_modes(tmp_path)
    run = run_magic(WAIT, PATCH)
    run.widget.answer(
        {"type": "approval", "decision": "decline", "reason": "keep c.txt, it is used"}
    )
    result = ip.user_ns["result"]
    expected = "patch rejected by user\nThe user's reason: keep c.txt, it is used"
    assert result.status == run.widget.status == "declined"
    assert result.output == run.widget.output == expected
    end = next(e for e in result.events if e["type"] == "patch_apply_end")
    assert end["stderr"] == expected and end["status"] == "declined"
    assert snapshot_dir_with_modes(tmp_path) == before


def test_a_decline_with_a_reason_from_code_and_from_the_magic(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    setup_files(tmp_path)
    run_magic(WAIT, PATCH)
    result = ip.user_ns["result"].decide("decline", reason="split it in two")
    assert result.output == "patch rejected by user\nThe user's reason: split it in two"
    run_magic("r2 --review --stream-chunk 0 --approve decline --reason 'not in this turn'", PATCH)
    assert ip.user_ns["r2"].output == "patch rejected by user\nThe user's reason: not in this turn"
    assert (tmp_path / "c.txt").exists() and not (tmp_path / "b.txt").exists()


def _record(run: Run) -> dict[str, str]:
    """The call's static record as last displayed or updated (what a saved notebook keeps)."""
    outputs = run.outputs
    records = [o["data"] for o in outputs if "record" in o["metadata"].get("applypatch_ext", {})]
    assert records, "the call displayed no record"
    data: dict[str, str] = records[-1]
    return data


def test_review_safety_says_it_asks_because_of_review(run_magic: Magic, tmp_path: Path) -> None:
    setup_files(tmp_path)
    run = run_magic(WAIT, PATCH)
    safety = run.widget.safety
    assert safety["decision"] == "auto-approve" and safety["review"] is True
    record = _record(run)
    assert (
        "safety: auto-approve, asked because of --review (the policy alone would apply this "
        "patch without asking)" in record["text/plain"]
    )
    assert "asked because of \\-\\-review" in record["text/markdown"]
    assert "asked because of --review" in record["text/html"]
    # without --review the same patch applies at once: no such note
    plain = run_magic(
        "other --stream-chunk 0", "*** Begin Patch\n*** Add File: z.txt\n+z\n*** End Patch"
    )
    assert plain.widget.status == "completed"
    assert "review" not in plain.widget.safety
    assert "asked because of" not in _record(plain)["text/plain"]


def test_the_record_of_a_waiting_call_shows_its_review(run_magic: Magic, tmp_path: Path) -> None:
    setup_files(tmp_path)
    run = run_magic(WAIT, PATCH)
    assert "review" in run.widget.state_json()  # a displayed trait: the record renders it
    record = _record(run)
    plain = record["text/plain"]
    assert "review: 3 files, 3 chunks, each to apply or leave out" in plain
    assert (
        "  a.txt (updated, 3 chunks)\n    a.txt chunk 1 of 3, line 1\n      @@\n      -one" in plain
    )
    assert (
        "    a.txt chunk 2 of 3, line 4\n      @@\n       four\n      -five\n      +FIVE" in plain
    )
    assert "  b.txt (added, all or nothing)\n    *** Add File: b.txt\n    +bee" in plain
    assert "  c.txt (deleted, all or nothing)" in plain
    assert "`a.txt chunk 2 of 3, line 4`" in record["text/markdown"]
    # the record shows exactly the labels the widget is sent (review.review_files)
    labels = [f["label"] for f in run.widget.review["files"]]
    labels += [c["label"] for f in run.widget.review["files"] for c in f["chunks"]]
    assert all(f"`{label}`" in record["text/markdown"] for label in labels)
    html = record["text/html"]
    assert 'class="applypatch-review"' in html and "+FIVE" in html
    # once answered, the record shows no review any more
    with capture_output():
        run.widget.answer({"type": "approval", "decision": "decline"})
    assert run.widget.status == "declined"
    assert "review:" not in record_of(run.widget)["text/plain"]


def record_of(widget: ApplyPatchWidget) -> dict[str, str]:
    from applypatch_ext.jupyter.records.record import record_bundle

    return record_bundle(widget.record_id, widget.state_json())


def test_a_reviews_record_is_bounded(run_magic: Magic, tmp_path: Path) -> None:
    from applypatch_ext.jupyter.records.panels import REVIEW_CHARS, REVIEW_ITEMS, REVIEW_LINES

    body = "".join(f"+line {i}\n" for i in range(REVIEW_LINES + 25))
    adds = "".join(f"*** Add File: f{i}.txt\n{body}" for i in range(REVIEW_ITEMS + 7))
    run = run_magic(WAIT, f"*** Begin Patch\n{adds}*** End Patch")
    assert len(run.widget.review["files"]) == REVIEW_ITEMS + 7
    plain = _record(run)["text/plain"].split("\nverified changes:")[0]  # the review part
    shown = plain.count("(added, all or nothing)")
    hidden = int(re.findall(r"… (\d+) more files or chunks", plain)[0])
    assert 0 < shown < REVIEW_ITEMS and shown + hidden == REVIEW_ITEMS + 7
    assert len(plain) < 3 * REVIEW_CHARS  # the record's share, whatever the patch
    assert f"+line {REVIEW_LINES - 2}\n" in plain and f"+line {REVIEW_LINES - 1}\n" not in plain
    assert "… 26 more lines" in plain  # 25 body lines and the Add File header, per file


def test_approve_for_session_with_ticks_off_grants_only_what_it_wrote(
    run_magic: Magic, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = f"--cwd {project} --exclude-tmp --stream-chunk 0"
    two = (
        "*** Begin Patch\n*** Add File: ../one.txt\n+1\n*** Add File: ../two.txt\n+2\n*** End Patch"
    )
    run = run_magic(f"first {outside}", two)
    widget = run.widget
    assert widget.status == "awaiting-approval" and widget.review["selectable"] is True
    # what "Approve selected for session" sends with two.txt unticked (js/widget.js)
    widget.answer(
        {
            "type": "approval",
            "decision": "approve-for-session",
            "accept": {"../one.txt": True, "../two.txt": False},
        }
    )
    assert widget.status == "completed"
    assert (tmp_path / "one.txt").read_text() == "1\n" and not (tmp_path / "two.txt").exists()
    assert "not applied, by the user: ../two.txt" in widget.output
    # the session grant covers what was approved and written, not what was left out
    again = run_magic(f"second {outside}", two.replace("*** Add File: ../one.txt\n+1\n", ""))
    assert again.widget.status == "awaiting-approval"
    granted = run_magic(
        f"third {outside}",
        "*** Begin Patch\n*** Update File: ../one.txt\n@@\n-1\n+one\n*** End Patch",
    )
    assert granted.widget.status == "completed"
    assert (tmp_path / "one.txt").read_text() == "one\n"
