"""Checking the proposed content of a verified patch (an optional hook of verification).

The pipeline knows nothing of file formats: a front end may give it a *content validator*, a
callable ``(path, new_text) -> str | None`` that returns None when ``new_text`` is acceptable
for the file at ``path`` (an absolute path) and otherwise says what is wrong with it. The
Jupyter layer registers one that parses and validates ``.ipynb`` files with nbformat.

It is called at verification for every proposal that leaves a file behind: each Add (its
content), each Update (its new content, at the ``*** Move to:`` destination when it moves).
Deletions are not checked. What a failure does is :class:`InvalidContent`: ``refuse`` (the
default) makes it a verification error, nothing is written and the model reads why; ``warn``
keeps the reference behaviour (the patch applies) and reports a warning in the result and in
a ``patch_content_warning`` event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from .changes import ApplyPatchAction, FileAdd, FileUpdate

#: ``(absolute path, proposed text) -> None`` (acceptable) or what is wrong with the text.
ContentValidator: TypeAlias = Callable[[str, str], "str | None"]


class InvalidContent(StrEnum):
    """What the pipeline does with a proposal its content validator refuses."""

    REFUSE = "refuse"  # a verification error: nothing is written
    WARN = "warn"  # the reference behaviour: apply anyway, with a warning


@dataclass(frozen=True)
class ContentProblem:
    """The validator's objection to the proposed content of ``path``."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"the proposed content of {self.path} is invalid: {self.message}"


def check_proposed_content(
    action: ApplyPatchAction, validator: ContentValidator | None
) -> tuple[ContentProblem, ...]:
    """Run ``validator`` on every file the verified ``action`` would leave behind, in patch
    order; return its objections (empty when it accepts them all or there is no validator).

    A validator that raises, or returns something other than a str or None, is itself an
    objection naming the error, so that a broken validator cannot let a file through unseen.
    """
    if validator is None:
        return ()
    problems: list[ContentProblem] = []
    for path, change in action.changes.items():
        if isinstance(change, FileAdd):
            target, text = path, change.content
        elif isinstance(change, FileUpdate):
            target, text = change.move_path or path, change.new_content
        else:
            continue
        try:
            verdict = validator(target, text)
        except Exception as exc:  # a validator's bug must not let the content through
            name = type(exc).__name__
            verdict = f"the content validator raised {name}: {exc}" if str(exc) else name
        if verdict is not None and not isinstance(verdict, str):
            verdict = (
                f"the content validator returned {type(verdict).__name__}; expected a str "
                "(what is wrong) or None (the content is acceptable)"
            )
        if verdict is not None:
            problems.append(ContentProblem(target, verdict))
    return tuple(problems)


__all__ = ["ContentProblem", "ContentValidator", "InvalidContent", "check_proposed_content"]
