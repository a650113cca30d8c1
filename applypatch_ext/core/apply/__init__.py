"""The patch against files: the filesystem boundary and the in-memory tree, seek, new contents,
diff, verify, the runtime (the only writer), the standalone tool, the atomic transaction and its
journal, the match explainer.

Imports from ``parse`` only (and the shared ``errors``, ``text``, ``interrupts``)."""
