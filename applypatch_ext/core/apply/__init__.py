"""The patch against files: the filesystem boundary, seek, new contents, diff, verify,
the runtime (the only writer), the standalone tool, the match explainer.

Imports from ``parse`` only (and the shared ``errors``, ``text``, ``interrupts``)."""
