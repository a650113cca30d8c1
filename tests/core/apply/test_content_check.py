"""The content validator hook of verification (core/apply/content_check.py): a refused proposal is a
verification error and nothing is written; ``warn`` applies it with a warning in the result and
in a ``patch_content_warning`` event. Real files in a temporary directory; the validator here is
a standard-library one (JSON), the Jupyter layer's nbformat one is tested in tests/jupyter."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from applypatch_ext.core.apply.content_check import InvalidContent, check_proposed_content
from applypatch_ext.core.turn.options import CallStatus, PipelineOptions
from applypatch_ext.core.turn.policy import PermissionProfile, SandboxPolicy
from applypatch_ext.core.turn.turn import VERIFICATION_FAILED, Turn

seen: list[tuple[str, str]] = []


def json_only(path: str, text: str) -> str | None:
    """Every ``.json`` must parse: the message says where it does not."""
    seen.append((path, text))
    if not path.endswith(".json"):
        return None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
    return None


def options(mode: InvalidContent = InvalidContent.REFUSE) -> PipelineOptions:
    sandbox = SandboxPolicy(
        PermissionProfile.WORKSPACE_WRITE, include_tmp=False, include_tmpdir_env=False
    )
    return PipelineOptions(sandbox=sandbox, content_validator=json_only, invalid_content=mode)


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"])


BREAK = patch("*** Update File: data.json", "@@", '-{"a": 1}', '+{"a": 1,}')


@pytest.fixture(autouse=True)
def _forget() -> None:
    seen.clear()


def test_a_refused_update_is_a_verification_error_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "data.json").write_text('{"a": 1}\n')
    result = Turn(str(tmp_path), options=options()).run(BREAK, "approve")
    assert result.status == CallStatus.ERROR and result.stage == "verifying"
    where = tmp_path / "data.json"
    # the validator's own words, with json's message of this Python (3.13 words it otherwise)
    with pytest.raises(json.JSONDecodeError) as bad:
        json.loads('{"a": 1,}\n')
    reason = f"not JSON: {bad.value.msg} at line 1, column {bad.value.colno}"
    assert result.error == f"the proposed content of {where} is invalid: {reason}"
    # What the model reads: the verification prefix and the reason, so it can fix its patch.
    assert result.output == VERIFICATION_FAILED + result.error
    assert where.read_text() == '{"a": 1}\n'
    # No begin/end events, no delta, no TurnDiff: like any verification error, and diagnosed.
    assert [e.event.type for e in result.events] == ["patch_apply_updated", "patch_diagnosis"]
    diagnosis = result.diagnosis
    assert diagnosis is not None and diagnosis.kind == "invalid_content"
    assert (diagnosis.path, diagnosis.patch_line) == ("data.json", 2)
    assert reason in diagnosis.message
    assert result.delta.is_empty() and result.turn_diff is None
    assert result.proposed is not None  # what was refused stays visible
    assert seen == [(str(where), '{"a": 1,}\n')]


def test_warn_applies_with_a_warning_in_the_result_and_the_events(tmp_path: Path) -> None:
    (tmp_path / "data.json").write_text('{"a": 1}\n')
    result = Turn(str(tmp_path), options=options(InvalidContent.WARN)).run(BREAK, "approve")
    assert result.status == CallStatus.COMPLETED
    assert (tmp_path / "data.json").read_text() == '{"a": 1,}\n'
    # one model of warnings: the atlas's, kind invalid_content, at the hunk that writes it
    [warning] = result.warnings
    assert (warning.kind, warning.path, warning.patch_line) == ("invalid_content", "data.json", 2)
    assert "not JSON" in warning.message and str(tmp_path / "data.json") in warning.message
    assert result.to_json()["warnings"] == [warning.to_json()]
    events = [e.event.to_json() for e in result.events if e.event.type == "patch_warning"]
    assert events == [{"type": "patch_warning", "call_id": result.call_id, **warning.to_json()}]
    # The model's output is the reference's, unchanged.
    assert result.output.startswith("Exit code: 0\n")


def test_adds_updates_and_move_destinations_are_checked_deletions_are_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "old.txt").write_text("x\n")
    (tmp_path / "gone.json").write_text("{\n")
    text = patch(
        "*** Add File: new.json",
        "+[1, 2]",
        "*** Update File: old.txt",
        "*** Move to: moved.json",
        "@@",
        "-x",
        '+"x"',
        "*** Delete File: gone.json",
    )
    result = Turn(str(tmp_path), options=options()).run(text, "approve")
    assert result.status == CallStatus.COMPLETED, result.output
    assert seen == [
        (str(tmp_path / "new.json"), "[1, 2]\n"),
        (str(tmp_path / "moved.json"), '"x"\n'),
    ]


def test_a_move_onto_an_invalid_destination_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not json\n")
    text = patch("*** Update File: notes.txt", "*** Move to: notes.json", "@@", "-not json", "+no")
    result = Turn(str(tmp_path), options=options()).run(text, "approve")
    assert result.status == CallStatus.ERROR
    assert f"{tmp_path / 'notes.json'} is invalid: not JSON" in result.output
    assert (tmp_path / "notes.txt").read_text() == "not json\n"
    assert not (tmp_path / "notes.json").exists()


def test_every_objection_is_reported_one_line_each(tmp_path: Path) -> None:
    text = patch(
        "*** Add File: a.json", "+{", "*** Add File: b.json", "+]", "*** Add File: c.txt", "+{"
    )
    result = Turn(str(tmp_path), options=options()).run(text, "approve")
    lines = (result.error or "").split("\n")
    assert [line.split(" is invalid")[0] for line in lines] == [
        f"the proposed content of {tmp_path / 'a.json'}",
        f"the proposed content of {tmp_path / 'b.json'}",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_dry_run_refuses_too(tmp_path: Path) -> None:
    (tmp_path / "data.json").write_text('{"a": 1}\n')
    turn = Turn(str(tmp_path), options=options())
    call = turn.call()
    call.push_delta(BREAK)
    assert call.dry_run().status == CallStatus.ERROR
    ok = turn.call()
    ok.push_delta(patch("*** Update File: data.json", "@@", '-{"a": 1}', '+{"a": 2}'))
    assert ok.dry_run().status == CallStatus.DRY_RUN


def test_a_broken_validator_refuses_rather_than_lets_through(tmp_path: Path) -> None:
    def raises(path: str, text: str) -> str | None:
        raise ValueError("boom")

    def returns_a_number(path: str, text: str) -> str | None:
        return 3  # type: ignore[return-value]

    text = patch("*** Add File: a.txt", "+a")
    for validator, expected in (
        (raises, "the content validator raised ValueError: boom"),
        (returns_a_number, "the content validator returned int; expected a str"),
    ):
        turn = Turn(str(tmp_path), options=replace(options(), content_validator=validator))
        result = turn.run(text, "approve")
        assert result.status == CallStatus.ERROR and expected in (result.error or "")
        assert not (tmp_path / "a.txt").exists()


def test_without_a_validator_nothing_is_checked(tmp_path: Path) -> None:
    result = Turn(str(tmp_path), options=replace(options(), content_validator=None)).run(
        patch("*** Add File: a.json", "+{"), "approve"
    )
    assert result.status == CallStatus.COMPLETED and result.warnings == ()
    assert check_proposed_content(result.proposed, None) == ()  # type: ignore[arg-type]
