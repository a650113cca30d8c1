"""The teaching set: the files of ``notebooks/`` that the repository tracks, notebooks cleared.

What ``make lite`` publishes and what ``make lab`` copies into its working folder: the tracked
teaching notebooks and their data, never what a session left beside them (scratch notebooks,
a ``play/`` folder, executed copies), and every notebook with its outputs cleared (a notebook
saved with outputs carries local paths and whole records).

Usage: ``python tools/teaching.py lab-copies --into DIR [--fresh]`` (what ``make lab`` runs):
copies the teaching set into ``DIR`` and leaves the copies there alone once the user has
changed them (``--fresh`` replaces them).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "notebooks"
#: In a working folder: what was copied there, by path (the source's and the copy's sha256).
STATE = ".teaching.json"


class TeachingError(SystemExit):
    """The teaching set cannot be told apart (no git checkout), or a tracked file is missing."""


def _git(root: Path, *args: str) -> list[str]:
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args, "-z", "--", FOLDER],
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        stderr = getattr(exc, "stderr", b"") or b""
        why = stderr.decode(errors="replace").strip() or str(exc)
        raise TeachingError(
            f"{root / FOLDER} is not in a git checkout here ({why}): the teaching notebooks are "
            "the files git tracks there, so without git they cannot be told from anything else "
            "in the folder; it would publish: " + ", ".join(everything(root))
        ) from None
    return sorted(name for name in proc.stdout.decode().split("\0") if name)


def everything(root: Path) -> list[str]:
    """Every file under ``notebooks/``, relative to ``root``."""
    folder = root / FOLDER
    return sorted(p.relative_to(root).as_posix() for p in folder.rglob("*") if p.is_file())


def teaching_files(root: Path = ROOT) -> list[str]:
    """The tracked files of ``notebooks/``, relative to ``root`` (``notebooks/01_tour.ipynb``)."""
    tracked = _git(root, "ls-files", "--cached")
    missing = [name for name in tracked if not (root / name).is_file()]
    if missing:
        raise TeachingError(
            "tracked in git but missing from the checkout: " + ", ".join(missing) + "; restore "
            "them (git checkout -- notebooks) or commit their removal"
        )
    return tracked


def left_out(root: Path = ROOT) -> list[str]:
    """The files under ``notebooks/`` that are not part of the teaching set."""
    tracked = set(teaching_files(root))
    return [name for name in everything(root) if name not in tracked]


def clean_notebook(data: bytes) -> tuple[bytes, int]:
    """The notebook without outputs, execution counts, saved widget state or cell timings;
    returns it and the number of outputs it had."""
    nb = json.loads(data)
    outputs = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            outputs += len(cell.get("outputs", []))
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
    nb.get("metadata", {}).pop("widgets", None)
    text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    return text.encode(), outputs


def teaching_content(root: Path, name: str) -> tuple[bytes, int]:
    """A teaching file as published: a notebook cleared, any other file as it is."""
    data = (root / name).read_bytes()
    return clean_notebook(data) if name.endswith(".ipynb") else (data, 0)


def copy_teaching_set(root: Path, into: Path, log: Callable[[str], None] = print) -> list[str]:
    """Write the teaching set into ``into`` (a fresh folder), paths relative to
    ``notebooks/``; returns them. Says what it cleared and what it left out."""
    written = []
    for name in teaching_files(root):
        data, outputs = teaching_content(root, name)
        rel = Path(name).relative_to(FOLDER)
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        (into / rel).write_bytes(data)
        written.append(rel.as_posix())
        if outputs:
            log(f"{name}: its {outputs} saved output{'s' if outputs != 1 else ''} cleared")
    others = left_out(root)
    if others:
        shown = ", ".join(others[:10]) + (
            f" and {len(others) - 10} more" if len(others) > 10 else ""
        )
        log(f"left out, not tracked by git: {shown}")
    return written


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def lab_copies(
    root: Path, into: Path, *, fresh: bool = False, log: Callable[[str], None] = print
) -> None:
    """Copy the teaching set into the working folder ``into``: a copy missing, or unchanged
    since it was copied, gets the current teaching file; one the user changed stays as it is
    (said when its teaching file changed since), unless ``fresh``."""
    into.mkdir(parents=True, exist_ok=True)
    state_path = into / STATE
    state: dict[str, dict[str, str]] = {}
    if state_path.is_file():
        state = json.loads(state_path.read_text())
    kept = []
    for name in teaching_files(root):
        data, _outputs = teaching_content(root, name)
        rel = Path(name).relative_to(FOLDER).as_posix()
        target = into / rel
        was = state.get(rel)
        current = _sha(target.read_bytes()) if target.is_file() else None
        untouched = current is None or (was is not None and current == was["copy"])
        if (fresh or untouched) and current != _sha(data):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if fresh or untouched or current == _sha(data):
            state[rel] = {"source": _sha(data), "copy": _sha(data)}
        elif was is None or was["source"] != _sha(data):
            kept.append(rel)
    state_path.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    log(f"make lab: JupyterLab works on copies of the teaching notebooks in {into}")
    if kept:
        log(
            "kept your changed copies of " + ", ".join(kept) + f" (newer in {FOLDER}/): "
            "make lab-fresh replaces every copy with the teaching notebook"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    copies = commands.add_parser("lab-copies", help="copy the teaching set for make lab")
    copies.add_argument("--into", type=Path, required=True)
    copies.add_argument("--fresh", action="store_true")
    args = parser.parse_args(argv)
    lab_copies(ROOT, args.into.resolve(), fresh=args.fresh)


if __name__ == "__main__":
    main()
