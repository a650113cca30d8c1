"""The failure atlas through the whole pipeline: every kind a call can end with, where it points
(the patch's line, the file's line, or why there is none), its message and, where certain, its
suggestion; the warnings of a call that applies; and that none of it changes the reference's
texts (the error, the model's output)."""

from __future__ import annotations

from typing import Any

import pytest

from applypatch_ext.core.apply.diagnose import diagnose_error
from applypatch_ext.core.apply.memfs import MemoryFilesystem
from applypatch_ext.core.diagnosis import Diagnosis, DiagnosisKind
from applypatch_ext.core.errors import ErrorReason, InvalidHunkError, IoError, ParseError
from applypatch_ext.core.interrupts import CancellationToken
from applypatch_ext.core.parse.diagnose import diagnose_parse_error
from applypatch_ext.core.parse.model import UpdateFile
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.text import LineEndings
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.policy import ApprovalPolicy, PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.result import CallResult
from applypatch_ext.core.turn.turn import HookBlock, Turn
from applypatch_ext.core.visible import describe_difference, shown

ROOT = "/work"
WORKSPACE = SandboxPolicy(
    PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
)
K = DiagnosisKind


def patch(*lines: str) -> str:
    return "\n".join(("*** Begin Patch", *lines, "*** End Patch"))


def call(
    text: str,
    files: dict[str, str | bytes] | None = None,
    answer: Any = Decision.APPROVE,
    turn_options: dict[str, Any] | None = None,
    **options: Any,
) -> CallResult:
    fs = MemoryFilesystem({f"{ROOT}/{k}": v for k, v in (files or {}).items()})
    fs.create_dirs(ROOT)
    opts = PipelineOptions(**{"sandbox": WORKSPACE, **options})
    return Turn(ROOT, options=opts, filesystem=fs, **(turn_options or {})).run(text, answer)


def diagnosis(result: CallResult) -> Diagnosis:
    assert result.diagnosis is not None, result.status
    assert result.status not in (CallStatus.COMPLETED, CallStatus.DRY_RUN)
    # beside the reference's texts, never instead of them
    assert result.diagnosis.message not in (result.error, result.output)
    # and announced by an event, the call's last
    last = result.events[-1].event.to_json()
    assert last == {
        "type": "patch_diagnosis",
        "call_id": result.call_id,
        **result.diagnosis.to_json(),
    }
    return result.diagnosis


def test_a_completed_call_has_no_diagnosis_and_no_warning() -> None:
    result = call(patch("*** Update File: a.txt", "@@", "-one", "+uno"), {"a.txt": "one\n"})
    assert result.status == CallStatus.COMPLETED
    assert result.diagnosis is None and result.warnings == ()
    assert result.to_json()["diagnosis"] is None and result.to_json()["warnings"] == []
    assert result.line_json() == {
        "type": "call_result",
        "call_id": result.call_id,
        "status": "completed",
        "output": result.output,
        "delta": result.delta.to_json(),
        "diagnosis": None,
        "warnings": [],
    }


