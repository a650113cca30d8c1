"""A call that waits can always be answered again (issue 23 item 1), in a real IPython shell.

A page reloaded while the kernel runs shows each call's live view again (the browser tests,
test_reload_browser.py); where a page has lost it, the call's record says how to answer it
from code, and that works: ``NAME.decide(...)``, ``NAME`` evaluated (its live view again) and
``%apply_patch_turn`` (the turn's waiting calls, each with its live view). Every copy of a
call's record has the record's display id, so each is updated when the call ends, however it
was answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from .conftest import Magic

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
ASK = "*** Begin Patch\n*** Add File: asked.txt\n+yes\n*** End Patch\n"
UNTRUSTED = "--approval-policy untrusted --stream-chunk 0"


def _pairs(outputs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(kind, record id) per record and live output: the call's pair, as displayed."""
    out = []
    for o in outputs:
        marks = o["metadata"].get("applypatch_ext", {})
        for kind in ("record", "live"):
            if kind in marks:
                out.append((kind, marks[kind]))
    return out


def test_a_waiting_record_says_how_to_answer_it(run_magic: Magic) -> None:
    named = run_magic(f"pending {UNTRUSTED}", ASK)
    record = named.outputs[-1]["data"]
    for text in (record["text/plain"], record["text/markdown"].replace("\\", "")):
        assert 'pending.decide("approve")' in text and 'pending.decide("decline"' in text
        assert "%apply_patch_turn" in text and "reloaded" in text
    assert "<code>pending.decide(&quot;approve&quot;)</code>" in record["text/html"]
    unnamed = run_magic(UNTRUSTED, ASK.replace("asked", "other")).outputs[-1]["data"]
    assert ".decide(" not in unnamed["text/plain"] and "%apply_patch_turn" in unnamed["text/plain"]
    # answered, the record says how it ended, and no longer how to answer
    named_widget = named.widget
    with capture_output() as captured:
        InteractiveShell.instance().run_cell("pending.decide('approve')")
    # the record updated (the result the cell shows is its live view and record again)
    final = [o for o in captured.outputs if o.update][-1]
    assert final.metadata == {"applypatch_ext": {"record": named_widget.record_id}}
    assert "completed" in final.data["text/plain"]
    assert ".decide(" not in final.data["text/plain"] and "reloaded" not in final.data["text/plain"]
    assert named_widget.status == "completed"


def test_apply_patch_turn_shows_the_waiting_calls_live(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    first = run_magic(f"first {UNTRUSTED}", ASK)
    run_magic("--stream-chunk 0", "*** Begin Patch\n*** Add File: done.txt\n+d\n*** End Patch\n")
    second = run_magic(UNTRUSTED, ASK.replace("asked", "second"))
    ids = [first.widget.record_id, second.widget.record_id]
    outputs = [
        {"data": o.data, "metadata": o.metadata, "update": o.update}
        for o in run_magic.line("apply_patch_turn").outputs
    ]
    assert "2 calls of this turn wait for an answer" in outputs[1]["data"]["text/plain"]
    # each waiting call: its record (the same display id: updated with the first) and its view
    assert _pairs(outputs) == [
        ("record", ids[0]),
        ("live", ids[0]),
        ("record", ids[1]),
        ("live", ids[1]),
    ]
    views = [o["data"][WIDGET_VIEW]["model_id"] for o in outputs if WIDGET_VIEW in o["data"]]
    assert views == [first.widget.model_id, second.widget.model_id]
    assert "waiting for approval" in outputs[2]["data"]["text/plain"]
    # the view answers: the call goes on
    first.widget.approve("approve")
    assert (tmp_path / "asked.txt").read_text() == "yes\n"
    shown = run_magic.line("apply_patch_turn").outputs
    assert "1 call of this turn waits for an answer: call-3" in shown[1].data["text/plain"]


def test_a_result_evaluated_shows_its_live_view_and_record(
    run_magic: Magic, ip: InteractiveShell
) -> None:
    run = run_magic(f"pending {UNTRUSTED}", ASK)
    with capture_output() as captured:
        ip.run_cell("pending")
    shown = [{"data": o.data, "metadata": o.metadata} for o in captured.outputs]
    assert _pairs(shown) == [("record", run.widget.record_id), ("live", run.widget.record_id)]
    assert shown[1]["data"][WIDGET_VIEW]["model_id"] == run.widget.model_id
    # with no widget, its static representations
    run_magic("plain --no-widget --stream-chunk 0", ASK.replace("asked", "plain"))
    with capture_output() as captured:
        ip.run_cell("plain")
    (only,) = captured.outputs
    assert set(only.data) == {"text/html", "text/markdown", "text/plain"}
    assert "completed" in only.data["text/plain"]


def test_a_call_with_no_live_view_says_only_what_answers_it(
    run_magic: Magic, ip: InteractiveShell
) -> None:
    """--no-widget: no buttons to speak of, nor a view %apply_patch_turn could show."""
    run_magic(f"quiet --no-widget {UNTRUSTED}", ASK)
    text = ip.user_ns["quiet"].__repr__()
    assert 'to answer from code, in a new cell: `quiet.decide("approve")`' in text
    assert "buttons" not in text and "%apply_patch_turn`, which" not in text
    (shown,) = run_magic(f"--no-widget {UNTRUSTED}", ASK.replace("asked", "other")).outputs
    assert "no live view and no name answer this call" in shown["data"]["text/plain"]
