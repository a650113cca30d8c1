"""The failure atlas's vocabulary: what a :class:`Diagnosis` is and the closed set of its kinds.

A call that fails keeps the reference's texts untouched (its stdout, stderr, exit code and the
model's output); beside them it carries one :class:`Diagnosis`: a ``kind`` from
:class:`DiagnosisKind`, where it went wrong in the patch (``patch_line``) and in the file
(``line``, or why there is none: ``line_absent``), one sentence to act on (``message``) and,
where a correction is safe and certain, the corrected patch text (``suggestion``, never
applied on its own). A call that succeeds may carry warnings of the same shape (a pure addition
that went to the end of the file, a fuzzy match, an ambiguous one, content the validator
objected to).

:data:`KINDS` is the one table of the kinds: what each means, whether it names a failure, a
warning or either, and a real example (a model's patch from the corpus in
``tests/data/model-patches``, a reference scenario, or the issue that reported it). The
front ends (the records, the widget through its ``vocabulary`` trait, the docs) read meanings
from here. Which kind a failure gets is decided elsewhere (:mod:`.apply.diagnose`); this module
only names them. Standard library only; nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final


class DiagnosisKind(StrEnum):
    """Every kind a diagnosis or a warning can have (see :data:`KINDS` for their meanings)."""

    # the patch text
    MISSING_BEGIN = "missing_begin"
    MISSING_END = "missing_end"
    STRAY_FENCE = "stray_fence"
    FOREIGN_FORMAT = "foreign_format"
    UNIFIED_DIFF_HEADER = "unified_diff_header"
    BAD_CONTEXT_MARKER = "bad_context_marker"
    MISSING_PREFIX = "missing_prefix"
    DOUBLED_PREFIX = "doubled_prefix"
    EMPTY_CHUNK = "empty_chunk"
    INVALID_HUNK_HEADER = "invalid_hunk_header"
    MALFORMED = "malformed"
    # the call
    IMPLICIT_INVOCATION = "implicit_invocation"
    UNKNOWN_ENVIRONMENT = "unknown_environment"
    EMPTY_PATCH = "empty_patch"
    DUPLICATE_PATH = "duplicate_path"
    MOVE_ONTO_ITSELF = "move_onto_itself"
    # the files
    MISSING_FILE = "missing_file"
    NOT_A_FILE = "not_a_file"
    NOT_UTF8 = "not_utf8"
    INVALID_CONTENT = "invalid_content"
    IO_ERROR = "io_error"
    SANDBOX_DENIED = "sandbox_denied"
    # matching a chunk
    CHANGE_CONTEXT_NOT_FOUND = "change_context_not_found"
    PARTIAL_ANCHOR = "partial_anchor"
    STALE_ANCHOR = "stale_anchor"
    CONTEXT_NOT_FOUND = "context_not_found"
    WHITESPACE_MISMATCH = "whitespace_mismatch"
    ALREADY_APPLIED = "already_applied"
    END_OF_FILE_MISMATCH = "end_of_file_mismatch"
    # the turn
    REJECTED = "rejected"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    HOOK_FAILED = "hook_failed"
    RECOVERY_FAILED = "recovery_failed"
    UNDO_CONFLICT = "undo_conflict"
    UNEXPLAINED = "unexplained"
    # warnings on a call that succeeded
    APPENDED_AT_END = "appended_at_end"
    FUZZY_MATCH = "fuzzy_match"
    AMBIGUOUS_MATCH = "ambiguous_match"


class Role(StrEnum):
    """What a diagnosis is to its call: why it failed, or what to check in one that applied."""

    DIAGNOSIS = "diagnosis"
    WARNING = "warning"


#: What a suggestion is said to be, on every surface (it is never applied on its own).
SUGGESTION_NOTE: Final = "suggested patch text (not applied)"


class Severity(StrEnum):
    """Where a kind may appear: as the diagnosis of a failed call, as a warning, or both."""

    FAILURE = "failure"
    WARNING = "warning"
    EITHER = "either"


@dataclass(frozen=True)
class KindInfo:
    """One row of :data:`KINDS`."""

    #: what the kind means, one sentence in our words
    meaning: str
    severity: Severity
    #: a real example: the lines of a patch (or of a call) that showed it
    example: str
    #: where the example comes from: a corpus case (``corpus c0274, gemini-2_5-flash-lite``),
    #: a reference scenario, or the issue that reported it
    source: str

    @property
    def failure(self) -> bool:
        return self.severity is not Severity.WARNING

    @property
    def warning(self) -> bool:
        return self.severity is not Severity.FAILURE


_F, _W, _E = Severity.FAILURE, Severity.WARNING, Severity.EITHER
_K = DiagnosisKind

#: The one table of the kinds (the docs' table, docs/diagnosis.md, is checked against it).
KINDS: Final[Mapping[DiagnosisKind, KindInfo]] = {
    _K.MISSING_BEGIN: KindInfo(
        "The patch does not start with `*** Begin Patch` (prose before it, a misspelt marker).",
        _F,
        "*** Begin Patch ***\n*** Update File: src/app.ts",
        "lidge-jun/opencodex#372 (grok-4.5, 47 failed calls in one session)",
    ),
    _K.MISSING_END: KindInfo(
        "The patch does not end with `*** End Patch` (cut off, or text after it).",
        _F,
        "+A\n*** End Patch\ntrailing garbage",
        "reference scenario 159_text_after_end_patch_rejected",
    ),
    _K.STRAY_FENCE: KindInfo(
        "A Markdown code fence (a line of backticks) was sent as part of the patch.",
        _F,
        "```diff\n*** Begin Patch\n...\n*** End Patch\n```",
        "openai/codex#35361 (fenced patches make agents loop on the first-line error)",
    ),
    _K.FOREIGN_FORMAT: KindInfo(
        "The patch is written in another tool's format: a JSON edit list, tool-call markup, "
        "line-number-and-hash anchors.",
        _F,
        "@@ 60:9c9f| ): string {\n61:f9e7|   return (",
        "corpus c0185, claude-haiku-4-5",
    ),
    _K.UNIFIED_DIFF_HEADER: KindInfo(
        "A unified diff's header (`@@ -69,7 +69,8 @@`, `--- a/f`, `+++ b/f`) was written where "
        "this format has a context line: its numbers are read as text to find.",
        _F,
        "@@ -221,1 +221,1 @@\n"
        "-const nativeStyleResolver: ResolveNativeStyle | void = "
        "resolveRNStyle || hook.resolveRNStyle;",
        "corpus c0289, gemini-2_5-flash-lite",
    ),
    _K.BAD_CONTEXT_MARKER: KindInfo(
        "An `@@` line is not `@@` alone or `@@ ` followed by a context line (the space is "
        "missing, or `@@` is glued to another line).",
        _F,
        "*** Update File: getComponentNameFromFiber.js\n@@function getWrappedName(",
        "corpus c0182, claude-haiku-4-5",
    ),
    _K.MISSING_PREFIX: KindInfo(
        "A line of an Update chunk has no prefix: every line must start with a space (context), "
        "`+` (added) or `-` (removed).",
        _F,
        "@@ export function describeWithPointerEvent(describeFn, message) {\n"
        "export function describeWithPointerEvent(message, describeFn) {",
        "corpus c0004, claude-haiku-4-5",
    ),
    _K.DOUBLED_PREFIX: KindInfo(
        "A line carries its prefix twice, once in the first column and again after the "
        "indentation (copied from a rendered diff), so its text holds a stray `+` or `-`.",
        _F,
        " \t      const handleEnd = () => {\n \t    -\t      if (--streamEndedCount === 2) {",
        "grok-4-fast-non-reasoning in corpus c0843 (its unified-diff header fails first)",
    ),
    _K.EMPTY_CHUNK: KindInfo(
        "An `@@` line (or an `*** Update File:` header) has no line under it.",
        _F,
        "         stack.push([segment.nextSegments[index], 0]);\n@@\n*** End Patch",
        "corpus c0009, claude-haiku-4-5",
    ),
    _K.INVALID_HUNK_HEADER: KindInfo(
        "A line outside any hunk is not a hunk header (`*** Add File:`, `*** Delete File:`, "
        "`*** Update File:`), e.g. a blank line inside an Add.",
        _F,
        "*** Add File: new.txt\n+one\n\n+two",
        "reference scenario 157_blank_line_inside_add_hunk_rejected",
    ),
    _K.MALFORMED: KindInfo(
        "The patch breaks another rule of the grammar (an empty or repeated environment id, a "
        "line after `*** End of File`).",
        _F,
        "+B\n*** End of File\n a",
        "reference scenario 162_line_after_end_of_file_marker_rejected",
    ),
    _K.IMPLICIT_INVOCATION: KindInfo(
        "A shell command carried a patch without calling `apply_patch` on it.",
        _F,
        '["*** Begin Patch\\n*** Add File: a.txt\\n+a\\n*** End Patch"]',
        "Codex's guard against implicit calls (docs/behaviour.md §1.3)",
    ),
    _K.UNKNOWN_ENVIRONMENT: KindInfo(
        "The patch names an environment (`*** Environment ID:`) the turn does not have.",
        _F,
        "*** Begin Patch\n*** Environment ID: staging\n*** Add File: a.txt",
        "Codex's multi-environment turns (docs/behaviour.md §6.1)",
    ),
    _K.EMPTY_PATCH: KindInfo(
        "The patch has no hunk: nothing to apply.",
        _F,
        "*** Begin Patch\n*** End Patch",
        "Codex's safety check (docs/behaviour.md §7.3)",
    ),
    _K.DUPLICATE_PATH: KindInfo(
        "Two hunks of the patch act on the same file (`a.txt` and `./a.txt` are one file).",
        _F,
        "*** Update File: dup.txt\n@@\n-a\n+A\n*** Update File: ./dup.txt",
        "reference scenario 143_dup_path_with_dot_slash",
    ),
    _K.MOVE_ONTO_ITSELF: KindInfo(
        "`*** Move to:` names the file being updated, which applying would delete.",
        _F,
        "*** Update File: same.txt\n*** Move to: same.txt",
        "reference scenario 122_move_to_same_path",
    ),
    _K.MISSING_FILE: KindInfo(
        "The file to update or delete does not exist (a wrong path, or a file not created yet).",
        _F,
        "*** Update File: TimelineContext.js",
        "corpus c0000, claude-haiku-4-5 (the task's tree has no such file)",
    ),
    _K.NOT_A_FILE: KindInfo(
        "The path to update or delete is a directory or another thing that is not a file.",
        _F,
        "*** Update File: dir",
        "reference scenario 149_update_directory_fails",
    ),
    _K.NOT_UTF8: KindInfo(
        "The file to update is not UTF-8 text, so it cannot be matched line by line.",
        _F,
        "*** Update File: latin1.txt",
        "reference scenario 115_non_utf8_update_fails",
    ),
    _K.INVALID_CONTENT: KindInfo(
        "The patch would leave a file its content validator refuses: in the magic and `turn`, "
        "an `.ipynb` that is not a valid notebook.",
        _E,
        '*** Update File: analysis.ipynb\n@@\n-  "cells": [\n+  "cells": [[',
        "the notebook check of issue 15 (tests/jupyter/test_notebook_entry_points.py)",
    ),
    _K.IO_ERROR: KindInfo(
        "Reading, writing, creating or deleting a file failed (a permission, a full disk, a "
        "parent that is a file).",
        _F,
        "*** Add File: file.txt/child.txt",
        "reference scenario 148_add_under_existing_file_fails",
    ),
    _K.SANDBOX_DENIED: KindInfo(
        "The sandbox refused a write outside the writable roots, or a symbolic link on the "
        "way of an unsandboxed retry.",
        _F,
        "*** Add File: /etc/motd",
        "Codex's workspace-write sandbox (docs/behaviour.md §5.6, §7.2)",
    ),
    _K.CHANGE_CONTEXT_NOT_FOUND: KindInfo(
        "The text of the chunk's `@@` line is in no line of the file.",
        _F,
        "@@ line 39-46\n  const isEmpty = entries.length === 0;",
        "corpus c0079, claude-haiku-4-5",
    ),
    _K.PARTIAL_ANCHOR: KindInfo(
        "The text of the chunk's `@@` line is only part of a file line: the `@@` line must "
        "be a whole line of the file (indentation aside).",
        _F,
        "@@ createResponseFromOptions\n"
        "     typeof options.nonce === 'string' ? options.nonce : undefined,",
        "corpus c0048, claude-haiku-4-5",
    ),
    _K.STALE_ANCHOR: KindInfo(
        "The chunk's lines (or its `@@` line) are in the file, but before where the search "
        "looks: after the previous chunk, or after the `@@` line, which comes later.",
        _F,
        "@@ function createFromNodeStream<T>(\n function createFromNodeStream<T>(",
        "corpus c1434, qwen-turbo",
    ),
    _K.CONTEXT_NOT_FOUND: KindInfo(
        "The chunk's context and removed lines are not in the file, even ignoring whitespace "
        "and typographic punctuation; `line` is where the closest region starts.",
        _F,
        "@@ const frameRegExp =\n   /^ {3} at (?:(.+) \\((?:(.+):(\\d*)",
        "corpus c0024, claude-haiku-4-5",
    ),
    _K.WHITESPACE_MISMATCH: KindInfo(
        "The closest region differs from the chunk only in whitespace or invisible characters "
        "inside lines (a tab for spaces, a double space, a no-break or zero-width space).",
        _F,
        "@@ const {state, type} = inspectedElement;",
        "corpus c0022, claude-haiku-4-5",
    ),
    _K.ALREADY_APPLIED: KindInfo(
        "The chunk's lines are not in the file but its new lines are: the change seems to "
        "be there already.",
        _F,
        "@@ const isHostComponent = type === ElementTypeHostComponent;\n"
        "   const entries = Object.entries(state);",
        "claude-haiku-4-5's corpus c0112, sent again after it applied",
    ),
    _K.END_OF_FILE_MISMATCH: KindInfo(
        "The chunk is marked `*** End of File` but its lines are in the file, not at its end.",
        _F,
        "-one\n+first\n*** End of File",
        "Codex test rejects_overlapping_end_of_file_chunks (docs/behaviour.md §3.4)",
    ),
    _K.REJECTED: KindInfo(
        "The safety check (the approval policy and the sandbox) or a pre-tool-use hook "
        "refused the patch; nothing was written.",
        _F,
        "*** Update File: .git/config",
        "Codex's safety check (docs/behaviour.md §7.3)",
    ),
    _K.DECLINED: KindInfo(
        "The user declined the patch when asked; nothing was written.",
        _F,
        "patch rejected by user",
        "Codex's approval request (docs/behaviour.md §6.9)",
    ),
    _K.CANCELLED: KindInfo(
        "The call was interrupted; what it wrote before that stays and is in its delta.",
        _F,
        "apply_patch was cancelled",
        "an interrupt in the kernel (docs/behaviour.md §6.1)",
    ),
    _K.HOOK_FAILED: KindInfo(
        "A pre- or post-tool-use hook raised or returned something it may not.",
        _F,
        "pre-tool-use hook failed, nothing was written: ValueError: ...",
        "our hooks (docs/behaviour.md §6)",
    ),
    _K.RECOVERY_FAILED: KindInfo(
        "The journal of an interrupted atomic call could not be fully restored, so the call "
        "did not run.",
        _F,
        "cannot recover /work: ...",
        "the crash journal (SECURITY.md)",
    ),
    _K.UNDO_CONFLICT: KindInfo(
        "An undo or a redo found a file changed since the call it reverts (or reached "
        "through a symbolic link, or changed by a later call): it writes nothing unless forced.",
        _F,
        "%apply_patch_undo  (after notes.txt was edited by hand)",
        "our undo's check before anything is written (docs/behaviour.md §11.2)",
    ),
    _K.UNEXPLAINED: KindInfo(
        "No rule of the atlas explains this failure: the error text is all there is.",
        _F,
        "(none: the corpus has no such case)",
        "the atlas's fallback",
    ),
    _K.APPENDED_AT_END: KindInfo(
        "A pure addition (a chunk without context or removed lines) under an `@@` line went "
        "to the end of the file, not under that line, as Codex does.",
        _W,
        "@@ def a():\n+    return 1",
        "openai/codex#30946",
    ),
    _K.FUZZY_MATCH: KindInfo(
        "The chunk matched only when whitespace or typographic punctuation is ignored, and "
        "its lines rewrite the file's indentation or characters there.",
        _W,
        "-   if (typeof onReloadAndProfileFlagsReset === 'function') {\n"
        "-     onReloadAndProfileFlagsReset();",
        "corpus c0206, claude-haiku-4-5 (the file indents with 4 spaces)",
    ),
    _K.AMBIGUOUS_MATCH: KindInfo(
        "The chunk's lines occur more than once where the search looks; the first occurrence "
        "was changed.",
        _W,
        "-   if (typeof onReloadAndProfileFlagsReset === 'function') {",
        "corpus c0206, claude-haiku-4-5 (lines 168 and 353 of backend.js)",
    ),
}


@dataclass(frozen=True)
class Diagnosis:
    """What went wrong (or, as a warning, what to check) in one call, and where.

    ``patch_line`` is 1-based in the patch as the call got it (None when the whole patch is
    at fault); ``line`` 1-based in the target file, where the closest region starts (None, with
    ``line_absent`` saying why when a chunk did not match: the file is empty, no line is
    similar); ``path`` the file as the patch names it. ``suggestion`` is patch text (a corrected
    `@@` line, a re-anchored chunk) given only when it is certain to match, and never applied;
    ``replaces`` the span of lines of the patch (1-based, first and last, in the same text as
    ``patch_line``) that it stands in for, so that a front end can show it in place.

    Its words are here, one model for every surface: :meth:`where` (``patch line 5, a.py
    line 12``), :meth:`heading` and :meth:`describe` (the plain text of the records, the desk's
    tools, the exercises), :data:`SUGGESTION_NOTE`.
    """

    kind: DiagnosisKind
    message: str
    path: str | None = None
    patch_line: int | None = None
    line: int | None = None
    line_absent: str | None = None
    suggestion: str | None = None
    replaces: tuple[int, int] | None = None

    @property
    def meaning(self) -> str:
        return KINDS[self.kind].meaning

    def where(self) -> str:
        """Where it points, as known: ``patch line 5, a.py line 12``; ``patch line 3, no line
        of a.py: the file is empty``; ``a.py``; ``""`` for the patch as a whole."""
        parts = []
        if self.patch_line is not None:
            parts.append(f"patch line {self.patch_line}")
        name = self.path or "the file"
        if self.line is not None:
            parts.append(f"{name} line {self.line}")
        elif self.line_absent:
            parts.append(f"no line of {name}: {self.line_absent}")
        elif self.path:
            parts.append(name)
        return ", ".join(parts)

    def heading(self, role: Role = Role.DIAGNOSIS) -> str:
        """``diagnosis: stale_anchor (what the kind means), at patch line 4, a.py line 9``."""
        place = self.where()
        return f"{role}: {self.kind} ({self.meaning})" + (f", at {place}" if place else "")

    def describe(self, role: Role = Role.DIAGNOSIS, indent: str = "  ") -> list[str]:
        """The plain text: :meth:`heading`, the sentence and, when there is one, the suggestion
        after :data:`SUGGESTION_NOTE` (its lines indented twice: ``indent=""`` keeps them as
        they are, to copy)."""
        lines = [self.heading(role), indent + self.message]
        if self.suggestion:
            lines.append(f"{indent}{SUGGESTION_NOTE}:")
            lines += [indent * 2 + line for line in self.suggestion.rstrip("\n").split("\n")]
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "message": self.message,
            "path": self.path,
            "patch_line": self.patch_line,
            "line": self.line,
            "line_absent": self.line_absent,
            "suggestion": self.suggestion,
            "replaces": None if self.replaces is None else list(self.replaces),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Diagnosis:
        """A diagnosis from its JSON (a saved record, a message): raises ``ValueError`` for a
        kind outside the vocabulary or a field of the wrong type."""
        kind = DiagnosisKind(str(data.get("kind")))
        message = data.get("message")
        if not isinstance(message, str):
            raise ValueError("a diagnosis's message must be a string")
        texts = {name: data.get(name) for name in ("path", "line_absent", "suggestion")}
        numbers = {name: data.get(name) for name in ("patch_line", "line")}
        for name, value in texts.items():
            if value is not None and not isinstance(value, str):
                raise ValueError(f"a diagnosis's {name} must be a string or null")
        for name, value in numbers.items():
            if value is not None and (type(value) is not int or value < 1):
                raise ValueError(f"a diagnosis's {name} must be a line number (1 or more) or null")
        replaces = data.get("replaces")
        span: tuple[int, int] | None = None
        if replaces is not None:
            if (
                not isinstance(replaces, list | tuple)
                or len(replaces) != 2
                or any(type(n) is not int or n < 1 for n in replaces)
                or replaces[0] > replaces[1]
            ):
                raise ValueError(
                    "a diagnosis's replaces must be [first, last], two line numbers in order, "
                    "or null"
                )
            span = (replaces[0], replaces[1])
        return cls(kind, message, **texts, **numbers, replaces=span)
