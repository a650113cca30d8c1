// Tests of the widget's modules (js/src/): the pure helpers, each section renderer, and render()
// against a fake model and a tiny fake DOM (just the calls the widget makes). Run: node --test
// tests/js/ (tests/jupyter/test_js.py does, with the vocabulary Python sends).
//
// What statuses and stages mean comes from Python: the file APPLYPATCH_VOCABULARY names
// (tests/jupyter/test_js.py writes it), else the project's Python is asked for it. These tests
// hold no status or stage list of their own, so a renamed status cannot silently diverge.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import widget from "../../js/src/widget.js";
import { codePoint, formatOffset, LIMITS, lineCount, moreText, recordHistory, relativePath, truncate, visibleSegments, visibleText, windowLines } from "../../js/src/helpers.js";
import { atlasWords, decisionList, diagnosisEntries, previewWords, reviewAccept, stageLabel, stageList, stageStates, statusMeaning, SUMMARY_FORMS, summaryText, tickState, undoneMeaning } from "../../js/src/vocabulary.js";
import { changeBar, changeDiffLines, changeLabel, changeRows, classifyDiffLines, compareChanges, countDiffLines, diffRows, foldRuns, FOLDS, lineRuns, pairWords, sourceLines, splitRows, splitTurnDiff } from "../../js/src/diff-model.js";
import { wordSegments } from "../../js/src/word-diff.js";
import { diffTable, loadMode, MODE_KEY, saveMode, sourcesOf } from "../../js/src/diff-table.js";
import { diffViewState, sameSig, SLICES } from "../../js/src/diff-view.js";
import { cellExtras, cellRows, cellTitle, notebooksSection, sameAsText } from "../../js/src/notebooks.js";
import { eventsSection, headerSection, patchSection, resultSection, safetySection, stagesSection } from "../../js/src/sections/call.js";
import { approvalSection } from "../../js/src/sections/approval.js";
import { placeText, UNDO_NOTEBOOK_VIEWS, undoSection, versionText } from "../../js/src/sections/undo.js";
import { explanationPairRow, explanationSection } from "../../js/src/sections/explanation.js";
import { diagnosisEntry, diagnosisNote, diagnosisSection } from "../../js/src/sections/diagnosis.js";
import { changesSection, plannedSection, turnDiffSection } from "../../js/src/sections/changes.js";
import { DEPENDENTS, recordHider, SECTION_STATE, traitsRead } from "../../js/src/view.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The `vocabulary` trait Python sends (`call_vocabulary()` in applypatch_ext/jupyter/records/vocabulary.py). */
function loadVocabulary() {
  const file = process.env.APPLYPATCH_VOCABULARY;
  if (file) return { source: "APPLYPATCH_VOCABULARY", vocabulary: JSON.parse(readFileSync(file, "utf8")) };
  const venv = path.join(REPO, ".venv", "bin", "python");
  const python = process.env.PYTHON ?? (existsSync(venv) ? venv : "python3");
  const code =
    "import json; from applypatch_ext.jupyter.records.vocabulary import call_vocabulary; print(json.dumps(call_vocabulary()))";
  const out = execFileSync(python, ["-c", code], { cwd: REPO, encoding: "utf8" });
  return { source: python, vocabulary: JSON.parse(out) };
}

const { source: VOCABULARY_SOURCE, vocabulary: VOCABULARY } = loadVocabulary();

/** States Python sends, made by the real code (tests/jupyter/js_samples.py): a review. */
function loadSamples() {
  const file = process.env.APPLYPATCH_SAMPLES;
  if (file) return JSON.parse(readFileSync(file, "utf8"));
  const venv = path.join(REPO, ".venv", "bin", "python");
  const python = process.env.PYTHON ?? (existsSync(venv) ? venv : "python3");
  const code = "from tests.jupyter.js_samples import dump; dump()";
  return JSON.parse(execFileSync(python, ["-c", code], { cwd: REPO, encoding: "utf8" }));
}

const SAMPLES = loadSamples();
/** What an approval request says above its files, as Python words it: `one`, `two`, `retry`. */
const WORDS = SAMPLES.request_words;
const STAGES = stageList(VOCABULARY);
const STAGE_NAMES = STAGES.map((s) => s.name);
/** @param {string} status */
const meaning = (status) => statusMeaning(VOCABULARY, status);
/** The statuses Python sends, by what they mean (the tests never spell a status). */
const STATUS = (() => {
  const entries = Object.entries(VOCABULARY.statuses);
  /** @param {(m: any) => boolean} pred */
  const find = (pred) => {
    const found = entries.find(([, m]) => pred(m));
    assert.ok(found, "the vocabulary has no status of that meaning");
    return found[0];
  };
  return {
    running: find((m) => !m.terminal && m.summary === "progress"),
    awaiting: find((m) => !m.terminal && m.summary === "approval"),
    completed: find((m) => m.terminal && m.success && !m.dry_run),
    dryRun: find((m) => m.dry_run),
    declined: find((m) => m.user_declined),
    failed: find((m) => m.terminal && !m.success && m.wrote && !m.user_declined),
    stopped: find((m) => m.terminal && !m.success && !m.wrote), // an error: nothing written
    error: find((m) => m.terminal && m.summary === "error"),
  };
})();
/** The stage a call reaches at its end, and the one that waits for approval, by meaning. */
const LAST = STAGE_NAMES.at(-1) ?? "";
const [FIRST, SECOND, THIRD] = STAGE_NAMES;
const WAITING = STAGES.find((s) => s.evidence === "apply_patch_approval_request")?.name ?? "";
const APPLYING = STAGES.find((s) => s.writes)?.name ?? "";

const TURN_DIFF = [
  "diff --git a/a.txt b/a.txt",
  "index 1111111..2222222 100644",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1,2 +1,2 @@",
  "-old",
  "--- a removed line that looks like a header",
  "+new",
  " same",
  "\\ No newline at end of file",
  "diff --git a/dir/b.txt b/dir/b.txt",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/dir/b.txt",
  "@@ -0,0 +1 @@",
  "+hello",
  "",
].join("\n");

// ------------------------------------------------------------------------------------ helpers

describe("classifyDiffLines", () => {
  test("headers before the first @@, then +/-/context", () => {
    const kinds = classifyDiffLines(TURN_DIFF).map((l) => l.kind);
    assert.deepEqual(kinds, [
      "file",
      "header",
      "header",
      "header",
      "hunk",
      "del",
      "del",
      "add",
      "context",
      "meta",
      "file",
      "header",
      "header",
      "header",
      "hunk",
      "add",
    ]);
  });

  test("a progress diff without a file header is all hunk body", () => {
    const lines = classifyDiffLines("@@ def f\n-a\n+b\n*** End of File\n");
    assert.deepEqual(
      lines.map((l) => l.kind),
      ["hunk", "del", "add", "meta"],
    );
    assert.deepEqual(
      classifyDiffLines("-x\n+y").map((l) => l.kind),
      ["del", "add"],
    );
  });

  test("empty input", () => {
    assert.deepEqual(classifyDiffLines(""), []);
    // @ts-expect-error robustness
    assert.deepEqual(classifyDiffLines(undefined), []);
  });
});

describe("line counts", () => {
  test("countDiffLines counts as classifyDiffLines classifies", () => {
    for (const text of [TURN_DIFF, "", "+a\n-b\n c", "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n+y\n\\ No newline\n"]) {
      const lines = classifyDiffLines(text);
      assert.deepEqual(countDiffLines(text), {
        added: lines.filter((l) => l.kind === "add").length,
        removed: lines.filter((l) => l.kind === "del").length,
        lines: text.split("\n").length - (text.endsWith("\n") || text === "" ? 1 : 0),
      });
    }
  });

  test("lineCount is the number of rows of an Add", () => {
    for (const content of ["", "a", "a\n", "a\nb", "a\r\nb\n", "\n\n"]) {
      assert.equal(lineCount(content), changeRows({ type: "add", content }).length, JSON.stringify(content));
    }
  });

  test("sameSig compares item by item", () => {
    assert.equal(sameSig(["a", 1, "x".repeat(3)], ["a", 1, "xxx"]), true);
    assert.equal(sameSig(["a"], ["a", 1]), false);
    assert.equal(sameSig(["a", 1], ["a", 2]), false);
  });
});

describe("splitTurnDiff", () => {
  const [A, B] = TURN_DIFF.split(/(?=^diff --git a\/dir)/m);
  const blocks = [
    { old_path: "a.txt", path: "a.txt", diff: A },
    { old_path: "dir/b.txt", path: "dir/b.txt", diff: B },
  ];

  test("one entry per block of the tracker, with path and counts", () => {
    const files = splitTurnDiff(TURN_DIFF, blocks);
    assert.deepEqual(
      files.map(({ path, added, removed }) => ({ path, added, removed })),
      [
        { path: "a.txt", added: 1, removed: 2 },
        { path: "dir/b.txt", added: 1, removed: 0 },
      ],
    );
    assert.equal(files.map((f) => f.text).join(""), TURN_DIFF);
  });

  test("without blocks the diff is one entry, empty gives nothing", () => {
    assert.deepEqual(splitTurnDiff(""), []);
    const files = splitTurnDiff(TURN_DIFF);
    assert.deepEqual(
      files.map(({ path, added, removed }) => ({ path, added, removed })),
      [{ path: "turn diff", added: 2, removed: 2 }],
    );
  });

  test("a path with ' b/' inside keeps its name; a rename shows both", () => {
    const text = "diff --git a/x b/y b/x b/y\n@@ -1 +1 @@\n-a\n+b\n";
    const [file] = splitTurnDiff(text, [{ old_path: "x b/y", path: "x b/y", diff: text }]);
    assert.equal(file.path, "x b/y");
    const [moved] = splitTurnDiff(text, [{ old_path: "old b/x", path: "new", diff: text }]);
    assert.equal(moved.path, "old b/x → new");
  });
});

describe("visibleSegments", () => {
  test("trailing spaces, tabs, CR and differing spaces become visible", () => {
    const tokens = visibleSegments([
      [false, "    return "],
      [true, '"'],
      [false, "hi"],
      [true, '"  '],
    ]);
    const text = tokens.map((t) => t.text).join("");
    // leading spaces that match stay spaces; the differing trailing ones are dots
    assert.equal(text, '    return "hi"··');
    assert.deepEqual(
      tokens.filter((t) => t.differs).map((t) => [t.kind, t.text]),
      [
        ["text", '"'],
        ["text", '"'],
        ["space", "··"],
      ],
    );
  });

  test("tab, CR, NBSP, typographic punctuation, invisible characters", () => {
    const tokens = visibleText("\tx\u00a0=\u201chi\u201d \u2013 y\u200b\r");
    const kinds = tokens.map((t) => [t.kind, t.text]);
    assert.deepEqual(kinds, [
      ["tab", "→"],
      ["text", "x"],
      ["nbsp", "⍽"],
      ["text", "="],
      ["typo", "\u201c"],
      ["text", "hi"],
      ["typo", "\u201d"],
      ["text", " "],
      ["typo", "\u2013"],
      ["text", " y"],
      ["invisible", "⟨U+200B⟩"],
      ["cr", "␍"],
    ]);
    assert.match(tokens.find((t) => t.kind === "typo")?.title ?? "", /U\+201C/);
  });

  test("spaces inside a differing segment are dots even mid-line", () => {
    const tokens = visibleSegments([
      [true, "    "],
      [false, "x = 1"],
    ]);
    assert.deepEqual(
      tokens.map((t) => [t.differs, t.kind, t.text]),
      [
        [true, "space", "····"],
        [false, "text", "x = 1"],
      ],
    );
  });

  test("garbage in, nothing out", () => {
    assert.deepEqual(visibleSegments(null), []);
    // @ts-expect-error robustness
    assert.deepEqual(visibleSegments([[true], "x", [false, 3]]), []);
    // @ts-expect-error robustness
    assert.deepEqual(visibleText(null), []);
  });

  test("codePoint", () => {
    assert.equal(codePoint("\u00a0"), "U+00A0");
    assert.equal(codePoint("😀"), "U+1F600");
  });
});

describe("bounded rendering", () => {
  test("windowLines: all, head, or a window around the streamed line", () => {
    assert.deepEqual(windowLines(10, 3, 400), { start: 0, end: 10 });
    assert.deepEqual(windowLines(1000, 0, 400), { start: 0, end: 400 });
    assert.deepEqual(windowLines(1000, 100, 400), { start: 0, end: 400 });
    const w = windowLines(1000, 900, 400);
    assert.equal(w.end - w.start, 400);
    assert.ok(w.start < 900 && 900 <= w.end, JSON.stringify(w));
    assert.deepEqual(windowLines(1000, 1000, 400), { start: 600, end: 1000 });
  });

  test("truncate and moreText", () => {
    assert.deepEqual(truncate([1, 2, 3], 5), { shown: [1, 2, 3], hidden: 0 });
    assert.deepEqual(truncate([1, 2, 3], 2), { shown: [1, 2], hidden: 1 });
    assert.equal(moreText(1), "… 1 more line");
    assert.equal(moreText(12, "file"), "… 12 more files");
    assert.equal(moreText(3, "line", "earlier"), "… 3 earlier lines");
  });
});

describe("changes", () => {
  test("labels", () => {
    assert.equal(changeLabel({ type: "add" }), "Add");
    assert.equal(changeLabel({ type: "delete" }), "Delete");
    assert.equal(changeLabel({ type: "update", move_path: null }), "Update");
    assert.equal(changeLabel({ type: "update", move_path: "b" }), "Move");
    assert.equal(changeLabel(null), "?");
    assert.equal(changeLabel({ type: "weird" }), "weird");
  });

  test("diff lines of a change", () => {
    assert.deepEqual(changeDiffLines({ type: "add", content: "a\nb\n" }), [
      { kind: "add", text: "+a" },
      { kind: "add", text: "+b" },
    ]);
    assert.deepEqual(changeDiffLines({ type: "delete", content: "x" }), []);
    assert.deepEqual(
      changeDiffLines({ type: "update", unified_diff: "@@\n-a\n+b\n" }).map((l) => l.kind),
      ["hunk", "del", "add"],
    );
    assert.deepEqual(changeDiffLines(undefined), []);
  });

  test("relativePath", () => {
    assert.equal(relativePath("/w/a/b.txt", "/w"), "a/b.txt");
    assert.equal(relativePath("/w/a/b.txt", "/w/"), "a/b.txt");
    assert.equal(relativePath("/elsewhere/x", "/w"), "/elsewhere/x");
    assert.equal(relativePath("/wx/y", "/w"), "/wx/y");
    assert.equal(relativePath("rel.txt", ""), "rel.txt");
  });

  const proposed = {
    "/w/x.txt": { type: "add", content: "hello\n" },
    "/w/m.txt": { type: "update", unified_diff: "@@\n-a\n+A\n", move_path: "/w/n/m2.txt" },
  };

  test("compareChanges: a failed call marks what is missing from the delta", () => {
    const delta = { changes: [{ type: "add", path: "/w/x.txt" }], exact: false };
    const rows = compareChanges(proposed, delta, meaning(STATUS.failed));
    assert.deepEqual(
      rows.map((r) => [r.path, r.state]),
      [
        ["/w/x.txt", "committed"],
        ["/w/m.txt", "missing"],
      ],
    );
  });

  test("compareChanges: a move that landed as a plain update differs", () => {
    const delta = {
      changes: [
        { type: "add", path: "/w/x.txt" },
        { type: "update", path: "/w/m.txt", move_path: null },
      ],
    };
    const rows = compareChanges(proposed, delta, meaning(STATUS.failed));
    assert.equal(rows[1].state, "differs");
  });

  test("compareChanges: pending, not run, extra", () => {
    assert.deepEqual(
      compareChanges(proposed, { changes: [] }, meaning(STATUS.awaiting)).map((r) => r.state),
      ["pending", "pending"],
    );
    assert.deepEqual(
      compareChanges(proposed, { changes: [] }, meaning(STATUS.running)).map((r) => r.state),
      ["pending", "pending"],
    );
    assert.deepEqual(
      compareChanges(proposed, { changes: [] }, meaning(STATUS.dryRun)).map((r) => r.state),
      ["not-run", "not-run"],
    );
    assert.deepEqual(
      compareChanges(proposed, { changes: [] }, meaning(STATUS.declined)).map((r) => r.state),
      ["not-run", "not-run"],
    );
    const extra = compareChanges({}, { changes: [{ type: "delete", path: "/w/z" }] }, meaning(STATUS.completed));
    assert.deepEqual(
      extra.map((r) => [r.path, r.state]),
      [["/w/z", "extra"]],
    );
    assert.deepEqual(compareChanges(null, null, meaning(STATUS.running)), []);
  });

  test("compareChanges: a path twice in the delta (a retried attempt) is matched once", () => {
    const delta = {
      changes: [
        { type: "add", path: "/w/x.txt" },
        { type: "add", path: "/w/x.txt" },
      ],
    };
    const rows = compareChanges({ "/w/x.txt": { type: "add" } }, delta, meaning(STATUS.completed));
    assert.deepEqual(
      rows.map((r) => r.state),
      ["committed", "extra"],
    );
  });
});

