// @ts-check
/**
 * The live view of one apply_patch tool call: an anywidget "AFM" module, the entry point of the
 * bundle. `make widget` bundles js/src/ into applypatch_ext/js/widget.js, one self-contained ES
 * module with no imports (anywidget loads it from a blob URL, where relative and CDN imports
 * fail).
 *
 * Python (`applypatch_ext/jupyter/live/widget.py`) owns the state: the view only renders the synced
 * traits, re-rendering a section when one of its traits changes, and sends messages back:
 * `{type: "approval", decision, request}` when an approval button is clicked (`request`: the
 * `request_id` of the request it answers; with `accept`, the files and chunks left ticked, when
 * a review has some unticked; with `reason`, the text beside Decline, for a decline that has
 * one), and `{type: "undo", kind}` / `{type: "undo-approval", decision, request}` from the Undo
 * and Redo buttons. It never decides what a
 * status or a stage means: Python sends it (the `vocabulary` trait: per status a label, a tone
 * the CSS styles and the flags the view branches on; per stage its label and evidence; per
 * safety decision its label and tone). It renders a bounded number of lines of any text, so
 * big patches stay cheap.
 *
 * The modules, each importing only from the floors below it (tests/js/modules.test.mjs checks):
 *   1 helpers.js       pure functions on plain values, LIMITS
 *   2 vocabulary.js    what statuses, stages and decisions mean (sent by Python)
 *   2 word-diff.js     a changed line's words: tokens, alignment (docs/diff-model.md)
 *   3 diff-model.js    a diff as rows: numbers, gaps, word marks, folds (docs/diff-model.md)
 *   4 dom.js           making elements; a section's frame
 *   5 diff-table.js    one file's rows as a table, unified or split
 *   6 diff-view.js     a section's files as folded blocks, toolbar, file list, time slices
 *   7 notebooks.js     notebooks as cells
 *   8 sections/*.js    one renderer per part of the view: `xxxSection()` -> {el, update(state)}
 *   9 view.js          SECTION_STATE, DEPENDENTS and render(), wiring the sections to the model
 *  10 widget.js        this entry
 */

import { render } from "./view.js";

export default { render };