# -- the patch text ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "patch_line", "says"),
    [
        (
            "*** Begin Patch ***\n*** Add File: a.txt\n+a\n*** End Patch",
            K.MISSING_BEGIN,
            1,
            "must be exactly `*** Begin Patch`",
        ),
        (
            "Here is the patch:\n*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch",
            K.MISSING_BEGIN,
            1,
            "stands before `*** Begin Patch` (line 2)",
        ),
        ("*** Begin Patch\n*** Add File: a.txt\n+a", K.MISSING_END, 3, "was it cut off?"),
        (
            "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\nDone!",
            K.MISSING_END,
            5,
            "stands after `*** End Patch` (line 4)",
        ),
        (
            "```diff\n*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n```",
            K.STRAY_FENCE,
            1,
            "starts with the Markdown fence ` ```diff `",
        ),
        (
            patch("*** Update File: a.txt", "@@", "```", "-one", "+uno"),
            K.STRAY_FENCE,
            4,
            "is inside the patch",
        ),
        (
            patch("*** Update File: a.txt", "@@ 60:9c9f| one", "61:f9e7|   two"),
            K.FOREIGN_FORMAT,
            4,
            "another tool's format",
        ),
        (
            patch("*** Update File: a.txt", '{"path": "a.txt", "op": "update"}'),
            K.FOREIGN_FORMAT,
            3,
            "another tool's format",
        ),
        (
            patch("*** Update File: a.txt", "@@ -1,2 +1,2 @@", "@@ -7 +7 @@", "-one"),
            K.UNIFIED_DIFF_HEADER,
            3,
            "is a unified diff's header",
        ),
        (
            patch("*** Update File: a.txt", "@@", "-one", "+uno", "one more"),
            K.MISSING_PREFIX,
            6,
            "The line `one more` has no prefix",
        ),
        (
            patch("*** Update File: a.txt", "\tone", "+uno"),
            K.MISSING_PREFIX,
            3,
            "starts with a tab",
        ),
        (patch("*** Update File: a.txt", "@@ one"), K.EMPTY_CHUNK, 3, "has no line under it"),
        (
            patch("*** Update File: a.txt", "@@ one", "@@ two", "-two"),
            K.EMPTY_CHUNK,
            3,
            "before the next `@@`",
        ),
        (patch("*** Update File: a.txt"), K.EMPTY_CHUNK, 2, "has no line under it"),
        (
            patch("*** Add File: a.txt", "+first", "", "+third"),
            K.INVALID_HUNK_HEADER,
            4,
            "a blank line inside an Add must be written `+`",
        ),
        (
            patch("*** Update File: a.txt", "@@", "-one", "+uno", "*** End of File", " two"),
            K.MALFORMED,
            7,
            "follows `*** End of File`",
        ),
        ("*** Begin Patch\n*** Environment ID:\n*** End Patch", K.MALFORMED, None, "empty"),
    ],
    ids=[
        "misspelt begin",
        "prose before",
        "cut off",
        "text after end",
        "fenced",
        "fence inside",
        "hash-line anchors",
        "a JSON edit",
        "two unified headers",
        "a line without prefix",
        "a tab for the space",
        "an @@ at the end",
        "two @@ in a row",
        "an update without chunk",
        "a blank line in an add",
        "after end of file",
        "an empty environment id",
    ],
)
def test_a_patch_that_does_not_parse(
    text: str, kind: DiagnosisKind, patch_line: int | None, says: str
) -> None:
    result = call(text, {"a.txt": "one\ntwo\n"})
    assert result.status == CallStatus.ERROR and result.stage == "parsing"
    found = diagnosis(result)
    assert (found.kind, found.patch_line) == (kind, patch_line), found
    assert says in found.message, found.message
    assert found.line is None and found.suggestion is None


def test_an_at_at_glued_to_its_text_gets_the_corrected_header() -> None:
    result = call(patch("*** Update File: a.txt", "@@def f():", "-    return 1"))
    found = diagnosis(result)
    assert (found.kind, found.patch_line) == (K.BAD_CONTEXT_MARKER, 3)
    assert found.suggestion == "@@ def f():"
    glued = diagnosis(call(patch("*** Update File: a.txt", "@@", " one;@@", "two", "+x")))
    assert (glued.kind, glued.patch_line, glued.suggestion) == (K.BAD_CONTEXT_MARKER, 4, None)
    assert "glued to the end of `·one;@@`" in glued.message


