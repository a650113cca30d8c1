// @ts-check
/**
 * Floor 5, the diff table: one file's rows (see diff-model.js) drawn as a table, unified or
 * split, with gutters, syntax runs, word marks, folds and gaps that open; the page's shared
 * unified/split choice, remembered across reloads.
 */

import { obj } from "./helpers.js";
import { FOLDS, foldRuns, lineRuns, pairWords, sourceLines, splitRows } from "./diff-model.js";
import { h } from "./dom.js";

/**
 * @typedef {import("./diff-model.js").SourceLine} SourceLine
 * @typedef {import("./diff-model.js").Run} Run
 * @typedef {import("./diff-model.js").Row} Row
 */

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

/** The page's storage, or null where reading it throws (a sandboxed frame). */
function pageStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** The view mode shared by every diff view of the page, remembered across reloads. */
export const modes = {
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

/** The columns of both views: two gutters and sign + code, or two halves. */
const SPAN = 4;

/** @param {Row & {type: "line"} | null} row @param {string} side @param {Sources} sources */
function halfCells(row, side, sources) {
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
}

/** @param {Row & {type: "line"}} row @param {Sources} sources */
function unifiedLine(row, sources) {
  return h(
    "tr",
    { class: `applypatch-dl applypatch-dl-${row.kind}`, "data-kind": row.kind },
    gutter(row.old, "old"),
    gutter(row.new, "new"),
    h("td", { class: "applypatch-sign", "aria-label": KIND_WORDS[row.kind], text: SIGNS[row.kind] }),
    h("td", { class: "applypatch-code" }, ...codeNodes(runsOf(row, sources))),
  );
}

/**
 * The lines of a gap that Python sent (the new side's `sources`), as context rows.
 * @param {Row & {type: "gap"}} row
 * @param {Sources} sources
 */
function gapLines(row, sources) {
  /** @type {(Row & {type: "line", new: number})[]} */
  const known = [];
  for (let n = row.from; n <= row.to; n++) {
    const source = sources.new.get(n);
    if (source === undefined) continue;
    const text = typeof source === "string" ? source : source.map((r) => r[1]).join("");
    known.push({ type: "line", kind: "context", text, old: n + row.offset, new: n });
  }
  return known;
}

/**
 * The rows of one table, drawn into `trs`: plain rows (paired in the split view), folds and
 * gaps, closed (a button calling `onOpen(id)`) or opened by the reader (`opened`).
 */
class TableRows {
  /**
   * @param {boolean} split
   * @param {Sources} sources
   * @param {Set<string>} opened
   * @param {(id: string) => void} onOpen
   */
  constructor(split, sources, opened, onOpen) {
    this.split = split;
    this.sources = sources;
    this.opened = opened;
    this.onOpen = onOpen;
    /** @type {HTMLElement[]} */
    this.trs = [];
  }

  /** @param {string} cls @param {...(Node | string | null)} children */
  wide(cls, ...children) {
    this.trs.push(wideRow(SPAN, cls, ...children));
  }

  /** @param {string} id @param {number} count @param {string} what */
  button(id, count, what) {
    const b = h("button", {
      type: "button",
      class: "applypatch-expand",
      "data-fold": id,
      "aria-expanded": "false",
      "aria-label": `Show ${count} ${what} line${count === 1 ? "" : "s"}`,
      text: `⋯ Show ${count} ${what} line${count === 1 ? "" : "s"}`,
    });
    b.addEventListener("click", () => this.onOpen(id));
    return b;
  }

  /** @param {any} row a Row, or a pair of the split view (see splitRows) */
  row(row) {
    if (row.type === "header") this.wide("applypatch-dl applypatch-dl-header", row.text);
    else if (row.type === "hunk") this.wide("applypatch-dl applypatch-dl-hunk", row.text);
    else if (row.type === "meta") this.wide("applypatch-dl applypatch-dl-meta", row.text);
    else if (row.type === "pair") {
      const kind = row.left === row.right ? "context" : "change";
      const cells = [...halfCells(row.left, "old", this.sources), ...halfCells(row.right, "new", this.sources)];
      this.trs.push(h("tr", { class: `applypatch-dl applypatch-dl-${kind}` }, ...cells));
    } else if (row.type === "line") this.trs.push(unifiedLine(row, this.sources));
  }

  /** @param {Row[]} rows plain rows, drawn together so that the split view pairs them */
  all(rows) {
    for (const row of this.split ? splitRows(rows) : rows) this.row(row);
  }

  /** @param {Row[]} rows @param {string} id */
  fold(rows, id) {
    if (this.opened.has(id)) {
      this.rows(rows.slice(0, FOLDS.expand), `${id}/`, Infinity, false);
      if (rows.length > FOLDS.expand) this.fold(rows.slice(FOLDS.expand), `${id}+`);
    } else {
      this.wide("applypatch-dl applypatch-dl-fold", this.button(id, rows.length, "more"));
    }
  }

  /** @param {Row & {type: "gap"}} row */
  gap(row) {
    const id = `gap:${row.from}`;
    const count = row.to - row.from + 1;
    const known = gapLines(row, this.sources);
    const cls = "applypatch-dl applypatch-dl-gap";
    if (this.opened.has(id) && known.length) this.openGap(row, known);
    else if (known.length) this.wide(cls, this.button(id, known.length, "unchanged"));
    else this.wide(cls, `⋯ ${count} unchanged line${count === 1 ? "" : "s"}`);
  }

  /**
   * An opened gap: the lines sent, and a marker where the ones not sent would be.
   * @param {Row & {type: "gap"}} row
   * @param {(Row & {type: "line", new: number})[]} known
   */
  openGap(row, known) {
    let next = row.from;
    /** @type {Row[]} */
    let block = [];
    const hole = (/** @type {number} */ upto) => {
      if (upto <= next) return;
      this.all(block);
      block = [];
      const n = upto - next;
      this.wide("applypatch-dl applypatch-dl-gap", `⋯ ${n} unchanged line${n === 1 ? "" : "s"} not sent to the view`);
    };
    for (const line of known) {
      hole(line.new);
      block.push(line);
      next = line.new + 1;
    }
    hole(row.to + 1);
    this.all(block);
  }

  /**
   * @param {Row[]} rows
   * @param {string} prefix of the ids of the folds inside
   * @param {number} limit how many rows before the rest is one fold
   * @param {boolean} fold whether long runs fold (not inside a fold the reader opened)
   */
  rows(rows, prefix, limit, fold) {
    // a fold the reader opened is drawn by fold() (bounded, counted as one row here)
    const entries = fold ? foldRuns(rows, FOLDS) : rows;
    /** @type {Row[]} */
    let run = []; // plain rows, drawn together so that the split view pairs them
    let count = 0;
    for (let k = 0; k < entries.length; k++) {
      const row = entries[k];
      if (count >= limit) {
        // past the limit, the rest of the file is one fold ("show N lines")
        this.all(run);
        this.fold(entries.slice(k).flatMap((e) => (e.type === "fold" ? e.rows : [e])), `${prefix}rest`);
        return;
      }
      count++;
      if (row.type !== "fold" && row.type !== "gap") {
        run.push(row);
        continue;
      }
      this.all(run);
      run = [];
      if (row.type === "fold") this.fold(row.rows, prefix + row.id);
      else this.gap(row);
    }
    this.all(run);
  }
}

/** @param {boolean} split */
function columns(split) {
  const col = (/** @type {string | null} */ cls) => h("col", cls ? { class: `applypatch-col-${cls}` } : null);
  return split
    ? h("colgroup", null, col("gutter"), col("half"), col("gutter"), col("half"))
    : h("colgroup", null, col("gutter"), col("gutter"), col("sign"), col(null));
}

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
  const table = new TableRows(split, file.sources, opened, onOpen);
  table.rows(file.rows, "", file.limit ?? Infinity, true);
  return h(
    "table",
    {
      class: `applypatch-dt applypatch-dt-${mode}${file.preview ? " applypatch-dt-preview" : ""}`,
      "data-mode": mode,
      tabindex: "-1",
      "aria-label": split ? "diff, side by side: old on the left, new on the right" : "diff, unified",
    },
    columns(split),
    h("tbody", null, ...table.trs),
  );
}

/** @param {unknown} entry an entry of `sources` / `turn_sources` @returns {Sources} */
export function sourcesOf(entry) {
  const e = obj(entry);
  return { old: sourceLines(e.old), new: sourceLines(e.new) };
}
