"""Conformance runner: compare our ``apply_patch`` with the reference Codex binary.

The reference is the standalone ``apply_patch`` tool bundled in the PyPI package
``openai-codex-cli-bin``, release 0.163.0. It is installed on demand with ``pip --target`` into
``<cache>/codex-ref`` (never into the virtual environment) and invoked through a symlink named
``apply_patch`` (``<cache>/bin/<version>/apply_patch``), which makes the Codex binary behave as
the standalone tool.

Release 0.163.0 ignores ``CODEX_APPLY_PATCH_PRESERVE_LINE_ENDINGS`` and always preserves line
endings, so the legacy normalise-to-LF mode is taken from release 0.161.0 (the newest one that
still honours the variable), installed the same way into ``<cache>/codex-ref-lf``.

Scenarios are read in place from three suites:

* ``<repo>/../shared/conformance/codex-scenarios`` -- upstream Codex fixtures (label ``codex/``);
* ``<repo>/tests/scenarios`` -- our own scenarios (label ``ours/``);
* ``<repo>/tests/data/model-patches`` -- 814 real model-written patches, each in a tree holding
  the file it was written for (label ``corpus/``, see that folder's README and
  ``tests/model_patches.py``): no expected tree, the reference and ours are compared.

A scenario is a directory with an optional ``input/`` (initial tree, else an empty directory),
``patch.txt`` (passed unchanged as the single argument; if it contains a NUL byte, which no
argument can carry, it is fed on stdin instead), ``expected/`` (final tree in preserve mode, an
absent directory meaning an empty tree) and optionally ``expected-lf/`` (final tree in legacy
normalise-to-LF mode, when it differs from ``expected/``).

Every scenario runs in two modes:

* ``preserve``: reference 0.163.0 with ``CODEX_APPLY_PATCH_PRESERVE_LINE_ENDINGS=1``, ours with
  ``APPLYPATCH_LINE_ENDINGS=preserve``; checked against ``expected/``;
* ``lf``: reference 0.161.0 without that variable, ours with ``APPLYPATCH_LINE_ENDINGS=lf``; checked
  against ``expected-lf/`` if present, else ``expected/`` (not checked for the upstream
  scenarios 023 and 024, which only hold in preserve mode).

Each run happens in a fresh temporary copy of ``input/``. Reference and ours are compared on the
whole resulting tree (paths, directories, bytes, symlink targets, permission bits), the exit code,
stdout and stderr (the temporary directory's path is replaced by ``<TMP>``).

Usage::

    .venv/bin/python tools/conformance.py --cache .cache [--only REGEX] [--mode preserve|lf]
        [--suite codex|ours|corpus] [--jobs N] [--keep] [--verbose]
        [--ours-only | --reference-only | --write-expected]

``--write-expected`` (re)generates ``expected/`` and ``expected-lf/`` of our own scenarios from
the reference binary (``expected-lf/`` is removed when identical to ``expected/``). Exit status:
0 when everything agrees, 1 otherwise, 2 on a usage or set-up error.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import itertools
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

REFERENCE_PACKAGE = "openai-codex-cli-bin"
# The reference (preserve mode). Its standalone tool ignores CODEX_APPLY_PATCH_PRESERVE_LINE_ENDINGS
# and always preserves line endings (so does 0.162.1; 0.161.0 and 0.159.3 still honour it).
REFERENCE_VERSION = "0.163.0"
# The newest release whose standalone tool still honours the variable (unset: legacy
# normalise-to-LF, "1": preserve); it is the reference for lf mode.
LF_REFERENCE_VERSION = "0.161.0"
REFERENCE_PRESERVE_ENV = "CODEX_APPLY_PATCH_PRESERVE_LINE_ENDINGS"
OURS_MODE_ENV = "APPLYPATCH_LINE_ENDINGS"
OURS_MODULE = "applypatch_ext.cli"

REPO_ROOT = Path(__file__).resolve().parent.parent
CODEX_SUITE = REPO_ROOT.parent / "shared" / "conformance" / "codex-scenarios"
OURS_SUITE = REPO_ROOT / "tests" / "scenarios"
SUITES = ("codex", "ours", "corpus")

# Upstream scenarios whose expected/ tree only holds in preserve-line-endings mode.
PRESERVE_ONLY = frozenset({"023_preserves_crlf_line_endings", "024_preserves_mixed_line_endings"})

MODES = ("preserve", "lf")
RUN_TIMEOUT_S = 120
MAX_DETAIL_LINES = 24
TMP_PLACEHOLDER = "<TMP>"

# A tree entry: ("dir",), ("file", bytes), ("link", target) plus the permission bits.
Entry = tuple[str, bytes | str | None, int]
Tree = dict[str, Entry]


# --------------------------------------------------------------------------------------------
# Reference installation


def fail(message: str) -> NoReturn:
    """Stop with a set-up error (exit status 2)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def install_reference(cache: Path, version: str, folder: str) -> Path:
    """Install the reference ``version`` into ``<cache>/<folder>`` if needed; return the symlink.

    The symlink is ``<cache>/bin/<version>/apply_patch``: the Codex binary looks at the name it
    was invoked by and behaves as the standalone ``apply_patch`` tool under that name.
    """
    target = cache / folder
    dist_info = target / f"openai_codex_cli_bin-{version}.dist-info"
    if not dist_info.is_dir():
        print(f"Installing {REFERENCE_PACKAGE}=={version} into {target} (pip --target)")
        sys.stdout.flush()
        target.mkdir(parents=True, exist_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--upgrade",
            "--no-deps",
            "--target",
            str(target),
            f"{REFERENCE_PACKAGE}=={version}",
        ]
        result = subprocess.run(cmd, check=False)
        if result.returncode != 0 or not dist_info.is_dir():
            fail(f"could not install {REFERENCE_PACKAGE}=={version} into {target}")
    codex = bundled_codex_path(target)
    link_dir = cache / "bin" / version
    link_dir.mkdir(parents=True, exist_ok=True)
    link = link_dir / "apply_patch"
    if not (link.is_symlink() and Path(os.readlink(link)) == codex):
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(codex)
    return link


