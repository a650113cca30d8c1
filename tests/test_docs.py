"""The docs stand on their own: every section the code cites exists, every local link resolves.

The code cites the reference behaviour as ``docs/behaviour.md §N.M`` (later citations in the same
passage as ``§N.M``); ``docs/behaviour.md`` has a heading for each of those numbers. Nothing cites a
document outside the repo: not the old ``spec N.M`` form, not the shared design notes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BEHAVIOUR = REPO / "docs" / "behaviour.md"
CITING = ["applypatch_ext", "tests", "tools", "bench", "js", "notebooks", "docs"]
SUFFIXES = {".py", ".js", ".mjs", ".css", ".md", ".ipynb"}
CITATION = re.compile(r"§ ?(\d+(?:\.\d+)*)")
#: How the code cited documents that are not in the repo (the reference spec, the design notes).
OUTSIDE = re.compile(r"\b[Ss]pec(?: sections?)? \(?\d|design/style\.md|reference/codex-apply-patch")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)*) \S", re.MULTILINE)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def headings() -> set[str]:
    return set(HEADING.findall(BEHAVIOUR.read_text(encoding="utf-8")))


def citing_files() -> list[Path]:
    """The files that may cite the behaviour (``node_modules`` left out)."""
    files = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "SECURITY.md"]
    for top in CITING:
        files += sorted(
            path
            for path in (REPO / top).rglob("*")
            if path.suffix in SUFFIXES and "node_modules" not in path.parts
        )
    return files


def citations() -> dict[str, str]:
    """Each cited section number, with one place that cites it."""
    found: dict[str, str] = {}
    for path in citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number in CITATION.findall(text):
            found.setdefault(number.rstrip("."), str(path.relative_to(REPO)))
    return found


def test_every_cited_section_has_a_heading() -> None:
    cited = citations()
    assert len(cited) >= 30  # the code does cite the behaviour; this guards the pattern itself
    missing = {number: where for number, where in cited.items() if number not in headings()}
    assert not missing, f"cited but not in {BEHAVIOUR.name}: {missing}"


def test_nothing_cites_a_document_outside_the_repo() -> None:
    outside = {
        f"{path.relative_to(REPO)}:{number}": line.strip()
        for path in citing_files()
        if path != Path(__file__)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    }
    assert not outside, f"cite docs/behaviour.md §N.M or a Codex source file instead: {outside}"


def test_headings_are_numbered_in_order() -> None:
    numbers = HEADING.findall(BEHAVIOUR.read_text(encoding="utf-8"))
    keys = [tuple(int(part) for part in number.split(".")) for number in numbers]
    assert keys == sorted(keys)
    assert len(keys) == len(set(keys)), "a section number appears twice"


@pytest.mark.parametrize(
    "document",
    [
        "README.md",
        "CONTRIBUTING.md",
        "CHANGELOG.md",
        "SECURITY.md",
        "docs/architecture.md",
        "docs/diff-model.md",
    ],
)
def test_local_links_resolve(document: str) -> None:
    path = REPO / document
    targets = [t for t in LINK.findall(path.read_text(encoding="utf-8")) if "://" not in t]
    broken = [t for t in targets if not (path.parent / t).exists()]
    assert not broken, f"{document} links to missing files: {broken}"


def test_every_install_shown_installs_what_exists() -> None:
    """Issue 23 item 10: the package is on no registry yet, so every ``pip install`` the README
    and CONTRIBUTING show installs a checkout (``.``, ``".[lab]"``, ``-e .``) or a wheel
    ``make dist`` built; the registry's name appears only where they say it does not work. The
    README's first install is one that works."""
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (REPO / name).read_text(encoding="utf-8")
        found = list(re.finditer(r"pip install\s+(?:-e\s+)?[`'\"]?([^\s`'\"]+)", text))
        assert found, name
        for match in found:
            target = match.group(1)
            sentence = text[text.rfind(".", 0, match.start()) + 1 : text.find(".", match.end())]
            if target.startswith("applypatch_ext"):
                assert "does not work" in sentence, (name, sentence)
            else:
                assert target.startswith((".", "dist/")), (name, match.group(0))
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first = re.search(r"pip install\s+[`'\"]?([^\s`'\"]+)", readme)
    assert first is not None and first.group(1) == ".", first
