// @ts-check
/**
 * Floor 3, the diff model: pure functions from a unified diff (or a change record) to the rows
 * the diff view draws: line numbers, gaps, word-level changes (word-diff.js), syntax runs,
 * folds, the split view's pairs, the +/- bar. The static record (applypatch_ext/jupyter/records/
 * static_diff.py) keeps the same model in Python under one contract, docs/diff-model.md
 * (lengths in code points, the word classes of applypatch_ext/js/diff-words.json);
 * tests/jupyter/test_diff_contract.py compares the two over full Unicode.
 *
 * @typedef {{kind: string, text: string}} DiffLine
 * @typedef {{path: string, key: string, text: string, added: number, removed: number, lines: number, cut: number}} FileDiff
 */

import { arr, str } from "./helpers.js";
import { wordSegments } from "./word-diff.js";

/**
 * @typedef {import("./helpers.js").FileChange} FileChange
 * @typedef {import("./helpers.js").AppliedChange} AppliedChange
 * @typedef {import("./helpers.js").Delta} Delta
 * @typedef {import("./helpers.js").Segment} Segment
 * @typedef {import("./vocabulary.js").Meaning} Meaning
 */

/**
 * Classify the lines of a unified diff (a TurnDiff, a verified radius-1 diff, or a streaming
 * progress diff). Before a file's first `@@` the lines are headers, so a removed line that
 * starts with `--` is not mistaken for a `---` header.
 * @param {string} text
 * @returns {DiffLine[]}
 */
export function classifyDiffLines(text) {
  /** @type {DiffLine[]} */
  const out = [];
  if (!text) return out;
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  let inHunk = true; // a diff that starts without a file header is all hunk body
  for (const line of lines) {
    let kind;
    if (line.startsWith("diff --git ")) {
      kind = "file";
      inHunk = false;
    } else if (line.startsWith("@@")) {
      kind = "hunk";
      inHunk = true;
    } else if (!inHunk) {
      kind = "header";
    } else if (line.startsWith("+")) {
      kind = "add";
    } else if (line.startsWith("-")) {
      kind = "del";
    } else if (line.startsWith("\\") || line.startsWith("*** End of File")) {
      kind = "meta";
    } else {
      kind = "context";
    }
    out.push({ kind, text: line });
  }
  return out;
}

/**
 * The files of a TurnDiff, with their display paths and line counts. The paths come from the
 * blocks the kernel's tracker rendered (`turn_diff_files`: `old_path`, `path`, `diff`), never
 * from the `diff --git` header, which is ambiguous once a name contains ` b/`; a rename shows
 * as `old → new`. Without blocks (a state saved by an older kernel) the diff is one entry.
 * @param {string} diff
 * @param {unknown[]} [blocks]
 * @returns {FileDiff[]}
 */
export function splitTurnDiff(diff, blocks) {
  const list = Array.isArray(blocks) ? blocks : [];
  /** @type {{path: string, key: string, text: string, cut: number}[]} */
  const entries = list.length
    ? list.map((b) => {
        const block = b && typeof b === "object" ? /** @type {Record<string, unknown>} */ (b) : {};
        const path = String(block.path ?? "");
        const old = String(block.old_path ?? "");
        const shown = old && old !== path ? `${old} → ${path}` : path;
        return { path: shown, key: path, text: String(block.diff ?? ""), cut: Number(block.cut_lines) || 0 };
      })
    : diff
      ? [{ path: "turn diff", key: "", text: diff, cut: 0 }]
      : [];
  return entries.map(({ path, key, text, cut }) => ({ path, key, text, cut, ...countDiffLines(text) }));
}

/**
 * The added and removed lines of a diff, as classifyDiffLines would classify them, and all its
 * lines; counted without making a line object each (a 2 MB diff: no 40,000 objects).
 * @param {string} text
 * @returns {{added: number, removed: number, lines: number}}
 */
export function countDiffLines(text) {
  let added = 0;
  let removed = 0;
  let lines = 0;
  let inHunk = true;
  for (let at = 0; at < text.length; ) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    lines++;
    const c = text[at];
    if (c === "d" && text.startsWith("diff --git ", at)) inHunk = false;
    else if (c === "@" && text[at + 1] === "@") inHunk = true;
    else if (inHunk && c === "+") added++;
    else if (inHunk && c === "-") removed++;
    at = end + 1;
  }
  return { added, removed, lines };
}

