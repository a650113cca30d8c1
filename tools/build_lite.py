"""Build the teaching notebooks as an offline JupyterLite site (``make lite``).

Everything comes from the package registries at build time and is cached in ``.cache/lite/``:

1. a build environment (``.cache/lite/venv``) with ``jupyterlite-core``, the Pyodide kernel and
   the front ends of the widgets (``jupyterlab_widgets``, ``anywidget``): ``jupyter lite build``
   copies the federated labextensions it finds there into the site, and this package's own (the
   one that edits ``%%apply_patch`` cells as a patch) from the wheel of step 3;
2. the Pyodide runtime from the ``pyodide`` npm package, at the version the kernel names;
3. the wheels the kernel and this package need, pure Python, from PyPI (versions pinned to the
   ones of that Pyodide release's own lock file where it has them), and this package as a wheel
   built from the checkout;
4. a local Pyodide distribution of exactly those files, with its ``pyodide-lock.json``;
5. ``jupyter lite build --pyodide`` with the teaching set as the contents: the notebooks and
   data of ``notebooks/`` that git tracks, every notebook with its outputs cleared (see
   ``tools/teaching.py``; what else lies in the folder is named and left out).

The site then needs no network: the kernel loads Pyodide and every package from the site itself
(no CDN, PyPI fallback disabled). The script checks the built site for external URLs in what the
kernel is configured to load.

Usage: ``python tools/build_lite.py [--cache .cache/lite] [--output build/lite]``. It re-runs
itself inside the build environment once that exists (it needs ``packaging`` to evaluate the
wheels' dependency markers for the browser's platform).
"""

from __future__ import annotations

import argparse
import base64
import email.parser
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

from teaching import copy_teaching_set

ROOT = Path(__file__).resolve().parents[1]

# Pins that work together: jupyterlite-core 0.6 is JupyterLab 4.4; its Pyodide kernel 0.6.1 runs
# Pyodide 0.27.6 (Python 3.12); the widget manager it ships is jupyterlab_widgets 3 (ipywidgets
# 8), and anywidget's front end is the same version as its Python package loaded in the kernel.
BUILD_PINS = {
    "jupyterlite-core": "0.6.4",
    "jupyterlite-pyodide-kernel": "0.6.1",
    "jupyterlab-widgets": "3.0.15",
    "anywidget": "0.11.0",
    "packaging": "25.0",
    # `jupyter lite build` indexes the contents (the notebooks) with it.
    "jupyter-server": "2.17.0",
}
# What the kernel installs into Pyodide besides this package (see the kernel's worker:
# micropip first, then ipykernel (its own shim), comm, pyodide_kernel, jedi, ipython).
KERNEL_NEEDS = ["micropip", "packaging", "comm", "jedi", "ipython"]
# Wheels that only carry a front end: the site serves those as labextensions, and the kernel's
# own index (``pypi/all.json``) has the ``widgetsnbextension`` shim the kernel expects.
FRONT_END_ONLY = {"widgetsnbextension", "jupyterlab-widgets"}
# Pins for the browser only: jsonschema 4.18 and later need `referencing`, hence the compiled
# `rpds-py` that Pyodide ships only in its full distribution (on no registry); 4.17 (attrs and
# pyrsistent, both pure-Python wheels on PyPI) validates nbformat's schema the same way, so the
# package's dependency nbformat, and notebook 09 with it, work in the site.
BROWSER_PINS = ["jsonschema<4.18"]
# CPython modules that Pyodide builds to WebAssembly and ships only in its full distribution
# tarball (on no registry). The kernel installs them unconditionally; the site's lock lists them
# as empty distributions so that step passes, and ``import ssl`` / ``import sqlite3`` fail as
# they would without them (IPython then keeps its history in memory).
UNAVAILABLE_MODULES = {"ssl": "1.0.0", "sqlite3": "1.0.0"}
# Not pinned to the Pyodide lock's version: IPython before 9 imports `sqlite3` unconditionally
# (IPython.core.history), and this site has no sqlite3 (see UNAVAILABLE_MODULES); jsonschema,
# see BROWSER_PINS.
UNPINNED = {"ipython", "jsonschema"}
# The Pyodide runtime files of the npm package that the site serves.
RUNTIME_FILES = [
    "pyodide.js",
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "package.json",
]
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
# Substrings that must not appear in what the kernel is told to load at run time.
EXTERNAL_MARKERS = ("cdn.jsdelivr", "pypi.org", "files.pythonhosted", "unpkg.com", "://")


