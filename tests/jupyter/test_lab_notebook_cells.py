"""A real JupyterLab in Debian's Chromium: a ``%%apply_patch`` call that edits a notebook (a copy
of the tour notebook) shows it as cells in the widget: the changed cell's source diff, its
outputs folded until a click, the unchanged cells as "N unchanged cells", the raw JSON diff
one keypress away. A second call of the same turn shows the TurnDiff as cells: both calls'
changed cells, net, with the TurnDiff's raw JSON one click away; the first call's TurnDiff
is its own change, said once."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import JupyterServer, PageWatch
from .pages import WIDGET, expect, open_lab_notebook, run_lab_cells, set_lab_theme
from .test_notebook_cells import NOTEBOOKS, TOUR, dumps, update_patch

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

EDITED = "tour_edited.ipynb"
OLD_LINE = 'print("status:", first.status)'
NEW_LINE = 'print("status is", first.status)'
TITLE = "# 01 · A tour, edited twice"


def test_a_notebook_edit_shows_as_cells(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    # the patch rewrites cell 9's first line and gives it an output and an execution count,
    # as a model that ran the cell would
    shutil.copy(NOTEBOOKS / TOUR, jupyter_lab.root / EDITED)
    before = (jupyter_lab.root / EDITED).read_text(encoding="utf-8")
    nb = json.loads(before)
    cell = nb["cells"][9]
    assert cell["source"][0].startswith(OLD_LINE)
    cell["source"][0] = cell["source"][0].replace(OLD_LINE, NEW_LINE)
    cell["outputs"] = [
        {"output_type": "stream", "name": "stdout", "text": ["status is completed\n"]}
    ]
    cell["execution_count"] = 7
    after = dumps(nb)
    patch = update_patch(EDITED, before, after)
    # the second call of the turn retitles cell 0 (a markdown cell)
    old_title = nb["cells"][0]["source"][0]
    nb["cells"][0]["source"][0] = TITLE + "\n"
    final = dumps(nb)
    name = jupyter_lab.write_notebook(
        "notebook_cells.ipynb",
        [
            "%load_ext applypatch_ext",
            f"%%apply_patch edited --new-turn --stream-chunk 0\n{patch}",
            f"%%apply_patch again --stream-chunk 0\n{update_patch(EDITED, after, final)}",
        ],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET).first
    expect(widget.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    assert (jupyter_lab.root / EDITED).read_text(encoding="utf-8") == after

    cells = widget.get_by_test_id("applypatch-notebooks")
    expect(cells).to_be_visible()
    expect(cells).to_contain_text("1 notebook committed; 1 notebook in the TurnDiff")
    notebook = cells.locator("[data-testid=applypatch-nb][data-view=committed]")
    expect(notebook).to_have_attribute("data-path", str(jupyter_lab.root / EDITED))
    expect(notebook.locator(".applypatch-nb-head")).to_contain_text(EDITED)
    expect(notebook.locator(".applypatch-nb-summary")).to_have_text(
        re.compile(r"^1 changed, \d+ unchanged cells$")
    )

    # the changed cell: its source diff, in the diff view's table, open
    changed = notebook.locator("li.applypatch-nb-cell[data-status=changed]")
    expect(changed).to_have_count(1)
    expect(changed.locator(".applypatch-nb-source > summary")).to_contain_text(
        "cell 9 · id cell-09 · code"
    )
    expect(changed).to_contain_text("changed: source, outputs, execution count")
    expect(changed.locator("tr.applypatch-dl-del .applypatch-code")).to_have_text([OLD_LINE])
    expect(changed.locator("tr.applypatch-dl-add .applypatch-code")).to_have_text([NEW_LINE])
    expect(changed.locator("tr.applypatch-dl-add .applypatch-gutter-new")).to_have_text(["1"])

    # outputs and execution count: folded until one click
    extra = changed.locator("details.applypatch-nb-extra")
    expect(extra).not_to_have_attribute("open", "")
    outputs = extra.locator("[data-extra=outputs]")
    expect(outputs).to_have_count(0)  # built when first shown
    extra.locator("summary").click()
    expect(outputs).to_be_visible()
    expect(outputs).to_contain_text("outputs: no outputs → 1 output: stream stdout")
    expect(outputs.locator("tr.applypatch-dl-add", has_text="status is completed")).to_have_count(1)
    expect(extra.locator("[data-extra='execution count']")).to_have_text(
        "execution count: none → 7"
    )

    # the unchanged cells, folded around it
    unchanged = notebook.get_by_test_id("applypatch-nb-unchanged")
    expect(unchanged).to_have_text(
        ["⋯ 9 unchanged cells (cells 0–8)", re.compile(r"^⋯ \d+ unchanged cells \(cells 10–\d+\)$")]
    )

    # the raw JSON diff: closed, opened from the keyboard
    raw = notebook.get_by_test_id("applypatch-nb-raw")
    expect(raw).not_to_have_attribute("open", "")
    expect(raw.locator(".applypatch-dt")).to_have_count(0)
    raw.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(raw).to_have_attribute("open", "")
    expect(raw.locator("tr.applypatch-dl-add", has_text='"execution_count": 7')).to_have_count(1)
    expect(raw.locator("tr.applypatch-dl-del", has_text='"execution_count": null')).to_have_count(1)

    # its colours are the theme's: a changed cell's bar is the theme's warning colour
    bar, want = changed.evaluate(
        """(el) => {
            const probe = document.createElement('span');
            probe.style.color = 'var(--jp-warn-color1)';
            el.append(probe);
            const want = getComputedStyle(probe).color;
            probe.remove();
            return [getComputedStyle(el).borderLeftColor, want];
        }"""
    )
    assert bar == want, (bar, want)
    widget.screenshot(path=str(artifacts_dir / "widget-notebook-cells.png"))
    set_lab_theme(page, "JupyterLab Dark")
    page.wait_for_timeout(300)
    widget.screenshot(path=str(artifacts_dir / "widget-notebook-cells-dark.png"))
    set_lab_theme(page, "JupyterLab Light")

    # the turn's first change is this call's own: its TurnDiff says so, once
    own = cells.locator("[data-testid=applypatch-nb][data-view=turn]")
    expect(own.locator(".applypatch-nb-same")).to_have_text(
        "the same change as committed above: this call is the turn's only change to it"
    )
    expect(own.locator(".applypatch-nb-cell")).to_have_count(0)

    # the second call: its committed cell, and the TurnDiff of both calls as cells
    run_lab_cells(page, name, [2])
    second = panel.locator(WIDGET).nth(1)
    expect(second.get_by_test_id("applypatch-status")).to_have_text("completed", timeout=30_000)
    assert (jupyter_lab.root / EDITED).read_text(encoding="utf-8") == final
    section = second.get_by_test_id("applypatch-notebooks")
    expect(section).to_contain_text("1 notebook committed; 1 notebook in the TurnDiff")
    committed = section.locator("[data-testid=applypatch-nb][data-view=committed]")
    expect(committed.locator("li.applypatch-nb-cell")).to_have_count(1)
    net = section.locator("[data-testid=applypatch-nb][data-view=turn]")
    expect(net).to_have_attribute("data-path", str(jupyter_lab.root / EDITED))
    expect(net.locator(".applypatch-nb-view")).to_have_text("in the TurnDiff")
    expect(net.locator(".applypatch-nb-summary")).to_have_text(
        re.compile(r"^2 changed, \d+ unchanged cells$")
    )
    net_cells = net.locator("li.applypatch-nb-cell[data-status=changed]")
    expect(net_cells).to_have_count(2)
    expect(net_cells.nth(0).locator(".applypatch-nb-source > summary")).to_contain_text(
        "cell 0 · id cell-00 · markdown"
    )
    expect(net_cells.nth(0).locator("tr.applypatch-dl-del .applypatch-code")).to_have_text(
        [old_title.rstrip("\n")]
    )
    expect(net_cells.nth(0).locator("tr.applypatch-dl-add .applypatch-code")).to_have_text([TITLE])
    # the first call's change, from the text before the turn: its outputs still folded
    expect(net_cells.nth(1).locator("tr.applypatch-dl-add .applypatch-code")).to_have_text(
        [NEW_LINE]
    )
    net_extra = net_cells.nth(1).locator("details.applypatch-nb-extra")
    expect(net_extra).not_to_have_attribute("open", "")
    net_extra.locator("summary").click()
    expect(net_extra.locator("[data-extra=outputs]")).to_contain_text(
        "outputs: no outputs → 1 output: stream stdout"
    )
    expect(net.get_by_test_id("applypatch-nb-unchanged")).to_have_count(2)
    # the TurnDiff's raw JSON: closed, one click away, both calls' lines in it
    net_raw = net.get_by_test_id("applypatch-nb-raw")
    expect(net_raw).not_to_have_attribute("open", "")
    net_raw.locator("summary").click()
    expect(net_raw).to_have_attribute("open", "")
    for text in (TITLE, '"execution_count": 7'):
        expect(net_raw.locator("tr.applypatch-dl-add", has_text=text)).to_have_count(1)
    second.get_by_test_id("applypatch-notebooks").screenshot(
        path=str(artifacts_dir / "widget-notebook-turn-diff-cells.png")
    )
    watch.check()
