"""The layers hold (docs/architecture.md, "Layers"): every module of the package stands on a
floor and imports from its own floor and the ones below only; no import circle anywhere; no
import inside a function but the listed lazy ones; the core imports only the standard library;
the command line loads nothing of the Jupyter layer; the package import stays light.

Imports are read from the source (ast), all of them: at module level, inside functions and
under ``TYPE_CHECKING``; a ``from . import name`` counts as an import of the submodule."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

import applypatch_ext

PACKAGE = Path(applypatch_ext.__file__).parent
CORE = PACKAGE / "core"
JUPYTER_MODULES = ("IPython", "ipywidgets", "anywidget", "traitlets", "comm", "ipykernel")
#: The floors of the core, lowest first: a module may import from its own floor and the ones below.
#: The modules directly in ``core/`` (errors, text, interrupts) are the ground of every floor.
FLOORS = ("", "parse", "apply", "turn", "agents")

#: The floors of the package: which floors each one may import from (its own included). The
#: core's own floors are checked by :func:`test_floors_import_downward_only`.
STANDS_ON: dict[str, set[str]] = {
    "core": {"core"},
    "ground": {"ground"},
    "notebooks": {"core", "notebooks"},
    "server": {"ground"},
    "headless": {"ground", "headless"},
    "desk": {"core", "ground", "notebooks", "desk"},
    "command line": {"core", "ground", "notebooks", "desk", "command line"},
    "exercises": {"core", "ground", "exercises"},
    "records": {"core", "ground", "notebooks", "server", "records"},
    "live": {"core", "ground", "notebooks", "server", "desk", "records", "live"},
    "magics": {
        "core",
        "ground",
        "exercises",
        "notebooks",
        "server",
        "desk",
        "records",
        "live",
        "magics",
    },
}
#: Where each module stands, by its dotted name (the longest prefix wins).
PLACES = {
    "applypatch_ext.core": "core",
    "applypatch_ext.notebooks": "notebooks",
    "applypatch_ext.live_views": "ground",
    "applypatch_ext.extras": "ground",
    "applypatch_ext.markup": "ground",
    "applypatch_ext.serverext": "server",
    "applypatch_ext.headless": "headless",
    "applypatch_ext.cli": "command line",
    "applypatch_ext.__main__": "command line",
    "applypatch_ext.replay_cli": "command line",
    "applypatch_ext.mcp_cli": "command line",
    "applypatch_ext.desk": "desk",
    "applypatch_ext.strip_cli": "command line",
    "applypatch_ext.exercises": "exercises",
    "applypatch_ext.jupyter.records": "records",
    "applypatch_ext.jupyter.live": "live",
    "applypatch_ext.jupyter.magics": "magics",
}
#: Faces: modules that only hand names on, from any floor below them, and that no module of the
#: package imports (the package's and the Jupyter layer's lazy exports, and the old paths that
#: README 0.1 and the teaching notebooks named).
FACES = {
    "applypatch_ext": "the public API, loaded on first use; load_ipython_extension",
    "applypatch_ext.jupyter": "the Jupyter layer's public names, loaded on first use",
    "applypatch_ext.headless": "the nbconvert preprocessor and the papermill engine, loaded on "
    "first use (each needs its tool)",
    "applypatch_ext.jupyter.notebooks": "the path README 0.1 named (notebook functions)",
    "applypatch_ext.jupyter.session": "the path the 0.1 teaching notebooks named (SESSION)",
}
#: The imports inside a function that are allowed: (module, what it imports) -> why.
LAZY = {
    (
        "applypatch_ext",
        "applypatch_ext.jupyter.magics",
    ): "load_ipython_extension: the magics import IPython; `import applypatch_ext` and the "
    "commands stay light",
    ("applypatch_ext.mcp_cli", "applypatch_ext.desk.stdio"): "the `mcp` extra: the command "
    "checks that it is installed first, and says which extra to install when it is not",
    ("applypatch_ext.jupyter.magics.desk", "applypatch_ext.desk.http"): "the `mcp` extra: "
    "`%apply_patch_mcp start` checks that it is installed first (a UsageError names the extra)",
    ("applypatch_ext.core.apply.journal", "fcntl"): "Pyodide has none, and the JupyterLite "
    "kernel puts an empty module of that name in sys.modules: the function is what counts",
    ("applypatch_ext.notebooks._read", "nbformat"): "the JupyterLite site may lack it: the "
    "notebook check is then structural",
    ("applypatch_ext", "importlib.metadata"): "__version__, read from the installed metadata on "
    "first use: `import applypatch_ext` stays light",
}


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (packages by their ``__init__``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def core_modules() -> dict[str, Path]:
    return {
        name: path for name, path in modules().items() if name.startswith("applypatch_ext.core")
    }


def _imports(name: str, path: Path) -> Iterator[tuple[str, bool]]:
    """``(absolute name, inside a function)`` per name a module imports (relative imports
    resolved; ``from . import x`` gives the submodule ``x`` when it is one)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(function)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in inner
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                yield node.module or "", id(node) in inner
                continue
            base = package.split(".")
            base = base[: len(base) - (node.level - 1)]
            module = ".".join([*base, node.module] if node.module else base)
            submodules = [
                f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in modules()
            ]
            if not submodules:
                yield module, id(node) in inner
            for submodule in submodules:
                yield submodule, id(node) in inner


