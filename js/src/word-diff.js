// @ts-check
/**
 * Floor 2, the word diff: a removed line and its added counterpart cut into words, spaces and
 * other code points, aligned by their longest common subsequence, as `[differs, text]`
 * segments per side. Pure, on strings only; part of the diff model's contract with the static
 * record (docs/diff-model.md): the character classes of applypatch_ext/js/diff-words.json,
 * which records/static_diff.py reads too, and lengths in code points.
 */

import WORDS from "../../applypatch_ext/js/diff-words.json" with { type: "json" };

/**
 * @typedef {import("./helpers.js").Segment} Segment
 */

/**
 * A regular expression class of inclusive code point ranges (diff-words.json).
 * @param {number[][]} ranges
 */
const rangeClass = (ranges) => ranges.map(([a, b]) => `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`).join("");
const WORD_CHARS = rangeClass(WORDS.word);
const SPACE_CHARS = rangeClass(WORDS.space);

/**
 * Words (runs of letters, digits and `_`), runs of spaces and single other code points: the
 * units a word-level diff compares, with the character classes of applypatch_ext/js/
 * diff-words.json, which the static record reads too (docs/diff-model.md).
 */
const WORD_RE = new RegExp(`[${WORD_CHARS}]+|[${SPACE_CHARS}]+|[^${WORD_CHARS}${SPACE_CHARS}]`, "gu");
const SPACE_RE = new RegExp(`[${SPACE_CHARS}]`, "gu");
const SPACE_TOKEN = new RegExp(`^[${SPACE_CHARS}]`, "u");

/**
 * How many code points `text` has (what Python's `len` counts; a pair of UTF-16 surrogates is
 * one): the diff model's lengths are in code points on both sides.
 * @param {string} text
 */
export function codePointLength(text) {
  let n = text.length;
  for (let i = 0; i + 1 < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) continue;
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) {
      n--;
      i++;
    }
  }
  return n;
}

/** The longest common subsequence of two token lists is only computed below this product. */
export const WORD_DIFF_CELLS = 40000;
/** Below this share of unchanged visible code points, a pair is a rewrite: no word marks. */
export const WORD_DIFF_MIN_SAME = 0.4;

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
      if (!SPACE_TOKEN.test(x[i])) same += codePointLength(x[i]); // a token is all spaces or none
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      push(right, true, y[j++]);
    } else {
      push(left, true, x[i++]);
    }
  }
  const visible = Math.max(codePointLength(a.replace(SPACE_RE, "")), codePointLength(b.replace(SPACE_RE, "")));
  if (visible > 0 && same / visible < WORD_DIFF_MIN_SAME) return null; // a rewrite, not an edit
  return [left, right];
}
