"""What the live widget shows first and says, in a real JupyterLab (issue 23 items 6 and 10).

* item 6: a patch to an ``.ipynb``: the first cell view is the call's own change (``x = 1`` to
  ``x = 2``); what Undo would restore (the reverse) is folded and labelled by its direction;
* item 10: Redo's approval buttons name the redo, not the undo; the undo and redo panels show a
  status's words, not its raw name (``awaiting-approval``); an undone call's badge says so; a
  refused notebook call (nothing committed) does not say "1 not as verified" beside "exact".

The last item of 10, a finished call's preview that said "nothing written yet", is here too.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from applypatch_ext.jupyter.records.vocabulary import status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import WIDGET, expect, open_lab_notebook, run_lab_cells

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser

SHUTDOWN_ALL = """async () => {
    const app = window.jupyterapp;
    for (const w of app ? [...app.shell.widgets('main')] : []) {
        if (w.sessionContext?.session) await w.sessionContext.shutdown();
    }
}"""


@pytest.fixture(autouse=True)
def _kernels_shut_down(page: Page) -> Iterator[None]:
    """Each test's kernels end with it, answered or not (a waiting call would keep its kernel
    busy with the machine's other tests)."""
    yield
    with contextlib.suppress(Exception):  # a page already gone has nothing to shut down
        page.evaluate(SHUTDOWN_ALL)


COMPLETED = status_meaning("completed")["label"]
NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {},
    "cells": [
        {
            "cell_type": "code",
            "id": "a1",
            "source": ["x = 1"],
            "metadata": {},
            "outputs": [],
            "execution_count": None,
        }
    ],
}
NB_PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: nb.ipynb",
        "@@",
        '-    "x = 1"',
        '+    "x = 2"',
        "*** End Patch",
    ]
)


def cells_shown_first(widget: Locator) -> str:
    """The text of the first notebook cell view the widget shows open (in page order)."""
    text: str = widget.evaluate(
        """(w) => {
            const views = [...w.querySelectorAll('[data-testid=applypatch-nb]')]
                .filter((v) => v.checkVisibility());
            return views.length ? views[0].textContent : '';
        }"""
    )
    return text


def test_a_notebook_patch_shows_its_own_change_first(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch
) -> None:
    root = jupyter_lab.root
    (root / "nb.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    name = jupyter_lab.write_notebook(
        "nb-first.ipynb",
        ["%load_ext applypatch_ext", f"%%apply_patch --stream-chunk 0\n{NB_PATCH}"],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET)
    expect(widget.get_by_test_id("applypatch-status")).to_have_text(COMPLETED, timeout=30_000)
    # the call's notebooks come with its result: wait for their cells to show
    own = widget.get_by_test_id("applypatch-notebooks").get_by_test_id("applypatch-nb").first
    expect(own).to_be_visible(timeout=30_000)
    first = cells_shown_first(widget)
    assert "x = 1" in first and "x = 2" in first
    assert first.index("x = 1") < first.index("x = 2"), first  # the call's change, not its undo
    undo = widget.get_by_test_id("applypatch-undo-notebooks")
    expect(undo).to_contain_text("what Undo would restore (the call's change, reversed)")
    # folded: its cells show only after a click, and then they are the reverse
    assert undo.evaluate("(s) => s.tagName === 'DETAILS' && !s.open")
    undo.locator("summary").first.click()
    reverse = undo.get_by_test_id("applypatch-nb").first.text_content() or ""
    assert reverse.index("x = 2") < reverse.index("x = 1"), reverse
    watch.check()


UNTRUSTED = "%%apply_patch u --approval-policy untrusted --stream-chunk 0\n" + "\n".join(
    ["*** Begin Patch", "*** Add File: u.txt", "+u", "*** End Patch"]
)


def test_undo_and_redo_say_what_they_are(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch
) -> None:
    (jupyter_lab.root / "u.txt").unlink(missing_ok=True)
    name = jupyter_lab.write_notebook("undo-texts.ipynb", ["%load_ext applypatch_ext", UNTRUSTED])
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET)
    widget.get_by_test_id("applypatch-approve").click()
    status = widget.get_by_test_id("applypatch-status")
    expect(status).to_have_text(COMPLETED, timeout=30_000)
    undo_panel = widget.get_by_test_id("applypatch-undo-panel")
    # the undo asks (untrusted): its buttons name the undo, its panel says the status in words
    widget.get_by_test_id("applypatch-undo").click()
    approve = widget.get_by_test_id("applypatch-undo-approve")
    expect(approve).to_be_visible(timeout=30_000)
    expect(approve).to_have_text("Approve (undo)")
    expect(undo_panel).not_to_contain_text("awaiting-approval")
    approve.click()
    expect(widget.get_by_test_id("applypatch-redo")).to_be_enabled(timeout=30_000)
    assert not (jupyter_lab.root / "u.txt").exists()
    # an undone call's badge says so (its record does)
    expect(status).not_to_have_text(COMPLETED)
    expect(status).to_contain_text("undone")
    # the redo asks too: its buttons and their labels name the redo
    widget.get_by_test_id("applypatch-redo").click()
    expect(approve).to_be_visible(timeout=30_000)
    expect(approve).to_have_text("Approve (redo)")
    label = approve.get_attribute("aria-label") or ""
    assert "redo" in label and "undo's" not in label, label
    expect(undo_panel).not_to_contain_text("awaiting-approval")
    watch.check()


BROKEN = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: nb.ipynb",
        "@@",
        '-    "x = 1"',
        '+    "x = 1',  # the notebook would no longer be JSON: refused at verification
        "*** End Patch",
    ]
)


def test_a_refused_notebook_call_does_not_say_not_as_verified(
    page: Page, jupyter_lab: JupyterServer, watch: PageWatch
) -> None:
    (jupyter_lab.root / "nb.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    name = jupyter_lab.write_notebook(
        "nb-refused.ipynb",
        ["%load_ext applypatch_ext", f"%%apply_patch --stream-chunk 0\n{BROKEN}"],
    )
    panel = open_lab_notebook(page, jupyter_lab.url, name)
    run_lab_cells(page, name, [0, 1])
    widget = panel.locator(WIDGET)
    expect(widget.get_by_test_id("applypatch-status")).to_have_text(
        status_meaning("error")["label"], timeout=30_000
    )
    expect(widget).to_contain_text("nbformat")  # the refusal says why
    expect(widget).not_to_contain_text("not as verified")
    expect(widget).not_to_contain_text("exact: the committed changes are complete")
    expect(widget.get_by_test_id("applypatch-delta")).to_contain_text("nothing written")
    # its preview: the call has ended, nothing is written "yet" (issue 23 item 10)
    expect(widget.get_by_test_id("applypatch-planned")).to_contain_text(
        "planned from the streamed text"
    )
    expect(widget).not_to_contain_text("nothing written yet")
    watch.check()
