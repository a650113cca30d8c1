"""What each call status, stage, safety decision and approval answer means to a front end.

One table read by the live widget (its ``vocabulary`` trait: ``js/widget.js`` branches on these
meanings, never on a name) and by the static representations of ``display.py`` (the same labels,
and the tone's colour), so that both say the same words. Standard library and the core only:
``display.py`` and ``widget.py`` both import it.
"""

from __future__ import annotations

from typing import Any, Final

from ...core.diagnosis import KINDS, SUGGESTION_NOTE, Role
from ...core.text import plural
from ...core.turn.events import ApplyPatchApprovalRequest, PatchApplyBegin, PatchSafetyAssessed
from ...core.turn.options import CallStatus, Decision, Stage
from ...core.turn.safety import AskUser, AutoApprove, Reject

# The status trait while the call runs (it has no status yet).
RUNNING = ""


def _meaning(
    label: str,
    tone: str,
    summary: str,
    *,
    terminal: bool = True,
    wrote: bool = False,
    success: bool = False,
    dry_run: bool = False,
    user_declined: bool = False,
) -> dict[str, Any]:
    return {
        "label": label,
        "tone": tone,
        "terminal": terminal,
        "wrote": wrote,
        "success": success,
        "dry_run": dry_run,
        "user_declined": user_declined,
        "summary": summary,
    }


def call_vocabulary() -> dict[str, Any]:
    """What each call status and stage means to the front end (the ``vocabulary`` trait).

    The front end branches on these meanings, never on a status or stage name, and its CSS
    styles tones, so a renamed or added status is one change here. Per status:

    - ``label``: the words shown; ``tone``: ``ok``, ``bad``, ``waiting``, ``neutral`` or
      ``running`` (what the CSS styles);
    - ``terminal``: the call will not change any more; ``wrote``: something can have been
      written (a declined retry or a pending one may follow a sandboxed attempt that wrote);
    - ``success``: the call went where it should (its last stage is done, not failed);
      ``dry_run``: verified only, nothing written by design; ``user_declined``: the user said no;
    - ``summary``: which form the header's one-line summary takes (``progress``,
      ``approval``, ``verified-only``, ``changed``, ``committed-of-proposed``, ``nothing-written``
      or ``error``).

    ``unknown`` is the meaning of a status missing from the table (shown as itself). Per stage,
    in order: its ``label``, the ``evidence`` (the event type that proves a call went through
    a stage it may skip) and whether it ``writes``. Per safety decision: its ``label`` and
    ``tone``; ``safety_review``: the label, tone and reason shown beside an ``auto-approve``
    that ``--review`` turned into a question. ``decisions``: the answers to an approval
    request, in the order of their buttons, each with its ``label``, the button's ``testid``
    and whether it ``approves`` (a decline has the reason box beside it); an approving one
    also its ``selected_label``, what its button says while some files or chunks of a review
    are unticked: it then approves the ticked ones only (docs/behaviour.md §6.7).
    ``undone``: what a completed call whose files an undo put back is shown as instead of its
    status (the ``undo`` trait's ``undone``), with its tone. ``preview``: what the preview of
    the planned changes says it is while the call runs and once it has ended.
    ``diagnoses``: per kind of the failure atlas (core/diagnosis.py), its ``meaning`` and
    whether it is a failure's, a warning's or either's (``severity``); ``atlas``: the
    ``roles`` of a diagnosis (:func:`atlas_roles`) and the ``suggestion_note``.
    """
    return {
        "statuses": _status_meanings(),
        "unknown": _meaning("", "bad", "error", wrote=True),
        "stages": _stage_meanings(),
        "safety": _safety_meanings(),
        "safety_review": _safety_review_meaning(),
        "decisions": _decision_meanings(),
        "undone": undone_meanings(),
        "preview": preview_words(),
        "diagnoses": {
            kind.value: {"meaning": info.meaning, "severity": info.severity.value}
            for kind, info in KINDS.items()
        },
        "atlas": {"roles": atlas_roles(), "suggestion_note": SUGGESTION_NOTE},
    }


def atlas_roles() -> dict[str, dict[str, Any]]:
    """What a diagnosis is to its call (core/diagnosis.py ``Role``), as the widget and the
    records show it, in the order shown: the widget's ``trait`` that holds it (``many``: a
    list), its ``label``, its ``tone`` (the colour), and the section's ``note`` for it (a role
    with ``many`` entries is counted instead)."""
    return {
        Role.DIAGNOSIS: {
            "trait": "diagnosis",
            "many": False,
            "label": Role.DIAGNOSIS.value,
            "tone": "bad",
            "note": "why it failed",
        },
        Role.WARNING: {
            "trait": "warnings",
            "many": True,
            "label": Role.WARNING.value,
            "tone": "waiting",
            "note": "",
        },
    }