def bundled_codex_path(target: Path) -> Path:
    """Ask the installed ``codex_cli_bin`` module (loaded from ``target``) for the binary."""
    init = target / "codex_cli_bin" / "__init__.py"
    spec = importlib.util.spec_from_file_location("codex_cli_bin", init)
    if spec is None or spec.loader is None:
        fail(f"cannot load {init}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        path = Path(module.bundled_codex_path())
    except (OSError, AttributeError) as exc:
        fail(f"no reference binary in {target}: {exc}")
    if not os.access(path, os.X_OK):
        fail(f"reference binary {path} is not executable")
    return path.resolve()


# --------------------------------------------------------------------------------------------
# Scenarios and trees


@dataclass(frozen=True)
class Scenario:
    suite: str  # "codex" or "ours"
    path: Path

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def label(self) -> str:
        return f"{self.suite}/{self.name}"

    def patch_bytes(self) -> bytes:
        return (self.path / "patch.txt").read_bytes()

    def expected_dir(self, mode: str) -> Path:
        if mode == "lf" and (self.path / "expected-lf").is_dir():
            return self.path / "expected-lf"
        return self.path / "expected"

    def checks_expected(self, mode: str) -> bool:
        return not (mode == "lf" and self.suite == "codex" and self.name in PRESERVE_ONLY)

    def populate(self, workdir: Path) -> None:
        """Put the scenario's ``input/`` tree in ``workdir``."""
        input_dir = self.path / "input"
        if input_dir.is_dir():
            shutil.copytree(input_dir, workdir, symlinks=True, dirs_exist_ok=True)


@dataclass(frozen=True)
class CorpusScenario:
    """A case of tests/data/model-patches: its patch, and a tree holding its file (if any)."""

    name: str
    patch: bytes
    tree: tuple[tuple[str, bytes], ...]
    suite: str = "corpus"

    @property
    def label(self) -> str:
        return f"{self.suite}/{self.name}"

    def patch_bytes(self) -> bytes:
        return self.patch

    def checks_expected(self, mode: str) -> bool:
        return False  # the reference is the expectation

    def populate(self, workdir: Path) -> None:
        for name, data in self.tree:
            (workdir / name).write_bytes(data)


AnyScenario = Scenario | CorpusScenario


def discover_corpus() -> list[CorpusScenario]:
    """Every case of the corpus, in its order."""
    sys.path.insert(0, str(REPO_ROOT))
    from tests.model_patches import cases  # the corpus's one reader, beside its data

    return [
        CorpusScenario(
            f"{case.id}-{case.model}",
            case.patch.encode("utf-8"),
            tuple(case.tree().items()),
        )
        for case in cases()
    ]


def discover(suite: str, root: Path) -> list[Scenario]:
    if not root.is_dir():
        return []
    return [
        Scenario(suite, p)
        for p in sorted(root.iterdir())
        if p.is_dir() and (p / "patch.txt").is_file()
    ]


def snapshot(root: Path) -> Tree:
    """Every entry below ``root`` (excluded) keyed by its relative POSIX path."""
    tree: Tree = {}
    if not root.is_dir():
        return tree
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        for name in sorted(dirnames + filenames):
            full = base / name
            rel = full.relative_to(root).as_posix()
            st = full.lstat()
            perm = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                tree[rel] = ("link", os.readlink(full), perm)
            elif stat.S_ISDIR(st.st_mode):
                tree[rel] = ("dir", None, perm)
            elif stat.S_ISREG(st.st_mode):
                tree[rel] = ("file", full.read_bytes(), perm)
            else:
                tree[rel] = ("other", None, perm)
        # os.walk does not descend into symlinked directories by default: good.
    return tree


def show_bytes_lines(data: bytes) -> list[str]:
    """Lines (each with its line break) rendered with repr: CR, BOM, NUL, bad bytes are visible."""
    text = data.decode("utf-8", errors="backslashreplace")
    return [repr(line)[1:-1] + "\n" for line in text.splitlines(keepends=True)]


def printable(line: str) -> str:
    """``line`` with control and other non-printable characters (except tab) escaped."""
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in line)


