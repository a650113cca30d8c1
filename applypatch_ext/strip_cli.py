"""``python -m applypatch_ext strip NOTEBOOK...``: leave each call's live widget out of saved
notebooks, keeping its static record (what the Jupyter server's save hook does, for notebooks
run by nbclient, nbconvert or papermill: :mod:`applypatch_ext.live_views`).

Prints one line per notebook (what was left out, the size before and after). Exits 0 when every
notebook was stripped or had nothing to strip; with ``--check``, writes nothing and exits 1 when
some notebook has a live view to strip; 2 when a file cannot be read or is not a notebook (the
others are still done). Imports nothing of the Jupyter layer.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .live_views import strip_notebook_file


def add_strip_parser(commands: Any) -> None:
    strip = commands.add_parser(
        "strip",
        help="leave the live widgets out of saved notebooks, keeping each call's record",
        description=(
            "Remove each %%apply_patch call's live widget output whose static record is in the "
            "same cell, and those widgets' saved state, from each NOTEBOOK, in place: what the "
            "Jupyter server's save hook does, for notebooks executed by nbclient, nbconvert or "
            "papermill."
        ),
    )
    strip.add_argument("notebooks", metavar="NOTEBOOK", nargs="+", help="an .ipynb file")
    strip.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if some NOTEBOOK has live views to strip",
    )


def _size(count: int) -> str:
    return f"{count / 1000:.1f} KB" if count >= 1000 else f"{count} B"


def run_strip(args: argparse.Namespace) -> int:
    failed = found = False
    for path in args.notebooks:
        try:
            stripped, before, after = strip_notebook_file(path, write=not args.check)
        except (OSError, ValueError) as exc:
            reason = f"{exc.strerror} ({path})" if isinstance(exc, OSError) else str(exc)
            sys.stderr.write(f"error: {reason}\n")
            failed = True
            continue
        if not stripped:
            sys.stdout.write(f"{path}: nothing to strip ({_size(before)})\n")
            continue
        found = True
        verb = "would leave out" if args.check else "left out"
        sys.stdout.write(
            f"{path}: {verb} {len(stripped.views)} live view(s) and {len(stripped.models)} saved "
            f"widget model(s): {_size(before)} -> {_size(after)}\n"
        )
    return 2 if failed else 1 if args.check and found else 0
