"""One patch text through the three front ends of the pipeline, with one approval answer.

Shared by the attack tests of issue 11 (``test_steering``, ``test_fold_retry``): the library
(``Turn.run``), the ``turn`` command in a subprocess and ``%%apply_patch`` in a real IPython
shell (``IPython.testing.globalipapp``), each run in one of three modes:

* ``never``: ``--approval-policy never``; nobody is asked;
* ``decline``: ``on-request``, every request answered Decline;
* ``approve``: ``on-request``, every request answered Approve.

``/tmp`` and ``$TMPDIR`` are excluded from the writable roots (pytest's ``tmp_path`` is under
``/tmp``, which would make every neighbour writable), so the working directory is the only one.
Each run returns a :class:`Run` with what the user saw: the approval requests (as JSON), the
FileChange begin events, the call's status, cwd and error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from IPython import get_ipython
from IPython.core.interactiveshell import InteractiveShell
from IPython.testing.globalipapp import start_ipython
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.options import CallStatus, Decision, PipelineOptions
from applypatch_ext.core.turn.turn import Turn
from applypatch_ext.jupyter.live.session import SESSION
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget
from applypatch_ext.jupyter.magics import magic as magic_module

FRONTENDS = ("library", "turn", "magic")
MODES = ("never", "decline", "approve")


def policy_of(mode: str) -> str:
    return "never" if mode == "never" else "on-request"


def answer_of(mode: str) -> str:
    return Decision.APPROVE.value if mode == "approve" else Decision.DECLINE.value


@dataclass
class Run:
    status: str
    cwd: str
    requests: list[dict[str, Any]]
    begins: list[dict[str, Any]]
    error: str | None
    #: what the widget holds while the call waits (the magic only): its ``approval`` trait
    pending_views: list[dict[str, Any]]
    stderr: str = ""
    #: the widget's ``cwd`` trait (the magic only), the directory its paths are relative to
    widget_cwd: str | None = None


def _of_events(events: Sequence[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def run_library(cwd: Path, text: str, mode: str, options: Sequence[str]) -> Run:
    opts = dict(_pairs(options))
    turn = Turn(
        str(cwd),
        options=PipelineOptions.from_strings(
            str(cwd),
            approval_policy=policy_of(mode),
            exclude_tmp=True,
            duplicates=opts.get("--duplicates", "reject"),
        ),
    )
    asked: list[ApplyPatchApprovalRequest] = []

    def approver(request: ApplyPatchApprovalRequest) -> str:
        asked.append(request)
        return answer_of(mode)

    result = turn.run(text, approver)
    events = [e.to_json() for e in result.events]
    requests = _of_events(events, "apply_patch_approval_request")
    assert len(requests) == len(asked)
    return Run(
        result.status,
        result.cwd,
        requests,
        _of_events(events, "patch_apply_begin"),
        result.error,
        [],
    )


def run_turn_command(cwd: Path, patches: Path, text: str, mode: str, options: Sequence[str]) -> Run:
    patches.mkdir(parents=True, exist_ok=True)
    patch_file = patches / f"p{len(list(patches.iterdir()))}.patch"
    patch_file.write_text(text, encoding="utf-8")
    argv = [
        sys.executable,
        "-m",
        "applypatch_ext",
        "turn",
        "--cwd",
        str(cwd),
        "--exclude-tmp",
        "--approval-policy",
        policy_of(mode),
        "--approve",
        answer_of(mode),
        *options,
        str(patch_file),
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    (result,) = _of_events(lines, "call_result")
    assert proc.returncode == (0 if result["status"] == "completed" else 1), proc.stderr
    return Run(
        result["status"],
        str(cwd),
        _of_events(lines, "apply_patch_approval_request"),
        _of_events(lines, "patch_apply_begin"),
        None,
        [],
        proc.stderr,
    )


def shell() -> InteractiveShell:
    """The global test shell (started once per process, as tests/jupyter does), with the
    extension loaded."""
    ip: InteractiveShell | None = start_ipython() or get_ipython()
    assert ip is not None
    ip.run_line_magic("load_ext", "applypatch_ext")
    return ip


class _KeptWidget(ApplyPatchWidget):
    """The real widget, kept where the test can read its synced traits."""

    made: ClassVar[list[ApplyPatchWidget]] = []

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _KeptWidget.made.append(self)


def run_magic(cwd: Path, text: str, mode: str, options: Sequence[str]) -> Run:
    """``%%apply_patch`` with ``--approve ask`` (the default) and its live widget: a request
    stops the cell in ``awaiting-approval`` with the request in the widget's ``approval``
    trait, and ``result.decide(...)`` answers it as the widget's buttons do."""
    ip = shell()
    SESSION.new_turn()
    line = (
        f"steer_result --cwd {cwd} --exclude-tmp --approval-policy {policy_of(mode)} "
        + " ".join(options)
    )
    pending: list[dict[str, Any]] = []
    _KeptWidget.made.clear()
    try:
        with pytest.MonkeyPatch.context() as patch, capture_output():
            patch.setattr(magic_module, "ApplyPatchWidget", _KeptWidget)
            ip.run_cell_magic("apply_patch", line, text)
            result = ip.user_ns.pop("steer_result")
            (widget,) = _KeptWidget.made
            while result.status == CallStatus.AWAITING_APPROVAL:
                pending.append(dict(widget.approval))
                result.decide(answer_of(mode))
            assert widget.approval == {}
    finally:
        SESSION.new_turn()
    raw = result.raw
    events = [e.to_json() for e in raw.events]
    return Run(
        raw.status,
        raw.cwd,
        _of_events(events, "apply_patch_approval_request"),
        _of_events(events, "patch_apply_begin"),
        raw.error,
        pending,
        widget_cwd=widget.cwd,
    )


def run(
    frontend: str, cwd: Path, patches: Path, text: str, mode: str, options: Sequence[str] = ()
) -> Run:
    if frontend == "library":
        return run_library(cwd, text, mode, options)
    if frontend == "turn":
        return run_turn_command(cwd, patches, text, mode, options)
    assert frontend == "magic"
    return run_magic(cwd, text, mode, options)


def _pairs(options: Sequence[str]) -> list[tuple[str, str]]:
    return list(zip(options[::2], options[1::2], strict=True))
