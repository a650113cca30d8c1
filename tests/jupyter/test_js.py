"""The front end's own tests (``node --test js/``), run with the Python suite.

The node tests read the vocabulary the widget sends (what each status and stage means) from a
file this test writes from :func:`~applypatch_ext.jupyter.widget.call_vocabulary`, so they test
the front end against the table Python really sends, never a copy of their own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from applypatch_ext.jupyter.widget import call_vocabulary

JS = Path(__file__).resolve().parents[2] / "js"


def test_node_tests_of_the_widget_module(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the widget's pure helpers are tested with node --test)")
    vocabulary = tmp_path / "vocabulary.json"
    vocabulary.write_text(json.dumps(call_vocabulary()), encoding="utf-8")
    env = {**os.environ, "APPLYPATCH_VOCABULARY": str(vocabulary)}
    proc = subprocess.run(
        [node, "--test", str(JS)], capture_output=True, text=True, timeout=120, check=False, env=env
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
    assert "vocabulary from APPLYPATCH_VOCABULARY" in proc.stdout
