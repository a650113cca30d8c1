"""The agent's desk: a live agent's patches through the pipeline, over the Model Context
Protocol, answered by a person (issue 26).

Floors, downward only: :mod:`.tools` (the tools as a client sees them) and :mod:`.desk` (the
calls of a turn, waiting for answers) need the standard library and the core only;
:mod:`.server` (the MCP server), :mod:`.http` (streamable HTTP on 127.0.0.1, with its token and
``Origin`` checks) and :mod:`.stdio` (stdio, with MCP elicitation) need the ``mcp`` package,
the ``mcp`` extra. Nothing here imports the Jupyter layer; ``%apply_patch_mcp`` stands on it.

Importing this package imports no ``mcp``: :func:`~applypatch_ext.extras.require_extra` (``"mcp"``)
says which extra to install when it is missing.
"""

from __future__ import annotations
