"""The front end's own tests (``node --test js/``), run with the Python suite."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "js"


def test_node_tests_of_the_widget_module() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the widget's pure helpers are tested with node --test)")
    proc = subprocess.run(
        [node, "--test", str(JS)], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout
