// @ts-check
/**
 * Floor 8, sections: undo and redo of a completed call: its place in the turn, the buttons,
 * the last undo's outcome, its conflicts (three versions of a file) and the ways on.
 */

import { LIMITS, arr, moreText, obj, str, truncate, visibleText } from "../helpers.js";
import { statusMeaning } from "../vocabulary.js";
import { fill, h, tokenSpans } from "../dom.js";
import { notebooksSection } from "../notebooks.js";

/**
 * The call's place in its turn ("call 2 of 3 in turn-1"), and for an undo's own view what it
 * undoes. Pure: the `place` and `of` fields of the `undo` trait.
 * @param {Record<string, any>} undo
 */
export function placeText(undo) {
  const place = obj(undo.place);
  if (!place.index) return "";
  const turn = place.turn_id ? ` in ${str(place.turn_id)}` : "";
  const of = undo.of ? ` · ${str(undo.kind) || "undo"} of ${str(undo.of)}` : "";
  return `call ${place.index} of ${place.count}${turn}${of}`;
}

/** The three versions of a conflicting file, as the conflict lists them. */
export const CONFLICT_VERSIONS = Object.freeze([
  ["before", "before the call"],
  ["left", "as the call left it"],
  ["now", "now"],
]);

/**
 * One version of a conflicting file: its text (bounded), or what stands for it.
 * @param {Record<string, any> | null} state
 */
export function versionText(state) {
  if (state === null || state === undefined) return "(not readable as a text file)";
  if (!state.exists) return "(absent)";
  const lines = str(state.content).split("\n");
  const { shown, hidden } = truncate(lines, LIMITS.rows);
  // Python sends each version cut already (panels.bounded_conflict): `more_lines` left out
  const more = hidden + (Number(state.more_lines) || 0);
  const body = shown.join("\n");
  const text = more ? `${body}${body.endsWith("\n") ? "" : "\n"}${moreText(more)}` : body;
  return text || "(empty)";
}

/**
 * Text from a file or a path with its control and invisible characters made visible.
 * @param {unknown} text
 */
const safeText = (text) => tokenSpans(visibleText(str(text)));

/**
 * The same for a text of several lines: its line feeds stay line feeds.
 * @param {unknown} text
 */
const safeLines = (text) => str(text).split("\n").flatMap((line, i) => [...(i ? ["\n"] : []), ...safeText(line)]);

/**
 * A conflict: the file, why, and its three versions side by side.
 * @param {Record<string, any>} c
 */
function conflictBlock(c) {
  return h(
    "details",
    { class: "applypatch-conflict", open: true, "data-testid": "applypatch-conflict" },
    h("summary", null, h("code", null, ...safeText(c.path)), ": ", ...safeText(c.reason)),
    h(
      "div",
      { class: "applypatch-versions", role: "group", "aria-label": `three versions of ${str(c.path)}` },
      ...CONFLICT_VERSIONS.map(([key, label]) =>
        h(
          "div",
          { class: "applypatch-version", "data-version": key },
          // Python's labels when it sends them (a forced undo: what it wrote, what it overwrote)
          h("span", { class: "applypatch-label", text: str(obj(c.labels)[key]) || label }),
          h("pre", null, ...safeLines(key === "now" && !c.now && c.found ? `(${str(c.found)})` : versionText(key === "now" ? c.now : obj(c[key])))),
        ),
      ),
    ),
  );
}

/**
 * The notebooks of the `undo` trait (Python's undo.restore_views and undo.edited_views): what
 * Undo and Redo would restore, and how a notebook of the last undo's conflict changed since.
 * Each is labelled by its direction: Undo's is the call's change reversed.
 */
export const UNDO_NOTEBOOK_VIEWS = Object.freeze([
  { key: "undo", label: "what Undo would restore (the call's change, reversed)" },
  { key: "redo", label: "what Redo would put back (the call's change again)" },
  { key: "edited", label: "changed since (the conflict)" },
]);

/**
 * Undo and redo of a completed call: its place in the turn, an Undo button (and Redo once an
 * undo put files back), the last undo the buttons ran (its status, output or error, any
 * conflict with the three versions, and its approval request with its own buttons). A click
 * calls `send(message)` once, then the buttons wait for the kernel's answer (a new `undo`).
 * The notebooks the buttons would restore show as cells beside them, before any click, folded
 * (the call's own change, in the notebooks section, is the first a reader sees). The approval
 * buttons of the last undo name what it is (an undo or a redo), and its status is said in the
 * vocabulary's words.
 * @param {(message: Record<string, any>) => void} send
 * @param {{decision: string, label: string, testid: string}[]} decisions the approval answers
 */