def log(message: str) -> None:
    print(f"[lite] {message}", flush=True)


def run(cmd: list[str], cwd: Path | None = None) -> None:
    log(" ".join(str(part) for part in cmd))
    subprocess.run(cmd, check=True, cwd=cwd)


def venv_python(cache: Path) -> Path:
    return cache / "venv" / "bin" / "python"


def ensure_build_env(cache: Path) -> Path:
    """Create (once per set of pins) the build environment; returns its python."""
    python = venv_python(cache)
    stamp = cache / "venv" / ".pins.json"
    wanted = json.dumps(BUILD_PINS, sort_keys=True)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    shutil.rmtree(cache / "venv", ignore_errors=True)
    run([sys.executable, "-m", "venv", str(cache / "venv")])
    pins = [f"{name}=={version}" for name, version in BUILD_PINS.items()]
    run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins])
    stamp.write_text(wanted)
    return python


def kernel_pyodide_version() -> str:
    """The Pyodide version the installed kernel is built for (read from the kernel itself)."""
    from jupyterlite_pyodide_kernel import constants

    return str(constants.PYODIDE_VERSION)


def fetch_pyodide_runtime(cache: Path, version: str) -> Path:
    """The unpacked ``pyodide`` npm package at ``version`` (``npm pack``, cached)."""
    folder = cache / "npm" / f"pyodide-{version}"
    package = folder / "package"
    if (package / "pyodide-lock.json").is_file():
        return package
    folder.mkdir(parents=True, exist_ok=True)
    run(["npm", "pack", f"pyodide@{version}", "--silent"], cwd=folder)
    tarball = folder / f"pyodide-{version}.tgz"
    with tarfile.open(tarball) as archive:
        archive.extractall(folder, filter="data")
    tarball.unlink()
    return package


def build_own_wheel(cache: Path) -> Path:
    """This package as a wheel built from the checkout (hatchling, the project's backend)."""
    out = cache / "own-wheel"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"),
            *("--no-deps", "--wheel-dir", str(out), str(ROOT)),
        ]
    )
    (wheel,) = out.glob("applypatch_ext-*.whl")
    return wheel


def pure_wheel_constraints(npm_lock: dict[str, object], cache: Path) -> Path:
    """Pin every pure-Python package that Pyodide's own lock has to the version it has."""
    packages = npm_lock["packages"]
    assert isinstance(packages, dict)
    lines = [
        f"{entry['name']}=={entry['version']}"
        for entry in packages.values()
        if str(entry["file_name"]).endswith("-none-any.whl") and entry["name"] not in UNPINNED
    ]
    path = cache / "constraints.txt"
    path.write_text("\n".join(sorted(lines)) + "\n")
    return path


