// Runs a Python script (read from stdin) in Pyodide under node, with the packages of a Pyodide
// distribution loaded first: `node pyodide_run.mjs DIST PACKAGE... < script.py`. DIST is a
// folder with pyodide.mjs and its pyodide-lock.json (the site's static/pyodide/). The script's
// stdout and stderr are node's; an uncaught Python exception exits 1 with its traceback.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, ...packages] = process.argv.slice(2);
const indexURL = path.resolve(dist) + "/";
const { loadPyodide } = await import(pathToFileURL(indexURL + "pyodide.mjs").href);
const pyodide = await loadPyodide({
  indexURL,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
await pyodide.loadPackage(packages, { messageCallback: () => {} });
try {
  await pyodide.runPythonAsync(fs.readFileSync(0, "utf8"));
} catch (error) {
  process.stderr.write(String(error.message ?? error) + "\n");
  process.exit(1);
}
