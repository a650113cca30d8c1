// The shape of the widget's sources (js/src/): every module sits on a floor and imports only
// from the floors below it (no circle, nothing upward, type imports included), no function is
// over 80 lines, and the bundle holds these modules and nothing else (nothing of the tests).
// Parsed with acorn (pinned in js/package.json).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const SRC = path.join(REPO, "js", "src");
const require = createRequire(path.join(REPO, "js", "package.json"));
const acorn = require("acorn");
const walk = require("acorn-walk");

/** The floors, lowest first (docs/architecture.md, the js/ row, says what each is for). */
const FLOORS = [
  ["helpers.js"],
  ["vocabulary.js", "word-diff.js"],
  ["diff-model.js"],
  ["dom.js"],
  ["diff-table.js"],
  ["diff-view.js"],
  ["notebooks.js"],
  ["sections/approval.js", "sections/call.js", "sections/changes.js", "sections/diagnosis.js", "sections/explanation.js", "sections/undo.js"],
  ["view.js"],
  ["widget.js"],
];
const MAX_FUNCTION_LINES = 80;
/** Data a module may import from outside js/src: the file static_diff.py reads too. */
const DATA = { "word-diff.js": ["../../applypatch_ext/js/diff-words.json"] };

const modules = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".js"))
  .map((f) => f.split(path.sep).join("/"))
  .sort();
/** @param {string} name */
const floorOf = (name) => FLOORS.findIndex((floor) => floor.includes(name));
/** @param {string} name */
const parse = (name) =>
  acorn.parse(readFileSync(path.join(SRC, name), "utf8"), { ecmaVersion: "latest", sourceType: "module", locations: true });

test("every module of js/src is on a floor", () => {
  assert.deepEqual(modules, FLOORS.flat().sort());
});

test("a module imports only from the floors below it", () => {
  const wrong = [];
  for (const name of modules) {
    const text = readFileSync(path.join(SRC, name), "utf8");
    const specifiers = [
      ...parse(name).body.filter((n) => n.type === "ImportDeclaration").map((n) => n.source.value),
      ...[...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]), // JSDoc type imports
    ];
    for (const spec of specifiers) {
      if (/** @type {Record<string, string[]>} */ (DATA)[name]?.includes(spec)) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(name), spec));
      if (!spec.startsWith(".") || floorOf(target) < 0 || floorOf(target) >= floorOf(name))
        wrong.push(`${name} imports ${spec}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test(`no function is over ${MAX_FUNCTION_LINES} lines (nested functions counted in)`, () => {
  const long = [];
  for (const name of modules) {
    walk.fullAncestor(parse(name), (node, _state, ancestors) => {
      if (!/Function/.test(node.type)) return;
      const lines = node.loc.end.line - node.loc.start.line + 1;
      const parent = ancestors[ancestors.length - 2];
      const fn = node.id?.name ?? parent?.id?.name ?? parent?.key?.name ?? "(anonymous)";
      if (lines > MAX_FUNCTION_LINES) long.push(`${name}:${node.loc.start.line} ${fn}: ${lines} lines`);
    });
  }
  assert.deepEqual(long, []);
});

test("the bundle holds the modules of js/src and nothing else", () => {
  const bundle = readFileSync(path.join(REPO, "applypatch_ext", "js", "widget.js"), "utf8");
  const bundled = [...bundle.matchAll(/^\/\/ (\S+)$/gm)].map((m) => m[1]).sort();
  const data = Object.values(DATA).flat().map((p) => p.replace("../../", "../"));
  assert.deepEqual(bundled, [...data, ...modules.map((m) => `src/${m}`)].sort());
});
