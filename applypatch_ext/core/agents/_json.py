"""JSON from an untrusted file or item: every failure is a ``ValueError``, deep nesting too.

``json.loads`` recurses once per nesting level, so a session line or a call's ``arguments``
nested 100,000 deep raised ``RecursionError`` (not a ``ValueError``), which escaped every
reader as a traceback. :func:`loads` turns it, and any value nested deeper than
:data:`MAX_DEPTH` (which later code, also recursive, would trip on), into a ``ValueError``
that the readers report like any other malformed JSON: a skipped line with its number, an
item's error.
"""

from __future__ import annotations

import json
from typing import Any, Final

#: The deepest nesting accepted: far more than any session line or tool call holds (a few
#: levels), far less than Python's recursion limit.
MAX_DEPTH: Final = 200


def loads(text: str) -> Any:
    """``json.loads(text)``; ``ValueError`` for anything that is not JSON nested at most
    :data:`MAX_DEPTH` deep."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    # fewer brackets than the limit cannot nest past it (the walk is for the rare others)
    if text.count("[") + text.count("{") > MAX_DEPTH and _deeper_than(value, MAX_DEPTH):
        raise ValueError(f"nested too deeply (more than {MAX_DEPTH} levels)")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` containers deep (without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