@pytest.mark.parametrize(
    ("wrapped", "line"),
    [
        (lambda p: p, 5),
        (lambda p: "\n\n" + p, 7),
        (lambda p: "<<'EOF'\n" + p + "\nEOF", 6),
        (lambda p: "apply_patch <<'EOF'\n" + p + "\nEOF", 6),
    ],
    ids=["bare", "two blank lines before", "heredoc", "shell form"],
)
def test_patch_line_counts_in_the_text_the_call_got(wrapped: Any, line: int) -> None:
    body = patch("*** Add File: b.txt", "+b", "*** Update File: a.txt", "@@", "-zzz", "+y")
    result = call(wrapped(body), {"a.txt": "one\n"})
    found = diagnosis(result)
    assert (found.kind, found.path, found.patch_line) == (K.CONTEXT_NOT_FOUND, "a.txt", line)
    text = wrapped(body).split("\n")
    assert text[line - 1] == "@@"


def test_a_parse_error_counts_in_the_text_too() -> None:
    body = patch("*** Update File: a.txt", "@@", "zzz")
    assert diagnosis(call("\n\n" + body)).patch_line == 6
    # the reference's own text keeps its line (of the canonical patch)
    assert "line 4" in (call("\n\n" + body).error or "")


# -- the call ------------------------------------------------------------------------------------


def test_the_call_level_kinds() -> None:
    implicit = call("bash -lc '" + patch("*** Add File: a.txt", "+a") + "'")
    assert diagnosis(implicit).kind == K.IMPLICIT_INVOCATION
    unknown = call(patch("*** Environment ID: staging", "*** Add File: a.txt", "+a"))
    assert diagnosis(unknown).kind == K.UNKNOWN_ENVIRONMENT
    empty = diagnosis(call("*** Begin Patch\n*** End Patch"))
    assert empty.kind == K.EMPTY_PATCH and "no hunk" in empty.message
    twice = call(
        patch("*** Add File: a.txt", "+a", "*** Delete File: ./a.txt"),
        {"a.txt": "x\n"},
    )
    found = diagnosis(twice)
    assert (found.kind, found.path, found.patch_line) == (K.DUPLICATE_PATH, "./a.txt", 4)
    moved = call(
        patch("*** Update File: a.txt", "*** Move to: ./a.txt", "@@", "-x", "+y"), {"a.txt": "x\n"}
    )
    assert diagnosis(moved).kind == K.MOVE_ONTO_ITSELF


# -- the files -----------------------------------------------------------------------------------


def test_the_file_kinds() -> None:
    missing = diagnosis(call(patch("*** Update File: src/a.txt", "@@", "-x", "+y")))
    assert (missing.kind, missing.path, missing.patch_line) == (K.MISSING_FILE, "src/a.txt", 2)
    assert "`*** Add File:`" in missing.message and missing.line is None
    gone = diagnosis(call(patch("*** Delete File: gone.txt")))
    assert (gone.kind, gone.patch_line) == (K.MISSING_FILE, 2)
    folder = diagnosis(call(patch("*** Update File: d", "@@", "-x", "+y"), {"d/x.txt": "x\n"}))
    assert folder.kind == K.NOT_A_FILE
    binary = diagnosis(
        call(patch("*** Update File: b.bin", "@@", "-x", "+y"), {"b.bin": b"\xff\n"})
    )
    assert binary.kind == K.NOT_UTF8 and "invalid utf-8" in binary.message
    failed = call(patch("*** Add File: a.txt", "+a"), faults=("write:1",))
    written = diagnosis(failed)
    assert (failed.status, written.kind, written.path) == (CallStatus.FAILED, K.IO_ERROR, "a.txt")
    denied = call(
        patch("*** Add File: a.txt", "+a"),
        faults=("eperm:a.txt",),
        approval_policy=ApprovalPolicy("never"),
    )
    assert diagnosis(denied).kind == K.SANDBOX_DENIED


# -- the turn --------------------------------------------------------------------------------------


