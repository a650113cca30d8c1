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

The suite sets the signal disposition it needs instead of inheriting it: SIGINT raises
``KeyboardInterrupt`` (Python's default handler) in every test and in every process a test starts
(a Jupyter server, a kernel, a child ``turn``), also when pytest itself was started with SIGINT
ignored (``make test &`` in a script: a background job of a non-interactive shell ignores it).

Under pytest-xdist (``make check`` and ``make test`` use both cores), the tests that share an
expensive session or module fixture run on one worker (``--dist loadgroup``): one JupyterLab, one
Notebook 7, one JupyterLite server, and each module's own fixture built once.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
import threading
from collections.abc import Iterator
from typing import NoReturn

import pytest

from applypatch_ext.core.apply.journal import STATE_DIR_ENV

from .scenarios import REFERENCE_SCENARIOS

BROWSER_EXTRA = "pip install -e '.[test,browser]'"


def on_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def unavailable(reason: str) -> NoReturn:
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


def _default_sigint() -> None:
    """SIGINT raises KeyboardInterrupt here, and in what this process starts from now on (a
    handled signal is reset to its default in a new program; an ignored one stays ignored)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    _default_sigint()
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
    _check_group_kept(item)
    browser = item.get_closest_marker("browser") is not None
    if browser and not item.config.getoption("--browser-tests"):
        unavailable("browser test: run with --browser-tests (make test does) and the browser extra")
    if item.get_closest_marker("reference") is not None and not REFERENCE_SCENARIOS.is_dir():
        unavailable(
            f"no reference scenarios at {REFERENCE_SCENARIOS}: they are read in place from the "
            "shared folder beside the checkout (../shared), never copied into the repo"
        )


def _check_group_kept(item: pytest.Item) -> None:
    """Under ``--dist loadgroup`` the worker tags a grouped item's node id ``@group`` and the
    scheduler keeps a group on one worker by that tag. Where the tag did not take (pytest 9.2
    with pytest-xdist 3.8), the group is silently spread over both workers, which then start
    the same server or build the same site at once: such a test fails, saying why."""
    group = item.get_closest_marker("xdist_group")
    loadgroup = getattr(item.config.option, "loadgroup", False)
    if group is None or not loadgroup or "@" in item.nodeid:
        return
    pytest.fail(
        f"pytest-xdist did not tag this test with its group {group.args[0]!r}, so --dist "
        "loadgroup cannot keep the group on one worker: this pytest and pytest-xdist do not "
        "work together (see the pin of pytest in pyproject.toml)",
        pytrace=False,
    )


@pytest.fixture(autouse=True)
def _no_borrowed_event_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """Playwright's sync API (the browser tests) keeps its event loop marked as running on the
    main thread from the first browser test to the end of the worker's session, so a later test
    that runs a loop of its own (``asyncio.run``, ``anyio.run``: the desk's MCP clients, the
    Agents SDK runner) failed with "Cannot run the event loop while another loop is running",
    depending on which tests a worker had run before. Outside the browser tests the mark is
    lifted for the test and put back after it (Playwright's loop does not run meanwhile: it
    runs only inside Playwright's own calls)."""
    borrowed = asyncio.events._get_running_loop()
    if borrowed is None or request.node.get_closest_marker("browser") is not None:
        yield
        return
    asyncio.events._set_running_loop(None)
    try:
        yield
    finally:
        asyncio.events._set_running_loop(borrowed)


@pytest.fixture(autouse=True)
def _sigint_disposition() -> Iterator[None]:
    """Each test starts with Python's SIGINT handler, and a handler it leaves is undone."""
    previous = signal.getsignal(signal.SIGINT)
    _default_sigint()
    yield
    if threading.current_thread() is threading.main_thread() and previous is not None:
        signal.signal(signal.SIGINT, previous)


#: The session fixtures that start a server: the tests using one share a worker under xdist.
SERVER_FIXTURES = {
    "jupyter_lab": "jupyterlab",
    "jupyter_notebook7": "notebook7",
    "lite_site": "jupyterlite",
    "lite_url": "jupyterlite",
}


def xdist_group(item: pytest.Item) -> str | None:
    """The group an item runs in under ``--dist loadgroup``: the server it needs, else its
    module when it uses a module-scoped fixture of that module, else none (any worker)."""
    names = getattr(item, "fixturenames", ())
    for fixture, group in SERVER_FIXTURES.items():
        if fixture in names:
            return group
    info = getattr(item, "_fixtureinfo", None)
    module = getattr(item, "module", None)
    for definitions in info.name2fixturedefs.values() if info is not None else ():
        for definition in definitions:
            if definition.scope == "module" and getattr(definition.func, "__module__", None) == (
                module.__name__ if module is not None else None
            ):
                return item.nodeid.split("::")[0]
    return None


#: Folders and modules whose every test is ``slow``: each starts real processes, servers or
#: kernels per test, or runs a property search, and together they cost most of the fast set's
#: time. ``make check`` (the quick loop, about a minute on two idle cores) leaves them out;
#: ``make test`` (CI) runs them. A module with only a few heavy tests marks those itself
#: (``@pytest.mark.slow``).
SLOW_PLACES = {
    "tests/reliability/": "the attacks and sweeps: real processes, signals, kills and servers",
    "tests/desk/test_stdio.py": "a stdio MCP server process per test",
    "tests/desk/test_http.py": "an HTTP MCP server and a real client per test",
    "tests/desk/test_confinement.py": "both transports' servers, under every policy",
    "tests/desk/test_codex_outputs.py": "both transports' servers, one per recorded turn",
    "tests/core/test_fast_paths.py": "property searches of the fast paths against the plain ones",
    "tests/jupyter/test_diff_contract.py": "a property search of both diff models under node",
    "tests/jupyter/test_notebook_entry_points.py": "every entry point, the commands as processes",
    "tests/jupyter/test_saved_notebook.py": "a Jupyter server saving through the contents API",
    "tests/jupyter/test_labextension.py": "`jupyter labextension list` as a process",
}


def _slow_place(nodeid: str) -> bool:
    path = nodeid.split("::")[0]
    return any(path == place or path.startswith(place) for place in SLOW_PLACES)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Runs before ``-m`` deselects, so the ``slow`` of :data:`SLOW_PLACES` counts there."""
    for item in items:
        if _slow_place(item.nodeid):
            item.add_marker(pytest.mark.slow)
        group = xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True, scope="session")
def _private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    state = tmp_path_factory.mktemp("applypatch-state")
    mp = pytest.MonkeyPatch()
    mp.setenv(STATE_DIR_ENV, str(state))
    yield
    mp.undo()
