"""The apply_patch pipeline of the Codex CLI, in pure Python (standard library only).

Stages, one module each: :mod:`.parser` / :mod:`.streaming` (text to hunks), :mod:`.seek`
(locating chunks), :mod:`.contents` (new file contents), :mod:`.verify` (read-only, the proposed
change map), :mod:`.apply` (the only module that writes; the committed delta), :mod:`.diff`
(similar-compatible unified diffs). All file access goes through :mod:`.fs`.
"""
