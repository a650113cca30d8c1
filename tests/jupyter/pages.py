"""Driving a notebook page in JupyterLab or Notebook 7.

Playwright is imported only when a browser test runs, so that the suite collects with the
``test`` extra alone (the browser tests are then skipped; see tests/conftest.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import pytest

from ..conftest import SERVER_FIXTURES

if TYPE_CHECKING:
    # (the assertions expect returns: sync_api imports them, but leaves them out of __all__)
    from playwright.sync_api import Locator, Page
    from playwright.sync_api._generated import LocatorAssertions, PageAssertions

    from .conftest import JupyterServer

#: The notebook in the active main-area tab (other restored tabs are .lm-mod-hidden).
LAB_PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
NB7_PANEL = ".jp-Notebook"
WIDGET = "[data-testid=applypatch-widget]"


@overload
def expect(actual: Page, message: str | None = None) -> PageAssertions: ...
@overload
def expect(actual: Locator, message: str | None = None) -> LocatorAssertions: ...
def expect(
    actual: Page | Locator, message: str | None = None
) -> PageAssertions | LocatorAssertions:
    """Playwright's ``expect``, imported on first use (its overloads, so that a locator's
    assertions are typed as such)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(actual, message)


# Wait on the session itself: the toolbar's indicator says "idle" for a moment BEFORE the
# kernel exists, and keys sent then are dropped silently.
LAB_KERNEL_READY = """(path) => {
    const app = window.jupyterapp;
    if (!app) return false;
    const panel = [...app.shell.widgets('main')].find(w => w.context?.path === path);
    const ctx = panel?.sessionContext;
    const k = ctx?.session?.kernel;
    return !!(ctx?.isReady && k && k.status === 'idle' && k.connectionStatus === 'connected');
}"""

NB7_KERNEL_READY = """() => {
    const ctx = window.jupyterapp?.shell?.currentWidget?.sessionContext;
    const k = ctx?.session?.kernel;
    return !!(ctx?.isReady && k && k.status === 'idle' && k.connectionStatus === 'connected');
}"""

# Not awaited on purpose: the test acts while the cells run.
# Each cell is run once the previous one has been handled (changing the active cell while a
# run-cell command is still in flight can skip a cell).
RUN_CELLS = """async function run(app, panel, indices) {
    for (const i of indices) {
        panel.content.activeCellIndex = i;
        await app.commands.execute('notebook:run-cell');
    }
}"""

LAB_RUN_CELLS = f"""([path, indices]) => {{
    {RUN_CELLS}
    const app = window.jupyterapp;
    const panel = [...app.shell.widgets('main')].find(w => w.context?.path === path);
    if (!panel) throw new Error('no open notebook ' + path);
    app.shell.activateById(panel.id);
    run(app, panel, indices);
}}"""

NB7_RUN_CELLS = f"""(indices) => {{
    {RUN_CELLS}
    const app = window.jupyterapp;
    run(app, app.shell.currentWidget, indices);
}}"""


def open_lab_notebook(page: Page, base_url: str, name: str) -> Locator:
    """Open ``name`` in an empty workspace (``?reset``), wait for its kernel; the panel."""
    page.goto(f"{base_url}/lab/tree/{name}?reset")
    page.wait_for_function(LAB_KERNEL_READY, arg=name, timeout=90_000, polling=100)
    return page.locator(LAB_PANEL)


def run_lab_cells(page: Page, name: str, indices: list[int]) -> None:
    page.evaluate(LAB_RUN_CELLS, [name, indices])


def open_nb7_notebook(page: Page, base_url: str, name: str) -> Locator:
    page.goto(f"{base_url}/notebooks/{name}")
    page.wait_for_function(NB7_KERNEL_READY, timeout=90_000, polling=100)
    return page.locator(NB7_PANEL)


def run_nb7_cells(page: Page, indices: list[int]) -> None:
    page.evaluate(NB7_RUN_CELLS, indices)


# Notebook 7.6.5 throws this while loading any notebook, with or without a widget (seen with a
# bare `1+1` notebook): it comes from its own bundle, not from the widget's module.
NOTEBOOK7_OWN_ERRORS = (
    ("Cannot read properties of undefined (reading 'schema')", "/static/notebook/notebook_core."),
)

#: The notebook panel of ``path`` (in Notebook 7, the page's one notebook), in the page's JS.
PANEL_OF = """(path) => [...window.jupyterapp.shell.widgets('main')]
    .find(w => (w.context?.path ?? '') === path) ?? window.jupyterapp.shell.currentWidget"""

#: The plain texts of the call records in the notebook model of ``path``, in cell order (of
#: cell ``only`` alone when it is given).
MODEL_RECORDS = f"""(path, only) => {{
    const cells = ({PANEL_OF})(path).content.model.cells;
    const texts = [];
    for (let c = 0; c < cells.length; c++) {{
        if (only !== undefined && c !== only) continue;
        const outputs = cells.get(c).outputs;
        for (let i = 0; i < (outputs?.length ?? 0); i++) {{
            const output = outputs.get(i);
            if (!output.metadata?.applypatch_ext?.record) continue;
            const text = output.data['text/plain'];
            texts.push(Array.isArray(text) ? text.join('') : String(text ?? ''));
        }}
    }}
    return texts;
}}"""


