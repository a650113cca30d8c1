"""Where the front-end files are: ``applypatch_ext/js/``, the bundle ``make widget`` builds from
``js/src/`` (committed, so a checkout and an installed wheel have the same files)."""

from __future__ import annotations

from pathlib import Path

_ASSETS = Path(__file__).resolve().parents[2] / "js"


def asset_path(name: str) -> Path:
    """The path of ``applypatch_ext/js/<name>``; raises ``FileNotFoundError`` naming it."""
    candidate = _ASSETS / name
    if not candidate.is_file():
        raise FileNotFoundError(f"{name} not found in {_ASSETS} (run `make widget` in a checkout)")
    return candidate