export function undoSection(send, decisions) {
  const placeLine = h("div", { class: "applypatch-place", "data-testid": "applypatch-place" });
  const undo = undoButton("undo", "Undo", "Undo this call: put its files back as they were before it");
  const redo = undoButton("redo", "Redo", "Redo this call: put back what the undo reverted");
  const answers = decisions.map((d) => undoButton(`undo-${d.decision}`, d.label, d.label));
  const buttons = h("div", { class: "applypatch-buttons", role: "group", "aria-label": "undo" }, undo, redo);
  const note = h("div", { class: "applypatch-undo-note", role: "status", "aria-live": "polite" });
  const last = h("div", { class: "applypatch-undo-last" });
  const approval = h("div", { class: "applypatch-buttons", hidden: true }, ...answers);
  const conflicts = h("div", { class: "applypatch-conflicts" });
  // the ways on that Python offers after a conflict or a refusal (their label and message)
  const choices = h("div", { class: "applypatch-buttons", role: "group", "aria-label": "ways on" });
  const cells = notebooksSection(
    UNDO_NOTEBOOK_VIEWS,
    "Notebooks as cells, as Undo and Redo would restore them",
    "applypatch-undo-notebooks",
    false,
  );
  const el = h("div", { class: "applypatch-undo", "data-testid": "applypatch-undo-panel", hidden: true },
    placeLine, buttons, note, last, approval, conflicts, choices, cells.el);
  let disposed = false;
  const all = [undo, redo, ...answers];
  /** Every button off, the message on its way. @param {HTMLButtonElement[]} off @param {HTMLButtonElement} b @param {Record<string, any>} message */
  const sendFrom = (off, b, message) => {
    for (const other of off) other.disabled = true;
    note.textContent = `${b.textContent}: sent; it runs when the kernel is free (after the running cell).`;
    send(message);
  };
  /** @type {[HTMLButtonElement, Record<string, any>][]} */
  const messages = [
    [undo, { type: "undo", kind: "undo" }],
    [redo, { type: "undo", kind: "redo" }],
    ...decisions.map((d, i) => /** @type {[HTMLButtonElement, Record<string, any>]} */ (
      [answers[i], { type: "undo-approval", decision: d.decision }])),
  ];
  const handlers = messages.map(([b, message]) => {
    const handler = () => sendFrom(all, b, message);
    b.addEventListener("click", handler);
    return handler;
  });
  /** @param {Record<string, any>} choice */
  const offer = (choice) => {
    const b = undoButton("undo-choice", str(choice.label), str(choice.label));
    b.addEventListener("click", () => {
      if (disposed) return;
      sendFrom([...all, .../** @type {HTMLButtonElement[]} */ ([...choices.childNodes])], b, obj(choice.message));
    });
    return b;
  };
  /** @param {{undo: Record<string, any>, cwd?: string, vocabulary?: Record<string, any>}} s */
  const update = ({ undo: state, cwd = "", vocabulary = {} }) => {
    el.hidden = Object.keys(state).length === 0;
    cells.update({ notebooks: obj(state.notebooks), cwd });
    placeLine.textContent = placeText(state);
    undo.hidden = !state.can_undo;
    redo.hidden = !state.can_redo;
    buttons.hidden = undo.hidden && redo.hidden;
    for (const b of all) b.disabled = false;
    note.textContent = "";
    const previous = obj(state.last);
    approval.hidden = Object.keys(obj(previous.approval)).length === 0;
    nameAnswers(answers, decisions, str(previous.kind) === "redo" ? "redo" : "undo");
    fill(last, lastUndo(previous, vocabulary));
    fill(conflicts, ...[...arr(previous.conflicts), ...arr(state.conflicts)].map(obj).map(conflictBlock));
    const offered = arr(previous.choices).map(obj).map(offer);
    fill(choices, ...offered);
    choices.hidden = offered.length === 0;
  };
  const dispose = () => {
    disposed = true;
    messages.forEach(([b], i) => b.removeEventListener("click", handlers[i]));
    cells.dispose();
  };
  return { el, update, dispose };
}

/**
 * The approval buttons' words, for the undo or the redo whose request they answer.
 * @param {HTMLButtonElement[]} answers
 * @param {{decision: string, label: string}[]} decisions
 * @param {string} kind
 */
function nameAnswers(answers, decisions, kind) {
  decisions.forEach((d, i) => {
    answers[i].textContent = `${d.label} (${kind})`;
    answers[i].setAttribute("aria-label", `${d.label}: the answer to the ${kind}'s approval request`);
  });
}

/** @param {string} kind @param {string} label @param {string} aria */
function undoButton(kind, label, aria) {
  return /** @type {HTMLButtonElement} */ (
    h("button", {
      type: "button",
      class: `applypatch-button applypatch-button-${kind}`,
      "data-testid": `applypatch-${kind}`,
      "aria-label": aria,
      text: label,
    })
  );
}

/**
 * The last undo the buttons ran: its status, what its approval request writes, its error or
 * output; null before any.
 * @param {Record<string, any>} previous the `last` of the `undo` trait
 * @param {Record<string, any>} vocabulary what its status means (its label: the words shown)
 */
function lastUndo(previous, vocabulary) {
  if (!previous.status) return null;
  const pending = Object.keys(obj(previous.approval)).length > 0;
  const label = statusMeaning(vocabulary, previous.status).label;
  return h(
    "div",
    { "data-status": str(previous.status) },
    h("strong", { text: `${str(previous.kind) || "undo"} ${str(previous.call_id)}: ${label}` }),
    pending ? h("div", { text: `${str(obj(previous.approval).writes)} ${arr(obj(previous.approval).files).map(str).join(", ")}` }) : null,
    previous.error ? h("pre", { class: "applypatch-error" }, ...safeLines(previous.error)) : null,
    previous.output ? h("pre", { class: "applypatch-stdout" }, ...safeLines(previous.output)) : null,
  );
}