describe("stageStates", () => {
  test("stages before the current one are done", () => {
    const states = stageStates(STAGES, THIRD, meaning(STATUS.running));
    assert.deepEqual(
      states.map((s) => s.state),
      ["done", "done", "active", "todo", "todo", "todo", "todo"],
    );
  });

  test("the end: done for completed, failed otherwise", () => {
    assert.equal(stageStates(STAGES, LAST, meaning(STATUS.completed)).at(-1)?.state, "done");
    assert.equal(stageStates(STAGES, LAST, meaning(STATUS.dryRun)).at(-1)?.state, "done");
    assert.equal(stageStates(STAGES, LAST, meaning(STATUS.failed)).at(-1)?.state, "failed");
    assert.equal(stageStates(STAGES, LAST, meaning(STATUS.error)).at(-1)?.state, "failed");
    assert.equal(stageStates(STAGES, WAITING, meaning(STATUS.awaiting))[STAGE_NAMES.indexOf(WAITING)].state, "active");
  });

  test("stages a call did not need are skipped, known from its events", () => {
    const auto = ["patch_apply_updated", "patch_safety_assessed", "patch_apply_begin", "patch_apply_end"];
    assert.deepEqual(
      stageStates(STAGES, LAST, meaning(STATUS.completed), auto).map((s) => s.state),
      ["done", "done", "done", "done", "skipped", "done", "done"],
    );
    // a call that stopped: failed where it stopped, the rest never reached
    assert.deepEqual(
      stageStates(STAGES, SECOND, meaning(STATUS.error), []).map((s) => s.state),
      ["done", "failed", "unreached", "unreached", "unreached", "unreached", "unreached"],
    );
    assert.deepEqual(
      stageStates(STAGES, THIRD, meaning(STATUS.error), ["patch_apply_updated"]).map((s) => s.state),
      ["done", "done", "failed", "unreached", "unreached", "unreached", "unreached"],
    );
    assert.deepEqual(
      stageStates(STAGES, APPLYING, meaning(STATUS.failed), ["patch_safety_assessed", "patch_apply_begin"]).map(
        (s) => s.state,
      ),
      ["done", "done", "done", "done", "skipped", "failed", "unreached"],
    );
    // a result saved before stages said where a call stopped: the end is failed
    assert.deepEqual(
      stageStates(STAGES, LAST, meaning(STATUS.error), []).map((s) => s.state),
      ["done", "done", "done", "skipped", "skipped", "skipped", "failed"],
    );
    // declined: asked, but nothing applied
    const declined = [
      "patch_safety_assessed",
      "patch_apply_begin",
      "apply_patch_approval_request",
      "apply_patch_approval_decision",
      "patch_apply_end",
    ];
    assert.deepEqual(
      stageStates(STAGES, WAITING, meaning(STATUS.declined), declined).map((s) => s.state),
      ["done", "done", "done", "done", "failed", "unreached", "unreached"],
    );
    // while applying an auto-approved call, the approval stage is already known to be skipped
    assert.equal(
      stageStates(STAGES, APPLYING, meaning(STATUS.running), ["patch_safety_assessed", "patch_apply_begin"])[
        STAGE_NAMES.indexOf(WAITING)
      ].state,
      "skipped",
    );
  });

  test("unknown stage or no stages", () => {
    assert.deepEqual(
      stageStates(STAGES, "nope", meaning(STATUS.running)).map((s) => s.state),
      STAGES.map(() => "todo"),
    );
    // @ts-expect-error robustness
    assert.deepEqual(stageStates(undefined, "x", meaning(STATUS.running)), []);
  });
});

describe("text helpers", () => {
  test("formatOffset", () => {
    assert.equal(formatOffset(1.5, 0.25), "+1.250s");
    assert.equal(formatOffset(2, NaN), "+2.000s");
    assert.equal(formatOffset(NaN, 0), "");
  });

  test("summaryText: the form each status's meaning names", () => {
    const label = (/** @type {string} */ status) => meaning(status).label;
    const first = stageLabel(STAGES, "");
    assert.equal(
      summaryText({ stage: first, planned: { a: {} } }, meaning(STATUS.running)),
      `${first}… 1 file planned, nothing written yet`,
    );
    assert.equal(summaryText({ stage: first }, meaning(STATUS.running)), `${first}…`);
    assert.equal(
      summaryText({ approval: { files: ["a", "b"] } }, meaning(STATUS.awaiting)),
      "waiting for approval of 2 files; nothing written yet",
    );
    assert.equal(summaryText({ proposed: { a: {} } }, meaning(STATUS.dryRun)), "1 file verified");
    assert.equal(summaryText({ delta: { changes: [{}, {}] } }, meaning(STATUS.completed)), "2 files changed");
    assert.equal(
      summaryText({ proposed: { a: {}, b: {} }, delta: { changes: [{}], exact: false } }, meaning(STATUS.failed)),
      `${label(STATUS.failed)}: 1 of 2 files committed (inexact: a lower bound)`,
    );
    assert.equal(summaryText({}, meaning(STATUS.declined)), `${label(STATUS.declined)}: nothing written`);
    assert.equal(
      summaryText({ error: "Failed to find expected lines in a:\nx" }, meaning(STATUS.error)),
      `${label(STATUS.error)}: Failed to find expected lines in a:`,
    );
    assert.equal(summaryText({}, meaning(STATUS.error)), label(STATUS.error));
    // a status Python does not know is shown as itself, its error's first line after it
    assert.equal(summaryText({ error: "boom\nmore" }, meaning("new-status")), "new-status: boom");
  });

  test("lineCount", () => {
    assert.equal(lineCount(""), 0);
    assert.equal(lineCount("a"), 1);
    assert.equal(lineCount("a\n"), 1);
    assert.equal(lineCount("a\nb"), 2);
    assert.equal(lineCount("a\n\n"), 2);
  });

  test("recordHistory keeps changes only, bounded", () => {
    /** @type {any[]} */
    const h = [];
    recordHistory(h, "stage", "streaming", 1);
    recordHistory(h, "status", "", 1);
    recordHistory(h, "stage", "streaming", 2);
    recordHistory(h, "stage", "parsing", 3);
    assert.deepEqual(h, [
      { t: 1, k: "stage", v: "streaming" },
      { t: 1, k: "status", v: "" },
      { t: 3, k: "stage", v: "parsing" },
    ]);
    for (let i = 0; i < 10; i++) recordHistory(h, "lines", i, 10 + i, 5);
    assert.equal(h.length, 5);
    assert.deepEqual(h.at(-1), { t: 19, k: "lines", v: 9 });
  });
});

// ------------------------------------------------------------------------- render (fake DOM)

class FakeNode {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
  get textContent() {
    return this.text;
  }
}

class FakeElement {
  /** @param {string} tag */
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    /** @type {(FakeElement | FakeNode)[]} */
    this.childNodes = [];
    /** @type {Map<string, string>} */
    this.attributes = new Map();
    /** @type {Map<string, Function[]>} */
    this.listeners = new Map();
    this.className = "";
    this.hidden = false;
    this.disabled = false;
    this.scrollTop = 0;
    this.scrollHeight = 0;
    this.clientHeight = 0;
    /** @type {Map<string, string>} inline style properties (setProperty / getPropertyValue) */
    const props = new Map();
    this.style = {
      /** @param {string} name @param {string} value */
      setProperty: (name, value) => props.set(name, String(value)),
      /** @param {string} name */
      getPropertyValue: (name) => props.get(name) ?? "",
    };
  }
  /** @param {...any} nodes */
  append(...nodes) {
    // like the DOM: anything that is not a node becomes text (null -> "null")
    for (const n of nodes)
      this.childNodes.push(n instanceof FakeElement || n instanceof FakeNode ? n : new FakeNode(String(n)));
  }
  /** @param {...any} nodes */
  replaceChildren(...nodes) {
    this.childNodes = [];
    this.append(...nodes);
  }
  /** @param {string} name @param {string} value */
  setAttribute(name, value) {
    this.attributes.set(name, String(value));
    if (name === "hidden") this.hidden = true;
  }
  /** @param {string} name */
  removeAttribute(name) {
    this.attributes.delete(name);
  }
  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }
  /** @param {string} type @param {Function} fn */
  addEventListener(type, fn) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  /** @param {string} type @param {Function} fn */
  removeEventListener(type, fn) {
    this.listeners.set(
      type,
      (this.listeners.get(type) ?? []).filter((f) => f !== fn),
    );
  }
  focus() {
    this.focused = true;
  }
  /** @param {any} options */
  scrollIntoView(options) {
    this.scrolledTo = options ?? true;
  }
  click() {
    if (this.disabled) return;
    for (const fn of this.listeners.get("click") ?? []) fn({ type: "click" });
  }
  /** A checkbox toggled by the user (a click or the space key): flip it, then "change". */
  toggle() {
    if (this.disabled) return;
    this.checked = !this.checked;
    for (const fn of this.listeners.get("change") ?? []) fn({ type: "change" });
  }
  get textContent() {
    return this.childNodes.map((c) => c.textContent).join("");
  }
  set textContent(value) {
    this.childNodes = value === "" ? [] : [new FakeNode(String(value))];
  }
  get firstElementChild() {
    return this.childNodes.find((c) => c instanceof FakeElement) ?? null;
  }
  /** @returns {FakeElement[]} */
  all() {
    const out = [];
    for (const c of this.childNodes) {
      if (c instanceof FakeElement) out.push(c, ...c.all());
    }
    return out;
  }
  /** @param {(e: FakeElement) => boolean} pred */
  find(pred) {
    return this.all().find(pred) ?? null;
  }
  /** @param {string} id */
  byTestId(id) {
    const found = this.find((e) => e.getAttribute("data-testid") === id);
    assert.ok(found, `no element with data-testid=${id}`);
    return found;
  }
  /** @param {string} cls */
  byClass(cls) {
    return this.all().filter((e) => e.className.split(" ").includes(cls));
  }
  /** true if this element or an ancestor (up to `root`) is hidden */
  /** @param {FakeElement} root */
  isHiddenIn(root) {
    /** @param {FakeElement} node @returns {boolean | null} */
    const walk = (node) => {
      if (node === this) return node.hidden;
      for (const c of node.childNodes) {
        if (c instanceof FakeElement) {
          const r = walk(c);
          if (r !== null) return r || node.hidden;
        }
      }
      return null;
    };
    return Boolean(walk(root));
  }
}

class FakeModel {
  /** @param {Record<string, any>} state */
  constructor(state = {}) {
    this.state = { ...state };
    /** @type {Map<string, Function[]>} */
    this.handlers = new Map();
    /** @type {any[]} */
    this.sent = [];
  }
  /** @param {string} name */
  get(name) {
    return this.state[name];
  }
  /** @param {Record<string, any>} changes */
  set(changes) {
    Object.assign(this.state, changes);
    for (const name of Object.keys(changes)) for (const fn of this.handlers.get(`change:${name}`) ?? []) fn();
  }
  /** @param {string} event @param {Function} fn */
  on(event, fn) {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
  }
  /** @param {string} event @param {Function} fn */
  off(event, fn) {
    this.handlers.set(
      event,
      (this.handlers.get(event) ?? []).filter((f) => f !== fn),
    );
  }
  /** @param {any} content */
  send(content) {
    this.sent.push(content);
  }
  handlerCount() {
    return [...this.handlers.values()].reduce((n, list) => n + list.length, 0);
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Until no part of `root` is still being rendered in slices (data-rendering). */
const settled = async (/** @type {FakeElement} */ root) => {
  while (root.all().some((e) => e.getAttribute("data-rendering") !== null)) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
};

/** The initial state a freshly created Python widget syncs. */
function initialState() {
  return {
    vocabulary: VOCABULARY,
    title: "apply_patch call-1",
    call_id: "call-1",
    cwd: "/w",
    dry_run: false,
    patch_text: "",
    patch_truncated: false,
    current_line: 0,
    stage: FIRST,
    planned: {},
    safety: {},
    approval: {},
    proposed: {},
    status: STATUS.running,
    output: "",
    stdout: "",
    stderr: "",
    error: "",
    delta: {},
    turn_diff: "",
    turn_diff_files: [],
    events: [],
    explanation: {},
    diagnosis: {},
    warnings: [],
    review: {},
  };
}

describe("render", () => {
  /** @type {string[]} */
  let warnings;
  const originalWarn = console.warn;
  beforeEach(() => {
    // @ts-expect-error a fake document with the one method the widget uses
    globalThis.document = { createElement: (tag) => new FakeElement(tag) };
    warnings = [];
    console.warn = (...args) => warnings.push(args.join(" "));
  });
  afterEach(() => {
    console.warn = originalWarn;
    // @ts-expect-error cleanup
    delete globalThis.document;
  });

  /** @param {FakeModel} model */
  function mount(model) {
    const el = new FakeElement("div");
    // @ts-expect-error fakes
    const cleanup = widget.render({ model, el });
    const root = /** @type {FakeElement} */ (el.firstElementChild);
    return { el, root, cleanup };
  }

  test("never throws on missing or malformed traits", async () => {
    for (const state of [
      {},
      { vocabulary: { statuses: [1], unknown: "x", stages: [null, { name: 5 }, { label: "x" }] } },
      {
        vocabulary: 3,
        planned: [],
        proposed: "x",
        delta: { changes: "no" },
        events: {},
        explanation: { pairs: 5 },
      },
      { patch_text: null, current_line: "x", approval: [], safety: null, turn_diff: 42 },
      {
        events: [null, 1, { time: "x" }],
        explanation: { pairs: [null, { expected_segments: 7 }] },
        delta: { changes: [null] },
        proposed: { a: null },
      },
    ]) {
      const model = new FakeModel(state);
      const { root, cleanup } = mount(model);
      assert.equal(root.getAttribute("data-testid"), "applypatch-widget");
      model.set({ status: STATUS.failed, stage: LAST, planned: { "a b": {} } });
      await tick();
      assert.doesNotMatch(root.textContent, /\bnull\b|\bundefined\b|\[object |NaN/, JSON.stringify(state));
      cleanup();
    }
    assert.deepEqual(warnings, []);
  });

  test("every test id is present", () => {
    const { root } = mount(new FakeModel(initialState()));
    for (const id of [
      "applypatch-status",
      "applypatch-stage",
      "applypatch-approve",
      "applypatch-approve-session",
      "applypatch-decline",
      "applypatch-turn-diff",
      "applypatch-delta",
      "applypatch-planned",
      "applypatch-patch-text",
      "applypatch-events",
      "applypatch-explanation",
      "applypatch-diagnosis",
    ]) {
      root.byTestId(id);
    }
    assert.deepEqual(
      decisionList(VOCABULARY).map((d) => d.decision),
      ["approve", "approve-for-session", "decline"],
    );
  });

  test("streaming: the text grows, the current line is highlighted, history records it", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    assert.equal(root.byTestId("applypatch-status").textContent, "running");
    const text = "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n";
    for (let n = 1; n <= 4; n++) {
      const shown = text.split("\n").slice(0, n).join("\n");
      model.set({ patch_text: shown, current_line: n });
      await tick();
      const current = root.byClass("applypatch-current");
      assert.equal(current.length, 1);
      assert.equal(current[0].getAttribute("data-line"), String(n));
    }
    model.set({ planned: { "a.txt": { type: "add", content: "one\ntwo\n" } } });
    await tick();
    const planned = root.byTestId("applypatch-planned");
    assert.equal(planned.hidden, false);
    assert.match(planned.textContent, /planned, nothing written yet/);
    assert.match(planned.textContent, /Add.*a\.txt/);
    model.set({ stage: SECOND });
    model.set({ stage: LAST, status: STATUS.completed, current_line: 0 });
    await tick();
    const history = JSON.parse(root.getAttribute("data-history") ?? "[]");
    assert.deepEqual(
      history.filter((/** @type {any} */ e) => e.k === "lines").map((/** @type {any} */ e) => e.v),
      [0, 1, 2, 3, 4],
    );
    assert.deepEqual(
      history.filter((/** @type {any} */ e) => e.k === "stage").map((/** @type {any} */ e) => e.v),
      [FIRST, SECOND, LAST],
    );
    assert.deepEqual(
      history.filter((/** @type {any} */ e) => e.k === "status").map((/** @type {any} */ e) => e.v),
      [STATUS.running, STATUS.completed],
    );
    assert.equal(root.byTestId("applypatch-status").textContent, meaning(STATUS.completed).label);
    assert.equal(root.getAttribute("data-status"), STATUS.completed);
    assert.equal(root.byClass("applypatch-current").length, 0);
  });

  test("a big patch renders a bounded number of lines with a marker", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const text = Array.from({ length: 20000 }, (_, i) => `+line ${i}`).join("\n");
    model.set({ patch_text: text, patch_truncated: true, current_line: 0 });
    const blocks = Array.from({ length: 50 }, (_, f) => ({
      old_path: `f${f}`,
      path: `f${f}`,
      diff: [
        `diff --git a/f${f} b/f${f}`,
        "@@ -1 +1,500 @@",
        ...Array.from({ length: 500 }, (_, i) => `+x${i}`),
      ].join("\n") + "\n",
    }));
    model.set({ turn_diff: blocks.map((b) => b.diff).join(""), turn_diff_files: blocks });
    await tick();
    await settled(root);
    const patch = root.byTestId("applypatch-patch-text");
    assert.equal(patch.byClass("applypatch-line").length, LIMITS.patchLines);
    assert.match(patch.textContent, /… 19600 more lines/);
    assert.match(patch.textContent, /cut for display/);
    const turn = root.byTestId("applypatch-turn-diff");
    assert.equal(turn.byClass("applypatch-file").length, 0, "closed: nothing built yet");
    toggle(turn, true);
    await settled(root); // opened: its files are drawn in time slices
    assert.ok(turn.byClass("applypatch-line").length <= LIMITS.diffLines);
    assert.equal(turn.byClass("applypatch-file").length, 50);
    assert.match(turn.textContent, /more lines/);
  });

  test("500 files render in slices, every one in order, the file list complete", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const blocks = Array.from({ length: 500 }, (_, f) => ({
      old_path: `f${f}`,
      path: `f${f}`,
      diff: `diff --git a/f${f} b/f${f}\n@@ -1 +1,2 @@\n+x\n+y\n`,
    }));
    model.set({ turn_diff: blocks.map((b) => b.diff).join(""), turn_diff_files: blocks });
    await tick();
    const turn = root.byTestId("applypatch-turn-diff");
    toggle(turn, true); // closed in a call's view: built when opened
    assert.ok(turn.byClass("applypatch-file").length >= SLICES.first);
    await settled(root);
    const files = turn.byClass("applypatch-file");
    assert.equal(files.length, LIMITS.rows); // the first 200, then "… 300 more files"
    assert.deepEqual(files.map((f) => f.getAttribute("data-path")), blocks.slice(0, LIMITS.rows).map((b) => b.path));
    assert.equal(turn.byClass("applypatch-jump").length, LIMITS.rows);
    assert.match(turn.textContent, /… 300 more files/);
  });

  test("an undo's approval message names the undo's request", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const place = { index: 1, count: 2, turn_id: "turn-1" };
    const approval = { files: ["/w/out.txt"], request_id: "call-2:1" };
    model.set({ status: STATUS.completed, stage: LAST, undo: { place, can_undo: true, can_redo: false, last: { kind: "undo", call_id: "call-2", status: "awaiting-approval", approval } } });
    await tick();
    root.byTestId("applypatch-undo-approve").click();
    assert.deepEqual(model.sent, [{ type: "undo-approval", decision: "approve", request: "call-2:1" }]);
  });

