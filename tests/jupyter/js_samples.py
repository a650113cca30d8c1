"""States Python sends the widget (a review, the words of an approval request), made by the
real code for the node tests (tests/js/) to read: the front end is tested against what Python
says, never a copy of its own.

``python -c "from tests.jupyter.js_samples import dump; dump()"`` prints them as JSON (what
the node tests run when test_js.py has not written them to ``APPLYPATCH_SAMPLES``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from applypatch_ext.core.apply.fs import LocalFilesystem
from applypatch_ext.core.parse.parser import parse_patch
from applypatch_ext.core.turn.review import review_files
from applypatch_ext.jupyter.records.vocabulary import request_words

#: An Update of 3 chunks (the second matched by the rstrip pass: the file's line has trailing
#: spaces) and an added file.
REVIEW_PATCH = (
    "*** Begin Patch\n"
    "*** Update File: a.txt\n"
    "@@\n-one\n+ONE\n"
    "@@\n four\n-five\n+FIVE\n"
    "@@\n-nine\n+NINE\n"
    "*** Add File: b.txt\n+bee\n"
    "*** End Patch"
)
REVIEW_FILES = {"a.txt": "one\ntwo\nthree\nfour  \nfive\nsix\nseven\neight\nnine\n"}


def review_sample() -> dict[str, Any]:
    """The ``review`` trait of a call waiting on :data:`REVIEW_PATCH` (review.review_files)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in REVIEW_FILES.items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        files = review_files(parse_patch(REVIEW_PATCH), tmp, LocalFilesystem())
    return {"selectable": True, "files": files}


def samples() -> dict[str, Any]:
    return {
        "review": review_sample(),
        # what an approval request says above its files, as the kernel adds it to the trait
        "request_words": {
            "one": request_words(1),
            "two": request_words(2),
            "retry": request_words(1, retry=True),
        },
    }


def dump() -> None:
    print(json.dumps(samples()))
