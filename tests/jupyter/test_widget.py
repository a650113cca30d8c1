"""The widget through a real IPython shell: its traits, the comm messages it sends, and the
approval message the front end sends back (no browser; see test_lab_browser.py for that)."""

from __future__ import annotations

import html
import json
import re
from enum import StrEnum
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from applypatch_ext.core.turn import events
from applypatch_ext.core.turn.options import CallStatus, Decision, Stage
from applypatch_ext.core.turn.safety import AskUser, AutoApprove, Reject
from applypatch_ext.core.turn.turn import RETRY_REASON
from applypatch_ext.jupyter.live.assets import asset_path
from applypatch_ext.jupyter.live.state import VIEW_TEXT_LIMIT, cut_text, view_delta
from applypatch_ext.jupyter.live.widget import ApplyPatchWidget, call_vocabulary
from applypatch_ext.jupyter.records import vocabulary as vocabulary_module
from applypatch_ext.jupyter.records.display import TURN_DIFF_EMPTIED, TURN_DIFF_INVALIDATED
from applypatch_ext.jupyter.records.static_diff import MONO_FONTS

from .conftest import Magic, Run

JS_SRC = Path(__file__).resolve().parents[2] / "js" / "src"

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

TWO_FILES = """*** Begin Patch
*** Add File: docs/hello.txt
+hello
+world
*** Update File: main.py
@@
-print("old")
+print("new")
*** End Patch
"""

ADD_ONE = """*** Begin Patch
*** Add File: approved.txt
+yes
*** End Patch
"""


def test_load_ext_registers_both_magics(shell: InteractiveShell) -> None:
    magics = shell.magics_manager.magics
    assert "apply_patch" in magics["cell"]
    assert "apply_patch_turn" in magics["line"]


