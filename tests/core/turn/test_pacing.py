"""The stream plan of ``%%apply_patch`` (``--stream``): a pure function of the text's length,
so its sizes, counts and pauses are checked here without a clock."""

from __future__ import annotations

import math
from typing import Any

import pytest

from applypatch_ext.core.turn.pacing import (
    BOUNDED_BUDGET,
    BOUNDED_INTERVAL,
    BOUNDED_STEPS,
    MODEL_CHUNK,
    MODEL_DELAY,
    StreamPace,
    StreamPlan,
    plan_stream,
)

SMALL = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"
#: A 1,300-line cell, as in the issue: an Update of a module, ~52 KB.
CELL_1300 = (
    "*** Begin Patch\n*** Update File: src/module.py\n@@\n"
    + "".join(f"-    value_{i:04d} = compute({i}, 'old')\n" for i in range(649))
    + "".join(f"+    value_{i:04d} = compute({i}, 'new')\n" for i in range(647))
    + "*** End Patch\n"
)
BIG = 1_240_000  # the 1.24 MB patch of the issue


def test_the_1300_line_cell_is_a_1300_line_cell() -> None:
    assert CELL_1300.count("\n") == 1300


def test_a_small_cell_streams_at_the_model_chunk_in_a_few_visible_steps() -> None:
    plan = plan_stream(len(SMALL))
    assert plan.chunk == MODEL_CHUNK and plan.delay == BOUNDED_INTERVAL
    assert plan.count == math.ceil(len(SMALL) / MODEL_CHUNK) == 3
    deltas = list(plan.deltas(SMALL))
    assert "".join(deltas) == SMALL and len(deltas) == plan.count > 1  # it still streams
    assert plan.pauses == pytest.approx(2 * BOUNDED_INTERVAL)


@pytest.mark.parametrize("length", [len(CELL_1300), BIG, 10 * BIG])
def test_a_long_cell_streams_in_the_bounded_number_of_steps(length: int) -> None:
    plan = plan_stream(length)
    assert plan.count == BOUNDED_STEPS
    assert plan.chunk == math.ceil(length / BOUNDED_STEPS)
    assert plan.pauses == pytest.approx((BOUNDED_STEPS - 1) * BOUNDED_INTERVAL)
    assert plan.pauses < BOUNDED_BUDGET <= 1.0


def test_the_1300_line_cell_and_the_big_patch_in_chunks() -> None:
    cell = plan_stream(len(CELL_1300))
    assert (cell.chunk, cell.count) == (math.ceil(len(CELL_1300) / 20), 20)
    deltas = list(cell.deltas(CELL_1300))
    assert "".join(deltas) == CELL_1300
    assert {len(d) for d in deltas[:-1]} == {cell.chunk} and 0 < len(deltas[-1]) <= cell.chunk
    big = plan_stream(BIG)
    assert (big.chunk, big.count) == (62_000, 20)
    assert [len(d) for d in big.deltas("x" * BIG)] == [62_000] * 20


@pytest.mark.parametrize("length", [1, 23, 24, 25, 479, 480, 481, 1000, 54_321])
def test_no_bounded_delta_is_shorter_than_a_model_chunk_and_none_is_missing(length: int) -> None:
    plan = plan_stream(length)
    text = "".join(chr(ord("a") + i % 26) for i in range(length))
    deltas = list(plan.deltas(text))
    assert "".join(deltas) == text
    assert len(deltas) == plan.count <= BOUNDED_STEPS
    assert all(len(d) >= min(MODEL_CHUNK, length) for d in deltas[:-1])


def test_model_speed_is_the_model_pace_however_long() -> None:
    small, cell, big = (
        plan_stream(n, StreamPace.MODEL_SPEED) for n in (len(SMALL), len(CELL_1300), BIG)
    )
    assert {(p.chunk, p.delay) for p in (small, cell, big)} == {(MODEL_CHUNK, MODEL_DELAY)}
    assert cell.count == math.ceil(len(CELL_1300) / 24)
    assert cell.pauses > 40  # at most 1,200 characters a second: why it is not the default
    assert big.count == 51_667 and big.pauses > 1000


def test_none_is_one_delta_without_a_pause() -> None:
    plan = plan_stream(BIG, "none")
    assert (plan.chunk, plan.delay, plan.count, plan.pauses) == (0, 0.0, 1, 0.0)
    assert list(plan_stream(len(SMALL), "none").deltas(SMALL)) == [SMALL]


def test_overrides_replace_the_pace_s_chunk_or_delay() -> None:
    assert plan_stream(1000, chunk=10) == StreamPlan(1000, 10, BOUNDED_INTERVAL)
    assert plan_stream(1000, delay=0) == StreamPlan(1000, 50, 0.0)
    assert plan_stream(1000, "model-speed", delay=0.5) == StreamPlan(1000, MODEL_CHUNK, 0.5)
    whole = plan_stream(1000, "model-speed", chunk=0, delay=3)
    assert (whole.count, whole.delay, whole.pauses) == (1, 0.0, 0.0)  # one delta: no pause


def test_an_empty_text_is_one_empty_delta() -> None:
    plan = plan_stream(0)
    assert plan.count == 1 and list(plan.deltas("")) == [""]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"pace": "fast"}, "--stream must be one of bounded, model-speed, none, got 'fast'"),
        ({"chunk": -1}, "--stream-chunk must be 0 or more characters, got -1"),
        ({"delay": -0.5}, "--stream-delay must be 0 or more seconds, got -0.5"),
        ({"delay": math.nan}, "--stream-delay must be 0 or more seconds, got nan"),
        (
            {"pace": "none", "chunk": 8},
            "--stream none feeds the text whole, at once: it takes no --stream-chunk (give "
            "--stream bounded or --stream model-speed to set a pace)",
        ),
        (
            {"pace": "none", "chunk": 8, "delay": 0.1},
            "it takes no --stream-chunk and --stream-delay",
        ),
    ],
)
def test_bad_plans_name_the_option_and_what_is_valid(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        plan_stream(100, **kwargs)
    assert message in str(info.value)


def test_a_plan_refuses_a_text_of_another_length() -> None:
    with pytest.raises(ValueError, match="for a text of 5 characters, got 3"):
        list(plan_stream(5).deltas("abc"))