/**
 * "Add" / "Delete" / "Update" / "Move" for a change record.
 * @param {FileChange | AppliedChange | null | undefined} change
 */
export function changeLabel(change) {
  const type = change?.type ?? "";
  if (type === "update" && change?.move_path) return "Move";
  return { add: "Add", delete: "Delete", update: "Update" }[type] ?? (type || "?");
}

/**
 * Lines of the diff shown for a planned or verified change.
 * @param {FileChange | null | undefined} change
 * @returns {DiffLine[]}
 */
export function changeDiffLines(change) {
  if (!change) return [];
  if (change.type === "update") return classifyDiffLines(change.unified_diff ?? "");
  if (change.type === "add") {
    const content = change.content ?? "";
    const lines = content.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return lines.map((l) => ({ kind: "add", text: "+" + l }));
  }
  return [];
}

/**
 * The verified change map next to the committed delta. Each row says whether the proposed
 * change is in the delta (`committed`), is missing from it (`missing`), differs from it (a move
 * that did not land), or cannot be known yet (`pending`) or ever (`not-run`: dry run, declined).
 * Delta entries that match no proposed change come last as `extra`.
 * @param {Record<string, FileChange> | null | undefined} proposed
 * @param {Delta | null | undefined} delta
 * @param {Meaning} meaning what the call's status means (see statusMeaning)
 * @returns {{path: string, change: FileChange | null, state: string, applied: AppliedChange | null}[]}
 */
export function compareChanges(proposed, delta, meaning) {
  const changes = Array.isArray(delta?.changes) ? delta.changes : [];
  const used = new Set();
  const open = !meaning.terminal;
  // nothing could run: a dry run, a decline, a call stopped before writing (an error, a refusal)
  const notRun = meaning.dry_run || ((meaning.user_declined || !meaning.wrote) && changes.length === 0);
  const rows = [];
  for (const [path, change] of Object.entries(proposed ?? {})) {
    const index = changes.findIndex((c, i) => !used.has(i) && c?.path === path);
    /** @type {AppliedChange | null} */
    let applied = null;
    let state;
    if (index >= 0) {
      used.add(index);
      applied = changes[index];
      const wantMove = change?.move_path ?? null;
      const gotMove = applied?.move_path ?? null;
      state = applied?.type === change?.type && wantMove === gotMove ? "committed" : "differs";
    } else {
      state = open ? "pending" : notRun ? "not-run" : "missing";
    }
    rows.push({ path, change: change ?? null, state, applied });
  }
  changes.forEach((c, i) => {
    if (!used.has(i)) rows.push({ path: c?.path ?? "", change: null, state: "extra", applied: c });
  });
  return rows;
}

/**
 * @typedef {string | [string, string][]} SourceLine a line as Python sends it (plain, or runs)
 * @typedef {{cls: string, text: string, differs?: boolean}} Run
 * @typedef {{type: "header" | "hunk" | "meta", text: string}
 *   | {type: "line", kind: string, text: string, old: number | null, new: number | null,
 *      words?: Segment[]}
 *   | {type: "gap", from: number, to: number, offset: number}} Row
 */

/** The `@@ -a,b +c,d @@` numbers (1-based starts; counts default to 1), or null. */
const HUNK_RE = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * The rows of one file's diff: its header lines, hunk lines, and each diff line with its old
 * and new line numbers (none for a progress diff, whose `@@` carries no numbers). Between two
 * hunks (and before the first, after the last when `newLines` is known) a `gap` row stands
 * for the unchanged lines `from..to` of the new side (`offset`: old number minus new number).
 * @param {DiffLine[]} lines (see classifyDiffLines)
 * @param {number} [newLines] the new side's line count, when known
 * @returns {Row[]}
 */
