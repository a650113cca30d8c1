// @ts-check
/**
 * Floor 8, sections: the pending approval request, its buttons, and the review of its files
 * and chunks (ticks that decide what an approval covers).
 */

import { LIMITS, arr, moreText, obj, relativePath, str, truncate, visibleText } from "../helpers.js";
import { reviewAccept, tickState } from "../vocabulary.js";
import { fill, h, tokenSpans } from "../dom.js";

/**
 * One chunk (or whole file) of a review: its toggle, labelled, and its diff beside it; a chunk
 * the seek cascade matched only fuzzily is marked (its note, in Python's words), with the
 * file's line beside the patch's.
 * @param {string} label
 * @param {string} testid
 * @param {string} text the chunk's (or the file's) own patch text
 * @param {Record<string, any>} chunk the review's chunk entry ({} for a whole file)
 * @param {boolean} selectable
 */
function reviewItem(label, testid, text, chunk, selectable) {
  const input = /** @type {HTMLInputElement} */ (
    h("input", { type: "checkbox", "data-testid": testid, "aria-label": label })
  );
  input.checked = true;
  input.disabled = !selectable;
  const lines = text.split("\n");
  const { shown, hidden } = truncate(lines, LIMITS.changeDiffLines);
  const diff = h(
    "pre",
    { class: "applypatch-review-diff applypatch-diff" },
    ...shown.map((line) => {
      const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") || line.startsWith("***") ? "hunk" : "context";
      return h("div", { class: `applypatch-line applypatch-diff-${kind}`, text: line });
    }),
    hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
  );
  const fuzzy = chunk.fuzzy
    ? h(
        "div",
        { class: "applypatch-review-fuzzy", "data-testid": "applypatch-review-fuzzy", "data-pass": str(chunk.pass) },
        h("span", { class: "applypatch-badge", text: str(chunk.note) }),
        ...arr(chunk.pairs).map((pair) =>
          h(
            "div",
            { class: "applypatch-review-pair" },
            h("div", null, h("span", { class: "applypatch-label", text: "patch" }), h("code", null, ...tokenSpans(visibleText(str(obj(pair).patch))))),
            h("div", null, h("span", { class: "applypatch-label", text: "file" }), h("code", null, ...tokenSpans(visibleText(str(obj(pair).file))))),
          ),
        ),
      )
    : null;
  const el = h(
    "div",
    { class: "applypatch-review-item" },
    h("label", { class: "applypatch-review-toggle" }, input, h("span", { text: label })),
    fuzzy,
    diff,
  );
  return { el, input };
}

/** @typedef {{input: HTMLInputElement, chunks: HTMLInputElement[]}} FileToggles */

/**
 * One file of a review: its toggle and, unless it is all or nothing, a toggle per chunk (the
 * file's toggle sets them all, and shows "mixed" when some are off), each labelled in Python's
 * words (`label` of the file and of each chunk: review.review_files). Each toggle is kept in
 * `byKey` (`file:` or `file:chunk index`) and listened to by `listen`.
 * @param {Record<string, any>} f
 * @param {number} i
 * @param {boolean} selectable
 * @param {(el: HTMLElement, fn: () => void) => void} listen
 * @param {Map<string, HTMLInputElement>} byKey
 * @param {() => void} onChange
 * @returns {{el: HTMLElement, toggles: FileToggles}}
 */
function reviewFile(f, i, selectable, listen, byKey, onChange) {
  const path = str(f.path);
  const chunks = arr(f.chunks).map(obj);
  const whole = Boolean(f.whole) || chunks.length === 0;
  const head = reviewItem(str(f.label), `applypatch-review-file-${i}`, whole ? str(f.text) : "", {}, selectable);
  byKey.set(`${i}:`, head.input);
  const items = whole
    ? []
    : chunks.map((c, k) => {
        const item = reviewItem(str(c.label), `applypatch-review-chunk-${i}-${k}`, str(c.text), c, selectable);
        byKey.set(`${i}:${Number(c.index)}`, item.input);
        return item;
      });
  listen(head.input, () => {
    for (const t of items) t.input.checked = head.input.checked;
    head.input.indeterminate = false;
    onChange();
  });
  for (const t of items)
    listen(t.input, () => {
      const on = items.filter((x) => x.input.checked).length;
      head.input.checked = on > 0;
      head.input.indeterminate = on > 0 && on < items.length;
      onChange();
    });
  const el = h(
    "li",
    { class: "applypatch-review-file", "data-path": path },
    head.el,
    items.length ? h("div", { class: "applypatch-review-chunks" }, ...items.map((t) => t.el)) : null,
  );
  return { el, toggles: { input: head.input, chunks: items.map((t) => t.input) } };
}

