"""What a run selects: the browser tests only with ``--browser-tests``, the reference scenarios
only where ``../shared`` is; and, for every test, atomic journals go to a per-session folder
(``APPLYPATCH_STATE_DIR``), never the user's state directory.

``pytest`` alone needs only the ``test`` extra. Two groups of tests need more:

- marker ``browser`` (a real JupyterLab / Notebook 7 page in Chromium): the ``browser`` extra
  and ``--browser-tests``, which ``make test`` passes (pytest-playwright owns ``--browser``);
  without it they are skipped, saying so;
- marker ``reference`` (the reference's 25 scenarios, read in place from
  ``../shared/conformance/codex-scenarios``): skipped when that folder is absent.

Under CI (``CI`` set to anything but ``""``, ``0`` or ``false``) nothing is skipped for a missing
prerequisite: those tests fail, since a suite that silently shrinks hides breakage.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator

import pytest

from applypatch_ext.core.apply.journal import STATE_DIR_ENV

from .scenarios import REFERENCE_SCENARIOS

BROWSER_EXTRA = "pip install -e '.[test,browser]'"


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def unavailable(reason: str) -> None:
    """Skip the current test for a missing prerequisite, or fail it under CI."""
    if on_ci():
        pytest.fail(f"{reason} (CI is set: a missing prerequisite fails instead of skipping)")
    pytest.skip(reason)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--browser-tests",
        action="store_true",
        default=False,
        help="Run the browser tests (marker 'browser'): JupyterLab and Notebook 7 in Debian's "
        f"Chromium. Needs the browser extra ({BROWSER_EXTRA}); make test passes this flag.",
    )
    parser.addoption(
        "--update-baselines",
        action="store_true",
        default=False,
        help="Browser tests that compare a screenshot with a committed baseline PNG "
        "(tests/jupyter/baselines/) write the new screenshot there instead (review, commit).",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("--browser-tests"):
        return
    missing = [
        name
        for name in ("playwright", "pytest_playwright", "jupyterlab", "notebook")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise pytest.UsageError(
            f"--browser-tests: {', '.join(missing)} not installed; the browser tests need the "
            f"browser extra: {BROWSER_EXTRA}"
        )


def pytest_runtest_setup(item: pytest.Item) -> None:
    browser = item.get_closest_marker("browser") is not None
    if browser and not item.config.getoption("--browser-tests"):
        unavailable("browser test: run with --browser-tests (make test does) and the browser extra")
    if item.get_closest_marker("reference") is not None and not REFERENCE_SCENARIOS.is_dir():
        unavailable(
            f"no reference scenarios at {REFERENCE_SCENARIOS}: they are read in place from the "
            "shared folder beside the checkout (../shared), never copied into the repo"
        )


@pytest.fixture(autouse=True, scope="session")
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    state = tmp_path_factory.mktemp("applypatch-state")
    mp = pytest.MonkeyPatch()
    mp.setenv(STATE_DIR_ENV, str(state))
    yield
    mp.undo()
