"""A real IPython shell with ``%load_ext applypatch_ext``, for the reliability tests that attack
the magics (the same global test shell as tests/jupyter/conftest.py). Import the fixture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.getipython import get_ipython
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython

from applypatch_ext.jupyter.live.session import SESSION


@pytest.fixture
def ipython(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """The shell, in a fresh working directory and a fresh turn, computing every mime type."""
    # start_ipython() starts the global test shell the first time, then returns None.
    shell: InteractiveShell | None = start_ipython() or get_ipython()
    assert shell is not None
    shell.run_line_magic("load_ext", "applypatch_ext")
    monkeypatch.chdir(tmp_path)
    formatter = shell.display_formatter
    assert formatter is not None
    monkeypatch.setattr(formatter, "active_types", list(formatter.format_types))
    SESSION.new_turn()
    yield shell
    SESSION.new_turn()