export function diffRows(lines, newLines = 0) {
  /** @type {Row[]} */
  const rows = [];
  let old = 0;
  let nu = 0;
  let numbered = false;
  let lastNew = 0; // the new side's last line shown by a hunk
  let offset = 0;
  for (const line of lines) {
    if (line.kind === "file" || line.kind === "header") {
      rows.push({ type: "header", text: line.text });
      continue;
    }
    if (line.kind === "hunk") {
      const m = HUNK_RE.exec(line.text);
      numbered = m !== null;
      if (m) {
        old = Number(m[1]) || 0;
        nu = Number(m[3]) || 0;
        // an empty side's start is the line before it (`-0,0`, `+5,0`)
        const oldStart = m[2] === "0" ? old + 1 : old;
        const newStart = m[4] === "0" ? nu + 1 : nu;
        if (newStart - 1 > lastNew)
          rows.push({ type: "gap", from: lastNew + 1, to: newStart - 1, offset: oldStart - newStart });
        if (m[2] === "0") old++;
        if (m[4] === "0") nu++;
      }
      rows.push({ type: "hunk", text: line.text });
      continue;
    }
    if (line.kind === "meta") {
      rows.push({ type: "meta", text: line.text });
      continue;
    }
    const body = line.text.slice(1);
    if (line.kind === "add") {
      rows.push({ type: "line", kind: "add", text: body, old: null, new: numbered ? nu++ : null });
    } else if (line.kind === "del") {
      rows.push({ type: "line", kind: "del", text: body, old: numbered ? old++ : null, new: null });
    } else {
      const text = line.text.startsWith(" ") ? body : line.text;
      rows.push({ type: "line", kind: "context", text, old: numbered ? old++ : null, new: numbered ? nu++ : null });
    }
    if (numbered) {
      lastNew = nu - 1;
      offset = old - nu;
    }
  }
  if (newLines > lastNew && lastNew > 0)
    rows.push({ type: "gap", from: lastNew + 1, to: newLines, offset });
  return rows;
}

/**
 * Pair each run of removed lines with the added lines that follow it (first with first) and
 * set their `words` (see wordSegments). Returns the rows, changed in place.
 * @param {Row[]} rows
 */
export function pairWords(rows) {
  let i = 0;
  while (i < rows.length) {
    const dels = [];
    while (i < rows.length && isLine(rows[i], "del")) dels.push(rows[i++]);
    const adds = [];
    while (i < rows.length && isLine(rows[i], "add")) adds.push(rows[i++]);
    for (let k = 0; k < Math.min(dels.length, adds.length); k++) {
      const d = /** @type {any} */ (dels[k]);
      const a = /** @type {any} */ (adds[k]);
      const pair = wordSegments(d.text, a.text);
      if (pair) [d.words, a.words] = pair;
    }
    if (!dels.length && !adds.length) i++;
  }
  return rows;
}

/** @param {Row} row @param {string} kind */
export function isLine(row, kind) {
  return row.type === "line" && row.kind === kind;
}

/**
 * The lines Python sent for one side (`[[first, [line, ...]], ...]` ranges) by line number.
 * @param {unknown} ranges
 * @returns {Map<number, SourceLine>}
 */
export function sourceLines(ranges) {
  /** @type {Map<number, SourceLine>} */
  const map = new Map();
  for (const range of arr(ranges)) {
    if (!Array.isArray(range) || typeof range[0] !== "number") continue;
    arr(range[1]).forEach((line, k) => {
      if (typeof line === "string" || Array.isArray(line)) map.set(range[0] + k, line);
    });
  }
  return map;
}

/**
 * The runs of a line: its syntax runs when Python sent the line (and it is the same text),
 * else the text as one plain run; with the word-level `words` laid over them (`differs`).
 * Classes are kept only when they are short names (never markup: the DOM gets text nodes).
 * @param {string} text
 * @param {SourceLine | undefined} source
 * @param {Segment[] | undefined} [words]
 * @returns {Run[]}
 */
export function lineRuns(text, source, words) {
  /** @type {Run[]} */
  let runs = [{ cls: "", text }];
  if (Array.isArray(source)) {
    const syntax = source
      .filter((r) => Array.isArray(r) && typeof r[1] === "string")
      .map((r) => ({ cls: /^[a-z]$/.test(str(r[0])) ? str(r[0]) : "", text: r[1] }));
    if (syntax.map((r) => r.text).join("") === text) runs = syntax;
  }
  if (!Array.isArray(words) || words.map((w) => w[1]).join("") !== text) return runs;
  /** @type {Run[]} */
  const out = [];
  let w = 0;
  let wLeft = words.length ? words[0][1].length : 0;
  for (const run of runs) {
    let rest = run.text;
    while (rest.length) {
      while (wLeft === 0 && w < words.length - 1) wLeft = words[++w][1].length;
      const take = Math.min(rest.length, wLeft || rest.length);
      out.push({ cls: run.cls, text: rest.slice(0, take), differs: Boolean(words[w]?.[0]) });
      rest = rest.slice(take);
      wLeft -= take;
    }
  }
  return out;
}

