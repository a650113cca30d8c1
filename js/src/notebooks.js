// @ts-check
/**
 * Floor 7, notebooks as cells: the `notebooks` trait (Python's notebooks.call_notebook_views),
 * each notebook's cells added, removed, moved and changed, in the diff view's tables. The call
 * view and the undo panel both show it.
 */

import { LIMITS, arr, lineCount, moreText, obj, plural, relativePath, str, truncate } from "./helpers.js";
import { changeLabel, changeRows, classifyDiffLines, diffRows, isLine } from "./diff-model.js";
import { fill, h, section } from "./dom.js";
import { diffTable, sourcesOf } from "./diff-table.js";
import { diffViewState, lazyFold } from "./diff-view.js";

/**
 * @typedef {import("./diff-model.js").Row} Row
 * @typedef {import("./diff-table.js").Sources} Sources
 */

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

/**
 * One item of a notebook's cell list: a run of unchanged cells, or a cell whose block is made
 * from its `id` (its extras from `extras`), with a plain head when it has no rows.
 * @typedef {{kind: "fold", text: string}
 *   | {kind: "cell", id: string, status: string, head: (Node | string | null)[], extras: string | null,
 *      entry: Record<string, any>}} CellItem
 * @typedef {{key: string, label: string, nb: Record<string, any>, path: string, shownPath: string,
 *   base: string, same: string, items: CellItem[], cellsHidden: number, metadata: boolean, raw: boolean}} NotebookLayout
 */

/** `(cell 3)` or `(cells 3–7)`: where a run of unchanged cells is. @param {Record<string, any>} entry */
function unchangedRange(entry) {
  const at = arr(entry.new_indices).length ? arr(entry.new_indices) : arr(entry.old_indices);
  const first = at[0];
  const last = at[at.length - 1];
  if (typeof first !== "number") return "";
  return first === last ? ` (cell ${first})` : ` (cells ${first}–${last})`;
}

/**
 * The descriptions of a notebooks view's blocks (each notebook's cells, metadata and raw JSON
 * diff as files of the diff view, the cells' extras), made before any DOM so that the view's
 * toolbar drives them all; files open while a budget of shown lines lasts.
 */
class NotebookFiles {
  constructor() {
    /** @type {import("./diff-view.js").FileSpec[]} */
    this.files = [];
    /** @type {{id: string, title: string, extras: ReturnType<typeof cellExtras>}[]} */
    this.extras = [];
    this.budget = LIMITS.diffLines;
  }

  /**
   * @param {string} id @param {string} path @param {(Node | string | null)[]} head @param {Row[]} rows
   * @param {boolean} open @param {Record<string, any>} attrs @param {Sources} [sources]
   */
  file(id, path, head, rows, open, attrs, sources = sourcesOf({})) {
    const shownRows = Math.min(rows.length, LIMITS.fileDiffLines);
    const opens = open && shownRows <= this.budget;
    if (opens) this.budget -= shownRows;
    const added = rows.filter((r) => isLine(r, "add")).length;
    const removed = rows.filter((r) => isLine(r, "del")).length;
    this.files.push({ id, path, head, rows, sources, limit: LIMITS.fileDiffLines, open: opens, added, removed, attrs });
  }

  /** @param {Record<string, any>} entry @param {number} i @param {string} base @returns {CellItem} */
  cell(entry, i, base) {
    const status = /^[a-z-]+$/.test(str(entry.status)) ? str(entry.status) : "unknown";
    if (typeof entry.count === "number")
      return { kind: "fold", text: `⋯ ${plural(entry.count, "unchanged cell")}${unchangedRange(entry)}` };
    const id = `${base}:cell:${entry.id ?? ""}:${entry.old_index ?? ""}:${entry.new_index ?? ""}:${i}`;
    const title = cellTitle(entry);
    const changes = arr(entry.changes).map(str);
    const what = changes.length ? `changed: ${changes.join(", ")}` : "";
    const head = [
      h("span", { class: `applypatch-nb-status applypatch-nb-status-${status}`, text: status }),
      h("span", { class: "applypatch-nb-cell-title", text: title }),
      what ? h("span", { class: "applypatch-nb-changes", text: what }) : null,
    ];
    const source = str(entry.source);
    const sources = entry.source_diff ? sourcesOf({ new: [[1, source.split("\n")]] }) : sourcesOf({});
    const attrs = { class: "applypatch-file applypatch-nb-source", "data-testid": "applypatch-nb-source" };
    this.file(id, `${status} ${title}`, head, cellRows(entry), status !== "unchanged", attrs, sources);
    const extras = cellExtras(entry);
    if (extras.length) this.extras.push({ id: `${id}:extra`, title, extras });
    return { kind: "cell", id, status, head, extras: extras.length ? `${id}:extra` : null, entry };
  }

