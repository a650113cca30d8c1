"""The issue-23 item-4 case, shared by the nbclient and the browser tests of bounded views: a
call that adds a 1,300-line file and changes one line of a small ``app.py``."""

from __future__ import annotations

BIG_LINES = 1300
APP = "def main():\n    run(debug=True)\n\n\nmain()\n"


def patch(*body: str) -> str:
    return "\n".join(("*** Begin Patch", *body, "*** End Patch"))


BIG = patch(
    "*** Add File: big.txt",
    *(f"+line {i} of a generated file" for i in range(BIG_LINES)),
    "*** Update File: app.py",
    "@@ def main():",
    "-    run(debug=True)",
    "+    run(debug=False)",
)
