"""The *review* exercises: four traps a status does not show (a pure addition under ``@@``,
openai/codex #30946; a CRLF file in the ``lf`` mode; a fuzzy match that rewrites indentation,
#30505; a partial commit of the drop-in tool). Content only: every choice is a claim that
:mod:`.review` tests on the real run when it checks.
"""

from __future__ import annotations

from ..core.text import LineEndings
from .document import Code, say
from .review import Choice, Review
from .scratch import Outcome, Tool

_APP = """def load(path):
    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path, "w") as f:
        f.write(text)
"""
_PRINT = '    print("loading", path)'


def _lines(outcome: Outcome, path: str) -> list[str]:
    return (outcome.text(path) or "").split("\n")


PURE_ADDITION = Review(
    id="review-pure-addition",
    title="an addition under @@ def load",
    setting=(
        say(
            "A model wants a log line at the start of ",
            Code("load"),
            ". It sends a chunk with its ",
            Code("@@"),
            " line and one added line, and Codex reports success.",
        ),
    ),
    files={"app.py": _APP},
    patch=f"*** Begin Patch\n*** Update File: app.py\n@@ def load(path):\n+{_PRINT}\n*** End Patch",
    question=say("Where is the new ", Code("print"), " line in ", Code("app.py"), " now?"),
    choices=(
        Choice(
            "a",
            say("Right after ", Code("def load(path):"), ", as the model meant."),
            lambda o: _lines(o, "app.py")[1:2] == [_PRINT],
            say(
                "The ",
                Code("@@"),
                " line only moves the place where Codex starts to look for the chunk's lines. "
                "Which lines does this chunk give Codex to look for?",
            ),
        ),
        Choice(
            "b",
            say("Nowhere: the patch failed, whatever Codex says."),
            lambda o: not o.ok or _PRINT not in _lines(o, "app.py"),
            say("Read what Codex says again: it lists ", Code("M app.py"), ", a file it wrote."),
        ),
        Choice(
            "c",
            say("At the end of the file, after ", Code("f.write(text)"), "."),
            lambda o: _lines(o, "app.py")[-2:] == [_PRINT, ""],
        ),
        Choice(
            "d",
            say("At the top of the file, before ", Code("def load(path):"), "."),
            lambda o: _lines(o, "app.py")[:1] == [_PRINT],
            say(
                "Nothing in the rules puts an added line before the line an ",
                Code("@@"),
                " names. Think about what the chunk asks Codex to find.",
            ),
        ),
    ),
    lesson=(
        say(
            "A chunk with only ",
            Code("+"),
            " lines has nothing to find, so Codex appends it at the end of the file, whatever its ",
            Code("@@"),
            " line found (docs/behaviour.md §3.3, step 2; openai/codex #30946). The file still "
            "runs, so nothing but a review catches it.",
        ),
        say(
            "Give an addition a context line to stand on: ",
            Code(" def load(path):"),
            " (a space, then the line) before the ",
            Code("+"),
            " line.",
        ),
    ),
)

PARTIAL_COMMIT = Review(
    id="review-partial-commit",
    title="a failure half way",
    setting=(
        say(
            "A patch of three hunks, run by the drop-in ",
            Code("apply_patch"),
            " command (Codex's standalone tool), which applies hunk by hunk and verifies "
            "nothing first.",
        ),
    ),
    files={"a.py": "x = 1\n", "b.py": "y = 2\n"},
    patch=(
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 10\n"
        "*** Update File: b.py\n@@\n-y = 3\n+y = 30\n*** Add File: c.py\n+z = 1\n*** End Patch"
    ),
    tool=Tool.STANDALONE,
    question=say("It exits with an error. What does the project hold now?"),
    choices=(
        Choice(
            "a",
            say("What it held before: a failed patch changes nothing."),
            lambda o: o.after == o.before,
            say(
                "That is the pipeline's promise (it verifies the whole patch first) or the "
                "atomic option's, not this tool's. Which hunks ran before the failing one?"
            ),
        ),
        Choice(
            "b",
            say(Code("a.py"), " changed; ", Code("b.py"), " unchanged; no ", Code("c.py"), "."),
            lambda o: (
                o.text("a.py") == "x = 10\n"
                and o.text("b.py") == "y = 2\n"
                and "c.py" not in o.after
            ),
        ),
        Choice(
            "c",
            say(
                Code("a.py"),
                " changed and ",
                Code("c.py"),
                " created; only ",
                Code("b.py"),
                " is unchanged.",
            ),
            lambda o: o.text("a.py") == "x = 10\n" and "c.py" in o.after,
            say("Does the tool go on after a hunk that fails?"),
        ),
        Choice(
            "d",
            say("Every file as the patch says: the error is only a warning."),
            lambda o: o.text("b.py") == "y = 30\n",
            say(
                "Compare the line the error quotes with ",
                Code("b.py"),
                ": could Codex replace it?",
            ),
        ),
    ),
    lesson=(
        say(
            "The drop-in tool writes each hunk as it goes and stops at the first that fails: "
            "what came before stays written, what came after never runs. The model only reads "
            "an error, and a retry of the whole patch then fails on ",
            Code("a.py"),
            " too, whose old line is gone.",
        ),
        say(
            "The pipeline verifies every hunk before it writes anything, and ",
            Code("--transaction atomic"),
            " rolls back a failure during the writes.",
        ),
    ),
)

