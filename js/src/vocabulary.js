// @ts-check
/**
 * Floor 2, vocabulary: what statuses, stages and decisions mean, as Python sends them (the
 * `vocabulary` trait, built by `call_vocabulary()` in applypatch_ext/jupyter/records/vocabulary.py).
 * The view branches on these meanings, never on a name.
 */

import { arr, obj, str, truncate } from "./helpers.js";

/**
 * @typedef {import("./helpers.js").FileChange} FileChange
 * @typedef {import("./helpers.js").Delta} Delta
 */

/**
 * @typedef {{label: string, tone: string, terminal: boolean, wrote: boolean, success: boolean,
 *   dry_run: boolean, user_declined: boolean, summary: string, known: boolean}} Meaning
 * @typedef {{name: string, label: string, evidence: string | null, writes: boolean}} Stage
 */

/**
 * What `status` means: its entry in the vocabulary, else the vocabulary's `unknown` meaning
 * (shown as the status itself). Without a vocabulary (a state saved before it existed) only
 * the trait's own contract is known: an empty status is a call still running.
 * @param {unknown} vocabulary
 * @param {unknown} status
 * @returns {Meaning}
 */
export function statusMeaning(vocabulary, status) {
  const s = str(status);
  const table = obj(obj(vocabulary).statuses);
  const entry = Object.prototype.hasOwnProperty.call(table, s) ? obj(table[s]) : null;
  const base = entry ?? obj(obj(vocabulary).unknown);
  const flag = (/** @type {string} */ name, /** @type {boolean} */ otherwise) =>
    typeof base[name] === "boolean" ? base[name] : otherwise;
  return {
    label: str(base.label) || s,
    tone: /^[a-z-]+$/.test(str(base.tone)) ? str(base.tone) : "neutral",
    terminal: flag("terminal", s !== ""),
    wrote: flag("wrote", true),
    success: flag("success", false),
    dry_run: flag("dry_run", false),
    user_declined: flag("user_declined", false),
    summary: str(base.summary) || "error",
    known: entry !== null || Object.keys(table).length === 0,
  };
}

/**
 * What the header shows for a call: its status's meaning, or, for a completed call an undo put
 * back (the `undo` trait's `undone`, "undone" or "partly undone"), the vocabulary's `undone`
 * label and tone instead (the record says the same).
 * @param {unknown} vocabulary
 * @param {unknown} undone
 * @param {Meaning} meaning the status's
 * @returns {Meaning}
 */
export function undoneMeaning(vocabulary, undone, meaning) {
  const table = obj(obj(vocabulary).undone);
  const key = str(undone);
  if (!key || !Object.prototype.hasOwnProperty.call(table, key)) return meaning;
  const entry = obj(table[key]);
  const tone = /^[a-z-]+$/.test(str(entry.tone)) ? str(entry.tone) : meaning.tone;
  return { ...meaning, label: str(entry.label) || key, tone };
}

/**
 * What the preview of the planned changes says it is, while the call runs or once it has
 * ended (the vocabulary's `preview`: its badge's `title`, the `note` after its file count, its
 * `text`); empty words without a vocabulary.
 * @param {unknown} vocabulary
 * @param {boolean} ended
 * @returns {{title: string, note: string, text: string}}
 */
export function previewWords(vocabulary, ended) {
  const words = obj(obj(obj(vocabulary).preview)[ended ? "ended" : "running"]);
  return { title: str(words.title), note: str(words.note), text: str(words.text) };
}

/**
 * The stages of the vocabulary, in order (entries without a name are dropped).
 * @param {unknown} vocabulary
 * @returns {Stage[]}
 */
export function stageList(vocabulary) {
  return arr(obj(vocabulary).stages)
    .map(obj)
    .filter((st) => typeof st.name === "string" && st.name !== "")
    .map((st) => ({
      name: st.name,
      label: str(st.label) || st.name,
      evidence: typeof st.evidence === "string" && st.evidence ? st.evidence : null,
      writes: st.writes === true,
    }));
}

/**
 * The answers an approval button can send (Python's `Decision`), in the order of the buttons,
 * each with its label and the button's test id: the vocabulary's `decisions` (entries without a
 * decision are dropped; without a vocabulary, a saved state, there is no button to click). An
 * approving answer has a `selectedLabel` too: its button's words while some files or chunks of
 * a review are unticked, when it approves the ticked ones only (see approvalSection).
 * @param {unknown} vocabulary
 * @returns {{decision: string, label: string, testid: string, approves: boolean, selectedLabel: string}[]}
 */
export function decisionList(vocabulary) {
  return arr(obj(vocabulary).decisions)
    .map(obj)
    .filter((d) => typeof d.decision === "string" && d.decision !== "")
    .map((d) => ({
      decision: d.decision,
      label: str(d.label) || d.decision,
      testid: str(d.testid) || `applypatch-${d.decision}`,
      approves: d.approves !== false,
      selectedLabel: d.approves !== false ? str(d.selected_label) || `${str(d.label) || d.decision} selected` : "",
    }));
}

