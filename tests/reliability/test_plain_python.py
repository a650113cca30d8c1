"""The Jupyter layer's Python API in plain Python, without IPython (issue 21, "also").

``stream_patch`` outside IPython wrote the file, then raised ``AttributeError: 'NoneType'
object has no attribute 'update'`` (IPython's ``display`` gives no handle there). A real
interpreter with no IPython shell now runs ``stream_patch``, ``result.undo()``, the Agents SDK
editor with ``widget=True`` and ``replay_session``: each call runs without a widget (there is
nothing to show one in), prints nothing, and returns its result.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from ._sessions import custom, patch, session

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from applypatch_ext.jupyter.live.streams import stream_patch

    events = [
        {"type": "response.custom_tool_call_input.delta", "delta": "*** Begin Patch\\n"},
        {"type": "response.custom_tool_call_input.delta", "delta": "*** Add File: x.txt\\n+x\\n"},
        {"type": "response.custom_tool_call_input.delta", "delta": "*** End Patch"},
    ]
    first = stream_patch(events, approve="approve")
    assert os.path.exists("x.txt")
    undone = first.undo(approve="approve")
    waiting = stream_patch("*** Begin Patch\\n*** Add File: y.txt\\n+y\\n*** End Patch",
                           options=__import__("applypatch_ext").PipelineOptions(review=True))
    asked = waiting.status
    waiting.decide("decline", reason="not now")

    from agents.editor import ApplyPatchOperation
    from applypatch_ext.jupyter.magics.agents import PipelineEditor
    editor = PipelineEditor(approve="approve", widget=True)
    sdk = editor.create_file(ApplyPatchOperation(type="create_file", path="z.txt", diff="+z\\n"))

    from applypatch_ext.jupyter.magics.replay import replay_session
    replay = replay_session(sys.argv[1], cwd=os.getcwd(), approve="approve")

    print(json.dumps({
        "shell": "IPython" in sys.modules and __import__("IPython").get_ipython() is not None,
        "first": first.status, "undone": undone.status, "asked": asked,
        "declined": waiting.status, "output": waiting.output, "sdk": sdk.status,
        "replayed": [c["replayed_status"] for c in replay.comparisons],
        "stepper": replay.stepper is None,
        "files": sorted(os.listdir(".")),
    }))
    """
)


def test_the_python_api_works_in_plain_python(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    rollout = tmp_path / "r.jsonl"
    rollout.write_text(session(str(work), custom("r1", patch("*** Add File: r.txt", "+r"))))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(rollout)],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    *printed, last = proc.stdout.splitlines()
    assert printed == []  # nothing displayed: no repr, no HTML bundle printed
    report = json.loads(last)
    assert report == {
        "shell": False,
        "first": "completed",
        "undone": "completed",
        "asked": "awaiting-approval",
        "declined": "declined",
        "output": "patch rejected by user\nThe user's reason: not now",
        "sdk": "completed",
        "replayed": ["completed"],
        "stepper": True,
        "files": ["r.txt", "z.txt"],
    }
