// @ts-check
/**
 * Floor 1, helpers: pure functions on plain values, used by every module above. No DOM, no
 * vocabulary, no diff: the bounds of what is rendered (LIMITS), defensive readers of trait
 * values (str, obj, arr), counting and bounding lines, making characters visible.
 *
 * @typedef {{type?: string, content?: string, unified_diff?: string, move_path?: string | null}} FileChange
 * @typedef {{type?: string, path?: string, move_path?: string | null}} AppliedChange
 * @typedef {{changes?: AppliedChange[], exact?: boolean}} Delta
 * @typedef {[boolean, string]} Segment
 * @typedef {{differs: boolean, kind: string, text: string, title?: string}} Token
 * @typedef {{t: number, k: string, v: string | number}} HistoryEntry
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

/** @param {unknown} v */
export const str = (v) => (typeof v === "string" ? v : v === null || v === undefined ? "" : String(v));

/** @param {unknown} v @returns {Record<string, any>} */
export const obj = (v) => (v && typeof v === "object" && !Array.isArray(v) ? /** @type {any} */ (v) : {});

/** @param {unknown} v @returns {any[]} */
export const arr = (v) => (Array.isArray(v) ? v : []);

/** @param {number} n @param {string} word */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

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
 * How many lines `text` has, as a file's lines: a final newline does not start another line,
 * a last line without one counts, an empty text has none.
 * @param {string} text
 */
export function lineCount(text) {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
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
