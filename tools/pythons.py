"""The interpreters of the Python versions the package claims (its ``Programming Language ::
Python :: 3.N`` classifiers), found on this machine: ``make test-py`` runs the fast tests on each.

Prints ``VERSION PATH`` for each claimed version other than ``--except`` (the one ``make test``
runs on) that is found on PATH (``python3.N``) or among pyenv's versions
(``$PYENV_ROOT/versions/3.N.*``), and ``VERSION -`` for one that is not: the caller says it was
skipped, never silently.

Usage: ``python tools/pythons.py [--except 3.11]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def claimed() -> list[str]:
    classifiers = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["classifiers"]
    found = (re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c) for c in classifiers)
    return [m.group(1) for m in found if m]


def _runs(path: str, version: str) -> bool:
    try:
        proc = subprocess.run(
            [path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except OSError:
        return False
    return proc.returncode == 0 and proc.stdout.strip() == version


def find(version: str) -> str | None:
    """An interpreter of ``version`` that runs (a pyenv shim of another version does not)."""
    candidates = [shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        for folder in sorted(pyenv.glob(f"{version}.*"), reverse=True):
            candidates.append(str(folder / "bin" / f"python{version}"))
    return next((c for c in candidates if c and _runs(c, version)), None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--except", dest="skip", action="append", default=[], metavar="3.N")
    args = parser.parse_args()
    for version in claimed():
        if version not in args.skip:
            print(version, find(version) or "-")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
