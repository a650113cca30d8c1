// The widget's diff model (js/src/diff-model.js, word-diff.js) as a process: one JSON request per line on
// stdin, one JSON answer per line on stdout, in the contract's shapes (docs/diff-model.md).
// tests/jupyter/test_diff_contract.py starts it once and compares every answer with
// applypatch_ext/jupyter/records/static_diff.py on the same inputs. Not a test file of its own.
import { createInterface } from "node:readline";

import { FOLDS, changeBar, changeRows, classifyDiffLines, diffRows, foldRuns, pairWords } from "../../js/src/diff-model.js";
import { WORD_DIFF_CELLS, WORD_DIFF_MIN_SAME, wordSegments } from "../../js/src/word-diff.js";

/** A row in the contract's shape (the gap's `offset` is the widget's own: it opens gaps). */
const contractRow = (/** @type {any} */ row) => {
  const { offset, ...rest } = row;
  return rest;
};

const handlers = {
  limits: () => ({ ...FOLDS, cells: WORD_DIFF_CELLS, minSame: WORD_DIFF_MIN_SAME }),
  words: (/** @type {[string, string][]} */ pairs) => pairs.map(([a, b]) => wordSegments(a, b)),
  bars: (/** @type {[number, number][]} */ bars) => bars.map(([a, r]) => changeBar(a, r)),
  diff: (/** @type {string} */ text) => ({
    rows: pairWords(diffRows(classifyDiffLines(text))).map(contractRow),
    folds: foldRuns(diffRows(classifyDiffLines(text)), FOLDS).map((r) =>
      r.type === "fold" ? ["fold", r.rows.length] : [r.type, 1],
    ),
  }),
  content: (/** @type {[string, string]} */ [type, content]) =>
    changeRows({ type, content }).map(contractRow),
};

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  const { op, args } = JSON.parse(line);
  process.stdout.write(JSON.stringify(/** @type {any} */ (handlers)[op](args)) + "\n");
}
