// @ts-check
/**
 * The live view of one apply_patch tool call: an anywidget "AFM" module.
 *
 * One self-contained file with no imports (anywidget loads it from a blob URL, where relative
 * and CDN imports fail). Python (`applypatch_ext/jupyter/widget.py`) owns the state: this module
 * only renders the synced traits, re-rendering a section when one of its traits changes, and
 * sends messages back: `{type: "approval", decision}` when an approval button is clicked (with
 * `accept`, the files and chunks left ticked, when a review has some unticked; with `reason`, the text
 * beside Decline, for a decline that has one), and `{type: "undo", kind}` /
 * `{type: "undo-approval", decision}` from the Undo and Redo buttons.
 * It never decides what a status or a stage means: Python sends it (the `vocabulary` trait:
 * per status a label, a tone the CSS styles and the flags the view branches on; per stage its
 * label and evidence; per safety decision its label and tone). It renders a bounded number of
 * lines of any text, so big patches stay cheap.
 *
 * Layout: pure helpers, then one section renderer per part of the view (`xxxSection()` makes
 * its DOM and returns `{el, update(state)}`), then SECTION_STATE (the state each section reads
 * from the model), DEPENDENTS (which traits re-render which section) and render(), which wires
 * them. All are named exports so that `node --test js/` can test them without a real DOM.
 */

/**
 * @typedef {{type?: string, content?: string, unified_diff?: string, move_path?: string | null}} FileChange
 * @typedef {{type?: string, path?: string, move_path?: string | null}} AppliedChange
 * @typedef {{changes?: AppliedChange[], exact?: boolean}} Delta
 * @typedef {[boolean, string]} Segment
 * @typedef {{differs: boolean, kind: string, text: string, title?: string}} Token
 * @typedef {{kind: string, text: string}} DiffLine
 * @typedef {{path: string, key: string, text: string, added: number, removed: number, lines: number, cut: number}} FileDiff
 * @typedef {{t: number, k: string, v: string | number}} HistoryEntry
 * @typedef {{
 *   get(name: string): any,
 *   on(event: string, callback: (...args: any[]) => void): void,
 *   off(event: string, callback: (...args: any[]) => void): void,
 *   send(content: any): void,
 * }} Model
 */

/** How much of any text is rendered; the rest is summarised by a "… N more lines" marker. */
export const LIMITS = Object.freeze({
  patchLines: 400,
  diffLines: 1500,
  fileDiffLines: 300,
  changeDiffLines: 120,
  rows: 200,
  events: 300,
  explanationPairs: 200,
  history: 1000,
});

// ---------------------------------------------------------------------------------------------
// what statuses, stages and decisions mean: sent by Python (the `vocabulary` trait, built by
// `call_vocabulary()` in jupyter/vocabulary.py); the view branches on these meanings, never on a
// name

/**
 * @typedef {{label: string, tone: string, terminal: boolean, wrote: boolean, success: boolean,
 *   dry_run: boolean, user_declined: boolean, summary: string, known: boolean}} Meaning
 * @typedef {{name: string, label: string, evidence: string | null, writes: boolean}} Stage
 */

/**
 * What `status` means: its entry in the vocabulary, else the vocabulary's `unknown` meaning
 * (shown as the status itself). Without a vocabulary (a state saved before it existed) only
 * the trait's own contract is known: an empty status is a call still running.
 * @param {unknown} vocabulary
 * @param {unknown} status
 * @returns {Meaning}
 */
export function statusMeaning(vocabulary, status) {
  const s = str(status);
  const table = obj(obj(vocabulary).statuses);
  const entry = Object.prototype.hasOwnProperty.call(table, s) ? obj(table[s]) : null;
  const base = entry ?? obj(obj(vocabulary).unknown);
  const flag = (/** @type {string} */ name, /** @type {boolean} */ otherwise) =>
    typeof base[name] === "boolean" ? base[name] : otherwise;
  return {
    label: str(base.label) || s,
    tone: /^[a-z-]+$/.test(str(base.tone)) ? str(base.tone) : "neutral",
    terminal: flag("terminal", s !== ""),
    wrote: flag("wrote", true),
    success: flag("success", false),
    dry_run: flag("dry_run", false),
    user_declined: flag("user_declined", false),
    summary: str(base.summary) || "error",
    known: entry !== null || Object.keys(table).length === 0,
  };
}

/**
 * The stages of the vocabulary, in order (entries without a name are dropped).
 * @param {unknown} vocabulary
 * @returns {Stage[]}
 */
export function stageList(vocabulary) {
  return arr(obj(vocabulary).stages)
    .map(obj)
    .filter((st) => typeof st.name === "string" && st.name !== "")
    .map((st) => ({
      name: st.name,
      label: str(st.label) || st.name,
      evidence: typeof st.evidence === "string" && st.evidence ? st.evidence : null,
      writes: st.writes === true,
    }));
}

/**
 * The answers an approval button can send (Python's `Decision`), in the order of the buttons,
 * each with its label and the button's test id: the vocabulary's `decisions` (entries without a
 * decision are dropped; without a vocabulary, a saved state, there is no button to click). An
 * approving answer has a `selectedLabel` too: its button's words while some files or chunks of
 * a review are unticked, when it approves the ticked ones only (see approvalSection).
 * @param {unknown} vocabulary
 * @returns {{decision: string, label: string, testid: string, approves: boolean, selectedLabel: string}[]}
 */
export function decisionList(vocabulary) {
  return arr(obj(vocabulary).decisions)
    .map(obj)
    .filter((d) => typeof d.decision === "string" && d.decision !== "")
    .map((d) => ({
      decision: d.decision,
      label: str(d.label) || d.decision,
      testid: str(d.testid) || `applypatch-${d.decision}`,
      approves: d.approves !== false,
      selectedLabel: d.approves !== false ? str(d.selected_label) || `${str(d.label) || d.decision} selected` : "",
    }));
}

/**
 * What the approving buttons say and do for the ticks of a review: everything ticked, the plain
 * answer; some unticked, the ticked ones only, with the count (`Approve selected (3 of 5)`) and
 * what is left out, in the words the model will read (`a.txt chunk 2 of 3`); nothing ticked, no
 * approval at all (the buttons are off: Decline is the answer). Pure: approvalSection renders it.
 * @param {{kept: number, total: number, left: string[]} | null} ticks null: no review to follow
 * @returns {{partial: boolean, none: boolean, suffix: string, hint: string}}
 */
export function tickState(ticks) {
  if (!ticks || ticks.total === 0 || ticks.kept === ticks.total)
    return { partial: false, none: false, suffix: "", hint: "" };
  if (ticks.kept === 0)
    return { partial: true, none: true, suffix: "", hint: "Nothing is ticked: tick what to apply, or Decline the whole patch." };
  const { shown, hidden } = truncate(ticks.left, 8);
  const listed = shown.join(", ") + (hidden ? ` and ${hidden} more` : "");
  return {
    partial: true,
    none: false,
    suffix: ` (${ticks.kept} of ${ticks.total})`,
    hint: `Approving applies the ticked ${ticks.kept} of ${ticks.total} only; not applied: ${listed}`,
  };
}

/**
 * The selection of a review as the message's `accept`: per path as the patch writes it, true
 * (all of it), false (none of it) or the chunk indexes kept (an Update partly kept). Files whose
 * path comes twice (folded hunks) merge their chunks.
 * @param {{path: string, whole: boolean, chunks: {index: number}[]}[]} files
 * @param {(file: number, chunk: number | null) => boolean} selected file position, chunk index
 *   (null: the file's own toggle, for a file that is all or nothing)
 * @returns {Record<string, boolean | number[]>}
 */
export function reviewAccept(files, selected) {
  /** @type {Record<string, {kept: number[], total: number, whole: boolean | null}>} */
  const byPath = {};
  files.forEach((f, i) => {
    const entry = (byPath[f.path] ??= { kept: [], total: 0, whole: null });
    if (f.whole || f.chunks.length === 0) {
      entry.whole = selected(i, null);
      return;
    }
    for (const c of f.chunks) {
      entry.total += 1;
      if (selected(i, c.index)) entry.kept.push(c.index);
    }
  });
  /** @type {Record<string, boolean | number[]>} */
  const accept = {};
  for (const [path, e] of Object.entries(byPath)) {
    if (e.whole !== null) accept[path] = e.whole;
    else if (e.kept.length === e.total) accept[path] = true;
    else if (e.kept.length === 0) accept[path] = false;
    else accept[path] = e.kept;
  }
  return accept;
}

/**
 * The label of `stage`; the stage itself when unknown; the first stage's when empty.
 * @param {Stage[]} stages
 * @param {string} stage
 */
export function stageLabel(stages, stage) {
  if (!stage) return stages[0]?.label ?? "";
  return stages.find((st) => st.name === stage)?.label ?? stage;
}

// ---------------------------------------------------------------------------------------------
// pure helpers

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
  /** @type {{path: string, text: string}[]} */
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
 * How many lines `text` has, as a file's lines (a last line without a newline counts; an empty
 * text has none).
 * @param {string} text
 */
export function textLineCount(text) {
  let n = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) n++;
  return text && !text.endsWith("\n") ? n + 1 : n;
}

/**
 * The lines to render out of `count` (bounded by `max`): the first ones, or, when `focus` (a
 * 1-based line being streamed) is past them, a window ending a little after it.
 * @param {number} count
 * @param {number} focus
 * @param {number} max
 * @returns {{start: number, end: number}}
 */
export function windowLines(count, focus, max) {
  if (count <= max) return { start: 0, end: count };
  if (!(focus > 0) || focus <= max) return { start: 0, end: max };
  const end = Math.min(count, focus + Math.floor(max / 10));
  return { start: Math.max(0, end - max), end };
}

/**
 * @template T
 * @param {T[]} items
 * @param {number} max
 * @returns {{shown: T[], hidden: number}}
 */
export function truncate(items, max) {
  if (items.length <= max) return { shown: items, hidden: 0 };
  return { shown: items.slice(0, max), hidden: items.length - max };
}

/**
 * The "… N more lines" marker text.
 * @param {number} hidden
 * @param {string} [noun]
 * @param {string} [where]
 */
export function moreText(hidden, noun = "line", where = "more") {
  return `… ${hidden} ${where} ${noun}${hidden === 1 ? "" : "s"}`;
}

/**
 * Hex code point label, e.g. `U+00A0`.
 * @param {string} ch
 */
export function codePoint(ch) {
  const cp = ch.codePointAt(0) ?? 0;
  return "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
}

/**
 * How one character is shown. Whitespace that decides a match is made visible: tabs, CRs and
 * non-ASCII spaces always; plain spaces where they differ or trail. Non-ASCII punctuation
 * (typographic quotes, dashes) and invisible format characters are highlighted, titled with
 * their code point.
 * @param {string} ch
 * @param {boolean} showSpace
 * @returns {{kind: string, text: string, title?: string}}
 */
function visibleChar(ch, showSpace) {
  if (ch === " ")
    return showSpace ? { kind: "space", text: "·", title: "space" } : { kind: "text", text: ch };
  if (ch === "\t") return { kind: "tab", text: "→", title: "tab" };
  if (ch === "\r") return { kind: "cr", text: "␍", title: "carriage return (CR)" };
  if (ch === "\n") return { kind: "cr", text: "␊", title: "line feed (LF)" };
  if (ch.charCodeAt(0) < 0x80) return { kind: "text", text: ch };
  if (/\p{Zs}/u.test(ch)) return { kind: "nbsp", text: "⍽", title: `${codePoint(ch)} (a non-ASCII space)` };
  if (/\p{Cf}/u.test(ch))
    return { kind: "invisible", text: `⟨${codePoint(ch)}⟩`, title: "invisible character" };
  if (/[\p{P}\p{S}]/u.test(ch))
    return { kind: "typo", text: ch, title: `${codePoint(ch)} (typographic punctuation)` };
  return { kind: "text", text: ch };
}

/**
 * Whitespace and look-alike characters of one line made visible, keeping the explanation's
 * `[differs, text]` segments. Consecutive characters of one kind are merged into one token.
 * @param {Segment[] | null | undefined} segments
 * @returns {Token[]}
 */
export function visibleSegments(segments) {
  /** @type {Token[]} */
  const tokens = [];
  if (!Array.isArray(segments)) return tokens;
  const clean = segments.filter((s) => Array.isArray(s) && typeof s[1] === "string");
  const line = clean.map((s) => s[1]).join("");
  let trailing = line.length;
  while (trailing > 0 && /\s/.test(line[trailing - 1])) trailing--;
  let offset = 0;
  for (const [differs, text] of clean) {
    for (const ch of text) {
      const v = visibleChar(ch, Boolean(differs) || offset >= trailing);
      offset += ch.length;
      const last = tokens[tokens.length - 1];
      if (last && last.kind === v.kind && last.differs === Boolean(differs) && last.title === v.title) {
        last.text += v.text;
      } else {
        tokens.push({ differs: Boolean(differs), ...v });
      }
    }
  }
  return tokens;
}

/**
 * @param {string} text
 * @returns {Token[]}
 */
export function visibleText(text) {
  return visibleSegments(typeof text === "string" ? [[false, text]] : []);
}

/**
 * `path` relative to `cwd` when it is inside it.
 * @param {string} path
 * @param {string} cwd
 */
