/* Shared editor state: the page's config, the images, the instances per masklet, and the model operations on them.
 *
 * Masks live in memory as Uint8Array (row-major, 1 = inside) per instance and are exchanged with the server as
 * COCO RLE. Instance objects are immutable: an edit makes a new object, so undo/redo snapshots (history.js) are
 * cheap lists of references. Modules never import the ones above them; the two upward notifications — "the
 * instances or labels changed" and "the prompt was cleared" — go through on()/changed()/resetPrompt(), and
 * main.js subscribes the renderers and the autosave.
 */
import { decode as rleDecode, encode as rleEncode } from "../rle.js";

export const config = JSON.parse(document.getElementById("editor-config").textContent);
export const leaf = config.leaf;
// The item's localStorage backup (autosave.js); another item's once the page switches items in place (switch.js).
export let STORAGE_KEY = `annotation-item-${config.item.id}`;
const PALETTE = [
  [230, 25, 75], [60, 180, 75], [255, 225, 25], [0, 130, 200], [245, 130, 48], [145, 30, 180],
  [70, 240, 240], [240, 50, 230], [210, 245, 60], [250, 190, 212], [0, 128, 128], [220, 190, 255],
  [170, 110, 40], [255, 250, 200], [128, 0, 0], [170, 255, 195], [128, 128, 0], [255, 215, 180],
];
export const $ = (id) => document.getElementById(id);

export const images = config.item.images.map((img) => ({ ...img, el: null, loaded: false }));
let nextId = 1;
const firstMasklet = () => (leaf.masklets.find((m) => m.scored) || leaf.masklets[0]).name;
export const state = {
  version: config.item.version,
  itemState: config.item.state,
  masklet: firstMasklet(),
  instances: {},          // masklet -> [instance]
  selected: null,         // instance id
  multi: new Set(),       // ids selected for merging
  tool: "click",
  brush: 12,
  opacity: 0.45,
  outlines: true,
  hidden: false,
  view: { s: 1, tx: 0, ty: 0 },
  prompt: { points: [], box: null, proposals: [], pick: 0, lastRle: null, lastLowRes: null, id: 0 },
  polygon: [],
  findings: config.item.findings || [],
};

/** Which item the page shows: 1 for the page's own, one more at each in-place switch (a loop started for an earlier
 *  item, e.g. polling its embedding, stops when it sees another serial). */
export let itemSerial = 1;

/** Show another item in place (switch.js): `next` is its editor config (the same leaf as this page's); the page's
 *  images, instances, prompt, view and findings become the new item's, as a fresh page would start them. The tool,
 *  the brush, the opacity and the outlines stay the annotator's. */
export function itemReplace(next) {
  itemSerial++;
  for (const key of Object.keys(config)) delete config[key];
  Object.assign(config, next, { leaf });
  STORAGE_KEY = `annotation-item-${config.item.id}`;
  images.splice(0, images.length, ...config.item.images.map((img) => ({ ...img, el: null, loaded: false })));
  Object.assign(state, {
    version: config.item.version, itemState: config.item.state, masklet: firstMasklet(), instances: {},
    selected: null, polygon: [], findings: config.item.findings || [], view: { s: 1, tx: 0, ty: 0 },
  });
  state.multi.clear();
  resetPrompt();
}

/** An item in these states is the annotator's to edit; in any other (submitted, in review, accepted…) it is locked. */
export const EDITABLE_STATES = ["todo", "in_progress", "needs_revision"];
export function isLocked() { return !EDITABLE_STATES.includes(state.itemState); }

// ---------------------------------------------------------------- notifications ------------------
const listeners = { changed: [], prompt: [] };
/** Subscribe to "changed" (fn(opts): instances or labels edited) or "prompt" (fn(): the prompt was cleared). */
export function on(event, fn) { listeners[event].push(fn); }
/** Announce an edit (after checkpoint() and the mutation); opts.labelsOnly when only the label form changed. */
export function changed(opts = {}) { for (const fn of listeners.changed) fn(opts); }
let promptSeq = 0;
export function resetPrompt() {
  // `id` tells a new prompt set from more clicks on the same one (provenance keeps one entry per set).
  state.prompt = { points: [], box: null, proposals: [], pick: 0, lastRle: null, lastLowRes: null, id: ++promptSeq };
  for (const fn of listeners.prompt) fn();
}

