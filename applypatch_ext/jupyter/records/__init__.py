"""The static renderers of the Jupyter layer: what a call shows where no widget runs.

A call's record (:mod:`.record`, the output a saved notebook keeps), its HTML, Markdown and text
(:mod:`.display`), the diff view (:mod:`.static_diff`) and its colours (:mod:`.highlight`), the
review and undo panels (:mod:`.panels`), the notebooks as cells (:mod:`.notebooks`), the history
and conflict views (:mod:`.history`), and what each status means (:mod:`.vocabulary`). They
stand on :mod:`applypatch_ext.markup` and render plain JSON states: nothing here knows the widget
or a running call.
"""
