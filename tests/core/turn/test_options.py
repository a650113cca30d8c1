"""The one option table (core/turn/options.py): its records, the parsers it builds and
``PipelineOptions.from_namespace``."""

from __future__ import annotations

import argparse
import inspect
import re
from pathlib import Path

import pytest

from applypatch_ext.core.apply.transaction import Transaction
from applypatch_ext.core.apply.verify import DuplicatePaths
from applypatch_ext.core.text import LineEndings
from applypatch_ext.core.turn.faults import FAULT_KINDS, FAULT_SPECS, fault_help
from applypatch_ext.core.turn.options import (
    ASK,
    OPTIONS,
    Decision,
    FrontEnd,
    OptionKind,
    PipelineOptions,
    RefusedWrites,
    add_arguments,
    argument_groups,
    options_of,
)
from applypatch_ext.core.turn.policy import PermissionProfile
from applypatch_ext.core.turn.preview import DEFAULT_THROTTLE


def parser_of(front_end: FrontEnd) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=str(front_end), exit_on_error=False)
    add_arguments(parser, front_end)
    return parser


def test_each_front_end_has_each_option_once() -> None:
    for front_end in FrontEnd:
        names = [option.name for option in options_of(front_end)]
        assert len(names) == len(set(names)), front_end
        assert names, front_end


def test_every_option_has_a_full_sentence_of_help_and_a_group() -> None:
    for option in OPTIONS:
        assert option.help[:1].isupper() or option.help.split()[0] in ("preserve", "none")
        assert option.help.endswith("."), option.name
        assert option.group, option.name
        assert option.front_ends, option.name


def test_choices_come_from_the_enums() -> None:
    choices = {(o.name, frozenset(o.front_ends)): o.choices for o in OPTIONS if o.choices}
    by_name = {name: values for (name, _), values in choices.items()}
    assert by_name["--sandbox"] == tuple(p.value for p in PermissionProfile)
    assert by_name["--line-endings"] == tuple(m.value for m in LineEndings)
    assert by_name["--duplicates"] == tuple(d.value for d in DuplicatePaths)
    assert by_name["--transaction"] == tuple(t.value for t in Transaction)
    [calls] = [o for o in options_of(FrontEnd.TURN) if o.name == "--approve"]
    assert calls.choices == (ASK, *(d.value for d in Decision)) and calls.default == ASK
    [replay] = [o for o in options_of(FrontEnd.REPLAY) if o.name == "--approve"]
    assert replay.choices == tuple(d.value for d in Decision)


def test_every_field_feeds_from_strings_and_the_defaults_are_the_tables() -> None:
    parameters = inspect.signature(PipelineOptions.from_strings).parameters
    for option in OPTIONS:
        if option.field is None:
            continue
        assert option.field in parameters, option.name
        default = parameters[option.field].default
        expected = () if option.kind is OptionKind.APPEND else option.default
        if option.kind is OptionKind.FLAG:
            expected = False
        assert default == expected, option.name
    [throttle] = [o for o in OPTIONS if o.name == "--throttle-ms"]
    assert throttle.default == 500 == DEFAULT_THROTTLE * 1000


@pytest.mark.parametrize("front_end", list(FrontEnd))
def test_parsed_defaults_build_the_default_options(front_end: FrontEnd, tmp_path: Path) -> None:
    args = parser_of(front_end).parse_args([])
    built = PipelineOptions.from_namespace(str(tmp_path), args)
    # the agent's desks keep the TurnDiff where a refused write wrote nothing (issue 26)
    desk = front_end in (FrontEnd.DESK, FrontEnd.DESK_MAGIC)
    refused = RefusedWrites.KEEP if desk else RefusedWrites.INVALIDATE
    assert built.refused_writes is refused
    assert built == PipelineOptions.from_strings(str(tmp_path), refused_writes=refused.value)
    plain = PipelineOptions()
    assert (built.line_endings, built.duplicates, built.transaction, built.throttle) == (
        plain.line_endings,
        plain.duplicates,
        plain.transaction,
        plain.throttle,
    )
    assert built.approval_policy == plain.approval_policy