def imported_names(name: str, path: Path) -> list[str]:
    """The absolute names a module imports."""
    return [imported for imported, _inner in _imports(name, path)]


def _own(imported: str) -> str | None:
    """The module of the package that ``imported`` names, or None for another package."""
    while imported and imported not in modules():
        imported = imported.rpartition(".")[0]
    return imported or None


@cache
def arrows() -> dict[str, set[str]]:
    """Per module, the modules of the package it imports (every import counted)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules().items():
        targets = {_own(imported) for imported in imported_names(name, path)}
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def place_of(module: str) -> str | None:
    prefixes = [p for p in PLACES if module == p or module.startswith(p + ".")]
    return PLACES[max(prefixes, key=len)] if prefixes else None


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def floor_of(module: str) -> int:
    """The floor of a core module: 0 for the shared ground, then parse, apply, turn, agents."""
    parts = module.split(".")
    sub = parts[2] if len(parts) > 3 or (len(parts) == 3 and parts[2] in FLOORS) else ""
    return FLOORS.index(sub)


def _loaded_after(code: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(proc.stdout.split())


# -- the whole package ------------------------------------------------------------------------


def test_every_module_stands_on_a_floor() -> None:
    unplaced = [name for name in modules() if name not in FACES and place_of(name) is None]
    assert not unplaced, f"give these a floor (PLACES, docs/architecture.md): {unplaced}"
    assert {place_of(name) for name in modules() if name not in FACES} == set(STANDS_ON)


def test_no_module_imports_from_a_floor_above() -> None:
    upward = [
        f"{name} ({place_of(name)}) imports {target} ({place_of(target) or 'a face'})"
        for name, targets in arrows().items()
        if name not in FACES
        for target in sorted(targets)
        if target in FACES or place_of(target) not in STANDS_ON[str(place_of(name))]
    ]
    assert not upward, "imports point downward only: " + "; ".join(upward)


def test_faces_are_imported_by_no_module() -> None:
    inward = [
        f"{name} imports {target}"
        for name, targets in arrows().items()
        for target in targets
        if target in FACES and not name.startswith(target + ".")
    ]
    assert not inward, inward


def test_no_import_circle_in_the_package() -> None:
    assert circles(arrows()) == []


def test_circles_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


def test_imports_inside_functions_are_the_listed_lazy_ones() -> None:
    inner = {
        (name, imported)
        for name, path in modules().items()
        for imported, inside in _imports(name, path)
        if inside
    }
    unlisted = sorted(
        (name, imported)
        for name, imported in inner
        if not any(
            name == module and (imported == lazy or imported.startswith(lazy + "."))
            for module, lazy in LAZY
        )
    )
    assert not unlisted, f"import at module level, or list it in LAZY with its reason: {unlisted}"
    unused = [
        key for key in LAZY if not any(n == key[0] and i.startswith(key[1]) for n, i in inner)
    ]
    assert not unused, f"listed but gone: {unused}"


def test_the_architecture_lists_the_lazy_imports() -> None:
    """docs/architecture.md names each lazy import of :data:`LAZY` (module and what it
    imports, in one item of its list), and no other."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index("no import inside a function but")
    listed = text[start : text.index("\n\n", text.index("\n- ", start) + 1)]
    items = re.split(r"^- ", listed, flags=re.MULTILINE)[1:]
    named = [re.match(r"`([\w.]+)` imports `([\w.]+)`", item) for item in items]
    assert all(named), [item for item, m in zip(items, named, strict=True) if not m]
    assert sorted(m.groups() for m in named if m) == sorted(LAZY)


