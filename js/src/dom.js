// @ts-check
/**
 * Floor 4, DOM: the few ways the widget makes elements (h, fill), a section's frame, tokens
 * made visible as spans, a guarded copy to the clipboard. The only floor below the sections
 * that touches `document`; node tests run it against a tiny fake DOM.
 */

/**
 * @typedef {import("./helpers.js").Token} Token
 */

/**
 * Create an element: `h("div", {class: "x", "data-testid": "y"}, child, "text", ...)`.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.className = String(value);
    else if (name === "text") el.textContent = String(value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
  return el;
}

/**
 * Replace the children of `el`, skipping null / undefined / false (the DOM would insert the
 * text "null").
 * @param {HTMLElement} el
 * @param {...(Node | string | null | undefined | false)} children
 */
export function fill(el, ...children) {
  el.replaceChildren(
    .../** @type {(Node | string)[]} */ (
      children.filter((c) => c !== null && c !== undefined && c !== false)
    ),
  );
}

/** @param {Token[]} tokens */
export function tokenSpans(tokens) {
  return tokens.map((t) =>
    t.kind === "text" && !t.differs
      ? t.text
      : h("span", {
          class: `applypatch-tok applypatch-tok-${t.kind}${t.differs ? " applypatch-differs" : ""}`,
          title: t.title ?? (t.differs ? "differs" : null),
          text: t.text,
        }),
  );
}

/**
 * @param {string} title
 * @param {string} testid
 * @param {boolean} open
 * @param {Node | null} [badge] shown before the title
 */
export function section(title, testid, open, badge = null) {
  const heading = h("span", { class: "applypatch-section-title", text: title });
  const note = h("span", { class: "applypatch-section-note" });
  const body = h("div", { class: "applypatch-section-body" });
  const el = /** @type {HTMLDetailsElement} */ (
    h(
      "details",
      { class: "applypatch-section", "data-testid": testid, open },
      h("summary", null, badge, heading, note),
      body,
    )
  );
  return { el, note, body };
}

/**
 * A guarded copy: `navigator.clipboard.writeText`, saying what happened in `note`.
 * @param {string} text
 * @param {HTMLElement} note
 * @param {string} what
 */
export function copyText(text, note, what) {
  const clip = /** @type {any} */ (globalThis.navigator)?.clipboard;
  if (!clip?.writeText) {
    note.textContent = `cannot copy: the clipboard is not available here (select the ${what} instead)`;
    return;
  }
  clip.writeText(text).then(
    () => (note.textContent = `${what} copied`),
    () => (note.textContent = `cannot copy: the browser refused (select the ${what} instead)`),
  );
}
