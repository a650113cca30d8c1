"""Shared by every test: atomic journals go to a per-session folder, never the user's state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from applypatch_ext.core.journal import STATE_DIR_ENV


@pytest.fixture(autouse=True, scope="session")
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    state = tmp_path_factory.mktemp("applypatch-state")
    mp = pytest.MonkeyPatch()
    mp.setenv(STATE_DIR_ENV, str(Path(state)))
    yield
    mp.undo()