def download_wheels(cache: Path, own_wheel: Path, constraints: Path, python_version: str) -> Path:
    """Pure-Python wheels for the own wheel and what the kernel needs (pip's cache helps)."""
    wheels = cache / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    wheels.mkdir(parents=True)
    run(
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"),
            *("--dest", str(wheels), "--only-binary=:all:", "--implementation", "py"),
            *("--abi", "none", "--platform", "any", "--python-version", python_version),
            *("--constraint", str(constraints), *own_requirements(own_wheel), *KERNEL_NEEDS),
            *BROWSER_PINS,
        ]
    )
    run(
        [
            *(sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"),
            *("--dest", str(wheels), "--no-deps", str(own_wheel)),
        ]
    )
    return wheels


def own_requirements(own_wheel: Path) -> list[str]:
    """The package's own dependencies (no extras)."""
    from packaging.requirements import Requirement

    out = []
    for text in wheel_metadata(own_wheel).get_all("Requires-Dist") or []:
        requirement = Requirement(text)
        if requirement.marker is not None and "extra" in str(requirement.marker):
            continue
        out.append(str(requirement))
    return out


def wheel_metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.BytesParser().parsebytes(archive.read(name))


def wheel_imports(wheel: Path) -> list[str]:
    """The top-level import names a wheel installs."""
    names: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            top = member.split("/")[0]
            if top.endswith((".dist-info", ".data")):
                continue
            if "/" in member:
                names.add(top)
            elif top.endswith(".py"):
                names.add(top[:-3])
    return sorted(names)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def emscripten_environment(info: dict[str, str]) -> dict[str, str]:
    """The marker environment of Pyodide in a browser (what micropip evaluates there)."""
    python = info["python"]
    return {
        "implementation_name": "cpython",
        "implementation_version": python,
        "os_name": "posix",
        "platform_machine": "wasm32",
        "platform_python_implementation": "CPython",
        "platform_release": info["platform"].removeprefix("emscripten_").replace("_", "."),
        "platform_system": "Emscripten",
        "platform_version": "#1",
        "python_full_version": python,
        "python_version": ".".join(python.split(".")[:2]),
        "sys_platform": "emscripten",
    }


def select_closure(
    wheels: Path, own_wheel: Path, info: dict[str, str]
) -> dict[str, dict[str, Any]]:
    """The wheels actually needed in the browser, with their dependencies, by normalized name.

    ``pip download`` evaluates markers for this machine (so it brings ``pexpect`` for IPython);
    this walks the dependencies again with Pyodide's markers and keeps only what is reached.
    """
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name, parse_wheel_filename

    environment = emscripten_environment(info)
    available: dict[str, Path] = {}
    for wheel in sorted(wheels.glob("*.whl")):
        name, _version, _build, _tags = parse_wheel_filename(wheel.name)
        available[canonicalize_name(name)] = wheel
    selected: dict[str, dict[str, Any]] = {}
    todo = [canonicalize_name("applypatch_ext"), *(canonicalize_name(n) for n in KERNEL_NEEDS)]
    while todo:
        name = todo.pop()
        if name in selected or name in FRONT_END_ONLY:
            continue
        wheel = available[name]
        metadata = wheel_metadata(wheel)
        depends = []
        for text in metadata.get_all("Requires-Dist") or []:
            requirement = Requirement(text)
            env = {**environment, "extra": ""}
            if requirement.marker is not None and not requirement.marker.evaluate(env):
                continue
            dep = canonicalize_name(requirement.name)
            if dep in FRONT_END_ONLY:
                continue
            depends.append(dep)
            todo.append(dep)
        selected[name] = {
            "wheel": wheel,
            "name": name,
            "version": str(metadata["Version"]),
            "depends": sorted(set(depends)),
        }
    return selected


def empty_wheel(folder: Path, name: str, version: str) -> Path:
    """A distribution with metadata only (see ``UNAVAILABLE_MODULES``)."""
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    files = {
        f"{info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            f"Summary: Not available in this site: Pyodide's {name} module is built to "
            "WebAssembly and ships only in its full distribution tarball.\n"
        ),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: build_lite\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for member, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{member},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0)), text)
    return path