def test_from_namespace_reads_every_option_of_the_turn(tmp_path: Path) -> None:
    args = parser_of(FrontEnd.TURN).parse_args(
        [
            "--approval-policy",
            "granular:no-sandbox-approval",
            "--sandbox",
            "read-only",
            "--writable-root",
            "extra",
            "--exclude-tmp",
            "--line-endings",
            "lf",
            "--duplicates",
            "fold",
            "--transaction",
            "atomic",
            "--throttle-ms",
            "0",
            "--fault",
            "write:1",
            "--fault",
            "cancel:2",
        ]
    )
    options = PipelineOptions.from_namespace(str(tmp_path), args)
    assert str(options.approval_policy) == "granular:no-sandbox-approval"
    assert options.sandbox.profile is PermissionProfile.READ_ONLY
    assert options.line_endings is LineEndings.LF
    assert options.duplicates is DuplicatePaths.FOLD
    assert options.transaction is Transaction.ATOMIC
    assert options.throttle == 0
    assert options.faults == ("write:1", "cancel:2")
    assert str(tmp_path / "extra") in options.sandbox.writable_roots
    assert not options.sandbox.include_tmp


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sandbox", "open"], "argument --sandbox: must be one of danger-full-access, "),
        (["--approve", "maybe"], "argument --approve: must be one of ask, approve, "),
        (["--line-endings", "crlf"], "argument --line-endings: must be one of preserve, lf, got"),
        (["--throttle-ms", "x"], "argument --throttle-ms: invalid int value: 'x'"),
    ],
)
def test_a_bad_value_is_refused_by_the_parser_naming_what_is_valid(
    argv: list[str], message: str
) -> None:
    with pytest.raises(argparse.ArgumentError) as info:
        parser_of(FrontEnd.TURN).parse_args(argv)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--approval-policy", "sometimes"],
            "--approval-policy: unknown approval policy 'sometimes'",
        ),
        (["--fault", "explode:1"], "--fault: unknown fault kind 'explode'"),
        (["--throttle-ms", "-1"], "--throttle-ms must be 0 or more"),
    ],
)
def test_from_namespace_names_the_option(argv: list[str], message: str, tmp_path: Path) -> None:
    args = parser_of(FrontEnd.TURN).parse_args(argv)
    with pytest.raises(ValueError) as info:
        PipelineOptions.from_namespace(str(tmp_path), args)
    assert str(info.value).startswith(message)


def test_the_approval_policy_accepts_every_spelling_the_policy_reads(tmp_path: Path) -> None:
    args = parser_of(FrontEnd.REPLAY).parse_args(
        ["--approval-policy", "granular:sandbox_approval=false"]
    )
    options = PipelineOptions.from_namespace(str(tmp_path), args)
    assert not options.approval_policy.sandbox_approval


def test_front_end_only_options_stay_in_their_front_end() -> None:
    turn = {o.name for o in options_of(FrontEnd.TURN)}
    magic = {o.name for o in options_of(FrontEnd.MAGIC)}
    assert "--environment" in turn - magic
    assert {"--no-widget", "--stream-delay", "--dry-run", "--new-turn"} <= magic - turn
    replay = {o.name for o in options_of(FrontEnd.REPLAY)}
    assert "--no-widget" not in replay
    assert "--no-widget" in {o.name for o in options_of(FrontEnd.REPLAY_MAGIC)}


def test_the_fault_help_lists_every_kind_once() -> None:
    text = fault_help()
    firsts = [line.split()[0] for line in text.splitlines()[1:] if not line.startswith("    ")]
    assert firsts == [spec for spec, _ in FAULT_SPECS]
    assert {spec.partition(":")[0] for spec in firsts} == set(FAULT_KINDS)
    assert all(len(line) <= 94 for line in text.splitlines())
    [fault] = [o for o in OPTIONS if o.name == "--fault"]
    for spec, _ in FAULT_SPECS:
        assert spec in fault.help


@pytest.mark.parametrize("front_end", list(FrontEnd), ids=str)
def test_a_help_names_only_options_its_front_end_takes(front_end: FrontEnd) -> None:
    # `replay --help` once said "the --writable-root ones", an option replay refuses
    groups = argument_groups(front_end)
    names = {name for _title, entries in groups for name, _kwargs in entries}
    for _title, entries in groups:
        for name, kwargs in entries:
            named = set(re.findall(r"--[a-z][a-z-]*[a-z]", kwargs["help"]))
            assert named <= names, f"{front_end} {name}: its help names {sorted(named - names)}"
