// @ts-check
/**
 * Floor 8, sections: each makes its DOM once and returns {el, update(state)}; `update` renders
 * the plain state SECTION_STATE (view.js) reads for it, with no model inside, so that each is
 * testable on its own. This module: the header, the stages, the safety decision, the streamed
 * patch text, the result and the timeline.
 */

import { LIMITS, formatOffset, moreText, obj, str, windowLines } from "../helpers.js";
import { STAGE_TITLES, stageStates } from "../vocabulary.js";
import { copyText, fill, h, section } from "../dom.js";

/**
 * @typedef {import("../vocabulary.js").Meaning} Meaning
 * @typedef {import("../vocabulary.js").Stage} Stage
 */

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
