// @ts-check
/**
 * The live view of one apply_patch tool call: an anywidget "AFM" module.
 *
 * One self-contained file with no imports (anywidget loads it from a blob URL, where relative
 * and CDN imports fail). Python (`applypatch_ext/jupyter/widget.py`) owns the state: this module
 * only renders the synced traits, re-rendering a section when one of its traits changes, and
 * sends one message back, `{type: "approval", decision}`, when an approval button is clicked.
 * It never decides what a status or a stage means beyond what Python sends (`stages`,
 * `statuses`), and it renders a bounded number of lines of any text, so big patches stay cheap.
 *
 * The pure helpers are named exports so that `node --test js/` can test them without a DOM.
 */

/**
 * @typedef {{type?: string, content?: string, unified_diff?: string, move_path?: string | null}} FileChange
 * @typedef {{type?: string, path?: string, move_path?: string | null}} AppliedChange
 * @typedef {{changes?: AppliedChange[], exact?: boolean}} Delta
 * @typedef {[boolean, string]} Segment
 * @typedef {{differs: boolean, kind: string, text: string, title?: string}} Token
 * @typedef {{kind: string, text: string}} DiffLine
 * @typedef {{path: string, text: string, added: number, removed: number}} FileDiff
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

/** The decisions an approval button sends (Python's `Decision` values). */
export const DECISIONS = Object.freeze([
  { decision: "approve", label: "Approve", testid: "applypatch-approve" },
  { decision: "approve-for-session", label: "Approve for session", testid: "applypatch-approve-session" },
  { decision: "decline", label: "Decline", testid: "applypatch-decline" },
]);

// The statuses whose meaning the view needs: still running, waiting for a click, nothing written.
const RUNNING = "";
const AWAITING_APPROVAL = "awaiting-approval";
const DRY_RUN = "dry-run";

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
        return { path: old && old !== path ? `${old} → ${path}` : path, text: String(block.diff ?? "") };
      })
    : diff
      ? [{ path: "turn diff", text: diff }]
      : [];
  return entries.map(({ path, text }) => {
    let added = 0;
    let removed = 0;
    for (const line of classifyDiffLines(text)) {
      if (line.kind === "add") added++;
      else if (line.kind === "del") removed++;
    }
    return { path, text, added, removed };
  });
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
 * @param {string} status
 * @returns {{path: string, change: FileChange | null, state: string, applied: AppliedChange | null}[]}
 */
