"""The peers the benchmark compares against, installed into the benchmark's cache, never the venv.

* the Codex reference binary (PyPI ``openai-codex-cli-bin``), run as the standalone ``apply_patch``
  tool through a symlink of that name: installed by ``tools/conformance.py``'s own routine, into
  the same cache folders (``<cache>/codex-ref``, ``<cache>/bin/<version>/apply_patch``);
* PyPI ``codex-apply-patch`` (Rust through PyO3, in process): ``pip --target
  <cache>/bench/codex-apply-patch``, imported from there by this process only;
* ``git`` (``git apply``, ``git diff --no-index``), if it is on ``PATH``.

A peer that cannot be had is reported as missing; the benchmark then prints ``n/a`` for it.
"""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
REFERENCE_VERSION = "0.163.0"
CAP_PACKAGE = "codex-apply-patch"
CAP_VERSION = "0.4.0"


@dataclass
class Peers:
    reference: Path | None
    cap: ModuleType | None
    git: str | None
    notes: list[str]


def _load_conformance() -> ModuleType:
    path = REPO / "tools" / "conformance.py"
    spec = importlib.util.spec_from_file_location("bench_conformance", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def install_reference(cache: Path, notes: list[str]) -> Path | None:
    try:
        conformance = _load_conformance()
        link: Path = conformance.install_reference(cache, REFERENCE_VERSION, "codex-ref")
    except (SystemExit, OSError, ImportError) as exc:
        notes.append(f"reference binary unavailable ({exc})")
        return None
    notes.append(f"reference: openai-codex-cli-bin=={REFERENCE_VERSION} via {link}")
    return link


def install_cap(cache: Path, notes: list[str]) -> ModuleType | None:
    target = cache / "bench" / "codex-apply-patch"
    dist_info = target / f"codex_apply_patch-{CAP_VERSION}.dist-info"
    if not dist_info.is_dir():
        print(f"Installing {CAP_PACKAGE}=={CAP_VERSION} into {target} (pip --target)", flush=True)
        target.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        cmd += ["--no-deps", "--upgrade", "--target", str(target), f"{CAP_PACKAGE}=={CAP_VERSION}"]
        result = subprocess.run(cmd, check=False, capture_output=True, text=True)
        if result.returncode != 0 or not dist_info.is_dir():
            notes.append(f"{CAP_PACKAGE} unavailable (pip: {result.stderr.strip()[-200:]})")
            return None
    sys.path.insert(0, str(target))
    try:
        module = importlib.import_module("codex_apply_patch")
    except ImportError as exc:
        notes.append(f"{CAP_PACKAGE} unavailable ({exc})")
        return None
    finally:
        sys.path.remove(str(target))
    notes.append(f"{CAP_PACKAGE}=={CAP_VERSION} (in process) from {target}")
    return module


def find_peers(cache: Path, *, enabled: bool = True) -> Peers:
    notes: list[str] = []
    if not enabled:
        return Peers(None, None, shutil.which("git"), ["peers skipped (--no-peers)"])
    reference = install_reference(cache, notes)
    cap = install_cap(cache, notes)
    git = shutil.which("git")
    notes.append(f"git: {git}" if git else "git unavailable")
    return Peers(reference, cap, git, notes)
