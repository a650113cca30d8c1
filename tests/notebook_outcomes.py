"""What the widgets of each teaching notebook end in, in order: written once, checked where the
notebooks run under nbclient (tests/test_notebooks.py) and in the JupyterLite site
(tests/lite/test_lite_browser.py). Statuses are the core's, or :data:`UNDONE` for a completed
call an undo put back (its badge and its record say so); the widget's words for them come from
the vocabulary (:func:`labels`)."""

from __future__ import annotations

from applypatch_ext.core.turn.options import CallStatus
from applypatch_ext.jupyter.records.vocabulary import status_meaning, undone_meanings

COMPLETED, ERROR, FAILED = CallStatus.COMPLETED, CallStatus.ERROR, CallStatus.FAILED
DECLINED, DRY_RUN = CallStatus.DECLINED, CallStatus.DRY_RUN
#: A completed call whose files an undo put back (the vocabulary's ``undone``).
UNDONE = "undone"

FINAL_STATUSES: dict[str, list[str]] = {
    # first, second, pending (asks), approved, planned
    "01_tour.ipynb": [COMPLETED, COMPLETED, CallStatus.AWAITING_APPROVAL, COMPLETED, DRY_RUN],
    "02_parse_and_stream.ipynb": [COMPLETED, COMPLETED, DRY_RUN, ERROR],
    "03_verify_safety_apply.ipynb": [ERROR, DRY_RUN],
    # case by case (sections 1 to 12)
    "04_failure_cases.ipynb": [
        ERROR,  # 1 parse error
        ERROR,  # 2 verification error
        CallStatus.REJECTED,  # 3 safety reject
        DECLINED,  # 4 approval declined
        FAILED,  # 5 partial failure
        FAILED,  # 5 the same, atomic
        ERROR,  # 6 two hunks through the pipeline
        FAILED,  # 7 failed move
        COMPLETED,  # 8 good
        FAILED,  # 8 inexact
        COMPLETED,  # 8 after
        COMPLETED,  # 9 retry approved
        FAILED,  # 9 retry refused
        FAILED,  # 9 policy never
        COMPLETED,  # 10 drift, still matches
        FAILED,  # 10 drift, no longer matches
        CallStatus.CANCELLED,  # 11
        DECLINED,  # 12 the move alone
        ERROR,  # 12 reject
        COMPLETED,  # 12 fold
    ],
    "05_turn_diff.ipynb": [COMPLETED] * 8,
    "06_streaming_from_a_model.ipynb": [COMPLETED, DECLINED],
    "07_review_and_undo.ipynb": [
        UNDONE,  # the partial approval (it waited, then the selection ran; undone at the end)
        DECLINED,  # declined with a reason
        COMPLETED,  # the undo
        UNDONE,  # the second change (redone, then undone with the whole turn at the end)
        ERROR,  # its undo, stopped by the edit by hand
        COMPLETED,  # the other files only
        COMPLETED,  # --force
        COMPLETED,  # the redo
        COMPLETED,  # %apply_patch_turn --undo
    ],
    # one step-through widget, showing the last call stepped to (replay.show(4))
    "08_replay_a_codex_session.ipynb": [COMPLETED],
    "09_notebook_files.ipynb": [COMPLETED, ERROR, ERROR, COMPLETED],
    # one real failure up close and its fix, then the two warnings
    "10_real_failures.ipynb": [ERROR, COMPLETED, COMPLETED, COMPLETED],
    # the person's own cell, then the desk's record of the agent's calls
    "11_an_agent_at_the_desk.ipynb": [COMPLETED, COMPLETED],
}

#: How many of a notebook's widgets the JupyterLite site shows, where it shows fewer (the first
#: ones): the desk cannot start a server in the browser, so notebook 11 has no desk record there.
LITE_WIDGETS: dict[str, int] = {"11_an_agent_at_the_desk.ipynb": 1}


def label(status: str) -> str:
    """The words a widget ending in ``status`` (or :data:`UNDONE`) shows."""
    undone = undone_meanings().get(status)
    return str(undone["label"] if undone else status_meaning(status)["label"])


def labels(name: str) -> list[str]:
    """The words the widgets of notebook ``name`` end in, in order."""
    return [label(status) for status in FINAL_STATUSES[name]]