export function relativePath(path, cwd) {
  if (!path) return "";
  if (!cwd) return path;
  const base = cwd.endsWith("/") || cwd.endsWith("\\") ? cwd : cwd + "/";
  return path.startsWith(base) ? path.slice(base.length) : path;
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
  const notRun = meaning.dry_run || (meaning.user_declined && changes.length === 0);
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

/** Tooltips of the stage states that need one. */
const STAGE_TITLES = /** @type {Record<string, string>} */ (
  Object.freeze({
    skipped: "not needed for this call",
    unreached: "not reached: the call stopped before",
  })
);

/**
 * Each stage with its state: `done`, `active`, `todo`, `skipped` (passed without its
 * `evidence`, the event that proves a call went through a stage it may skip, or a stage that
 * `writes` when the status says the call wrote nothing or was declined), `failed` (where a
 * call stopped without success: Python sends that stage, `done` for a completed call) or
 * `unreached` (after the stage where a call stopped).
 * @param {Stage[]} stages
 * @param {string} stage
 * @param {Meaning} meaning what the call's status means (see statusMeaning)
 * @param {string[]} [eventTypes] the types of the call's events so far
 * @returns {{name: string, label: string, state: string}[]}
 */
export function stageStates(stages, stage, meaning, eventTypes = []) {
  const list = Array.isArray(stages) ? stages : [];
  const seen = new Set(Array.isArray(eventTypes) ? eventTypes : []);
  const at = list.findIndex((st) => st.name === stage);
  const ended = meaning.terminal;
  const bad = ended && !meaning.success;
  /** @param {Stage} st */
  const skipped = (st) =>
    (st.writes && (!meaning.wrote || meaning.user_declined)) ||
    (st.evidence !== null && !seen.has(st.evidence));
  return list.map((st, i) => {
    /** @type {string} */
    let state = "todo";
    if (at < 0) state = "todo";
    else if (i < at) state = skipped(st) ? "skipped" : "done";
    else if (i === at) state = !ended ? "active" : bad ? "failed" : "done";
    else if (bad) state = "unreached";
    return { name: st.name, label: st.label, state };
  });
}

/**
 * `+1.234s`: an event's time relative to the first event shown.
 * @param {number} time
 * @param {number} base
 */
export function formatOffset(time, base) {
  const t = Number(time);
  const b = Number(base);
  if (!Number.isFinite(t)) return "";
  return `+${(t - (Number.isFinite(b) ? b : 0)).toFixed(3)}s`;
}

/**
 * The one-line summary in the header, in the form the status's meaning names (`summary`).
 * @param {{stage?: string, planned?: Record<string, FileChange>, proposed?: Record<string, FileChange>,
 *   delta?: Delta, approval?: {files?: string[]}, error?: string}} s (`stage`: its label)
 * @param {Meaning} meaning what the call's status means (see statusMeaning)
 */
export function summaryText(s, meaning) {
  const count = (/** @type {object | undefined} */ o) => Object.keys(o ?? {}).length;
  const files = (/** @type {number} */ n) => `${n} file${n === 1 ? "" : "s"}`;
  const committed = Array.isArray(s.delta?.changes) ? s.delta.changes.length : 0;
  const proposed = count(s.proposed);
  const label = meaning.label;
  switch (meaning.summary) {
    case "progress": {
      const planned = count(s.planned);
      return `${s.stage ?? ""}…` + (planned ? ` ${files(planned)} planned, nothing written yet` : "");
    }
    case "approval":
      return `waiting for approval of ${files((s.approval?.files ?? []).length || proposed)}; nothing written yet`;
    case "verified-only": // the status's label already says "dry run (nothing written)"
      return `${files(proposed)} verified`;
    case "changed":
      return `${files(committed)} changed`;
    case "nothing-written":
      return `${label}: nothing written`;
    case "committed-of-proposed": {
      const exact = s.delta?.exact === false ? " (inexact: a lower bound)" : "";
      return `${label}: ${committed} of ${files(proposed)} committed${exact}`;
    }
    default:
      return s.error ? `${label}: ${firstLine(s.error)}` : label;
  }
}

/** The summary forms summaryText knows (Python's `summary` values; test_widget.py checks). */
export const SUMMARY_FORMS = Object.freeze([
  "progress",
  "approval",
  "verified-only",
  "changed",
  "nothing-written",
  "committed-of-proposed",
  "error",
]);

/** @param {string} text */
function firstLine(text) {
  const line = String(text).split("\n", 1)[0];
  return line.length > 160 ? line.slice(0, 159) + "…" : line;
}

/**
 * Append `{t, k, v}` to `history` unless `v` equals the last value recorded for `k`; keep at
 * most `limit` entries (the oldest go first).
 * @param {HistoryEntry[]} history
 * @param {string} k
 * @param {string | number} v
 * @param {number} t
 * @param {number} [limit]
 */
export function recordHistory(history, k, v, t, limit = LIMITS.history) {
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i].k === k) {
      if (history[i].v === v) return history;
      break;
    }
  }
  history.push({ t, k, v });
  if (history.length > limit) history.splice(0, history.length - limit);
  return history;
}

/**
 * The number of lines of a text (a final newline does not start another line).
 * @param {string} text
 */
