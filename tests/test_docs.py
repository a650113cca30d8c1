"""The docs stand on their own: every section the code cites exists, every local link resolves.

The code cites the reference behaviour as ``spec N.M`` (or ``§N.M``); ``docs/behaviour.md`` has
a heading for each of those numbers, so that the citations can point into the repo.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BEHAVIOUR = REPO / "docs" / "behaviour.md"
CITING = ["applypatch_ext", "tests", "tools", "bench", "js", "notebooks"]
CITATION = re.compile(r"(?:\bspec(?: section| sections)?|§) ?(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)*) \S", re.MULTILINE)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def headings() -> set[str]:
    return set(HEADING.findall(BEHAVIOUR.read_text(encoding="utf-8")))


def citations() -> dict[str, str]:
    """Each cited section number, with one place that cites it."""
    found: dict[str, str] = {}
    for top in CITING:
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix not in {".py", ".js", ".mjs", ".css", ".md", ".ipynb"}:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number in CITATION.findall(text):
                found.setdefault(number.rstrip("."), str(path.relative_to(REPO)))
    return found


def test_every_cited_section_has_a_heading() -> None:
    cited = citations()
    assert len(cited) >= 30  # the code does cite the behaviour; this guards the pattern itself
    missing = {number: where for number, where in cited.items() if number not in headings()}
    assert not missing, f"cited but not in {BEHAVIOUR.name}: {missing}"


def test_headings_are_numbered_in_order() -> None:
    numbers = HEADING.findall(BEHAVIOUR.read_text(encoding="utf-8"))
    keys = [tuple(int(part) for part in number.split(".")) for number in numbers]
    assert keys == sorted(keys)
    assert len(keys) == len(set(keys)), "a section number appears twice"


@pytest.mark.parametrize(
    "document",
    ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "SECURITY.md", "docs/architecture.md"],
)
def test_local_links_resolve(document: str) -> None:
    path = REPO / document
    targets = [t for t in LINK.findall(path.read_text(encoding="utf-8")) if "://" not in t]
    broken = [t for t in targets if not (path.parent / t).exists()]
    assert not broken, f"{document} links to missing files: {broken}"
