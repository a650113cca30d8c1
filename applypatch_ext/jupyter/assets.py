"""Where the front-end files are: inside the package when installed, ``js/`` in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_ASSETS = Path(__file__).resolve().parents[1] / "js"
_CHECKOUT_ASSETS = Path(__file__).resolve().parents[2] / "js"


def asset_path(name: str) -> Path:
    """The path of ``js/<name>``; raises ``FileNotFoundError`` naming both places looked at."""
    for folder in (_PACKAGE_ASSETS, _CHECKOUT_ASSETS):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{name} not found in {_PACKAGE_ASSETS} or {_CHECKOUT_ASSETS}")