def test_the_turn_kinds() -> None:
    outside = patch("*** Add File: ../outside.txt", "+x")
    rejected = diagnosis(call(outside, approval_policy=ApprovalPolicy("never")))
    assert rejected.kind == K.REJECTED and "writing outside of the project" in rejected.message
    declined = diagnosis(call(outside, answer=Decision.DECLINE))
    assert declined.kind == K.DECLINED
    token = CancellationToken()
    token.cancel()
    cancelled = Turn(ROOT, filesystem=MemoryFilesystem({f"{ROOT}/a": "a"})).call(cancel=token)
    cancelled.push_delta(patch("*** Add File: b.txt", "+b"))
    assert diagnosis(cancelled.run("approve")).kind == K.CANCELLED

    def block(_text: str) -> HookBlock:
        return HookBlock("no patches on Fridays")

    def broken(_text: str) -> str:
        raise KeyError("policy")

    blocked = diagnosis(call(outside, turn_options={"pre_tool_use": block}))
    assert blocked.kind == K.REJECTED and "no patches on Fridays" in blocked.message
    assert diagnosis(call(outside, turn_options={"pre_tool_use": broken})).kind == K.HOOK_FAILED


# -- a chunk that did not match ------------------------------------------------------------------

FILE = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


def test_an_at_at_line_in_no_line_of_the_file() -> None:
    result = call(
        patch("*** Update File: a.py", "@@ def h():", "-    return 2", "+    return 3"),
        {"a.py": FILE},
    )
    found = diagnosis(result)
    assert (found.kind, found.patch_line, found.line) == (K.CHANGE_CONTEXT_NOT_FOUND, 3, 6)
    assert "`def h():` is in no line of a.py" in found.message
    # the lines alone are at one place only: the chunk without its @@ line is certain
    assert found.suggestion == "@@\n-    return 2\n+    return 3"
    # the reference's texts are untouched
    assert result.error == f"Failed to find context 'def h():' in {ROOT}/a.py"


def test_an_at_at_line_that_is_part_of_a_line() -> None:
    found = diagnosis(
        call(
            patch("*** Update File: a.py", "@@ g", "-    return 2", "+    return 3"), {"a.py": FILE}
        )
    )
    assert (found.kind, found.line) == (K.PARTIAL_ANCHOR, 6)
    assert "`g` is only part of line 5 of a.py, `def g():`" in found.message
    assert found.suggestion == "@@ def g():\n-    return 2\n+    return 3"


def test_lines_above_their_at_at_line_are_a_stale_anchor() -> None:
    text = patch("*** Update File: a.py", "@@ def g():", "-    return 1", "+    return 0")
    found = diagnosis(call(text, {"a.py": FILE}))
    assert (found.kind, found.line, found.line_absent) == (K.STALE_ANCHOR, 2, None)
    assert "above line 6 where its search began" in found.message
    assert found.suggestion == "@@\n-    return 1\n+    return 0"
    # an @@ line that repeats the chunk's first line
    repeat = patch(
        "*** Update File: a.py", "@@ def g():", " def g():", "-    return 2", "+    return 3"
    )
    found = diagnosis(call(repeat, {"a.py": FILE}))
    assert found.kind == K.STALE_ANCHOR and "repeats the chunk's first line" in found.message


def test_chunks_out_of_order_are_a_stale_anchor_without_a_suggestion() -> None:
    text = patch(
        "*** Update File: a.py",
        "@@",
        "-    return 2",
        "+    return 3",
        "@@",
        "-    return 1",
        "+    return 0",
    )
    found = diagnosis(call(text, {"a.py": FILE}))
    assert (found.kind, found.line, found.patch_line) == (K.STALE_ANCHOR, 2, 6)
    assert "after the chunk before it" in found.message and found.suggestion is None


def test_the_closest_region_and_what_differs() -> None:
    text = patch("*** Update File: a.py", "@@", " def g():", "-    return 20", "+    return 3")
    result = call(text, {"a.py": FILE})
    found = diagnosis(result)
    assert (found.kind, found.patch_line, found.line) == (K.CONTEXT_NOT_FOUND, 5, 5)
    assert found.message == (
        "The closest region of a.py starts at line 5 and matches 1 of the chunk's 2 lines; its "
        "line 6 reads `····return 2` where the patch has `····return 20`."
    )
    assert found.suggestion is None