def assemble_distribution(
    cache: Path, runtime: Path, npm_lock: dict[str, Any], selected: dict[str, dict[str, Any]]
) -> Path:
    """``.cache/lite/dist/pyodide.tar.bz2``: the runtime, the wheels and a lock of exactly them."""
    dist = cache / "dist" / "pyodide"
    shutil.rmtree(dist, ignore_errors=True)
    dist.mkdir(parents=True)
    for name in RUNTIME_FILES:
        shutil.copy2(runtime / name, dist / name)
    packages: dict[str, dict[str, Any]] = {}
    for entry in selected.values():
        wheel = Path(shutil.copy2(entry["wheel"], dist / entry["wheel"].name))
        packages[entry["name"]] = {
            "name": entry["name"],
            "version": entry["version"],
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": sha256(wheel),
            "package_type": "package",
            "imports": wheel_imports(wheel),
            "depends": entry["depends"],
            "unvendored_tests": False,
        }
    for name, version in UNAVAILABLE_MODULES.items():
        wheel = empty_wheel(dist, name, version)
        packages[name] = {
            "name": name,
            "version": version,
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": sha256(wheel),
            "package_type": "package",
            "imports": [],
            "depends": [],
            "unvendored_tests": False,
        }
    lock = {"info": npm_lock["info"], "packages": dict(sorted(packages.items()))}
    (dist / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n")
    listed = {p["file_name"] for p in packages.values()}
    present = {p.name for p in dist.glob("*.whl")}
    assert listed == present, f"lock and folder differ: {sorted(listed ^ present)}"
    # The form `jupyter lite build --pyodide` takes a distribution in: a tarball of `pyodide/`.
    tarball = dist.parent / "pyodide.tar.bz2"
    with tarfile.open(tarball, "w:bz2", compresslevel=1) as archive:
        archive.add(dist, arcname="pyodide")
    return tarball


def write_lite_dir(cache: Path, own_name: str, own_wheel: Path) -> Path:
    """The site's configuration: the kernel loads from the site only; the site has the
    package's own labextension, from the wheel the kernel loads (the same files as a
    JupyterLab with the package installed)."""
    lite_dir = cache / "lite-dir"
    lite_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        # Pyodide loads this package (and, through the lock, everything it needs) at start.
        "loadPyodideOptions": {"packages": ["micropip", own_name]},
        # Only the site's own wheel index, never PyPI.
        "disablePyPIFallback": True,
    }
    config = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "applypatch_ext course",
            "litePluginSettings": {KERNEL_PLUGIN: settings},
            # No Jupyter Lab/Notebook news or update checks (they fetch from the web).
            "disabledExtensions": ["@jupyterlab/apputils-extension:announcements"],
        },
    }
    (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=2) + "\n")
    # Every cell in the page (the notebooks are short): a widget keeps its view while scrolled
    # away, and "run all" never waits on cells that were not drawn yet.
    overrides = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
    (lite_dir / "overrides.json").write_text(json.dumps(overrides, indent=2) + "\n")
    build_config = {
        "LiteBuildConfig": {"no_sourcemaps": True, "federated_extensions": [str(own_wheel)]}
    }
    (lite_dir / "jupyter_lite_config.json").write_text(json.dumps(build_config, indent=2) + "\n")
    return lite_dir


def copy_contents(cache: Path) -> Path:
    """The teaching set (tools/teaching.py): the tracked notebooks, cleared, and their data;
    nothing else of ``notebooks/`` (scratch notebooks, executed copies, checkpoints)."""
    contents = cache / "contents"
    shutil.rmtree(contents, ignore_errors=True)
    contents.mkdir(parents=True)
    copy_teaching_set(ROOT, contents, log=log)
    check_json_names(contents)
    return contents


# JupyterLite 0.6's contents service (``_getServerContents`` in ``@jupyterlite/contents``) reads
# a file whose path matches this as one JSON document (``JSON.parse``), whatever it holds; a
# file that is not one (JSON Lines, say) makes that read throw in the page, and the kernel's
# read of it through ``/drive`` never returns.
JUPYTERLITE_JSON_NAME = re.compile(r"\.(ipynb|[^/]*json[^/]*)$")


def check_json_names(contents: Path) -> None:
    """Fail when the site would ship a file JupyterLite parses as JSON and is not JSON."""
    problems = []
    for path in sorted(contents.rglob("*")):
        rel = path.relative_to(contents).as_posix()
        if not path.is_file() or not JUPYTERLITE_JSON_NAME.search(rel):
            continue
        try:
            json.loads(path.read_bytes())
        except ValueError as exc:
            problems.append(f"notebooks/{rel}: not one JSON document ({exc})")
    if problems:
        raise SystemExit(
            "JupyterLite reads every file whose suffix names JSON (.json, .jsonl, ...) as one "
            "JSON document, and a read of these would never return in the browser:\n  "
            + "\n  ".join(problems)
            + "\nname them with another suffix (notebooks/data/ uses .txt for JSON Lines)"
        )


