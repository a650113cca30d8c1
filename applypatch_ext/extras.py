"""The optional parts of the package and the extra that brings each: one table, and the error a
missing one gives.

The base install is the library, the commands, the magic and the widget. A module that needs
more imports it at its top inside ``try``, and turns the ``ModuleNotFoundError`` into
:func:`missing_extra`'s, which names what is missing, the extra to install and the command.
Standard library only.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Extra:
    """An extra of the distribution: its name, what needs it, and the modules it brings."""

    name: str
    #: what a user meets that needs it, as the error names it
    needed_by: str
    #: the top-level import names it provides
    modules: tuple[str, ...]
    #: the distribution that provides them, as pip names it
    distribution: str


#: Every optional import of the package (``tests/test_packaging.py`` holds the package to it).
EXTRAS: Final = {
    "agents": Extra(
        "agents", "PipelineEditor (the Agents SDK editor)", ("agents",), "openai-agents"
    ),
    "nbconvert": Extra(
        "nbconvert", "the ClearLiveViews nbconvert preprocessor", ("nbconvert",), "nbconvert"
    ),
    "papermill": Extra(
        "papermill", "the applypatch_ext papermill engine", ("papermill",), "papermill"
    ),
    # the Model Context Protocol SDK and what the desk imports of what it brings
    "mcp": Extra(
        "mcp",
        "the agent's desk (%apply_patch_mcp, python -m applypatch_ext mcp)",
        ("mcp", "mcp_types", "anyio", "uvicorn", "starlette"),
        "mcp",
    ),
}


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def _message(spec: Extra, top: str) -> str:
    return (
        f"{spec.needed_by} needs {spec.distribution}, which is not installed (No module named "
        f"{top!r}). It comes with the `{spec.name}` extra: "
        f"pip install 'applypatch_ext[{spec.name}]'"
    )


def require_extra(extra: str) -> None:
    """Raise :class:`MissingExtraError` naming ``extra`` when one of its modules cannot be found,
    before anything is imported (for a front end that imports the extra's modules later)."""
    spec = EXTRAS[extra]
    for top in spec.modules:
        if importlib.util.find_spec(top) is None:
            raise MissingExtraError(_message(spec, top), name=top)


def missing_extra(exc: ModuleNotFoundError, extra: str) -> ModuleNotFoundError:
    """The error to raise for ``exc`` in a module that needs ``extra``: a
    :class:`MissingExtraError` naming the extra when ``exc`` is about one of its modules, else
    ``exc`` itself (a broken install of the extra is not a missing extra)."""
    spec = EXTRAS[extra]
    top = (exc.name or "").split(".")[0]
    if top not in spec.modules:
        return exc
    return MissingExtraError(_message(spec, top), name=exc.name)