_NOTES = b"title\r\nalpha\r\nbeta\r\ngamma\r\nend\r\n"


def _endings(outcome: Outcome) -> list[str]:
    data = outcome.after.get("notes.txt", b"")
    return ["CRLF" if line.endswith(b"\r\n") else "LF" for line in data.splitlines(keepends=True)]


CRLF_LF_MODE = Review(
    id="review-crlf-lf-mode",
    title="a Windows file in Codex's default mode",
    setting=(
        say(
            Code("notes.txt"),
            " has Windows line endings (CRLF). The patch is written with plain line feeds, and "
            "Codex applies it in its own default mode, which normalises to LF (",
            Code("--line-endings lf"),
            " here; ours is ",
            Code("preserve"),
            ").",
        ),
    ),
    files={"notes.txt": _NOTES},
    patch="*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n*** End Patch",
    line_endings=LineEndings.LF,
    question=say("How do the lines of ", Code("notes.txt"), " end afterwards?"),
    choices=(
        Choice(
            "a",
            say("All with CRLF, as before."),
            lambda o: o.ok and set(_endings(o)) == {"CRLF"},
            say(
                "That is the preserve mode's result. In the LF mode, what becomes of the lines "
                "that the chunk replaces?"
            ),
        ),
        Choice(
            "b",
            say("All with LF: the file is normalised."),
            lambda o: o.ok and set(_endings(o)) == {"LF"},
            say("Which lines does the LF mode rewrite: the whole file, or the chunk's region?"),
        ),
        Choice(
            "c",
            say("None: the patch fails, since its lines have no CR."),
            lambda o: not o.ok,
            say("Read what Codex says. Its second pass compares lines without trailing spaces."),
        ),
        Choice(
            "d",
            say(
                "Mixed: the chunk's lines (",
                Code("alpha"),
                " and ",
                Code("BETA"),
                ") end with LF, the others keep CRLF.",
            ),
            lambda o: _endings(o) == ["CRLF", "LF", "LF", "CRLF", "CRLF"],
        ),
    ),
    lesson=(
        say(
            "The LF mode replaces the matched region, its context line ",
            Code("alpha"),
            " included, with the patch's own text: the CR of those lines is lost, the other lines "
            "keep theirs (docs/behaviour.md §4.1). A file with mixed endings shows up as a "
            "change of every such line in a later diff.",
        ),
        say(
            "The preserve mode (our default) keeps each untouched line's ending and gives new "
            "lines the file's first one: all CRLF here.",
        ),
    ),
)

_SETTINGS = (
    'def settings(debug):\n\tif debug:\n\t\tlevel = "debug"\n\telse:\n\t\tlevel = "info"\n'
    "\treturn level\n"
)
_TRACE_SPACES = '        level = "trace"'


def _compiles(outcome: Outcome) -> bool:
    try:
        compile(outcome.text("settings.py") or "", "settings.py", "exec")
    except SyntaxError:  # TabError and IndentationError too
        return False
    return True


FUZZY_INDENTATION = Review(
    id="review-fuzzy-indentation",
    title="spaces in the patch, tabs in the file",
    setting=(
        say(
            Code("settings.py"),
            " is indented with tabs. The model wrote its patch with spaces, as it writes most "
            "Python, and Codex reports success.",
        ),
    ),
    files={"settings.py": _SETTINGS},
    patch=(
        "*** Begin Patch\n*** Update File: settings.py\n@@ def settings(debug):\n     if debug:\n"
        f'-        level = "debug"\n+{_TRACE_SPACES}\n     else:\n*** End Patch'
    ),
    question=say("What is true of ", Code("settings.py"), " now?"),
    choices=(
        Choice(
            "a",
            say("Unchanged: the indentation does not match, so the patch failed."),
            lambda o: not o.ok,
            say("Read what Codex says, then the four passes above: which one matches here?"),
        ),
        Choice(
            "b",
            say(
                "The changed line is indented with tabs like its neighbours, and the file is fine."
            ),
            lambda o: _lines(o, "settings.py")[2] == '\t\tlevel = "trace"' and _compiles(o),
            say(
                "Codex matches the lines loosely, but which text does it write for the line "
                "it replaces: the file's or the patch's?"
            ),
        ),
        Choice(
            "c",
            say(
                "The changed line is indented with spaces under a tab-indented ",
                Code("if"),
                ", and Python no longer compiles the file.",
            ),
            lambda o: _lines(o, "settings.py")[2] == _TRACE_SPACES and not _compiles(o),
        ),
        Choice(
            "d",
            say("Every line of the chunk, its context lines too, is now indented with spaces."),
            lambda o: all(line.startswith(" ") for line in _lines(o, "settings.py")[1:4]),
            say(
                "What does the preserve mode do with the file's own context lines "
                "(docs/behaviour.md §3.3, step 5)?"
            ),
        ),
    ),
    lesson=(
        say(
            "The third pass compares lines with their whitespace trimmed, so the chunk matches; "
            "then the replaced line is written as the patch has it, with spaces, while its "
            "context keeps the file's tabs. Python refuses the mix (",
            Code("TabError"),
            "), and Codex said success (openai/codex #30505).",
        ),
        say(
            "Read a patch's indentation against the file's, not against what looks right; a "
            "match found only by a fuzzy pass deserves a second look.",
        ),
    ),
)

__all__ = ["CRLF_LF_MODE", "FUZZY_INDENTATION", "PARTIAL_COMMIT", "PURE_ADDITION"]