  test("approval: buttons send the message once, then disable and say so", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const box = root.byClass("applypatch-approval")[0];
    assert.equal(box.hidden, true);
    model.set({
      status: STATUS.awaiting,
      stage: WAITING,
      approval: { files: ["/w/a.txt", "/elsewhere/b"], reason: null, retry: false, cwd: "/w", request_id: "c:1", ...WORDS.two },
    });
    await tick();
    assert.equal(box.hidden, false);
    assert.match(box.textContent, /a\.txt/);
    assert.match(box.textContent, /\/elsewhere\/b/);
    const approve = root.byTestId("applypatch-approve");
    approve.click();
    approve.click(); // disabled: ignored
    root.byTestId("applypatch-decline").click();
    // the message names the request it answers: the kernel refuses it for another one
    assert.deepEqual(model.sent, [{ type: "approval", decision: "approve", request: "c:1" }]);
    for (const id of ["applypatch-approve", "applypatch-approve-session", "applypatch-decline"]) {
      assert.equal(root.byTestId(id).disabled, true);
    }
    assert.match(box.textContent, /sent; the call resumes/);
    // an unrelated re-render keeps the buttons disabled
    model.set({ events: [{ type: "x", time: 0, summary: "" }] });
    await tick();
    assert.equal(approve.disabled, true);
    // a retry request is a new question: the buttons come back
    model.set({
      approval: {
        files: ["/w/a.txt"],
        reason: "the sandbox denied a write; retry without the sandbox?",
        retry: true,
        cwd: "/w",
        request_id: "c:2",
        ...WORDS.retry,
      },
    });
    await tick();
    assert.equal(approve.disabled, false);
    assert.ok(box.textContent.startsWith(WORDS.retry.heading), box.textContent);
    assert.match(box.textContent, /Retry without the sandbox\?/);
    assert.match(box.textContent, /sandbox denied a write/);
    root.byTestId("applypatch-approve-session").click();
    assert.deepEqual(model.sent.at(-1), { type: "approval", decision: "approve-for-session", request: "c:2" });
    model.set({ approval: {}, status: STATUS.completed, stage: LAST });
    await tick();
    assert.equal(box.hidden, true);
  });

  test("review: Approve follows the ticks; a decline's reason reaches the kernel in the message", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const review = {
      selectable: true,
      files: [
        {
          path: "/w/a.txt",
          kind: "update",
          move_path: null,
          whole: false,
          text: "",
          chunks: [
            { index: 0, text: "@@\n-a\n+A", line: 1, pass: "exact", fuzzy: false, pairs: [] },
            { index: 1, text: "@@\n-b\n+B", line: 2, pass: "exact", fuzzy: false, pairs: [] },
          ],
        },
      ],
    };
    model.set({
      status: STATUS.awaiting,
      stage: WAITING,
      approval: { files: ["/w/a.txt"], reason: null, retry: false, cwd: "/w", request_id: "c:1" },
      review: { ...review, patch: "p" },
    });
    await tick();
    root.byTestId("applypatch-review-chunk-0-0").toggle();
    const approve = root.byTestId("applypatch-approve");
    assert.equal(approve.textContent, "Approve selected (1 of 2)");
    approve.click();
    assert.deepEqual(model.sent, [{ type: "approval", decision: "approve", request: "c:1", accept: { "/w/a.txt": [1] } }]);
    // the selection's own request (asked again): a new question, answered with a reason
    model.set({
      approval: { files: ["/w/a.txt"], reason: "the selected hunks only", retry: false, cwd: "/w", request_id: "c:2" },
      review: { ...review, selectable: false, patch: "q" },
    });
    await tick();
    root.byTestId("applypatch-reason-input").value = "not now";
    root.byTestId("applypatch-decline").click();
    assert.deepEqual(model.sent.at(-1), { type: "approval", decision: "decline", request: "c:2", reason: "not now" });
  });

  test("a failed call shows the committed prefix and marks what is missing", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    model.set({
      status: STATUS.failed,
      stage: LAST,
      stderr: "Failed to write file /w/n/m2.txt\n",
      proposed: {
        "/w/x.txt": { type: "add", content: "hello\n" },
        "/w/m.txt": {
          type: "update",
          unified_diff: "@@ -1,2 +1,2 @@\n-a\n+A\n b\n",
          move_path: "/w/n/m2.txt",
        },
      },
      delta: { changes: [{ type: "add", path: "/w/x.txt", content: "hello\n" }], exact: false },
    });
    await tick();
    const delta = root.byTestId("applypatch-delta");
    const rows = delta.all().filter((e) => e.getAttribute("data-state"));
    assert.deepEqual(
      rows.map((r) => [r.getAttribute("data-path"), r.getAttribute("data-state")]),
      [
        ["/w/x.txt", "committed"],
        ["/w/m.txt", "missing"],
      ],
    );
    assert.match(delta.textContent, /Move.*m\.txt → n\/m2\.txt/);
    assert.match(delta.textContent, /inexact/);
    assert.match(delta.textContent, /✗ not written/);
    assert.match(root.textContent, /stderr.*Failed to write file/s);
    assert.equal(root.byTestId("applypatch-status").textContent, meaning(STATUS.failed).label);
    const stages = root.byTestId("applypatch-stage").byClass("applypatch-stage-failed");
    assert.equal(stages.length, 1);
  });

  test("the diagnosis and the warnings follow their traits", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const dx = root.byTestId("applypatch-diagnosis");
    assert.equal(dx.hidden, true);
    model.set({ warnings: [{ kind: "fuzzy_match", message: "matched only ignoring whitespace", patch_line: 3, line: 2 }] });
    await tick();
    assert.equal(dx.hidden, false);
    assert.equal(root.byTestId("applypatch-dx-warning").getAttribute("data-kind"), "fuzzy_match");
    model.set({ status: STATUS.error, diagnosis: { kind: "missing_file", message: "There is no file `a.py` to update.", path: "a.py", patch_line: 2, where: "patch line 2, a.py" } });
    await tick();
    const failure = root.byTestId("applypatch-dx-diagnosis");
    // where it points is Python's words (Diagnosis.where), shown as they are
    assert.match(failure.textContent, /missing_file.*patch line 2, a\.py.*There is no file/s);
    assert.match(root.byTestId("applypatch-diagnosis").textContent, /why it failed; 1 warning/);
    model.set({ diagnosis: {}, warnings: [] });
    await tick();
    assert.equal(dx.hidden, true);
  });

  test("the explanation shows the closest region with whitespace made visible", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const ex = root.byTestId("applypatch-explanation");
    assert.equal(ex.hidden, true);
    model.set({
      status: STATUS.error,
      delta: { changes: [], exact: true },
      explanation: {
        path: "/w/e.py",
        kind: "lines",
        region_start: 1,
        summary: "closest region starts at line 2: 1 of 2 lines match (1 trim); 1 differ",
        before: ["def f():"],
        after: ["y"],
        pairs: [
          {
            expected: "    return 'hi'",
            actual: '    return "hi"  ',
            line_number: 2,
            pass_name: null,
            expected_segments: [
              [false, "    return "],
              [true, "'"],
              [false, "hi"],
              [true, "'"],
            ],
            actual_segments: [
              [false, "    return "],
              [true, '"'],
              [false, "hi"],
              [true, '"  '],
            ],
          },
          {
            expected: "    x = 1",
            actual: "\tx = 1",
            line_number: 3,
            pass_name: "trim",
            expected_segments: [
              [true, "    "],
              [false, "x = 1"],
            ],
            actual_segments: [
              [true, "\t"],
              [false, "x = 1"],
            ],
          },
          {
            expected: "zzz",
            actual: null,
            absent: "past the end of the file",
            line_number: null,
            pass_name: null,
            expected_segments: [],
            actual_segments: [],
          },
        ],
      },
    });
    await tick();
    assert.equal(ex.hidden, false);
    const text = ex.textContent;
    assert.match(text, /closest region starts at line 2/);
    assert.match(text, /e\.py/);
    assert.match(text, /return "hi"··/);
    assert.match(text, /→x = 1/);
    assert.match(text, /····x = 1/);
    assert.match(text, /trim/);
    assert.match(text, /no match/);
    assert.match(text, /past the end of the file/);
    assert.match(text, /1def f\(\):/); // the line before the region, numbered 1
    assert.match(text, /5y/); // the line after the three pairs, numbered 5
    assert.ok(ex.byClass("applypatch-differs").length >= 4);
    // nothing was verified nor committed: no changes section
    assert.equal(root.byTestId("applypatch-delta").hidden, true);
  });

  test("the timeline shows offsets from the first event", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    model.set({
      events: [
        { type: "patch_apply_updated", time: 10.5, summary: "1 planned change(s)" },
        { type: "patch_apply_end", time: 11.75, summary: "completed" },
      ],
    });
    await tick();
    const events = root.byTestId("applypatch-events");
    assert.match(events.textContent, /\+0\.000s.*patch_apply_updated.*1 planned change\(s\)/);
    assert.match(events.textContent, /\+1\.250s.*patch_apply_end.*completed/);
  });

  test("the stream's sections fold away when the call ends, unless the reader toggled them", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const patch = root.byTestId("applypatch-patch-text");
    const planned = root.byTestId("applypatch-planned");
    assert.equal(patch.getAttribute("open"), "");
    model.set({ status: STATUS.completed, stage: LAST });
    await tick();
    assert.equal(patch.open, false);
    assert.equal(planned.open, false);

    const other = new FakeModel(initialState());
    const second = mount(other);
    const summary = second.root.byTestId("applypatch-patch-text").firstElementChild;
    summary?.click();
    other.set({ status: STATUS.failed, stage: LAST });
    await tick();
    assert.notEqual(second.root.byTestId("applypatch-patch-text").open, false);

    // a view made after the end starts folded
    const done = mount(new FakeModel({ ...initialState(), status: STATUS.completed, stage: LAST }));
    assert.equal(done.root.byTestId("applypatch-patch-text").getAttribute("open"), null);
    // the turn's aggregate is one section, closed in a call's view (its own changes come first)
    assert.equal(done.root.byTestId("applypatch-turn-diff").getAttribute("open"), null);
  });

  test("the TurnDiff is one closed section, built when opened, updated while closed", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const one = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    model.set({ status: STATUS.completed, stage: LAST, turn_diff: one, turn_diff_files: [{ old_path: "x", path: "x", diff: one }] });
    await tick();
    const turn = root.byTestId("applypatch-turn-diff");
    assert.equal(turn.hidden, false);
    assert.equal(turn.getAttribute("open"), null);
    assert.match(turn.textContent, /TurnDiff of the turn 1 file in this turn \(every call so far\)/);
    assert.equal(turn.byClass("applypatch-file").length, 0);
    // a later snapshot of the turn while closed: only the count changes, nothing is built
    const two = one + one.replaceAll("x", "y");
    const blocks = [{ old_path: "x", path: "x", diff: one }, { old_path: "y", path: "y", diff: one.replaceAll("x", "y") }];
    model.set({ turn_diff: two, turn_diff_files: blocks });
    await tick();
    assert.match(turn.textContent, / 2 files in this turn/);
    assert.equal(turn.byClass("applypatch-file").length, 0);
    toggle(turn, true);
    assert.deepEqual(turn.byClass("applypatch-file").map((f) => f.getAttribute("data-path")), ["x", "y"]);
    // open, it follows the next snapshot at once
    model.set({ turn_diff: one, turn_diff_files: [blocks[0]] });
    await tick();
    assert.equal(turn.byClass("applypatch-file").length, 1);
  });

  test("an emptied or invalidated TurnDiff says why instead of vanishing", async () => {
    const model = new FakeModel(initialState());
    const { root } = mount(model);
    const turn = root.byTestId("applypatch-turn-diff");
    assert.equal(turn.hidden, true, "no TurnDiff and nothing to say: hidden");
    const why = "The TurnDiff of this turn is unavailable: a call committed changes (exact=False)";
    model.set({ status: STATUS.failed, stage: LAST, turn_diff: "", turn_diff_files: [], turn_diff_note: why });
    await tick();
    assert.equal(turn.hidden, false);
    assert.ok(turn.textContent.includes(why), turn.textContent);
    assert.equal(turn.byClass("applypatch-file").length, 0);
    const section = turnDiffSection();
    section.update({ diff: "", blocks: [], sources: {}, note: "The TurnDiff of this turn is empty again" });
    assert.equal(section.el.hidden, false);
    assert.match(/** @type {any} */ (section.el).textContent, /empty again/);
    section.update({ diff: "", blocks: [], sources: {} });
    assert.equal(section.el.hidden, true);
  });

  test("cleanup removes every listener", () => {
    const model = new FakeModel(initialState());
    const { cleanup, root } = mount(model);
    assert.ok(model.handlerCount() > 10);
    cleanup();
    assert.equal(model.handlerCount(), 0);
    const approve = root.byTestId("applypatch-approve");
    assert.equal(approve.listeners.get("click")?.length, 0);
  });

  test("dry run and safety", async () => {
    const model = new FakeModel({ ...initialState(), dry_run: true });
    const { root } = mount(model);
    model.set({
      safety: { decision: "auto-approve", reason: null, sandboxed: true },
      status: STATUS.dryRun,
      stage: LAST,
      proposed: { "/w/a": { type: "delete", content: "" } },
      delta: { changes: [], exact: true },
    });
    await tick();
    assert.match(root.textContent, /dry run/);
    // the header says "dry run" once: the status's label, not a badge and a summary besides
    const header = root.byClass("applypatch-header")[0];
    const shown = header.childNodes
      .filter((/** @type {any} */ n) => !n.hidden)
      .map((/** @type {any} */ n) => n.textContent)
      .join(" ");
    assert.equal(shown.match(/dry[ -]run/g)?.length, 1, shown);
    assert.equal(root.byClass("applypatch-badge-dry")[0].hidden, true);
    assert.match(header.textContent, /1 file verified/);
    assert.match(root.textContent, /safety: auto-approvesandboxed/);
    const delta = root.byTestId("applypatch-delta");
    assert.match(delta.textContent, /nothing written/);
    assert.doesNotMatch(delta.textContent, /exact:/);
    const status = root.byTestId("applypatch-status");
    assert.ok(status.className.includes(`applypatch-tone-${meaning(STATUS.dryRun).tone}`), status.className);
    assert.equal(status.getAttribute("data-status"), STATUS.dryRun);
    model.set({ status: "bogus" });
    await tick();
    assert.equal(status.textContent, "bogus");
    assert.ok(status.className.includes("applypatch-status-unknown"));
    assert.ok(status.className.includes(`applypatch-tone-${VOCABULARY.unknown.tone}`));
  });
});

// ------------------------------------------------------------------- the vocabulary Python sends