/**
 * How many files and chunks of a review are ticked, of how many, and the names of those left
 * out (see tickState): a file's path and a chunk's name as Python words them for the model.
 * @param {FileToggles[]} toggles
 * @param {Record<string, any>[]} files
 */
function countTicks(toggles, files) {
  let kept = 0;
  let total = 0;
  /** @type {string[]} */
  const left = [];
  toggles.forEach((t, i) => {
    const name = str(files[i].path);
    const chunks = arr(files[i].chunks).map(obj);
    if (t.chunks.length === 0) {
      total += 1;
      if (t.input.checked) kept += 1;
      else left.push(name);
      return;
    }
    const on = t.chunks.filter((c) => c.checked).length;
    total += t.chunks.length;
    kept += on;
    if (on === 0) left.push(name);
    else t.chunks.forEach((c, k) => c.checked || left.push(str(chunks[k].name)));
  });
  return { kept, total, left };
}

/**
 * The review of a pending request: every file and chunk with a toggle (all selected), its diff
 * and fuzzy marks (see reviewItem, reviewFile). `selectable` false (a selection's own request,
 * a retry) shows them without toggles to change.
 * @param {Record<string, any>[]} files the review's files (review.review_files in Python)
 * @param {boolean} selectable
 * @param {() => void} onChange
 */
function reviewList(files, selectable, onChange) {
  /** @type {Map<string, HTMLInputElement>} */
  const byKey = new Map();
  /** @type {(() => void)[]} */
  const undo = [];
  /** @param {HTMLElement} el @param {() => void} fn */
  const listen = (el, fn) => {
    el.addEventListener("change", fn);
    undo.push(() => el.removeEventListener("change", fn));
  };
  const made = files.map((f, i) => reviewFile(f, i, selectable, listen, byKey, onChange));
  const toggles = made.map((m) => m.toggles);
  const el = h(
    "ul",
    { class: "applypatch-review", role: "group", "aria-label": "Files and chunks to apply", "data-testid": "applypatch-review" },
    ...made.map((m) => m.el),
  );
  /** @param {number} file @param {number | null} chunk */
  const selected = (file, chunk) => Boolean(byKey.get(`${file}:${chunk === null ? "" : chunk}`)?.checked);
  const asked = files.map((f) => ({ path: str(f.path), whole: Boolean(f.whole) || arr(f.chunks).length === 0, chunks: arr(f.chunks).map((c) => ({ index: obj(c).index })) }));
  const accept = () => reviewAccept(asked, selected);
  const everything = () => toggles.every((t) => t.input.checked && t.chunks.every((c) => c.checked));
  const ticks = () => countTicks(toggles, files);
  return { el, accept, everything, ticks, dispose: () => undo.forEach((f) => f()) };
}

/**
 * The patch text a request asks for: for a request asked again (a selection's own patch, a
 * file changed meanwhile) it is open, since it is not the text the cell streamed.
 * @param {string} patch
 * @param {boolean} open
 */
function patchAsked(patch, open) {
  const { shown, hidden } = truncate(patch.split("\n"), LIMITS.changeDiffLines);
  return h(
    "details",
    { class: "applypatch-approval-patch", "data-testid": "applypatch-approval-patch", open },
    h("summary", { text: "the patch text asked for" }),
    h(
      "pre",
      null,
      shown.join("\n"),
      hidden ? h("div", { class: "applypatch-more", text: moreText(hidden) }) : null,
    ),
  );
}

