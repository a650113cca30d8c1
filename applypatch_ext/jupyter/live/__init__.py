"""The live objects of the Jupyter layer: one call while it runs and after.

The widget (:mod:`.widget`), the call's displayed state and result (:mod:`.result`), its view
(:mod:`.view`: the events onto the widget's traits), the kernel's session (:mod:`.session`),
undo as a call with its view (:mod:`.undo`) and the streaming API (:mod:`.streams`). They stand
on :mod:`..records`; the magics stand on them.
"""