describe("vocabulary", () => {
  test(`the vocabulary from ${VOCABULARY_SOURCE} is Python's, with a meaning per status`, () => {
    assert.ok(Object.keys(VOCABULARY.statuses).length >= 8, JSON.stringify(VOCABULARY));
    for (const [status, m] of Object.entries(VOCABULARY.statuses)) {
      const read = statusMeaning(VOCABULARY, status);
      assert.equal(read.known, true, status);
      assert.equal(read.label, m.label, status);
      assert.ok(SUMMARY_FORMS.includes(m.summary), `${status}: summary form ${m.summary} is not rendered`);
    }
    assert.ok(STAGES.length >= 2 && STAGES.every((s) => s.label), JSON.stringify(STAGES));
  });

  test("widget.css styles every tone Python sends and names no status or safety decision", () => {
    const css = readFileSync(path.join(REPO, "js", "src", "widget.css"), "utf8");
    const tones = new Set([...Object.values(VOCABULARY.statuses), VOCABULARY.unknown].map((m) => m.tone));
    for (const tone of tones) assert.match(css, new RegExp(`\\.applypatch-tone-${tone}\\b`), tone);
    for (const { tone } of Object.values(VOCABULARY.safety)) {
      assert.match(css, new RegExp(`\\.applypatch-safety-tone-${tone}\\b`), tone);
    }
    for (const decision of Object.keys(VOCABULARY.safety)) {
      assert.doesNotMatch(css, new RegExp(`applypatch-safety-${decision}\\b`), decision);
    }
    for (const status of Object.keys(VOCABULARY.statuses).filter(Boolean)) {
      assert.doesNotMatch(css, new RegExp(`applypatch-status-${status}\\b`), status);
    }
  });

  test("the diff view's CSS takes its colours from the theme only", () => {
    const css = readFileSync(path.join(REPO, "js", "src", "widget.css"), "utf8");
    const view = css.slice(css.indexOf("/* diff view"));
    assert.ok(view.length > 1000, "no diff view section in widget.css");
    const literal = view.match(/#[0-9a-f]{3,8}\b|rgba?\(|hsla?\(|\b(white|black)\b(?!-)/gi);
    assert.equal(literal, null, `fixed colours: ${literal}`);
    for (const cls of "kdbmtasnocphire") assert.ok(view.includes(`.applypatch-hl-${cls} {`), cls);
  });

  test("statusMeaning: an unknown status is shown as itself; no vocabulary, only the contract", () => {
    const odd = statusMeaning(VOCABULARY, "new-status");
    assert.equal(odd.known, false);
    assert.equal(odd.label, "new-status");
    assert.equal(odd.tone, VOCABULARY.unknown.tone);
    assert.equal(odd.terminal, true);
    const none = statusMeaning(undefined, "");
    assert.equal(none.terminal, false);
    assert.equal(none.known, true); // nothing to compare with: not flagged unknown
    assert.equal(statusMeaning(null, "x").terminal, true);
    assert.equal(statusMeaning({ statuses: { x: { tone: "evil class" } } }, "x").tone, "neutral");
  });

  test("stageList and stageLabel", () => {
    const stages = stageList({
      stages: [null, { name: "" }, { name: "a" }, { name: "b", label: "Bee", evidence: "e", writes: true }],
    });
    assert.deepEqual(stages, [
      { name: "a", label: "a", evidence: null, writes: false },
      { name: "b", label: "Bee", evidence: "e", writes: true },
    ]);
    assert.equal(stageLabel(stages, "b"), "Bee");
    assert.equal(stageLabel(stages, ""), "a");
    assert.equal(stageLabel(stages, "zz"), "zz");
    assert.deepEqual(stageList(7), []);
  });

  test("a status renamed in Python renders from its meaning: the view keeps no list", async () => {
    // Python renames `completed` to `finished` and relabels a stage: nothing in the view changes
    const renamed = structuredClone(VOCABULARY);
    renamed.statuses.finished = { ...renamed.statuses[STATUS.completed], label: "finished" };
    delete renamed.statuses[STATUS.completed];
    renamed.stages[0].label = "receiving";
    // @ts-expect-error a fake document with the one method the widget uses
    globalThis.document = { createElement: (tag) => new FakeElement(tag) };
    try {
      const model = new FakeModel({ ...initialState(), vocabulary: renamed });
      const el = new FakeElement("div");
      // @ts-expect-error fakes
      widget.render({ model, el });
      const root = /** @type {FakeElement} */ (el.firstElementChild);
      assert.match(root.byClass("applypatch-summary")[0].textContent, /^receiving…/);
      model.set({ stage: LAST, status: "finished", delta: { changes: [{ type: "add", path: "/w/a" }], exact: true } });
      await tick();
      const status = root.byTestId("applypatch-status");
      assert.equal(status.textContent, "finished");
      assert.ok(status.className.includes(`applypatch-tone-${meaning(STATUS.completed).tone}`));
      assert.ok(!status.className.includes("unknown"));
      assert.equal(root.byTestId("applypatch-stage").byClass("applypatch-stage-failed").length, 0);
      assert.match(root.textContent, /1 file changed/);
      assert.equal(root.byTestId("applypatch-patch-text").open, false); // terminal: folded
    } finally {
      // @ts-expect-error cleanup
      delete globalThis.document;
    }
  });
});

// ------------------------------------------------------------------------- each section alone

describe("sections", () => {
  beforeEach(() => {
    // @ts-expect-error a fake document with the one method the widget uses
    globalThis.document = { createElement: (tag) => new FakeElement(tag) };
  });
  afterEach(() => {
    // @ts-expect-error cleanup
    delete globalThis.document;
  });
  /** @param {any} el @returns {FakeElement} */
  const fake = (el) => el;

  test("DEPENDENTS: a change of every trait a section's state reads re-renders it", () => {
    // traitsRead probes with nothing set; a read behind a condition on a value would be missed,
    // so each state is read again from full states (running, ended, undone, failed)
    const states = [
      initialState(),
      { ...initialState(), status: STATUS.completed, stage: "done", undo: { undone: "undone", last: {} } },
      { ...initialState(), status: STATUS.failed, error: "boom", diagnosis: { kind: "context_not_found", message: "m" } },
    ];
    for (const [name, read] of Object.entries(SECTION_STATE)) {
      const probed = traitsRead(read);
      assert.ok(probed.length > 0, name);
      for (const state of states) {
        /** @type {Set<string>} */
        const traits = new Set();
        read((trait) => {
          traits.add(trait);
          return /** @type {Record<string, unknown>} */ (state)[trait];
        });
        assert.deepEqual([...traits].sort(), [...probed].sort(), `${name} reads a trait behind a condition`);
        for (const trait of traits) {
          const feeds = DEPENDENTS[trait] ?? [];
          assert.ok(feeds.includes(name), `${name} reads ${trait}, but a change of ${trait} does not re-render it`);
        }
      }
    }
    const sections = new Set(Object.values(DEPENDENTS).flat());
    assert.deepEqual([...sections].sort(), Object.keys(SECTION_STATE).sort());
    assert.ok(Object.isFrozen(DEPENDENTS) && Object.isFrozen(DEPENDENTS.cwd));
  });

  test("header: the label and tone of the status, the summary, the working directory", () => {
    const header = headerSection();
    const m = meaning(STATUS.awaiting);
    header.update({ title: "", dryRun: true, status: STATUS.awaiting, meaning: m, summary: "waiting…", cwd: "/w" });
    const el = fake(header.el);
    assert.equal(el.byClass("applypatch-title")[0].textContent, "apply_patch");
    assert.equal(el.byClass("applypatch-badge-dry")[0].hidden, false);
    assert.equal(el.byTestId("applypatch-status").textContent, m.label);
    assert.equal(el.byTestId("applypatch-status").className, `applypatch-status applypatch-tone-${m.tone}`);
    assert.equal(el.byClass("applypatch-summary")[0].textContent, "waiting…");
    assert.equal(fake(header.cwd).textContent, "in /w");
  });

  test("stages: labels from Python, states from the status's meaning", () => {
    const stages = stagesSection();
    stages.update({ stages: STAGES, stage: THIRD, meaning: meaning(STATUS.error), eventTypes: [] });
    const items = fake(stages.el).byClass("applypatch-stage");
    assert.deepEqual(
      items.map((li) => li.textContent),
      STAGES.map((s) => s.label),
    );
    assert.deepEqual(
      items.map((li) => li.className.split("applypatch-stage-")[1]),
      ["done", "done", "failed", ...STAGES.slice(3).map(() => "unreached")],
    );
    assert.equal(items[3].getAttribute("title"), "not reached: the call stopped before");
    assert.equal(stages.el.getAttribute("data-stage"), THIRD);
  });

  test("safety: hidden until decided; decision, sandbox and reason", () => {
    const safety = safetySection();
    const meanings = VOCABULARY.safety;
    safety.update({ safety: {}, meanings });
    assert.equal(safety.el.hidden, true);
    const [decision, m] = Object.entries(meanings).find(([, v]) => v.tone === "waiting") ?? [];
    assert.ok(decision && m, "no safety decision waits for the user");
    safety.update({ safety: { decision, reason: "outside the workspace", sandboxed: false }, meanings });
    assert.equal(safety.el.hidden, false);
    assert.equal(fake(safety.el).textContent, `safety: ${m.label}outside the workspace`);
    assert.equal(fake(safety.el).byClass("applypatch-safety-tone-waiting").length, 1);
    // a decision Python does not know is shown as itself, neutral
    safety.update({ safety: { decision: "new", sandboxed: true }, meanings });
    assert.equal(fake(safety.el).textContent, "safety: newsandboxed");
    assert.equal(fake(safety.el).byClass("applypatch-safety-tone-neutral").length, 1);
  });

  test("approval: a click sends once; the same request keeps the buttons off; dispose", () => {
    /** @type {string[]} */
    const sent = [];
    const approval = approvalSection((d) => sent.push(d), decisionList(VOCABULARY));
    const el = fake(approval.el);
    const request = { files: ["/w/a", "/w/b"], reason: null, retry: false, ...WORDS.two };
    approval.update({ approval: request, cwd: "/w" });
    assert.equal(el.hidden, false);
    assert.ok(el.textContent.startsWith(`${WORDS.two.heading}${WORDS.two.writes}ab`), el.textContent);
    el.byTestId("applypatch-decline").click();
    el.byTestId("applypatch-approve").click();
    assert.deepEqual(sent, ["decline"]);
    approval.update({ approval: { ...request }, cwd: "/w" });
    assert.equal(el.byTestId("applypatch-approve").disabled, true);
    // the same files asked again by another request (its own request_id): a new question
    approval.update({ approval: { ...request, request_id: "c:2" }, cwd: "/w" });
    assert.equal(el.byTestId("applypatch-approve").disabled, false);
    approval.update({ approval: {}, cwd: "/w" });
    assert.equal(el.hidden, true);
    approval.update({ approval: request, cwd: "/w" }); // asked again after it went away
    assert.equal(el.byTestId("applypatch-approve").disabled, false);
    approval.dispose();
    el.byTestId("applypatch-approve").click();
    assert.deepEqual(sent, ["decline"]);
  });

  test("undo: a forced undo's conflict shows Python's labels; a link is named, not unreadable", () => {
    const section = undoSection(() => {}, decisionList(VOCABULARY));
    const el = fake(section.el);
    const place = { index: 1, count: 2, turn_id: "turn-1" };
    const forced = {
      path: "a.txt",
      reason: "a.txt was not as the call left it (it was a symbolic link to precious.txt): --force replaced the link",
      before: { exists: true, content: "a\n" },
      left: { exists: true, content: "A\n" },
      now: null,
      found: "a symbolic link to precious.txt",
      forced: true,
      written: true,
      labels: { before: "before the call (written by the undo)", left: "as the call left it", now: "overwritten by --force" },
    };
    const last = { call_id: "call-2", kind: "undo", status: "completed", conflicts: [forced], approval: {}, choices: [] };
    section.update({ undo: { place, can_undo: false, can_redo: true, last } });
    const block = el.byTestId("applypatch-conflict");
    assert.match(block.textContent, /before the call \(written by the undo\)a\n/);
    assert.match(block.textContent, /overwritten by --force\(a symbolic link to precious\.txt\)$/);
    assert.doesNotMatch(block.textContent, /not readable/);
  });

  test("undo: place, buttons, a click sends once, the conflict's three versions", () => {
    /** @type {Record<string, any>[]} */
    const sent = [];
    const section = undoSection((m) => sent.push(m), decisionList(VOCABULARY));
    const el = fake(section.el);
    section.update({ undo: {} });
    assert.equal(el.hidden, true);
    const place = { index: 2, count: 3, turn_id: "turn-1" };
    section.update({ undo: { place, can_undo: true, can_redo: false, last: {} } });
    assert.equal(el.hidden, false);
    assert.equal(el.byTestId("applypatch-place").textContent, "call 2 of 3 in turn-1");
    const undo = el.byTestId("applypatch-undo");
    assert.equal(undo.hidden, false);
    assert.equal(el.byTestId("applypatch-redo").hidden, true);
    assert.match(undo.getAttribute("aria-label"), /^Undo this call/);
    assert.equal(undo.getAttribute("type"), "button"); // a real button: Enter and Space press it
    undo.click();
    undo.click(); // disabled until the kernel answers
    assert.deepEqual(sent, [{ type: "undo", kind: "undo" }]);
    assert.equal(undo.disabled, true);
    assert.match(el.textContent, /Undo: sent/);

    const conflict = {
      path: "b.txt",
      reason: "b.txt is not as the call left it: now 9 bytes",
      before: { exists: true, content: "b\n" },
      left: { exists: true, content: "B\n" },
      now: { exists: true, content: "B\nmine\n" },
    };
    const force = { type: "undo", kind: "undo", force: true };
    const choices = [{ label: "Overwrite the changed files (force)", message: force }];
    const last = { call_id: "call-3", kind: "undo", status: "error", error: "conflict", conflicts: [conflict], approval: {}, choices };
    section.update({ undo: { place, can_undo: true, can_redo: false, last } });
    assert.equal(undo.disabled, false);
    const [block] = el.byTestId("applypatch-conflict") ? [el.byTestId("applypatch-conflict")] : [];
    assert.ok(block);
    assert.match(block.textContent, /b\.txt: b\.txt is not as the call left it/);
    assert.match(block.textContent, /before the callb\nas the call left itB\nnowB\nmine\n$/);
    // the ways on Python offers: each a button sending its message
    const [way] = el.byClass("applypatch-button-undo-choice");
    assert.equal(way.textContent, "Overwrite the changed files (force)");
    way.click();
    assert.deepEqual(sent.at(-1), force);
    assert.equal(undo.disabled, true);
    sent.pop();

    // an undo waiting for approval: its own buttons; after it completed, Redo
    const waiting = { ...last, status: "awaiting-approval", conflicts: [], choices: [], approval: { files: ["/w/out.txt"], ...WORDS.one } };
    section.update({ undo: { place, can_undo: true, can_redo: false, last: waiting } });
    assert.ok(el.textContent.includes(`${WORDS.one.writes} /w/out.txt`), el.textContent);
    assert.deepEqual(
      el.byClass("applypatch-button").filter((b) => !b.getAttribute("data-testid")?.endsWith("do")).length,
      decisionList(VOCABULARY).length,
    );
    el.byTestId("applypatch-undo-approve").click();
    assert.deepEqual(sent.at(-1), { type: "undo-approval", decision: "approve" });
    section.update({ undo: { place, can_undo: false, can_redo: true, last: { ...last, status: "completed", conflicts: [], error: "" } } });
    assert.equal(el.byTestId("applypatch-undo").hidden, true);
    el.byTestId("applypatch-redo").click();
    assert.deepEqual(sent.at(-1), { type: "undo", kind: "redo" });
    section.dispose();
    el.byTestId("applypatch-redo").click();
    assert.equal(sent.length, 3);
    assert.equal(el.byTestId("applypatch-undo").getAttribute("aria-label").length > 0, true);
  });

  test("undo: place of an undo's own view; versions absent, unreadable, long", () => {
    assert.equal(placeText({ place: { index: 4, count: 4 }, of: "call-1", kind: "redo" }), "call 4 of 4 · redo of call-1");
    assert.equal(placeText({}), "");
    assert.equal(versionText(null), "(not readable as a text file)");
    assert.equal(versionText({ exists: false }), "(absent)");
    assert.equal(versionText({ exists: true, content: "" }), "(empty)");
    const long = versionText({ exists: true, content: "x\n".repeat(LIMITS.rows + 5) });
    assert.match(long, /more lines$/);
  });

  /** A review as Python sends it (review.review_files, on tests/jupyter/js_samples.py's
   * patch): an Update of 3 chunks (the second a fuzzy match), an added file. */
  const REVIEW = SAMPLES.review;

  test("reviewAccept: true, false or the chunks kept, per path", () => {
    const files = REVIEW.files;
    assert.deepEqual(
      reviewAccept(files, () => true),
      { "a.txt": true, "b.txt": true },
    );
    assert.deepEqual(
      reviewAccept(files, (f, c) => f === 0 && c !== 1),
      { "a.txt": [0, 2], "b.txt": false },
    );
    assert.deepEqual(
      reviewAccept(files, (f) => f === 1),
      { "a.txt": false, "b.txt": true },
    );
  });

  test("tickState: what the approving buttons say for the ticks", () => {
    assert.deepEqual(tickState(null), { partial: false, none: false, suffix: "", hint: "" });
    assert.deepEqual(tickState({ kept: 4, total: 4, left: [] }).partial, false);
    const some = tickState({ kept: 1, total: 12, left: [...Array(11).keys()].map((i) => `f${i}`) });
    assert.equal(some.suffix, " (1 of 12)");
    assert.equal(some.hint, "Approving applies the ticked 1 of 12 only; not applied: f0, f1, f2, f3, f4, f5, f6, f7 and 3 more");
    const none = tickState({ kept: 0, total: 2, left: ["a", "b"] });
    assert.equal(none.none, true);
    assert.match(none.hint, /^Nothing is ticked/);
  });

  test("decisionList: each approving answer has the words it says for a selection", () => {
    const decisions = decisionList(VOCABULARY);
    const approving = decisions.filter((d) => d.approves);
    assert.ok(approving.length >= 2);
    for (const d of approving) assert.ok(d.selectedLabel.startsWith(`${d.label.split(" ")[0]} selected`), d.selectedLabel);
    for (const d of decisions.filter((x) => !x.approves)) assert.equal(d.selectedLabel, "");
  });

  test("safety: an auto-approve that --review asks about says so", () => {
    const safety = safetySection();
    const meanings = VOCABULARY.safety;
    const review = VOCABULARY.safety_review;
    const [auto] = Object.keys(meanings).filter((k) => meanings[k].tone === "ok");
    safety.update({ safety: { decision: auto, sandboxed: true, review: true }, meanings, review });
    const el = fake(safety.el);
    const badge = el.byTestId("applypatch-safety-review");
    assert.equal(badge.textContent, review.label);
    assert.match(badge.className, new RegExp(`applypatch-safety-tone-${review.tone}`));
    assert.match(el.textContent, new RegExp(`${review.label}${review.reason}$`));
    safety.update({ safety: { decision: auto, sandboxed: true }, meanings, review });
    assert.equal(fake(safety.el).find((e) => e.getAttribute("data-testid") === "applypatch-safety-review"), null);
  });

  test("versionText: a version Python cut says how many lines it left out", () => {
    assert.equal(versionText({ exists: true, content: "a\nb\n", more_lines: 7 }), "a\nb\n… 7 more lines");
    assert.equal(versionText({ exists: true, content: "a\nb" }), "a\nb");
  });

  test("review: a labelled toggle per file and chunk, diffs beside them, fuzzy marks", () => {
    /** @type {any[]} */
    const sent = [];
    const approval = approvalSection((d, extra) => sent.push([d, extra]), decisionList(VOCABULARY));
    const el = fake(approval.el);
    const request = { files: ["/w/a.txt", "/w/b.txt"], reason: null, retry: false };
    approval.update({ approval: request, cwd: "/w", review: { ...REVIEW, patch: "p" } });
    const review = el.byTestId("applypatch-review");
    assert.equal(review.getAttribute("role"), "group");
    const file = el.byTestId("applypatch-review-file-0");
    const chunks = [0, 1, 2].map((k) => el.byTestId(`applypatch-review-chunk-0-${k}`));
    const added = el.byTestId("applypatch-review-file-1");
    for (const box of [file, ...chunks, added]) {
      assert.equal(box.getAttribute("type"), "checkbox");
      assert.equal(box.checked, true); // all selected by default
      assert.equal(box.disabled, false);
    }
    // each toggle is labelled in exactly Python's words (its label, the one every view shows)
    const [a, b] = REVIEW.files;
    const labelled = [[file, a], ...chunks.map((c, k) => [c, a.chunks[k]]), [added, b]];
    for (const [box, entry] of labelled) assert.equal(box.getAttribute("aria-label"), entry.label);
    assert.deepEqual(
      el.byClass("applypatch-review-toggle").map((t) => t.textContent), // each <label>: box and words
      labelled.map(([, entry]) => entry.label),
    );
    assert.equal(chunks[1].getAttribute("aria-label"), "a.txt chunk 2 of 3, line 4");
    // the chunk's diff beside its toggle
    assert.match(review.textContent, /a\.txt chunk 2 of 3, line 4.*@@ four-five\+FIVE/s);
    // only the fuzzy chunk is marked, with the file's line beside the patch's
    const fuzzy = el.byTestId("applypatch-review-fuzzy");
    assert.equal(fuzzy.getAttribute("data-pass"), "rstrip");
    assert.equal(el.byClass("applypatch-review-fuzzy").length, 1);
    assert.equal(a.chunks[1].note, "matched by the rstrip pass: the file's text differs from the patch's");
    assert.ok(fuzzy.textContent.startsWith(a.chunks[1].note), fuzzy.textContent); // Python's words
    assert.match(fuzzy.textContent, /patchfour.*filefour··/s);
    // toggles: a chunk off makes its file "mixed"; the approving buttons follow the ticks and
    // say so, with what is left out in the model's words
    const approve = el.byTestId("applypatch-approve");
    const session = el.byTestId("applypatch-approve-session");
    const ticks = el.byTestId("applypatch-ticks-note");
    assert.equal(approve.textContent, "Approve");
    assert.equal(ticks.hidden, true);
    chunks[1].toggle();
    assert.equal(file.checked, true);
    assert.equal(file.indeterminate, true);
    assert.equal(approve.textContent, "Approve selected (3 of 4)");
    assert.equal(session.textContent, "Approve selected for session (3 of 4)");
    assert.equal(el.byTestId("applypatch-decline").textContent, "Decline");
    assert.equal(ticks.hidden, false);
    assert.equal(ticks.textContent, `Approving applies the ticked 3 of 4 only; not applied: ${a.chunks[1].name}`);
    assert.equal(a.chunks[1].name, "a.txt chunk 2 of 3"); // as the model reads it (review.not_applied)
    assert.equal(el.byClass("applypatch-button-selected").length, 0); // no second button to miss
    added.toggle();
    assert.match(ticks.textContent, /2 of 4 only; not applied: a\.txt chunk 2 of 3, b\.txt$/);
    approve.click();
    assert.deepEqual(sent, [["approve", { accept: { "a.txt": [0, 2], "b.txt": false } }]]);
    assert.equal(approve.disabled, true);
    assert.match(el.textContent, /Approve selected \(2 of 4\): sent/);
    // a new request: all ticked again; Approve for session follows the ticks too
    approval.update({ approval: request, cwd: "/w", review: { ...REVIEW, patch: "q" } });
    assert.equal(approve.textContent, "Approve");
    assert.equal(approve.disabled, false);
    const file2 = el.byTestId("applypatch-review-file-0");
    file2.toggle();
    assert.deepEqual(
      [0, 1, 2].map((k) => el.byTestId(`applypatch-review-chunk-0-${k}`).checked),
      [false, false, false],
    );
    assert.match(ticks.textContent, /not applied: a\.txt$/);
    el.byTestId("applypatch-approve-session").click();
    assert.deepEqual(sent.at(-1), ["approve-for-session", { accept: { "a.txt": false, "b.txt": true } }]);
    // nothing ticked: no approval can be sent, Decline can
    approval.update({ approval: request, cwd: "/w", review: { ...REVIEW, patch: "r" } });
    el.byTestId("applypatch-review-file-0").toggle();
    el.byTestId("applypatch-review-file-1").toggle();
    assert.equal(approve.disabled, true);
    assert.equal(session.disabled, true);
    assert.equal(el.byTestId("applypatch-decline").disabled, false);
    assert.equal(ticks.textContent, "Nothing is ticked: tick what to apply, or Decline the whole patch.");
    approve.click();
    assert.equal(sent.length, 2);
    // ticked again, everything: the plain approval, no accept
    el.byTestId("applypatch-review-file-0").toggle();
    el.byTestId("applypatch-review-file-1").toggle();
    assert.equal(approve.textContent, "Approve");
    assert.equal(ticks.hidden, true);
    approve.click();
    assert.deepEqual(sent.at(-1), ["approve", {}]);
    approval.dispose();
  });

  test("review: a request that cannot be answered with a selection shows no toggles to change", () => {
    const approval = approvalSection(() => {}, decisionList(VOCABULARY));
    const el = fake(approval.el);
    const request = { files: ["/w/a.txt"], reason: "the selected hunks only", retry: false };
    approval.update({ approval: request, cwd: "/w", review: { ...REVIEW, selectable: false, patch: "p" } });
    assert.equal(el.byTestId("applypatch-review-chunk-0-0").disabled, true);
    assert.equal(el.byTestId("applypatch-approve").textContent, "Approve"); // answered whole
    assert.equal(el.byTestId("applypatch-ticks-note").hidden, true);
    assert.match(el.textContent, /the selected hunks only/);
    // the selection's own patch text is shown, open: it is not the text the cell streamed
    const asked = el.byTestId("applypatch-approval-patch");
    assert.equal(asked.getAttribute("open"), "");
    assert.match(asked.textContent, /the patch text asked forp/);
    // a selection the kernel refused: the note says why
    approval.update({
      approval: request,
      cwd: "/w",
      review: { ...REVIEW, selectable: false, patch: "p", error: "accept: 'x' is not a path" },
    });
    assert.match(el.textContent, /Not sent: accept: 'x' is not a path/);
    assert.equal(el.byTestId("applypatch-approve").disabled, false); // it can be answered again
  });

  test("decline: the reason box beside Decline sends its text, trimmed; empty sends none", () => {
    /** @type {any[]} */
    const sent = [];
    const approval = approvalSection((d, extra) => sent.push([d, extra]), decisionList(VOCABULARY));
    const el = fake(approval.el);
    const box = el.byTestId("applypatch-reason-input");
    assert.equal(box.getAttribute("type"), "text");
    assert.equal(box.getAttribute("aria-label"), "Why you decline (told to the model)");
    // it sits right after the Decline button
    const row = el.byClass("applypatch-buttons")[0].childNodes;
    const decline = el.byTestId("applypatch-decline");
    assert.equal(row[row.indexOf(decline) + 1], box);
    const request = { files: ["/w/a"], reason: null, retry: false };
    approval.update({ approval: request, cwd: "/w" });
    box.value = "  use a constant instead  ";
    decline.click();
    assert.deepEqual(sent, [["decline", { reason: "use a constant instead" }]]);
    assert.equal(box.disabled, true);
    approval.update({ approval: { ...request, files: ["/w/b"] }, cwd: "/w" });
    box.value = "   ";
    el.byTestId("applypatch-decline").click();
    assert.deepEqual(sent.at(-1), ["decline", {}]);
    // approving never sends the reason
    approval.update({ approval: { ...request, files: ["/w/c"] }, cwd: "/w" });
    box.value = "ignored";
    el.byTestId("applypatch-approve").click();
    assert.deepEqual(sent.at(-1), ["approve", {}]);
  });

  test("result: error, stdout, stderr; the output only once the call has a status", () => {
    const result = resultSection();
    const state = { error: "", stdout: "", stderr: "", output: "Exit code: 0", hasStatus: false };
    result.update(state);
    assert.equal(result.el.hidden, true);
    result.update({ ...state, error: "boom", stderr: "err\n", hasStatus: true });
    const text = fake(result.el).textContent;
    assert.equal(text, "error: boomstderrerr\noutput sent to the modelExit code: 0");
  });

  test("diagnosis: entries in Python's roles, the kind's meaning and where from Python, unknown kinds kept", () => {
    const traits = {
      diagnosis: {
        kind: "context_not_found",
        message: "The closest region of a.py starts at line 5.",
        path: "src/a.py",
        patch_line: 4,
        line: 5,
        line_absent: null,
        suggestion: null,
        where: "patch line 4, src/a.py line 5",
      },
      warnings: [
        { kind: "appended_at_end", message: "went to the end", path: "b.py", patch_line: 3, line: 1, suggestion: "@@\n def f():\n+x", where: "patch line 3, b.py line 1" },
        { kind: "a_kind_from_the_future", message: "m" },
        { message: "no kind: dropped" },
        null,
      ],
    };
    const entries = diagnosisEntries(traits, VOCABULARY);
    const roles = VOCABULARY.atlas.roles;
    assert.deepEqual(
      entries.map((e) => [e.role, e.label, e.tone, e.kind, e.known, e.where]),
      [
        ["diagnosis", roles.diagnosis.label, roles.diagnosis.tone, "context_not_found", true, "patch line 4, src/a.py line 5"],
        ["warning", roles.warning.label, roles.warning.tone, "appended_at_end", true, "patch line 3, b.py line 1"],
        ["warning", roles.warning.label, roles.warning.tone, "a_kind_from_the_future", false, ""],
      ],
    );
    // the meaning is the vocabulary's, which is Python's table (core/diagnosis.py)
    assert.equal(entries[0].meaning, VOCABULARY.diagnoses.context_not_found.meaning);
    assert.match(entries[0].meaning, /closest region starts/);
    assert.equal(entries[2].meaning, "");
    assert.equal(entries[1].note, VOCABULARY.atlas.suggestion_note);
    assert.deepEqual(diagnosisEntries({ diagnosis: {}, warnings: [] }, VOCABULARY), []);
    assert.deepEqual(diagnosisEntries({ diagnosis: "x", warnings: { a: 1 } }, VOCABULARY), []);
    assert.deepEqual(diagnosisEntries(traits, 5), []);
    // the roles are Python's, in its order; a role without its trait is dropped
    assert.deepEqual(atlasWords(VOCABULARY).roles.map((r) => [r.role, r.trait, r.many]), [
      ["diagnosis", "diagnosis", false],
      ["warning", "warnings", true],
    ]);
    assert.deepEqual(atlasWords({ atlas: { roles: { x: { label: "x" } } } }).roles, []);
  });

  test("diagnosis: the section draws each entry, its meaning, the suggestion with a Copy button", () => {
    const section = diagnosisSection();
    const roles = atlasWords(VOCABULARY).roles;
    section.update({ entries: [], roles });
    assert.equal(section.el.hidden, true);
    const traits = {
      diagnosis: { kind: "partial_anchor", message: "`g` is only part of line 5.", path: "a.py", patch_line: 3, line: 6, suggestion: "@@ def g():\n-    return 2", where: "patch line 3, a.py line 6" },
      warnings: [{ kind: "ambiguous_match", message: "again at line 4", patch_line: 3, line: 2, where: "patch line 3" }],
    };
    const entries = diagnosisEntries(traits, VOCABULARY);
    section.update({ entries, roles });
    const el = fake(section.el);
    assert.equal(section.el.hidden, false);
    assert.match(el.textContent, new RegExp(`${VOCABULARY.atlas.roles.diagnosis.note}; 1 warning`));
    assert.equal(diagnosisNote([entries[1], entries[1]], roles), " 2 warnings");
    const failure = el.byTestId("applypatch-dx-diagnosis");
    assert.equal(failure.getAttribute("data-kind"), "partial_anchor");
    assert.match(failure.className, new RegExp(`applypatch-dx-tone-${VOCABULARY.atlas.roles.diagnosis.tone}`));
    assert.match(failure.textContent, /^diagnosispartial_anchor/);
    assert.match(failure.textContent, /patch line 3, a\.py line 6/);
    assert.equal(failure.byClass("applypatch-dx-kind")[0].getAttribute("title"), VOCABULARY.diagnoses.partial_anchor.meaning);
    const suggestion = failure.byTestId("applypatch-dx-suggestion");
    assert.ok(suggestion.textContent.startsWith(`${VOCABULARY.atlas.suggestion_note}: Copy`), suggestion.textContent);
    assert.equal(suggestion.byClass("applypatch-dx-text")[0].textContent, "@@ def g():\n-    return 2");
    const warning = el.byTestId("applypatch-dx-warning");
    assert.equal(warning.getAttribute("data-kind"), "ambiguous_match");
    assert.match(warning.className, new RegExp(`applypatch-dx-tone-${VOCABULARY.atlas.roles.warning.tone}`));
    assert.equal(warning.byClass("applypatch-dx-suggestion").length, 0);
    // no clipboard in node: the copy says so instead of throwing
    suggestion.byTestId("applypatch-dx-copy").click();
    assert.match(suggestion.textContent, /cannot copy: the clipboard is not available/);
    // an entry never shows "null" or "undefined"
    const bare = fake(diagnosisEntry({ role: "warning", label: "warning", tone: "waiting", kind: "fuzzy_match", meaning: "", known: true, where: "", message: "", suggestion: "", note: "" }));
    assert.doesNotMatch(bare.textContent, /null|undefined/);
  });

  test("explanation: a pair row shows the pass, the differing characters, why no file line", () => {
    const pair = {
      expected: "a\t",
      actual: null,
      line_number: 7,
      pass_name: null,
      expected_segments: [[true, "a\t"]],
      actual_segments: [],
    };
    const row = fake(explanationPairRow({ ...pair, absent: "past the end of the file" }));
    assert.equal(row.className, "applypatch-ex-pair applypatch-ex-nomatch");
    assert.equal(row.textContent, "7no matcha→(past the end of the file)");
    // nothing close in a non-empty file is not "past the end": the reason is Python's
    const none = fake(explanationPairRow({ ...pair, line_number: null, absent: "no similar line in the file" }));
    assert.equal(none.textContent, "no matcha→(no similar line in the file)");
    assert.equal(fake(explanationPairRow(pair)).textContent, "7no matcha→(no line)");
    const section = explanationSection();
    section.update({ explanation: {}, cwd: "/w" });
    assert.equal(section.el.hidden, true);
    section.update({ explanation: { summary: "s", path: "/w/f.py", pairs: [], before: ["x"] }, cwd: "/w" });
    assert.equal(section.el.hidden, false);
    assert.match(fake(section.el).textContent, /f\.py.*s.*line.*x/s);
  });

  test("explanation: a long line is shown whole, wrapping in its cell, the table in a scroll box", () => {
    const long = `config = dict(${Array.from({ length: 120 }, (_, i) => `key_${i}=${i}`).join(", ")})`;
    const section = explanationSection();
    const pair = { expected: long, actual: `${long} `, line_number: 3, pass_name: "rstrip" };
    section.update({ explanation: { summary: "s", path: "/w/f.py", pairs: [pair] }, cwd: "/w" });
    const el = fake(section.el);
    const scroll = el.byClass("applypatch-ex-scroll")[0];
    assert.ok(scroll.byClass("applypatch-ex").length === 1, "the table is inside the scroll box");
    const [expected] = el.byClass("applypatch-ex-expected").filter((c) => c.textContent);
    assert.equal(expected.textContent, long.replaceAll(" ", " "), "every character of the line");
    assert.ok(el.byClass("applypatch-ex-actual").some((c) => c.textContent.startsWith(long.slice(0, 40))));
    const css = readFileSync(path.join(REPO, "js", "src", "widget.css"), "utf8");
    const rule = css.slice(css.indexOf(".applypatch-ex td.applypatch-ex-expected"));
    assert.match(rule.slice(0, rule.indexOf("}")), /white-space: pre-wrap;[^}]*overflow-wrap: anywhere/);
    assert.match(css, /\.applypatch-ex-scroll \{[^}]*overflow-x: auto/);
  });

  test("patch: numbered lines, the streamed one highlighted, the note", () => {
    const patch = patchSection(true);
    patch.update({ text: "a\nb\nc\n", current: 2, truncated: true });
    const el = fake(patch.el);
    assert.deepEqual(
      el.byClass("applypatch-line").map((l) => l.textContent),
      ["1a", "2b", "3c"],
    );
    assert.equal(el.byClass("applypatch-current")[0].getAttribute("data-line"), "2");
    assert.match(el.textContent, /3 lines, streaming…, cut for display/);
    assert.equal(el.getAttribute("open"), "");
    assert.equal(fake(patchSection(false).el).getAttribute("open"), null);
  });

  test("planned: one row per planned change, relative paths", () => {
    const planned = plannedSection(true);
    const words = previewWords(VOCABULARY, false);
    planned.update({ planned: {}, cwd: "/w", words });
    assert.equal(planned.el.hidden, true);
    planned.update({ planned: { "/w/a.txt": { type: "add", content: "x\n" }, "b.txt": { type: "delete" } }, cwd: "/w", words });
    const el = fake(planned.el);
    assert.equal(el.hidden, false);
    assert.deepEqual(
      el.byClass("applypatch-change").map((r) => r.getAttribute("data-path")),
      ["/w/a.txt", "b.txt"],
    );
    assert.match(el.textContent, / 2 files: planned, nothing written yet/);
    assert.match(el.textContent, /Adda\.txt/);
    // the call has ended (issue 23 item 10): the preview no longer says "yet"
    const ended = previewWords(VOCABULARY, true);
    planned.update({ planned: { "/w/a.txt": { type: "add", content: "x\n" } }, cwd: "/w", words: ended });
    assert.doesNotMatch(el.textContent, /yet/);
    assert.match(el.textContent, / 1 file: planned from the streamed text/);
    assert.match(el.textContent, /before the call read or wrote anything/);
    assert.equal(el.byClass("applypatch-badge-preview")[0].getAttribute("title"), ended.title);
  });

  test("the header shows an undone call as undone, in the vocabulary's words", () => {
    const completed = statusMeaning(VOCABULARY, "completed");
    assert.deepEqual(undoneMeaning(VOCABULARY, "", completed), completed);
    const undone = undoneMeaning(VOCABULARY, "undone", completed);
    assert.equal(undone.label, "undone");
    assert.equal(undone.terminal, true); // the rest of the status's meaning stays
    assert.equal(undoneMeaning(VOCABULARY, "partly undone", completed).label, "partly undone");
    assert.deepEqual(undoneMeaning(VOCABULARY, "bogus", completed), completed);
    const get = (/** @type {string} */ name) => ({ vocabulary: VOCABULARY, status: "completed", undo: { undone: "undone" } })[name];
    const state = SECTION_STATE.header(get);
    assert.equal(state.status, "completed");
    assert.equal(state.meaning.label, "undone");
    assert.ok(DEPENDENTS.undo.includes("header"));
  });

  test("planned: a streamed update keeps the blocks of the files that did not change", () => {
    const planned = plannedSection(true);
    const words = previewWords(VOCABULARY, false);
    const a = { type: "add", content: "x\ny\n" };
    planned.update({ planned: { "/w/a.txt": a }, cwd: "/w", words });
    const el = fake(planned.el);
    const [first] = el.byClass("applypatch-change");
    // the next preview: a.txt the same (a new object, as every comm message makes), b.txt new
    planned.update({ planned: { "/w/a.txt": { ...a }, "/w/b.txt": { type: "add", content: "z\n" } }, cwd: "/w", words });
    const blocks = el.byClass("applypatch-change");
    assert.equal(blocks.length, 2);
    assert.equal(blocks[0], first);
    // a.txt grew: its block is made again, with the new line
    planned.update({ planned: { "/w/a.txt": { type: "add", content: "x\ny\nw\n" } }, cwd: "/w", words });
    const [grown] = el.byClass("applypatch-change");
    assert.notEqual(grown, first);
    assert.match(grown.textContent, /\+3/);
  });

  test("a call stopped before writing (a refused notebook) says nothing was written, no 'exact'", () => {
    const changes = changesSection();
    changes.update({
      proposed: { "/w/nb.ipynb": { type: "update", unified_diff: "@@ -1 +1 @@\n-a\n+b\n", move_path: null } },
      delta: { changes: [], exact: true },
      meaning: meaning(STATUS.stopped),
      cwd: "/w",
      sources: {},
    });
    const el = fake(changes.el);
    assert.doesNotMatch(el.textContent, /not as verified/);
    assert.doesNotMatch(el.textContent, /exact: the committed changes are complete/);
    assert.match(el.textContent, / 1 verified, 0 committed/);
    assert.match(el.textContent, /– nothing written/);
  });

  test("a long Add's rows are made only when its file is opened", () => {
    const content = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const changes = changesSection();
    changes.update({
      proposed: { "/w/big.txt": { type: "add", content } },
      delta: { changes: [], exact: true },
      meaning: meaning(STATUS.running),
      cwd: "/w",
      sources: {},
    });
    const el = fake(changes.el);
    const [file] = el.byClass("applypatch-change");
    assert.match(file.textContent, /\+5000 -0/);
    assert.equal(file.getAttribute("open"), null); // long: it waits for the reader
    assert.equal(el.byClass("applypatch-dl").length, 0); // no row made
  });

  test("an off-screen file counts as tall as its open rows (content-visibility), closed as a line", () => {
    const content = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    const changes = changesSection();
    changes.update({
      proposed: {
        "/w/short.txt": { type: "add", content: "a\nb\nc\n" },
        "/w/big.txt": { type: "add", content },
      },
      delta: { changes: [], exact: true },
      meaning: meaning(STATUS.running),
      cwd: "/w",
      sources: {},
    });
    const el = fake(changes.el);
    const [short, big] = el.byClass("applypatch-change");
    const size = (/** @type {any} */ f) => f.style.getPropertyValue("contain-intrinsic-size");
    assert.equal(short.getAttribute("open"), ""); // short: open, 3 rows of 1.5em
    assert.equal(size(short), "auto calc(1.6em + 4.5em)");
    assert.equal(big.getAttribute("open"), null); // long: closed, its summary line only
    assert.equal(size(big), "auto calc(1.6em + 0em)");
    // opened by the reader: as tall as the table's max-height (36em), not 5,000 rows
    big.setAttribute("open", "");
    for (const fn of big.listeners.get("toggle") ?? []) fn({ type: "toggle" });
    assert.equal(size(big), "auto calc(1.6em + 36em)");
  });

  test("a text cut for the view counts every line and says what was cut", () => {
    const changes = changesSection();
    changes.update({
      proposed: { "/w/big.txt": { type: "add", content: "a\nb\n", cut_lines: 7 } },
      delta: { changes: [], exact: true },
      meaning: meaning(STATUS.running),
      cwd: "/w",
      sources: {},
    });
    const el = fake(changes.el);
    const [file] = el.byClass("applypatch-change");
    assert.match(file.textContent, /\+9 -0/);
    assert.equal(el.byClass("applypatch-dl-add").length, 2);
    assert.match(el.byClass("applypatch-cut")[0].textContent, /✂ … 7 more lines not sent to the view, cut for size/);
    const [turn] = splitTurnDiff("@@ -0,0 +1 @@\n+a\n", [{ path: "t", diff: "@@ -0,0 +1 @@\n+a\n", cut_lines: 3 }]);
    assert.equal(turn.cut, 3);
  });

  test("changes: the exact line only once the call has ended, and not for a dry run", () => {
    const changes = changesSection();
    const state = {
      proposed: { "/w/a": { type: "add" } },
      delta: { changes: [{ type: "add", path: "/w/a" }], exact: true },
    };
    changes.update({ ...state, meaning: meaning(STATUS.running), cwd: "/w" });
    const el = fake(changes.el);
    assert.equal(el.byClass("applypatch-exact").length, 0);
    changes.update({ ...state, meaning: meaning(STATUS.completed), cwd: "/w" });
    assert.equal(el.byClass("applypatch-exact").length, 1);
    assert.match(el.textContent, / 1 verified, 1 committed/);
    changes.update({ ...state, meaning: meaning(STATUS.dryRun), cwd: "/w" });
    assert.equal(el.byClass("applypatch-exact").length, 0);
  });

  test("TurnDiff and timeline", () => {
    const turn = turnDiffSection();
    turn.update({ diff: "", blocks: [] });
    assert.equal(turn.el.hidden, true);
    const diff = "diff --git a/x b/x\n@@ -1 +1 @@\n-a\n+b\n";
    turn.update({ diff, blocks: [{ old_path: "x", path: "x", diff }], sources: {} });
    assert.match(fake(turn.el).textContent, / 1 file in this turn.*Copy patch.*x \+1 -1/);
    const events = eventsSection();
    events.update({ events: [{ type: "a", time: 1, summary: "first" }, { type: "b", time: 1.5 }] });
    assert.equal(fake(events.el).byClass("applypatch-time").map((t) => t.textContent).join(" "), "+0.000s +0.500s");
    assert.match(fake(events.el).textContent, / 2 events/);
  });
});

