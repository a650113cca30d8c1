"""The same widget in Jupyter Notebook 7: the stream, the final status, an approval click."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.jupyter.records.vocabulary import status_meaning

from .conftest import JupyterServer, PageWatch
from .pages import (
    NB7_PANEL,
    NOTEBOOK7_OWN_ERRORS,
    WIDGET,
    collect_histories,
    expect,
    open_nb7_notebook,
    run_nb7_cells,
    streamed_line_counts,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Add File: from_nb7.txt",
        *[f"+line {i}" for i in range(12)],
        "*** End Patch",
    ]
)


def test_stream_status_and_approval_in_notebook7(
    page: Page, jupyter_notebook7: JupyterServer, watch: PageWatch, artifacts_dir: Path
) -> None:
    started = time.monotonic()
    name = jupyter_notebook7.write_notebook(
        "nb7.ipynb",
        [
            "%load_ext applypatch_ext",
            "%%apply_patch --approval-policy untrusted --stream-chunk 16 --stream-delay 0.1\n"
            + PATCH,
        ],
    )
    collect_histories(page)
    open_nb7_notebook(page, jupyter_notebook7.url, name)
    run_nb7_cells(page, [0, 1])
    widget = page.locator(f"{NB7_PANEL} {WIDGET}")
    status = widget.get_by_test_id("applypatch-status")

    expect(widget.locator(".applypatch-current")).to_be_visible(timeout=30_000)
    expect(status).to_have_text("running")
    waiting = status_meaning(CallStatus.AWAITING_APPROVAL)["label"]  # the widget's words
    expect(status).to_have_text(waiting, timeout=30_000)
    lines = streamed_line_counts(page)
    assert len({n for _, n in lines}) >= 4, lines

    assert jupyter_notebook7.contents("from_nb7.txt") is None
    widget.get_by_test_id("applypatch-approve").click()
    expect(status).to_have_text("completed", timeout=15_000)
    written = jupyter_notebook7.contents("from_nb7.txt")
    assert written is not None
    assert written["content"] == "".join(f"line {i}\n" for i in range(12))
    # the TurnDiff section is closed at first
    widget.get_by_test_id("applypatch-turn-diff").locator("summary").first.click()
    expect(widget.get_by_test_id("applypatch-turn-diff")).to_contain_text("from_nb7.txt")

    widget.screenshot(path=str(artifacts_dir / "widget-notebook7.png"))
    page.screenshot(path=str(artifacts_dir / "page-notebook7.png"))
    watch.check(known=NOTEBOOK7_OWN_ERRORS)
    print(f"\n[notebook 7] total {time.monotonic() - started:.1f}s")
