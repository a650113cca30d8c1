// @ts-check
/**
 * Floor 9, the view: which traits each section reads (SECTION_STATE, the one place that reads
 * the model), which sections a trait re-renders (DEPENDENTS, derived from SECTION_STATE), and
 * render(), which wires the sections to the model, batches updates and hides the call's static
 * record while it lives.
 *
 * @typedef {{
 *   get(name: string): any,
 *   on(event: string, callback: (...args: any[]) => void): void,
 *   off(event: string, callback: (...args: any[]) => void): void,
 *   send(content: any): void,
 * }} Model
 */

import { arr, lineCount, obj, recordHistory, str } from "./helpers.js";
import { atlasWords, decisionList, diagnosisEntries, previewWords, stageLabel, stageList, statusMeaning, summaryText, undoneMeaning } from "./vocabulary.js";
import { h } from "./dom.js";
import { notebooksSection } from "./notebooks.js";
import { eventsSection, headerSection, patchSection, resultSection, safetySection, stagesSection } from "./sections/call.js";
import { approvalSection } from "./sections/approval.js";
import { undoSection } from "./sections/undo.js";
import { explanationSection } from "./sections/explanation.js";
import { diagnosisSection } from "./sections/diagnosis.js";
import { changesSection, plannedSection, turnDiffSection } from "./sections/changes.js";

/**
 * @typedef {import("./helpers.js").HistoryEntry} HistoryEntry
 */

/**
 * The plain state each section renders, read from the model's `get`: the one place that
 * reads traits (DEPENDENTS, derived from it, lists per trait the sections to re-render).
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
    // a completed call an undo put back is shown as undone (its record says the same)
    const shown = undoneMeaning(get("vocabulary"), obj(get("undo")).undone, meaning);
    return { ...common, status: str(get("status")), stage, meaning: shown, summary };
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
  diagnosis: (get) => ({
    // the traits by name; which role each holds is Python's (the vocabulary's atlas roles)
    entries: diagnosisEntries({ diagnosis: get("diagnosis"), warnings: get("warnings") }, get("vocabulary")),
    roles: atlasWords(get("vocabulary")).roles,
  }),
  explanation: (get) => ({ explanation: obj(get("explanation")), cwd: str(get("cwd")) }),
  patch: (get) => ({
    text: str(get("patch_text")),
    current: Number(get("current_line")) || 0,
    truncated: Boolean(get("patch_truncated")),
  }),
  planned: (get) => ({
    planned: obj(get("planned")),
    cwd: str(get("cwd")),
    words: previewWords(get("vocabulary"), statusMeaning(get("vocabulary"), get("status")).terminal),
  }),
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
  undo: (get) => ({ undo: obj(get("undo")), cwd: str(get("cwd")), vocabulary: obj(get("vocabulary")) }),
};

/**
 * The traits a section's state reads: `read` called once with a `get` that notes each name.
 * Every state reads all its traits whatever their values (no read behind a condition), so one
 * call with nothing set finds them all (the node tests hold that against full states).
 * @param {(get: (name: string) => any) => any} read
 * @returns {string[]}
 */
export function traitsRead(read) {
  /** @type {Set<string>} */
  const traits = new Set();
  read((trait) => {
    traits.add(trait);
    return undefined;
  });
  return [...traits];
}

/**
 * Which sections a trait re-renders, derived from what each section's state reads.
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const DEPENDENTS = (() => {
  /** @type {Record<string, string[]>} */
  const feeds = {};
  for (const [name, read] of Object.entries(SECTION_STATE)) {
    for (const trait of traitsRead(read)) (feeds[trait] ??= []).push(name);
  }
  for (const names of Object.values(feeds)) Object.freeze(names);
  return Object.freeze(feeds);
})();

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
 * @param {(trait: string, sections: readonly string[]) => void} onChange
 * @returns {() => void}
 */
export function listen(model, onChange) {
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
 * record` = the `record_id` trait; see applypatch_ext/jupyter/records/record.py), which is what a saved
 * notebook shows without a kernel. The record is looked for among the view's ancestors, the
 * nearest holding it first, up to the cell's output area (in JupyterLab and Notebook 7): a view
 * shown again in another cell (`%apply_patch_turn`) hides the record of its own cell, never the
 * first cell's, whose view may be gone. The branch under that ancestor holding the record is
 * hidden, again whenever the output area changes; `dispose()` shows it again (the view is gone:
 * a kernel restart, a closed widget).
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
      if (record) {
        let branch = /** @type {HTMLElement} */ (record);
        while (branch.parentElement && branch.parentElement !== scope) branch = branch.parentElement;
        return { scope, branch };
      }
      if (scope.classList?.contains("jp-Cell-outputArea")) return null; // no further than its cell
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
    // the cell's outputs (a view inside an Output widget, the desk's, has an area of its own)
    const area = /** @type {HTMLElement | null} */ (el.closest(".jp-Cell-outputArea") ?? el.closest(".jp-OutputArea"));
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
 * Every section of a call's view, made once (`endedAtStart`: the stream's sections start
 * closed for a call that has already ended).
 * @param {Model} model
 * @param {(name: string) => any} get
 * @param {boolean} endedAtStart
 */
function makeSections(model, get, endedAtStart) {
  return {
    header: headerSection(),
    stages: stagesSection(),
    safety: safetySection(),
    approval: approvalSection(
      // each answer names the request it answers: the kernel refuses one for another (a stale tab)
      (decision, extra = {}) => model.send({ type: "approval", decision, request: obj(get("approval")).request_id, ...extra }),
      decisionList(get("vocabulary")),
    ),
    result: resultSection(),
    undo: undoSection((message) => model.send(message.type === "undo-approval"
      ? { ...message, request: obj(obj(obj(get("undo")).last).approval).request_id } : message), decisionList(get("vocabulary"))),
    diagnosis: diagnosisSection(),
    explanation: explanationSection(),
    patch: patchSection(!endedAtStart),
    planned: plannedSection(!endedAtStart),
    changes: changesSection(),
    notebooks: notebooksSection(),
    turnDiff: turnDiffSection(false),
    events: eventsSection(),
  };
}

/**
 * The view's updates, batched: `mark(names)` marks sections dirty, and one microtask later
 * each is rendered once (`update(name)`); `now(names)` renders at once. A section that throws
 * leaves the others.
 * @param {(name: string) => void} update
 * @param {() => void} after run after each flush
 */
function batcher(update, after) {
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
    after();
  };
  /** @param {Iterable<string>} names */
  const mark = (names) => {
    for (const name of names) dirty.add(name);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(flush);
    }
  };
  /** Render `names` at once (the first render). @param {Iterable<string>} names */
  const now = (names) => {
    for (const name of names) dirty.add(name);
    flush();
  };
  return { mark, now };
}

/**
 * @param {{model: Model, el: HTMLElement}} props
 * @returns {() => void}
 */
export function render({ model, el }) {
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
  const view = makeSections(model, get, endedAtStart);
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
  const batch = batcher(update, () => root.setAttribute("data-history", history.json()));
  const unlisten = listen(model, (trait, names) => {
    if (HISTORY_TRAITS.includes(trait)) history.record();
    batch.mark(names);
  });
  history.record();
  batch.now(Object.keys(view));
  return () => {
    unlisten();
    for (const section of [view.approval, view.undo, view.planned, view.changes, view.notebooks, view.turnDiff]) section.dispose();
    fold.dispose();
    model.off("change:record_id", onRecord);
    record.dispose();
  };
}