// ------------------------------------------------------------------------------- the diff view

describe("diff view helpers", () => {
  const rowsOf = (/** @type {string} */ text, n = 0) => diffRows(classifyDiffLines(text), n);

  test("diffRows: numbers from @@, headers, gaps between hunks and after the last", () => {
    const rows = rowsOf(
      "diff --git a/x b/x\nindex 1..2 100644\n@@ -3,2 +3,3 @@\n a\n-b\n+B\n+C\n@@ -10 +11 @@\n-z\n+Z\n\\ No newline at end of file\n",
      20,
    );
    assert.deepEqual(
      rows.map((r) => r.type),
      ["header", "header", "gap", "hunk", "line", "line", "line", "line", "gap", "hunk", "line", "line", "meta", "gap"],
    );
    assert.deepEqual(rows[2], { type: "gap", from: 1, to: 2, offset: 0 });
    const lines = rows.filter((r) => r.type === "line").map((r) => /** @type {any} */ (r));
    assert.deepEqual(
      lines.map((l) => [l.kind, l.old, l.new, l.text]),
      [
        ["context", 3, 3, "a"],
        ["del", 4, null, "b"],
        ["add", null, 4, "B"],
        ["add", null, 5, "C"],
        ["del", 10, null, "z"],
        ["add", null, 11, "Z"],
      ],
    );
    // between the hunks: new lines 6..10, whose old numbers are one less
    assert.deepEqual(rows[8], { type: "gap", from: 6, to: 10, offset: -1 });
    assert.deepEqual(rows.at(-1), { type: "gap", from: 12, to: 20, offset: -1 });
  });

  test("diffRows: a progress diff has no numbers and no gaps; an empty side", () => {
    const rows = rowsOf("@@ def f():\n-    return 1\n+    return 2\n");
    assert.deepEqual(
      rows.map((r) => (r.type === "line" ? [r.kind, r.old, r.new] : r.type)),
      ["hunk", ["del", null, null], ["add", null, null]],
    );
    const added = rowsOf("@@ -0,0 +1,2 @@\n+a\n+b\n");
    assert.deepEqual(
      added.filter((r) => r.type === "line").map((r) => /** @type {any} */ (r).new),
      [1, 2],
    );
  });

  test("wordSegments: the changed words of a pair; null for a rewrite or a huge line", () => {
    assert.deepEqual(wordSegments("return x + 1", "return x + 2"), [
      [
        [false, "return x + "],
        [true, "1"],
      ],
      [
        [false, "return x + "],
        [true, "2"],
      ],
    ]);
    assert.deepEqual(wordSegments("a(b)", "a(b, c)")?.[1], [
      [false, "a(b"],
      [true, ", c"],
      [false, ")"],
    ]);
    assert.equal(wordSegments("completely different", "nothing in common here"), null);
    const long = Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ");
    assert.equal(wordSegments(long, long + " x"), null);
  });

  test("pairWords pairs each removed line with the added line in its place", () => {
    const rows = pairWords(diffRows(classifyDiffLines("@@ -1,3 +1,3 @@\n-one = 1\n-two = 2\n+one = 10\n+two = 20\n same\n")));
    const words = rows.filter((r) => r.type === "line").map((r) => /** @type {any} */ (r).words);
    assert.deepEqual(words[0], [
      [false, "one = "],
      [true, "1"],
    ]);
    assert.deepEqual(words[3], [
      [false, "two = "],
      [true, "20"],
    ]);
    assert.equal(words[4], undefined); // context is not paired
  });

  test("sourceLines and lineRuns: syntax runs, word marks laid over them, bad input ignored", () => {
    const map = sourceLines([[5, ["plain", [["k", "def"], ["", " "], ["d", "f"]]]], "junk", [null, []]]);
    assert.deepEqual([...map.keys()], [5, 6]);
    assert.deepEqual(lineRuns("def f", map.get(6)), [
      { cls: "k", text: "def" },
      { cls: "", text: " " },
      { cls: "d", text: "f" },
    ]);
    // the word marks split the syntax runs where they differ
    assert.deepEqual(
      lineRuns("def f", map.get(6), [
        [false, "de"],
        [true, "f f"],
      ]),
      [
        { cls: "k", text: "de", differs: false },
        { cls: "k", text: "f", differs: true },
        { cls: "", text: " ", differs: true },
        { cls: "d", text: "f", differs: true },
      ],
    );
    // runs that are not this line's text, or classes that are not short names, are not used
    assert.deepEqual(lineRuns("other", map.get(6)), [{ cls: "", text: "other" }]);
    assert.deepEqual(lineRuns("x", [['"><img src=x>', "x"]]), [{ cls: "", text: "x" }]);
  });

  test("foldRuns keeps the head and tail of a long run; an opened fold stays open", () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ type: "line", kind: "add", text: `${i}`, old: null, new: i + 1 }));
    const folded = foldRuns(/** @type {any} */ (rows), FOLDS);
    assert.equal(folded.length, FOLDS.head + 1 + FOLDS.tail);
    const fold = /** @type {any} */ (folded[FOLDS.head]);
    assert.equal(fold.type, "fold");
    assert.equal(fold.rows.length, 100 - FOLDS.head - FOLDS.tail);
    assert.equal(foldRuns(/** @type {any} */ (rows), FOLDS, new Set([fold.id])).length, 100);
    assert.equal(foldRuns(/** @type {any} */ (rows.slice(0, FOLDS.max)), FOLDS).length, FOLDS.max);
  });

  test("splitRows: context on both sides, removed next to added, the rest wide", () => {
    const rows = diffRows(classifyDiffLines("@@ -1,3 +1,2 @@\n a\n-b\n-c\n+B\n"));
    const split = splitRows(rows).map((r) =>
      r.type === "pair" ? [/** @type {any} */ (r.left)?.text ?? null, /** @type {any} */ (r.right)?.text ?? null] : r.type,
    );
    assert.deepEqual(split, ["hunk", ["a", "a"], ["b", "B"], ["c", null]]);
  });

  test("changeBar: five blocks in proportion, each side seen when it is there", () => {
    assert.deepEqual(changeBar(0, 0), ["none", "none", "none", "none", "none"]);
    assert.deepEqual(changeBar(3, 0), ["add", "add", "add", "none", "none"]);
    assert.deepEqual(changeBar(100, 1), ["add", "add", "add", "add", "del"]);
    assert.deepEqual(changeBar(1, 100), ["add", "del", "del", "del", "del"]);
  });

  test("the view mode: remembered, and storage that throws or is missing is survived", () => {
    /** @type {Map<string, string>} */
    const data = new Map();
    const storage = { getItem: (/** @type {string} */ k) => data.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => void data.set(k, v) };
    assert.equal(loadMode(storage), "unified");
    assert.equal(saveMode(storage, "split"), true);
    assert.equal(data.get(MODE_KEY), "split");
    assert.equal(loadMode(storage), "split");
    const broken = {
      getItem() {
        throw new Error("SecurityError");
      },
      setItem() {
        throw new Error("QuotaExceededError");
      },
    };
    assert.equal(loadMode(broken), "unified");
    assert.equal(saveMode(broken, "split"), false);
    assert.equal(loadMode(null), "unified");
    assert.equal(saveMode(undefined, "split"), false);
  });

  test("changeRows: an Add's lines added, a Delete's removed, an Update's diff, numbered", () => {
    assert.deepEqual(
      changeRows({ type: "add", content: "a\r\nb\n" }).map((r) => /** @type {any} */ (r)).map((r) => [r.kind, r.new, r.text]),
      [
        ["add", 1, "a"],
        ["add", 2, "b"],
      ],
    );
    assert.deepEqual(
      changeRows({ type: "delete", content: "x" }).map((r) => /** @type {any} */ (r)).map((r) => [r.kind, r.old]),
      [["del", 1]],
    );
    const update = changeRows({ type: "update", unified_diff: "@@ -2 +2 @@\n-a = 1\n+a = 2\n" }, { new_lines: 5 });
    assert.deepEqual(
      update.map((r) => r.type),
      ["gap", "hunk", "line", "line", "gap"],
    );
    assert.equal(/** @type {any} */ (update[3]).words, undefined, "paired when shown, not before");
    pairWords(update);
    assert.ok(/** @type {any} */ (update[3]).words, "the pair's changed words are marked");
    assert.deepEqual(changeRows({ type: "move" }), []);
  });
});