def test_only_the_jupyter_layer_imports_jupyter_modules() -> None:
    outside = [
        (name, imported)
        for name, path in modules().items()
        if not name.startswith("applypatch_ext.jupyter") and name != "applypatch_ext"
        for imported in imported_names(name, path)
        if imported.split(".")[0] in JUPYTER_MODULES
    ]
    assert not outside, outside


@pytest.mark.parametrize("command", ["turn", "replay", "recover", "strip"])
def test_the_command_line_loads_no_jupyter_module(command: str) -> None:
    """``python -m applypatch_ext turn --help`` (and replay, recover) runs with nothing of
    ``applypatch_ext.jupyter`` and no IPython, ipywidgets, anywidget or traitlets loaded."""
    code = (
        "import contextlib, io, runpy, sys\n"
        f"sys.argv = ['applypatch_ext', {command!r}, '--help']\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        runpy.run_module('applypatch_ext', run_name='__main__', alter_sys=True)\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code == 0, exc.code\n"
    )
    loaded = _loaded_after(code)
    assert {"applypatch_ext.replay_cli", "applypatch_ext.notebooks"} <= loaded
    assert not {m for m in loaded if m.startswith("applypatch_ext.jupyter")}
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}


def test_the_old_documented_paths_still_import() -> None:
    """README 0.1 named ``applypatch_ext.jupyter.notebooks``, the 0.1 teaching notebooks
    ``applypatch_ext.jupyter.session``: they hand on the same objects."""
    from applypatch_ext import notebooks
    from applypatch_ext.jupyter import SESSION
    from applypatch_ext.jupyter import notebooks as old_notebooks
    from applypatch_ext.jupyter.records import notebooks as views
    from applypatch_ext.jupyter.session import SESSION as OLD_SESSION

    assert OLD_SESSION is SESSION
    assert old_notebooks.with_notebook_check is notebooks.with_notebook_check
    assert old_notebooks.render_notebook_diff_html is views.render_notebook_diff_html
    assert set(notebooks.__all__) < set(old_notebooks.__all__)


# -- the one list of modules, and their sizes -------------------------------------------------

ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
#: Where a floor's modules are, as the table of docs/architecture.md names the floor.
TABLE_PACKAGES = {
    "core": "applypatch_ext.core",
    "parse": "applypatch_ext.core.parse",
    "apply": "applypatch_ext.core.apply",
    "turn": "applypatch_ext.core.turn",
    "agents": "applypatch_ext.core.agents",
    "notebooks": "applypatch_ext.notebooks",
    "command line": "applypatch_ext",
    "desk": "applypatch_ext.desk",
    "server": "applypatch_ext",
    "ground": "applypatch_ext",
    "headless": "applypatch_ext.headless",
    "exercises": "applypatch_ext.exercises",
    "records": "applypatch_ext.jupyter.records",
    "live": "applypatch_ext.jupyter.live",
    "magics": "applypatch_ext.jupyter.magics",
    "face": "applypatch_ext",
}


