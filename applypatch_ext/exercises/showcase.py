"""What notebook 10 shows of each kind: the corpus case chosen for it, and the fixed patches
written by hand where the diagnosis has no fix of its own.

Content only, checked on the real runs (``tests/exercises/test_atlas.py`` and the notebook's
own asserts): each case has the kind it is shown for, and each fixed patch applies to the
case's file through the pipeline. A fix keeps the model's change and repairs only its form:
the lines as the file has them, an ``@@`` line the file holds whole. Only a few bodies can be
fixed so: the corpus pairs a body with a task by the file's name, and for most bodies its copy
of the file is another version than the one the model read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ..core.diagnosis import DiagnosisKind

_K = DiagnosisKind

#: The case shown for each kind (the others get the first fitting case of the corpus).
CASES: Final[Mapping[DiagnosisKind, str]] = {
    _K.UNIFIED_DIFF_HEADER: "c0289",
    _K.BAD_CONTEXT_MARKER: "c1436",
    _K.CHANGE_CONTEXT_NOT_FOUND: "c0075",
    _K.PARTIAL_ANCHOR: "c0132",
    _K.STALE_ANCHOR: "c1434",
    _K.CONTEXT_NOT_FOUND: "c0116",
    _K.WHITESPACE_MISMATCH: "c0091",
}

#: Fixed patches written by hand, by case: the model's change, in lines its file has.
FIXES: Final[Mapping[str, str]] = {
    "c0289": """*** Begin Patch
*** Update File: backend.js
@@
-  const nativeStyleResolver: ResolveNativeStyle | void = resolveRNStyle || hook.resolveRNStyle;
+  const nativeStyleResolver: ResolveNativeStyle | void = hook.resolveRNStyle || resolveRNStyle;
*** End Patch
""",
    "c1436": """*** Begin Patch
*** Update File: getBatchRange.js
@@
-  if (measures == null ?? measures.length === 0) {
+  if (measures == null || measures.length === 0) {
*** End Patch
""",
    "c0075": """*** Begin Patch
*** Update File: utils.js
@@
     /[^s]ies$/i.test(word) ||
     /ves$/i.test(word) ||
-    /[^s]s$/i.test(word)
+    /[^s]+s$/i.test(word)
*** End Patch
""",
    "c0132": """*** Begin Patch
*** Update File: ReactFlightDOMServerBrowser.js
@@   function progress({ done, value }: { done: boolean, value: ?any, ... }): void | Promise<void> {
     const buffer: Uint8Array = (value: any);
     stringBuffer += done
       ? readFinalStringChunk(stringDecoder, new Uint8Array(0))
       : readPartialStringChunk(stringDecoder, buffer);
     const messages = stringBuffer.split('\\n');
-    for (let i = 0; i <= messages.length - 1; i++) {
+    for (let i = 0; i < messages.length; i++) {
       resolveDebugMessage(request, messages[i]);
     }
*** End Patch
""",
    "c0116": """*** Begin Patch
*** Update File: utils.js
@@ export function pluralize(word: string): string {
-  if (!/^[a-z]*$/i.test(word)) {
+  if (!/^[a-z]+$/i.test(word)) {
*** End Patch
""",
}

__all__ = ["CASES", "FIXES"]