export function compareChanges(proposed, delta, status) {
  const changes = Array.isArray(delta?.changes) ? delta.changes : [];
  const used = new Set();
  const open = status === RUNNING || status === AWAITING_APPROVAL;
  const notRun = status === DRY_RUN || (status === "declined" && changes.length === 0);
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
 * The event that proves a call went through a stage that a call may skip (Codex event names):
 * no safety assessment after a parse error, no approval request when auto-approved, no apply
 * without a FileChange begin.
 */
/** Tooltips of the stage states that need one. */
const STAGE_TITLES = /** @type {Record<string, string>} */ (
  Object.freeze({
    skipped: "not needed for this call",
    unreached: "not reached: the call stopped before",
  })
);

export const STAGE_EVIDENCE = Object.freeze({
  safety: "patch_safety_assessed",
  "waiting for approval": "apply_patch_approval_request",
  applying: "patch_apply_begin",
});

/**
 * Each stage with its state: `done`, `active`, `todo`, `skipped` (passed without the event that
 * proves it ran, see STAGE_EVIDENCE), `failed` (where a call stopped with a status other than
 * completed / dry-run: Python sends that stage, `done` for a completed call) or `unreached`
 * (after the stage where a call stopped).
 * @param {string[]} stages
 * @param {string} stage
 * @param {string} status
 * @param {string[]} [eventTypes] the types of the call's events so far
 * @returns {{name: string, state: string}[]}
 */
export function stageStates(stages, stage, status, eventTypes = []) {
  const list = Array.isArray(stages) ? stages.filter((s) => typeof s === "string") : [];
  const seen = new Set(Array.isArray(eventTypes) ? eventTypes : []);
  const at = list.indexOf(stage);
  const ended = status !== RUNNING && status !== AWAITING_APPROVAL;
  const bad = ended && status !== "completed" && status !== DRY_RUN;
  /** @param {string} name */
  const skipped = (name) => {
    const evidence = /** @type {Record<string, string>} */ (STAGE_EVIDENCE)[name];
    if (name === "applying" && (status === "declined" || status === DRY_RUN)) return true;
    return evidence !== undefined && !seen.has(evidence);
  };
  return list.map((name, i) => {
    /** @type {string} */
    let state = "todo";
    if (at < 0) state = "todo";
    else if (i < at) state = skipped(name) ? "skipped" : "done";
    else if (i === at) state = !ended ? "active" : bad ? "failed" : "done";
    else if (bad) state = "unreached";
    return { name, state };
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
 * The one-line summary in the header.
 * @param {{status?: string, stage?: string, dry_run?: boolean, planned?: Record<string, FileChange>,
 *   proposed?: Record<string, FileChange>, delta?: Delta, approval?: {files?: string[]}, error?: string}} s
 */
export function summaryText(s) {
  const status = s.status ?? "";
  const count = (/** @type {object | undefined} */ o) => Object.keys(o ?? {}).length;
  const files = (/** @type {number} */ n) => `${n} file${n === 1 ? "" : "s"}`;
  const committed = Array.isArray(s.delta?.changes) ? s.delta.changes.length : 0;
  const proposed = count(s.proposed);
  switch (status) {
    case RUNNING: {
      const planned = count(s.planned);
      return (
        `${s.stage || "streaming"}…` + (planned ? ` ${files(planned)} planned, nothing written yet` : "")
      );
    }
    case AWAITING_APPROVAL:
      return `waiting for approval of ${files((s.approval?.files ?? []).length || proposed)}; nothing written yet`;
    case DRY_RUN:
      return `dry run: ${files(proposed)} verified, nothing written`;
    case "completed":
      return `${files(committed)} changed`;
    case "declined":
      return "declined: nothing written";
    case "failed":
    case "cancelled": {
      const exact = s.delta?.exact === false ? " (inexact: a lower bound)" : "";
      return `${status}: ${committed} of ${files(proposed)} committed${exact}`;
    }
    default:
      return s.error ? `${status}: ${firstLine(s.error)}` : status;
  }
}

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
 * A coloured diff block, bounded.
 * @param {DiffLine[]} lines
 * @param {number} max
 */
function diffBlock(lines, max) {
  const { shown, hidden } = truncate(lines, max);
  return h(
    "pre",
    { class: "applypatch-diff" },
    ...shown.map((l) =>
      h("span", { class: `applypatch-line applypatch-diff-${l.kind}`, text: l.text || " " }),
    ),
    hidden ? h("span", { class: "applypatch-more", text: moreText(hidden) }) : null,
  );
}

/**
 * @param {string} title
 * @param {string} testid
 * @param {boolean} open
 */
function section(title, testid, open) {
  const heading = h("span", { class: "applypatch-section-title", text: title });
  const note = h("span", { class: "applypatch-section-note" });
  const body = h("div", { class: "applypatch-section-body" });
  const el = /** @type {HTMLDetailsElement} */ (
    h(
      "details",
      { class: "applypatch-section", "data-testid": testid, open },
      h("summary", null, heading, note),
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
  /**
   * Every stage and status this view saw and how many lines of patch text it rendered, with
   * `Date.now()` (the `data-history` attribute: tests read it to prove the stream was shown).
   * @type {HistoryEntry[]}
   */
  const history = [];
  const record = () => {
    const now = Date.now();
    recordHistory(history, "stage", str(get("stage")), now);
    recordHistory(history, "status", str(get("status")), now);
    recordHistory(history, "lines", lineCount(str(get("patch_text"))), now);
  };

  const root = h("div", { class: "applypatch-widget", "data-testid": "applypatch-widget" });

  // header
  const title = h("span", { class: "applypatch-title" });
  const dryBadge = h("span", {
    class: "applypatch-badge applypatch-badge-dry",
    text: "dry run",
    hidden: true,
  });
  const status = h("span", { class: "applypatch-status", "data-testid": "applypatch-status" });
  const summary = h("span", { class: "applypatch-summary" });
  const cwd = h("div", { class: "applypatch-cwd" });
  const header = h("div", { class: "applypatch-header" }, title, dryBadge, status, summary);

  // stages + safety
  const stages = h("ol", { class: "applypatch-stages", "data-testid": "applypatch-stage" });
  const safety = h("div", { class: "applypatch-safety" });

  // approval
  const approvalText = h("div", { class: "applypatch-approval-text" });
  const approvalNote = h("div", { class: "applypatch-approval-note", role: "status" });
  /** @type {HTMLButtonElement[]} */
  const buttons = DECISIONS.map(
    (d) =>
      /** @type {HTMLButtonElement} */ (
        h("button", {
          type: "button",
          class: `applypatch-button applypatch-button-${d.decision}`,
          "data-testid": d.testid,
          "data-decision": d.decision,
          text: d.label,
        })
      ),
  );
  const approval = h(
    "div",
    { class: "applypatch-approval", hidden: true },
    approvalText,
    h("div", { class: "applypatch-buttons" }, ...buttons),
    approvalNote,
  );
  /** the approval request the buttons were clicked for (reset when a new request comes) */
  let sentFor = "";
  /** @param {Record<string, any>} ap */
  const approvalKey = (ap) => JSON.stringify([ap.files, ap.reason, ap.retry]);

  // result
  const result = h("div", { class: "applypatch-result" });

  // The stream's sections matter while the call runs; once it has ended they fold away (in this
  // view, unless the reader opened or closed them), leaving room for the result.
  const ended = (/** @type {string} */ s) => s !== RUNNING && s !== AWAITING_APPROVAL;
  const endedAtStart = ended(str(get("status")));
  const explanation = section("Why the lines did not match", "applypatch-explanation", true);
  const patch = section("Patch text", "applypatch-patch-text", !endedAtStart);
  const patchPre = h("pre", { class: "applypatch-patch" });
  patch.body.append(patchPre);
  const planned = section("Planned changes", "applypatch-planned", !endedAtStart);
  const foldable = [patch.el, planned.el];
  let folded = endedAtStart;
  let readerToggled = false;
  const onSummaryClick = () => {
    readerToggled = true;
  };
  for (const d of foldable) d.firstElementChild?.addEventListener("click", onSummaryClick);
  const changes = section("Verified changes and committed delta", "applypatch-delta", true);
  const turnDiff = section("TurnDiff", "applypatch-turn-diff", true);
  const events = section("Timeline", "applypatch-events", false);

  root.append(
    header,
    cwd,
    stages,
    safety,
    approval,
    result,
    explanation.el,
    patch.el,
    planned.el,
    changes.el,
    turnDiff.el,
    events.el,
  );
  el.append(root);

  const currentStatus = () => str(get("status"));

  /** @type {Record<string, () => void>} */
  const renderers = {
    header() {
      const s = currentStatus();
      const known = arr(get("statuses"));
      title.textContent = str(get("title")) || "apply_patch";
      dryBadge.hidden = !get("dry_run");
      status.textContent = s || "running";
      const unknown = s && known.length && !known.includes(s) ? " applypatch-status-unknown" : "";
      status.className = `applypatch-status applypatch-status-${s || "running"}${unknown}`;
      summary.textContent = summaryText({
        status: s,
        stage: str(get("stage")),
        dry_run: Boolean(get("dry_run")),
        planned: obj(get("planned")),
        proposed: obj(get("proposed")),
        delta: obj(get("delta")),
        approval: obj(get("approval")),
        error: str(get("error")),
      });
      const dir = str(get("cwd"));
      cwd.textContent = dir ? `in ${dir}` : "";
      root.setAttribute("data-status", s);
      root.setAttribute("data-stage", str(get("stage")));
      if (ended(s) && !folded) {
        folded = true;
        if (!readerToggled) for (const d of foldable) d.open = false;
      }
    },
    stages() {
      const stage = str(get("stage"));
      stages.setAttribute("data-stage", stage);
      fill(
        stages,
        ...stageStates(
          arr(get("stages")),
          stage,
          currentStatus(),
          arr(get("events")).map((e) => obj(e).type),
        ).map((st) =>
          h("li", {
            class: `applypatch-stage applypatch-stage-${st.state}`,
            "aria-current": st.state === "active" ? "step" : null,
            title: STAGE_TITLES[st.state] ?? null,
            text: st.name,
          }),
        ),
      );
    },
    safety() {
      const sf = obj(get("safety"));
      if (!sf.decision) {
        fill(safety);
        safety.hidden = true;
        return;
      }
      safety.hidden = false;
      fill(
        safety,
        "safety: ",
        h("span", {
          class: `applypatch-badge applypatch-safety-${str(sf.decision)}`,
          text: str(sf.decision),
        }),
        sf.sandboxed ? h("span", { class: "applypatch-badge", text: "sandboxed" }) : null,
        sf.reason ? h("span", { class: "applypatch-reason", text: str(sf.reason) }) : null,
      );
    },
    approval() {
      const ap = obj(get("approval"));
      const pending = Object.keys(ap).length > 0;
      approval.hidden = !pending;
      if (!pending) {
        sentFor = "";
        return;
      }
      const sent = sentFor === approvalKey(ap);
      if (!sent) sentFor = "";
      for (const b of buttons) b.disabled = sent;
      const dir = str(ap.cwd) || str(get("cwd"));
      const files = arr(ap.files).map(str);
      const { shown, hidden } = truncate(files, LIMITS.rows);
      fill(
        approvalText,
        h("strong", { text: ap.retry ? "Retry without the sandbox?" : "Approve this patch?" }),
        ap.reason ? h("div", { class: "applypatch-reason", text: str(ap.reason) }) : null,
        h("div", { text: `It writes ${files.length} path${files.length === 1 ? "" : "s"}:` }),
        h(
          "ul",
          { class: "applypatch-files" },
          ...shown.map((f) => h("li", null, h("code", { text: relativePath(f, dir) }))),
          hidden ? h("li", { class: "applypatch-more", text: moreText(hidden, "path") }) : null,
        ),
      );
      if (!sent) approvalNote.textContent = "";
    },
    result() {
      const s = currentStatus();
      const parts = [];
      const error = str(get("error"));
      const stdout = str(get("stdout"));
      const stderr = str(get("stderr"));
      const output = str(get("output"));
      if (error) parts.push(h("div", { class: "applypatch-error" }, h("strong", { text: "error: " }), error));
      if (stdout)
        parts.push(
          h(
            "div",
            null,
            h("span", { class: "applypatch-label", text: "stdout" }),
            h("pre", { class: "applypatch-stdout", text: stdout }),
          ),
        );
      if (stderr)
        parts.push(
          h(
            "div",
            null,
            h("span", { class: "applypatch-label", text: "stderr" }),
            h("pre", { class: "applypatch-stderr", text: stderr }),
          ),
        );
      if (output && s !== RUNNING) {
        parts.push(
          h(
            "details",
            { class: "applypatch-output" },
            h("summary", { text: "output sent to the model" }),
            h("pre", { text: output }),
          ),
        );
      }
      fill(result, ...parts);
      result.hidden = parts.length === 0;
    },
    explanation() {
      const ex = obj(get("explanation"));
      const pairs = arr(ex.pairs);
      explanation.el.hidden = pairs.length === 0 && !ex.summary;
      if (explanation.el.hidden) {
        fill(explanation.body);
        return;
      }
      explanation.note.textContent = ex.path ? ` ${relativePath(str(ex.path), str(get("cwd")))}` : "";
      const start = typeof ex.region_start === "number" ? ex.region_start : null;
      const before = arr(ex.before).map(str);
      const after = arr(ex.after).map(str);
      const contextRow = (/** @type {string} */ text, /** @type {number | null} */ number) =>
        h(
          "tr",
          { class: "applypatch-ex-context" },
          h("td", { class: "applypatch-ex-num", text: number ?? "" }),
          h("td", { class: "applypatch-ex-pass" }),
          h("td", { class: "applypatch-ex-expected" }),
          h("td", { class: "applypatch-ex-actual" }, ...tokenSpans(visibleText(text))),
        );
      const { shown, hidden } = truncate(pairs, LIMITS.explanationPairs);
      const rows = [
        ...before.map((t, i) => contextRow(t, start === null ? null : start - before.length + i + 1)),
        ...shown.map((p) => {
          const pair = obj(p);
          const passName = pair.pass_name ? str(pair.pass_name) : "";
          const exp = arr(pair.expected_segments).length
            ? pair.expected_segments
            : [[false, str(pair.expected)]];
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
                ? [h("em", { text: "(past the end of the file)" })]
                : tokenSpans(visibleSegments(act))),
            ),
          );
        }),
        ...after.map((t, i) => contextRow(t, start === null ? null : start + pairs.length + i + 1)),
      ];
      fill(
        explanation.body,
        h("div", { class: "applypatch-ex-summary", text: str(ex.summary) }),
        h(
          "table",
          { class: "applypatch-ex" },
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              h("th", { text: "line" }),
              h("th", { text: "pass" }),
              h("th", { text: "expected (patch)" }),
              h("th", { text: "closest region (file)" }),
            ),
          ),
          h("tbody", null, ...rows),
        ),
        hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
        h("div", {
          class: "applypatch-legend",
          text: "· space   → tab   ␍ CR   ⍽ non-ASCII space   highlighted: differs",
        }),
      );
    },
    patch() {
      const text = str(get("patch_text"));
      const current = Number(get("current_line")) || 0;
      const truncated = Boolean(get("patch_truncated"));
      const lines = text ? text.split("\n") : [];
      if (lines.length && lines[lines.length - 1] === "") lines.pop();
      const { start, end } = windowLines(lines.length, current, LIMITS.patchLines);
      const width = String(end).length;
      // Follow the stream unless the reader scrolled up.
      const follow = patchPre.scrollHeight - patchPre.scrollTop - patchPre.clientHeight < 48;
      fill(
        patchPre,
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
        end < lines.length
          ? h("span", { class: "applypatch-more", text: moreText(lines.length - end) })
          : null,
        truncated
          ? h("span", {
              class: "applypatch-truncated",
              text: "✂ the patch is longer: the rest was cut for display (the call gets all of it)",
            })
          : null,
      );
      if (current > 0 && follow) patchPre.scrollTop = patchPre.scrollHeight;
      patch.note.textContent = ` ${lines.length} line${lines.length === 1 ? "" : "s"}${current > 0 ? ", streaming…" : ""}${truncated ? ", cut for display" : ""}`;
    },
    planned() {
      const map = obj(get("planned"));
      const entries = Object.entries(map);
      planned.el.hidden = entries.length === 0;
      planned.note.textContent = entries.length
        ? ` ${entries.length} file${entries.length === 1 ? "" : "s"}: planned, nothing written yet`
        : "";
      const { shown, hidden } = truncate(entries, LIMITS.rows);
      fill(
        planned.body,
        h("div", {
          class: "applypatch-planned-note",
          text: "Planned from the streamed text: nothing is read or written yet.",
        }),
        ...shown.map(([path, change]) => changeRow(path, obj(change), str(get("cwd")), null)),
        hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
      );
    },
    changes() {
      const s = currentStatus();
      const delta = obj(get("delta"));
      const proposed = obj(get("proposed"));
      const rows = compareChanges(proposed, delta, s);
      const applied = arr(delta.changes);
      // Nothing verified and nothing committed (streaming, or an error before verification).
      changes.el.hidden = rows.length === 0 && applied.length === 0;
      const dir = str(get("cwd"));
      const missing = rows.filter((r) => r.state === "missing" || r.state === "differs").length;
      changes.note.textContent =
        ` ${Object.keys(proposed).length} verified, ${applied.length} committed` +
        (missing ? `, ${missing} not as verified` : "") +
        (delta.exact === false ? ", inexact" : "");
      const { shown, hidden } = truncate(rows, LIMITS.rows);
      const exact =
        delta.exact === undefined || s === RUNNING || s === AWAITING_APPROVAL || s === DRY_RUN
          ? null
          : delta.exact
            ? h("div", { class: "applypatch-exact", text: "exact: the committed changes are complete" })
            : h("div", {
                class: "applypatch-inexact",
                text: "inexact: something happened that the changes cannot describe; the list is a lower bound",
              });
      fill(
        changes.body,
        exact,
        ...shown.map((r) => changeRow(r.path, r.change ?? obj(r.applied), dir, r)),
        hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
      );
    },
    turnDiff() {
      const diff = str(get("turn_diff"));
      const files = splitTurnDiff(diff, arr(get("turn_diff_files")));
      turnDiff.el.hidden = files.length === 0;
      turnDiff.note.textContent = files.length
        ? ` ${files.length} file${files.length === 1 ? "" : "s"} in this turn`
        : "";
      let budget = LIMITS.diffLines;
      const { shown, hidden } = truncate(files, LIMITS.rows);
      fill(
        turnDiff.body,
        ...shown.map((f) => {
          const lines = classifyDiffLines(f.text);
          const max = Math.max(0, Math.min(LIMITS.fileDiffLines, budget));
          budget -= Math.min(lines.length, max);
          return h(
            "details",
            { class: "applypatch-file", open: true, "data-path": f.path },
            h(
              "summary",
              null,
              h("code", { text: f.path }),
              h(
                "span",
                { class: "applypatch-counts" },
                h("span", { class: "applypatch-diff-add", text: ` +${f.added}` }),
                h("span", { class: "applypatch-diff-del", text: ` -${f.removed}` }),
              ),
            ),
            diffBlock(lines, max),
          );
        }),
        hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
      );
    },
    events() {
      const list = arr(get("events"));
      events.note.textContent = list.length ? ` ${list.length} event${list.length === 1 ? "" : "s"}` : "";
      const base = list.length ? Number(obj(list[0]).time) : 0;
      const start = Math.max(0, list.length - LIMITS.events);
      fill(
        events.body,
        start ? h("div", { class: "applypatch-more", text: moreText(start, "event", "earlier") }) : null,
        h(
          "table",
          { class: "applypatch-events" },
          h(
            "tbody",
            null,
            ...list.slice(start).map((e) => {
              const ev = obj(e);
              return h(
                "tr",
                { "data-type": str(ev.type) },
                h("td", { class: "applypatch-time", text: formatOffset(Number(ev.time), base) }),
                h("td", null, h("code", { text: str(ev.type) })),
                h("td", { text: str(ev.summary) }),
              );
            }),
          ),
        ),
      );
    },
  };

  /** @type {Record<string, string[]>} which sections a trait feeds */
  const dependents = {
    title: ["header"],
    cwd: ["header", "approval", "explanation", "planned", "changes"],
    dry_run: ["header"],
    statuses: ["header"],
    status: ["header", "stages", "result", "changes"],
    stage: ["header", "stages"],
    stages: ["stages"],
    safety: ["safety"],
    approval: ["approval", "header"],
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
    events: ["events", "stages"],
    explanation: ["explanation"],
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
        renderers[name]();
      } catch (err) {
        // A bad value must not take the whole view down: the other sections still render.
        console.warn(`applypatch widget: cannot render ${name}:`, err);
      }
    }
    root.setAttribute("data-history", JSON.stringify(history));
  };

  /** @type {[string, () => void][]} */
  const listeners = Object.entries(dependents).map(([trait, names]) => {
    const cb = () => {
      if (trait === "stage" || trait === "status" || trait === "patch_text") record();
      for (const name of names) dirty.add(name);
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
    };
    model.on(`change:${trait}`, cb);
    return [`change:${trait}`, cb];
  });

  /** @param {HTMLButtonElement} button */
  const onClick = (button) => () => {
    const decision = button.getAttribute("data-decision") ?? "";
    const ap = obj(get("approval"));
    sentFor = approvalKey(ap);
    for (const b of buttons) b.disabled = true;
    approvalNote.textContent = `${button.textContent}: sent; the call resumes when the kernel is free (after the running cell).`;
    model.send({ type: "approval", decision });
  };
  const clickHandlers = buttons.map((b) => {
    const handler = onClick(b);
    b.addEventListener("click", handler);
    return handler;
  });

  record();
  for (const name of Object.keys(renderers)) dirty.add(name);
  flush();

  return () => {
    for (const [event, cb] of listeners) model.off(event, cb);
    buttons.forEach((b, i) => b.removeEventListener("click", clickHandlers[i]));
    for (const d of foldable) d.firstElementChild?.removeEventListener("click", onSummaryClick);
  };
}

