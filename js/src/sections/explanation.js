// @ts-check
/**
 * Floor 8, sections: why a chunk's lines did not match, next to the closest region of the file.
 */

import { LIMITS, arr, moreText, obj, relativePath, str, truncate, visibleSegments, visibleText } from "../helpers.js";
import { fill, h, section, tokenSpans } from "../dom.js";

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