def test_nothing_close_says_why_there_is_no_line() -> None:
    found = diagnosis(call(patch("*** Update File: a.py", "@@", "-zzz", "+y"), {"a.py": FILE}))
    assert (found.line, found.line_absent) == (None, "no similar line in the file")
    empty = diagnosis(call(patch("*** Update File: e.txt", "@@", "-zzz", "+y"), {"e.txt": ""}))
    assert (empty.line, empty.line_absent) == (None, "the file is empty")


@pytest.mark.parametrize(
    ("file_line", "patch_line", "says"),
    [
        ("\tfoo(a,  b)", "\tfoo(a, b)", "has 2 spaces inside where the patch has a space"),
        ("\tfoo(a,\tb)", "\tfoo(a, b)", "has a tab inside where the patch has a space"),
        ("\tfoo(a,\u200bb)", "\tfoo(a,b)", "has a zero-width space (U+200B) inside"),
    ],
    ids=["double space", "inner tab", "zero-width space"],
)
def test_a_near_miss_by_invisible_characters(file_line: str, patch_line: str, says: str) -> None:
    text = patch("*** Update File: a.c", "@@", " int x;", f"-{patch_line}", "+\tbar();")
    found = diagnosis(call(text, {"a.c": f"int x;\n{file_line}\n"}))
    assert (found.kind, found.line, found.patch_line) == (K.WHITESPACE_MISMATCH, 1, 5)
    assert says in found.message, found.message
    # the chunk with the file's own lines is certain
    assert found.suggestion == f"@@\n int x;\n-{file_line}\n+\tbar();"


def test_a_change_made_already() -> None:
    text = patch("*** Update File: a.py", "@@", "-    return 1", "+    return 10")
    found = diagnosis(call(text, {"a.py": FILE.replace("return 1", "return 10")}))
    assert (found.kind, found.line) == (K.ALREADY_APPLIED, 2)


def test_an_end_of_file_chunk_whose_lines_are_not_at_the_end() -> None:
    text = patch("*** Update File: a.py", "@@", "-    return 1", "+    return 0", "*** End of File")
    found = diagnosis(call(text, {"a.py": FILE}))
    assert (found.kind, found.line) == (K.END_OF_FILE_MISMATCH, 2)
    assert found.suggestion == "@@\n-    return 1\n+    return 0"


def test_a_doubled_prefix() -> None:
    text = patch("*** Update File: a.c", "@@", " one", "  -\ttwo", "  +\tTWO", " three")
    found = diagnosis(call(text, {"a.c": "one\n\ttwo\nthree\n"}))
    assert (found.kind, found.patch_line) == (K.DOUBLED_PREFIX, 5)
    assert found.suggestion == "@@\n one\n-\ttwo\n+\tTWO\n three"
    # a line that really starts with a dash in the file is no doubled prefix
    listed = patch("*** Update File: n.md", "@@", " - one", "-- twoo", "+- two")
    assert diagnosis(call(listed, {"n.md": "- one\n- two\n"})).kind != K.DOUBLED_PREFIX


def test_unified_diff_headers_as_context_get_the_header_that_works() -> None:
    text = patch(
        "*** Update File: a.py", "@@ -5,2 +5,2 @@ def g():", "-    return 2", "+    return 3"
    )
    found = diagnosis(call(text, {"a.py": FILE}))
    assert (found.kind, found.patch_line, found.line) == (K.UNIFIED_DIFF_HEADER, 3, 6)
    assert found.suggestion == "@@ def g():\n-    return 2\n+    return 3"
    lines = patch("*** Update File: a.py", "--- a/a.py", "+++ b/a.py", "@@ -5 +5 @@", "-x")
    found = diagnosis(call(lines, {"a.py": FILE}))
    assert (found.kind, found.patch_line) == (K.UNIFIED_DIFF_HEADER, 3)