def records_say(page: Page, path: str, words: list[str]) -> None:
    """Wait until the notebook model of ``path`` holds one call record per word, in order,
    each saying its word: what a save then writes. A record's update is a message of its own,
    which may come after its live view's, so a live view's state does not tell it."""
    page.wait_for_function(
        f"""([path, words]) => {{
            const texts = ({MODEL_RECORDS})(path);
            return texts.length === words.length && words.every((w, i) => texts[i].includes(w));
        }}""",
        arg=[path, words],
        timeout=60_000,
        polling=200,
    )


@dataclass(frozen=True)
class Front:
    """A front end a test runs in alike: its server's fixture, how a notebook is opened there
    (and reopened), its cells run and its kernel awaited, and the page errors of its own that
    a test lets pass (``PageWatch.check(known=...)``)."""

    fixture: str
    lab: bool
    known: tuple[tuple[str, str], ...] = ()

    def open(self, page: Page, server: JupyterServer, name: str) -> Locator:
        if self.lab:
            return open_lab_notebook(page, server.url, name)
        return open_nb7_notebook(page, server.url, name)

    def run(self, page: Page, name: str, indices: list[int]) -> None:
        if self.lab:
            run_lab_cells(page, name, indices)
        else:
            run_nb7_cells(page, indices)

    def ready(self, page: Page, name: str) -> None:
        """The page (reloaded) has the notebook's kernel connected and idle."""
        if self.lab:
            page.wait_for_function(LAB_KERNEL_READY, arg=name, timeout=90_000, polling=100)
        else:
            page.wait_for_function(NB7_KERNEL_READY, timeout=90_000, polling=100)

    def cells(self, page: Page) -> Locator:
        return page.locator(LAB_PANEL if self.lab else NB7_PANEL).locator(".jp-Cell")


LAB = Front("jupyter_lab", lab=True)
NB7 = Front("jupyter_notebook7", lab=False, known=NOTEBOOK7_OWN_ERRORS)


#: ``@FRONTS``: the test runs in JupyterLab and in Notebook 7 (its ``front`` argument; it takes
#: the server with ``request.getfixturevalue(front.fixture)``), each on the worker that has that
#: front end's server (the group tests/conftest.py gives the server's fixture).
FRONTS = pytest.mark.parametrize(
    "front",
    [
        pytest.param(f, id=group, marks=pytest.mark.xdist_group(group))
        for f in (LAB, NB7)
        for group in [SERVER_FIXTURES[f.fixture]]
    ],
)


# The last ``data-history`` of every widget view the page ever had (a view of the same model
# rendered again, e.g. after a reload, starts a history of its own).
COLLECT_HISTORIES = """
window.__applypatchHistories = new Map();
new MutationObserver((mutations) => {
    for (const m of mutations) {
        window.__applypatchHistories.set(m.target, m.target.getAttribute('data-history'));
    }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-history']});
"""


def collect_histories(page: Page) -> None:
    """Call before ``goto``: from then on, the page keeps every view's ``data-history``."""
    page.add_init_script(COLLECT_HISTORIES)


def history(widget: Locator) -> list[dict[str, Any]]:
    """The ``data-history`` of a widget: every stage, status and line count it rendered."""
    entries: list[dict[str, Any]] = json.loads(widget.get_attribute("data-history") or "[]")
    return entries


def streamed_line_counts(page: Page) -> list[tuple[int, int]]:
    """``(time ms, lines)`` of the patch text rendered while streaming, by the view (of all the
    page's views, see :func:`collect_histories`) that rendered the most of them."""
    best: list[tuple[int, int]] = []
    for raw in page.evaluate("() => [...window.__applypatchHistories.values()]"):
        stage = ""
        counts = []
        for entry in json.loads(raw or "[]"):
            if entry["k"] == "stage":
                stage = entry["v"]
            elif entry["k"] == "lines" and stage == "streaming" and entry["v"] > 0:
                counts.append((entry["t"], entry["v"]))
        if len(counts) > len(best):
            best = counts
    return best


def set_lab_theme(page: Page, theme: str) -> None:
    page.evaluate(
        "async (theme) => { await window.jupyterapp.commands.execute('apputils:change-theme', "
        "{theme}); }",
        theme,
    )
    # ...and its stylesheet loaded: switching again while JupyterLab still loads the previous
    # theme's <link> makes its theme manager remove a node twice (a console error of its own).
    page.wait_for_function(
        """(theme) => document.body.dataset.jpThemeName === theme
            && [...document.querySelectorAll('link[rel="stylesheet"]')].every((l) => l.sheet)""",
        arg=theme,
        timeout=15_000,
    )
    page.wait_for_timeout(300)  # the theme manager's own transition after the sheet loads


