"""What ``make lite`` refuses to ship: a file JupyterLite would read as JSON and is not JSON.

JupyterLite 0.6 parses every file whose suffix names JSON (``.json``, ``.jsonl``, ``.ndjson``,
even ``.jsonl.txt``) as one JSON document; a JSON Lines file there makes the kernel's read of it
hang. The build checks the contents; the teaching notebooks' own data passes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from build_lite import check_json_names  # noqa: E402
from teaching import teaching_files  # noqa: E402

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


def _listed(site: Path, folder: str = "") -> list[str]:
    """The site's contents as its contents service lists them (api/contents/**/all.json)."""
    listing = json.loads((site / "api" / "contents" / folder / "all.json").read_text())
    names: list[str] = []
    for entry in listing["content"]:
        path = f"{folder}/{entry['name']}" if folder else entry["name"]
        names.extend(_listed(site, path) if entry["type"] == "directory" else [path])
    return sorted(names)


@pytest.mark.slow
def test_the_built_site_holds_the_teaching_set_cleared(lite_site: Path) -> None:
    # issue 23 item 9: the site published whatever lay in notebooks/ (saved outputs, scratch)
    teaching = sorted(name.removeprefix("notebooks/") for name in teaching_files(ROOT))
    assert _listed(lite_site) == teaching
    files = sorted(
        p.relative_to(lite_site / "files").as_posix()
        for p in (lite_site / "files").rglob("*")
        if p.is_file()
    )
    assert files == teaching
    for name in teaching:
        if name.endswith(".ipynb"):
            cells = json.loads((lite_site / "files" / name).read_text())["cells"]
            assert all(not c.get("outputs") for c in cells), f"{name} has saved outputs"