def limited(lines: Sequence[str], indent: str = "      ") -> list[str]:
    out = [indent + line.rstrip("\n") for line in lines[:MAX_DETAIL_LINES]]
    if len(lines) > MAX_DETAIL_LINES:
        out.append(f"{indent}... ({len(lines) - MAX_DETAIL_LINES} more lines)")
    return out


def diff_trees(a: Tree, b: Tree, a_name: str, b_name: str, *, modes: bool) -> list[str]:
    """Readable description of the differences between two trees (empty if equal)."""
    out: list[str] = []
    for rel in sorted(set(a) | set(b)):
        ea, eb = a.get(rel), b.get(rel)
        if ea is None:
            assert eb is not None
            out.append(f"    only in {b_name}: {rel}{kind_suffix(eb)}")
            continue
        if eb is None:
            out.append(f"    only in {a_name}: {rel}{kind_suffix(ea)}")
            continue
        if ea[0] != eb[0]:
            out.append(f"    {rel}: {ea[0]} in {a_name}, {eb[0]} in {b_name}")
            continue
        if ea[1] != eb[1]:
            if ea[0] == "file":
                assert isinstance(ea[1], bytes) and isinstance(eb[1], bytes)
                out.append(f"    {rel}: contents differ ({a_name} vs {b_name}):")
                diff = list(
                    difflib.unified_diff(
                        show_bytes_lines(ea[1]),
                        show_bytes_lines(eb[1]),
                        a_name,
                        b_name,
                        n=2,
                    )
                )
                if not diff:  # same text after rendering: should not happen, be explicit
                    diff = [f"{ea[1]!r}\n", f"{eb[1]!r}\n"]
                out.extend(limited(diff))
            else:
                out.append(f"    {rel}: link target {ea[1]!r} in {a_name}, {eb[1]!r} in {b_name}")
            continue
        if modes and ea[0] != "link" and ea[2] != eb[2]:
            out.append(f"    {rel}: mode {ea[2]:o} in {a_name}, {eb[2]:o} in {b_name}")
    return out