/**
 * One change: kind badge, path (and move destination), its diff folded, and, next to the
 * committed delta, whether it was committed.
 * @param {string} path
 * @param {Record<string, any>} change
 * @param {string} cwd
 * @param {{state: string, applied: AppliedChange | null} | null} row
 */
function changeRow(path, change, cwd, row) {
  const label = changeLabel(change);
  const lines = changeDiffLines(change);
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
  const headline = [
    h("span", { class: `applypatch-kind applypatch-kind-${label.toLowerCase()}`, text: label }),
    h("code", { class: "applypatch-path", text: relativePath(path, cwd) }),
    move ? h("span", { class: "applypatch-arrow", text: " → " }) : null,
    move ? h("code", { class: "applypatch-path", text: move }) : null,
    stateText ? h("span", { class: `applypatch-state applypatch-state-${state}`, text: stateText }) : null,
  ];
  const attrs = {
    class: `applypatch-change${state ? ` applypatch-change-${state}` : ""}`,
    "data-path": path,
    "data-state": state || null,
  };
  if (!lines.length) return h("div", attrs, h("div", { class: "applypatch-change-head" }, ...headline));
  return h(
    "details",
    attrs,
    h("summary", { class: "applypatch-change-head" }, ...headline),
    diffBlock(lines, LIMITS.changeDiffLines),
  );
}

export default { render };
