"""The exercises of the teaching notebooks: every one by id, which notebook shows it, and the
content of the *write* and *diagnose* ones (the *review* traps are in :mod:`.traps`).

Content only: a write exercise's target is compared whole (:mod:`.write`), a diagnose
exercise's answer is the real call's diagnosis (:mod:`.diagnose`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..core.diagnosis import DiagnosisKind
from .diagnose import Diagnose
from .document import Code, say
from .review import Review
from .traps import CRLF_LF_MODE, FUZZY_INDENTATION, PARTIAL_COMMIT, PURE_ADDITION
from .write import WritePatch

# -- write a patch ---------------------------------------------------------------------------

_GREET = """def greet(name):
    print("Hello, " + name)


def main():
    for name in ["Ada", "Grace"]:
        greet(name)


if __name__ == "__main__":
    main()
"""

UPDATE_AND_ADD = WritePatch(
    id="write-update-and-add",
    title="two chunks and a new file",
    goal=(
        say(
            "Write one patch that turns ",
            Code("greet.py"),
            " into its target (two separate places change: one chunk each) and creates ",
            Code("README.md"),
            ".",
        ),
        say(
            "Remember the grammar above: every chunk after the first starts with an ",
            Code("@@"),
            " line, context lines start with a space, and an added file's lines with ",
            Code("+"),
            ".",
        ),
    ),
    before={"greet.py": _GREET},
    after={
        "greet.py": _GREET.replace('print("Hello, " + name)', 'print(f"Hello, {name}!")').replace(
            '["Ada", "Grace"]', '["Ada", "Grace", "Linus"]'
        ),
        "README.md": "# Greeter\n\nSays hello.\n",
    },
)

_UTIL = '''"""Small helpers."""


def slugify(title):
    """A title as a URL slug."""
    return "-".join(title.lower().split())
'''

MOVE_AND_DELETE = WritePatch(
    id="write-move-and-delete",
    title="a move, an edit and a deletion",
    goal=(
        say(
            "Write one patch that moves ",
            Code("src/util.py"),
            " to ",
            Code("src/text.py"),
            " with the change the target shows, and deletes ",
            Code("TODO.txt"),
            ".",
        ),
    ),
    before={"src/util.py": _UTIL, "TODO.txt": "rename util.py\n"},
    after={"src/text.py": _UTIL.replace('"""Small helpers."""', '"""Text helpers."""')},
)

# -- diagnose a failure ----------------------------------------------------------------------

_K = DiagnosisKind

NO_PREFIX = Diagnose(
    id="diagnose-context-lines",
    title="a long chunk by claude-haiku",
    case="c0008",
    setting=(
        say(
            "claude-haiku-4.5, asked to swap two arguments of a call in ",
            Code("SyntheticEvent.js"),
            ", copied a good deal of the function as context around its change.",
        ),
    ),
    offered=(_K.MISSING_PREFIX, _K.DOUBLED_PREFIX, _K.EMPTY_CHUNK, _K.CONTEXT_NOT_FOUND),
    hint=say(
        "Codex stopped before it looked at the file at all. Go down the patch and read the "
        "first character of each line: which characters may begin a line of a chunk?"
    ),
)

HALF_A_LINE = Diagnose(
    id="diagnose-anchor",
    title="a name after @@",
    case="c0048",
    setting=(
        say(
            "claude-haiku-4.5, asked to flip a boolean, changed one line inside ",
            Code("createResponseFromOptions"),
            " in ",
            Code("ReactFlightDOMClientEdge.js"),
            ", and named the function on its ",
            Code("@@"),
            " line.",
        ),
    ),
    offered=(_K.PARTIAL_ANCHOR, _K.CHANGE_CONTEXT_NOT_FOUND, _K.STALE_ANCHOR, _K.CONTEXT_NOT_FOUND),
    hint=say(
        "Look for the text after ",
        Code("@@ "),
        " in the file (the file is above, folded): is it there? What does Codex need that "
        "text to be?",
    ),
)

SPACES = Diagnose(
    id="diagnose-spaces",
    title="an addition after a declaration",
    case="c0022",
    setting=(
        say(
            "claude-haiku-4.5, asked to restore an early return in ",
            Code("InspectedElementStateTree.js"),
            ", added it right after the line that reads the state.",
        ),
    ),
    offered=(
        _K.WHITESPACE_MISMATCH,
        _K.CHANGE_CONTEXT_NOT_FOUND,
        _K.PARTIAL_ANCHOR,
        _K.CONTEXT_NOT_FOUND,
    ),
    hint=say(
        "Find the line the ",
        Code("@@"),
        " line means in the file, then compare the two character by character, spaces "
        "included (the file is above, folded; · is a space).",
    ),
)

#: Every exercise by id.
EXERCISES: Final[Mapping[str, WritePatch | Review | Diagnose]] = {
    exercise.id: exercise
    for exercise in (
        UPDATE_AND_ADD,
        MOVE_AND_DELETE,
        PURE_ADDITION,
        PARTIAL_COMMIT,
        CRLF_LF_MODE,
        FUZZY_INDENTATION,
        NO_PREFIX,
        HALF_A_LINE,
        SPACES,
    )
}

#: Which teaching notebook shows each exercise (tests/test_notebooks.py checks that it does).
NOTEBOOK_OF: Final[Mapping[str, str]] = {
    "write-update-and-add": "02_parse_and_stream.ipynb",
    "review-fuzzy-indentation": "03_verify_safety_apply.ipynb",
    "review-crlf-lf-mode": "03_verify_safety_apply.ipynb",
    "review-pure-addition": "04_failure_cases.ipynb",
    "review-partial-commit": "04_failure_cases.ipynb",
    "write-move-and-delete": "05_turn_diff.ipynb",
    "diagnose-context-lines": "10_real_failures.ipynb",
    "diagnose-anchor": "10_real_failures.ipynb",
    "diagnose-spaces": "10_real_failures.ipynb",
}

__all__ = ["EXERCISES", "NOTEBOOK_OF"]
