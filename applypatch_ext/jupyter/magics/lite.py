"""The JupyterLite kernel (``pyodide_kernel``): keep a cell magic's body away from its tokenizer.

Before IPython sees a cell, that kernel runs its own input transforms (``%pip``), and they
tokenize the whole cell as Python (``LiteTransformerManager.do_token_transforms``), outside any
``try``. Python 3.12's tokenizer raises ``IndentationError`` on a line indented less than the
one before and not as any enclosing block: a patch does that all the time (``+  {`` after
``    "source": [``). The error escapes the kernel's ``run``, no reply ever comes, and the cell
never ends (jupyterlite/pyodide-kernel#292, open for 0.6 and 0.7). IPython itself hands a cell
that starts with ``%%`` to its magic before tokenizing anything; :func:`guard_lite_kernel` makes
that kernel do the same. Elsewhere it does nothing.
"""

from __future__ import annotations

from typing import Any

_GUARDED = "_applypatch_cell_magics_untokenized"


def guard_lite_kernel(shell: Any) -> bool:
    """Skip the JupyterLite kernel's token transforms for cell magics; True if it is that kernel
    (the guard is installed once per kernel)."""
    manager: Any = getattr(getattr(shell, "kernel", None), "lite_transform_manager", None)
    original = getattr(manager, "do_token_transforms", None)
    if original is None:
        return False
    if getattr(manager, _GUARDED, False):
        return True

    async def do_token_transforms(lines: list[str]) -> list[str]:
        if lines and lines[0].startswith("%%"):
            return lines  # the magic's body is not Python; IPython passes it as it is
        result: list[str] = await original(lines)
        return result

    manager.do_token_transforms = do_token_transforms
    setattr(manager, _GUARDED, True)
    return True