export function lineCount(text) {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

// ---------------------------------------------------------------------------------------------
// the diff view's pure helpers: hunks and line numbers, word-level changes, syntax runs, folds

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

/** Words, runs of spaces and single other characters: the units a word-level diff compares. */
const WORD_RE = /[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu;

/** The longest common subsequence of two token lists is only computed below this product. */
const WORD_DIFF_CELLS = 40000;

/**
 * The changed words of a removed line `a` and its added counterpart `b`, as the explanation's
 * `[differs, text]` segments per side; null when the lines share too little to pair (then the
 * whole line is the change) or are too long to compare.
 * @param {string} a
 * @param {string} b
 * @returns {[Segment[], Segment[]] | null}
 */
export function wordSegments(a, b) {
  const x = a.match(WORD_RE) ?? [];
  const y = b.match(WORD_RE) ?? [];
  if (x.length * y.length > WORD_DIFF_CELLS) return null;
  const n = x.length;
  const m = y.length;
  // lcs[i][j]: the LCS length of x[i:] and y[j:]
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  /** @type {Segment[]} */
  const left = [];
  /** @type {Segment[]} */
  const right = [];
  /** @param {Segment[]} side @param {boolean} differs @param {string} text */
  const push = (side, differs, text) => {
    const last = side[side.length - 1];
    if (last && last[0] === differs) last[1] += text;
    else side.push([differs, text]);
  };
  let same = 0;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      push(left, false, x[i]);
      push(right, false, y[j]);
      if (/\S/.test(x[i])) same += x[i].length;
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      push(right, true, y[j++]);
    } else {
      push(left, true, x[i++]);
    }
  }
  const visible = Math.max(a.replace(/\s/g, "").length, b.replace(/\s/g, "").length);
  if (visible > 0 && same / visible < 0.4) return null; // a rewrite, not an edit
  return [left, right];
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
function isLine(row, kind) {
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

/** Where the reader's choice of unified or split view is remembered. */
export const MODE_KEY = "applypatch-diff-mode";

/**
 * The remembered view mode: "unified" or "split" ("unified" when storage is unavailable).
 * @param {{getItem(key: string): string | null} | null | undefined} storage
 */
export function loadMode(storage) {
  try {
    return storage?.getItem(MODE_KEY) === "split" ? "split" : "unified";
  } catch {
    return "unified";
  }
}

/**
 * Remember the view mode; false when storage refuses (private mode, quota, sandboxed frame).
 * @param {{setItem(key: string, value: string): void} | null | undefined} storage
 * @param {string} mode
 */
export function saveMode(storage, mode) {
  try {
    if (!storage) return false;
    storage.setItem(MODE_KEY, mode === "split" ? "split" : "unified");
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// DOM

/**
 * Create an element: `h("div", {class: "x", "data-testid": "y"}, child, "text", ...)`.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.className = String(value);
    else if (name === "text") el.textContent = String(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
  return el;
}

/**
 * Replace the children of `el`, skipping null / undefined / false (the DOM would insert the
 * text "null").
 * @param {HTMLElement} el
 * @param {...(Node | string | null | undefined | false)} children
 */
function fill(el, ...children) {
  el.replaceChildren(
    .../** @type {(Node | string)[]} */ (
      children.filter((c) => c !== null && c !== undefined && c !== false)
    ),
  );
}

/** @param {Token[]} tokens */
function tokenSpans(tokens) {
  return tokens.map((t) =>
    t.kind === "text" && !t.differs
      ? t.text
      : h("span", {
          class: `applypatch-tok applypatch-tok-${t.kind}${t.differs ? " applypatch-differs" : ""}`,
          title: t.title ?? (t.differs ? "differs" : null),
          text: t.text,
        }),
  );
}

/**
 * @param {string} title
 * @param {string} testid
 * @param {boolean} open
 * @param {Node | null} [badge] shown before the title
 */
function section(title, testid, open, badge = null) {
  const heading = h("span", { class: "applypatch-section-title", text: title });
  const note = h("span", { class: "applypatch-section-note" });
  const body = h("div", { class: "applypatch-section-body" });
  const el = /** @type {HTMLDetailsElement} */ (
    h(
      "details",
      { class: "applypatch-section", "data-testid": testid, open },
      h("summary", null, badge, heading, note),
      body,
    )
  );
  return { el, note, body };
}

/** @param {unknown} v */
const str = (v) => (typeof v === "string" ? v : v === null || v === undefined ? "" : String(v));
/** @param {unknown} v @returns {Record<string, any>} */
const obj = (v) => (v && typeof v === "object" && !Array.isArray(v) ? /** @type {any} */ (v) : {});
/** @param {unknown} v @returns {any[]} */
const arr = (v) => (Array.isArray(v) ? v : []);

// ---------------------------------------------------------------------------------------------
// the diff view: a table per file (gutters, syntax runs, word highlight, folds), unified or
// split; a toolbar and a file list per section

/** How the diff view folds: runs longer than `max` rows keep `head` + `tail`; a fold opened
 * renders at most `expand` rows at a time; a gap of unchanged lines opens whole. */
export const FOLDS = Object.freeze({ max: 60, head: 20, tail: 10, expand: 1000 });

/** The page's storage, or null where reading it throws (a sandboxed frame). */
function pageStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The view mode shared by every diff view of the page, remembered across reloads. */
const modes = {
  mode: loadMode(pageStorage()),
  /** @type {Set<(mode: string) => void>} */
  listeners: new Set(),
  /** @param {string} mode */
  set(mode) {
    this.mode = mode === "split" ? "split" : "unified";
    saveMode(pageStorage(), this.mode);
    for (const fn of [...this.listeners]) fn(this.mode);
  },
};

/**
 * A line's code cell: syntax runs (CSS classes `applypatch-hl-x`), changed words marked.
 * @param {Run[]} runs
 */
function codeNodes(runs) {
  return runs.map((r) =>
    !r.cls && !r.differs
      ? r.text
      : h("span", {
          class: [r.cls ? `applypatch-hl-${r.cls}` : "", r.differs ? "applypatch-word" : ""].filter(Boolean).join(" "),
          text: r.text,
        }),
  );
}

const SIGNS = /** @type {Record<string, string>} */ ({ add: "+", del: "-", context: " " });
const KIND_WORDS = /** @type {Record<string, string>} */ ({ add: "added", del: "removed", context: "unchanged" });

/**
 * @typedef {{old: Map<number, SourceLine>, new: Map<number, SourceLine>}} Sources
 * @typedef {{rows: Row[], sources: Sources, preview: boolean, limit?: number}} FileView
 */

/** @param {Row & {type: "line"}} row @param {Sources} sources */
function runsOf(row, sources) {
  const source = row.kind === "del" ? sources.old.get(row.old ?? -1) : sources.new.get(row.new ?? -1);
  return lineRuns(row.text, source, row.words);
}

/** @param {number | null} n @param {string} side */
function gutter(n, side) {
  return h("td", {
    class: `applypatch-gutter applypatch-gutter-${side}`,
    "data-line": n ?? null,
    "aria-hidden": "true",
    text: n === null ? "" : String(n),
  });
}

/**
 * A row across the whole table: a header, a hunk line, a marker, a fold or gap button.
 * @param {number} span
 * @param {string} cls
 * @param {...(Node | string | null)} children
 */
function wideRow(span, cls, ...children) {
  return h("tr", { class: cls }, h("td", { class: "applypatch-code", colspan: span }, ...children));
}

/** The row lists whose removed and added lines have been paired (see pairWords). */
const PAIRED = new WeakSet();

/**
 * The table of one file's diff in `mode`; folds and gaps call `onOpen(id)` when clicked.
 * @param {FileView} file
 * @param {string} mode "unified" or "split"
 * @param {Set<string>} opened fold and gap ids the reader opened
 * @param {(id: string) => void} onOpen
 */
export function diffTable(file, mode, opened, onOpen) {
  // the changed words are found when a file is first shown (a closed file costs nothing)
  if (!PAIRED.has(file.rows)) {
    pairWords(file.rows);
    PAIRED.add(file.rows);
  }
  const split = mode === "split";
  const span = 4; // the columns of both views: two gutters and sign + code, or two halves
  const { sources } = file;
  /** @type {HTMLElement[]} */
  const trs = [];
  /** @param {string} id @param {number} count @param {string} what */
  const button = (id, count, what) => {
    const b = h("button", {
      type: "button",
      class: "applypatch-expand",
      "data-fold": id,
      "aria-expanded": "false",
      "aria-label": `Show ${count} ${what} line${count === 1 ? "" : "s"}`,
      text: `⋯ Show ${count} ${what} line${count === 1 ? "" : "s"}`,
    });
    b.addEventListener("click", () => onOpen(id));
    return b;
  };
  /** @param {Row & {type: "line"}} row */
  const unifiedLine = (row) =>
    h(
      "tr",
      { class: `applypatch-dl applypatch-dl-${row.kind}`, "data-kind": row.kind },
      gutter(row.old, "old"),
      gutter(row.new, "new"),
      h("td", { class: "applypatch-sign", "aria-label": KIND_WORDS[row.kind], text: SIGNS[row.kind] }),
      h("td", { class: "applypatch-code" }, ...codeNodes(runsOf(row, sources))),
    );
  /** @param {Row & {type: "line"} | null} row @param {string} side */
  const half = (row, side) => {
    const kind = row === null ? "empty" : row.kind;
    const n = row === null ? null : side === "old" ? row.old : row.new;
    return [
      gutter(n, side),
      h(
        "td",
        {
          class: `applypatch-code applypatch-half applypatch-half-${kind}`,
          "aria-label": row === null ? "no line" : null,
        },
        ...(row === null ? [] : codeNodes(runsOf(row, sources))),
      ),
    ];
  };
  /** @param {any} row */
  const emit = (row) => {
    if (row.type === "header") trs.push(wideRow(span, "applypatch-dl applypatch-dl-header", row.text));
    else if (row.type === "hunk") trs.push(wideRow(span, "applypatch-dl applypatch-dl-hunk", row.text));
    else if (row.type === "meta") trs.push(wideRow(span, "applypatch-dl applypatch-dl-meta", row.text));
    else if (row.type === "pair") {
      const kind = row.left === row.right ? "context" : "change";
      trs.push(h("tr", { class: `applypatch-dl applypatch-dl-${kind}` }, ...half(row.left, "old"), ...half(row.right, "new")));
    } else if (row.type === "line") trs.push(unifiedLine(row));
  };
  /** @param {any[]} rows */
  const emitAll = (rows) => {
    for (const row of split ? splitRows(rows) : rows) emit(row);
  };
  /** @param {Row[]} rows @param {string} id */
  const emitFold = (rows, id) => {
    if (opened.has(id)) {
      emitRows(rows.slice(0, FOLDS.expand), `${id}/`, Infinity, false);
      if (rows.length > FOLDS.expand) emitFold(rows.slice(FOLDS.expand), `${id}+`);
    } else {
      trs.push(wideRow(span, "applypatch-dl applypatch-dl-fold", button(id, rows.length, "more")));
    }
  };
  /** @param {Row} row */
  const emitGap = (row) => {
    if (row.type !== "gap") return;
    const id = `gap:${row.from}`;
    const count = row.to - row.from + 1;
    /** @type {Row[]} */
    const known = [];
    for (let n = row.from; n <= row.to; n++) {
      const source = sources.new.get(n);
      if (source === undefined) continue;
      const text = typeof source === "string" ? source : source.map((r) => r[1]).join("");
      known.push({ type: "line", kind: "context", text, old: n + row.offset, new: n });
    }
    const cls = "applypatch-dl applypatch-dl-gap";
    if (opened.has(id) && known.length) {
      // the lines sent, and a marker where the ones not sent would be
      let next = row.from;
      /** @type {Row[]} */
      let block = [];
      const hole = (/** @type {number} */ upto) => {
        if (upto <= next) return;
        emitAll(block);
        block = [];
        const n = upto - next;
        trs.push(wideRow(span, cls, `⋯ ${n} unchanged line${n === 1 ? "" : "s"} not sent to the view`));
      };
      for (const line of known) {
        const at = /** @type {number} */ (/** @type {any} */ (line).new);
        hole(at);
        block.push(line);
        next = at + 1;
      }
      hole(row.to + 1);
      emitAll(block);
    } else if (known.length) {
      trs.push(wideRow(span, cls, button(id, known.length, "unchanged")));
    } else {
      trs.push(wideRow(span, cls, `⋯ ${count} unchanged line${count === 1 ? "" : "s"}`));
    }
  };
  /**
   * @param {Row[]} rows
   * @param {string} prefix of the ids of the folds inside
   * @param {number} limit how many rows before the rest is one fold
   * @param {boolean} fold whether long runs fold (not inside a fold the reader opened)
   */
  const emitRows = (rows, prefix, limit, fold) => {
    // emitFold renders a fold the reader opened (bounded, counted as one row here)
    const entries = fold ? foldRuns(rows, FOLDS) : rows;
    /** @type {Row[]} */
    let run = []; // plain rows, emitted together so that the split view pairs them
    let count = 0;
    for (let k = 0; k < entries.length; k++) {
      const row = entries[k];
      if (count >= limit) {
        // past the limit, the rest of the file is one fold ("show N lines")
        emitAll(run);
        run = [];
        emitFold(entries.slice(k).flatMap((e) => (e.type === "fold" ? e.rows : [e])), `${prefix}rest`);
        return;
      }
      count++;
      if (row.type !== "fold" && row.type !== "gap") {
        run.push(row);
        continue;
      }
      emitAll(run);
      run = [];
      if (row.type === "fold") emitFold(row.rows, prefix + row.id);
      else emitGap(row);
    }
    emitAll(run);
  };
  emitRows(file.rows, "", file.limit ?? Infinity, true);
  const cols = split
    ? h("colgroup", null, h("col", { class: "applypatch-col-gutter" }), h("col", { class: "applypatch-col-half" }), h("col", { class: "applypatch-col-gutter" }), h("col", { class: "applypatch-col-half" }))
    : h("colgroup", null, h("col", { class: "applypatch-col-gutter" }), h("col", { class: "applypatch-col-gutter" }), h("col", { class: "applypatch-col-sign" }), h("col", null));
  return h(
    "table",
    {
      class: `applypatch-dt applypatch-dt-${mode}${file.preview ? " applypatch-dt-preview" : ""}`,
      "data-mode": mode,
      tabindex: "-1",
      "aria-label": split ? "diff, side by side: old on the left, new on the right" : "diff, unified",
    },
    cols,
    h("tbody", null, ...trs),
  );
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

/** @param {unknown} entry an entry of `sources` / `turn_sources` @returns {Sources} */
export function sourcesOf(entry) {
  const e = obj(entry);
  return { old: sourceLines(e.old), new: sourceLines(e.new) };
}

/**
 * One file of a diff view: a folded block whose summary shows its path, counts and +/- bar,
 * and whose body is its table, re-rendered when the mode changes or a fold is opened.
 * @param {{id: string, path: string, head: (Node | string | null)[], rows: Row[], sources: Sources,
 *   preview?: boolean, limit?: number, open: boolean, added: number, removed: number, attrs?: Record<string, any>,
 *   cut?: number, count?: number}} f lines of the file's text that were cut for the view (`cut_lines`)
 * @param {{mode: string, opened: Map<string, Set<string>>, openFiles: Map<string, boolean>}} state
 */
function fileBlock(f, state) {
  const opened = state.opened.get(f.id) ?? new Set();
  state.opened.set(f.id, opened);
  const body = h("div", { class: "applypatch-file-body" });
  // the rows are made when the file is first drawn (a closed 40,000-line Add makes none)
  const view = {
    get rows() {
      return f.rows;
    },
    sources: f.sources,
    preview: Boolean(f.preview),
    limit: f.limit,
  };
  const summary = h(
    "summary",
    { class: "applypatch-file-head", "aria-label": `${f.path}: ${f.added} added, ${f.removed} removed lines` },
    ...f.head,
    countsNode(f.added, f.removed),
  );
  const details = /** @type {HTMLDetailsElement} */ (
    h(
      "details",
      { class: "applypatch-file", "data-file": f.id, open: state.openFiles.get(f.id) ?? f.open, ...(f.attrs ?? {}) },
      summary,
      body,
    )
  );
  // Off the screen, a file of a long list is skipped (`content-visibility: auto`) and counts as
  // this tall: an open file as tall as its shown rows (up to the table's max-height), so that
  // the browser does not take the hundreds of files after a first open one for visible ones
  // and lay them all out at once (a long task of the 500-file call).
  const estimate = () => {
    const open = typeof details.open === "boolean" ? details.open : details.getAttribute("open") !== null;
    const rows = open ? Math.min(f.count ?? f.rows.length, f.limit ?? Infinity) : 0;
    details.style?.setProperty?.("contain-intrinsic-size", `auto calc(1.6em + ${Math.min(rows * 1.5, 36)}em)`);
  };
  details.addEventListener("toggle", estimate);
  estimate();
  const cut = f.cut
    ? h("div", {
        class: "applypatch-more applypatch-cut",
        text: `✂ ${moreText(f.cut)} not sent to the view, cut for size (the call has them all)`,
      })
    : null;
  return lazyFold(details, summary, f.id, state, function draw() {
    fill(
      body,
      diffTable(view, state.mode, opened, (id) => {
        opened.add(id);
        draw();
        // keep the keyboard where the reader was: on the rows just shown
        /** @type {any} */ (body.firstElementChild)?.focus?.();
      }),
      cut,
    );
  });
}

/**
 * A folded block whose body is built by `draw` when it is first shown, and again when the
 * view's mode changed since (closed blocks cost no rows); its open state is kept by `id`.
 * @param {HTMLDetailsElement} details
 * @param {HTMLElement} summary
 * @param {string} id
 * @param {{mode: string, openFiles: Map<string, boolean>}} state
 * @param {() => void} draw
 */
function lazyFold(details, summary, id, state, draw) {
  let drawn = ""; // the mode the body was drawn in; "" when not drawn (or stale)
  const isOpen = () =>
    typeof details.open === "boolean" ? details.open : details.getAttribute("open") !== null;
  const show = () => {
    if (isOpen() && drawn !== state.mode) {
      drawn = state.mode;
      draw();
    }
  };
  details.addEventListener("toggle", () => {
    state.openFiles.set(id, isOpen());
    show();
  });
  show();
  return {
    el: details,
    summary,
    redraw() {
      drawn = "";
      show();
    },
    /** @param {boolean} open */
    setOpen(open) {
      details.open = open;
      state.openFiles.set(id, open);
      show();
    },
  };
}

/** The `+N -M` counts and the five-block bar. @param {number} added @param {number} removed */
function countsNode(added, removed) {
  return h(
    "span",
    { class: "applypatch-counts" },
    h("span", { class: "applypatch-diff-add", text: ` +${added}` }),
    h("span", { class: "applypatch-diff-del", text: ` -${removed}` }),
    h(
      "span",
      { class: "applypatch-bar", "aria-hidden": "true" },
      ...changeBar(added, removed).map((b) => h("span", { class: `applypatch-bar-${b}` })),
    ),
  );
}

/**
 * A diff view's shared state (mode, opened folds, open files) and its toolbar: unified/split,
 * optionally the header toggle, expand/collapse all, and extra buttons.
 * @param {{headers?: boolean, extra?: (Node | null)[]}} options
 */
export function diffViewState(options) {
  const state = {
    mode: modes.mode,
    /** @type {Map<string, Set<string>>} */
    opened: new Map(),
    /** @type {Map<string, boolean>} */
    openFiles: new Map(),
    showHeaders: false,
    /** @type {ReturnType<typeof fileBlock>[]} */
    blocks: [],
  };
  const toggle = /** @param {string} text @param {string} label @param {boolean} pressed */ (text, label, pressed) =>
    /** @type {HTMLButtonElement} */ (
      h("button", { type: "button", class: "applypatch-tool", "aria-label": label, "aria-pressed": String(pressed), text })
    );
  const unified = toggle("Unified", "unified view", state.mode === "unified");
  const split = toggle("Split", "split view: old and new side by side", state.mode === "split");
  unified.setAttribute("data-testid", "applypatch-mode-unified");
  split.setAttribute("data-testid", "applypatch-mode-split");
  const headers = options.headers ? toggle("Show headers", "show the diff --git and index lines", false) : null;
  headers?.setAttribute("data-testid", "applypatch-headers");
  const all = /** @param {boolean} open */ (open) => {
    for (const b of state.blocks) b.setOpen(open);
  };
  const tool = /** @param {string} text @param {string} label @param {() => void} fn */ (text, label, fn) => {
    const b = h("button", { type: "button", class: "applypatch-tool", "aria-label": label, text });
    b.addEventListener("click", fn);
    return b;
  };
  /** @type {Map<string, {sig: unknown[], block: ReturnType<typeof fileBlock>}>} */
  let made = new Map();
  const expand = tool("Expand all", "expand every file", () => all(true));
  const collapse = tool("Collapse all", "collapse every file", () => all(false));
  const onMode = (/** @type {string} */ mode) => {
    state.mode = mode;
    unified.setAttribute("aria-pressed", String(mode === "unified"));
    split.setAttribute("aria-pressed", String(mode === "split"));
    for (const b of state.blocks) b.redraw();
  };
  unified.addEventListener("click", () => modes.set("unified"));
  split.addEventListener("click", () => modes.set("split"));
  modes.listeners.add(onMode);
  const toolbar = h(
    "div",
    { class: "applypatch-toolbar", role: "toolbar", "aria-label": "diff view" },
    h("span", { class: "applypatch-group", role: "group", "aria-label": "view mode" }, unified, split),
    headers,
    expand,
    collapse,
    ...(options.extra ?? []),
  );
  /** @param {HTMLElement} body */
  const bindHeaders = (body) => {
    headers?.addEventListener("click", () => {
      state.showHeaders = !state.showHeaders;
      headers.setAttribute("aria-pressed", String(state.showHeaders));
      headers.textContent = state.showHeaders ? "Hide headers" : "Show headers";
      body.className = `applypatch-section-body${state.showHeaders ? " applypatch-show-headers" : ""}`;
    });
  };
  return {
    state,
    toolbar,
    bindHeaders,
    /**
     * The blocks of `files`; a file whose `sig` is that of the block made for its id last time
     * keeps that block (a streamed preview re-renders only the files that changed).
     * @param {(Parameters<typeof fileBlock>[0] & {sig?: unknown[]})[]} files
     */
    blocks(files) {
      const make = this.start();
      for (const f of files) make(f);
      make.done();
      return state.blocks.map((b) => b.el);
    },
    /**
     * Start making the blocks of a new set of files, one `make(f)` call each, in order (a
     * later start abandons this one: its `make` then returns null); `make.done()` at the end.
     */
    start() {
      const generation = ++this.generation;
      /** @type {Map<string, {sig: unknown[], block: ReturnType<typeof fileBlock>}>} */
      const next = new Map();
      state.blocks = [];
      /** @param {Parameters<typeof fileBlock>[0] & {sig?: unknown[]}} f */
      const make = (f) => {
        if (generation !== this.generation) return null;
        const before = made.get(f.id);
        const same = before && f.sig && sameSig(before.sig, f.sig);
        const block = same ? before.block : fileBlock(f, state);
        if (f.sig) next.set(f.id, { sig: f.sig, block });
        state.blocks.push(block);
        return block;
      };
      make.done = () => {
        if (generation === this.generation) made = next;
      };
      return make;
    },
    generation: 0,
    dispose: () => modes.listeners.delete(onMode),
  };
}

/**
 * Whether two signatures of a file (what its block is made from) are equal, item by item.
 * @param {unknown[]} a
 * @param {unknown[]} b
 */
export function sameSig(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * The file list: one button per file (path, counts, bar) that opens and jumps to it.
 * @param {{path: string, added: number, removed: number}[]} files
 * @param {ReturnType<typeof fileBlock>[]} blocks
 */
function fileList(files, blocks) {
  return h(
    "ul",
    { class: "applypatch-filelist", "aria-label": "files" },
    ...files.map((f, i) => {
      const b = h(
        "button",
        { type: "button", class: "applypatch-jump", "aria-label": `go to ${f.path}: +${f.added} -${f.removed}` },
        h("code", { text: f.path }),
        countsNode(f.added, f.removed),
      );
      b.addEventListener("click", () => {
        const target = blocks[i];
        if (!target) return;
        target.setOpen(true);
        /** @type {any} */ (target.el).scrollIntoView?.({ block: "start", behavior: "smooth" });
        /** @type {any} */ (target.summary).focus?.();
      });
      return h("li", null, b);
    }),
  );
}

/**
 * A guarded copy: `navigator.clipboard.writeText`, saying what happened in `note`.
 * @param {string} text
 * @param {HTMLElement} note
 * @param {string} what
 */
function copyText(text, note, what) {
  const clip = /** @type {any} */ (globalThis.navigator)?.clipboard;
  if (!clip?.writeText) {
    note.textContent = `cannot copy: the clipboard is not available here (select the ${what} instead)`;
    return;
  }
  clip.writeText(text).then(
    () => (note.textContent = `${what} copied`),
    () => (note.textContent = `cannot copy: the browser refused (select the ${what} instead)`),
  );
}

// ---------------------------------------------------------------------------------------------
// sections: each makes its DOM once and returns {el, update(state)}; `update` renders the
// plain state SECTION_STATE reads for it (no model inside, so each is testable on its own)

/**
 * The header (title, dry-run badge, the status's label styled by its tone, the one-line
 * summary) and, as `cwd`, the working directory line below it.
 */
export function headerSection() {
  const title = h("span", { class: "applypatch-title" });
  const dryBadge = h("span", { class: "applypatch-badge applypatch-badge-dry", text: "dry run", hidden: true });
  const status = h("span", { class: "applypatch-status", "data-testid": "applypatch-status" });
  const summary = h("span", { class: "applypatch-summary" });
  const el = h("div", { class: "applypatch-header" }, title, dryBadge, status, summary);
  const cwd = h("div", { class: "applypatch-cwd" });
  /**
   * @param {{title: string, dryRun: boolean, status: string, meaning: Meaning, summary: string,
   *   cwd: string}} s
   */
  const update = (s) => {
    title.textContent = s.title || "apply_patch";
    // the badge says "dry run" while the call runs; once its status says it, once is enough
    dryBadge.hidden = !s.dryRun || s.meaning.dry_run;
    status.textContent = s.meaning.label || "…";
    const unknown = s.meaning.known ? "" : " applypatch-status-unknown";
    status.className = `applypatch-status applypatch-tone-${s.meaning.tone}${unknown}`;
    status.setAttribute("data-status", s.status);
    summary.textContent = s.summary;
    cwd.textContent = s.cwd ? `in ${s.cwd}` : "";
  };
  return { el, cwd, update };
}

/** The stages, each with its state (see stageStates). */
export function stagesSection() {
  const el = h("ol", { class: "applypatch-stages", "data-testid": "applypatch-stage" });
  /** @param {{stages: Stage[], stage: string, meaning: Meaning, eventTypes: string[]}} s */
  const update = (s) => {
    el.setAttribute("data-stage", s.stage);
    fill(
      el,
      ...stageStates(s.stages, s.stage, s.meaning, s.eventTypes).map((st) =>
        h("li", {
          class: `applypatch-stage applypatch-stage-${st.state}`,
          "aria-current": st.state === "active" ? "step" : null,
          title: STAGE_TITLES[st.state] ?? null,
          text: st.label,
        }),
      ),
    );
  };
  return { el, update };
}

/**
 * The safety decision (its label and tone from the vocabulary's `safety`), its reason, and
 * whether the attempt is sandboxed; hidden before it.
 */
export function safetySection() {
  const el = h("div", { class: "applypatch-safety" });
  /** @param {{safety: Record<string, any>, meanings: Record<string, any>, review?: Record<string, any>}} s */
  const update = ({ safety, meanings, review = {} }) => {
    el.hidden = !safety.decision;
    if (el.hidden) {
      fill(el);
      return;
    }
    const decision = str(safety.decision);
    const meaning = Object.prototype.hasOwnProperty.call(meanings, decision) ? obj(meanings[decision]) : {};
    const tone = /^[a-z-]+$/.test(str(meaning.tone)) ? str(meaning.tone) : "neutral";
    fill(
      el,
      "safety: ",
      h("span", {
        class: `applypatch-badge applypatch-safety-tone-${tone}`,
        "data-decision": decision,
        text: str(meaning.label) || decision,
      }),
      safety.sandboxed ? h("span", { class: "applypatch-badge", text: "sandboxed" }) : null,
      ...reviewNote(safety, review),
      safety.reason ? h("span", { class: "applypatch-reason", text: str(safety.reason) }) : null,
    );
  };
  return { el, update };
}

/**
 * Beside an `auto-approve` that `--review` turned into a question (the safety trait's
 * `review`): a badge saying so, in the vocabulary's words (`safety_review`), and why.
 * @param {Record<string, any>} safety
 * @param {Record<string, any>} meaning the vocabulary's `safety_review`
 */
function reviewNote(safety, meaning) {
  if (safety.review !== true) return [];
  const tone = /^[a-z-]+$/.test(str(meaning.tone)) ? str(meaning.tone) : "waiting";
  return [
    h("span", {
      class: `applypatch-badge applypatch-safety-tone-${tone}`,
      "data-testid": "applypatch-safety-review",
      text: str(meaning.label) || "asked because of --review",
    }),
    meaning.reason ? h("span", { class: "applypatch-reason", text: str(meaning.reason) }) : null,
  ];
}

/**
 * One chunk (or whole file) of a review: its toggle, labelled, and its diff beside it; a chunk
 * the seek cascade matched only fuzzily is marked, with the file's line beside the patch's.
 * @param {string} label
 * @param {string} testid
 * @param {string} text the chunk's (or the file's) own patch text
 * @param {Record<string, any>} chunk the review's chunk entry ({} for a whole file)
 * @param {boolean} selectable
 */
function reviewItem(label, testid, text, chunk, selectable) {
  const input = /** @type {HTMLInputElement} */ (
    h("input", { type: "checkbox", "data-testid": testid, "aria-label": label })
  );
  input.checked = true;
  input.disabled = !selectable;
  const lines = text.split("\n");
  const { shown, hidden } = truncate(lines, LIMITS.changeDiffLines);
  const diff = h(
    "pre",
    { class: "applypatch-review-diff applypatch-diff" },
    ...shown.map((line) => {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") || line.startsWith("***") ? "hunk" : "context";
      return h("div", { class: `applypatch-line applypatch-diff-${kind}`, text: line });
    }),
    hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
  );
  const fuzzy = chunk.fuzzy
    ? h(
        "div",
        { class: "applypatch-review-fuzzy", "data-testid": "applypatch-review-fuzzy", "data-pass": str(chunk.pass) },
        h("span", { class: "applypatch-badge", text: `matched by the ${str(chunk.pass)} pass` }),
        h("span", { text: ` at line ${Number(chunk.line) || "?"}: the file's text differs from the patch's` }),
        ...arr(chunk.pairs).map((pair) =>
          h(
            "div",
            { class: "applypatch-review-pair" },
            h("div", null, h("span", { class: "applypatch-label", text: "patch" }), h("code", null, ...tokenSpans(visibleText(str(obj(pair).patch))))),
            h("div", null, h("span", { class: "applypatch-label", text: "file" }), h("code", null, ...tokenSpans(visibleText(str(obj(pair).file))))),
          ),
        ),
      )
    : null;
  const el = h(
    "div",
    { class: "applypatch-review-item" },
    h("label", { class: "applypatch-review-toggle" }, input, h("span", { text: label })),
    fuzzy,
    diff,
  );
  return { el, input };
}

/**
 * The review of a pending request: every file and chunk with a toggle (all selected), its diff
 * and fuzzy marks (see reviewItem). A file's toggle sets all its chunks; it shows "mixed" when
 * some are off. `selectable` false (a selection's own request, a retry) shows them without
 * toggles to change.
 * @param {Record<string, any>[]} files the review's files (review.review_files in Python)
 * @param {string} cwd
 * @param {boolean} selectable
 * @param {() => void} onChange
 */
function reviewList(files, cwd, selectable, onChange) {
  /** @type {{input: HTMLInputElement, chunks: HTMLInputElement[]}[]} */
  const toggles = [];
  /** @type {Map<string, HTMLInputElement>} */
  const byKey = new Map();
  /** @type {(() => void)[]} */
  const undo = [];
  /** @param {HTMLElement} el @param {() => void} fn */
  const listen = (el, fn) => {
    el.addEventListener("change", fn);
    undo.push(() => el.removeEventListener("change", fn));
  };
  const blocks = files.map((f, i) => {
    const path = str(f.path);
    const shownPath = relativePath(path, cwd);
    const chunks = arr(f.chunks).map(obj);
    const whole = Boolean(f.whole) || chunks.length === 0;
    const what = f.kind === "add" ? "added" : f.kind === "delete" ? "deleted" : f.move_path ? `moved to ${str(f.move_path)}` : "updated";
    const head = reviewItem(
      `${shownPath} (${what}${whole ? ", all or nothing" : `, ${chunks.length} chunk${chunks.length === 1 ? "" : "s"}`})`,
      `applypatch-review-file-${i}`,
      whole ? str(f.text) : "",
      {},
      selectable,
    );
    byKey.set(`${i}:`, head.input);
    const items = whole
      ? []
      : chunks.map((c, k) => {
          const item = reviewItem(
            `chunk ${k + 1} of ${chunks.length} of ${shownPath}`,
            `applypatch-review-chunk-${i}-${k}`,
            str(c.text),
            c,
            selectable,
          );
          byKey.set(`${i}:${Number(c.index)}`, item.input);
          return item;
        });
    toggles.push({ input: head.input, chunks: items.map((t) => t.input) });
    listen(head.input, () => {
      for (const t of items) t.input.checked = head.input.checked;
      head.input.indeterminate = false;
      onChange();
    });
    for (const t of items)
      listen(t.input, () => {
        const on = items.filter((x) => x.input.checked).length;
        head.input.checked = on > 0;
        head.input.indeterminate = on > 0 && on < items.length;
        onChange();
      });
    return h(
      "li",
      { class: "applypatch-review-file", "data-path": path },
      head.el,
      items.length ? h("div", { class: "applypatch-review-chunks" }, ...items.map((t) => t.el)) : null,
    );
  });
  const el = h(
    "ul",
    { class: "applypatch-review", role: "group", "aria-label": "Files and chunks to apply", "data-testid": "applypatch-review" },
    ...blocks,
  );
  /** @param {number} file @param {number | null} chunk */
  const selected = (file, chunk) => Boolean(byKey.get(`${file}:${chunk === null ? "" : chunk}`)?.checked);
  const accept = () => reviewAccept(/** @type {any} */ (files.map((f) => ({ path: str(f.path), whole: Boolean(f.whole) || arr(f.chunks).length === 0, chunks: arr(f.chunks).map(obj) }))), selected);
  const everything = () => toggles.every((t) => t.input.checked && t.chunks.every((c) => c.checked));
  /** How many files and chunks are ticked, of how many, and the names of those left out. */
  const ticks = () => {
    let kept = 0;
    let total = 0;
    /** @type {string[]} */
    const left = [];
    toggles.forEach((t, i) => {
      const name = relativePath(str(files[i].path), cwd);
      if (t.chunks.length === 0) {
        total += 1;
        if (t.input.checked) kept += 1;
        else left.push(name);
        return;
      }
      const on = t.chunks.filter((c) => c.checked).length;
      total += t.chunks.length;
      kept += on;
      if (on === 0) left.push(name);
      else t.chunks.forEach((c, k) => c.checked || left.push(`${name} chunk ${k + 1} of ${t.chunks.length}`));
    });
    return { kept, total, left };
  };
  return { el, accept, everything, ticks, dispose: () => undo.forEach((f) => f()) };
}

/**
 * The patch text a request asks for: for a request asked again (a selection's own patch, a
 * file changed meanwhile) it is open, since it is not the text the cell streamed.
 * @param {string} patch
 * @param {boolean} open
 */
function patchAsked(patch, open) {
  const { shown, hidden } = truncate(patch.split("\n"), LIMITS.changeDiffLines);
  return h(
    "details",
    { class: "applypatch-approval-patch", "data-testid": "applypatch-approval-patch", open },
    h("summary", { text: "the patch text asked for" }),
    h(
      "pre",
      null,
      shown.join("\n"),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
    ),
  );
}

/**
 * The pending approval request with its buttons, one per decision (see decisionList); a click
 * calls `send(decision, extra)` once, then the buttons stay disabled until a new request (another
 * files/reason/retry/patch) comes. A review (the `review` trait) lists every file and chunk with
 * a toggle and its diff, and the approving buttons follow the ticks, as a partial commit does
 * (docs/behaviour.md §6.7): with some unticked they say so (`Approve selected (3 of 5)`, a line
 * naming what is left out) and send the approval with `extra.accept`, the ticked ones only; with
 * none ticked they are off. The text box beside Decline sends its text as `extra.reason`
 * (omitted when empty).
 * @param {(decision: string, extra?: {accept?: Record<string, boolean | number[]>, reason?: string}) => void} send
 * @param {{decision: string, label: string, testid: string, approves?: boolean, selectedLabel?: string}[]} decisions
 */
export function approvalSection(send, decisions) {
  const text = h("div", { class: "applypatch-approval-text" });
  const note = h("div", { class: "applypatch-approval-note", role: "status" });
  const reviewBox = h("div", { class: "applypatch-review-box" });
  const ticksNote = h("div", {
    class: "applypatch-ticks-note",
    "data-testid": "applypatch-ticks-note",
    role: "status",
    "aria-live": "polite",
    hidden: true,
  });
  const reasonInput = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      class: "applypatch-reason-input",
      "data-testid": "applypatch-reason-input",
      "aria-label": "Why you decline (told to the model)",
      placeholder: "why not? (told to the model)",
    })
  );
  reasonInput.value = "";
  const buttons = decisions.map(
    (d) =>
      /** @type {HTMLButtonElement} */ (
        h("button", {
          type: "button",
          class: `applypatch-button applypatch-button-${d.decision}`,
          "data-testid": d.testid,
          "data-decision": d.decision,
          "data-approves": d.approves === false ? "false" : "true",
          text: d.label,
        })
      ),
  );
  const approves = (/** @type {number} */ i) => decisions[i].approves !== false;
  const declines = decisions.some((d) => d.approves === false);
  const row = buttons.flatMap((b) => (b.getAttribute("data-approves") === "false" ? [b, reasonInput] : [b]));
  const el = h(
    "div",
    { class: "applypatch-approval", hidden: true },
    text,
    reviewBox,
    ticksNote,
    h("div", { class: "applypatch-buttons" }, ...row, ...(declines ? [] : [reasonInput])),
    note,
  );
  /** @type {ReturnType<typeof reviewList> | null} */
  let review = null;
  let selectable = false;
  let shown = ""; // the request on screen
  let sentFor = ""; // the request the buttons were clicked for
  let sent = false; // the buttons were clicked for the request on screen
  let reviewShown = ""; // the review on screen (kept while the same request is shown)
  /** The ticks the approving buttons follow: null when there is no selection to make. */
  const ticks = () => tickState(review && selectable ? review.ticks() : null);
  /** The approving buttons' words and state for the ticks; the line saying what is left out. */
  const onToggle = () => {
    const state = ticks();
    buttons.forEach((b, i) => {
      if (!approves(i)) return;
      const d = decisions[i];
      b.textContent = state.partial && !state.none ? `${d.selectedLabel || d.label}${state.suffix}` : d.label;
      b.disabled = sent || state.none;
    });
    ticksNote.textContent = state.hint;
    ticksNote.hidden = state.hint === "";
  };
  /** @param {HTMLButtonElement} button @param {{accept?: Record<string, boolean | number[]>, reason?: string}} extra */
  const sendFrom = (button, extra) => {
    sentFor = shown;
    sent = true;
    for (const b of buttons) b.disabled = true;
    reasonInput.disabled = true;
    note.textContent = `${button.textContent}: sent; the call resumes when the kernel is free (after the running cell).`;
    send(button.getAttribute("data-decision") ?? "", extra);
  };
  const handlers = buttons.map((button, i) => {
    const handler = () => {
      if (sent) return;
      if (!approves(i)) {
        const reason = str(reasonInput.value).trim();
        sendFrom(button, reason ? { reason } : {});
        return;
      }
      const state = ticks();
      if (state.none) return; // nothing ticked: nothing to approve (the button is off)
      // the ticks decide what an approval covers: never the whole patch while some are off
      sendFrom(button, state.partial && review ? { accept: review.accept() } : {});
    };
    button.addEventListener("click", handler);
    return handler;
  });
  /** @param {{approval: Record<string, any>, cwd: string, review?: Record<string, any>}} s */
  const update = ({ approval, cwd, review: reviewState = {} }) => {
    el.hidden = Object.keys(approval).length === 0;
    shown = el.hidden ? "" : JSON.stringify([approval.files, approval.reason, approval.retry, reviewState.patch]);
    // the kernel refused what was sent (a selection the patch does not allow): ask again
    const refused = Boolean(reviewState.error);
    sent = shown !== "" && sentFor === shown && !refused;
    if (!sent) sentFor = "";
    if (el.hidden) {
      review?.dispose();
      review = null;
      reviewShown = "";
      fill(reviewBox);
      onToggle();
      return;
    }
    for (const b of buttons) b.disabled = sent;
    reasonInput.disabled = sent;
    const dir = str(approval.cwd) || cwd;
    const files = arr(approval.files).map(str);
    const { shown: listed, hidden } = truncate(files, LIMITS.rows);
    fill(
      text,
      h("strong", { text: approval.retry ? "Retry without the sandbox?" : "Approve this patch?" }),
      approval.reason ? h("div", { class: "applypatch-reason", text: str(approval.reason) }) : null,
      h("div", { text: `It writes ${files.length} path${files.length === 1 ? "" : "s"}:` }),
      h(
        "ul",
        { class: "applypatch-files" },
        ...listed.map((f) => h("li", null, h("code", { text: relativePath(f, dir) }))),
        hidden ? h("li", { class: "applypatch-more", text: moreText(hidden, "path") }) : null,
      ),
      reviewState.patch ? patchAsked(str(reviewState.patch), Boolean(approval.reason) && !approval.retry) : null,
    );
    const reviewFiles = arr(reviewState.files).map(obj);
    selectable = reviewState.selectable === true;
    const key = JSON.stringify([shown, reviewFiles, selectable]);
    if (key !== reviewShown) {
      reviewShown = key;
      review?.dispose();
      review = reviewFiles.length ? reviewList(reviewFiles, dir, selectable, onToggle) : null;
      fill(
        reviewBox,
        review
          ? h(
              "details",
              { class: "applypatch-review-details", open: true },
              h("summary", {
                text: selectable ? "Review: untick what must not be applied (approving applies the ticked ones)" : "What this request covers",
              }),
              review.el,
            )
          : null,
      );
    }
    onToggle();
    if (!sent) note.textContent = reviewState.error ? `Not sent: ${str(reviewState.error)}` : "";
  };
  const dispose = () => {
    buttons.forEach((b, i) => b.removeEventListener("click", handlers[i]));
    review?.dispose();
  };
  return { el, update, dispose };
}

/**
 * The error, stdout and stderr, and (once the call has a status) the output sent to the model.
 */
export function resultSection() {
  const el = h("div", { class: "applypatch-result" });
  /** @param {string} label @param {string} cls @param {string} text */
  const stream = (label, cls, text) =>
    h("div", null, h("span", { class: "applypatch-label", text: label }), h("pre", { class: cls, text }));
  /** @param {{error: string, stdout: string, stderr: string, output: string, hasStatus: boolean}} s */
  const update = (s) => {
    const parts = [
      s.error ? h("div", { class: "applypatch-error" }, h("strong", { text: "error: " }), s.error) : null,
      s.stdout ? stream("stdout", "applypatch-stdout", s.stdout) : null,
      s.stderr ? stream("stderr", "applypatch-stderr", s.stderr) : null,
      s.output && s.hasStatus
        ? h(
            "details",
            { class: "applypatch-output" },
            h("summary", { text: "output sent to the model" }),
            h("pre", { text: s.output }),
          )
        : null,
    ].filter((p) => p !== null);
    fill(el, ...parts);
    el.hidden = parts.length === 0;
  };
  return { el, update };
}

/**
 * The call's place in its turn ("call 2 of 3 in turn-1"), and for an undo's own view what it
 * undoes. Pure: the `place` and `of` fields of the `undo` trait.
 * @param {Record<string, any>} undo
 */
export function placeText(undo) {
  const place = obj(undo.place);
  if (!place.index) return "";
  const turn = place.turn_id ? ` in ${str(place.turn_id)}` : "";
  const of = undo.of ? ` · ${str(undo.kind) || "undo"} of ${str(undo.of)}` : "";
  return `call ${place.index} of ${place.count}${turn}${of}`;
}

/** The three versions of a conflicting file, as the conflict lists them. */
export const CONFLICT_VERSIONS = Object.freeze([
  ["before", "before the call"],
  ["left", "as the call left it"],
  ["now", "now"],
]);

/**
 * One version of a conflicting file: its text (bounded), or what stands for it.
 * @param {Record<string, any> | null} state
 */
export function versionText(state) {
  if (state === null || state === undefined) return "(not readable as a text file)";
  if (!state.exists) return "(absent)";
  const lines = str(state.content).split("\n");
  const { shown, hidden } = truncate(lines, LIMITS.rows);
  // Python sends each version cut already (panels.bounded_conflict): `more_lines` left out
  const more = hidden + (Number(state.more_lines) || 0);
  const body = shown.join("\n");
  const text = more ? `${body}${body.endsWith("\n") ? "" : "\n"}${moreText(more)}` : body;
  return text || "(empty)";
}

/**
 * Text from a file or a path with its control and invisible characters made visible.
 * @param {unknown} text
 */
const safeText = (text) => tokenSpans(visibleText(str(text)));
/**
 * The same for a text of several lines: its line feeds stay line feeds.
 * @param {unknown} text
 */
const safeLines = (text) => str(text).split("\n").flatMap((line, i) => [...(i ? ["\n"] : []), ...safeText(line)]);

/**
 * A conflict: the file, why, and its three versions side by side.
 * @param {Record<string, any>} c
 */
function conflictBlock(c) {
  return h(
    "details",
    { class: "applypatch-conflict", open: true, "data-testid": "applypatch-conflict" },
    h("summary", null, h("code", null, ...safeText(c.path)), ": ", ...safeText(c.reason)),
    h(
      "div",
      { class: "applypatch-versions", role: "group", "aria-label": `three versions of ${str(c.path)}` },
      ...CONFLICT_VERSIONS.map(([key, label]) =>
        h(
          "div",
          { class: "applypatch-version", "data-version": key },
          h("span", { class: "applypatch-label", text: label }),
          h("pre", null, ...safeLines(versionText(key === "now" ? c.now : obj(c[key])))),
        ),
      ),
    ),
  );
}

/**
 * The notebooks of the `undo` trait (Python's undo.restore_views and undo.edited_views): what
 * Undo and Redo would restore, and how a notebook of the last undo's conflict changed since.
 */
export const UNDO_NOTEBOOK_VIEWS = Object.freeze([
  { key: "undo", label: "what Undo would restore" },
  { key: "redo", label: "what Redo would put back" },
  { key: "edited", label: "changed since (the conflict)" },
]);

/**
 * Undo and redo of a completed call: its place in the turn, an Undo button (and Redo once an
 * undo put files back), the last undo the buttons ran (its status, output or error, any
 * conflict with the three versions, and its approval request with its own buttons). A click
 * calls `send(message)` once, then the buttons wait for the kernel's answer (a new `undo`).
 * The notebooks the buttons would restore show as cells beside them, before any click.
 * @param {(message: Record<string, any>) => void} send
 * @param {{decision: string, label: string, testid: string}[]} decisions the approval answers
 */
export function undoSection(send, decisions) {
  const placeLine = h("div", { class: "applypatch-place", "data-testid": "applypatch-place" });
  /** @param {string} kind @param {string} label @param {string} aria */
  const button = (kind, label, aria) =>
    /** @type {HTMLButtonElement} */ (
      h("button", {
        type: "button",
        class: `applypatch-button applypatch-button-${kind}`,
        "data-testid": `applypatch-${kind}`,
        "aria-label": aria,
        text: label,
      })
    );
  const undo = button("undo", "Undo", "Undo this call: put its files back as they were before it");
  const redo = button("redo", "Redo", "Redo this call: put back what the undo reverted");
  const answers = decisions.map((d) =>
    button(`undo-${d.decision}`, `${d.label} (undo)`, `${d.label}: the answer to the undo's approval request`),
  );
  const buttons = h("div", { class: "applypatch-buttons", role: "group", "aria-label": "undo" }, undo, redo);
  const note = h("div", { class: "applypatch-undo-note", role: "status", "aria-live": "polite" });
  const last = h("div", { class: "applypatch-undo-last" });
  const approval = h("div", { class: "applypatch-buttons", hidden: true }, ...answers);
  const conflicts = h("div", { class: "applypatch-conflicts" });
  // the ways on that Python offers after a conflict or a refusal (their label and message)
  const choices = h("div", { class: "applypatch-buttons", role: "group", "aria-label": "ways on" });
  const cells = notebooksSection(UNDO_NOTEBOOK_VIEWS, "Notebooks as cells, as Undo and Redo restore them", "applypatch-undo-notebooks");
  const el = h("div", { class: "applypatch-undo", "data-testid": "applypatch-undo-panel", hidden: true },
    placeLine, buttons, note, last, approval, conflicts, choices, cells.el);
  let disposed = false;
  const all = [undo, redo, ...answers];
  /** @type {[HTMLButtonElement, Record<string, any>][]} */
  const messages = [
    [undo, { type: "undo", kind: "undo" }],
    [redo, { type: "undo", kind: "redo" }],
    ...decisions.map((d, i) => /** @type {[HTMLButtonElement, Record<string, any>]} */ (
      [answers[i], { type: "undo-approval", decision: d.decision }])),
  ];
  const handlers = messages.map(([b, message]) => {
    const handler = () => {
      for (const other of all) other.disabled = true;
      note.textContent = `${b.textContent}: sent; it runs when the kernel is free (after the running cell).`;
      send(message);
    };
    b.addEventListener("click", handler);
    return handler;
  });
  /** @param {{undo: Record<string, any>, cwd?: string}} s */
  const update = ({ undo: state, cwd = "" }) => {
    el.hidden = Object.keys(state).length === 0;
    cells.update({ notebooks: obj(state.notebooks), cwd });
    placeLine.textContent = placeText(state);
    undo.hidden = !state.can_undo;
    redo.hidden = !state.can_redo;
    buttons.hidden = undo.hidden && redo.hidden;
    for (const b of all) b.disabled = false;
    note.textContent = "";
    const previous = obj(state.last);
    const pending = Object.keys(obj(previous.approval)).length > 0;
    approval.hidden = !pending;
    fill(
      last,
      previous.status
        ? h("div", { "data-status": str(previous.status) },
            h("strong", { text: `${str(previous.kind) || "undo"} ${str(previous.call_id)}: ${str(previous.status)}` }),
            pending ? h("div", { text: `It writes: ${arr(obj(previous.approval).files).map(str).join(", ")}` }) : null,
            previous.error ? h("pre", { class: "applypatch-error" }, ...safeLines(previous.error)) : null,
            previous.output ? h("pre", { class: "applypatch-stdout" }, ...safeLines(previous.output)) : null)
        : null,
    );
    const shown = [...arr(previous.conflicts), ...arr(state.conflicts)].map(obj);
    fill(conflicts, ...shown.map(conflictBlock));
    const offered = arr(previous.choices).map(obj).map((choice) => {
      const b = button("undo-choice", str(choice.label), str(choice.label));
      b.addEventListener("click", () => {
        if (disposed) return;
        for (const other of [...all, ...choices.childNodes]) /** @type {HTMLButtonElement} */ (other).disabled = true;
        note.textContent = `${b.textContent}: sent; it runs when the kernel is free (after the running cell).`;
        send(obj(choice.message));
      });
      return b;
    });
    fill(choices, ...offered);
    choices.hidden = offered.length === 0;
  };
  const dispose = () => {
    disposed = true;
    messages.forEach(([b], i) => b.removeEventListener("click", handlers[i]));
    cells.dispose();
  };
  return { el, update, dispose };
}

/**
 * One row of the explanation: a line of the patch next to the closest line of the file, the
 * differing characters highlighted, and the matching pass that accepted it, if any.
 * @param {Record<string, any>} pair
 */
export function explanationPairRow(pair) {
  const passName = pair.pass_name ? str(pair.pass_name) : "";
  const exp = arr(pair.expected_segments).length ? pair.expected_segments : [[false, str(pair.expected)]];
  const act = arr(pair.actual_segments).length ? pair.actual_segments : [[false, str(pair.actual)]];
  return h(
    "tr",
    { class: `applypatch-ex-pair ${passName ? "applypatch-ex-match" : "applypatch-ex-nomatch"}` },
    h("td", { class: "applypatch-ex-num", text: pair.line_number ?? "" }),
    h(
      "td",
      { class: "applypatch-ex-pass" },
      h("span", {
        class: `applypatch-badge applypatch-pass-${passName || "none"}`,
        text: passName || "no match",
      }),
    ),
    h(
      "td",
      { class: "applypatch-ex-expected" },
      ...(pair.expected === null ? [] : tokenSpans(visibleSegments(exp))),
    ),
    h(
      "td",
      { class: "applypatch-ex-actual" },
      ...(pair.actual === null || pair.actual === undefined
        ? [h("em", { class: "applypatch-ex-absent", text: `(${str(pair.absent) || "no line"})` })]
        : tokenSpans(visibleSegments(act))),
    ),
  );
}

/**
 * A line of the file around the closest region (numbered when the region's start is known).
 * @param {string} text
 * @param {number | null} number
 */
function explanationContextRow(text, number) {
  return h(
    "tr",
    { class: "applypatch-ex-context" },
    h("td", { class: "applypatch-ex-num", text: number ?? "" }),
    h("td", { class: "applypatch-ex-pass" }),
    h("td", { class: "applypatch-ex-expected" }),
    h("td", { class: "applypatch-ex-actual" }, ...tokenSpans(visibleText(text))),
  );
}

/** For a "Failed to find ..." error: the closest region of the file, line by line. */
export function explanationSection() {
  const { el, note, body } = section("Why the lines did not match", "applypatch-explanation", true);
  const head = ["line", "pass", "expected (patch)", "closest region (file)"];
  /** @param {{explanation: Record<string, any>, cwd: string}} s */
  const update = ({ explanation: ex, cwd }) => {
    const pairs = arr(ex.pairs);
    el.hidden = pairs.length === 0 && !ex.summary;
    if (el.hidden) {
      fill(body);
      return;
    }
    note.textContent = ex.path ? ` ${relativePath(str(ex.path), cwd)}` : "";
    const start = typeof ex.region_start === "number" ? ex.region_start : null;
    const before = arr(ex.before).map(str);
    const number = (/** @type {number} */ offset) => (start === null ? null : start + offset);
    const { shown, hidden } = truncate(pairs, LIMITS.explanationPairs);
    const rows = [
      ...before.map((t, i) => explanationContextRow(t, number(i + 1 - before.length))),
      ...shown.map((p) => explanationPairRow(obj(p))),
      ...arr(ex.after).map((t, i) => explanationContextRow(str(t), number(pairs.length + i + 1))),
    ];
    fill(
      body,
      h("div", { class: "applypatch-ex-summary", text: str(ex.summary) }),
      h(
        "div",
        { class: "applypatch-ex-scroll" },
        h(
          "table",
          { class: "applypatch-ex" },
          h("thead", null, h("tr", null, ...head.map((t) => h("th", { text: t })))),
          h("tbody", null, ...rows),
        ),
      ),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
      h("div", {
        class: "applypatch-legend",
        text: "· space   → tab   ␍ CR   ⍽ non-ASCII space   highlighted: differs",
      }),
    );
  };
  return { el, update };
}

/**
 * The streamed patch text, numbered, the line being streamed highlighted and followed unless
 * the reader scrolled up; a bounded window of it (see windowLines).
 * @param {boolean} open
 */
export function patchSection(open) {
  const { el, note, body } = section("Patch text", "applypatch-patch-text", open);
  const pre = h("pre", { class: "applypatch-patch" });
  const status = h("span", { class: "applypatch-tool-note", role: "status" });
  const copy = h("button", {
    type: "button",
    class: "applypatch-tool",
    "data-testid": "applypatch-copy-patch",
    "aria-label": "copy the patch text to the clipboard",
    text: "Copy patch",
  });
  let full = "";
  copy.addEventListener("click", () => copyText(full, status, "patch"));
  body.append(h("div", { class: "applypatch-toolbar", role: "toolbar", "aria-label": "patch text" }, copy, status), pre);
  // Follow the stream unless the reader scrolled up: known from scroll events, so that an
  // update never reads the layout (a forced reflow of the whole page, per streamed delta).
  let follow = true;
  pre.addEventListener("scroll", () => {
    follow = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 48;
  });
  let scrolling = false;
  const toEnd = () => {
    scrolling = false;
    if (follow) pre.scrollTop = pre.scrollHeight;
  };
  /** @param {{text: string, current: number, truncated: boolean}} s */
  const update = ({ text, current, truncated }) => {
    full = text;
    const lines = text ? text.split("\n") : [];
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    const { start, end } = windowLines(lines.length, current, LIMITS.patchLines);
    const width = String(end).length;
    fill(
      pre,
      start > 0 ? h("span", { class: "applypatch-more", text: moreText(start, "line", "earlier") }) : null,
      ...lines.slice(start, end).map((line, i) => {
        const n = start + i + 1;
        return h(
          "span",
          { class: `applypatch-line${n === current ? " applypatch-current" : ""}`, "data-line": n },
          h("span", { class: "applypatch-lineno", text: String(n).padStart(width) }),
          line || " ",
        );
      }),
      end < lines.length ? h("span", { class: "applypatch-more", text: moreText(lines.length - end) }) : null,
      truncated
        ? h("span", {
            class: "applypatch-truncated",
            text: "✂ the patch is longer: the rest was cut for display (the call gets all of it)",
          })
        : null,
    );
    if (current > 0 && follow && !scrolling) {
      // once per frame, when the page lays itself out anyway
      scrolling = true;
      if (typeof requestAnimationFrame === "function") requestAnimationFrame(toEnd);
      else toEnd();
    }
    note.textContent = ` ${lines.length} line${lines.length === 1 ? "" : "s"}${current > 0 ? ", streaming…" : ""}${truncated ? ", cut for display" : ""}`;
  };
  return { el, update };
}

/**
 * The changes planned from the streamed text (nothing read or written yet): a preview, said
 * at a glance (a label and its own style), whose Update diffs are progress diffs.
 * @param {boolean} open
 */
export function plannedSection(open) {
  const badge = h("span", {
    class: "applypatch-badge applypatch-badge-preview",
    title: "planned from the streamed text: nothing read or written yet",
    text: "preview",
  });
  const { el, note, body } = section("Planned changes", "applypatch-planned", open, badge);
  el.className = "applypatch-section applypatch-preview";
  const view = diffViewState({});
  /** @param {{planned: Record<string, any>, cwd: string}} s */
  const update = ({ planned, cwd }) => {
    const entries = Object.entries(planned);
    el.hidden = entries.length === 0;
    note.textContent = entries.length
      ? ` ${entries.length} file${entries.length === 1 ? "" : "s"}: planned, nothing written yet`
      : "";
    const { shown, hidden } = truncate(entries, LIMITS.rows);
    const files = shown.map(([path, change]) => changeFile(path, obj(change), cwd, null, {}, true));
    fill(
      body,
      h("div", {
        class: "applypatch-planned-note",
        text:
          "Preview, planned from the streamed text: nothing is read or written yet. An update shows the " +
          "patch's own lines: its context lines appear as removed and added, with no line numbers.",
      }),
      view.toolbar,
      ...renderFiles(view, files),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
    );
  };
  return { el, update, dispose: view.dispose };
}

/**
 * One change as a file of the diff view (or, without lines to show, a plain row).
 * @param {string} path
 * @param {Record<string, any>} change
 * @param {string} cwd
 * @param {{state: string, applied: AppliedChange | null} | null} row
 * @param {Record<string, any>} sources the `sources` trait
 * @param {boolean} preview
 */
function changeFile(path, change, cwd, row, sources, preview) {
  const label = changeLabel(change);
  const source = obj(sources[path]);
  // an Add's or a Delete's rows are its lines: counted now, made when the file is drawn
  const whole = change.type === "add" || change.type === "delete";
  /** @type {Row[] | null} */
  let made = whole ? null : changeRows(change, source);
  const count = made ? made.length : textLineCount(str(change.content));
  const rowsOf = () => (made ??= changeRows(change, source));
  const move = change.move_path ? relativePath(str(change.move_path), cwd) : "";
  const state = row?.state ?? "";
  const stateText = {
    committed: "✓ committed",
    missing: "✗ not written",
    differs: `≠ committed as ${changeLabel(row?.applied)} ${relativePath(str(row?.applied?.move_path ?? row?.applied?.path), cwd)}`,
    pending: "… pending",
    "not-run": "– nothing written",
    extra: "+ committed, not in the verified map",
  }[state];
  const head = [
    h("span", { class: `applypatch-kind applypatch-kind-${label.toLowerCase()}`, text: label }),
    h("code", { class: "applypatch-path", text: relativePath(path, cwd) }),
    move ? h("span", { class: "applypatch-arrow", text: " → " }) : null,
    move ? h("code", { class: "applypatch-path", text: move }) : null,
    stateText ? h("span", { class: `applypatch-state applypatch-state-${state}`, text: stateText }) : null,
    source.language ? h("span", { class: "applypatch-lang", text: str(source.language) }) : null,
    source.cut ? h("span", { class: "applypatch-lang", text: "colours cut for size or time", title: "some lines are shown without colours: there were too many, or colouring them took too long" }) : null,
  ];
  // lines of the text cut for the view (see result.view_changes): an Add's or a Delete's count
  const cut = Number(change.cut_lines) || 0;
  const added = made ? made.filter((r) => isLine(r, "add")).length : change.type === "add" ? count + cut : 0;
  const removed = made ? made.filter((r) => isLine(r, "del")).length : change.type === "delete" ? count + cut : 0;
  return {
    id: `${label}:${path}`,
    path: relativePath(path, cwd),
    head,
    // what the block is made from: the same again, the block made last time is kept
    sig: [cwd, label, state, stateText, move, preview, str(change.content), str(change.unified_diff), cut, JSON.stringify(source)],
    cut,
    get rows() {
      return rowsOf();
    },
    count,
    sources: sourcesOf(source),
    preview,
    limit: LIMITS.fileDiffLines,
    // a short diff is shown at once; a long one waits for the reader
    open: count <= LIMITS.changeDiffLines,
    added,
    removed,
    attrs: {
      class: `applypatch-file applypatch-change${state ? ` applypatch-change-${state}` : ""}`,
      "data-path": path,
      "data-state": state || null,
    },
  };
}

/**
 * The file list (when there is more than one file) and the files' blocks; a file without
 * lines is a plain row.
 * @param {ReturnType<typeof diffViewState>} view
 * @param {ReturnType<typeof changeFile>[]} files
 */
function renderFiles(view, files) {
  const withRows = files.filter((f) => f.count);
  // files open at first while a budget of shown lines lasts; the others wait for the reader
  let budget = LIMITS.diffLines;
  for (const f of withRows) {
    const shown = Math.min(f.count, f.limit ?? Infinity);
    if (f.open && shown > budget) f.open = false;
    else if (f.open) budget -= shown;
  }
  const make = view.start();
  const box = h("div", { class: "applypatch-files" });
  const list = withRows.length > 1 ? fileList(withRows, view.state.blocks) : null;
  let next = 0;
  // The first files at once; the others in slices of SLICES.ms, each a task of its own, so
  // that a 500-file call never blocks the page (the box says data-rendering meanwhile).
  const slice = (/** @type {number} */ least) => {
    const until = clock() + SLICES.ms;
    for (let made = 0; next < files.length; made++) {
      if (made >= least && clock() > until) {
        box.setAttribute("data-rendering", "");
        setTimeout(() => slice(1), 0);
        return;
      }
      const f = files[next++];
      const block = f.count ? make(f) : null;
      if (f.count && !block) return; // a newer render of the section took over
      box.append(
        block?.el ?? h("div", f.attrs, h("div", { class: "applypatch-change-head applypatch-file-head" }, ...f.head)),
      );
    }
    make.done();
    if (least < SLICES.first) box.removeAttribute("data-rendering"); // a later slice: it was set
  };
  slice(SLICES.first);
  return [list, box];
}

/** How file blocks are made: `first` of them at once, then slices of at most `ms` each. */
export const SLICES = Object.freeze({ first: 20, ms: 25 });
const clock = () => globalThis.performance?.now?.() ?? Date.now();

/** The verified change map next to the committed delta (see compareChanges), and `exact`. */
export function changesSection() {
  const { el, note, body } = section("Verified changes and committed delta", "applypatch-delta", true);
  const view = diffViewState({});
  /** @param {{proposed: Record<string, any>, delta: Record<string, any>, meaning: Meaning, cwd: string, sources: Record<string, any>}} s */
  const update = ({ proposed, delta, meaning, cwd, sources }) => {
    const rows = compareChanges(proposed, delta, meaning);
    const applied = arr(delta.changes);
    // Nothing verified and nothing committed (streaming, or an error before verification).
    el.hidden = rows.length === 0 && applied.length === 0;
    const missing = rows.filter((r) => r.state === "missing" || r.state === "differs").length;
    note.textContent =
      ` ${Object.keys(proposed).length} verified, ${applied.length} committed` +
      (missing ? `, ${missing} not as verified` : "") +
      (delta.exact === false ? ", inexact" : "");
    const { shown, hidden } = truncate(rows, LIMITS.rows);
    const exact =
      delta.exact === undefined || !meaning.terminal || meaning.dry_run
        ? null
        : delta.exact
          ? h("div", { class: "applypatch-exact", text: "exact: the committed changes are complete" })
          : h("div", {
              class: "applypatch-inexact",
              text: "inexact: something happened that the changes cannot describe; the list is a lower bound",
            });
    const files = shown.map((r) => changeFile(r.path, r.change ?? obj(r.applied), cwd, r, obj(sources), false));
    fill(
      body,
      exact,
      files.some((f) => f.count) ? view.toolbar : null,
      ...renderFiles(view, files),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
    );
  };
  return { el, update, dispose: view.dispose };
}

/**
 * The turn's cumulative diff (every call of the turn so far, this one included), one folded
 * block per file (bounded in lines overall), with its headers behind a toggle, a file list,
 * copy and download. A call's view shows its own changes first, so this section starts closed
 * (`open` false) and builds its files only once opened; the header line says how many files
 * the turn has, or why the TurnDiff is empty (`note`: emptied again, or invalidated).
 * @param {boolean} [open]
 */
export function turnDiffSection(open = true) {
  const { el, note, body } = section("TurnDiff of the turn", "applypatch-turn-diff", open);
  const status = h("span", { class: "applypatch-tool-note", role: "status" });
  let text = "";
  const copy = h("button", {
    type: "button",
    class: "applypatch-tool",
    "data-testid": "applypatch-copy-turn-diff",
    "aria-label": "copy the TurnDiff (a patch git apply accepts) to the clipboard",
    text: "Copy patch",
  });
  copy.addEventListener("click", () => copyText(text, status, "TurnDiff"));
  const download = h("a", {
    class: "applypatch-tool applypatch-download",
    "data-testid": "applypatch-download-turn-diff",
    download: "turn.diff",
    role: "button",
    "aria-label": "download the TurnDiff as turn.diff",
    text: "Download turn.diff",
  });
  let url = "";
  const view = diffViewState({ headers: true, extra: [copy, download, status] });
  view.bindHeaders(body);
  /** @typedef {{diff: string, blocks: unknown[], sources: Record<string, any>, note?: string}} TurnState */
  /** @type {{s: TurnState, files: ReturnType<typeof splitTurnDiff>} | null} */
  let waiting = null; // what to draw once the section is opened
  const isOpen = () => (typeof el.open === "boolean" ? el.open : el.getAttribute("open") !== null);
  el.addEventListener("toggle", () => {
    if (isOpen() && waiting) draw(waiting.s, waiting.files);
  });
  /** @param {TurnState} s */
  const update = (s) => {
    const files = splitTurnDiff(s.diff, s.blocks);
    // an empty TurnDiff is hidden, unless there is a reason to give (emptied, invalidated)
    const reason = files.length ? "" : str(s.note);
    el.hidden = files.length === 0 && !reason;
    el.classList?.toggle?.("applypatch-turn-diff-empty", Boolean(reason));
    note.textContent = files.length
      ? ` ${files.length} file${files.length === 1 ? "" : "s"} in this turn (every call so far)`
      : reason
        ? ` ${reason}`
        : "";
    waiting = { s, files };
    if (isOpen() || !files.length) draw(s, files);
  };
  /**
   * @param {TurnState} s
   * @param {ReturnType<typeof splitTurnDiff>} files
   */
  const draw = ({ diff, sources }, files) => {
    waiting = null;
    text = diff;
    if (!files.length) {
      fill(body);
      return;
    }
    if (url) globalThis.URL?.revokeObjectURL?.(url);
    url = "";
    try {
      if (diff && typeof Blob !== "undefined" && globalThis.URL?.createObjectURL)
        url = URL.createObjectURL(new Blob([diff], { type: "text/x-diff" }));
    } catch {
      url = "";
    }
    download.hidden = !url;
    if (url) download.setAttribute("href", url);
    const { shown, hidden } = truncate(files, LIMITS.rows);
    const views = shown.map((f) => {
      const source = obj(obj(sources)[f.key]);
      /** @type {Row[] | null} */
      let rows = null;
      return {
        id: `turn:${f.path}`,
        path: f.path,
        head: [
          h("code", { class: "applypatch-path", text: f.path }),
          source.language ? h("span", { class: "applypatch-lang", text: str(source.language) }) : null,
        ],
        sig: [f.path, f.text, f.cut, JSON.stringify(source)],
        cut: f.cut,
        get rows() {
          return (rows ??= diffRows(classifyDiffLines(f.text)));
        },
        count: f.lines,
        limit: LIMITS.fileDiffLines, // past it, the rest of the file is one fold ("show N lines")
        sources: sourcesOf(source),
        preview: false,
        open: true, // while the budget of shown lines lasts (see renderFiles)
        added: f.added,
        removed: f.removed,
        attrs: { "data-path": f.path },
      };
    });
    fill(
      body,
      view.toolbar,
      ...renderFiles(view, views),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
    );
  };
  const dispose = () => {
    view.dispose();
    if (url) globalThis.URL?.revokeObjectURL?.(url);
  };
  return { el, update, dispose };
}

/** The timeline: the latest events, their times relative to the first one. */
export function eventsSection() {
  const { el, note, body } = section("Timeline", "applypatch-events", false);
  /** @param {{events: any[]}} s */
  const update = ({ events }) => {
    note.textContent = events.length ? ` ${events.length} event${events.length === 1 ? "" : "s"}` : "";
    const base = events.length ? Number(obj(events[0]).time) : 0;
    const start = Math.max(0, events.length - LIMITS.events);
    const row = (/** @type {Record<string, any>} */ ev) =>
      h(
        "tr",
        { "data-type": str(ev.type) },
        h("td", { class: "applypatch-time", text: formatOffset(Number(ev.time), base) }),
        h("td", null, h("code", { text: str(ev.type) })),
        h("td", { text: str(ev.summary) }),
      );
    fill(
      body,
      start ? h("div", { class: "applypatch-more", text: moreText(start, "event", "earlier") }) : null,
      h(
        "table",
        { class: "applypatch-events" },
        h("tbody", null, ...events.slice(start).map((e) => row(obj(e)))),
      ),
    );
  };
  return { el, update };
}

// ---------------------------------------------------------------------------------------------
// notebooks as cells: the `notebooks` trait (Python's notebooks.call_notebook_views), each
// notebook's cells added, removed, moved and changed, in the diff view's tables

/** The keys of the `notebooks` trait, in the order they are shown, with their labels. */
export const NOTEBOOK_VIEWS = Object.freeze([
  { key: "proposed", label: "proposed, nothing written" },
  { key: "committed", label: "committed" },
  { key: "turn", label: "in the TurnDiff" },
]);

/**
 * What a TurnDiff notebook whose change is the call's own committed one shows instead of its
 * cells (Python's `same_as`, notebooks.call_notebook_views), or "" for any other view.
 * @param {Record<string, any>} nb
 */
export const sameAsText = (nb) =>
  nb.same_as === "committed" ? "the same change as committed above: this call is the turn's only change to it" : "";

/**
 * Where a cell is (`cell 2`, or `cell 2 → 4` when it moved), its id and its type.
 * @param {Record<string, any>} entry a cell entry of notebook_diff
 */
export function cellTitle(entry) {
  const num = (/** @type {unknown} */ v) => (typeof v === "number" ? v : null);
  const old = num(entry.old_index);
  const nu = num(entry.new_index);
  const where = old !== null && nu !== null && old !== nu ? `cell ${old} → ${nu}` : `cell ${nu ?? old ?? "?"}`;
  const id = entry.id ? ` · id ${str(entry.id)}` : "";
  return `${where}${id} · ${str(entry.cell_type) || "no cell_type"}`;
}

/**
 * The rows of a cell's source in the diff view: a changed source's diff (numbered by the new
 * source's lines), an added cell's lines as added, a removed cell's as removed; none else.
 * @param {Record<string, any>} entry
 * @returns {Row[]}
 */
export function cellRows(entry) {
  const source = str(entry.source);
  if (entry.source_diff) return diffRows(classifyDiffLines(str(entry.source_diff)), lineCount(source));
  if (entry.status === "added") return changeRows({ type: "add", content: source });
  if (entry.status === "removed") return changeRows({ type: "delete", content: source });
  return [];
}

/**
 * What a cell entry keeps folded: its outputs, execution count and metadata, each with a
 * summary and, when Python sent one, the diff of its JSON.
 * @param {Record<string, any>} entry
 * @returns {{name: string, summary: string, rows: Row[]}[]}
 */
export function cellExtras(entry) {
  const out = [];
  const outputs = obj(entry.outputs);
  if (outputs.summary) out.push({ name: "outputs", summary: str(outputs.summary), rows: diffRows(classifyDiffLines(str(outputs.diff))) });
  if (Array.isArray(entry.execution_count)) {
    const [a, b] = entry.execution_count.map((n) => (typeof n === "number" ? String(n) : "none"));
    out.push({ name: "execution count", summary: `${a} → ${b}`, rows: [] });
  }
  const metadata = obj(entry.metadata);
  if (metadata.summary || metadata.diff)
    out.push({ name: "metadata", summary: str(metadata.summary), rows: diffRows(classifyDiffLines(str(metadata.diff))) });
  return out;
}

/**
 * A cell's folded outputs, execution count and metadata: one `<details>`, closed until the
 * reader opens it (or "Expand all"); its tables are built when first shown, in the view's mode.
 * Shaped like a file block, so that the view's toolbar drives it too.
 * @param {string} id
 * @param {string} title the cell's title (for the label)
 * @param {{name: string, summary: string, rows: Row[]}[]} extras
 * @param {ReturnType<typeof diffViewState>["state"]} state
 */
function extrasBlock(id, title, extras, state) {
  const names = extras.map((e) => e.name).join(", ");
  const summary = h("summary", { class: "applypatch-nb-extra-head", "aria-label": `${names} of ${title}` }, names);
  const body = h("div", { class: "applypatch-nb-extra-body" });
  const details = /** @type {HTMLDetailsElement} */ (
    h("details", { class: "applypatch-nb-extra", "data-testid": "applypatch-nb-extra", "data-cell-extra": id, open: state.openFiles.get(id) ?? false }, summary, body)
  );
  return lazyFold(details, summary, id, state, () => {
    fill(
      body,
      ...extras.map((extra) => {
        const tableId = `${id}/${extra.name}`;
        const opened = state.opened.get(tableId) ?? new Set();
        state.opened.set(tableId, opened);
        const box = h("div", { class: "applypatch-file-body" });
        const table = () =>
          fill(
            box,
            diffTable({ rows: extra.rows, sources: sourcesOf({}), preview: false, limit: LIMITS.fileDiffLines }, state.mode, opened, (fold) => {
              opened.add(fold);
              table();
              /** @type {any} */ (box.firstElementChild)?.focus?.();
            }),
          );
        if (extra.rows.length) table();
        return h(
          "div",
          { class: "applypatch-nb-extra-item", "data-extra": extra.name },
          h("div", null, h("span", { class: "applypatch-label", text: `${extra.name}: ` }), extra.summary),
          extra.rows.length ? box : null,
        );
      }),
    );
  });
}

/** @param {number} n @param {string} word */
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The call's notebooks as cells: per notebook its head (kind, path, what was done, summary),
 * why its cells cannot be shown or why it is not a valid notebook, its cells (a changed
 * cell's source diff in the diff view's table; outputs, execution count and metadata folded;
 * runs of unchanged cells as "N unchanged cells"), its metadata and the raw JSON diff, one
 * click away (open when the cells cannot be shown). The groups: proposed, committed and the
 * notebooks of the call's TurnDiff (NOTEBOOK_VIEWS); a TurnDiff notebook whose change is the
 * call's committed one shows its head and says so (sameAsText). Hidden when the call touches
 * no notebook. `views`, `title` and `testid`: the groups shown, for another use of the same
 * view (the undo panel's UNDO_NOTEBOOK_VIEWS).
 * @param {readonly {key: string, label: string}[]} [views]
 * @param {string} [title]
 * @param {string} [testid]
 */
export function notebooksSection(views = NOTEBOOK_VIEWS, title = "Notebooks as cells", testid = "applypatch-notebooks") {
  const { el, note, body } = section(title, testid, true);
  const view = diffViewState({});
  /** @param {{notebooks: Record<string, any>, cwd: string}} s */
  const update = ({ notebooks, cwd }) => {
    const all = views.flatMap(({ key, label }) => arr(notebooks[key]).map((nb) => ({ key, label, nb: obj(nb) })));
    el.hidden = all.length === 0;
    const labels = views.map(({ key, label }) => [arr(notebooks[key]).length, label]).filter(([n]) => n);
    note.textContent = labels.map(([n, label]) => ` ${plural(Number(n), "notebook")} ${label}`).join(";");
    const { shown, hidden } = truncate(all, LIMITS.rows);
    /** @type {Parameters<ReturnType<typeof diffViewState>["blocks"]>[0]} */
    const files = [];
    /** @type {{id: string, title: string, extras: ReturnType<typeof cellExtras>}[]} */
    const extraSpecs = [];
    let budget = LIMITS.diffLines;
    /** @param {string} id @param {string} path @param {(Node | string | null)[]} head @param {Row[]} rows @param {boolean} open @param {Record<string, any>} attrs @param {Sources} [sources] */
    const file = (id, path, head, rows, open, attrs, sources = sourcesOf({})) => {
      const shownRows = Math.min(rows.length, LIMITS.fileDiffLines);
      const opens = open && shownRows <= budget;
      if (opens) budget -= shownRows;
      files.push({
        id,
        path,
        head,
        rows,
        sources,
        limit: LIMITS.fileDiffLines,
        open: opens,
        added: rows.filter((r) => isLine(r, "add")).length,
        removed: rows.filter((r) => isLine(r, "del")).length,
        attrs,
      });
    };
    // first the descriptions of every block (the toolbar drives them all), then the DOM
    const layouts = shown.map(({ key, label, nb }, n) => {
      const path = str(nb.path);
      const shownPath = relativePath(path, cwd);
      const base = `nb:${key}:${n}:${path}`;
      const same = sameAsText(nb);
      if (same) return { key, label, nb, path, shownPath, base, same, items: [], cellsHidden: 0, metadata: false, raw: false };
      const cells = arr(nb.cells).map(obj);
      const { shown: cellsShown, hidden: cellsHidden } = truncate(cells, LIMITS.rows);
      const items = cellsShown.map((entry, i) => {
        const status = /^[a-z-]+$/.test(str(entry.status)) ? str(entry.status) : "unknown";
        if (typeof entry.count === "number") {
          const at = arr(entry.new_indices).length ? arr(entry.new_indices) : arr(entry.old_indices);
          const first = at[0];
          const last = at[at.length - 1];
          const range = typeof first === "number" ? (first === last ? ` (cell ${first})` : ` (cells ${first}–${last})`) : "";
          return { kind: "fold", text: `⋯ ${plural(entry.count, "unchanged cell")}${range}` };
        }
        const id = `${base}:cell:${entry.id ?? ""}:${entry.old_index ?? ""}:${entry.new_index ?? ""}:${i}`;
        const title = cellTitle(entry);
        const changes = arr(entry.changes).map(str);
        const what = changes.length ? `changed: ${changes.join(", ")}` : "";
        const head = [
          h("span", { class: `applypatch-nb-status applypatch-nb-status-${status}`, text: status }),
          h("span", { class: "applypatch-nb-cell-title", text: title }),
          what ? h("span", { class: "applypatch-nb-changes", text: what }) : null,
        ];
        const rows = cellRows(entry);
        const source = str(entry.source);
        const sources = entry.source_diff ? sourcesOf({ new: [[1, source.split("\n")]] }) : sourcesOf({});
        file(id, `${status} ${title}`, head, rows, status !== "unchanged", { class: "applypatch-file applypatch-nb-source", "data-testid": "applypatch-nb-source" }, sources);
        const extras = cellExtras(entry);
        if (extras.length) extraSpecs.push({ id: `${id}:extra`, title, extras });
        return { kind: "cell", id, status, head, rows, extras: extras.length ? `${id}:extra` : null, entry };
      });
      const metadata = obj(nb.metadata);
      if (metadata.diff)
        file(`${base}:metadata`, "notebook metadata", [h("span", { class: "applypatch-label", text: "notebook metadata: " }), str(metadata.summary)], diffRows(classifyDiffLines(str(metadata.diff))), false, { class: "applypatch-file applypatch-nb-metadata" });
      const rawRows = diffRows(classifyDiffLines(str(nb.raw_diff)));
      file(
        `${base}:raw`,
        `raw JSON diff of ${shownPath}`,
        [h("span", { class: "applypatch-label", text: "Raw JSON diff" }), h("span", { class: "applypatch-lang", text: "what the patch changed" })],
        rawRows,
        nb.ok === false,
        { class: "applypatch-file applypatch-nb-raw", "data-testid": "applypatch-nb-raw" },
      );
      return { key, label, nb, path, shownPath, base, same: "", items, cellsHidden, metadata: Boolean(metadata.diff), raw: rawRows.length > 0 };
    });
    const withRows = files.filter((f) => f.rows.length);
    const els = view.blocks(withRows);
    /** @type {Map<string, HTMLElement>} */
    const byId = new Map(withRows.map((f, i) => [f.id, els[i]]));
    for (const spec of extraSpecs) {
      const block = extrasBlock(spec.id, spec.title, spec.extras, view.state);
      view.state.blocks.push(block);
      byId.set(spec.id, block.el);
    }
    const fileOf = (/** @type {string} */ id) => byId.get(id) ?? null;
    const plain = (/** @type {(Node | string | null)[]} */ head) => h("div", { class: "applypatch-file-head applypatch-nb-plain" }, ...head);
    fill(
      body,
      files.some((f) => f.rows.length) ? view.toolbar : null,
      ...layouts.map((l) => {
        const nb = l.nb;
        const kind = changeLabel({ type: str(nb.kind), move_path: nb.moved_from ? str(nb.moved_from) : null });
        const validation = obj(nb.validation);
        const version = obj(nb.nbformat);
        const matched = nb.matched_by ? `cells matched by ${str(nb.matched_by)}` : "";
        return h(
          "div",
          { class: "applypatch-nb", "data-testid": "applypatch-nb", "data-path": l.path, "data-view": l.key, role: "group", "aria-label": `notebook ${l.shownPath}, ${l.label}: ${str(nb.summary)}` },
          h(
            "div",
            { class: "applypatch-nb-head" },
            h("span", { class: `applypatch-kind applypatch-kind-${kind.toLowerCase()}`, text: kind }),
            h("code", { class: "applypatch-path", text: l.shownPath }),
            nb.moved_from ? h("span", { class: "applypatch-lang", text: `moved from ${relativePath(str(nb.moved_from), cwd)}` }) : null,
            h("span", { class: `applypatch-nb-view applypatch-nb-view-${l.key}`, text: l.label }),
            h("span", { class: "applypatch-nb-summary", text: str(nb.summary) }),
            version.after || version.before ? h("span", { class: "applypatch-lang", text: `nbformat ${str(version.after || version.before)}` }) : null,
            matched ? h("span", { class: "applypatch-lang", text: matched }) : null,
          ),
          l.same ? h("div", { class: "applypatch-nb-same", role: "note", text: l.same }) : null,
          !l.same && nb.ok === false
            ? h("div", { class: "applypatch-nb-reason", role: "note", text: `The cells cannot be shown: ${str(nb.reason)}. The raw JSON diff below is what the patch changed.` })
            : null,
          !l.same && validation.after ? h("div", { class: "applypatch-nb-invalid", role: "note", text: `invalid notebook: ${str(validation.after)}` }) : null,
          !l.same && validation.before && validation.before !== validation.after
            ? h("div", { class: "applypatch-nb-was-invalid", text: `before the patch, already an invalid notebook: ${str(validation.before)}` })
            : null,
          l.items.length
            ? h(
                "ol",
                { class: "applypatch-nb-cells", "aria-label": `cells of ${l.shownPath}` },
                ...l.items.map((item) =>
                  item.kind === "fold"
                    ? h("li", { class: "applypatch-nb-unchanged", "data-testid": "applypatch-nb-unchanged", text: item.text })
                    : h(
                        "li",
                        { class: `applypatch-nb-cell applypatch-nb-cell-${item.status}`, "data-status": item.status, "data-cell": item.entry.id ?? null },
                        fileOf(item.id ?? "") ?? plain(item.head ?? []),
                        item.extras ? fileOf(item.extras) : null,
                      ),
                ),
              )
            : null,
          l.cellsHidden ? h("div", { class: "applypatch-more", text: moreText(l.cellsHidden, "cell") }) : null,
          l.metadata ? fileOf(`${l.base}:metadata`) : null,
          l.same ? null : l.raw ? fileOf(`${l.base}:raw`) : h("div", { class: "applypatch-nb-plain applypatch-lang", text: "raw JSON diff: no change" }),
        );
      }),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "notebook") }) : null,
    );
  };
  return { el, update, dispose: view.dispose };
}

// ---------------------------------------------------------------------------------------------
// the view: which traits each section reads, and render() wiring the sections to the model

/**
 * The plain state each section renders, read from the model's `get`: the one place that
 * reads traits (DEPENDENTS lists, per trait, the sections to re-render when it changes).
 * @type {Record<string, (get: (name: string) => any) => any>}
 */
export const SECTION_STATE = {
  header(get) {
    const meaning = statusMeaning(get("vocabulary"), get("status"));
    const stage = str(get("stage"));
    const summary = summaryText(
      {
        stage: stageLabel(stageList(get("vocabulary")), stage),
        planned: obj(get("planned")),
        proposed: obj(get("proposed")),
        delta: obj(get("delta")),
        approval: obj(get("approval")),
        error: str(get("error")),
      },
      meaning,
    );
    const common = { title: str(get("title")), dryRun: Boolean(get("dry_run")), cwd: str(get("cwd")) };
    return { ...common, status: str(get("status")), stage, meaning, summary };
  },
  stages: (get) => ({
    stages: stageList(get("vocabulary")),
    stage: str(get("stage")),
    meaning: statusMeaning(get("vocabulary"), get("status")),
    eventTypes: arr(get("events")).map((e) => str(obj(e).type)),
  }),
  safety: (get) => ({
    safety: obj(get("safety")),
    meanings: obj(obj(get("vocabulary")).safety),
    review: obj(obj(get("vocabulary")).safety_review),
  }),
  approval: (get) => ({ approval: obj(get("approval")), cwd: str(get("cwd")), review: obj(get("review")) }),
  result: (get) => ({
    error: str(get("error")),
    stdout: str(get("stdout")),
    stderr: str(get("stderr")),
    output: str(get("output")),
    hasStatus: str(get("status")) !== "",
  }),
  explanation: (get) => ({ explanation: obj(get("explanation")), cwd: str(get("cwd")) }),
  patch: (get) => ({
    text: str(get("patch_text")),
    current: Number(get("current_line")) || 0,
    truncated: Boolean(get("patch_truncated")),
  }),
  planned: (get) => ({ planned: obj(get("planned")), cwd: str(get("cwd")) }),
  changes: (get) => ({
    proposed: obj(get("proposed")),
    delta: obj(get("delta")),
    meaning: statusMeaning(get("vocabulary"), get("status")),
    cwd: str(get("cwd")),
    sources: obj(get("sources")),
  }),
  turnDiff: (get) => ({
    diff: str(get("turn_diff")),
    blocks: arr(get("turn_diff_files")),
    sources: obj(get("turn_sources")),
    note: str(get("turn_diff_note")),
  }),
  events: (get) => ({ events: arr(get("events")) }),
  notebooks: (get) => ({ notebooks: obj(get("notebooks")), cwd: str(get("cwd")) }),
  undo: (get) => ({ undo: obj(get("undo")), cwd: str(get("cwd")) }),
};

/** Which sections a trait feeds (node tests check it against what SECTION_STATE reads). */
export const DEPENDENTS = Object.freeze({
  title: ["header"],
  cwd: ["header", "approval", "explanation", "planned", "changes", "notebooks", "undo"],
  dry_run: ["header"],
  vocabulary: ["header", "stages", "safety", "changes"],
  status: ["header", "stages", "result", "changes"],
  stage: ["header", "stages"],
  safety: ["safety"],
  approval: ["approval", "header"],
  review: ["approval"],
  patch_text: ["patch"],
  patch_truncated: ["patch"],
  current_line: ["patch"],
  planned: ["planned", "header"],
  proposed: ["changes", "header"],
  delta: ["changes", "header"],
  output: ["result"],
  stdout: ["result"],
  stderr: ["result"],
  error: ["result", "header"],
  turn_diff: ["turnDiff"],
  turn_diff_files: ["turnDiff"],
  turn_diff_note: ["turnDiff"],
  sources: ["changes"],
  turn_sources: ["turnDiff"],
  events: ["events", "stages"],
  explanation: ["explanation"],
  notebooks: ["notebooks"],
  undo: ["undo"],
});

/**
 * The stream's sections matter while the call runs; once it has ended they fold away (in this
 * view, unless the reader opened or closed one), leaving room for the result.
 * @param {HTMLDetailsElement[]} foldable
 * @param {boolean} endedAtStart
 */
function folder(foldable, endedAtStart) {
  let folded = endedAtStart;
  let readerToggled = false;
  const onSummaryClick = () => {
    readerToggled = true;
  };
  for (const d of foldable) d.firstElementChild?.addEventListener("click", onSummaryClick);
  return {
    /** @param {boolean} ended */
    update(ended) {
      if (!ended || folded) return;
      folded = true;
      if (!readerToggled) for (const d of foldable) d.open = false;
    },
    dispose() {
      for (const d of foldable) d.firstElementChild?.removeEventListener("click", onSummaryClick);
    },
  };
}

/** The traits whose every value the history records. */
const HISTORY_TRAITS = Object.freeze(["stage", "status", "patch_text"]);

/**
 * Every stage and status a view saw and how many lines of patch text it rendered, with
 * `Date.now()` (the `data-history` attribute: tests read it to prove the stream was shown).
 * @param {(name: string) => any} get
 */
function historyRecorder(get) {
  /** @type {HistoryEntry[]} */
  const history = [];
  return {
    record() {
      const now = Date.now();
      recordHistory(history, "stage", str(get("stage")), now);
      recordHistory(history, "status", str(get("status")), now);
      recordHistory(history, "lines", lineCount(str(get("patch_text"))), now);
    },
    json: () => JSON.stringify(history),
  };
}

/**
 * Call `onChange(trait, sections)` when a trait of DEPENDENTS changes; returns the undo.
 * @param {Model} model
 * @param {(trait: string, sections: string[]) => void} onChange
 * @returns {() => void}
 */
function listen(model, onChange) {
  const listeners = Object.entries(DEPENDENTS).map(([trait, names]) => {
    const cb = () => onChange(trait, names);
    model.on(`change:${trait}`, cb);
    return /** @type {[string, () => void]} */ ([`change:${trait}`, cb]);
  });
  return () => {
    for (const [event, cb] of listeners) model.off(event, cb);
  };
}

/**
 * While a view is alive, hide the call's static record (an output of its own, `data-applypatch-
 * record` = the `record_id` trait; see applypatch_ext/jupyter/record.py), which is what a saved
 * notebook shows without a kernel. The record is looked for among the view's ancestors, the
 * nearest holding it first (in JupyterLab and Notebook 7: the cell's output area), and the
 * branch under that ancestor holding the record is hidden, again whenever the output area
 * changes; `dispose()` shows it again (the view is gone: a kernel restart, a closed widget).
 * @param {HTMLElement} el
 * @param {string} recordId
 */
export function recordHider(el, recordId) {
  /** @type {HTMLElement | null} */
  let hidden = null;
  /** @type {MutationObserver | null} */
  let observer = null;
  const selector = `[data-applypatch-record="${recordId.replace(/["\\]/g, "")}"]`;
  const show = () => {
    if (hidden) hidden.style.removeProperty("display");
    hidden = null;
  };
  /** The record's branch under the nearest ancestor of `el` that holds it, and that ancestor. */
  const find = () => {
    for (let scope = el.parentElement, depth = 0; scope && depth < 8; scope = scope.parentElement, depth++) {
      const record = scope.querySelector(selector);
      if (!record) continue;
      let branch = /** @type {HTMLElement} */ (record);
      while (branch.parentElement && branch.parentElement !== scope) branch = branch.parentElement;
      return { scope, branch };
    }
    return null;
  };
  const apply = () => {
    if (hidden && hidden.isConnected && hidden.style.display === "none") return;
    const found = find();
    if (!found) return;
    if (hidden !== found.branch) show();
    hidden = found.branch;
    hidden.style.display = "none";
  };
  let disposed = false;
  const start = () => {
    apply();
    const area = /** @type {HTMLElement | null} */ (el.closest(".jp-OutputArea"));
    const watched = area ?? el.parentElement?.parentElement?.parentElement ?? null;
    if (watched && typeof MutationObserver !== "undefined") {
      // The whole area: a record rendered after the view, or re-rendered, is hidden at once.
      observer = new MutationObserver(apply);
      observer.observe(watched, { childList: true, subtree: true });
    }
  };
  // (a fake DOM without parents, in the node tests, has nothing to hide)
  if (recordId && "parentElement" in el) {
    // The view is rendered before the front end attaches it: start once it is in the page.
    const whenAttached = () => {
      if (disposed) return;
      if (el.isConnected) start();
      else requestAnimationFrame(whenAttached);
    };
    whenAttached();
  }
  return {
    apply,
    dispose() {
      disposed = true;
      observer?.disconnect();
      show();
    },
  };
}

/**
 * @param {{model: Model, el: HTMLElement}} props
 * @returns {() => void}
 */
function render({ model, el }) {
  /** @param {string} name */
  const get = (name) => {
    try {
      return model.get(name);
    } catch {
      return undefined;
    }
  };
  const history = historyRecorder(get);
  const endedAtStart = SECTION_STATE.header(get).meaning.terminal;
  const view = {
    header: headerSection(),
    stages: stagesSection(),
    safety: safetySection(),
    approval: approvalSection(
      (decision, extra = {}) => model.send({ type: "approval", decision, ...extra }),
      decisionList(get("vocabulary")),
    ),
    result: resultSection(),
    undo: undoSection((message) => model.send(message), decisionList(get("vocabulary"))),
    explanation: explanationSection(),
    patch: patchSection(!endedAtStart),
    planned: plannedSection(!endedAtStart),
    changes: changesSection(),
    notebooks: notebooksSection(),
    turnDiff: turnDiffSection(false),
    events: eventsSection(),
  };
  const { header, ...rest } = view;
  const root = h("div", { class: "applypatch-widget", "data-testid": "applypatch-widget" });
  root.append(header.el, header.cwd, ...Object.values(rest).map((s) => s.el));
  el.append(root);
  const fold = folder([view.patch.el, view.planned.el], endedAtStart);
  let record = recordHider(el, str(get("record_id")));
  const onRecord = () => {
    record.dispose();
    record = recordHider(el, str(get("record_id")));
  };
  model.on("change:record_id", onRecord);

  /** @param {string} name */
  const update = (name) => {
    const state = SECTION_STATE[name](get);
    /** @type {Record<string, {update: (state: any) => void}>} */ (view)[name].update(state);
    if (name !== "header") return;
    root.setAttribute("data-status", state.status);
    root.setAttribute("data-stage", state.stage);
    fold.update(state.meaning.terminal);
  };
  /** @type {Set<string>} */
  const dirty = new Set();
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const names = [...dirty];
    dirty.clear();
    for (const name of names) {
      try {
        update(name);
      } catch (err) {
        // A bad value must not take the whole view down: the other sections still render.
        console.warn(`applypatch widget: cannot render ${name}:`, err);
      }
    }
    root.setAttribute("data-history", history.json());
  };

  const unlisten = listen(model, (trait, names) => {
    if (HISTORY_TRAITS.includes(trait)) history.record();
    for (const name of names) dirty.add(name);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  });

  history.record();
  for (const name of Object.keys(view)) dirty.add(name);
  flush();

  return () => {
    unlisten();
    view.approval.dispose();
    view.undo.dispose();
    view.planned.dispose();
    view.changes.dispose();
    view.notebooks.dispose();
    view.turnDiff.dispose();
    fold.dispose();
    model.off("change:record_id", onRecord);
    record.dispose();
  };
}

export default { render };
