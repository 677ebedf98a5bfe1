/* Undo/redo: snapshots of the instance lists (cheap: instances are immutable, so a snapshot is lists of references). */
import { changed, isLocked, resetPrompt, state } from "./state.js";

const undoStack = [], redoStack = [];

function snapshot() {
  const copy = {};
  for (const k of Object.keys(state.instances)) copy[k] = state.instances[k].slice();
  return { instances: copy, selected: state.selected };
}
function restore(snap) {
  state.instances = {};
  for (const k of Object.keys(snap.instances)) state.instances[k] = snap.instances[k].slice();
  state.selected = snap.selected;
  state.multi.clear();
}
/** Record the state before a change; call, then mutate, then changed(). */
export function checkpoint() {
  undoStack.push(snapshot());
  if (undoStack.length > 60) undoStack.shift();
  redoStack.length = 0;
}
export function undo() {
  if (!undoStack.length || isLocked()) return;
  redoStack.push(snapshot());
  restore(undoStack.pop());
  resetPrompt();
  changed();
}
export function redo() {
  if (!redoStack.length || isLocked()) return;
  undoStack.push(snapshot());
  restore(redoStack.pop());
  resetPrompt();
  changed();
}
/** Another item is shown (switch.js): its undo starts empty (an undo must never bring back the previous item's masks). */
export function clearHistory() {
  undoStack.length = 0;
  redoStack.length = 0;
}
