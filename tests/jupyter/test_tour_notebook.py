"""``notebooks/01_tour.ipynb`` in a real JupyterLab: every cell runs, every widget renders its
final state, and the approval buttons of the waiting call resume it when clicked."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

import nbformat
import pytest

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.jupyter.records.vocabulary import status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import WIDGET, expect, open_lab_notebook, run_lab_cells

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

TOUR = Path(__file__).resolve().parents[2] / "notebooks" / "01_tour.ipynb"
# The widgets of the tour, in order: first, second, pending (asks), approved, planned.
STATUSES = [
    status_meaning(status)["label"]  # the widget's words, those of the static fallback too
    for status in (
        CallStatus.COMPLETED,
        CallStatus.COMPLETED,
        CallStatus.AWAITING_APPROVAL,
        CallStatus.COMPLETED,
        CallStatus.DRY_RUN,
    )
]


def test_tour_notebook_runs_in_lab(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    started = time.monotonic()
    shutil.copy(TOUR, jupyter_lab.root / TOUR.name)
    cells = nbformat.read(TOUR, as_version=4).cells
    code = [i for i, cell in enumerate(cells) if cell.cell_type == "code"]

    panel = open_lab_notebook(page, jupyter_lab.url, TOUR.name)
    run_lab_cells(page, TOUR.name, list(range(len(cells))))

    # every code cell ran (a number in its prompt), the last one included, without an error
    prompts = panel.locator(".jp-Cell .jp-InputPrompt")
    for index in code:
        expect(prompts.nth(index)).to_have_text(re.compile(r"\[\d+\]:"), timeout=90_000)
    page.wait_for_function(
        """(path) => {
            const panel = [...window.jupyterapp.shell.widgets('main')]
                .find((w) => w.context?.path === path);
            return panel?.sessionContext?.session?.kernel?.status === 'idle';
        }""",
        arg=TOUR.name,
        timeout=30_000,
    )
    errors = panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    expect(errors).to_have_count(0)

    # every widget shows its final status
    widgets = panel.locator(WIDGET)
    expect(widgets).to_have_count(len(STATUSES), timeout=30_000)
    for index, status in enumerate(STATUSES):
        expect(widgets.nth(index).get_by_test_id("applypatch-status")).to_have_text(status)
    first = widgets.nth(0)
    # the turn's diff is closed under the call's own changes, and built when opened
    turn_diff = first.get_by_test_id("applypatch-turn-diff")
    expect(turn_diff).not_to_contain_text("hello.py")
    turn_diff.locator("summary").first.click()
    expect(turn_diff).to_contain_text("hello.py")
    expect(first.get_by_test_id("applypatch-delta")).to_contain_text("lib/util.py")

    # the AskUser call shows its buttons, and a click resumes it
    asking = widgets.nth(2)
    for testid in ("applypatch-approve", "applypatch-approve-session", "applypatch-decline"):
        expect(asking.get_by_test_id(testid)).to_be_enabled()
    expect(asking.locator(".applypatch-approval")).to_contain_text("pending.txt")
    asking.screenshot(path=str(artifacts_dir / "tour-approval.png"))
    status = asking.get_by_test_id("applypatch-status")
    approve = asking.get_by_test_id("applypatch-approve")
    clicks = 0
    deadline = time.monotonic() + 20
    # Approving a write outside the sandbox may be followed by a second question (the retry
    # without the sandbox) before the call completes: answer each question that shows up.
    while status.inner_text() != "completed" and time.monotonic() < deadline:
        if clicks < 3 and approve.count() == 1 and approve.is_enabled():
            approve.click()
            clicks += 1
        page.wait_for_timeout(200)
    expect(status).to_have_text("completed")
    assert clicks >= 1

    page.screenshot(path=str(artifacts_dir / "tour.png"), full_page=True)
    watch.check()
    print(f"\n[lab tour] total {time.monotonic() - started:.1f}s")