def kind_suffix(entry: Entry) -> str:
    if entry[0] == "dir":
        return "/"
    if entry[0] == "link" and isinstance(entry[1], str):
        return f" -> {entry[1]}"
    return ""


# --------------------------------------------------------------------------------------------
# Running one implementation


@dataclass
class RunResult:
    returncode: int
    stdout: str
    stderr: str
    tree: Tree
    workdir: Path
    error: str | None = None  # set when the process could not be run at all


@dataclass
class Implementation:
    name: str
    argv_prefix: list[str]
    env: dict[str, str] = field(default_factory=dict)


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    for var in (REFERENCE_PRESERVE_ENV, OURS_MODE_ENV):
        env.pop(var, None)
    env["LC_ALL"] = "C.UTF-8"
    env.pop("LANGUAGE", None)
    return env


def reference_impl(link: Path, mode: str) -> Implementation:
    env = base_env()
    if mode == "preserve":
        env[REFERENCE_PRESERVE_ENV] = "1"
    return Implementation("reference", [str(link)], env)


def ours_impl(python: str, mode: str) -> Implementation:
    env = base_env()
    env[OURS_MODE_ENV] = mode
    # Import the package from this checkout, never from the scenario's temporary directory.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    env["PYTHONSAFEPATH"] = "1"
    env.pop("PYTHONSTARTUP", None)
    return Implementation("ours", [python, "-m", OURS_MODULE], env)


def decode_output(data: bytes, workdir: Path) -> str:
    text = data.decode("utf-8", errors="backslashreplace")
    return text.replace(str(workdir), TMP_PLACEHOLDER)


