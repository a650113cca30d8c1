"""The drop-in ``apply_patch`` tool as a function: parse, then apply, no verification.

Behaves like the reference executable (docs/behaviour.md section 5): no confinement, a failing
hunk leaves the earlier ones applied, stdout and stderr carry the reference's texts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import ApplyPatchError, ParseError
from ..parse.model import Hunk, ParsedPatch
from ..parse.parser import parse_patch
from ..text import LineEndings
from .changes import AppliedPatchDelta
from .fs import Filesystem, LocalFilesystem
from .runtime import NOT_UTF8_PATCH, apply_hunks


@dataclass(frozen=True)
class ApplyPatchResult:
    """The standalone tool's result: exit code, stdout, stderr, and what was committed."""

    exit_code: int
    stdout: str
    stderr: str
    delta: AppliedPatchDelta = field(default_factory=AppliedPatchDelta)
    hunks: tuple[Hunk, ...] = ()
    parsed: ParsedPatch | None = None
    error: ApplyPatchError | None = None

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def apply_patch(
    patch: str,
    cwd: str | os.PathLike[str] = ".",
    *,
    line_endings: LineEndings | str = LineEndings.PRESERVE,
    filesystem: Filesystem | None = None,
) -> ApplyPatchResult:
    """Do what the standalone ``apply_patch`` tool does: parse leniently, then apply.

    There is no verification step, so two hunks on one path both run, in order, and a failing
    hunk leaves the earlier ones applied. A bad patch is a result with exit code 1, never an
    exception; only a misuse of this function (a bad ``line_endings`` value) raises.
    """
    mode = LineEndings(line_endings)
    fs = filesystem if filesystem is not None else LocalFilesystem()
    cwd_abs = os.path.abspath(os.fspath(cwd))
    try:
        if not patch.isascii():  # O(1); an ASCII text cannot hold a surrogate
            patch.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, e.g. a non-UTF-8 argument decoded by the OS
        return ApplyPatchResult(1, "", NOT_UTF8_PATCH + "\n")
    try:
        parsed = parse_patch(patch)
    except ParseError as exc:
        return ApplyPatchResult(1, "", exc.cli_text + "\n", error=exc)
    result = apply_hunks(parsed.hunks, cwd_abs, fs, mode)
    if result.error is not None:
        return ApplyPatchResult(
            1, "", f"{result.error}\n", result.delta, parsed.hunks, parsed, result.error
        )
    return ApplyPatchResult(
        0, result.affected.summary(), "", result.delta, parsed.hunks, parsed, None
    )