describe("diff view DOM", () => {
  /** @type {Map<string, string>} */
  let stored;
  beforeEach(() => {
    // @ts-expect-error a fake document with the one method the widget uses
    globalThis.document = { createElement: (tag) => new FakeElement(tag) };
    stored = new Map();
    Object.defineProperty(globalThis, "localStorage", {
      configurable: true,
      value: { getItem: (/** @type {string} */ k) => stored.get(k) ?? null, setItem: (/** @type {string} */ k, /** @type {string} */ v) => void stored.set(k, v) },
    });
  });
  afterEach(() => {
    // @ts-expect-error cleanup
    delete globalThis.document;
    // @ts-expect-error cleanup
    delete globalThis.localStorage;
  });
  /** @param {any} el @returns {FakeElement} */
  const fake = (el) => el;
  const SOURCES = sourcesOf({
    old: [[2, [[["k", "return"], ["", " "], ["n", "1"]]]]],
    new: [[1, ["def f():", [["k", "return"], ["", " "], ["n", "2"]], "    pass", "", "# end"]]],
  });
  const UPDATE = { type: "update", unified_diff: "@@ -2 +2 @@\n-return 1\n+return 2\n" };

  test("unified: old and new gutters, signs, syntax classes, the changed word marked", () => {
    const table = fake(diffTable({ rows: changeRows(UPDATE, { new_lines: 5 }), sources: SOURCES, preview: false }, "unified", new Set(), () => {}));
    assert.equal(table.getAttribute("data-mode"), "unified");
    const lines = table.byClass("applypatch-dl").filter((r) => r.getAttribute("data-kind"));
    assert.deepEqual(
      lines.map((r) => r.byClass("applypatch-gutter").map((g) => g.textContent)),
      [
        ["2", ""],
        ["", "2"],
      ],
    );
    assert.deepEqual(lines.map((r) => r.byClass("applypatch-sign")[0].textContent), ["-", "+"]);
    assert.equal(lines[1].byClass("applypatch-sign")[0].getAttribute("aria-label"), "added");
    assert.equal(lines[0].byClass("applypatch-hl-k")[0].textContent, "return");
    assert.deepEqual(lines[1].byClass("applypatch-word").map((w) => w.textContent), ["2"]);
    assert.ok(lines[1].byClass("applypatch-word")[0].className.includes("applypatch-hl-n"));
  });

  test("gaps: a button shows the unchanged lines Python sent; none sent, a plain marker", () => {
    /** @type {string[]} */
    const clicked = [];
    const rows = changeRows(UPDATE, { new_lines: 5 });
    const closed = fake(diffTable({ rows, sources: SOURCES, preview: false }, "unified", new Set(), (id) => clicked.push(id)));
    const buttons = closed.byClass("applypatch-expand");
    assert.deepEqual(buttons.map((b) => b.textContent), ["⋯ Show 1 unchanged line", "⋯ Show 3 unchanged lines"]);
    assert.equal(buttons[0].getAttribute("aria-expanded"), "false");
    buttons[1].click();
    assert.deepEqual(clicked, ["gap:3"]);
    const open = fake(diffTable({ rows, sources: SOURCES, preview: false }, "unified", new Set(["gap:3"]), () => {}));
    const context = open.byClass("applypatch-dl-context");
    assert.deepEqual(
      context.map((r) => [r.byClass("applypatch-gutter").map((g) => g.textContent), r.byClass("applypatch-code")[0].textContent]),
      [
        [["3", "3"], "    pass"],
        [["4", "4"], ""],
        [["5", "5"], "# end"],
      ],
    );
    const nothing = fake(diffTable({ rows, sources: sourcesOf({}), preview: false }, "unified", new Set(), () => {}));
    assert.equal(nothing.byClass("applypatch-expand").length, 0);
    assert.match(nothing.textContent, /⋯ 1 unchanged line.*⋯ 3 unchanged lines/);
  });

  test("an opened gap marks the unchanged lines Python did not send where they are", () => {
    const rows = changeRows({ type: "update", unified_diff: "@@ -1 +1 @@\n-a\n+b\n@@ -9 +9 @@\n-y\n+z\n" });
    const sources = sourcesOf({ new: [[2, ["c2", "c3"]], [7, ["c7", "c8"]]] });
    const table = fake(diffTable({ rows, sources, preview: false }, "unified", new Set(["gap:2"]), () => {}));
    const gap = table.all().filter((r) => r.tagName === "TR").map((r) => r.textContent);
    const from = gap.indexOf("22 c2");
    assert.ok(from > 0, gap.join("|"));
    assert.deepEqual(gap.slice(from, from + 5), ["22 c2", "33 c3", "⋯ 3 unchanged lines not sent to the view", "77 c7", "88 c8"]);
  });

  test("a large added file is folded behind 'show N lines'; opened, it renders", () => {
    const content = Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n");
    const rows = changeRows({ type: "add", content });
    const file = { rows, sources: sourcesOf({}), preview: false, limit: 300 };
    const table = fake(diffTable(file, "unified", new Set(), () => {}));
    assert.equal(table.byClass("applypatch-dl-add").length, FOLDS.head + FOLDS.tail);
    const [button] = table.byClass("applypatch-expand");
    assert.equal(button.textContent, `⋯ Show ${500 - FOLDS.head - FOLDS.tail} more lines`);
    const opened = fake(diffTable(file, "unified", new Set([button.getAttribute("data-fold") ?? ""]), () => {}));
    assert.equal(opened.byClass("applypatch-dl-add").length, 500);
  });

  test("the row limit folds the rest of a long diff, however its runs are", () => {
    const diff = Array.from({ length: 100 }, (_, i) => `@@ -${i * 10 + 1} +${i * 10 + 1} @@\n-a${i}\n+b${i}\n`).join("");
    const rows = changeRows({ type: "update", unified_diff: diff });
    const table = fake(diffTable({ rows, sources: sourcesOf({}), preview: false, limit: 30 }, "unified", new Set(), () => {}));
    const [rest] = table.byClass("applypatch-expand").filter((b) => b.getAttribute("data-fold") === "rest");
    assert.ok(rest, "no fold for the rest");
    assert.match(rest.textContent, /Show \d+ more lines/);
    assert.ok(table.byClass("applypatch-dl-del").length < 20);
  });

  test("split: the old side left, the new side right, pairs on one row", () => {
    const table = fake(diffTable({ rows: changeRows(UPDATE), sources: SOURCES, preview: true }, "split", new Set(), () => {}));
    assert.equal(table.getAttribute("data-mode"), "split");
    assert.ok(table.className.includes("applypatch-dt-preview"));
    const [pair] = table.byClass("applypatch-dl-change");
    assert.deepEqual(pair.byClass("applypatch-code").map((c) => c.textContent), ["return 1", "return 2"]);
    assert.deepEqual(pair.byClass("applypatch-gutter").map((g) => g.textContent), ["2", "2"]);
  });

  test("changes: toolbar, file list, mode shared and remembered, expand and collapse all", () => {
    const changes = changesSection();
    const proposed = { "/w/a.py": UPDATE, "/w/b.txt": { type: "add", content: "x\ny\n" } };
    changes.update({ proposed, delta: {}, meaning: meaning(STATUS.running), cwd: "/w", sources: { "/w/a.py": { language: "Python", new_lines: 5, old: [], new: [] } } });
    const el = fake(changes.el);
    assert.match(el.textContent, /Python/);
    const jumps = el.byClass("applypatch-jump");
    assert.deepEqual(jumps.map((j) => j.getAttribute("aria-label")), ["go to a.py: +1 -1", "go to b.txt: +2 -0"]);
    const files = el.byClass("applypatch-file");
    assert.equal(files.length, 2);
    jumps[1].click();
    assert.equal(/** @type {any} */ (files[1]).open, true);
    assert.ok(/** @type {any} */ (files[1]).scrolledTo, "the jump scrolls to the file");
    assert.equal(/** @type {any} */ (files[1].firstElementChild).focused, true);
    el.find((e) => e.textContent === "Collapse all")?.click();
    assert.deepEqual(files.map((f) => /** @type {any} */ (f).open), [false, false]);
    el.find((e) => e.textContent === "Expand all")?.click();
    assert.deepEqual(files.map((f) => /** @type {any} */ (f).open), [true, true]);
    // another section follows the mode chosen in this one, and the choice is stored
    const turn = turnDiffSection();
    turn.update({ diff: TURN_DIFF, sources: {} });
    el.byTestId("applypatch-mode-split").click();
    assert.equal(stored.get(MODE_KEY), "split");
    assert.equal(el.byTestId("applypatch-mode-split").getAttribute("aria-pressed"), "true");
    assert.ok(el.byClass("applypatch-dt").every((t) => t.getAttribute("data-mode") === "split"));
    assert.ok(fake(turn.el).byClass("applypatch-dt").every((t) => t.getAttribute("data-mode") === "split"));
    // a new view starts in the remembered mode
    const again = changesSection();
    again.update({ proposed, delta: {}, meaning: meaning(STATUS.running), cwd: "/w", sources: {} });
    assert.equal(fake(again.el).byTestId("applypatch-mode-split").getAttribute("aria-pressed"), "true");
    el.byTestId("applypatch-mode-unified").click();
    for (const s of [changes, turn, again]) s.dispose();
    assert.equal(stored.get(MODE_KEY), "unified");
  });

  test("an opened fold survives an update of the section", () => {
    const changes = changesSection();
    const content = Array.from({ length: 200 }, (_, i) => `l${i}`).join("\n");
    const state = { proposed: { "/w/big.txt": { type: "add", content } }, delta: {}, meaning: meaning(STATUS.running), cwd: "/w", sources: {} };
    changes.update(state);
    // 200 lines: closed at first, and a closed file has no table yet
    assert.equal(fake(changes.el).byClass("applypatch-dt").length, 0);
    fake(changes.el).find((e) => e.textContent === "Expand all")?.click();
    assert.equal(fake(changes.el).byClass("applypatch-dt").length, 1);
    fake(changes.el).byClass("applypatch-expand")[0].click();
    assert.equal(fake(changes.el).byClass("applypatch-dl-add").length, 200);
    changes.update({ ...state, meaning: meaning(STATUS.completed) });
    assert.equal(fake(changes.el).byClass("applypatch-dl-add").length, 200);
    changes.dispose();
  });

  test("TurnDiff: headers behind a toggle, copy (guarded) and download", async () => {
    const turn = turnDiffSection();
    turn.update({ diff: TURN_DIFF, sources: { "a.txt": { language: "Text only", old: [], new: [] } } });
    const el = fake(turn.el);
    const body = el.byClass("applypatch-section-body")[0];
    assert.equal(body.className, "applypatch-section-body");
    assert.ok(el.byClass("applypatch-dl-header").length >= 4, "the headers are rows, hidden by CSS");
    const headers = el.byTestId("applypatch-headers");
    assert.equal(headers.getAttribute("aria-pressed"), "false");
    headers.click();
    assert.equal(body.className, "applypatch-section-body applypatch-show-headers");
    assert.equal(headers.getAttribute("aria-pressed"), "true");
    assert.equal(headers.textContent, "Hide headers");
    const download = el.byTestId("applypatch-download-turn-diff");
    assert.match(download.getAttribute("href") ?? "", /^blob:/);
    assert.equal(download.getAttribute("download"), "turn.diff");
    const blob = await fetch(download.getAttribute("href") ?? "").then((r) => r.text()).catch(() => null);
    if (blob !== null) assert.equal(blob, TURN_DIFF);
    // no clipboard: say so; a clipboard: copy the whole TurnDiff
    const status = el.byClass("applypatch-tool-note")[0];
    const navigator = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    Object.defineProperty(globalThis, "navigator", { configurable: true, value: {} });
    el.byTestId("applypatch-copy-turn-diff").click();
    assert.match(status.textContent, /cannot copy: the clipboard is not available/);
    /** @type {string[]} */
    const copied = [];
    Object.defineProperty(globalThis, "navigator", {
      configurable: true,
      value: { clipboard: { writeText: async (/** @type {string} */ t) => void copied.push(t) } },
    });
    el.byTestId("applypatch-copy-turn-diff").click();
    await tick();
    assert.deepEqual(copied, [TURN_DIFF]);
    assert.equal(status.textContent, "TurnDiff copied");
    if (navigator) Object.defineProperty(globalThis, "navigator", navigator);
    turn.dispose();
  });

  test("TurnDiff: files open while a budget of lines lasts; the others are built when opened", () => {
    const file = (/** @type {number} */ k) =>
      `diff --git a/f${k}.txt b/f${k}.txt\n--- /dev/null\n+++ b/f${k}.txt\n@@ -0,0 +1,400 @@\n` +
      Array.from({ length: 400 }, (_, i) => `+${k}.${i}\n`).join("");
    const turn = turnDiffSection();
    const blocks = Array.from({ length: 8 }, (_, k) => ({ old_path: `f${k}.txt`, path: `f${k}.txt`, diff: file(k) }));
    turn.update({ diff: blocks.map((b) => b.diff).join(""), blocks, sources: {} });
    const files = fake(turn.el).byClass("applypatch-file");
    assert.equal(files.length, 8);
    const open = files.map((f) => f.getAttribute("open") !== null);
    assert.equal(open[0], true);
    assert.ok(open.includes(false), "every file opened");
    for (const [i, f] of files.entries()) assert.equal(f.byClass("applypatch-dt").length, open[i] ? 1 : 0);
    const rendered = fake(turn.el).byClass("applypatch-dl").length;
    assert.ok(rendered <= LIMITS.diffLines, `${rendered} rows rendered`);
    turn.dispose();
  });

  test("patch text: copy patch copies the whole text", async () => {
    const patch = patchSection(true);
    patch.update({ text: "*** Begin Patch\n*** End Patch\n", current: 0, truncated: false });
    /** @type {string[]} */
    const copied = [];
    const navigator = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    Object.defineProperty(globalThis, "navigator", {
      configurable: true,
      value: { clipboard: { writeText: async (/** @type {string} */ t) => void copied.push(t) } },
    });
    fake(patch.el).byTestId("applypatch-copy-patch").click();
    await tick();
    assert.deepEqual(copied, ["*** Begin Patch\n*** End Patch\n"]);
    assert.equal(fake(patch.el).byClass("applypatch-tool-note")[0].textContent, "patch copied");
    Object.defineProperty(globalThis, "navigator", {
      configurable: true,
      value: { clipboard: { writeText: async () => Promise.reject(new Error("NotAllowedError")) } },
    });
    fake(patch.el).byTestId("applypatch-copy-patch").click();
    await tick();
    assert.match(fake(patch.el).textContent, /cannot copy: the browser refused/);
    if (navigator) Object.defineProperty(globalThis, "navigator", navigator);
  });

  test("planned: a preview at a glance (badge, note, style), with no line numbers", () => {
    const planned = plannedSection(true);
    planned.update({ planned: { "f.py": { type: "update", unified_diff: "@@\n-a\n+b\n", move_path: null } }, cwd: "/w", words: previewWords(VOCABULARY, false) });
    const el = fake(planned.el);
    assert.ok(el.className.includes("applypatch-preview"));
    assert.equal(el.byClass("applypatch-badge-preview")[0].textContent, "preview");
    assert.match(el.textContent, /context lines appear as removed and added/);
    assert.ok(el.byClass("applypatch-dt")[0].className.includes("applypatch-dt-preview"));
    assert.ok(el.byClass("applypatch-gutter").every((g) => g.textContent === ""));
    planned.dispose();
  });

  test("diffViewState: every button is a real button with a label", () => {
    const view = diffViewState({ headers: true });
    const buttons = fake(view.toolbar).all().filter((e) => e.tagName === "BUTTON");
    assert.equal(buttons.length, 5);
    for (const b of buttons) {
      assert.equal(b.getAttribute("type"), "button");
      assert.ok(b.getAttribute("aria-label"), b.textContent);
    }
    assert.equal(fake(view.toolbar).getAttribute("role"), "toolbar");
    view.dispose();
  });
});