#: Modules over 500 lines, or functions over 80, each with its reason.
SIZE_EXCEPTIONS = {
    "applypatch_ext.core.apply.diff": "the similar crate's algorithm, kept whole so that it reads "
    "next to the crate",
    "applypatch_ext.jupyter.records.static_diff": "the Python side of docs/diff-model.md's "
    "contract (rows, words, folds, bar, named as js/src/diff-model.js names them) and the "
    "record's HTML drawn from those rows: read as one, from the contract to the saved view",
    "applypatch_ext.jupyter.records.static_diff:file_html": "one walk over a file's rows and "
    "folds that spends the byte budget and counts what it cuts as it goes: its parts share "
    "that running count",
    "applypatch_ext.core.turn.call": "one state machine (ApplyPatchCall): its stages, its approval "
    "loop and its attempts share the call's progress",
    "applypatch_ext.core.turn.stages": "one function per stage in the pipeline's order, and the "
    "records they hand on",
    "applypatch_ext.core.turn.options": "the one option table: every option of the magic, turn "
    "and PipelineOptions, in one place",
    "applypatch_ext.core.turn.turn_diff": "TurnDiffTracker, one class (§8)",
}
MODULE_LINES = 500
FUNCTION_LINES = 80


def listed_modules() -> dict[str, str]:
    """The modules the table of docs/architecture.md lists, by dotted name, with their floor."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    start = text.index("| floor | module | job |", text.index("Every module and its one job"))
    table = text[start : text.index("\n\n", start)]
    listed = {}
    for floor, names in re.findall(r"^\| ([a-z ]+) \| (`[^|]+`) \|", table, re.MULTILINE):
        package = TABLE_PACKAGES[floor]
        for short in re.findall(r"`([\w.]+)`", names):
            listed[short if short == package else f"{package}.{short}"] = floor
    return listed


def test_the_architecture_table_lists_every_module() -> None:
    """docs/architecture.md's table is the one list of the modules (README and CONTRIBUTING
    link to it): none missing, none that is gone, each on the floor it stands on."""
    listed = listed_modules()
    packages = {name for name, path in modules().items() if path.name == "__init__.py"}
    present = {name for name in modules() if name not in packages or name in FACES}
    assert sorted(present - set(listed)) == [], "add these to docs/architecture.md's table"
    assert sorted(set(listed) - present) == [], "gone, yet listed in docs/architecture.md"
    misplaced = [
        (name, floor)
        for name, floor in listed.items()
        if floor not in ("face", "parse", "apply", "turn", "agents", "core")
        and place_of(name) != floor
    ]
    assert not misplaced, misplaced


def _sizes() -> Iterator[tuple[str, int]]:
    for name, path in modules().items():
        text = path.read_text(encoding="utf-8")
        yield name, text.count("\n")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                yield f"{name}:{node.name}", node.end_lineno - node.lineno + 1


def test_no_module_over_500_lines_nor_function_over_80_unless_listed() -> None:
    over = sorted(
        f"{name} ({size} lines)"
        for name, size in _sizes()
        if size > (FUNCTION_LINES if ":" in name else MODULE_LINES) and name not in SIZE_EXCEPTIONS
    )
    assert not over, f"split these, or list each in SIZE_EXCEPTIONS with its reason: {over}"
    sizes = dict(_sizes())
    stale = [
        name
        for name in SIZE_EXCEPTIONS
        if sizes.get(name, 0) <= (FUNCTION_LINES if ":" in name else MODULE_LINES)
    ]
    assert not stale, f"within the rule now (or gone): take them off SIZE_EXCEPTIONS: {stale}"


# -- the core ---------------------------------------------------------------------------------


def test_core_loads_no_jupyter_module() -> None:
    loaded = _loaded_after("\n".join(f"import {m}" for m in core_modules()))
    assert "applypatch_ext.core.agents.rollout" in loaded  # the sub-packages were imported too
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}
    assert not {m for m in loaded if m.startswith("applypatch_ext.jupyter")}


def test_core_imports_only_the_standard_library() -> None:
    core = core_modules()
    assert {"applypatch_ext.core.parse.parser", "applypatch_ext.core.agents.replay"} <= set(core)
    outside = [
        (name, imported)
        for name, path in core.items()
        for imported in imported_names(name, path)
        if not imported.startswith("applypatch_ext.core")
        and imported.split(".")[0] not in sys.stdlib_module_names
        and imported != "__future__"
    ]
    assert not outside, f"the core imports only the standard library and itself: {outside}"


def test_floors_import_downward_only() -> None:
    upward = [
        f"{name} ({FLOORS[floor_of(name)] or 'core'}) imports {imported}"
        f" ({FLOORS[floor_of(imported)] or 'core'})"
        for name, path in core_modules().items()
        for imported in imported_names(name, path)
        if imported.startswith("applypatch_ext.core.") and floor_of(imported) > floor_of(name)
    ]
    assert not upward, "parse <- apply <- turn <- agents: " + "; ".join(upward)


@pytest.mark.parametrize(
    ("module", "floor"),
    [
        ("applypatch_ext.core.errors", 0),
        ("applypatch_ext.core.interrupts", 0),
        ("applypatch_ext.core.parse", 1),
        ("applypatch_ext.core.parse.streaming", 1),
        ("applypatch_ext.core.apply.verify", 2),
        ("applypatch_ext.core.turn.turn", 3),
        ("applypatch_ext.core.agents.replay", 4),
    ],
)
def test_floor_of_names_the_floor(module: str, floor: int) -> None:
    assert floor_of(module) == floor


@pytest.mark.parametrize(
    ("module", "place"),
    [
        ("applypatch_ext.core.turn.call", "core"),
        ("applypatch_ext.notebooks.diff", "notebooks"),
        ("applypatch_ext.__main__", "command line"),
        ("applypatch_ext.markup", "ground"),
        ("applypatch_ext.jupyter.records.display", "records"),
        ("applypatch_ext.jupyter.live.view", "live"),
        ("applypatch_ext.jupyter.magics.magic", "magics"),
        ("applypatch_ext.jupyter", None),
    ],
)
def test_place_of_names_the_floor(module: str, place: str | None) -> None:
    assert place_of(module) == place


def test_imported_names_resolve_relative_imports() -> None:
    verify = "applypatch_ext.core.apply.verify"
    names = imported_names(verify, modules()[verify])
    assert "applypatch_ext.core.errors" in names  # from ..errors import ...
    assert "applypatch_ext.core.parse.model" in names  # from ..parse.model import ...
    assert "applypatch_ext.core.apply.fs" in names  # from .fs import ...
    call = "applypatch_ext.core.turn.call"
    assert "applypatch_ext.core.turn.stages" in imported_names(
        call, modules()[call]
    )  # from . import


def test_package_import_is_lazy() -> None:
    loaded = _loaded_after("import applypatch_ext")
    assert "applypatch_ext.core.apply.runtime" not in loaded
    assert not {m for m in loaded if m.split(".")[0] in JUPYTER_MODULES}


def test_public_names_resolve() -> None:
    for name in applypatch_ext.__all__:
        assert getattr(applypatch_ext, name) is not None


def test_the_public_face_holds_what_the_docs_import() -> None:
    """Every name README, docs/ and the teaching notebooks import from ``applypatch_ext`` is in
    its ``__all__``, which holds no more than a user imports (the engine's parts are imported
    from their modules)."""
    root = PACKAGE.parent
    texts = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    texts += sorted((root / "notebooks").glob("*.ipynb"))
    imported = set()
    for path in texts:
        for names in re.findall(r"from applypatch_ext import \(?([\w, ]+)", path.read_text()):
            imported |= {n.strip() for n in names.split(",") if n.strip()}
    assert imported, "the docs import nothing from applypatch_ext?"
    assert sorted(imported - set(applypatch_ext.__all__)) == []
    assert len(applypatch_ext.__all__) <= 40, "the face lists what a user imports, not the engine"