def test_a_drift_between_verification_and_application_is_diagnosed_too() -> None:
    # a line is appended after verification: the End of File chunk no longer ends the file
    result = call(
        patch("*** Update File: a.py", "@@", "-    return 2", "+    return 3", "*** End of File"),
        {"a.py": FILE},
        faults=("drift:a.py",),
    )
    assert result.status == CallStatus.FAILED and result.stage == "applying"
    found = diagnosis(result)
    assert (found.kind, found.path, found.line) == (K.END_OF_FILE_MISMATCH, "a.py", 6)


# -- warnings of a call that applies -------------------------------------------------------------


def test_a_pure_addition_under_an_at_at_line_goes_to_the_end_with_a_warning() -> None:
    text = patch("*** Update File: a.py", "@@ def f():", "+    print('f')")
    result = call(text, {"a.py": FILE})
    assert result.status == CallStatus.COMPLETED
    # Codex's behaviour, unchanged (openai/codex#30946): the line is appended
    assert result.proposed is not None
    [warning] = result.warnings
    assert (warning.kind, warning.patch_line, warning.line) == (K.APPENDED_AT_END, 3, 1)
    assert "went to the end of a.py, after line 6" in warning.message
    assert warning.suggestion == "@@\n def f():\n+    print('f')"
    events = [e.event.to_json() for e in result.events if e.event.type == "patch_warning"]
    assert events == [{"type": "patch_warning", "call_id": result.call_id, **warning.to_json()}]
    # at the file's end already, or without any anchor: nothing to say
    assert call(patch("*** Update File: a.py", "@@", "+# end"), {"a.py": FILE}).warnings == ()
    last = patch("*** Update File: a.py", "@@     return 2", "+# end")
    assert call(last, {"a.py": FILE}).warnings == ()


def test_a_fuzzy_match_that_rewrites_lines_warns() -> None:
    text = patch("*** Update File: a.py", "@@", " def f():", "-  return 1", "+  return 0")
    result = call(text, {"a.py": FILE})
    assert result.status == CallStatus.COMPLETED
    [warning] = result.warnings
    assert (warning.kind, warning.line) == (K.FUZZY_MATCH, 2)
    assert "only ignoring leading and trailing whitespace" in warning.message
    assert "a removed line" in warning.message
    assert "starts with 4 spaces where the patch has 2 spaces" in warning.message
    assert warning.suggestion == "@@\n def f():\n-    return 1\n+  return 0"
    # in the lf mode the context lines are rewritten too (#30505); preserve keeps them
    context = patch("*** Update File: a.py", "@@", "  def f():", "-    return 1", "+    return 0")
    [lf] = call(context, {"a.py": FILE}, line_endings=LineEndings.LF).warnings
    assert lf.kind == K.FUZZY_MATCH and "a context line, is rewritten" in lf.message
    assert call(context, {"a.py": FILE}).warnings == ()


def test_lines_that_occur_twice_warn_that_the_first_was_taken() -> None:
    text = patch("*** Update File: a.txt", "@@", "-}", "+};")
    result = call(text, {"a.txt": "a {\n}\nb {\n}\n"})
    [warning] = result.warnings
    assert (warning.kind, warning.line) == (K.AMBIGUOUS_MATCH, 2)
    assert "again at line 4" in warning.message


