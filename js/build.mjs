// Builds the widget: js/src/ bundled by esbuild into one ES module, the stylesheet beside it,
// and SOURCES.sha256 (the hashes of every source and of both outputs), all in
// applypatch_ext/js/, which is committed and shipped in the wheel. `make widget` runs it.
//   node js/build.mjs           build and write
//   node js/build.mjs --check   build in memory; exit 1, naming the file, when the committed
//                               output is not what the sources build
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";

const JS = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(JS);
const OUT = path.join(ROOT, "applypatch_ext", "js");
const BANNER = "// The widget's ES module, built by `make widget` from js/src/ (esbuild): edit those, not this.";

/** The sources of the build, as paths relative to the repository, sorted. */
export function sources() {
  const src = readdirSync(path.join(JS, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".js") || f.endsWith(".css"))
    .map((f) => `js/src/${f.split(path.sep).join("/")}`);
  // the word diff's character classes: the static record reads the same file (static_diff.py)
  const data = ["applypatch_ext/js/diff-words.json"];
  return ["js/build.mjs", "js/package.json", "js/package-lock.json", "js/tsconfig.json", ...data, ...src].sort();
}

/** @param {string | Uint8Array} data */
const sha256 = (data) => createHash("sha256").update(data).digest("hex");

/** The files of applypatch_ext/js/ as the sources make them: name -> contents. */
async function build() {
  const result = await esbuild.build({
    entryPoints: [path.join(JS, "src", "widget.js")],
    absWorkingDir: JS, // the bundle names its modules relative to js/, wherever make runs
    bundle: true,
    format: "esm",
    target: "es2022",
    charset: "utf8",
    legalComments: "none",
    banner: { js: BANNER },
    write: false,
    outfile: path.join(OUT, "widget.js"),
    logLevel: "warning",
  });
  const bundle = result.outputFiles[0].text;
  const css = readFileSync(path.join(JS, "src", "widget.css"), "utf8");
  const listed = [
    ...sources().map((p) => `${sha256(readFileSync(path.join(ROOT, p)))}  ${p}`),
    `${sha256(bundle)}  applypatch_ext/js/widget.js`,
    `${sha256(css)}  applypatch_ext/js/widget.css`,
  ];
  return { "widget.js": bundle, "widget.css": css, "SOURCES.sha256": listed.join("\n") + "\n" };
}

const files = await build();
if (process.argv.includes("--check")) {
  const stale = Object.entries(files).filter(([name, text]) => {
    try {
      return readFileSync(path.join(OUT, name), "utf8") !== text;
    } catch {
      return true;
    }
  });
  for (const [name] of stale) console.error(`applypatch_ext/js/${name} is not what js/src/ builds: run \`make widget\``);
  process.exit(stale.length ? 1 : 0);
}
for (const [name, text] of Object.entries(files)) writeFileSync(path.join(OUT, name), text);