// ------------------------------------------------------------------------ notebooks as cells

/** A notebook view as Python's notebooks.notebook_diff sends it (the `notebooks` trait). */
function notebookView(overrides = {}) {
  return {
    path: "/w/nb/tour.ipynb",
    kind: "update",
    ok: true,
    reason: null,
    matched_by: "id",
    cells: [
      { status: "unchanged", count: 3, old_indices: [0, 1, 2], new_indices: [0, 1, 2] },
      {
        status: "changed",
        old_index: 3,
        new_index: 3,
        id: "c3",
        cell_type: "code",
        moved: false,
        changes: ["source", "outputs", "execution count", "metadata"],
        source_diff: "@@ -1,3 +1,3 @@\n def f():\n-    return 42\n+    return 43\n print(f())\n@@ -9 +9 @@\n-x = 1\n+x = 2\n",
        outputs: { summary: "1 output: stream stdout → 1 output: stream stdout", diff: '@@ -1 +1 @@\n-"42"\n+"43"\n' },
        execution_count: [4, null],
        metadata: { summary: "added 'tags'", diff: '@@ -1 +1 @@\n-{}\n+{"tags": ["t"]}\n' },
        source: "def f():\n    return 43\nprint(f())\nl4\nl5\nl6\nl7\nl8\nx = 2",
      },
      { status: "added", old_index: null, new_index: 4, id: "c9", cell_type: "markdown", moved: false, changes: [], source: "# New\ntext" },
      { status: "removed", old_index: 4, new_index: null, id: "c4", cell_type: "code", moved: false, changes: [], source: "gone()", outputs: { summary: "2 outputs: stream stdout; error ValueError", diff: "" } },
      { status: "moved", old_index: 6, new_index: 5, id: "c6", cell_type: "code", moved: true, changes: [], source: "same()" },
      { status: "unchanged", count: 1, old_indices: [5], new_indices: [6] },
    ],
    counts: { added: 1, removed: 1, moved: 1, changed: 1, unchanged: 4 },
    summary: "1 added, 1 removed, 1 moved, 1 changed, 4 unchanged cells",
    metadata: null,
    nbformat: { before: "4.5", after: "4.5" },
    validation: { before: null, after: null },
    raw_diff: '@@ -10,3 +10,3 @@\n    "source": [\n-    "    return 42\\n",\n+    "    return 43\\n",\n',
    ...overrides,
  };
}

/** What a toggle of a real `<details>` does: set `open`, fire `toggle`. @param {any} details */
function toggle(details, open = !details.open) {
  details.open = open;
  for (const fn of details.listeners.get("toggle") ?? []) fn({ type: "toggle" });
}