/**
 * The pending approval request with its buttons, one per decision (see decisionList); a click
 * calls `send(decision, extra)` once, then the buttons stay disabled until a new request (another
 * files/reason/retry/patch) comes. A review (the `review` trait) lists every file and chunk with
 * a toggle and its diff, and the approving buttons follow the ticks, as a partial commit does
 * (docs/behaviour.md §6.7): with some unticked they say so (`Approve selected (3 of 5)`, a line
 * naming what is left out) and send the approval with `extra.accept`, the ticked ones only; with
 * none ticked they are off. The text box beside Decline sends its text as `extra.reason`
 * (omitted when empty).
 * @param {(decision: string, extra?: {accept?: Record<string, boolean | number[]>, reason?: string}) => void} send
 * @param {{decision: string, label: string, testid: string, approves?: boolean, selectedLabel?: string}[]} decisions
 */
export function approvalSection(send, decisions) {
  const view = new ApprovalView(send, decisions);
  return { el: view.el, update: view.update.bind(view), dispose: view.dispose.bind(view) };
}

/** @typedef {{decision: string, label: string, testid: string, approves?: boolean, selectedLabel?: string}} Decision */

/** The reason box beside Decline. */
function reasonBox() {
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      class: "applypatch-reason-input",
      "data-testid": "applypatch-reason-input",
      "aria-label": "Why you decline (told to the model)",
      placeholder: "why not? (told to the model)",
    })
  );
  input.value = "";
  return input;
}

/** @param {Decision} d */
function decisionButton(d) {
  return /** @type {HTMLButtonElement} */ (
    h("button", {
      type: "button",
      class: `applypatch-button applypatch-button-${d.decision}`,
      "data-testid": d.testid,
      "data-decision": d.decision,
      "data-approves": d.approves === false ? "false" : "true",
      text: d.label,
    })
  );
}

/**
 * The paths a request writes, under the words Python gives it (`heading`, `writes`), and the
 * patch text it asks for when that is not the cell's.
 * @param {Record<string, any>} approval
 * @param {Record<string, any>} reviewState
 * @param {string} dir
 */
function requestText(approval, reviewState, dir) {
  const files = arr(approval.files).map(str);
  const { shown: listed, hidden } = truncate(files, LIMITS.rows);
  return [
    h("strong", { text: str(approval.heading) }),
    approval.reason ? h("div", { class: "applypatch-reason", text: str(approval.reason) }) : null,
    h("div", { text: str(approval.writes) }),
    h(
      "ul",
      { class: "applypatch-files" },
      ...listed.map((f) => h("li", null, h("code", { text: relativePath(f, dir) }))),
      hidden ? h("li", { class: "applypatch-more", text: moreText(hidden, "path") }) : null,
    ),
    reviewState.patch ? patchAsked(str(reviewState.patch), Boolean(approval.reason) && !approval.retry) : null,
  ];
}

/** The approval section's DOM and state (see approvalSection). */
class ApprovalView {
  /**
   * @param {(decision: string, extra?: {accept?: Record<string, boolean | number[]>, reason?: string}) => void} send
   * @param {Decision[]} decisions
   */
  constructor(send, decisions) {
    this.send = send;
    this.decisions = decisions;
    this.text = h("div", { class: "applypatch-approval-text" });
    this.note = h("div", { class: "applypatch-approval-note", role: "status" });
    this.reviewBox = h("div", { class: "applypatch-review-box" });
    this.ticksNote = h("div", { class: "applypatch-ticks-note", "data-testid": "applypatch-ticks-note", role: "status", "aria-live": "polite", hidden: true });
    this.reasonInput = reasonBox();
    this.buttons = decisions.map(decisionButton);
    const declines = decisions.some((d) => d.approves === false);
    const row = this.buttons.flatMap((b) => (b.getAttribute("data-approves") === "false" ? [b, this.reasonInput] : [b]));
    this.el = h(
      "div",
      { class: "applypatch-approval", hidden: true },
      this.text,
      this.reviewBox,
      this.ticksNote,
      h("div", { class: "applypatch-buttons" }, ...row, ...(declines ? [] : [this.reasonInput])),
      this.note,
    );
    /** @type {ReturnType<typeof reviewList> | null} */
    this.review = null;
    this.selectable = false;
    this.shown = ""; // the request on screen
    this.sentFor = ""; // the request the buttons were clicked for
    this.sent = false; // the buttons were clicked for the request on screen
    this.reviewShown = ""; // the review on screen (kept while the same request is shown)
    this.onToggle = this.onToggle.bind(this);
    this.handlers = this.buttons.map((button, i) => {
      const handler = () => this.click(button, i);
      button.addEventListener("click", handler);
      return handler;
    });
  }