/**
 * What the approving buttons say and do for the ticks of a review: everything ticked, the plain
 * answer; some unticked, the ticked ones only, with the count (`Approve selected (3 of 5)`) and
 * what is left out, in the words the model will read (`a.txt chunk 2 of 3`); nothing ticked, no
 * approval at all (the buttons are off: Decline is the answer). Pure: approvalSection renders it.
 * @param {{kept: number, total: number, left: string[]} | null} ticks null: no review to follow
 * @returns {{partial: boolean, none: boolean, suffix: string, hint: string}}
 */
export function tickState(ticks) {
  if (!ticks || ticks.total === 0 || ticks.kept === ticks.total)
    return { partial: false, none: false, suffix: "", hint: "" };
  if (ticks.kept === 0)
    return { partial: true, none: true, suffix: "", hint: "Nothing is ticked: tick what to apply, or Decline the whole patch." };
  const { shown, hidden } = truncate(ticks.left, 8);
  const listed = shown.join(", ") + (hidden ? ` and ${hidden} more` : "");
  return {
    partial: true,
    none: false,
    suffix: ` (${ticks.kept} of ${ticks.total})`,
    hint: `Approving applies the ticked ${ticks.kept} of ${ticks.total} only; not applied: ${listed}`,
  };
}

/**
 * The selection of a review as the message's `accept`: per path as the patch writes it, true
 * (all of it), false (none of it) or the chunk indexes kept (an Update partly kept). Files whose
 * path comes twice (folded hunks) merge their chunks.
 * @param {{path: string, whole: boolean, chunks: {index: number}[]}[]} files
 * @param {(file: number, chunk: number | null) => boolean} selected file position, chunk index
 *   (null: the file's own toggle, for a file that is all or nothing)
 * @returns {Record<string, boolean | number[]>}
 */
export function reviewAccept(files, selected) {
  /** @type {Record<string, {kept: number[], total: number, whole: boolean | null}>} */
  const byPath = {};
  files.forEach((f, i) => {
    const entry = (byPath[f.path] ??= { kept: [], total: 0, whole: null });
    if (f.whole || f.chunks.length === 0) {
      entry.whole = selected(i, null);
      return;
    }
    for (const c of f.chunks) {
      entry.total += 1;
      if (selected(i, c.index)) entry.kept.push(c.index);
    }
  });
  /** @type {Record<string, boolean | number[]>} */
  const accept = {};
  for (const [path, e] of Object.entries(byPath)) {
    if (e.whole !== null) accept[path] = e.whole;
    else if (e.kept.length === e.total) accept[path] = true;
    else if (e.kept.length === 0) accept[path] = false;
    else accept[path] = e.kept;
  }
  return accept;
}

/**
 * The label of `stage`; the stage itself when unknown; the first stage's when empty.
 * @param {Stage[]} stages
 * @param {string} stage
 */
export function stageLabel(stages, stage) {
  if (!stage) return stages[0]?.label ?? "";
  return stages.find((st) => st.name === stage)?.label ?? stage;
}

/** Tooltips of the stage states that need one. */
export const STAGE_TITLES = /** @type {Record<string, string>} */ (
  Object.freeze({
    skipped: "not needed for this call",
    unreached: "not reached: the call stopped before",
  })
);

/**
 * Each stage with its state: `done`, `active`, `todo`, `skipped` (passed without its
 * `evidence`, the event that proves a call went through a stage it may skip, or a stage that
 * `writes` when the status says the call wrote nothing or was declined), `failed` (where a
 * call stopped without success: Python sends that stage, `done` for a completed call) or
 * `unreached` (after the stage where a call stopped).
 * @param {Stage[]} stages
 * @param {string} stage
 * @param {Meaning} meaning what the call's status means (see statusMeaning)
 * @param {string[]} [eventTypes] the types of the call's events so far
 * @returns {{name: string, label: string, state: string}[]}
 */
export function stageStates(stages, stage, meaning, eventTypes = []) {
  const list = Array.isArray(stages) ? stages : [];
  const seen = new Set(Array.isArray(eventTypes) ? eventTypes : []);
  const at = list.findIndex((st) => st.name === stage);
  const ended = meaning.terminal;
  const bad = ended && !meaning.success;
  /** @param {Stage} st */
  const skipped = (st) =>
    (st.writes && (!meaning.wrote || meaning.user_declined)) ||
    (st.evidence !== null && !seen.has(st.evidence));
  return list.map((st, i) => {
    /** @type {string} */
    let state = "todo";
    if (at < 0) state = "todo";
    else if (i < at) state = skipped(st) ? "skipped" : "done";
    else if (i === at) state = !ended ? "active" : bad ? "failed" : "done";
    else if (bad) state = "unreached";
    return { name: st.name, label: st.label, state };
  });
}

