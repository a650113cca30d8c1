"""The apply_patch pipeline of the Codex CLI, in pure Python (standard library only).

Three floors and what agents write, importing downward only: :mod:`.parse` (the patch as
text) <- :mod:`.apply` (the patch against files; all file access goes through
:mod:`.apply.fs`, and :mod:`.apply.runtime` is the only writer) <- :mod:`.turn` (the patch as
a tool call in a user's turn) <- :mod:`.agents` (session files and Responses API items,
replayed). :mod:`.errors`, :mod:`.text` and :mod:`.interrupts` are shared by every floor.
docs/architecture.md lists every module and its job.
"""
