"""What ``make lite`` refuses to ship: a file JupyterLite would read as JSON and is not JSON.

JupyterLite 0.6 parses every file whose suffix names JSON (``.json``, ``.jsonl``, ``.ndjson``,
even ``.jsonl.txt``) as one JSON document; a JSON Lines file there makes the kernel's read of it
hang. The build checks the contents; the teaching notebooks' own data passes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from build_lite import check_json_names  # noqa: E402

LINES = '{"type": "a"}\n{"type": "b"}\n'


def test_the_notebooks_data_passes() -> None:
    check_json_names(ROOT / "notebooks")  # raises SystemExit on a JSON-named JSON Lines file


@pytest.mark.parametrize("name", ["s.jsonl", "s.ndjson", "s.jsonl.txt", "s.json"])
def test_json_lines_under_a_json_name_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / name).write_text(LINES)
    (tmp_path / "ok.json").write_text('{"one": "document"}')
    (tmp_path / "data" / "s.txt").write_text(LINES)  # served as text: fine
    with pytest.raises(SystemExit) as raised:
        check_json_names(tmp_path)
    message = str(raised.value)
    assert f"notebooks/data/{name}: not one JSON document (Extra data: line 2 column 1" in message
    assert "ok.json" not in message and "s.txt" not in message
    assert message.endswith(
        "name them with another suffix (notebooks/data/ uses .txt for JSON Lines)"
    )