@pytest.mark.parametrize("line_endings", ["preserve", "lf"])
def test_a_chunk_whose_only_old_line_is_blank_applies_as_the_reference_does(
    line_endings: str,
) -> None:
    """Its blank line is dropped when not found, leaving an empty pattern, which matches at the
    start: the ambiguity check must not search for it again (it raised IndexError, found by
    `make fuzz`). Reference 0.161.0 writes "\nadded\nstable\n", no warning."""
    fs = MemoryFilesystem({f"{ROOT}/f.txt": "stable\n"})
    fs.create_dirs(ROOT)
    options = PipelineOptions(sandbox=WORKSPACE, line_endings=LineEndings(line_endings))
    text = patch("*** Update File: f.txt", "@@", " ", "+added")
    result = Turn(ROOT, options=options, filesystem=fs).run(text, Decision.APPROVE)
    assert result.status == CallStatus.COMPLETED, result.stderr
    assert result.warnings == ()
    assert fs.read_bytes(f"{ROOT}/f.txt") == b"\nadded\nstable\n"


def test_warnings_count_lines_in_the_text_the_call_got() -> None:
    text = "\n\n" + patch("*** Update File: a.py", "@@ def f():", "+    print('f')")
    [warning] = call(text, {"a.py": FILE}).warnings
    assert warning.patch_line == 5


# -- the words -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("patch_line", "file_line", "says"),
    [
        ("    x", "\tx", "starts with a tab where the patch has 4 spaces"),
        ("x", "x  ", "ends with 2 spaces where the patch has nothing"),
        ("x y", "x\u00a0y", "has a no-break space (U+00A0) inside where the patch has a space"),
        ("x", "x\r", "ends with a carriage return (CR) where the patch has nothing"),
        ("x", "\ufeffx", "starts with a byte order mark (U+FEFF) where the patch has nothing"),
        ("x", "y", "reads `y` where the patch has `x`"),
    ],
    ids=["tab", "trailing spaces", "nbsp", "cr", "bom", "text"],
)
def test_differences_are_named_and_made_visible(patch_line: str, file_line: str, says: str) -> None:
    assert says in describe_difference(patch_line, file_line)


def test_shown_escapes_what_cannot_be_seen() -> None:
    assert shown("\tx  ") == "`\\tx··`"
    assert shown("a\u00a0b\r") == "`a\\u00a0b\\r`"
    assert shown("x" * 100).endswith("…`")


def test_the_chunk_lines_the_parser_records() -> None:
    parsed = parse_patch(
        patch("*** Add File: a", "+x", "*** Update File: b", " c", "-d", "@@ e", "-f")
    )
    add, update = parsed.hunks
    assert (add.line, update.line) == (2, 4)
    assert isinstance(update, UpdateFile)
    assert [chunk.line for chunk in update.chunks] == [5, 7]


def in_place(text: str, found: Diagnosis) -> str:
    """``text`` with ``found``'s suggestion in place of the patch lines it ``replaces``."""
    assert found.suggestion is not None and found.replaces is not None
    first, last = found.replaces
    lines = text.split("\n")
    lines[first - 1 : last] = found.suggestion.split("\n")
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("lines", "replaces"),
    [
        # a glued @@ line: that line alone
        (("*** Update File: a.py", "@@def f():", "-    return 1", "+    return 0"), (3, 3)),
        # an @@ line in no line of the file: the chunk, from its @@ line to its last line
        (("*** Update File: a.py", "@@ def h():", "-    return 2", "+    return 3"), (3, 5)),
        # part of a line: the same span, the @@ line made whole
        (("*** Update File: a.py", "@@ g", "-    return 2", "+    return 3"), (3, 5)),
        # a second chunk above its @@ line: its own span, not the first chunk's
        (
            (
                "*** Update File: a.py",
                "@@",
                "-def f():",
                "+def f0():",
                "@@ def g():",
                "-    return 1",
                "+    return 0",
            ),
            (6, 8),
        ),
        # marked End of File but not at the end: the marker is in the span
        (
            ("*** Update File: a.py", "@@", "-    return 1", "+    return 0", "*** End of File"),
            (3, 6),
        ),
    ],
)
def test_a_suggestion_replaces_its_span_and_then_applies(
    lines: tuple[str, ...], replaces: tuple[int, int]
) -> None:
    text = "\n\n" + patch(*lines)  # two lines before the patch: the span is the call's text's
    found = diagnosis(call(text, {"a.py": FILE}))
    assert found.replaces == (replaces[0] + 2, replaces[1] + 2), found
    fixed = call(in_place(text, found), {"a.py": FILE})
    assert fixed.status == CallStatus.COMPLETED, fixed.error