# -- screenshots compared with a committed baseline ---------------------------------------------

#: A pixel differs when its three channels differ by more than this, summed (antialiasing and
#: subpixel text positions stay under it).
PIXEL_THRESHOLD = 48
#: At most this share of the pixels may differ.
PIXEL_TOLERANCE = 0.005

# In the page: decode both PNGs (data URLs), compare their pixels.
COMPARE_PNGS = """async ([a, b, threshold]) => {
    const load = (src) => new Promise((ok, fail) => {
        const image = new Image();
        image.onload = () => ok(image);
        image.onerror = () => fail(new Error('not a PNG'));
        image.src = src;
    });
    const [x, y] = await Promise.all([load(a), load(b)]);
    if (x.width !== y.width || x.height !== y.height)
        return {size: [[x.width, x.height], [y.width, y.height]], differ: -1, total: 0};
    const pixels = (image) => {
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        return context.getImageData(0, 0, image.width, image.height).data;
    };
    const p = pixels(x);
    const q = pixels(y);
    let differ = 0;
    for (let k = 0; k < p.length; k += 4) {
        const d = Math.abs(p[k] - q[k]) + Math.abs(p[k + 1] - q[k + 1])
            + Math.abs(p[k + 2] - q[k + 2]);
        if (d > threshold) differ++;
    }
    return {size: [[x.width, x.height]], differ, total: p.length / 4};
}"""


def steady_screenshot(page: Page, target: Locator, mask: list[Locator] | None = None) -> bytes:
    """A screenshot of ``target`` that does not depend on the moment: no animation, no caret,
    no hover (the mouse parked in a corner), varying parts painted over (``mask``)."""
    page.mouse.move(0, 0)
    page.add_style_tag(
        content="*, *::before, *::after { transition: none !important;"
        " animation: none !important; caret-color: transparent !important; }"
    )
    page.wait_for_timeout(200)
    return target.screenshot(
        animations="disabled", caret="hide", scale="css", mask=mask or [], mask_color="#ff00ff"
    )


def compare_with_baseline(page: Page, shot: bytes, baseline: Any, update: bool, out: Any) -> None:
    """``shot`` (PNG bytes) against the committed ``baseline`` (a Path): equal sizes and at most
    :data:`PIXEL_TOLERANCE` of the pixels differing; with ``update`` the baseline is rewritten.
    The shot is kept beside the test's other artifacts (``out``) for review."""
    import base64

    out.mkdir(parents=True, exist_ok=True)
    (out / baseline.name).write_bytes(shot)
    if update:
        baseline.parent.mkdir(parents=True, exist_ok=True)
        baseline.write_bytes(shot)
        return
    assert baseline.exists(), (
        f"no baseline {baseline}: run this test with --browser-tests --update-baselines, "
        "look at the PNG, and commit it"
    )

    def url(data: bytes) -> str:
        return "data:image/png;base64," + base64.b64encode(data).decode()

    result = page.evaluate(COMPARE_PNGS, [url(shot), url(baseline.read_bytes()), PIXEL_THRESHOLD])
    assert result["differ"] >= 0, (
        f"{baseline.name}: the screenshot is {result['size'][0]}, the baseline "
        f"{result['size'][1]} (the new one is {out / baseline.name}; --update-baselines "
        "rewrites the baseline)"
    )
    share = result["differ"] / result["total"]
    assert share <= PIXEL_TOLERANCE, (
        f"{baseline.name}: {result['differ']} of {result['total']} pixels differ ({share:.2%}, "
        f"at most {PIXEL_TOLERANCE:.1%}); the new screenshot is {out / baseline.name}"
    )


def saved_live_views(nb: dict[str, Any]) -> list[str]:
    """The live views a notebook saved through the server keeps (issue 23 item 1: a page
    reloaded while the kernel runs shows them again), checked for what the file holds of each:
    the widget view alone with an empty text, its model a placeholder (the core Output widget,
    which shows nothing), no anywidget model (~100 KB of our JavaScript each). Their model ids.
    """
    from applypatch_ext.live_views import OUTPUT_KEY, PLACEHOLDER, WIDGET_STATE, WIDGET_VIEW

    views = [
        o
        for cell in nb["cells"]
        for o in cell.get("outputs", [])
        if "live" in o.get("metadata", {}).get(OUTPUT_KEY, {})
    ]
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for view in views:
        assert set(view["data"]) == {WIDGET_VIEW, "text/plain"}, view["data"]
        assert "".join(view["data"]["text/plain"]) == ""
        assert state[view["data"][WIDGET_VIEW]["model_id"]] == PLACEHOLDER
    assert not [m for m in state.values() if m.get("model_name") == "AnyModel"]
    return [v["data"][WIDGET_VIEW]["model_id"] for v in views]