def check_offline(output: Path) -> None:
    """Fail when the kernel is configured to load anything from outside the site."""
    problems = []
    for config_path in output.rglob("jupyter-lite.json"):
        config = json.loads(config_path.read_text())
        data = config.get("jupyter-config-data", {})
        kernel = data.get("litePluginSettings", {}).get(KERNEL_PLUGIN, {})
        urls = [kernel.get("pyodideUrl", ""), *kernel.get("pipliteUrls", [])]
        for url in urls:
            if any(marker in url for marker in EXTERNAL_MARKERS):
                problems.append(f"{config_path.relative_to(output)}: kernel loads {url}")
        if kernel and not kernel.get("disablePyPIFallback"):
            problems.append(f"{config_path.relative_to(output)}: PyPI fallback not disabled")
    lock = json.loads((output / "static" / "pyodide" / "pyodide-lock.json").read_text())
    for entry in lock["packages"].values():
        if "://" in entry["file_name"]:
            problems.append(f"pyodide-lock.json: {entry['name']} from {entry['file_name']}")
        elif not (output / "static" / "pyodide" / entry["file_name"]).is_file():
            problems.append(f"pyodide-lock.json: {entry['file_name']} missing from the site")
    if problems:
        raise SystemExit("the site would reach outside itself:\n  " + "\n  ".join(problems))


def folder_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build(cache: Path, output: Path) -> None:
    started = time.monotonic()
    version = kernel_pyodide_version()
    runtime = fetch_pyodide_runtime(cache, version)
    npm_lock = json.loads((runtime / "pyodide-lock.json").read_text())
    info = npm_lock["info"]
    log(f"Pyodide {version} (Python {info['python']}) for the kernel")
    own_wheel = build_own_wheel(cache)
    constraints = pure_wheel_constraints(npm_lock, cache)
    python_version = "".join(info["python"].split(".")[:2])
    wheels = download_wheels(cache, own_wheel, constraints, python_version)
    selected = select_closure(wheels, own_wheel, info)
    log("wheels: " + ", ".join(f"{e['name']} {e['version']}" for e in selected.values()))
    dist = assemble_distribution(cache, runtime, npm_lock, selected)
    lite_dir = write_lite_dir(cache, "applypatch-ext", own_wheel)
    contents = copy_contents(cache)
    # A clean site each time: doit's database would otherwise skip tasks whose output is gone.
    shutil.rmtree(output, ignore_errors=True)
    for database in lite_dir.glob(".jupyterlite.doit.db*"):
        database.unlink()
    jupyter = Path(sys.executable).parent / "jupyter"
    run(
        [
            *(str(jupyter), "lite", "build", "--lite-dir", str(lite_dir)),
            *("--output-dir", str(output), "--pyodide", str(dist), "--contents", str(contents)),
        ],
        cwd=lite_dir,
    )
    # The doit database of the build: not part of the site.
    for leftover in output.glob(".jupyterlite.doit.db*"):
        leftover.unlink()
    check_offline(output)
    size = folder_size(output)
    files = sum(1 for p in output.rglob("*") if p.is_file())
    seconds = time.monotonic() - started
    log(f"built {output} in {seconds:.0f} s: {size / 2**20:.1f} MiB, {files} files")


def hold_build_lock(cache: Path) -> None:
    """Wait until no other build uses ``cache``, then hold it until the build ends: two builds
    at once (two ``make lite``, or two test workers) remove each other's wheel and site. The
    lock's descriptor is inherited by the build environment's process (``execv``), so it is
    held there too, and released when that process exits."""
    fd = os.open(cache / "build.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log(f"waiting for another build that uses {cache}")
        fcntl.flock(fd, fcntl.LOCK_EX)
    os.set_inheritable(fd, True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "lite")
    parser.add_argument("--output", type=Path, default=ROOT / "build" / "lite")
    args = parser.parse_args()
    cache = args.cache.resolve()
    output = args.output.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    python = venv_python(cache)
    inside = Path(sys.prefix).resolve() == (cache / "venv").resolve()
    if not inside:
        hold_build_lock(cache)
        python = ensure_build_env(cache)
        script = [str(python), __file__, "--cache", str(cache), "--output", str(output)]
        os.execv(str(python), script)
    build(cache, output)


if __name__ == "__main__":
    main()
