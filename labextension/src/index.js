// `%%apply_patch` cells edit as a patch, in JupyterLab 4 and Notebook 7.
//
// A code cell whose first line starts with `%%apply_patch` gets the "Codex patch" language
// (mime type text/x-codex-patch) instead of Python: Enter inserts a bare line break (no smart
// indentation after `@@ def f():`, no re-indentation of `else:`), and the Begin/End/Add/
// Delete/Update/Move markers, `@@` lines and `+`/`-`/context lines are highlighted. When the
// first line changes back, the cell gets its previous (kernel) language again.
//
// The second plugin (records.js) keeps each call's static record up to date after a page
// reload.
//
// Plain JavaScript on purpose: no compile step, only JupyterLab's builder (see README.md).

import { IEditorExtensionRegistry, IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import {
  HighlightStyle,
  LanguageSupport,
  StreamLanguage,
  syntaxHighlighting
} from '@codemirror/language';
import { Prec, RangeSetBuilder } from '@codemirror/state';
import { Decoration, EditorView, ViewPlugin, keymap } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { recordsPlugin } from './records.js';

export const PATCH_MIME = 'text/x-codex-patch';
const MAGIC = /^%%apply_patch(?=\s|$)/;

/** The kind of a patch line: what the line decoration and the token say it is. */
export function lineKind(text) {
  if (MAGIC.test(text)) return 'magic';
  if (/^\*\*\* (Begin Patch|End Patch|End of File)\s*$/.test(text)) return 'marker';
  if (/^\*\*\* (Add File|Delete File|Update File|Move to): /.test(text)) return 'file';
  if (text.startsWith('@@')) return 'hunk';
  if (text.startsWith('+')) return 'add';
  if (text.startsWith('-')) return 'del';
  return 'context';
}

// One token per line (a patch is line oriented), but for the file markers (marker, then the
// path) and the +/- lines (the marker character coloured, the text in the editor's colour on a
// tinted line: readable in every theme).
const parser = {
  name: 'codex-patch',
  startState: () => ({ kind: null }),
  token(stream, state) {
    if (stream.sol()) {
      state.kind = lineKind(stream.string);
      if (state.kind === 'file') {
        stream.match(/^\*\*\* [A-Za-z ]+: /);
        return 'keyword';
      }
      if (state.kind === 'add' || state.kind === 'del') {
        stream.next();
        return state.kind === 'add' ? 'inserted' : 'deleted';
      }
      stream.skipToEnd();
      return { magic: 'meta', marker: 'keyword', hunk: 'heading' }[state.kind] ?? null;
    }
    stream.skipToEnd();
    return state.kind === 'file' ? 'string' : null;
  },
  // Never indent: a patch line starts with its marker character, in column 0.
  indent: () => 0,
  languageData: { closeBrackets: { brackets: [] } }
};

// Markers, paths and @@ lines take JupyterLab's own colours (keyword, string, meta, heading).
const highlight = HighlightStyle.define([
  { tag: tags.inserted, color: 'var(--jp-success-color1)', fontWeight: 'bold' },
  { tag: tags.deleted, color: 'var(--jp-error-color1)', fontWeight: 'bold' }
]);

const lineDecorations = {};
for (const kind of ['magic', 'marker', 'file', 'hunk', 'add', 'del', 'context']) {
  lineDecorations[kind] = Decoration.line({
    attributes: { class: `applypatch-cm-line applypatch-cm-${kind}` }
  });
}

// Line classes over the visible ranges only: a 300 KB cell costs what its viewport shows.
function decorate(view) {
  const builder = new RangeSetBuilder();
  let last = -1; // a line split between two visible ranges is decorated once
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = view.state.doc.lineAt(pos);
      if (line.from > last) builder.add(line.from, line.from, lineDecorations[lineKind(line.text)]);
      last = line.from;
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

const linePlugin = ViewPlugin.fromClass(
  class {
    constructor(view) {
      this.decorations = decorate(view);
    }
    update(update) {
      if (update.docChanged || update.viewportChanged) this.decorations = decorate(update.view);
    }
  },
  { decorations: plugin => plugin.decorations }
);

// Tints of the theme's own colours: readable in the light, dark and high-contrast themes.
const tint = (variable, percent) => `color-mix(in srgb, var(${variable}) ${percent}%, transparent)`;
const lineTheme = EditorView.baseTheme({
  '.applypatch-cm-add': { backgroundColor: tint('--jp-success-color1', 14) },
  '.applypatch-cm-del': { backgroundColor: tint('--jp-error-color1', 14) },
  '.applypatch-cm-hunk': { backgroundColor: tint('--jp-info-color1', 12) }
});

/** Enter inserts a line break and nothing else: no indentation, no trimmed whitespace. */
function insertBareNewline(view) {
  if (view.state.readOnly) return false;
  view.dispatch(
    view.state.update(view.state.replaceSelection(view.state.lineBreak), {
      scrollIntoView: true,
      userEvent: 'input'
    })
  );
  return true;
}

export const patchLanguage = StreamLanguage.define(parser);
export const patchSupport = new LanguageSupport(patchLanguage, [
  syntaxHighlighting(highlight),
  linePlugin,
  lineTheme,
  Prec.highest(keymap.of([{ key: 'Enter', run: insertBareNewline }]))
]);

/** Whether a cell source is a `%%apply_patch` cell. */
export function isPatchCell(source) {
  return MAGIC.test(source);
}

const watched = new WeakSet();

/**
 * Keep a code cell's mime type in step with its first line. `previous` remembers the mime type
 * the notebook gave the cell (the kernel's language), restored when the magic goes away; when
 * the notebook sets it again (a kernel change), the new one is remembered and the cell stays a
 * patch.
 */
function watch(model) {
  const shared = model.sharedModel;
  if (watched.has(model) || !shared || shared.cell_type !== 'code') return;
  watched.add(model);
  let previous = model.mimeType === PATCH_MIME ? 'text/x-ipython' : model.mimeType;
  let patch = false;
  let firstBreak = -1; // where the first line ends: edits after it cannot change the answer
  const sync = () => {
    const source = shared.getSource();
    firstBreak = source.indexOf('\n');
    patch = isPatchCell(source);
    const wanted = patch ? PATCH_MIME : previous;
    if (model.mimeType !== wanted) model.mimeType = wanted;
  };
  shared.changed.connect((_, change) => {
    const delta = change.sourceChange;
    if (!delta) return;
    if (firstBreak >= 0 && delta[0] && delta[0].retain > firstBreak) return;
    sync();
  });
  model.mimeTypeChanged.connect((_, change) => {
    if (change.newValue !== PATCH_MIME) {
      previous = change.newValue;
      if (patch) model.mimeType = PATCH_MIME;
    }
  });
  sync();
}

const plugin = {
  id: 'applypatch-ext:patch-cells',
  description: 'Edit %%apply_patch cells as a patch: no auto-indent, patch highlighting.',
  autoStart: true,
  requires: [IEditorExtensionRegistry, IEditorLanguageRegistry],
  activate(app, extensions, languages) {
    languages.addLanguage({
      name: 'codex-patch',
      displayName: 'Codex patch (%%apply_patch)',
      mime: PATCH_MIME,
      support: patchSupport
    });
    // Every new editor passes through here with its model: code cells of notebooks and
    // consoles are watched; the extension itself adds nothing to the editor.
    extensions.addExtension({
      name: 'applypatch-ext:patch-cells',
      factory: ({ model }) => {
        watch(model);
        return null;
      }
    });
  }
};

export default [plugin, recordsPlugin];
