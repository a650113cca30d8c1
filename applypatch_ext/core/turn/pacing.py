"""How a complete text is fed to a call as a stream: the pace of ``%%apply_patch`` (its
``--stream`` option, with ``--stream-chunk`` and ``--stream-delay`` as overrides).

A notebook cell is complete when it runs: streaming it only shows the pipeline's preview
(docs/behaviour.md §6.2) the way a model's stream would. :func:`plan_stream` says how, as a
pure function of the text's length:

* ``bounded`` (the magic's default): the whole text streams in at most :data:`BOUNDED_STEPS`
  deltas, :data:`BOUNDED_INTERVAL` apart, so that any cell (a 1,300-line one, a 1.24 MB patch)
  is fed in about :data:`BOUNDED_BUDGET` seconds; no delta is shorter than the model's
  (:data:`MODEL_CHUNK`), so a small cell takes less and still visibly streams. The first delta
  goes at once (no pause before it): the first preview shows right away.
* ``model-speed``: :data:`MODEL_CHUNK` characters every :data:`MODEL_DELAY` seconds, the pace of
  a model's stream, at most 1,200 characters a second (a 1,300-line cell takes a minute or
  more: a demonstration, not a default).
* ``none``: the text in one delta, no pause: the call runs at once.

Standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class StreamPace(StrEnum):
    """The values of ``--stream``."""

    BOUNDED = "bounded"
    MODEL_SPEED = "model-speed"
    NONE = "none"


#: The most deltas of a bounded stream.
BOUNDED_STEPS: Final = 20
#: The pause between two deltas of a bounded stream, in seconds: the widget's text update
#: interval (``jupyter/live/view.py``), so each delta is one update of the view and no more.
BOUNDED_INTERVAL: Final = 0.05
#: The longest a bounded stream pauses in total, in seconds (its last delta needs no pause).
BOUNDED_BUDGET: Final = BOUNDED_STEPS * BOUNDED_INTERVAL
#: Characters per delta at a model's pace (also the shortest delta of a bounded stream).
MODEL_CHUNK: Final = 24
#: The pause between two deltas at a model's pace, in seconds.
MODEL_DELAY: Final = 0.02


@dataclass(frozen=True)
class StreamPlan:
    """How a text of ``length`` characters is fed: deltas of ``chunk`` characters (0: the
    whole text in one delta), ``delay`` seconds apart (none before the first)."""

    length: int
    chunk: int
    delay: float

    @property
    def count(self) -> int:
        """How many deltas (one for an empty text, or when the chunk is 0)."""
        if self.chunk <= 0 or self.length == 0:
            return 1
        return math.ceil(self.length / self.chunk)

    @property
    def pauses(self) -> float:
        """The seconds spent pausing between the deltas (the stream's least duration)."""
        return (self.count - 1) * self.delay

    def deltas(self, text: str) -> Iterator[str]:
        """The deltas of ``text`` (which must be ``length`` characters long)."""
        if len(text) != self.length:
            raise ValueError(f"the plan is for a text of {self.length} characters, got {len(text)}")
        if self.chunk <= 0 or not text:
            yield text
            return
        for start in range(0, len(text), self.chunk):
            yield text[start : start + self.chunk]


def plan_stream(
    length: int,
    pace: StreamPace | str = StreamPace.BOUNDED,
    *,
    chunk: int | None = None,
    delay: float | None = None,
) -> StreamPlan:
    """The plan of a text of ``length`` characters at ``pace``; ``chunk`` and ``delay``, when
    given, override the pace's (``chunk=0``: the whole text at once).

    Raises ``ValueError`` naming the option for a negative chunk or delay, an unknown pace, or
    an override given with ``none`` (which feeds the text whole, at once).
    """
    try:
        pace = StreamPace(pace)
    except ValueError:
        valid = ", ".join(p.value for p in StreamPace)
        raise ValueError(f"--stream must be one of {valid}, got {pace!r}") from None
    if chunk is not None and chunk < 0:
        raise ValueError(f"--stream-chunk must be 0 or more characters, got {chunk}")
    if delay is not None and not (math.isfinite(delay) and delay >= 0):
        raise ValueError(f"--stream-delay must be 0 or more seconds, got {delay!r}")
    if pace is StreamPace.NONE:
        if chunk is not None or delay is not None:
            given = " and ".join(
                name
                for name, value in (("--stream-chunk", chunk), ("--stream-delay", delay))
                if value is not None
            )
            raise ValueError(
                f"--stream none feeds the text whole, at once: it takes no {given} (give "
                "--stream bounded or --stream model-speed to set a pace)"
            )
        return StreamPlan(length, 0, 0.0)
    if pace is StreamPace.MODEL_SPEED:
        base_chunk, base_delay = MODEL_CHUNK, MODEL_DELAY
    else:
        base_chunk = max(MODEL_CHUNK, math.ceil(length / BOUNDED_STEPS))
        base_delay = BOUNDED_INTERVAL
    size = base_chunk if chunk is None else chunk
    pause = base_delay if delay is None else delay
    return StreamPlan(length, size, pause if size > 0 else 0.0)