// ---------------------------------------------------------------- model --------------------------
export function maskletSpec(name) { return leaf.masklets.find((m) => m.name === name); }
export function imageOf(masklet) { return images[maskletSpec(masklet).image]; }
export function currentImage() { return imageOf(state.masklet); }

export function makeInstance(mask, w, h, id, colour) {
  let x0 = w, y0 = h, x1 = -1, y1 = -1, area = 0;
  for (let y = 0; y < h; y++) {
    // The row's first and last set pixel by the typed array's own search (empty rows cost next to nothing).
    const row = mask.subarray(y * w, (y + 1) * w);
    const first = row.indexOf(1);
    if (first < 0) continue;
    const last = row.lastIndexOf(1);
    for (let x = first; x <= last; x++) area += row[x];
    if (first < x0) x0 = first;
    if (last > x1) x1 = last;
    if (y0 > y) y0 = y;
    y1 = y;
  }
  const newId = id || nextId++;
  return {
    id: newId, mask, w, h, area, colour: colour || PALETTE[(newId - 1) % PALETTE.length],
    bbox: area ? [x0, y0, x1, y1] : null, rle: null, canvas: null, bakedKey: null, edits: null, prov: null,
  };
}
export function rleOf(inst) { if (!inst.rle) inst.rle = rleEncode(inst.mask, inst.w, inst.h); return inst.rle; }
export function list(masklet) { return state.instances[masklet] || (state.instances[masklet] = []); }
export function findInstance(id) {
  for (const name of Object.keys(state.instances)) {
    const i = state.instances[name].findIndex((x) => x.id === id);
    if (i >= 0) return { masklet: name, index: i, inst: state.instances[name][i] };
  }
  return null;
}
export function selectedInstance() { return state.selected ? findInstance(state.selected) : null; }

/** Replace an instance's mask. `edits` ({base: RLE, ops: [...]}, see editsAfter) says which tool edits made the
 *  mask from a base; null (a SAM mask, a merge, an undo target…) makes the mask itself the base of later edits. */
export function replaceInstance(id, mask, edits = null, prov = undefined) {
  const found = findInstance(id);
  if (!found) return null;
  const img = imageOf(found.masklet);
  const inst = makeInstance(mask, img.width, img.height, id, found.inst.colour);
  inst.edits = edits;
  inst.prov = prov === undefined ? found.inst.prov : prov;  // how it was made (provenance.js)
  state.instances[found.masklet][found.index] = inst;
  return inst;
}
/** The edit log of `inst` with `op` appended: the save sends it, and the server replays it with
 *  annotation/core/edits.py (the one definition of each edit) and refuses a mask that differs. */
export function editsAfter(inst, op) {
  return inst.edits ? { base: inst.edits.base, ops: [...inst.edits.ops, op] } : { base: rleOf(inst), ops: [op] };
}
/** After a save the server holds these masks: they become the bases of later edits (the logs stay short). */
export function settleEdits() {
  for (const name of Object.keys(state.instances)) {
    state.instances[name] = state.instances[name].map((i) => (i.edits ? { ...i, edits: null } : i));
  }
}
export function addInstance(masklet, mask) {
  const img = imageOf(masklet);
  const inst = makeInstance(mask || new Uint8Array(img.width * img.height), img.width, img.height);
  list(masklet).push(inst);
  state.selected = inst.id;
  state.multi.clear();
  return inst;
}

/** Replace every layer's instances with the given RLEs ({masklet: [rle]}; missing layers start empty), each with
 *  its provenance entry when the server kept one ({masklet: [entry | null]}, see provenance.js). */
export function loadInstances(source, provenance = {}) {
  state.instances = {};
  for (const spec of leaf.masklets) {
    const img = images[spec.image];
    const entries = (provenance || {})[spec.name] || [];
    state.instances[spec.name] = ((source || {})[spec.name] || []).map((rle, k) => {
      const inst = makeInstance(rleDecode(rle), img.width, img.height);
      inst.rle = rle;
      const entry = entries[k];
      // The loaded mask is the reference later edits are measured against; its painted share so far is kept.
      if (entry) inst.prov = { ...entry, ref: inst.mask, priorShare: entry.painted_share || 0 };
      return inst;
    });
  }
}
