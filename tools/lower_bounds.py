"""The lowest versions the package allows: ``make test-min`` installs exactly these.

Prints a pip constraints file with ``NAME==LOWER`` for each runtime dependency of
``pyproject.toml`` (``NAME>=LOWER``); with ``--check``, says which installed version differs
from its lower bound and exits 1 (so the run tests what it claims to).

Usage: ``python tools/lower_bounds.py [--check]``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOUND = re.compile(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)$")


def lower_bounds() -> dict[str, str]:
    bounds = {}
    for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "dependencies"
    ]:
        match = BOUND.match(requirement.strip())
        if match is None:
            raise SystemExit(f"error: {requirement!r} has no plain lower bound (NAME>=VERSION)")
        bounds[match.group(1)] = match.group(2)
    return bounds


def _same(installed: str, bound: str) -> bool:
    """``8.1`` is ``8.1.0``: trailing zeros do not count."""

    def parts(text: str) -> list[str]:
        items = text.split(".")
        while len(items) > 1 and items[-1] == "0":
            items.pop()
        return items

    return parts(installed) == parts(bound)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with what is installed")
    args = parser.parse_args()
    bounds = lower_bounds()
    if not args.check:
        sys.stdout.write("".join(f"{name}=={low}\n" for name, low in bounds.items()))
        return 0
    wrong = []
    for name, low in bounds.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "not installed"
        if not _same(installed, low):
            wrong.append(f"{name}: {installed}, lower bound {low}")
        else:
            print(f"{name} {installed} (the lower bound)")
    for line in wrong:
        print(f"error: {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