def run_impl(impl: Implementation, scenario: AnyScenario, keep: bool, mode: str) -> RunResult:
    prefix = f"conformance-{scenario.suite}-{scenario.name[:40]}-{mode}-{impl.name}-"
    workdir = Path(os.path.realpath(tempfile.mkdtemp(prefix=prefix)))
    try:
        scenario.populate(workdir)
        patch = scenario.patch_bytes()
        argv = list(impl.argv_prefix)
        stdin: bytes | None = None
        if b"\0" in patch:
            stdin = patch  # an argument cannot carry NUL: use the stdin form of the tool
        else:
            try:
                argv.append(patch.decode("utf-8"))
            except UnicodeDecodeError:
                argv.append(patch.decode("utf-8", errors="surrogateescape"))
        try:
            proc = subprocess.run(
                argv,
                cwd=workdir,
                env=impl.env,
                input=stdin if stdin is not None else b"",
                capture_output=True,
                timeout=RUN_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return RunResult(-1, "", "", snapshot(workdir), workdir, error=str(exc))
        return RunResult(
            proc.returncode,
            decode_output(proc.stdout, workdir),
            decode_output(proc.stderr, workdir),
            snapshot(workdir),
            workdir,
        )
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Comparison and reporting


def text_diff(a: str, b: str, a_name: str, b_name: str) -> list[str]:
    lines_a = [repr(x)[1:-1] + "\n" for x in a.splitlines(keepends=True)]
    lines_b = [repr(x)[1:-1] + "\n" for x in b.splitlines(keepends=True)]
    return limited(list(difflib.unified_diff(lines_a, lines_b, a_name, b_name, n=2)))


def compare_runs(ref: RunResult, ours: RunResult) -> list[str]:
    problems: list[str] = []
    for res in (ref, ours):
        if res.error is not None:
            problems.append(f"  could not run {'reference' if res is ref else 'ours'}: {res.error}")
    if ref.returncode != ours.returncode:
        problems.append(f"  exit code: reference {ref.returncode}, ours {ours.returncode}")
    if ref.stdout != ours.stdout:
        problems.append("  stdout differs:")
        problems.extend(text_diff(ref.stdout, ours.stdout, "reference", "ours"))
    if ref.stderr != ours.stderr:
        problems.append("  stderr differs:")
        problems.extend(text_diff(ref.stderr, ours.stderr, "reference", "ours"))
    tree = diff_trees(ref.tree, ours.tree, "reference", "ours", modes=True)
    if tree:
        problems.append("  trees differ:")
        problems.extend(tree)
    return problems


def compare_expected(run: RunResult, who: str, scenario: Scenario, mode: str) -> list[str]:
    expected_dir = scenario.expected_dir(mode)
    expected = snapshot(expected_dir)
    tree = diff_trees(expected, run.tree, expected_dir.name, who, modes=False)
    if not tree:
        return []
    return [f"  {who} tree differs from {expected_dir.name}/:", *tree]


def describe_run(run: RunResult, who: str) -> list[str]:
    out = [f"  {who}: exit {run.returncode}"]
    if run.error is not None:
        out.append(f"    error: {run.error}")
    for stream, text in (("stdout", run.stdout), ("stderr", run.stderr)):
        if text:
            out.append(f"    {stream}:")
            lines = [printable(line) for line in text.split("\n")]
            if lines[-1] == "":
                lines.pop()
            else:
                lines[-1] += "  (no final newline)"
            out.extend(limited(lines, indent="      | "))
    if run.workdir.exists():
        out.append(f"    kept: {run.workdir}")
    return out


def write_expected(scenario: Scenario, runs: dict[str, RunResult]) -> str:
    """Store the reference trees as expected/ (preserve) and expected-lf/ (lf, if different).

    An empty tree is stored as an absent directory (git cannot hold an empty one).
    """
    if scenario.suite != "ours":
        fail("--write-expected only writes our own scenarios")
    notes: list[str] = []
    for mode, dirname in (("preserve", "expected"), ("lf", "expected-lf")):
        dest = scenario.path / dirname
        if dest.exists():
            shutil.rmtree(dest)
        tree = runs[mode].tree
        if mode == "lf" and tree == runs["preserve"].tree:
            continue
        if tree:
            materialise(tree, dest)
            notes.append(f"{dirname}/ written")
        else:
            notes.append(f"{dirname}/: empty tree")
    return ", ".join(notes)


def materialise(tree: Tree, dest: Path) -> None:
    dest.mkdir(parents=True)
    for rel, (kind, data, _perm) in sorted(tree.items()):
        target = dest / rel
        if kind == "dir":
            target.mkdir(parents=True, exist_ok=True)
        elif kind == "file":
            assert isinstance(data, bytes)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        elif kind == "link":
            assert isinstance(data, str)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(data)


def check_lf_reference(link: Path) -> str | None:
    """Return a warning unless ``link`` normalises a CRLF file to LF when the variable is unset."""
    workdir = Path(os.path.realpath(tempfile.mkdtemp(prefix="conformance-probe-")))
    try:
        (workdir / "probe.txt").write_bytes(b"one\r\ntwo\r\n")
        patch = "*** Begin Patch\n*** Update File: probe.txt\n@@\n-one\n+uno\n*** End Patch\n"
        subprocess.run(
            [str(link), patch],
            cwd=workdir,
            env=reference_impl(link, "lf").env,
            capture_output=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        result = (workdir / "probe.txt").read_bytes()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if result == b"uno\ntwo\r\n":
        return None
    return f"warning: the lf reference {link} did not normalise to LF (got {result!r})"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cache", type=Path, default=REPO_ROOT / ".cache", help="cache folder")
    parser.add_argument("--only", metavar="REGEX", help="run scenarios whose label matches")
    parser.add_argument("--mode", choices=MODES, action="append", help="restrict to a mode")
    parser.add_argument(
        "--suite", choices=SUITES, action="append", help="restrict to a suite (repeatable)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="scenarios run at once (each runs two processes)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    parser.add_argument("--verbose", "-v", action="store_true", help="show exit codes/outputs")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter for ours (default: this one)"
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--ours-only", action="store_true", help="run ours, check expected/")
    group.add_argument(
        "--reference-only", action="store_true", help="run the reference, check expected/"
    )
    group.add_argument(
        "--write-expected",
        action="store_true",
        help="write expected/ (+ expected-lf/) of tests/scenarios from the reference",
    )
    return parser.parse_args(argv)


@dataclass
class Outcome:
    """One scenario in one mode: both runs and what differs."""

    scenario: AnyScenario
    mode: str
    ref: RunResult | None
    ours: RunResult | None
    problems: list[str]
    checked: bool


def run_scenario(
    args: argparse.Namespace, links: dict[str, Path], scenario: AnyScenario, mode: str
) -> Outcome:
    """Run the reference and ours on ``scenario`` in ``mode`` and compare them (and each with
    the expected tree, where the scenario has one)."""
    ref = ours = None
    if not args.ours_only:
        ref = run_impl(reference_impl(links[mode], mode), scenario, args.keep, mode)
    if not (args.reference_only or args.write_expected):
        ours = run_impl(ours_impl(args.python, mode), scenario, args.keep, mode)
    problems: list[str] = []
    if ref is not None and ours is not None:
        problems.extend(compare_runs(ref, ours))
    checked = scenario.checks_expected(mode)
    if checked and not args.write_expected and isinstance(scenario, Scenario):
        for who, run in (("reference", ref), ("ours", ours)):
            if run is not None:
                problems.extend(compare_expected(run, who, scenario, mode))
    return Outcome(scenario, mode, ref, ours, problems, checked)


def select(args: argparse.Namespace) -> list[AnyScenario]:
    """The scenarios of the suites asked for (all by default; ours alone to write expected
    trees), filtered by ``--only``."""
    wanted = ["ours"] if args.write_expected else (args.suite or list(SUITES))
    if "codex" in wanted and not CODEX_SUITE.is_dir():
        print(f"warning: reference scenarios not found at {CODEX_SUITE}")
    scenarios: list[AnyScenario] = []
    for suite, root in (("codex", CODEX_SUITE), ("ours", OURS_SUITE)):
        if suite in wanted:
            scenarios.extend(discover(suite, root))
    if "corpus" in wanted:
        scenarios.extend(discover_corpus())
    if args.only:
        pattern = re.compile(args.only)
        scenarios = [s for s in scenarios if pattern.search(s.label)]
    return scenarios


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    cache = Path(os.path.realpath(args.cache))
    modes: Sequence[str] = MODES if args.write_expected or not args.mode else tuple(args.mode)

    links: dict[str, Path] = {}
    if not args.ours_only:
        if "preserve" in modes:
            links["preserve"] = install_reference(cache, REFERENCE_VERSION, "codex-ref")
        if "lf" in modes:
            links["lf"] = install_reference(cache, LF_REFERENCE_VERSION, "codex-ref-lf")
            warning = check_lf_reference(links["lf"])
            if warning:
                print(warning)

    scenarios = select(args)
    if not scenarios:
        print("no scenario selected")
        return 2

    started = time.monotonic()
    passed = failed = 0
    generated: dict[Scenario, dict[str, RunResult]] = {}
    pairs = list(itertools.product(scenarios, modes))
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        # the processes run in parallel; the report keeps the scenarios' order
        outcomes = pool.map(lambda pair: run_scenario(args, links, *pair), pairs)
        for outcome in outcomes:
            scenario, mode, problems = outcome.scenario, outcome.mode, outcome.problems
            if args.write_expected:
                assert outcome.ref is not None and isinstance(scenario, Scenario)
                generated.setdefault(scenario, {})[mode] = outcome.ref
            expected_note = scenario.suite == "corpus" or outcome.checked or args.write_expected
            note = "" if expected_note else "  (expected/: n/a in lf mode)"
            status = "RAN " if args.write_expected else "DIFF" if problems else "PASS"
            print(f"{status}  {scenario.label} [{mode}]{note}")
            for line in problems:
                print(line)
            if args.verbose:
                for who, run in (("reference", outcome.ref), ("ours", outcome.ours)):
                    if run is not None:
                        print("\n".join(describe_run(run, who)))
            if problems:
                failed += 1
            else:
                passed += 1
            sys.stdout.flush()

    for scenario, runs in generated.items():
        print(f"{scenario.label}: {write_expected(scenario, runs)}")

    print(f"{passed} passed, {failed} failed in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