/**
 * The one-line summary in the header, in the form the status's meaning names (`summary`).
 * @param {{stage?: string, planned?: Record<string, FileChange>, proposed?: Record<string, FileChange>,
 *   delta?: Delta, approval?: {files?: string[]}, error?: string}} s (`stage`: its label)
 * @param {Meaning} meaning what the call's status means (see statusMeaning)
 */
export function summaryText(s, meaning) {
  const count = (/** @type {object | undefined} */ o) => Object.keys(o ?? {}).length;
  const files = (/** @type {number} */ n) => `${n} file${n === 1 ? "" : "s"}`;
  const committed = Array.isArray(s.delta?.changes) ? s.delta.changes.length : 0;
  const proposed = count(s.proposed);
  const label = meaning.label;
  switch (meaning.summary) {
    case "progress": {
      const planned = count(s.planned);
      return `${s.stage ?? ""}…` + (planned ? ` ${files(planned)} planned, nothing written yet` : "");
    }
    case "approval":
      return `waiting for approval of ${files((s.approval?.files ?? []).length || proposed)}; nothing written yet`;
    case "verified-only": // the status's label already says "dry run (nothing written)"
      return `${files(proposed)} verified`;
    case "changed":
      return `${files(committed)} changed`;
    case "nothing-written":
      return `${label}: nothing written`;
    case "committed-of-proposed": {
      const exact = s.delta?.exact === false ? " (inexact: a lower bound)" : "";
      return `${label}: ${committed} of ${files(proposed)} committed${exact}`;
    }
    default:
      return s.error ? `${label}: ${firstLine(s.error)}` : label;
  }
}

/** The summary forms summaryText knows (Python's `summary` values; test_widget.py checks). */
export const SUMMARY_FORMS = Object.freeze([
  "progress",
  "approval",
  "verified-only",
  "changed",
  "nothing-written",
  "committed-of-proposed",
  "error",
]);

/** @param {string} text */
function firstLine(text) {
  const line = String(text).split("\n", 1)[0];
  return line.length > 160 ? line.slice(0, 159) + "…" : line;
}

/**
 * @typedef {{role: string, label: string, tone: string, kind: string,
 *   meaning: string, known: boolean, where: string, message: string, suggestion: string,
 *   note: string}} DiagnosisEntry
 */

/**
 * What a diagnosis is to its call, each role as Python sends it (the vocabulary's `atlas`,
 * from applypatch_ext/jupyter/records/vocabulary.py `atlas_roles`): its name, the trait that
 * holds its diagnoses (`many`: a list of them), its label, its tone and the section's note for
 * it; the suggestion's note. Nothing without a vocabulary.
 * @param {unknown} vocabulary
 * @returns {{roles: {role: string, trait: string, many: boolean, label: string, tone: string,
 *   note: string}[], suggestionNote: string}}
 */
export function atlasWords(vocabulary) {
  const atlas = obj(obj(vocabulary).atlas);
  const roles = Object.entries(obj(atlas.roles))
    .map(([role, r]) => ({ role, r: obj(r) }))
    .filter(({ r }) => typeof r.trait === "string" && r.trait !== "")
    .map(({ role, r }) => ({
      role,
      trait: str(r.trait),
      many: r.many === true,
      label: str(r.label) || role,
      tone: /^[a-z-]+$/.test(str(r.tone)) ? str(r.tone) : "neutral",
      note: str(r.note),
    }));
  return { roles, suggestionNote: str(atlas.suggestion_note) };
}

/**
 * The call's diagnosis (a failure's) and warnings (a call that applies), each with its role
 * (see atlasWords), what its kind means (the vocabulary's `diagnoses`, from
 * applypatch_ext/core/diagnosis.py's table) and where it points, in the words Python sent
 * (`where`, Diagnosis.where()). Entries without a kind are dropped.
 * @param {Record<string, unknown>} traits the traits that hold diagnoses, by name
 * @param {unknown} vocabulary
 * @returns {DiagnosisEntry[]}
 */
export function diagnosisEntries(traits, vocabulary) {
  const table = obj(obj(vocabulary).diagnoses);
  const { roles, suggestionNote } = atlasWords(vocabulary);
  return roles.flatMap((r) => {
    const value = Object.prototype.hasOwnProperty.call(traits, r.trait) ? traits[r.trait] : undefined;
    return (r.many ? arr(value) : [value])
      .map(obj)
      .filter((d) => typeof d.kind === "string" && d.kind !== "")
      .map((d) => {
        const kind = str(d.kind);
        const known = Object.prototype.hasOwnProperty.call(table, kind);
        return {
          role: r.role,
          label: r.label,
          tone: r.tone,
          kind,
          meaning: known ? str(obj(table[kind]).meaning) : "",
          known,
          where: str(d.where),
          message: str(d.message),
          suggestion: str(d.suggestion),
          note: suggestionNote,
        };
      });
  });
}
