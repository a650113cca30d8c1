"""The front end: its own tests (``node --test tests/js/``), run with the Python suite, and its
committed bundle (``applypatch_ext/js/``, built by ``make widget``), checked against the hashes
of its sources.

The node tests read the vocabulary the widget sends (what each status and stage means) from a
file this test writes from
:func:`~applypatch_ext.jupyter.records.vocabulary.call_vocabulary`, so they test the front end
against the table Python really sends, never a copy of their own; and the states they render
(a review with its labels) from :mod:`.js_samples`, made by the real code. A failing node test
is named in the assertion: its suite and test names, where it failed and why (from the TAP
report), never only the report's tail.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from applypatch_ext.jupyter.records.vocabulary import call_vocabulary

from ..conftest import unavailable
from .js_samples import samples

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = ROOT / "tests" / "js"
BUILT = ROOT / "applypatch_ext" / "js"


@dataclass
class Failure:
    """One failing node test: its names from the outermost suite in, and its YAML details."""

    names: list[str]
    details: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """``suite > test (file:line:col): message``."""
        detail: dict[str, str] = {}
        for i, line in enumerate(self.details):
            key, _, value = line.strip().partition(": ")
            if key not in ("location", "error") or key in detail:
                continue
            value = value.strip("'")
            if value in ("|-", "|", ">-"):  # the message spans the lines indented under it
                indent = len(line) - len(line.lstrip())
                block = []
                for more in self.details[i + 1 :]:
                    if len(more) - len(more.lstrip()) <= indent:
                        break
                    block.append(more.strip())
                value = " ".join(block)
            detail[key] = value
        return (
            f"{' > '.join(self.names)} ({detail.get('location', '?')}): {detail.get('error', '')}"
        )


def failures(tap: str) -> list[Failure]:
    """The failing tests of a TAP report of ``node --test``, innermost ones only (a suite fails
    with its test: the test is named), each with the names of the suites around it."""
    found: list[Failure] = []
    stack: list[tuple[int, str]] = []  # (indent, name) of the subtests being read
    current: Failure | None = None
    for line in tap.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        text = line.strip()
        if text.startswith("# Subtest: "):
            stack = [s for s in stack if s[0] < indent] + [(indent, text[len("# Subtest: ") :])]
            current = None
            continue
        result = re.match(r"(not ok|ok) \d+ - (.*)", text)
        if result:
            names = [n for i, n in stack if i <= indent]
            stack = [s for s in stack if s[0] < indent]
            current = None
            if result.group(1) == "not ok":
                inner = any(
                    f.names[: len(names)] == names and len(f.names) > len(names) for f in found
                )
                if not inner:
                    current = Failure(names or [result.group(2)])
                    found.append(current)
            continue
        if current is not None:
            current.details.append(line)
    return found


def test_the_failures_of_a_tap_report_are_named() -> None:
    """The parser of the report, on a report node writes (a suite around a failing test)."""
    tap = "\n".join(
        [
            "TAP version 13",
            "# Subtest: render",
            "    # Subtest: the header",
            "    ok 1 - the header",
            "    # Subtest: a big patch is bounded",
            "    not ok 2 - a big patch is bounded",
            "      ---",
            "      location: '/x/tests/js/widget.test.mjs:854:3'",
            "      error: |-",
            "        Expected values to be strictly equal:",
            "        20 !== 50",
            "      ...",
            "not ok 1 - render",
            "# Subtest: alone",
            "not ok 2 - alone",
            "  ---",
            "  location: '/x/tests/js/modules.test.mjs:3:1'",
            "  error: 'no module'",
            "  ...",
        ]
    )
    assert [f.describe() for f in failures(tap)] == [
        "render > a big patch is bounded (/x/tests/js/widget.test.mjs:854:3): "
        "Expected values to be strictly equal: 20 !== 50",
        "alone (/x/tests/js/modules.test.mjs:3:1): no module",
    ]


def test_node_tests_of_the_widget(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the widget's modules are tested with node --test)")
    if not (ROOT / "js" / "node_modules" / "acorn").is_dir():
        unavailable("js/node_modules is missing: `make check` runs npm ci in js/ first")
    vocabulary = tmp_path / "vocabulary.json"
    vocabulary.write_text(json.dumps(call_vocabulary()), encoding="utf-8")
    sampled = tmp_path / "samples.json"
    sampled.write_text(json.dumps(samples()), encoding="utf-8")
    env = {
        **os.environ,
        "APPLYPATCH_VOCABULARY": str(vocabulary),
        "APPLYPATCH_SAMPLES": str(sampled),
    }
    proc = subprocess.run(
        [node, "--test", "--test-reporter=tap", str(JS_TESTS)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=env,
    )
    failed = [f.describe() for f in failures(proc.stdout)]
    assert not failed, "node tests failed:\n" + "\n".join(failed)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert re.search(r"^# pass [1-9]", proc.stdout, re.MULTILINE), proc.stdout[-2000:]
    assert "vocabulary from APPLYPATCH_VOCABULARY" in proc.stdout


def _sources() -> list[str]:
    """What ``make widget`` builds from (js/build.mjs lists the same)."""
    src = [p for p in (ROOT / "js" / "src").rglob("*") if p.suffix in (".js", ".css")]
    fixed = ["js/build.mjs", "js/package.json", "js/package-lock.json", "js/tsconfig.json"]
    fixed.append("applypatch_ext/js/diff-words.json")  # read by the bundle and static_diff.py
    return sorted(fixed + [p.relative_to(ROOT).as_posix() for p in src])


def test_the_committed_bundle_is_that_of_the_sources() -> None:
    """SOURCES.sha256 (written by ``make widget``) lists every source of the bundle and both
    outputs, and every hash matches: a source changed without a rebuild, a new module, or a
    bundle edited by hand fails here, without node."""
    listed = {}
    for line in (BUILT / "SOURCES.sha256").read_text().splitlines():
        digest, path = line.split(maxsplit=1)
        listed[path] = digest
    outputs = ["applypatch_ext/js/widget.js", "applypatch_ext/js/widget.css"]
    assert sorted(listed) == sorted(_sources() + outputs)
    for path, digest in listed.items():
        assert hashlib.sha256((ROOT / path).read_bytes()).hexdigest() == digest, (
            f"{path} changed since the last `make widget`"
        )
    assert (BUILT / "widget.css").read_bytes() == (ROOT / "js/src/widget.css").read_bytes()