  /**
   * @param {{key: string, label: string, nb: Record<string, any>}} shown @param {number} n @param {string} cwd
   * @returns {NotebookLayout}
   */
  notebook({ key, label, nb }, n, cwd) {
    const path = str(nb.path);
    const shownPath = relativePath(path, cwd);
    const base = `nb:${key}:${n}:${path}`;
    const same = sameAsText(nb);
    const layout = { key, label, nb, path, shownPath, base, same, items: [], cellsHidden: 0, metadata: false, raw: false };
    if (same) return layout;
    const { shown: cellsShown, hidden: cellsHidden } = truncate(arr(nb.cells).map(obj), LIMITS.rows);
    const items = cellsShown.map((entry, i) => this.cell(entry, i, base));
    const metadata = obj(nb.metadata);
    if (metadata.diff) {
      const head = [h("span", { class: "applypatch-label", text: "notebook metadata: " }), str(metadata.summary)];
      const rows = diffRows(classifyDiffLines(str(metadata.diff)));
      this.file(`${base}:metadata`, "notebook metadata", head, rows, false, { class: "applypatch-file applypatch-nb-metadata" });
    }
    const rawRows = diffRows(classifyDiffLines(str(nb.raw_diff)));
    const rawHead = [h("span", { class: "applypatch-label", text: "Raw JSON diff" }), h("span", { class: "applypatch-lang", text: "what the patch changed" })];
    const rawAttrs = { class: "applypatch-file applypatch-nb-raw", "data-testid": "applypatch-nb-raw" };
    this.file(`${base}:raw`, `raw JSON diff of ${shownPath}`, rawHead, rawRows, nb.ok === false, rawAttrs);
    return { ...layout, items, cellsHidden, metadata: Boolean(metadata.diff), raw: rawRows.length > 0 };
  }
}

/** A notebook's head: kind, path, where it moved from, the view, summary, nbformat, matching. @param {NotebookLayout} l @param {string} cwd */
function notebookHead(l, cwd) {
  const nb = l.nb;
  const kind = changeLabel({ type: str(nb.kind), move_path: nb.moved_from ? str(nb.moved_from) : null });
  const version = obj(nb.nbformat);
  const matched = nb.matched_by ? `cells matched by ${str(nb.matched_by)}` : "";
  return h(
    "div",
    { class: "applypatch-nb-head" },
    h("span", { class: `applypatch-kind applypatch-kind-${kind.toLowerCase()}`, text: kind }),
    h("code", { class: "applypatch-path", text: l.shownPath }),
    nb.moved_from ? h("span", { class: "applypatch-lang", text: `moved from ${relativePath(str(nb.moved_from), cwd)}` }) : null,
    h("span", { class: `applypatch-nb-view applypatch-nb-view-${l.key}`, text: l.label }),
    h("span", { class: "applypatch-nb-summary", text: str(nb.summary) }),
    version.after || version.before ? h("span", { class: "applypatch-lang", text: `nbformat ${str(version.after || version.before)}` }) : null,
    matched ? h("span", { class: "applypatch-lang", text: matched }) : null,
  );
}

/** What is said of a notebook under its head: the same change, why no cells, invalid. @param {NotebookLayout} l */
function notebookNotes(l) {
  const nb = l.nb;
  if (l.same) return [h("div", { class: "applypatch-nb-same", role: "note", text: l.same })];
  const validation = obj(nb.validation);
  return [
    nb.ok === false
      ? h("div", { class: "applypatch-nb-reason", role: "note", text: `The cells cannot be shown: ${str(nb.reason)}. The raw JSON diff below is what the patch changed.` })
      : null,
    validation.after ? h("div", { class: "applypatch-nb-invalid", role: "note", text: `invalid notebook: ${str(validation.after)}` }) : null,
    validation.before && validation.before !== validation.after
      ? h("div", { class: "applypatch-nb-was-invalid", text: `before the patch, already an invalid notebook: ${str(validation.before)}` })
      : null,
  ];
}

/**
 * A notebook's cell list: each cell its block (a plain head without rows) and its extras.
 * @param {NotebookLayout} l
 * @param {(id: string) => HTMLElement | null} fileOf
 */
