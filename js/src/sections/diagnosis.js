// @ts-check
/**
 * Floor 8, sections: the failure atlas. Why the call failed (its diagnosis) and what to check
 * in a call that applied (its warnings): each kind with what it means (the vocabulary's, from
 * Python), where it points in the patch and in the file, its sentence, and a suggested patch
 * text that is never applied on its own (a Copy button hands it over).
 */

import { copyText, fill, h, section } from "../dom.js";

/**
 * @typedef {import("../vocabulary.js").DiagnosisEntry} DiagnosisEntry
 * @typedef {ReturnType<typeof import("../vocabulary.js").atlasWords>["roles"]} Roles
 */

/**
 * One diagnosis or warning, styled by its role's tone (Python's), never by its name.
 * @param {DiagnosisEntry} entry
 */
export function diagnosisEntry(entry) {
  let suggestion = null;
  if (entry.suggestion) {
    const note = h("span", { class: "applypatch-dx-copied" });
    const copy = h("button", { class: "applypatch-button", type: "button", text: "Copy", "data-testid": "applypatch-dx-copy" });
    copy.addEventListener("click", () => copyText(entry.suggestion, note, "suggestion"));
    suggestion = h(
      "div",
      { class: "applypatch-dx-suggestion", "data-testid": "applypatch-dx-suggestion" },
      h("div", { class: "applypatch-dx-suggestion-head" }, h("span", { text: entry.note ? `${entry.note}: ` : "" }), copy, note),
      h("pre", { class: "applypatch-dx-text", text: entry.suggestion }),
    );
  }
  return h(
    "div",
    {
      class: `applypatch-dx applypatch-dx-tone-${entry.tone}`,
      "data-testid": `applypatch-dx-${entry.role}`,
      "data-kind": entry.kind,
    },
    h("div", { class: "applypatch-dx-head" },
      h("span", { class: `applypatch-badge applypatch-tone-${entry.tone}`, text: entry.label }),
      h("code", { class: "applypatch-dx-kind", title: entry.meaning || null, text: entry.kind }),
      entry.meaning ? h("span", { class: "applypatch-dx-meaning", text: entry.meaning }) : null),
    entry.where ? h("div", { class: "applypatch-dx-where", text: entry.where }) : null,
    h("div", { class: "applypatch-dx-message", text: entry.message }),
    suggestion,
  );
}

/**
 * The note of the section: per role that has entries, its note, with the count when the
 * role has many (`why it failed; 2 warnings`).
 * @param {DiagnosisEntry[]} entries
 * @param {Roles} roles
 */
export function diagnosisNote(entries, roles) {
  return roles
    .map((r) => {
      const count = entries.filter((e) => e.role === r.role).length;
      if (!count) return "";
      return r.many ? ` ${count} ${r.label}${count === 1 ? "" : "s"}` : ` ${r.note}`;
    })
    .filter(Boolean)
    .join(";");
}

/** The diagnosis and the warnings, hidden when there are none. */
export function diagnosisSection() {
  const { el, note, body } = section("Diagnosis", "applypatch-diagnosis", true);
  /** @param {{entries: DiagnosisEntry[], roles: Roles}} s */
  const update = ({ entries, roles }) => {
    el.hidden = entries.length === 0;
    note.textContent = diagnosisNote(entries, roles);
    fill(body, ...entries.map(diagnosisEntry));
  };
  return { el, update };
}