def _status_meanings() -> dict[str, dict[str, Any]]:
    statuses = {
        RUNNING: _meaning("running", "running", "progress", terminal=False, wrote=True),
        CallStatus.COMPLETED: _meaning("completed", "ok", "changed", wrote=True, success=True),
        CallStatus.FAILED: _meaning(CallStatus.FAILED, "bad", "committed-of-proposed", wrote=True),
        CallStatus.DECLINED: _meaning(
            CallStatus.DECLINED, "bad", "nothing-written", wrote=True, user_declined=True
        ),
        CallStatus.REJECTED: _meaning(CallStatus.REJECTED, "bad", "error"),
        CallStatus.ERROR: _meaning(CallStatus.ERROR, "bad", "error"),
        CallStatus.CANCELLED: _meaning(
            CallStatus.CANCELLED, "bad", "committed-of-proposed", wrote=True
        ),
        CallStatus.AWAITING_APPROVAL: _meaning(
            "waiting for approval", "waiting", "approval", terminal=False, wrote=True
        ),
        CallStatus.DRY_RUN: _meaning(
            "dry run (nothing written)", "neutral", "verified-only", success=True, dry_run=True
        ),
    }
    missing = set(CallStatus) - set(statuses)
    if missing:  # a status added to the core without saying what it means
        raise ValueError(
            f"call_vocabulary() in {__name__} gives no meaning for the call status(es) "
            f"{sorted(map(str, missing))}: add one per CallStatus {[str(s) for s in CallStatus]}"
        )
    return statuses


def _stage_meanings() -> list[dict[str, Any]]:
    evidence = {
        Stage.SAFETY: PatchSafetyAssessed.type,
        Stage.WAITING_FOR_APPROVAL: ApplyPatchApprovalRequest.type,
        Stage.APPLYING: PatchApplyBegin.type,
    }
    return [
        {
            "name": name,
            "label": name,
            "evidence": evidence.get(name),
            "writes": name == Stage.APPLYING,
        }
        for name in tuple(Stage)
    ]


def _safety_meanings() -> dict[str, dict[str, str]]:
    return {
        decision.decision: {"label": decision.decision, "tone": tone}
        for decision, tone in ((AutoApprove, "ok"), (AskUser, "waiting"), (Reject, "bad"))
    }


def _safety_review_meaning() -> dict[str, str]:
    """What the safety line adds when the policy would auto-approve but the call asks anyway,
    because it runs with ``--review`` (the safety trait's ``review``; docs/behaviour.md §6.7)."""
    return {
        "label": "asked because of --review",
        "tone": "waiting",
        "reason": "the policy alone would apply this patch without asking",
    }


def _decision_meanings() -> list[dict[str, str | bool]]:
    labels = {
        Decision.APPROVE: ("Approve selected", "applypatch-approve"),
        Decision.APPROVE_FOR_SESSION: (
            "Approve selected for session",
            "applypatch-approve-session",
        ),
        Decision.DECLINE: ("", "applypatch-decline"),
    }
    meanings: list[dict[str, str | bool]] = []
    for decision in Decision:
        selected, testid = labels[decision]
        meaning: dict[str, str | bool] = {
            "decision": decision.value,
            "label": decision.label,
            "testid": testid,
            "approves": decision.approved,
        }
        if decision.approved:
            # an approval of a review follows its ticks: only the ticked hunks (§6.7)
            meaning["selected_label"] = selected
        meanings.append(meaning)
    return meanings


def request_words(files: int, *, retry: bool = False) -> dict[str, str]:
    """What an approval request says above its files (the ``approval`` trait's ``heading``
    and ``writes``): a question, and how many paths it writes. ``retry``: the request to run
    again without the sandbox after a sandboxed attempt failed (docs/behaviour.md §6)."""
    return {
        "heading": "Retry without the sandbox?" if retry else "Approve this patch?",
        "writes": f"It writes {plural(files, 'path')}:",
    }


def undone_meanings() -> dict[str, dict[str, str]]:
    """A completed call undone (every file an undo could put back is back) or partly undone:
    the label its badge shows instead of its status's, the tone, and what it means."""
    return {
        "undone": {
            "label": "undone",
            "tone": "neutral",
            "text": "undone: its files are back as before the call",
        },
        "partly undone": {
            "label": "partly undone",
            "tone": "neutral",
            "text": "partly undone: some of its files are back as before the call",
        },
    }


def preview_words() -> dict[str, dict[str, str]]:
    """What the preview of the planned changes says it is (its badge's ``title``, the
    ``note`` after its file count, its ``text``), while the call runs and once it has ended
    (then the preview is what the call planned before it read or wrote anything, whether it
    went on to write or not)."""
    shape = (
        "An update shows the patch's own lines: its context lines appear as removed and added, "
        "with no line numbers."
    )
    return {
        "running": {
            "title": "planned from the streamed text: nothing read or written yet",
            "note": "planned, nothing written yet",
            "text": "Preview, planned from the streamed text: nothing is read or written yet. "
            + shape,
        },
        "ended": {
            "title": "planned from the streamed text, before the call read or wrote anything",
            "note": "planned from the streamed text",
            "text": "Preview, planned from the streamed text before the call read or wrote "
            f"anything. {shape}",
        },
    }


#: The colour of each tone where no stylesheet runs (the static HTML's inline style).
TONE_COLOURS: Final = {
    "ok": "#1a7f37",
    "bad": "#cf222e",
    "waiting": "#9a6700",
    "neutral": "#0969da",
    "running": "#57606a",
}


def status_meaning(status: str) -> dict[str, Any]:
    """The meaning of ``status``; the ``unknown`` one, labelled with the status, if none."""
    vocabulary = call_vocabulary()
    meaning = vocabulary["statuses"].get(status)
    if meaning is None:
        return {**vocabulary["unknown"], "label": status}
    return dict(meaning)