def test_streaming_reaches_the_widget_piece_by_piece(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic("--stream-chunk 16 --stream-delay 0.06 --throttle-ms 0", TWO_FILES)
    widget = run.widget
    updates = widget.updates()

    # the text grew in several messages, each a prefix of the patch
    texts = [u["patch_text"] for u in updates if "patch_text" in u]
    assert len(texts) >= 5, texts
    assert all(TWO_FILES.startswith(t) for t in texts)
    assert [len(t) for t in texts] == sorted(len(t) for t in texts)
    assert texts[-1] == TWO_FILES
    # the current line follows the stream, then drops to 0
    lines = [u["current_line"] for u in updates if "current_line" in u]
    assert max(lines) > 1 and lines[-1] == 0

    # planned changes arrived while streaming, keyed by the paths as written
    planned = [u["planned"] for u in updates if "planned" in u]
    assert planned[-1] == {
        "docs/hello.txt": {"type": "add", "content": "hello\nworld\n"},
        "main.py": {
            "type": "update",
            "unified_diff": '@@\n-print("old")\n+print("new")\n',
            "move_path": None,
        },
    }
    first_planned = next(i for i, u in enumerate(updates) if "planned" in u)
    first_proposed = next(i for i, u in enumerate(updates) if u.get("proposed"))
    assert first_planned < first_proposed

    # stages were sent in pipeline order
    stages = [u["stage"] for u in updates if "stage" in u]
    order = [tuple(Stage).index(s) for s in stages]
    assert order == sorted(order), stages
    assert stages[-1] == "done"

    # the final state
    assert widget.status == "completed"
    assert widget.stage == "done"
    assert widget.current_line == 0
    assert widget.safety == {"decision": "auto-approve", "reason": None, "sandboxed": True}
    assert widget.approval == {}
    assert set(widget.proposed) == {str(tmp_path / "docs/hello.txt"), str(tmp_path / "main.py")}
    assert [c["type"] for c in widget.delta["changes"]] == ["add", "update"]
    assert widget.delta["exact"] is True
    assert widget.stdout == "Success. Updated the following files:\nA docs/hello.txt\nM main.py\n"
    assert widget.stderr == widget.error == ""
    assert widget.output.startswith("Exit code: 0\n")
    assert widget.turn_diff.count("diff --git ") == 2
    assert widget.explanation == {}
    types = [e["type"] for e in widget.events]
    assert types[-3:] == ["patch_apply_begin", "patch_apply_end", "turn_diff"]
    assert "patch_apply_updated" in types and "patch_safety_assessed" in types
    assert all(set(e) == {"type", "time", "summary"} for e in widget.events)
    assert widget.title == "apply_patch call-1"
    assert widget.cwd == str(tmp_path)
    assert (tmp_path / "docs/hello.txt").read_text() == "hello\nworld\n"


def _js_sources() -> str:
    """The widget's sources (js/src/*.js, what ``make widget`` bundles), one after another."""
    return "\n".join(p.read_text() for p in sorted(JS_SRC.rglob("*.js")))


def _summary_forms() -> set[str]:
    """The summary forms the widget renders (SUMMARY_FORMS in js/src/vocabulary.js)."""
    source = _js_sources()
    found = re.search(
        r"export const SUMMARY_FORMS = Object\.freeze\(\[(.*?)\]\)", source, re.DOTALL
    )
    assert found, "SUMMARY_FORMS not found in js/src: the pattern is out of date"
    return set(re.findall(r'"([a-z-]+)"', found.group(1)))


def test_the_vocabulary_says_what_every_status_and_stage_means() -> None:
    vocabulary = ApplyPatchWidget().vocabulary
    summary_forms = _summary_forms()
    assert vocabulary == call_vocabulary()
    statuses = vocabulary["statuses"]
    # every call status, and the empty status of a call still running
    assert list(statuses) == ["", *tuple(CallStatus)]
    fields = {
        "label",
        "tone",
        "terminal",
        "wrote",
        "success",
        "dry_run",
        "user_declined",
        "summary",
    }
    for status, meaning in [*statuses.items(), ("unknown", vocabulary["unknown"])]:
        assert set(meaning) == fields, status
        assert meaning["tone"] in {"ok", "bad", "waiting", "neutral", "running"}, status
        assert meaning["summary"] in summary_forms, status
    assert statuses[""]["label"] == "running"
    assert vocabulary["unknown"]["label"] == ""  # the front end shows such a status as itself
    # only these two can still change; the others are where a call ends
    assert [s for s, m in statuses.items() if not m["terminal"]] == [
        "",
        CallStatus.AWAITING_APPROVAL,
    ]
    assert {s for s, m in statuses.items() if m["success"]} == {
        CallStatus.COMPLETED,
        CallStatus.DRY_RUN,
    }
    # nothing can have been written by a dry run or a call stopped before its begin event
    assert {s for s, m in statuses.items() if not m["wrote"]} == {
        CallStatus.DRY_RUN,
        CallStatus.REJECTED,
        CallStatus.ERROR,
    }
    stages = vocabulary["stages"]
    assert [s["name"] for s in stages] == list(Stage)
    assert all(s["label"] for s in stages)
    event_types = {
        cls.type for cls in vars(events).values() if isinstance(getattr(cls, "type", None), str)
    }
    evidence = {s["name"]: s["evidence"] for s in stages if s["evidence"] is not None}
    assert set(evidence.values()) <= event_types, evidence
    assert set(evidence) == {"safety", "waiting for approval", "applying"}
    assert [s["name"] for s in stages if s["writes"]] == ["applying"]
    safety = vocabulary["safety"]
    assert set(safety) == {AutoApprove.decision, AskUser.decision, Reject.decision}
    assert {d: m["tone"] for d, m in safety.items()} == {
        AutoApprove.decision: "ok",
        AskUser.decision: "waiting",
        Reject.decision: "bad",
    }
    # the approval buttons: one per Decision, in its order, with the test ids the browser uses
    assert [d["decision"] for d in vocabulary["decisions"]] == list(Decision)
    assert [d["testid"] for d in vocabulary["decisions"]] == [
        "applypatch-approve",
        "applypatch-approve-session",
        "applypatch-decline",
    ]
    assert all(d["label"] for d in vocabulary["decisions"])
    json.dumps(vocabulary)  # plain JSON: it is a synced trait


def test_a_status_without_a_meaning_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the core gains a status nobody said the meaning of: the widget refuses to guess
    members = {**{s.name: s.value for s in CallStatus}, "PAUSED": "paused"}
    # (mypy reads the members of the functional API from a literal only, not computed ones)
    grown = StrEnum("CallStatus", members)  # type: ignore[misc]
    monkeypatch.setattr(vocabulary_module, "CallStatus", grown)
    with pytest.raises(ValueError, match=r"no meaning for the call status\(es\) \['paused'\]"):
        call_vocabulary()

    # a renamed or removed stage is caught by the type checker: the widget names Stage members


def test_every_trait_the_front_end_reads_is_synced() -> None:
    source = _js_sources()
    read = set(re.findall(r'\bget\("([a-z_]+)"\)', source))
    # DEPENDENTS, the traits the view listens to, is derived from what SECTION_STATE reads
    states = source[source.index("export const SECTION_STATE") :]
    states = states[: states.index("\n};")]
    listened = set(re.findall(r'\bget\("([a-z_]+)"\)', states))
    # a trait render() follows itself (not through a section)
    listened |= set(re.findall(r'model\.on\("change:([a-z_]+)"', source))
    synced = set(ApplyPatchWidget().traits(sync=True))
    own = set(ApplyPatchWidget.class_own_traits(sync=True))
    assert read, "no model.get found: the pattern is out of date"
    assert read <= synced, read - synced
    assert listened == read, listened ^ read
    # every trait of the contract is shown, except the call id (it is in the title) and the
    # result's name (the record says it: how to answer the call from code)
    assert own - read == {"call_id", "result_name"}


def test_the_front_end_holds_no_status_or_stage_of_its_own() -> None:
    # also a trait, a stage state or a section ("error", "failed", "done", "safety"): not checked
    names = (set(CallStatus) | set(Stage)) - {
        CallStatus.ERROR,
        CallStatus.FAILED,
        "done",
        "safety",
    }
    source = _js_sources() + asset_path("widget.js").read_text()
    css = asset_path("widget.css").read_text()
    for name in sorted(names):
        assert f'"{name}"' not in source, f"widget.js spells {name!r}: read it from vocabulary"
    for name in tuple(CallStatus):
        assert f"status-{name}" not in css, f"widget.css styles {name!r}: style its tone"
    for decision in (AutoApprove.decision, AskUser.decision, Reject.decision):
        assert f"safety-{decision}" not in css, f"widget.css styles {decision!r}: style its tone"
    for answer in Decision:  # the approval buttons come from the vocabulary too
        assert f'"{answer}"' not in source, f"widget.js spells {answer!r}: read it from vocabulary"
        assert f'"applypatch-{answer}' not in source, "widget.js holds a button's test id"


def test_state_json_is_the_displayed_traits() -> None:
    widget = ApplyPatchWidget(
        call_id="c1", status=CallStatus.COMPLETED, planned={"a": {"type": "add"}}
    )
    state = widget.state_json()
    tagged = ApplyPatchWidget.class_traits(sync=True, displayed=True)
    assert list(state) == widget.displayed_traits()
    assert set(state) == set(tagged)
    assert {"vocabulary", "current_line"}.isdisjoint(state)  # not what a static view shows
    assert state["call_id"] == "c1" and state["status"] == CallStatus.COMPLETED
    assert state["planned"] == {"a": {"type": "add"}}
    # the order is the class's, as the static representations were written against
    assert list(state)[:3] == ["title", "call_id", "cwd"]


def test_the_results_displayed_state_is_a_part_of_the_widgets(
    run_magic: Magic, tmp_path: Path
) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic("--stream-chunk 0 res", TWO_FILES)
    result_state = run_magic.shell.user_ns["res"].state_json()
    widget_state = run.widget.state_json()
    assert set(result_state) <= set(widget_state), set(result_state) - set(widget_state)
    for name in ("status", "stage", "delta", "turn_diff", "proposed"):
        assert result_state[name] == widget_state[name], name


def test_the_delta_trait_leaves_out_the_texts_no_view_shows(
    run_magic: Magic, tmp_path: Path
) -> None:
    # An update's old and new texts and an add's content (the verified change shows it) would
    # only be parsed by the browser and saved in the record: the result keeps them.
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic("--stream-chunk 0 res", TWO_FILES)
    result = run_magic.shell.user_ns["res"]
    shown = {Path(c["path"]).name: c for c in run.widget.delta["changes"]}
    full = {Path(c["path"]).name: c for c in result.delta["changes"]}
    assert set(shown) == set(full) == {"main.py", "hello.txt"}
    assert full["main.py"]["new_content"] == 'print("new")\n' and "content" in full["hello.txt"]
    assert shown["main.py"] == {
        "type": "update",
        "path": full["main.py"]["path"],
        "move_path": None,
    }
    assert shown["hello.txt"] == {"type": "add", "path": full["hello.txt"]["path"]}
    assert run.widget.delta["exact"] is result.delta["exact"] is True


def test_a_long_text_goes_to_the_view_cut_at_a_line_end_and_says_so(
    run_magic: Magic, tmp_path: Path
) -> None:
    lines = [f"line {i:05d} " + "x" * 40 for i in range(5000)]  # 52 characters each: 260 kB
    patch = "*** Begin Patch\n*** Add File: big.txt\n" + "".join(f"+{x}\n" for x in lines)
    run = run_magic("--stream-chunk 0 res", patch + "*** End Patch\n")
    result = run_magic.shell.user_ns["res"]
    assert (tmp_path / "big.txt").read_text() == "".join(x + "\n" for x in lines)
    kept = VIEW_TEXT_LIMIT // 52  # whole lines only
    (change,) = run.widget.proposed.values()
    assert change["content"] == "".join(x + "\n" for x in lines[:kept])
    assert change["cut_lines"] == 5000 - kept
    (planned,) = run.widget.planned.values()
    assert planned["cut_lines"] == 5000 - kept
    (block,) = run.widget.turn_diff_files
    assert len(block["diff"]) <= VIEW_TEXT_LIMIT and block["diff"].endswith("\n")
    assert block["cut_lines"] == result.turn_diff.count("\n") - block["diff"].count("\n")
    # the call's result, and the TurnDiff the view copies and downloads, keep every line
    (full,) = result.proposed.values()
    assert full["content"].count("\n") == 5000 and "cut_lines" not in full
    assert run.widget.turn_diff == result.turn_diff and f"+{lines[-1]}" in result.turn_diff
    assert cut_text("a\nb\nc", limit=4) == ("a\nb\n", 1)
    assert cut_text("short") == ("short", 0)


def test_a_committed_change_the_verified_map_lacks_keeps_its_content() -> None:
    delta = {
        "changes": [
            {"type": "add", "path": "/w/extra.txt", "content": "x\n", "overwritten_content": "y"},
            {"type": "delete", "path": "/w/gone.txt", "content": "old\n"},
        ],
        "exact": False,
    }
    assert view_delta(delta) == {
        "changes": [
            {"type": "add", "path": "/w/extra.txt", "content": "x\n"},
            {"type": "delete", "path": "/w/gone.txt", "content": "old\n"},
        ],
        "exact": False,
    }


@pytest.mark.parametrize(
    "line",
    [
        "--stream-chunk 0 res",
        "--stream-chunk 0 res --approval-policy untrusted",  # waits for approval
        "--stream-chunk 0 res --approval-policy never --sandbox read-only",  # rejected
        "--stream-chunk 0 res --dry-run",
    ],
)
def test_the_results_displayed_state_is_the_widgets(
    run_magic: Magic, tmp_path: Path, line: str
) -> None:
    # Both are derived the same way (the call's events, then what only the result carries),
    # so the static views of a result show what its widget showed, trait for trait.
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic(line, TWO_FILES)
    result = run_magic.shell.user_ns["res"]
    widget_state = run.widget.state_json()
    assert result.state_json() == {**widget_state, "patch_text": "", "patch_truncated": False}
    assert widget_state["status"] == result.status
    assert widget_state["events"] and widget_state["call_id"] == result.call_id


ADD_HELLO = """*** Begin Patch
*** Add File: docs/hello.txt
+hello
*** End Patch
"""


def test_a_waiting_call_shows_only_its_own_events_and_turn_diff(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    waiting = run_magic("first --approval-policy untrusted --stream-chunk 0", ADD_ONE).widget
    assert waiting.status == "awaiting-approval"
    shown_events = list(waiting.events)
    # a later call of the same turn runs to the end and changes the TurnDiff meanwhile
    later = run_magic("second --stream-chunk 0", ADD_HELLO).widget
    assert later.status == "completed" and "docs/hello.txt" in later.turn_diff
    assert waiting.events == shown_events, "the waiting call picked up another call's events"
    assert waiting.turn_diff == "" and waiting.turn_diff_files == []
    # resumed, it shows its own TurnDiff (the turn's, cumulative), not the other call's
    with capture_output():
        waiting.approve("approve")
    assert waiting.status == "completed"
    types = [e["type"] for e in waiting.events[len(shown_events) :]]
    assert types == ["apply_patch_approval_decision", "patch_apply_end", "turn_diff"]
    assert "approved.txt" in waiting.turn_diff and "docs/hello.txt" in waiting.turn_diff
    paths = {Path(f["path"]).name for f in waiting.turn_diff_files}
    assert paths == {"approved.txt", "hello.txt"}
    # the result's static state is derived from the same events: the other call's are not in it
    first = ip.user_ns["first"]
    assert len(first.events) > len(waiting.events)  # the core's record keeps the whole slice
    assert first.state_json()["events"] == waiting.events
    assert first.state_json()["turn_diff"] == waiting.turn_diff


def test_the_front_end_is_one_self_contained_module() -> None:
    widget = ApplyPatchWidget()
    esm = str(widget._esm)
    assert esm == asset_path("widget.js").read_text()
    # its one export: the AFM module anywidget takes (esbuild writes `export { x as default }`)
    exports = re.findall(r"^export \{([^}]*)\};?$", esm, re.MULTILINE)
    assert [e.split() for e in exports] == [["widget_default", "as", "default"]], exports
    # anywidget loads it from a blob URL: relative and CDN imports fail there
    assert not re.search(r"^\s*import\b|\bimport\(|^\s*export .* from ", esm, re.MULTILINE)
    css = str(widget._css)
    assert css == asset_path("widget.css").read_text()
    classes = set(re.findall(r"\.([a-zA-Z][\w-]*)", css))
    assert classes and all(c.startswith("applypatch-") for c in classes), classes


def test_hold_sync_batches_related_updates(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic("--stream-chunk 0", TWO_FILES)
    widget = run.widget
    updates = widget.updates()
    sent = [name for update in updates for name in update]
    # nothing that changed was lost, and far fewer messages went out than traits changed
    assert set(widget.changed) <= set(sent)
    assert len(updates) < len(widget.changed) - 5, (len(updates), widget.changed)
    # the ids go out together
    assert {"call_id", "cwd", "title"} in [set(u) for u in updates]
    # one message per event, carrying the traits that event changes
    with_events = [u for u in updates if "events" in u]
    assert [len(u["events"]) for u in with_events] == list(range(1, len(widget.events) + 1))
    by_type = {u["events"][-1]["type"]: set(u) for u in with_events}
    assert by_type["patch_apply_updated"] >= {"events", "planned"}
    assert by_type["patch_safety_assessed"] >= {"events", "safety", "stage"}
    assert by_type["patch_apply_begin"] >= {"events", "proposed"}
    assert by_type["turn_diff"] >= {"events", "turn_diff"}
    # the end event carries the status and the attempt's output: it is sent once, by the event
    assert by_type["patch_apply_end"] >= {"events", "status", "stdout"}
    [ended] = [u for u in updates if "status" in u]
    assert ended["status"] == "completed" and ended["events"][-1]["type"] == "patch_apply_end"
    # the result goes out in one last message, with only what no event carries
    final = updates[-1]
    assert {"stage", "output", "delta", "sources"} <= set(final)
    assert final["stage"] == "done" and "events" not in final
    assert {"status", "stdout", "planned", "safety", "turn_diff"}.isdisjoint(final)


def test_repr_mimebundle_has_widget_view_and_static_fallbacks(tmp_path: Path) -> None:
    """A widget displayed on its own (no record beside it) carries the fallbacks itself."""
    widget = ApplyPatchWidget(call_id="call-9", cwd=str(tmp_path), status="completed")
    data, _metadata = widget._repr_mimebundle_()
    assert data[WIDGET_VIEW]["model_id"] == widget.model_id
    assert "completed" in data["text/html"]
    assert data["text/plain"].startswith("apply_patch call-9 in ")
    widget.close()


def test_the_magic_shows_the_live_view_and_its_record_apart(
    run_magic: Magic, tmp_path: Path
) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic("--stream-chunk 0", TWO_FILES)
    widget = run.widget
    record_id = widget.record_id
    assert re.fullmatch(r"[0-9a-f]{32}", record_id)
    # the record first (empty: nothing flashes while the view loads), then the view
    record, live, *updates = run.outputs
    assert record["update"] is False
    assert record["metadata"] == {"applypatch_ext": {"record": record_id}}
    assert record["data"] == {
        "text/html": f'<div data-applypatch-record="{record_id}"></div>',
        "text/markdown": "",
        "text/plain": "",
    }
    assert live["update"] is False
    assert live["metadata"] == {"applypatch_ext": {"live": record_id}}
    assert set(live["data"]) == {WIDGET_VIEW, "text/plain"}
    assert live["data"][WIDGET_VIEW]["model_id"] == widget.model_id
    assert live["data"]["text/plain"] == f"apply_patch call-1: live view (record: {record_id})"
    # the end updates the record only: the live view is never displayed again
    [final] = updates
    assert final["update"] is True
    assert final["metadata"] == record["metadata"]
    assert WIDGET_VIEW not in final["data"]
    html = final["data"]["text/html"]
    assert html.startswith(
        f'<div data-applypatch-record="{record_id}"><div class="applypatch-static"'
    )
    assert "completed" in html and 'data-applypatch-file="docs/hello.txt"' in html
    assert (
        "completed" in final["data"]["text/plain"] and "running" not in final["data"]["text/plain"]
    )
    assert "**completed**" in final["data"]["text/markdown"]
    # every diff and text block of the record is monospace, wherever it is shown: a plain
    # font stack (kept by a sanitizer), then the theme's code font (where it is not)
    blocks = re.findall(r"<(?:pre|table)\b[^>]*>", html)
    assert len(blocks) >= 3
    for tag in blocks:
        assert f"font-family:{MONO_FONTS};font-family:var(--jp-code-font-family," in tag, tag


def test_approval_click_resumes_the_call(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    run = run_magic("result --approval-policy untrusted --stream-chunk 0", ADD_ONE)
    widget = run.widget
    result = ip.user_ns["result"]
    assert widget.status == result.status == "awaiting-approval"
    assert widget.stage == "waiting for approval"
    assert widget.safety["decision"] == "ask-user"
    assert widget.approval["files"] == [str(tmp_path / "approved.txt")]
    assert widget.approval["retry"] is False
    # the words above the files are Python's (the widget shows them as given)
    assert widget.approval["heading"] == "Approve this patch?"
    assert widget.approval["writes"] == "It writes 1 path:"
    assert not (tmp_path / "approved.txt").exists()

    widget.sent.clear()
    with capture_output() as captured:
        widget.approve("approve")
    assert widget.status == result.status == "completed"
    assert widget.approval == {}
    assert (tmp_path / "approved.txt").read_text() == "yes\n"
    assert (
        result.stdout == widget.stdout == "Success. Updated the following files:\nA approved.txt\n"
    )
    assert "diff --git a/approved.txt" in result.turn_diff
    types = [e["type"] for e in result.events]
    assert types.index("apply_patch_approval_request") < types.index(
        "apply_patch_approval_decision"
    )
    assert widget.events[-1]["type"] == "turn_diff"
    assert any(u.get("status") == "completed" for u in widget.updates())
    # the static record was refreshed too, through its own display id; the view was not
    [update] = captured.outputs
    assert update.update is True
    assert "completed" in update.data["text/plain"]
    assert WIDGET_VIEW not in update.data
    assert f'data-applypatch-record="{widget.record_id}"' in update.data["text/html"]
    # a second click (another view, a double click) changes nothing
    widget.approve("decline")
    assert result.status == "completed"


def test_decline_writes_nothing(run_magic: Magic, ip: InteractiveShell, tmp_path: Path) -> None:
    run = run_magic("result --approval-policy untrusted --stream-chunk 0", ADD_ONE)
    run.widget.approve("decline")
    assert run.widget.status == ip.user_ns["result"].status == "declined"
    assert run.widget.delta == {"changes": [], "exact": True}
    assert not (tmp_path / "approved.txt").exists()


def test_approve_for_session_covers_later_calls(run_magic: Magic, tmp_path: Path) -> None:
    first = run_magic("--approval-policy untrusted --stream-chunk 0", ADD_ONE)
    first.widget.approve("approve-for-session")
    assert first.widget.status == "completed"
    again = ADD_ONE.replace("Add File", "Update File").replace("+yes", "@@\n-yes\n+again")
    second = run_magic("--approval-policy untrusted --stream-chunk 0", again)
    assert second.widget.status == "completed"
    assert (tmp_path / "approved.txt").read_text() == "again\n"


def test_sandbox_denial_asks_again_for_a_retry(run_magic: Magic, tmp_path: Path) -> None:
    # auto-approved, but the (simulated) sandbox denies the write: a question for a retry
    run = run_magic("--fault eperm:approved.txt --stream-chunk 0", ADD_ONE)
    widget = run.widget
    assert widget.status == "awaiting-approval"
    assert widget.approval["retry"] is True
    assert widget.approval["heading"] == "Retry without the sandbox?"
    assert widget.approval["reason"] == RETRY_REASON
    assert not (tmp_path / "approved.txt").exists()
    widget.approve("approve")
    assert widget.status == "completed"
    assert (tmp_path / "approved.txt").read_text() == "yes\n"


def test_an_approval_outside_the_roots_is_asked_once(run_magic: Magic, tmp_path: Path) -> None:
    run = run_magic("--sandbox read-only --stream-chunk 0", ADD_ONE)
    widget = run.widget
    assert widget.status == "awaiting-approval" and widget.approval["retry"] is False
    widget.approve("approve")
    assert widget.status == "completed"
    assert (tmp_path / "approved.txt").read_text() == "yes\n"


@pytest.mark.parametrize(
    "content",
    [
        {"type": "approval", "decision": "maybe"},
        {"type": "approval"},
        {"type": "cancel"},
        "approve",
        None,
    ],
    ids=["bad-decision", "no-decision", "other-type", "not-a-dict", "none"],
)
def test_other_messages_are_ignored(run_magic: Magic, content: object, tmp_path: Path) -> None:
    run = run_magic("--approval-policy untrusted --stream-chunk 0", ADD_ONE)
    run.widget._handle_custom_msg(content, [])
    assert run.widget.status == "awaiting-approval"
    assert not (tmp_path / "approved.txt").exists()


def test_a_failed_write_shows_the_committed_prefix(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    patch = TWO_FILES.replace("docs/hello.txt", "hello.txt")
    run = run_magic("--fault write:2 --stream-chunk 0", patch)
    widget = run.widget
    assert widget.status == "failed"
    assert [c["path"] for c in widget.delta["changes"]] == [str(tmp_path / "hello.txt")]
    assert widget.delta["exact"] is False
    assert len(widget.proposed) == 2
    assert widget.stderr == f"Failed to write file {tmp_path / 'main.py'}\n"
    assert (tmp_path / "main.py").read_text() == 'print("old")\n'
    assert (tmp_path / "hello.txt").read_text() == "hello\nworld\n"


def test_a_match_failure_fills_the_explanation(run_magic: Magic, tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("print(\u201cOld\u201d)  \n")
    run = run_magic("--stream-chunk 0", TWO_FILES)
    widget = run.widget
    assert widget.status == "error"
    assert widget.error.startswith("Failed to find expected lines")
    explanation = widget.explanation
    assert explanation["path"] == str(tmp_path / "main.py")
    [pair] = explanation["pairs"]
    assert pair["line_number"] == 1
    assert pair["pass_name"] is None
    assert pair["actual"] == "print(\u201cOld\u201d)  "
    assert [True, "\u201cO"] in pair["actual_segments"]
    assert json.loads(json.dumps(explanation)) == explanation  # plain JSON
    assert "closest region" in explanation["summary"]


def test_dry_run_flag_reaches_the_widget(run_magic: Magic, tmp_path: Path) -> None:
    run = run_magic("--dry-run --stream-chunk 0", ADD_ONE)
    assert run.widget.dry_run is True
    assert run.widget.status == "dry-run"
    assert run.widget.proposed and run.widget.delta["changes"] == []
    assert not (tmp_path / "approved.txt").exists()


# -- issue 13: a call's own changes first, the turn's aggregate one closed section -----------

UPDATE_MAIN = """*** Begin Patch
*** Update File: main.py
@@
-print("old")
+print("new")
*** End Patch
"""


def text_of(markup: str) -> str:
    """What a reader of an html record sees: its text, without the tags."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def turn_section_open(markup: str) -> bool:
    """Whether the record's "Turn diff" section is shown open."""
    start = markup.rindex("<details", 0, markup.index("<b>Turn diff</b>"))
    return markup[start : markup.index(">", start)].startswith("<details open")


def record_of(run: Run) -> dict[str, str]:
    """The last version of the call's static record (what a saved notebook keeps)."""
    records: list[dict[str, str]] = [
        o["data"] for o in run.outputs if "applypatch_ext" in o["metadata"]
    ]
    records = [d for d in records if "text/markdown" in d]
    return records[-1]


def test_a_dry_runs_static_record_shows_the_proposed_diff(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run = run_magic("r --dry-run --stream none", TWO_FILES)
    assert run.widget.status == "dry-run" and run.widget.turn_diff == ""
    record = record_of(run)
    for text in (record["text/plain"], record["text/markdown"], ip.user_ns["r"].__repr__()):
        assert "changes of this call:" in text
        assert '-print("old")' in text and '+print("new")' in text  # the Update's diff
        assert "+hello\n+world" in text  # the Add's lines
    shown = text_of(record["text/html"])
    assert "Verified changes" in shown and 'print("new")' in shown and "hello" in shown
    assert 'print("old")' in (tmp_path / "main.py").read_text()  # nothing written


def test_the_record_shows_its_own_changes_first_and_the_turn_closed(
    run_magic: Magic, tmp_path: Path
) -> None:
    (tmp_path / "main.py").write_text('print("old")\n')
    run_magic("--stream none", ADD_ONE)
    run = run_magic("--stream none", UPDATE_MAIN)
    html = record_of(run)["text/html"]
    own = html.index("<b>Verified changes</b>")
    turn = html.index("<b>Turn diff</b>")
    assert own < turn
    assert not turn_section_open(html)  # closed under the call's own changes
    assert "approved.txt" not in html[:turn]  # the other call's file is in the turn's only
    assert "approved.txt" in html[turn:] and "main.py" in html[turn:]
    assert "2 files" in text_of(html[turn:]) and "the whole turn, every call so far" in html
    # the turn's diff is a summary there: its files and counts (issue 23 item 5)
    assert "approved.txt+1 -0" in text_of(html[turn:]) and "main.py+1 -1" in text_of(html[turn:])
    assert '<details data-applypatch-file="approved.txt"' not in html
    plain = record_of(run)["text/plain"]
    assert plain.index("changes of this call:") < plain.index("turn diff: 2 files +2 -1 (the")
    assert "  approved.txt +1 -0\n  main.py +1 -1" in plain
    # %apply_patch_turn shows the turn itself: the section is open there
    shown = run_magic.line("apply_patch_turn").outputs[-1].data["text/html"]
    assert turn_section_open(shown)


def test_an_emptied_turn_diff_says_why(run_magic: Magic, tmp_path: Path) -> None:
    run_magic("--stream none", ADD_ONE)
    run = run_magic(
        "--stream none", "*** Begin Patch\n*** Delete File: approved.txt\n*** End Patch\n"
    )
    widget = run.widget
    assert widget.status == "completed" and widget.turn_diff == ""
    assert widget.events[-1]["type"] == "turn_diff"
    assert widget.turn_diff_note == TURN_DIFF_EMPTIED
    assert f"turn diff: {TURN_DIFF_EMPTIED}" in record_of(run)["text/plain"]


def test_an_invalidated_turn_diff_says_why(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    good = run_magic("--stream none", ADD_ONE).widget
    assert good.turn_diff and good.turn_diff_note == ""
    bad = run_magic("bad --stream none --fault write:1", ADD_HELLO).widget
    assert bad.status == "failed" and bad.delta["exact"] is False
    assert bad.turn_diff == "" and bad.turn_diff_note == TURN_DIFF_INVALIDATED
    # a later call of the turn: its delta is exact, the turn's diff is still unavailable
    after = run_magic(
        "after --stream none",
        UPDATE_MAIN.replace("Update", "Add").replace('@@\n-print("old")\n', ""),
    )
    assert after.widget.status == "completed"
    assert after.widget.turn_diff == "" and after.widget.turn_diff_note == TURN_DIFF_INVALIDATED
    assert ip.user_ns["after"].state_json()["turn_diff_note"] == TURN_DIFF_INVALIDATED
    assert html.escape(TURN_DIFF_INVALIDATED) in record_of(after)["text/html"]


def test_nothing_matching_in_a_non_empty_file_is_not_past_its_end(
    run_magic: Magic, ip: InteractiveShell, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-zzz qqq\n+x\n*** End Patch\n"
    run = run_magic("r --stream none", patch)
    # the model's text is the reference's, byte for byte
    assert run.widget.error.startswith("Failed to find expected lines in ")
    explanation = run.widget.explanation
    assert "none of the expected lines occurs in the file (3 lines)" in explanation["summary"]
    assert [p["absent"] for p in explanation["pairs"]] == ["no similar line in the file"]
    record = record_of(run)
    for text in (record["text/plain"], record["text/markdown"], record["text/html"]):
        assert "(no similar line in the file)" in text and "past the end" not in text


def test_a_file_outside_the_display_root_is_named_readably(
    run_magic: Magic, tmp_path: Path
) -> None:
    # The TurnDiff text keeps Codex's header for an absolute display path (a//abs/path,
    # docs/behaviour.md §8.4); the widget's and the record's labels name the file by its path.
    project = tmp_path / "project"
    project.mkdir()
    run = run_magic(
        "--cwd project", "*** Begin Patch\n*** Add File: ../out.txt\n+o\n*** End Patch\n"
    )
    widget = run.widget
    absolute = str(tmp_path / "out.txt")
    assert f"diff --git a/{absolute} b/{absolute}" in widget.turn_diff  # the reference's text
    assert [f["path"] for f in widget.turn_diff_files] == [absolute]
    html = record_of(run)["text/html"]
    turn = html[html.index("<b>Turn diff</b>") :]
    assert f"<code>{absolute}</code>" in turn  # the record's summary of the turn
    shown = run_magic.line("apply_patch_turn").outputs[-1].data["text/html"]
    assert f'data-applypatch-file="{absolute}"' in shown
    assert "a//" not in text_of(shown).replace(f"a/{absolute}", "")
    assert "a//" not in text_of(html).replace(f"a/{absolute}", "")
