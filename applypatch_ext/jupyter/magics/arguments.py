"""The magics' options, from the one option table (:mod:`applypatch_ext.core.turn.options`):
the decorators that give a magic its options, and the parser whose errors are
``UsageError``\\s naming the option and what is valid. ``%%apply_patch``, ``%apply_patch FILE``,
``%apply_patch_replay`` and the undo magics all take theirs from here; the call magics' own
option (``--exercise``, for a teaching notebook's answer cell) is here too, not in the table.
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import Any, Final

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, argument_group

from ...core.turn.options import (
    CALL_GROUP,
    CHOICE_ERROR,
    FrontEnd,
    Option,
    OptionKind,
    argument_groups,
)

#: ``%%apply_patch --exercise ID`` (and ``%apply_patch FILE --exercise ID``): the magic's own
#: option, no other front end has it; it feeds no pipeline option (the magic checks the cell).
EXERCISE: Final = Option(
    "--exercise",
    OptionKind.VALUE,
    "Check the cell as the answer to the write-a-patch exercise ID (applypatch_ext."
    "exercises): the patch runs on the exercise's files in memory, the result is compared "
    "with its target, and the feedback is shown; nothing runs in the working directory, "
    "and no other option applies.",
    CALL_GROUP,
    frozenset((FrontEnd.MAGIC,)),
    metavar="ID",
)
#: The options the call magics have beside the table's.
CALL_MAGIC_OWN: Final = (EXERCISE,)


def table_arguments(front_end: FrontEnd, own: tuple[Option, ...] = ()) -> Any:
    """A decorator giving a magic the options of ``front_end`` from the option table, and its
    ``own`` options, in their argument groups; it goes below the magic's positional arguments
    (magic_arguments applies its decorators in reverse, so they are added here last group
    first, last option first)."""

    def decorate(func: Any) -> Any:
        for title, entries in reversed(argument_groups(front_end, own=own)):
            for name, options in reversed(entries):
                argument(name, **options)(func)
            argument_group(title)(func)
        return func

    return decorate


def _table_option(name: str) -> tuple[str, dict[str, Any]]:
    """The call option ``name`` as the call magic has it (the one option table)."""
    for _title, entries in argument_groups(FrontEnd.MAGIC):
        for option, kwargs in entries:
            if option == name:
                return option, kwargs
    raise KeyError(name)


def undo_arguments(func: Any) -> Any:
    """The call options an undo magic takes too: ``--approve`` and ``--no-widget``."""
    for name in reversed(("--approve", "--no-widget")):
        option, kwargs = _table_option(name)
        argument(option, **kwargs)(func)
    return func


def cwd_option(given: str | None) -> str:
    """The directory ``--cwd`` names (``~`` expanded, relative to the current one), resolved;
    the current directory without it; ``UsageError`` when there is no such directory."""
    if given is None:
        return os.getcwd()
    path = Path(os.path.expanduser(given))
    if not path.is_absolute():
        path = Path(os.getcwd()) / path
    if not path.is_dir():
        raise UsageError(f"--cwd: no such directory: {path}")
    return str(path.resolve())


def parse_options(magic: Any, name: str, line: str) -> Any:
    """The magic's options, or ``UsageError`` naming the option and what is valid.

    The line is split as a POSIX shell splits it (``shlex``): a quoted value loses its quotes,
    ``--reason "too risky"`` is ``too risky`` and ``--cwd '/a b'`` is ``/a b``, for every
    option alike. (IPython's own splitter, in ``parse_argstring``, keeps the quotes.)"""
    magic.parser.exit_on_error = False  # an ArgumentError reaches us with the option's name
    try:
        return magic.parser.parse_args(shlex.split(line))
    except argparse.ArgumentError as exc:
        if exc.argument_name and exc.message.startswith(CHOICE_ERROR):
            raise UsageError(f"{exc.argument_name} {exc.message}") from None
        raise UsageError(str(exc)) from None
    except ValueError as exc:  # shlex, for an unclosed quote
        raise UsageError(
            f"{name}: cannot split the options {line!r}: {exc}; close every quote, or quote a "
            "value that contains spaces with a matching pair of quotes"
        ) from None
