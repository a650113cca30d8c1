"""The entry points of the Jupyter layer: ``%%apply_patch`` and its line magics
(:mod:`.magic`), undo and redo (:mod:`.undo`), replay (:mod:`.replay`), the Agents SDK editor
(:mod:`.agents`), their shared options (:mod:`.arguments`) and the JupyterLite kernel's guard
(:mod:`.lite`). The top floor: nothing imports them but ``load_ipython_extension``.
"""
