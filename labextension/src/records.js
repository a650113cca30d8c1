// A call's static record stays true after a page reload, in JupyterLab 4 and Notebook 7.
//
// Each `%%apply_patch` call shows its static record (an output marked
// `metadata.applypatch_ext.record = ID`, displayed with the display id ID) beside its live
// view, and the kernel updates the record (`update_display_data` for ID) when the call ends,
// asks for approval or is answered. JupyterLab routes such an update to the outputs the same
// page saw displayed; a page reloaded, or left and come back to, loaded its outputs from the
// file and knows no display id any more: the update reached nothing, and the record kept saying
// "waiting for approval" after the call was answered, in the page and in the file saved next.
// Here every update whose display id is the record id of outputs of the notebook replaces those
// outputs, unless they already show it (JupyterLab's own routing did it first).
//
// Plain JavaScript on purpose: no compile step, only JupyterLab's builder (see README.md).

import { INotebookTracker } from '@jupyterlab/notebook';

/** The key of the output metadata that marks a call's record and live view (live_views.py). */
export const OUTPUT_KEY = 'applypatch_ext';

/**
 * Every output of `cells` (a notebook model's cell list) that is the record `id`, as
 * `[outputs, index]`: the cell's output area model and the output's place in it.
 */
export function* recordOutputs(cells, id) {
  for (let c = 0; c < cells.length; c++) {
    const outputs = cells.get(c).outputs;
    if (!outputs) continue; // a Markdown or raw cell
    for (let i = 0; i < outputs.length; i++) {
      const marks = outputs.get(i).metadata?.[OUTPUT_KEY];
      if (marks && typeof marks === 'object' && marks.record === id) yield [outputs, i];
    }
  }
}

/**
 * Route one IOPub message of the notebook's kernel: an `update_display_data` whose display id
 * is a record's id replaces each output of that record that does not show it yet. Returns how
 * many outputs it replaced.
 */
export function routeUpdate(cells, msg) {
  if (msg?.header?.msg_type !== 'update_display_data') return 0;
  const content = msg.content ?? {};
  const id = content.transient?.display_id;
  if (typeof id !== 'string' || id === '' || !content.data) return 0;
  const data = JSON.stringify(content.data);
  let replaced = 0;
  for (const [outputs, index] of [...recordOutputs(cells, id)]) {
    if (JSON.stringify(outputs.get(index).data) === data) continue;
    outputs.set(index, {
      output_type: 'display_data',
      data: content.data,
      metadata: content.metadata ?? {}
    });
    replaced += 1;
  }
  return replaced;
}

/** Follow the kernel of one notebook panel, as long as the panel lives. */
function follow(panel) {
  const session = panel.sessionContext;
  const onMessage = (_, msg) => {
    const model = panel.content.model;
    if (model) routeUpdate(model.cells, msg);
  };
  session.iopubMessage.connect(onMessage);
  panel.disposed.connect(() => session.iopubMessage.disconnect(onMessage));
}

export const recordsPlugin = {
  id: 'applypatch-ext:records',
  description: "Keeps each %%apply_patch call's record up to date after a page reload.",
  autoStart: true,
  requires: [INotebookTracker],
  activate(app, tracker) {
    tracker.widgetAdded.connect((_, panel) => follow(panel));
  }
};