describe("notebooks as cells", () => {
  beforeEach(() => {
    // @ts-expect-error a fake document with the one method the widget uses
    globalThis.document = { createElement: (tag) => new FakeElement(tag) };
  });
  afterEach(() => {
    // @ts-expect-error cleanup
    delete globalThis.document;
  });
  /** @param {any} el @returns {FakeElement} */
  const fake = (el) => el;

  test("the undo panel shows, before any click, the notebooks Undo and Redo would restore", () => {
    const section = undoSection(() => {}, decisionList(VOCABULARY));
    const el = fake(section.el);
    const place = { index: 1, count: 1, turn_id: "turn-1" };
    section.update({ undo: { place, can_undo: true, can_redo: false, last: {}, notebooks: { undo: [], redo: [] } }, cwd: "/w" });
    const cells = el.byTestId("applypatch-undo-notebooks");
    assert.equal(cells.hidden, true); // a call that touched no notebook
    section.update({ undo: { place, can_undo: true, can_redo: false, last: {}, notebooks: { undo: [notebookView()], redo: [] } }, cwd: "/w" });
    assert.equal(cells.hidden, false);
    assert.deepEqual(UNDO_NOTEBOOK_VIEWS.map((v) => v.key), ["undo", "redo", "edited"]);
    assert.match(cells.textContent, /Notebooks as cells, as Undo and Redo would restore them 1 notebook what Undo would restore \(the call's change, reversed\)/);
    // folded: the call's own change (the notebooks section) is the first cell view a reader sees
    assert.equal(cells.getAttribute("open"), null);
    const [nb] = cells.byClass("applypatch-nb");
    assert.equal(nb.getAttribute("data-view"), "undo");
    assert.equal(nb.getAttribute("aria-label"), "notebook nb/tour.ipynb, what Undo would restore (the call's change, reversed): 1 added, 1 removed, 1 moved, 1 changed, 4 unchanged cells");
    // undone: the same notebook is now what Redo would put back
    section.update({ undo: { place, can_undo: false, can_redo: true, last: {}, notebooks: { undo: [], redo: [notebookView()] } }, cwd: "/w" });
    assert.deepEqual(cells.byClass("applypatch-nb").map((n) => n.getAttribute("data-view")), ["redo"]);
    // a conflict: the notebook as it changed since, beside what Undo would restore
    section.update({ undo: { place, can_undo: true, can_redo: false, last: {}, notebooks: { undo: [notebookView()], edited: [notebookView()] } }, cwd: "/w" });
    assert.deepEqual(cells.byClass("applypatch-nb").map((n) => n.getAttribute("data-view")), ["undo", "edited"]);
    assert.match(cells.textContent, /1 notebook changed since \(the conflict\)/);
    section.dispose();
  });

  test("an undo's and a redo's approval: their buttons name them, their status in words", () => {
    const section = undoSection(() => {}, decisionList(VOCABULARY));
    const el = fake(section.el);
    const place = { index: 1, count: 2, turn_id: "turn-1" };
    const waiting = (/** @type {string} */ kind) => ({
      place,
      can_undo: kind === "redo",
      can_redo: kind === "undo",
      last: { kind, call_id: "call-2", status: STATUS.awaiting, approval: { files: ["/w/u.txt"], request_id: "r" } },
      notebooks: {},
    });
    for (const kind of ["undo", "redo"]) {
      section.update({ undo: waiting(kind), cwd: "/w", vocabulary: VOCABULARY });
      const approve = el.byTestId("applypatch-undo-approve");
      assert.equal(approve.textContent, `Approve (${kind})`);
      assert.equal(approve.getAttribute("aria-label"), `Approve: the answer to the ${kind}'s approval request`);
      assert.match(el.textContent, new RegExp(`${kind} call-2: ${statusMeaning(VOCABULARY, STATUS.awaiting).label}`));
      assert.doesNotMatch(el.textContent, new RegExp(STATUS.awaiting));
    }
    section.dispose();
  });

  test("cellTitle, cellRows and cellExtras read a cell entry", () => {
    const [, changed, added, removed, moved] = notebookView().cells;
    assert.equal(cellTitle(changed), "cell 3 · id c3 · code");
    assert.equal(cellTitle(moved), "cell 6 → 5 · id c6 · code");
    assert.equal(cellTitle(removed), "cell 4 · id c4 · code");
    assert.equal(cellTitle({ old_index: null, new_index: 0 }), "cell 0 · no cell_type");
    const rows = cellRows(changed);
    assert.deepEqual(
      rows.filter((r) => r.type === "line").map((r) => [/** @type {any} */ (r).kind, /** @type {any} */ (r).new]),
      [["context", 1], ["del", null], ["add", 2], ["context", 3], ["del", null], ["add", 9]],
    );
    // the unchanged lines between the hunks are known: the new source is sent
    assert.deepEqual(rows.filter((r) => r.type === "gap").map((r) => [/** @type {any} */ (r).from, /** @type {any} */ (r).to]), [[4, 8]]);
    assert.deepEqual(cellRows(added).map((r) => /** @type {any} */ (r).kind), ["add", "add"]);
    assert.deepEqual(cellRows(removed).map((r) => /** @type {any} */ (r).kind), ["del"]);
    assert.deepEqual(cellRows(moved), []);
    assert.deepEqual(
      cellExtras(changed).map((e) => [e.name, e.summary, e.rows.filter((r) => r.type === "line").length]),
      [
        ["outputs", "1 output: stream stdout → 1 output: stream stdout", 2],
        ["execution count", "4 → none", 0],
        ["metadata", "added 'tags'", 2],
      ],
    );
    assert.deepEqual(cellExtras(removed).map((e) => [e.name, e.rows.length]), [["outputs", 0]]);
    assert.deepEqual(cellExtras(moved), []);
  });

  test("each cell by its status, the changed source in the diff table, unchanged runs folded", () => {
    const section = notebooksSection();
    const el = fake(section.el);
    section.update({ notebooks: {}, cwd: "/w" });
    assert.equal(el.hidden, true);
    section.update({ notebooks: { proposed: [], committed: [notebookView()] }, cwd: "/w" });
    assert.equal(el.hidden, false);
    assert.equal(el.getAttribute("data-testid"), "applypatch-notebooks");
    assert.match(el.textContent, /1 notebook committed/);
    const [nb] = el.byClass("applypatch-nb");
    assert.equal(nb.getAttribute("role"), "group");
    assert.equal(nb.getAttribute("aria-label"), "notebook nb/tour.ipynb, committed: 1 added, 1 removed, 1 moved, 1 changed, 4 unchanged cells");
    const head = nb.byClass("applypatch-nb-head")[0].textContent;
    assert.match(head, /^Update.*nb\/tour\.ipynb.*committed.*1 added, 1 removed.*nbformat 4\.5.*cells matched by id/);
    const items = nb.byClass("applypatch-nb-cells")[0].childNodes.map((li) => /** @type {FakeElement} */ (li));
    assert.deepEqual(
      items.map((li) => li.getAttribute("data-status") ?? li.textContent),
      ["⋯ 3 unchanged cells (cells 0–2)", "changed", "added", "removed", "moved", "⋯ 1 unchanged cell (cell 6)"],
    );
    // the changed cell: open, its source diff with gutters numbered by the new source
    const changed = items[1];
    const source = changed.byClass("applypatch-nb-source")[0];
    assert.equal(source.getAttribute("open"), "");
    assert.match(source.firstElementChild?.textContent ?? "", /changed.*cell 3 · id c3 · code.*changed: source, outputs, execution count, metadata/);
    assert.equal(source.firstElementChild?.getAttribute("aria-label"), "changed cell 3 · id c3 · code: 2 added, 2 removed lines");
    const del = source.byClass("applypatch-dl-del")[0];
    assert.equal(del.byClass("applypatch-code")[0].textContent, "    return 42");
    assert.equal(source.byClass("applypatch-dl-add")[0].byClass("applypatch-gutter-new")[0].textContent, "2");
    const [gap] = source.byClass("applypatch-expand");
    assert.equal(gap.textContent, "⋯ Show 5 unchanged lines");
    gap.click();
    assert.deepEqual(source.byClass("applypatch-dl-context").map((r) => r.byClass("applypatch-code")[0].textContent).slice(2, 7), ["l4", "l5", "l6", "l7", "l8"]);
    // added and removed cells show their source as added and removed lines; a moved one, its head
    assert.deepEqual(items[2].byClass("applypatch-dl-add").map((r) => r.byClass("applypatch-code")[0].textContent), ["# New", "text"]);
    assert.deepEqual(items[3].byClass("applypatch-dl-del").map((r) => r.byClass("applypatch-code")[0].textContent), ["gone()"]);
    assert.equal(items[4].byClass("applypatch-dt").length, 0);
    assert.match(items[4].textContent, /moved.*cell 6 → 5/);
    // statuses are said in words, styled by class
    assert.deepEqual(nb.byClass("applypatch-nb-status").map((s) => s.textContent), ["changed", "added", "removed", "moved"]);
    section.dispose();
  });

  test("outputs, execution count and metadata stay folded until one click; built when shown", () => {
    const section = notebooksSection();
    section.update({ notebooks: { committed: [notebookView()] }, cwd: "/w" });
    const el = fake(section.el);
    const extras = el.byClass("applypatch-nb-extra");
    assert.equal(extras.length, 2); // the changed cell, the removed cell (its outputs)
    const [extra] = extras;
    assert.equal(extra.getAttribute("open"), null);
    const summary = /** @type {FakeElement} */ (extra.firstElementChild);
    assert.equal(summary.tagName, "SUMMARY"); // a native summary: focusable, Enter and Space toggle it
    assert.equal(summary.textContent, "outputs, execution count, metadata");
    assert.equal(summary.getAttribute("aria-label"), "outputs, execution count, metadata of cell 3 · id c3 · code");
    assert.equal(extra.byClass("applypatch-nb-extra-item").length, 0, "nothing is built while closed");
    toggle(extra, true);
    const items = extra.byClass("applypatch-nb-extra-item");
    assert.deepEqual(items.map((i) => i.getAttribute("data-extra")), ["outputs", "execution count", "metadata"]);
    assert.match(items[1].textContent, /execution count: 4 → none/);
    assert.deepEqual(items[0].byClass("applypatch-dl-del").map((r) => r.byClass("applypatch-code")[0].textContent), ['"42"']);
    assert.deepEqual(items[2].byClass("applypatch-dl-add").map((r) => r.byClass("applypatch-code")[0].textContent), ['{"tags": ["t"]}']);
    // the reader's choice survives an update of the trait
    section.update({ notebooks: { committed: [notebookView()] }, cwd: "/w" });
    assert.equal(fake(section.el).byClass("applypatch-nb-extra")[0].getAttribute("open"), "");
    // the mode switch redraws them too, and collapse all folds them
    const split = fake(section.el).byTestId("applypatch-mode-split");
    split.click();
    assert.ok(fake(section.el).byClass("applypatch-nb-extra")[0].byClass("applypatch-dt").every((t) => t.getAttribute("data-mode") === "split"));
    fake(section.el).byTestId("applypatch-mode-unified").click();
    fake(section.el).find((e) => e.textContent === "Collapse all")?.click();
    assert.equal(/** @type {any} */ (fake(section.el).byClass("applypatch-nb-extra")[0]).open, false);
    section.dispose();
  });

  test("the raw JSON diff is one click away; open, with the reason, when cells cannot be shown", () => {
    const section = notebooksSection();
    section.update({ notebooks: { committed: [notebookView()] }, cwd: "/w" });
    const raw = fake(section.el).byTestId("applypatch-nb-raw");
    assert.equal(raw.tagName, "DETAILS");
    assert.equal(raw.getAttribute("open"), null);
    assert.match(raw.firstElementChild?.textContent ?? "", /Raw JSON diff.*what the patch changed/);
    assert.equal(raw.byClass("applypatch-dt").length, 0);
    toggle(raw, true);
    assert.deepEqual(raw.byClass("applypatch-dl-add").map((r) => r.byClass("applypatch-code")[0].textContent), ['    "    return 43\\n",']);
    const broken = notebookView({
      ok: false,
      reason: "the new text is not valid JSON: Expecting ',' delimiter at line 12, column 5",
      cells: [],
      summary: "cells cannot be shown",
      validation: { before: null, after: "not valid JSON: Expecting ',' delimiter at line 12, column 5" },
    });
    section.update({ notebooks: { proposed: [broken], committed: [] }, cwd: "/w" });
    const el = fake(section.el);
    assert.match(el.textContent, /1 notebook proposed, nothing written/);
    assert.match(el.byClass("applypatch-nb-reason")[0].textContent, /^The cells cannot be shown: the new text is not valid JSON: .* line 12, column 5/);
    assert.equal(el.byClass("applypatch-nb-reason")[0].getAttribute("role"), "note");
    assert.match(el.byClass("applypatch-nb-invalid")[0].textContent, /^invalid notebook: not valid JSON/);
    assert.equal(el.byClass("applypatch-nb-cells").length, 0);
    const opened = el.byTestId("applypatch-nb-raw");
    assert.equal(opened.getAttribute("open"), "");
    assert.equal(opened.byClass("applypatch-dt").length, 1);
    section.dispose();
  });

  test("valid JSON, invalid notebook: the cells show, and why nbformat refuses it", () => {
    const section = notebooksSection();
    const view = notebookView({
      validation: { before: null, after: "cell 2 (id 'c2'): 'cell_type' is missing; every cell needs one: 'code', 'markdown', 'raw'" },
      cells: [{ status: "changed", old_index: 2, new_index: 2, id: "c2", cell_type: null, moved: false, changes: ["cell type"], old_cell_type: "code", source: "x" }],
    });
    section.update({ notebooks: { proposed: [view] }, cwd: "/w" });
    const el = fake(section.el);
    assert.match(el.byClass("applypatch-nb-invalid")[0].textContent, /cell 2 \(id 'c2'\): 'cell_type' is missing/);
    assert.equal(el.byClass("applypatch-nb-reason").length, 0);
    assert.match(el.byClass("applypatch-nb-cell")[0].textContent, /changed.*cell 2 · id c2 · no cell_type.*changed: cell type/);
    section.dispose();
  });

  test("an added, a moved notebook; a notebook's own metadata folded; bounded cells", () => {
    const section = notebooksSection();
    const many = Array.from({ length: LIMITS.rows + 7 }, (_, i) => ({ status: "added", old_index: null, new_index: i, id: `a${i}`, cell_type: "code", changes: [], source: `x = ${i}` }));
    section.update({
      notebooks: {
        committed: [
          notebookView({ kind: "add", cells: many, nbformat: { before: null, after: "4.5" } }),
          notebookView({ path: "/w/new.ipynb", moved_from: "/w/old.ipynb", metadata: { summary: "changed 'kernelspec'", diff: "@@ -1 +1 @@\n-a\n+b\n" } }),
        ],
      },
      cwd: "/w",
    });
    const el = fake(section.el);
    const [added, moved] = el.byClass("applypatch-nb");
    assert.match(added.byClass("applypatch-nb-head")[0].textContent, /^Add/);
    assert.equal(added.byClass("applypatch-nb-cell").length, LIMITS.rows);
    assert.match(added.textContent, /… 7 more cells/);
    // files open while a budget of lines lasts: the rest wait for the reader
    const rendered = el.byClass("applypatch-dl").length;
    assert.ok(rendered <= LIMITS.diffLines + 50, `${rendered} rows rendered`);
    assert.match(moved.byClass("applypatch-nb-head")[0].textContent, /^Move.*new\.ipynb.*moved from old\.ipynb/);
    const meta = moved.byClass("applypatch-nb-metadata")[0];
    assert.equal(meta.getAttribute("open"), null);
    assert.match(meta.firstElementChild?.textContent ?? "", /notebook metadata: changed 'kernelspec'/);
    section.dispose();
  });

  test("the TurnDiff's notebooks: a group of their own; the call's own change shown once", () => {
    const section = notebooksSection();
    const net = notebookView({ summary: "2 changed, 6 unchanged cells", raw_diff: "@@ -1 +1 @@\n-a\n+b\n" });
    section.update({ notebooks: { proposed: [], committed: [notebookView()], turn: [net] }, cwd: "/w" });
    let el = fake(section.el);
    assert.match(el.textContent, /1 notebook committed; 1 notebook in the TurnDiff/);
    const [committed, turn] = el.byClass("applypatch-nb");
    assert.equal(committed.getAttribute("data-view"), "committed");
    assert.equal(turn.getAttribute("data-view"), "turn");
    assert.equal(turn.getAttribute("aria-label"), "notebook nb/tour.ipynb, in the TurnDiff: 2 changed, 6 unchanged cells");
    assert.match(turn.byClass("applypatch-nb-head")[0].textContent, /nb\/tour\.ipynb.*in the TurnDiff.*2 changed/);
    assert.equal(turn.byClass("applypatch-nb-cell").length, 4);
    assert.equal(turn.byTestId("applypatch-nb-raw").tagName, "DETAILS");
    // the cells' ids are per group: opening one group's block leaves the other's closed
    const raw = turn.byTestId("applypatch-nb-raw");
    toggle(raw, true);
    section.update({ notebooks: { committed: [notebookView()], turn: [net] }, cwd: "/w" });
    el = fake(section.el);
    assert.deepEqual(el.byClass("applypatch-nb-raw").map((d) => d.getAttribute("open")), [null, ""]);
    // the first call of a turn: its TurnDiff is its own committed change, said once
    const same = notebookView({ same_as: "committed" });
    assert.equal(sameAsText(same), "the same change as committed above: this call is the turn's only change to it");
    assert.equal(sameAsText(notebookView()), "");
    section.update({ notebooks: { committed: [notebookView()], turn: [same] }, cwd: "/w" });
    el = fake(section.el);
    const [, once] = el.byClass("applypatch-nb");
    assert.equal(once.getAttribute("data-view"), "turn");
    assert.equal(once.byClass("applypatch-nb-same")[0].textContent, sameAsText(same));
    assert.equal(once.byClass("applypatch-nb-cells").length, 0);
    assert.equal(once.byClass("applypatch-dt").length + once.byClass("applypatch-file").length, 0);
    assert.equal(el.byClass("applypatch-nb-cells").length, 1);
    section.dispose();
  });

  test("render: the notebooks trait fills the section, and its change re-renders it", async () => {
    const model = new FakeModel(initialState());
    const el = new FakeElement("div");
    // @ts-expect-error fakes
    const cleanup = widget.render({ model, el });
    const root = /** @type {FakeElement} */ (el.firstElementChild);
    const section = root.byTestId("applypatch-notebooks");
    assert.equal(section.hidden, true);
    model.set({ status: STATUS.completed, stage: LAST, notebooks: { proposed: [], committed: [notebookView()] } });
    await tick();
    assert.equal(section.hidden, false);
    assert.equal(section.byClass("applypatch-nb-cell").length, 4);
    model.set({ notebooks: { proposed: [], committed: [] } });
    await tick();
    assert.equal(section.hidden, true);
    const before = model.handlerCount();
    cleanup();
    assert.ok(before > 0 && model.handlerCount() === 0);
  });
});

describe("recordHider", () => {
  /** A node of a tiny tree: parents, a data attribute, inline style (what the hider uses). */
  class TreeNode {
    /** @param {TreeNode | null} parent @param {string | null} record */
    constructor(parent = null, record = null) {
      this.parentElement = parent;
      /** @type {TreeNode[]} */
      this.children = [];
      this.record = record;
      this.isConnected = true;
      /** @type {Record<string, any>} */
      this.style = {
        display: "",
        /** @param {string} name */
        removeProperty(name) {
          this[name] = "";
        },
      };
      if (parent) parent.children.push(this);
    }
    /** @param {string} selector */
    querySelector(selector) {
      const id = /data-applypatch-record="([^"]*)"/.exec(selector)?.[1];
      /** @param {TreeNode} node @returns {TreeNode | null} */
      const walk = (node) => {
        for (const child of node.children) {
          if (child.record === id) return child;
          const found = walk(child);
          if (found) return found;
        }
        return null;
      };
      return walk(this);
    }
    closest() {
      return null;
    }
  }

  /** An output area: the record's output (record inside), then the view's output (el inside). */
  function outputArea(id = "abc") {
    const area = new TreeNode();
    const recordOutput = new TreeNode(area);
    new TreeNode(new TreeNode(recordOutput), id);
    const viewOutput = new TreeNode(area);
    const el = new TreeNode(new TreeNode(viewOutput));
    return { area, recordOutput, viewOutput, el };
  }

  test("hides the record's output while the view lives, shows it again after", () => {
    const { recordOutput, viewOutput, el } = outputArea();
    const hider = recordHider(/** @type {any} */ (el), "abc");
    assert.equal(recordOutput.style.display, "none");
    assert.equal(viewOutput.style.display, "");
    hider.dispose();
    assert.equal(recordOutput.style.display, "");
  });

  test("leaves other records, and a view without a record, alone", () => {
    const { recordOutput, el } = outputArea("other");
    recordHider(/** @type {any} */ (el), "abc");
    assert.equal(recordOutput.style.display, "");
    recordHider(/** @type {any} */ (el), "");
    assert.equal(recordOutput.style.display, "");
  });

  test("a record that comes after the view is hidden when apply() runs", () => {
    const area = new TreeNode();
    const el = new TreeNode(new TreeNode(new TreeNode(area)));
    const hider = recordHider(/** @type {any} */ (el), "late");
    const recordOutput = new TreeNode(area);
    new TreeNode(recordOutput, "late");
    hider.apply(); // what the output area's MutationObserver calls
    assert.equal(recordOutput.style.display, "none");
  });

  test("render() with the fake DOM (no parents) renders and disposes", () => {
    // @ts-expect-error a fake document with the one method the widget uses
    globalThis.document = { createElement: (tag) => new FakeElement(tag) };
    try {
      const model = new FakeModel({ ...initialState(), record_id: "abc" });
      const el = new FakeElement("div");
      const cleanup = widget.render({ model, el: /** @type {any} */ (el) });
      assert.ok(el.byTestId("applypatch-widget"));
      model.set({ record_id: "def" });
      cleanup();
      assert.equal(model.handlerCount(), 0);
    } finally {
      // @ts-expect-error cleanup
      delete globalThis.document;
    }
  });
});
