"""The wheel ships the package with its front end (js/ inside the package)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_wheel_contains_the_front_end_and_the_console_script(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("applypatch_ext-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    assert {"applypatch_ext/js/widget.js", "applypatch_ext/js/widget.css"} <= names
    assert "applypatch_ext/core/pipeline.py" in names
    assert not any(name.startswith("tests/") for name in names)
    assert "apply_patch = applypatch_ext.cli:run" in scripts
