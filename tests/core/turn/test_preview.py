"""The streaming preview consumer (docs/behaviour.md §6.3), with an injected clock: no sleeps."""

from __future__ import annotations

from collections.abc import Sequence

from applypatch_ext.core.parse.model import Hunk
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.events import PatchApplyUpdated
from applypatch_ext.core.turn.preview import ApplyPatchArgumentDiffConsumer, planned_changes


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_spec_example_event_by_event() -> None:
    clock = FakeClock()
    consumer = ApplyPatchArgumentDiffConsumer("call-1", clock=clock)
    assert consumer.push_delta("*** Begin Patch\n") is None
    first = consumer.push_delta("*** Add File: hello.txt\n+hello")
    assert first is not None
    assert first.to_json() == {
        "type": "patch_apply_updated",
        "call_id": "call-1",
        "changes": {"hello.txt": {"type": "add", "content": ""}},
    }
    clock.now += 0.1
    assert consumer.push_delta("\n+world") is None
    assert consumer.has_pending
    clock.now += 0.1
    assert consumer.push_delta("\n*** End Patch") is None  # pending replaced
    final = consumer.finish()
    assert final is not None
    assert final.changes == {"hello.txt": {"type": "add", "content": "hello\nworld\n"}}
    assert not consumer.has_pending


def test_throttle_interval_and_zero() -> None:
    clock = FakeClock()
    consumer = ApplyPatchArgumentDiffConsumer("c", clock=clock, throttle=0.5)
    assert consumer.push_delta("*** Begin Patch\n*** Add File: a\n+1\n") is not None
    clock.now += 0.49
    assert consumer.push_delta("+2\n") is None
    clock.now += 0.01
    sent = consumer.push_delta("+3\n")
    assert sent is not None and sent.changes["a"]["content"] == "1\n2\n3\n"
    every = ApplyPatchArgumentDiffConsumer("c", clock=clock, throttle=0)
    events = [
        every.push_delta(line)
        for line in ["*** Begin Patch\n", "*** Add File: a\n", "+1\n", "+2\n"]
    ]
    assert [e is not None for e in events] == [False, True, True, True]


def test_parse_errors_are_swallowed_and_finish_reports_them() -> None:
    consumer = ApplyPatchArgumentDiffConsumer("c", clock=FakeClock())
    assert consumer.push_delta("*** Begin Patch\n*** Add File: a\n+x\n") is not None
    assert consumer.push_delta("garbage\n") is None
    assert consumer.finish() is None
    assert consumer.error is not None
    assert consumer.error.startswith("failed to parse apply_patch: invalid hunk at line 4")


def test_feature_gate_off_emits_nothing() -> None:
    consumer = ApplyPatchArgumentDiffConsumer("c", enabled=False, clock=FakeClock())
    assert consumer.push_delta("*** Begin Patch\n*** Add File: a\n+x\n") is None
    assert consumer.finish() is None


def test_planned_changes_keys_and_progress_text() -> None:
    hunks = parse_patch(
        "*** Begin Patch\n*** Delete File: d.txt\n*** Update File: src.txt\n*** Move to: dst.txt\n"
        "@@ def f():\n ctx\n-old\n+new\n@@\n+tail\n*** End of File\n*** End Patch"
    ).hunks
    assert planned_changes(hunks) == {
        "d.txt": {"type": "delete", "content": ""},
        "src.txt": {
            "type": "update",
            "unified_diff": "@@ def f():\n-ctx\n-old\n+ctx\n+new\n@@\n+tail\n*** End of File\n",
            "move_path": "dst.txt",
        },
    }


def test_pending_events_are_built_only_when_sent() -> None:
    clock = FakeClock()
    consumer = ApplyPatchArgumentDiffConsumer("c", clock=clock)
    consumer.push_delta("*** Begin Patch\n*** Add File: a\n")
    built: list[int] = []
    original = consumer._event

    def counting(hunks: Sequence[Hunk]) -> PatchApplyUpdated:
        built.append(len(hunks))
        return original(hunks)

    # (mypy refuses assigning to a method: here the instance's, to count the events built)
    consumer._event = counting  # type: ignore[method-assign]
    for i in range(1000):
        consumer.push_delta(f"+{i}\n")
    consumer.push_delta("*** End Patch")
    assert built == []
    assert consumer.finish() is not None
    assert built == [1]


def test_a_delta_completing_no_line_sends_nothing_even_after_the_interval() -> None:
    clock = FakeClock()
    consumer = ApplyPatchArgumentDiffConsumer("c", clock=clock, throttle=0.5)
    assert consumer.push_delta("*** Begin Patch\n*** Add File: a\n+1\n") is not None
    clock.now += 0.1
    assert consumer.push_delta("+2\n") is None
    assert consumer.has_pending
    clock.now += 1.0
    assert consumer.push_delta("+3 and a long") is None  # no line completed: no clock, no event
    sent = consumer.push_delta(" line\n")
    assert sent is not None and sent.changes["a"]["content"] == "1\n2\n3 and a long line\n"
    assert not consumer.has_pending


def test_the_pending_event_holds_the_hunks_as_of_the_last_delta() -> None:
    clock = FakeClock()
    consumer = ApplyPatchArgumentDiffConsumer("c", clock=clock)
    consumer.push_delta("*** Begin Patch\n*** Add File: a\n+1\n")
    consumer.push_delta("+2\n+3")  # "+3" is completed only by finish
    final = consumer.push_delta("\n*** End Patch")
    assert final is None
    event = consumer.finish()
    assert event is not None and event.changes["a"]["content"] == "1\n2\n3\n"


def test_a_disabled_consumer_does_not_parse() -> None:
    consumer = ApplyPatchArgumentDiffConsumer("c", enabled=False, clock=FakeClock())
    consumer.push_delta("*** Begin Patch\nbad\n")
    assert consumer.finish() is None
    assert consumer.error is None
    assert consumer.parser.snapshot() == []
