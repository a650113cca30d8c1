"""Prints the figures of the reliability tests (inputs tried, faults injected) after the run."""

from __future__ import annotations

import pytest

from ._support import FIGURES, SCALE


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not FIGURES:
        return
    terminalreporter.section(f"reliability figures (APPLYPATCH_FUZZ_SCALE={SCALE})")
    for name, count in sorted(FIGURES.items()):
        terminalreporter.write_line(f"{name}: {count}")
