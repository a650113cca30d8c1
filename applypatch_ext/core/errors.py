"""The errors of the core, named as in Codex's ``ApplyPatchError`` and ``ParseError``.

Every error's ``str()`` is the user-visible text the reference prints, byte for byte. Only the
Jupyter layer turns these into ``UsageError``; the core never prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class ErrorReason(StrEnum):
    """Which rule an error stands for, beside its text (which is the reference's, byte for
    byte): what the failure atlas maps a kind from, never the text."""

    # the patch text (parse errors)
    FIRST_LINE = "first_line"
    LAST_LINE = "last_line"
    ENVIRONMENT = "environment"  # an empty or repeated environment id
    INVALID_HUNK_HEADER = "invalid_hunk_header"
    UNEXPECTED_LINE = "unexpected_line"  # a line of an Update that is no diff line
    EXPECTED_CONTEXT_MARKER = "expected_context_marker"  # a line after a chunk that is no `@@`
    EMPTY_CHUNK = "empty_chunk"
    EMPTY_UPDATE = "empty_update"  # an Update hunk without any chunk
    # a file step (IoError)
    READ = "read"  # reading the file to update or delete
    NOT_A_FILE = "not_a_file"  # the file to update is a directory or another non-file
    DELETE = "delete"  # deleting the file of a Delete hunk
    WRITE = "write"  # writing, creating or removing any other file or folder


class ApplyPatchError(Exception):
    """Base of every error raised by :mod:`applypatch_ext.core`.

    ``hunk`` is the 0-based index of the hunk that failed, when a verification or an
    application says which (None otherwise): where a diagnosis looks in the patch."""

    hunk: int | None = None

    def __init__(self, message: str, reason: ErrorReason | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: the rule the error stands for (None: the class says it all)
        self.reason = reason

    def __str__(self) -> str:
        return self.message


class ParseError(ApplyPatchError, ValueError):
    """The patch text does not follow the grammar. Also a ``ValueError``."""

    #: 1-based line of the canonical patch text, or None for whole-patch errors.
    line_number: int | None = None

    @property
    def cli_text(self) -> str:
        """The line the standalone tool prints on stderr."""
        return f"Invalid patch: {self.message}"


class InvalidPatchError(ParseError):
    """A whole-patch error: ``invalid patch: <msg>``."""

    def __str__(self) -> str:
        return f"invalid patch: {self.message}"


class DuplicatePathError(InvalidPatchError):
    """Two hunks act on one resolved path (verification, docs/behaviour.md §5.2)."""


class MoveOntoItselfError(InvalidPatchError):
    """An Update moves its file onto itself, which applying would delete (verification)."""


class InvalidHunkError(ParseError):
    """An error at one line: ``invalid hunk at line <n>, <msg>``."""

    def __init__(self, message: str, line_number: int, reason: ErrorReason | None = None) -> None:
        super().__init__(message, reason)
        self.line_number = line_number

    def __str__(self) -> str:
        return f"invalid hunk at line {self.line_number}, {self.message}"

    @property
    def cli_text(self) -> str:
        return f"Invalid patch hunk on line {self.line_number}: {self.message}"


class InvalidPathError(ApplyPatchError):
    """A hunk path the platform cannot represent (a NUL byte): the reference's text."""

    def __init__(self, path: str) -> None:
        super().__init__(f"'{path}' is invalid on 'linux'")
        self.path = path


class IoError(ApplyPatchError):
    """A filesystem step failed; the text is the context (plus the OS reason for reads), the
    ``reason`` which step it was (:data:`ErrorReason.WRITE` unless said)."""

    def __init__(
        self,
        message: str,
        cause: BaseException | None = None,
        reason: ErrorReason = ErrorReason.WRITE,
    ) -> None:
        super().__init__(message, reason)
        self.cause = cause


@dataclass(frozen=True)
class MatchFailure:
    """Why a chunk did not match: what was searched for, in which file, from where.

    Carried by :class:`ComputeReplacementsError` so that a front end can explain the failure
    (the closest region of the file) without parsing the message, and without reading the file
    again: ``file_lines`` are the lines the search saw (the caller's list, not a copy, so that a
    failure costs nothing; the search is over when this is built, so nobody changes them).
    """

    path: str
    kind: str  # "context" or "lines"
    expected: tuple[str, ...]
    start: int
    is_end_of_file: bool
    file_lines: Sequence[str] = field(repr=False, compare=False, default=())
    #: the 0-based index of the chunk in its hunk (None: not said)
    chunk: int | None = None


class ComputeReplacementsError(ApplyPatchError):
    """A chunk's context or lines were not found (``Failed to find ...``)."""

    def __init__(self, message: str, failure: MatchFailure | None = None) -> None:
        super().__init__(message)
        self.failure = failure


class CancelledError(ApplyPatchError):
    """The call was cancelled between two filesystem operations; what was written stays."""

    def __init__(self, message: str = "apply_patch was cancelled") -> None:
        super().__init__(message)