function cellList(l, fileOf) {
  if (!l.items.length) return null;
  const plain = (/** @type {(Node | string | null)[]} */ head) => h("div", { class: "applypatch-file-head applypatch-nb-plain" }, ...head);
  return h(
    "ol",
    { class: "applypatch-nb-cells", "aria-label": `cells of ${l.shownPath}` },
    ...l.items.map((item) =>
      item.kind === "fold"
        ? h("li", { class: "applypatch-nb-unchanged", "data-testid": "applypatch-nb-unchanged", text: item.text })
        : h(
            "li",
            { class: `applypatch-nb-cell applypatch-nb-cell-${item.status}`, "data-status": item.status, "data-cell": item.entry.id ?? null },
            fileOf(item.id) ?? plain(item.head),
            item.extras ? fileOf(item.extras) : null,
          ),
    ),
  );
}

/**
 * One notebook of the view, its blocks taken from `fileOf`.
 * @param {NotebookLayout} l
 * @param {string} cwd
 * @param {(id: string) => HTMLElement | null} fileOf
 */
function notebookBlock(l, cwd, fileOf) {
  const attrs = { class: "applypatch-nb", "data-testid": "applypatch-nb", "data-path": l.path, "data-view": l.key, role: "group" };
  return h(
    "div",
    { ...attrs, "aria-label": `notebook ${l.shownPath}, ${l.label}: ${str(l.nb.summary)}` },
    notebookHead(l, cwd),
    ...notebookNotes(l),
    cellList(l, fileOf),
    l.cellsHidden ? h("div", { class: "applypatch-more", text: moreText(l.cellsHidden, "cell") }) : null,
    l.metadata ? fileOf(`${l.base}:metadata`) : null,
    l.same ? null : l.raw ? fileOf(`${l.base}:raw`) : h("div", { class: "applypatch-nb-plain applypatch-lang", text: "raw JSON diff: no change" }),
  );
}

/**
 * The call's notebooks as cells: per notebook its head (kind, path, what was done, summary),
 * why its cells cannot be shown or why it is not a valid notebook, its cells (a changed
 * cell's source diff in the diff view's table; outputs, execution count and metadata folded;
 * runs of unchanged cells as "N unchanged cells"), its metadata and the raw JSON diff, one
 * click away (open when the cells cannot be shown). The groups: proposed, committed and the
 * notebooks of the call's TurnDiff (NOTEBOOK_VIEWS); a TurnDiff notebook whose change is the
 * call's committed one shows its head and says so (sameAsText). Hidden when the call touches
 * no notebook. `views`, `title` and `testid`: the groups shown, for another use of the same
 * view (the undo panel's UNDO_NOTEBOOK_VIEWS, folded: `open` false).
 * @param {readonly {key: string, label: string}[]} [views]
 * @param {string} [title]
 * @param {string} [testid]
 * @param {boolean} [open]
 */
export function notebooksSection(views = NOTEBOOK_VIEWS, title = "Notebooks as cells", testid = "applypatch-notebooks", open = true) {
  const { el, note, body } = section(title, testid, open);
  const view = diffViewState({});
  /** @param {{notebooks: Record<string, any>, cwd: string}} s */
  const update = ({ notebooks, cwd }) => {
    const all = views.flatMap(({ key, label }) => arr(notebooks[key]).map((nb) => ({ key, label, nb: obj(nb) })));
    el.hidden = all.length === 0;
    const labels = views.map(({ key, label }) => [arr(notebooks[key]).length, label]).filter(([n]) => n);
    note.textContent = labels.map(([n, label]) => ` ${plural(Number(n), "notebook")} ${label}`).join(";");
    const { shown, hidden } = truncate(all, LIMITS.rows);
    // first the descriptions of every block (the toolbar drives them all), then the DOM
    const made = new NotebookFiles();
    const layouts = shown.map((nb, n) => made.notebook(nb, n, cwd));
    const withRows = made.files.filter((f) => f.rows.length);
    const els = view.blocks(withRows);
    /** @type {Map<string, HTMLElement>} */
    const byId = new Map(withRows.map((f, i) => [f.id, els[i]]));
    for (const spec of made.extras) {
      const block = extrasBlock(spec.id, spec.title, spec.extras, view.state);
      view.state.blocks.push(block);
      byId.set(spec.id, block.el);
    }
    const fileOf = (/** @type {string} */ id) => byId.get(id) ?? null;
    fill(
      body,
      withRows.length ? view.toolbar : null,
      ...layouts.map((l) => notebookBlock(l, cwd, fileOf)),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden, "notebook") }) : null,
    );
  };
  return { el, update, dispose: view.dispose };
}