def test_a_warnings_suggestion_replaces_its_chunk() -> None:
    text = patch("*** Update File: a.py", "@@", " def f():", "-  return 1", "+  return 0")
    [warning] = call(text, {"a.py": FILE}).warnings
    assert warning.replaces == (3, 6)
    fixed = call(in_place(text, warning), {"a.py": FILE})
    assert fixed.status == CallStatus.COMPLETED and fixed.warnings == ()
    added = patch("*** Update File: a.py", "@@ def f():", "+    print('f')")
    [appended] = call(added, {"a.py": FILE}).warnings
    assert appended.replaces == (3, 4)
    assert call(in_place(added, appended), {"a.py": FILE}).warnings == ()


# -- the kind comes from the error's reason, never from its text ---------------------------------


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (("*** Begin Patchy",), ErrorReason.FIRST_LINE),
        (("*** Begin Patch", "*** Add File: a", "+a"), ErrorReason.LAST_LINE),
        (("*** Begin Patch", "*** Environment ID:", "*** End Patch"), ErrorReason.ENVIRONMENT),
        (("*** Begin Patch", "nonsense", "*** End Patch"), ErrorReason.INVALID_HUNK_HEADER),
        (
            ("*** Begin Patch", "*** Update File: a", "@@", "x", "*** End Patch"),
            ErrorReason.UNEXPECTED_LINE,
        ),
        (
            (
                "*** Begin Patch",
                "*** Update File: a",
                "@@",
                "-a",
                "*** End of File",
                "x",
                "*** End Patch",
            ),
            ErrorReason.EXPECTED_CONTEXT_MARKER,
        ),
        (("*** Begin Patch", "*** Update File: a", "@@", "*** End Patch"), ErrorReason.EMPTY_CHUNK),
        (("*** Begin Patch", "*** Update File: a", "*** End Patch"), ErrorReason.EMPTY_UPDATE),
    ],
    ids=str,
)
def test_each_parse_error_carries_its_reason(lines: tuple[str, ...], reason: ErrorReason) -> None:
    with pytest.raises(ParseError) as caught:
        parse_patch("\n".join(lines))
    assert caught.value.reason is reason


def test_the_diagnosis_maps_the_reason_not_the_text() -> None:
    """The same reason under any text gets the same kind: the atlas reads the reason only."""
    text = patch("*** Update File: a.txt", "@@", "*** End of File")
    renamed = InvalidHunkError("a text the atlas has never seen", 4, ErrorReason.EMPTY_CHUNK)
    assert diagnose_parse_error(renamed, text).kind is K.EMPTY_CHUNK
    # without its reason, the same text is only malformed
    assert diagnose_parse_error(InvalidHunkError("x", 4), text).kind is K.MALFORMED
    hunk = parse_patch(patch("*** Update File: a.txt", "@@", "-a", "+b"))
    error = IoError("a text the atlas has never seen", None, ErrorReason.NOT_A_FILE)
    error.hunk = 0
    assert diagnose_error(error, hunk).kind is K.NOT_A_FILE
    write = IoError("Failed to read file to update a.txt: path `a.txt` is not a file")
    write.hunk = 0
    assert diagnose_error(write, hunk).kind is K.IO_ERROR  # the text alone says nothing
    for reason, kind in ((ErrorReason.READ, K.MISSING_FILE), (ErrorReason.DELETE, K.MISSING_FILE)):
        missing = IoError("x", FileNotFoundError(2, "No such file or directory"), reason)
        missing.hunk = 0
        assert diagnose_error(missing, hunk).kind is kind
