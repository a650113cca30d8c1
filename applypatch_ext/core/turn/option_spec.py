"""The record of one front-end option and how argparse takes it (the table itself, one record
per option, is ``OPTIONS`` in :mod:`.options`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class FrontEnd(StrEnum):
    """The front ends whose parsers the option table builds."""

    #: ``%%apply_patch`` and ``%apply_patch FILE``
    MAGIC = "magic"
    #: ``python -m applypatch_ext turn``
    TURN = "turn"
    #: ``python -m applypatch_ext replay``
    REPLAY = "replay"
    #: ``%apply_patch_replay``
    REPLAY_MAGIC = "replay-magic"
    #: ``python -m applypatch_ext mcp``: the agent's desk over stdio
    DESK = "mcp"
    #: ``%apply_patch_mcp start``: the agent's desk in the kernel
    DESK_MAGIC = "mcp-magic"


class OptionKind(StrEnum):
    """How an option takes its value."""

    FLAG = "flag"
    VALUE = "value"
    APPEND = "append"
    INT = "int"
    FLOAT = "float"


@dataclass(frozen=True)
class Option:
    """One option of the front ends: its parsing, its default, its help, where it appears.

    ``front_ends`` says which front ends have it; an option in one only (``--no-widget``,
    ``--environment``) makes sense there only. ``field`` is the keyword of
    :meth:`PipelineOptions.from_strings` it feeds (None: the front end uses it itself).
    ``defaults`` overrides ``default`` for some front ends, ``helps`` the help (a help names
    only options its front end has); ``default_text`` is what the help says of a None default;
    ``item_type`` converts each value of an append option.
    """

    name: str
    kind: OptionKind
    help: str
    group: str
    front_ends: frozenset[FrontEnd]
    default: Any = None
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    field: str | None = None
    defaults: tuple[tuple[FrontEnd, Any], ...] = ()
    helps: tuple[tuple[FrontEnd, str], ...] = ()
    default_text: str | None = None
    item_type: Callable[[str], Any] | None = None

    @property
    def dest(self) -> str:
        return self.name.lstrip("-").replace("-", "_")

    def default_for(self, front_end: FrontEnd) -> Any:
        return dict(self.defaults).get(front_end, self.default)

    def help_for(self, front_end: FrontEnd) -> str:
        """The help text with the front end's default (``%`` escaped for argparse)."""
        default = self.default_for(front_end)
        shown = self.default_text if default is None else str(default)
        text = dict(self.helps).get(front_end, self.help)
        if self.kind not in (OptionKind.FLAG, OptionKind.APPEND) and shown is not None:
            text += f" (default: {shown})"
        return text.replace("%", "%%")

    def argparse_kwargs(self, front_end: FrontEnd) -> dict[str, Any]:
        """The keywords of ``add_argument`` (argparse's and IPython's magic_arguments')."""
        kwargs: dict[str, Any] = {"help": self.help_for(front_end)}
        if self.kind is OptionKind.FLAG:
            return {**kwargs, "action": "store_true"}
        kwargs["default"] = self.default_for(front_end)
        if self.metavar is not None:
            kwargs["metavar"] = self.metavar
        if self.kind is OptionKind.APPEND:
            kwargs["action"] = "append"
            if self.item_type is not None:
                kwargs["type"] = self.item_type
        elif self.kind is OptionKind.INT:
            kwargs["type"] = int
        elif self.kind is OptionKind.FLOAT:
            kwargs["type"] = float
        if self.choices:
            kwargs["choices"] = _Choices(self.choices)
            kwargs["type"] = _choice(kwargs["choices"])
        return kwargs


#: What an argparse choice error says after the option's name (the magics print the name first).
CHOICE_ERROR: Final = "must be one of"


class _Choices(tuple[str, ...]):
    """The valid values of an option (what its help lists). A value holding a NUL byte is let
    through: the magics refuse it next, saying so, rather than as one more invalid choice (argv
    cannot hold one)."""

    def __contains__(self, value: object) -> bool:
        return (isinstance(value, str) and "\0" in value) or super().__contains__(value)


def _choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    """A converter refusing a value outside ``choices`` with a message listing the valid ones."""

    def convert(text: str) -> str:
        if text in choices:
            return text
        raise argparse.ArgumentTypeError(f"{CHOICE_ERROR} {', '.join(choices)}, got {text!r}")

    return convert
