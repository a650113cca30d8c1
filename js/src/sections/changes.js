// @ts-check
/**
 * Floor 8, sections: the diffs of a call: the changes planned from the streamed text, the
 * verified map next to the committed delta, and the turn's cumulative TurnDiff.
 */

import { LIMITS, arr, moreText, obj, str, truncate } from "../helpers.js";
import { classifyDiffLines, compareChanges, diffRows, splitTurnDiff } from "../diff-model.js";
import { copyText, fill, h, section } from "../dom.js";
import { sourcesOf } from "../diff-table.js";
import { changeFile, diffViewState, renderFiles } from "../diff-view.js";

/**
 * @typedef {import("../vocabulary.js").Meaning} Meaning
 * @typedef {import("../diff-model.js").Row} Row
 */

/**
 * The changes planned from the streamed text (nothing read or written yet): a preview, said
 * at a glance (a label and its own style), whose Update diffs are progress diffs.
 * @param {boolean} open
 */
export function plannedSection(open) {
  const badge = h("span", { class: "applypatch-badge applypatch-badge-preview", text: "preview" });
  const { el, note, body } = section("Planned changes", "applypatch-planned", open, badge);
  el.className = "applypatch-section applypatch-preview";
  const view = diffViewState({});
  /** @param {{planned: Record<string, any>, cwd: string, words: {title: string, note: string, text: string}}} s */
  const update = ({ planned, cwd, words }) => {
    const entries = Object.entries(planned);
    el.hidden = entries.length === 0;
    // Python's words: while the call runs, nothing is written yet; once it ended, the preview
    // is what it planned before it read or wrote anything
    badge.setAttribute("title", words.title);
    note.textContent = entries.length
      ? ` ${entries.length} file${entries.length === 1 ? "" : "s"}: ${words.note}`
      : "";
    const { shown, hidden } = truncate(entries, LIMITS.rows);
    const files = shown.map(([path, change]) => changeFile(path, obj(change), cwd, null, {}, true));
    fill(
      body,
      h("div", { class: "applypatch-planned-note", text: words.text }),
      view.toolbar,
      ...renderFiles(view, files),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
    );
  };
  return { el, update, dispose: view.dispose };
}

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
    // a call whose status says it wrote nothing (an error, a rejection) has no delta to vouch for
    const exact =
      delta.exact === undefined || !meaning.terminal || meaning.dry_run || (!meaning.wrote && applied.length === 0)
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
 * One file of the TurnDiff as a file of the diff view; its rows are made when it is drawn.
 * @param {import("../diff-model.js").FileDiff} f
 * @param {Record<string, any>} sources the `turn_sources` trait
 * @returns {import("../diff-view.js").FileSpec & {count: number}}
 */
function turnFile(f, sources) {
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
}

/**
 * The TurnDiff's Copy button and download link, and what they hold (`set(diff)`: the text to
 * copy, and a fresh object URL to download, the old one revoked).
 */
function turnDiffTools() {
  const status = h("span", { class: "applypatch-tool-note", role: "status" });
  let text = "";
  let url = "";
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
  const revoke = () => {
    if (url) globalThis.URL?.revokeObjectURL?.(url);
    url = "";
  };
  /** @param {string} diff @param {boolean} downloadable */
  const set = (diff, downloadable) => {
    text = diff;
    if (!downloadable) return;
    revoke();
    try {
      if (diff && typeof Blob !== "undefined" && typeof globalThis.URL?.createObjectURL === "function")
        url = URL.createObjectURL(new Blob([diff], { type: "text/x-diff" }));
    } catch {
      url = "";
    }
    download.hidden = !url;
    if (url) download.setAttribute("href", url);
  };
  return { tools: [copy, download, status], set, revoke };
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
  const tools = turnDiffTools();
  const view = diffViewState({ headers: true, extra: tools.tools });
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
  /** @param {TurnState} s @param {ReturnType<typeof splitTurnDiff>} files */
  const draw = ({ diff, sources }, files) => {
    waiting = null;
    tools.set(diff, files.length > 0);
    if (!files.length) {
      fill(body);
      return;
    }
    const { shown, hidden } = truncate(files, LIMITS.rows);
    fill(
      body,
      view.toolbar,
      ...renderFiles(view, shown.map((f) => turnFile(f, sources))),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "file") }) : null,
    );
  };
  const dispose = () => {
    view.dispose();
    tools.revoke();
  };
  return { el, update, dispose };
}