  /** @param {number} i */
  approves(i) {
    return this.decisions[i].approves !== false;
  }

  /** The ticks the approving buttons follow: null when there is no selection to make. */
  ticks() {
    return tickState(this.review && this.selectable ? this.review.ticks() : null);
  }

  /** The approving buttons' words and state for the ticks; the line saying what is left out. */
  onToggle() {
    const state = this.ticks();
    this.buttons.forEach((b, i) => {
      if (!this.approves(i)) return;
      const d = this.decisions[i];
      b.textContent = state.partial && !state.none ? `${d.selectedLabel || d.label}${state.suffix}` : d.label;
      b.disabled = this.sent || state.none;
    });
    this.ticksNote.textContent = state.hint;
    this.ticksNote.hidden = state.hint === "";
  }

  /** @param {HTMLButtonElement} button @param {number} i */
  click(button, i) {
    if (this.sent) return;
    if (!this.approves(i)) {
      const reason = str(this.reasonInput.value).trim();
      this.sendFrom(button, reason ? { reason } : {});
      return;
    }
    const state = this.ticks();
    if (state.none) return; // nothing ticked: nothing to approve (the button is off)
    // the ticks decide what an approval covers: never the whole patch while some are off
    this.sendFrom(button, state.partial && this.review ? { accept: this.review.accept() } : {});
  }

  /** @param {HTMLButtonElement} button @param {{accept?: Record<string, boolean | number[]>, reason?: string}} extra */
  sendFrom(button, extra) {
    this.sentFor = this.shown;
    this.sent = true;
    for (const b of this.buttons) b.disabled = true;
    this.reasonInput.disabled = true;
    this.note.textContent = `${button.textContent}: sent; the call resumes when the kernel is free (after the running cell).`;
    this.send(button.getAttribute("data-decision") ?? "", extra);
  }

  /** @param {{approval: Record<string, any>, cwd: string, review?: Record<string, any>}} s */
  update({ approval, cwd, review: reviewState = {} }) {
    this.el.hidden = Object.keys(approval).length === 0;
    this.shown = this.el.hidden ? "" : JSON.stringify([approval.request_id, approval.files, approval.reason, approval.retry, reviewState.patch]);
    // the kernel refused what was sent (a selection the patch does not allow): ask again
    const refused = Boolean(reviewState.error);
    this.sent = this.shown !== "" && this.sentFor === this.shown && !refused;
    if (!this.sent) this.sentFor = "";
    if (this.el.hidden) {
      this.review?.dispose();
      this.review = null;
      this.reviewShown = "";
      fill(this.reviewBox);
      this.onToggle();
      return;
    }
    for (const b of this.buttons) b.disabled = this.sent;
    this.reasonInput.disabled = this.sent;
    const dir = str(approval.cwd) || cwd;
    fill(this.text, ...requestText(approval, reviewState, dir));
    this.showReview(reviewState);
    this.onToggle();
    if (!this.sent) this.note.textContent = reviewState.error ? `Not sent: ${str(reviewState.error)}` : "";
  }

  /** The review of the request, made again only when it changed. @param {Record<string, any>} reviewState */
  showReview(reviewState) {
    const reviewFiles = arr(reviewState.files).map(obj);
    this.selectable = reviewState.selectable === true;
    const key = JSON.stringify([this.shown, reviewFiles, this.selectable]);
    if (key === this.reviewShown) return;
    this.reviewShown = key;
    this.review?.dispose();
    this.review = reviewFiles.length ? reviewList(reviewFiles, this.selectable, this.onToggle) : null;
    const title = this.selectable ? "Review: untick what must not be applied (approving applies the ticked ones)" : "What this request covers";
    fill(
      this.reviewBox,
      this.review
        ? h("details", { class: "applypatch-review-details", open: true }, h("summary", { text: title }), this.review.el)
        : null,
    );
  }

  dispose() {
    this.buttons.forEach((b, i) => b.removeEventListener("click", this.handlers[i]));
    this.review?.dispose();
  }
}
