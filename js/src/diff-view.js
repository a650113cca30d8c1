// @ts-check
/**
 * Floor 6, the diff view: the files of a section as folded blocks (path, counts, bar, their
 * table drawn when first opened), its toolbar (mode, expand and collapse all), the file list,
 * and the first files drawn at once, the rest in time slices (SLICES).
 */

import { LIMITS, lineCount, moreText, obj, relativePath, str } from "./helpers.js";
import { changeBar, changeLabel, changeRows, isLine } from "./diff-model.js";
import { fill, h } from "./dom.js";
import { diffTable, modes, sourcesOf } from "./diff-table.js";

/**
 * @typedef {import("./helpers.js").AppliedChange} AppliedChange
 * @typedef {import("./diff-model.js").Row} Row
 * @typedef {import("./diff-table.js").Sources} Sources
 */

/**
 * What a file block is made from: its id (kept across renders), its path and summary `head`,
 * its rows (a getter may make them when first drawn), `count` (its rows, known before they
 * are made), `cut` (lines of the file's text cut for the view, `cut_lines`), `sig` (what the
 * block is made from: the same again, the block made last time is kept) and the attributes of
 * its `<details>` (or of its plain row, for a file without lines).
 * @typedef {{id: string, path: string, head: (Node | string | null)[], rows: Row[], sources: Sources,
 *   preview?: boolean, limit?: number, open: boolean, added: number, removed: number,
 *   attrs?: Record<string, string | null>, cut?: number, count?: number, sig?: unknown[]}} FileSpec
 */

/**
 * One file of a diff view: a folded block whose summary shows its path, counts and +/- bar,
 * and whose body is its table, re-rendered when the mode changes or a fold is opened.
 * @param {FileSpec} f
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
export function lazyFold(details, summary, id, state, draw) {
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
 * @typedef {{mode: string, opened: Map<string, Set<string>>, openFiles: Map<string, boolean>,
 *   showHeaders: boolean, blocks: ReturnType<typeof fileBlock>[]}} ViewState
 */

/** @param {string} text @param {string} label @param {boolean} pressed @param {string | null} testid */
function toggleButton(text, label, pressed, testid) {
  return /** @type {HTMLButtonElement} */ (
    h("button", { type: "button", class: "applypatch-tool", "aria-label": label, "aria-pressed": String(pressed), "data-testid": testid, text })
  );
}

/** @param {string} text @param {string} label @param {() => void} fn */
function toolButton(text, label, fn) {
  const b = h("button", { type: "button", class: "applypatch-tool", "aria-label": label, text });
  b.addEventListener("click", fn);
  return b;
}

/**
 * A diff view's toolbar: unified/split (the page's shared mode), optionally the header
 * toggle (bound to a section's body by `bindHeaders`), expand/collapse all, extra buttons.
 * @param {ViewState} state
 * @param {{headers?: boolean, extra?: (Node | null)[]}} options
 */
function viewToolbar(state, options) {
  const unified = toggleButton("Unified", "unified view", state.mode === "unified", "applypatch-mode-unified");
  const split = toggleButton("Split", "split view: old and new side by side", state.mode === "split", "applypatch-mode-split");
  const headers = options.headers ? toggleButton("Show headers", "show the diff --git and index lines", false, "applypatch-headers") : null;
  const all = /** @param {boolean} open */ (open) => {
    for (const b of state.blocks) b.setOpen(open);
  };
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
    toolButton("Expand all", "expand every file", () => all(true)),
    toolButton("Collapse all", "collapse every file", () => all(false)),
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
  return { toolbar, bindHeaders, dispose: () => modes.listeners.delete(onMode) };
}

/**
 * How a diff view makes its file blocks: a file whose `sig` is that of the block made for its
 * id last time keeps that block (a streamed preview re-renders only the files that changed).
 * @param {ViewState} state
 */
function blockMaker(state) {
  /** @type {Map<string, {sig: unknown[], block: ReturnType<typeof fileBlock>}>} */
  let made = new Map();
  let generation = 0;
  /**
   * Start making the blocks of a new set of files, one `make(f)` call each, in order (a
   * later start abandons this one: its `make` then returns null); `make.done()` at the end.
   */
  const start = () => {
    const mine = ++generation;
    /** @type {Map<string, {sig: unknown[], block: ReturnType<typeof fileBlock>}>} */
    const next = new Map();
    state.blocks = [];
    /** @param {FileSpec} f */
    const make = (f) => {
      if (mine !== generation) return null;
      const before = made.get(f.id);
      const same = before && f.sig && sameSig(before.sig, f.sig);
      const block = same ? before.block : fileBlock(f, state);
      if (f.sig) next.set(f.id, { sig: f.sig, block });
      state.blocks.push(block);
      return block;
    };
    make.done = () => {
      if (mine === generation) made = next;
    };
    return make;
  };
  /** The blocks of `files`, made at once. @param {FileSpec[]} files */
  const blocks = (files) => {
    const make = start();
    for (const f of files) make(f);
    make.done();
    return state.blocks.map((b) => b.el);
  };
  return { start, blocks };
}

/**
 * A diff view's shared state (mode, opened folds, open files, its blocks), its toolbar (see
 * viewToolbar) and how it makes its blocks (see blockMaker).
 * @param {{headers?: boolean, extra?: (Node | null)[]}} options
 */
export function diffViewState(options) {
  /** @type {ViewState} */
  const state = { mode: modes.mode, opened: new Map(), openFiles: new Map(), showHeaders: false, blocks: [] };
  return { state, ...viewToolbar(state, options), ...blockMaker(state) };
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
 * One change as a file of the diff view (or, without lines to show, a plain row).
 * @param {string} path
 * @param {Record<string, any>} change
 * @param {string} cwd
 * @param {{state: string, applied: AppliedChange | null} | null} row
 * @param {Record<string, any>} sources the `sources` trait
 * @param {boolean} preview
 */
export function changeFile(path, change, cwd, row, sources, preview) {
  const label = changeLabel(change);
  const source = obj(sources[path]);
  // an Add's or a Delete's rows are its lines: counted now, made when the file is drawn
  const whole = change.type === "add" || change.type === "delete";
  /** @type {Row[] | null} */
  let made = whole ? null : changeRows(change, source);
  const count = made ? made.length : lineCount(str(change.content));
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
 * @param {(FileSpec & {count: number})[]} files
 */
export function renderFiles(view, files) {
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
