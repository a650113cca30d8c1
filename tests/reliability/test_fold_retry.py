"""Issue 11 item 2, as the attack: fold mode's retry cannot write a path nobody saw.

With ``--duplicates fold`` (legacy), a second hunk on ``a.txt`` folds the first one away in the
proposed map, and with it that hunk's move destination outside the working directory (spec
7.4). The safety check sees only ``{a.txt: Add}`` and auto-approves; the sandboxed attempt is
denied at the hidden destination; then the "retry without the sandbox?" request must list every
path the retry can write -- read from the hunks that will run, the hidden destination included
-- and the retry may change nothing else. The patch runs through ``Turn.run``, the ``turn``
command and ``%%apply_patch`` (plain and as a shell-form ``cd sub && apply_patch``), under
``never``, ``on-request`` + Decline and ``on-request`` + Approve; the whole tree is compared.
"""

from __future__ import annotations

from pathlib import Path
from unittest.mock import ANY

import pytest

from applypatch_ext.core.turn.events import ApplyPatchApprovalRequest
from applypatch_ext.core.turn.options import PipelineOptions
from applypatch_ext.core.turn.turn import RETRY_REASON, Turn

from ..trees import Tree, snapshot_dir
from ._frontends import FRONTENDS, MODES, run

FOLDED = (
    "*** Begin Patch\n"
    "*** Update File: {a}\n*** Move to: {evil}\n@@\n-a\n+moved out\n"
    "*** Add File: {a}\n+z\n"
    "*** End Patch\n"
)

TEXTS = {
    "freeform": FOLDED.format(a="a.txt", evil="../outside/evil.txt"),
    "shell-form": "cd sub && apply_patch <<'EOF'\n"
    + FOLDED.format(a="../a.txt", evil="../../outside/evil.txt")
    + "EOF\n",
}


def build(top: Path) -> Tree:
    (top / "ws/sub").mkdir(parents=True)
    (top / "outside").mkdir()
    (top / "ws/a.txt").write_bytes(b"a\n")
    (top / "outside/keep.txt").write_bytes(b"keep\n")
    return snapshot_dir(top)


def changed(before: Tree, after: Tree) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p, 0) != after.get(p, 0)}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("form", list(TEXTS))
def test_fold_retry_lists_and_confines_every_path(
    form: str, frontend: str, mode: str, tmp_path: Path
) -> None:
    top = tmp_path.resolve() / "t"
    before = build(top)
    ws = top / "ws"
    evil = str(top / "outside/evil.txt")
    a = str(ws / "a.txt")

    result = run(frontend, ws, tmp_path / "patches", TEXTS[form], mode, ["--duplicates", "fold"])

    after = snapshot_dir(top)
    # The folded map hides the destination from safety and from the begin event (docs/behaviour.md
    # §7.4)...
    (begin,) = result.begins
    assert list(begin["changes"]) == [a] and begin["changes"][a]["type"] == "add"
    if mode == "never":
        # ... the sandbox denies it, and nobody may be asked to retry.
        assert result.status == "failed"
        assert result.requests == []
        assert after == before
        return

    # ... but the retry request lists every path the hunks write, the hidden one included.
    (request,) = result.requests
    assert request["retry"] is True and request["reason"] == RETRY_REASON
    assert request["files"] == [a, evil]
    assert request["cwd"] == str(ws)
    if frontend == "magic":
        assert result.widget_cwd == str(ws)
        from applypatch_ext.jupyter.records.vocabulary import request_words

        assert result.pending_views == [
            {
                "files": [a, evil],
                "reason": RETRY_REASON,
                "retry": True,
                "cwd": str(ws),
                "request_id": ANY,
                **request_words(2, retry=True),
            }
        ]
    if mode == "decline":
        assert result.status == "failed"
        assert after == before
        return

    # Approved: the retry writes what the request showed, and nothing else.
    assert result.status == "completed", result.error
    assert changed(before, after) == {"ws/a.txt", "outside/evil.txt"}
    assert after["ws/a.txt"] == b"z\n"
    assert after["outside/evil.txt"] == b"moved out\n"


@pytest.mark.parametrize("answer", ["decline", "approve"])
def test_the_first_request_lists_the_hidden_destination_too(answer: str, tmp_path: Path) -> None:
    """``untrusted`` asks before the first attempt: that request, too, comes from the hunks,
    and its grant is what lets the sandboxed attempt write the destination it showed."""
    top = tmp_path.resolve() / "t"
    before = build(top)
    ws = str(top / "ws")
    options = PipelineOptions.from_strings(
        ws, approval_policy="untrusted", exclude_tmp=True, duplicates="fold"
    )
    asked: list[ApplyPatchApprovalRequest] = []

    def approver(request: ApplyPatchApprovalRequest) -> str:
        asked.append(request)
        return answer

    result = Turn(ws, options=options).run(TEXTS["freeform"], approver)
    (request,) = asked
    assert request.retry is False
    assert request.files == (f"{ws}/a.txt", str(top / "outside/evil.txt"))
    after = snapshot_dir(top)
    if answer == "decline":
        assert result.status == "declined" and after == before
    else:
        assert result.status == "completed", result.error
        assert result.attempts == 1  # the grant covered the destination: no retry
        assert changed(before, after) == {"ws/a.txt", "outside/evil.txt"}
