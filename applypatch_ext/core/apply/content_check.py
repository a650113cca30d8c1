"""Checking the proposed content of a verified patch (an optional hook of verification).

The pipeline knows nothing of file formats: a front end may give it a *content validator*, a
callable ``(path, new_text) -> str | None`` that returns None when ``new_text`` is acceptable
for the file at ``path`` (an absolute path) and otherwise says what is wrong with it. The
Jupyter layer registers one that parses and validates ``.ipynb`` files with nbformat.

It is called at verification for every hunk that leaves a file behind: each Add (its
content), each Update (its new content, at the ``*** Move to:`` destination when it moves),
the hunks a ``--duplicates fold`` map folded away included, since application runs them all.
It is given the path as the patch resolves it and, when a symbolic link leads elsewhere, also
the path the write reaches (``link.txt`` -> ``nb.ipynb``): a validator that checks files by
name sees the file that really changes. Deletions are not checked. What a failure does is
:class:`InvalidContent`: ``refuse`` (the default) makes it a verification error, nothing is
written and the model reads why; ``warn`` keeps the reference behaviour (the patch applies)
and reports a warning in the result and in a ``patch_warning`` event (the failure atlas's
``invalid_content``, :mod:`..diagnosis`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from .changes import ApplyPatchAction, FileAdd, FileUpdate
from .fs import Filesystem, canonicalizer

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
    #: the file the write reaches, when a symbolic link leads there from ``path``
    reached: str | None = None

    def __str__(self) -> str:
        where = (
            self.path if self.reached is None else f"{self.path} (which leads to {self.reached})"
        )
        return f"the proposed content of {where} is invalid: {self.message}"


def _left_behind(action: ApplyPatchAction) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of every file the action leaves behind, each pair once."""
    pairs = action.left_behind
    if not pairs:  # an action made without verification (an undo's): its map is what runs
        pairs = tuple(
            (change.move_path or path, change.new_content)
            if isinstance(change, FileUpdate)
            else (path, change.content)
            for path, change in action.changes.items()
            if isinstance(change, FileAdd | FileUpdate)
        )
    yield from dict.fromkeys(pairs)


def _verdict(validator: ContentValidator, path: str, text: str) -> str | None:
    """The validator's verdict; a validator that raises, or returns something other than a str
    or None, is itself an objection naming the error, so that a broken validator cannot let a
    file through unseen."""
    try:
        verdict = validator(path, text)
    except Exception as exc:  # a validator's bug must not let the content through
        name = type(exc).__name__
        return f"the content validator raised {name}: {exc}" if str(exc) else name
    if verdict is not None and not isinstance(verdict, str):
        return (
            f"the content validator returned {type(verdict).__name__}; expected a str "
            "(what is wrong) or None (the content is acceptable)"
        )
    return verdict


def check_proposed_content(
    action: ApplyPatchAction, validator: ContentValidator | None, fs: Filesystem | None = None
) -> tuple[ContentProblem, ...]:
    """Run ``validator`` on every file the verified ``action`` would leave behind, in patch
    order (at the path each write reaches too, when ``fs`` resolves a symbolic link elsewhere);
    return its objections (empty when it accepts them all or there is no validator)."""
    if validator is None:
        return ()
    canonical = None if fs is None else canonicalizer(fs)
    problems: list[ContentProblem] = []
    for path, text in _left_behind(action):
        verdict = _verdict(validator, path, text)
        reached = None
        if verdict is None and canonical is not None:
            real = canonical(path)
            if real != path:
                verdict, reached = _verdict(validator, real, text), real
        if verdict is not None:
            problems.append(ContentProblem(path, verdict, reached))
    return tuple(problems)


__all__ = ["ContentProblem", "ContentValidator", "InvalidContent", "check_proposed_content"]