/** How the diff view folds: runs longer than `max` rows keep `head` + `tail`; a fold opened
 * renders at most `expand` rows at a time; a gap of unchanged lines opens whole. */
export const FOLDS = Object.freeze({ max: 60, head: 20, tail: 10, expand: 1000 });

/**
 * Long runs of rows of one kind (an added or deleted file's lines, a long rewrite) keep their
 * first `head` and last `tail` rows; the middle becomes a fold, unless `open` has its id.
 * @param {Row[]} rows
 * @param {{max: number, head: number, tail: number}} limits
 * @param {Set<string>} [open] the ids of the folds the reader opened
 * @returns {(Row | {type: "fold", id: string, rows: Row[]})[]}
 */
export function foldRuns(rows, limits, open = new Set()) {
  /** @type {(Row | {type: "fold", id: string, rows: Row[]})[]} */
  const out = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    const kind = row.type === "line" ? row.kind : null;
    let j = i + 1;
    if (kind) while (j < rows.length && isLine(rows[j], kind)) j++;
    const run = rows.slice(i, j);
    const id = `${kind}:${i}`;
    if (kind && run.length > limits.max && !open.has(id)) {
      out.push(...run.slice(0, limits.head));
      out.push({ type: "fold", id, rows: run.slice(limits.head, run.length - limits.tail) });
      out.push(...run.slice(run.length - limits.tail));
    } else {
      out.push(...run);
    }
    i = j;
  }
  return out;
}

/**
 * The split view's rows: context on both sides; each removed line next to the added line it
 * is paired with (first with first, in a run); other rows across the whole width.
 * @param {Row[]} rows
 * @returns {({type: "pair", left: Row | null, right: Row | null} | Row | {type: "fold", id: string, rows: Row[]})[]}
 */
export function splitRows(rows) {
  /** @type {any[]} */
  const out = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i];
    if (row.type !== "line") {
      out.push(row);
      i++;
      continue;
    }
    if (row.kind === "context") {
      out.push({ type: "pair", left: row, right: row });
      i++;
      continue;
    }
    const dels = [];
    while (i < rows.length && isLine(rows[i], "del")) dels.push(rows[i++]);
    const adds = [];
    while (i < rows.length && isLine(rows[i], "add")) adds.push(rows[i++]);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++)
      out.push({ type: "pair", left: dels[k] ?? null, right: adds[k] ?? null });
  }
  return out;
}

/**
 * The five blocks of a file's +/- bar (like a code host's): added, removed, unchanged.
 * @param {number} added
 * @param {number} removed
 * @returns {string[]} five of "add", "del", "none"
 */
export function changeBar(added, removed) {
  const total = added + removed;
  if (total === 0) return ["none", "none", "none", "none", "none"];
  const blocks = Math.min(5, total);
  let adds = Math.round((added / total) * blocks);
  if (added > 0 && adds === 0) adds = 1;
  if (removed > 0 && adds === blocks) adds = blocks - 1;
  const dels = blocks - adds;
  return [...Array(adds).fill("add"), ...Array(dels).fill("del"), ...Array(5 - blocks).fill("none")];
}

/**
 * The rows of a change of the verified map or the plan: an Update's diff, an Add's content as
 * added lines, a Delete's content as removed lines, numbered.
 * @param {Record<string, any>} change
 * @param {Record<string, any>} source the change's entry of `sources` (its `new_lines`)
 * @returns {Row[]}
 */
export function changeRows(change, source = {}) {
  if (change.type === "update") return diffRows(classifyDiffLines(str(change.unified_diff)), Number(source.new_lines) || 0);
  const text = str(change.content);
  const lines = text ? text.split("\n") : [];
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  if (change.type === "add")
    return lines.map((t, i) => ({ type: "line", kind: "add", text: t.replace(/\r$/, ""), old: null, new: i + 1 }));
  if (change.type === "delete")
    return lines.map((t, i) => ({ type: "line", kind: "del", text: t.replace(/\r$/, ""), old: i + 1, new: null }));
  return [];
}
