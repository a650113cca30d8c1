"""The parser's user-visible texts, written out from docs/behaviour.md §1.7 (not imported from the
code, so that a changed message in the code fails the tests)."""

from __future__ import annotations

BEGIN = "*** Begin Patch"
END = "*** End Patch"

FIRST_LINE = "The first line of the patch must be '*** Begin Patch'"
LAST_LINE = "The last line of the patch must be '*** End Patch'"
EMPTY_ENV = "apply_patch environment_id cannot be empty"
DUPLICATE_ENV = "apply_patch environment_id cannot be specified more than once"
NO_LINES = "Update hunk does not contain any lines"


def patch(*body: str) -> str:
    """A canonical patch: Begin, the body lines, End, joined with LF, no final newline."""
    return "\n".join([BEGIN, *body, END])


def not_a_header(line: str) -> str:
    return (
        f"'{line}' is not a valid hunk header. Valid hunk headers: "
        "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
    )


def empty_update(path: str) -> str:
    return f"Update file hunk for path '{path}' is empty"


def unexpected(line: str) -> str:
    return (
        f"Unexpected line found in update hunk: '{line}'. Every line should start with "
        "' ' (context line), '+' (added line), or '-' (removed line)"
    )


def expected_marker(line: str) -> str:
    return f"Expected update hunk to start with a @@ context marker, got: '{line}'"
