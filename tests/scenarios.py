"""The scenario format (reference's, plus our optional ``expected-lf/``), found in place.

The reference's scenarios are read from ``../shared`` beside the checkout, never copied here;
without that folder only ours are found, and the tests marked ``reference`` are skipped (see
tests/conftest.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCE_SCENARIOS = REPO.parent / "shared" / "conformance" / "codex-scenarios"
OUR_SCENARIOS = REPO / "tests" / "scenarios"
#: Reference scenarios that need the preserve mode (docs/behaviour.md §9.1).
PRESERVE_ONLY = {"023_preserves_crlf_line_endings", "024_preserves_mixed_line_endings"}


@dataclass(frozen=True)
class Scenario:
    origin: str  # "reference" or "ours"
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def id(self) -> str:
        return f"{self.origin}/{self.name}"

    @property
    def input(self) -> Path | None:
        path = self.path / "input"
        return path if path.is_dir() else None

    @property
    def patch_bytes(self) -> bytes:
        return (self.path / "patch.txt").read_bytes()

    @property
    def patch(self) -> str:
        """The text as the OS would hand a non-UTF-8 argument to Python (surrogateescape)."""
        return self.patch_bytes.decode("utf-8", "surrogateescape")

    def expected(self, mode: str) -> Path:
        if mode == "lf" and (self.path / "expected-lf").is_dir():
            return self.path / "expected-lf"
        return self.path / "expected"

    def applies_in(self, mode: str) -> bool:
        return mode == "preserve" or not (self.origin == "reference" and self.name in PRESERVE_ONLY)


def find_scenarios() -> list[Scenario]:
    """The reference's scenarios (when ``../shared`` is there), then ours."""
    found = []
    if REFERENCE_SCENARIOS.is_dir():
        found += [
            Scenario("reference", p) for p in sorted(REFERENCE_SCENARIOS.iterdir()) if p.is_dir()
        ]
    if OUR_SCENARIOS.is_dir():
        found += [
            Scenario("ours", p)
            for p in sorted(OUR_SCENARIOS.iterdir())
            if p.is_dir() and (p / "patch.txt").is_file()
        ]
    return found


def reference_params(params: list[Any]) -> list[Any]:
    """``params`` for a test parametrized over the reference's scenarios only; without them, one
    ``reference``-marked placeholder, so that the test is reported as skipped and says why
    (instead of pytest's "got empty parameter set")."""
    if params:
        return params
    return [pytest.param(None, id="no-reference-scenarios", marks=pytest.mark.reference)]
