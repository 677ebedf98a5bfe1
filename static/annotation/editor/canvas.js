/* The view: draws the image, the masks (each baked once into a bounding-box canvas, all of an image's composited
   once into a layer at the image's resolution) and the prompt overlays; zoom, fit and the HUD line. */
import { $, currentImage, images, leaf, list, state } from "./state.js";

export const canvas = $("canvas");
const ctx = canvas.getContext("2d");
/** What the pointer is doing, set by tools.js and shortcuts.js and read when drawing:
    drag {kind: "pan" | "box" | "paint", …}, hover {x, y} in image pixels, spaceDown (Space held: pan),
    preview: an image-sized canvas with SAM's mask under the pointer (prompts.js), or null. */
export const pointer = { drag: null, hover: null, spaceDown: false, preview: null };

let dirty = false;
export function requestDraw() { if (!dirty) { dirty = true; requestAnimationFrame(draw); } }

/** An RGBA colour as the 32-bit word an ImageData's Uint32Array view holds (its bytes, little-endian). */
export function rgbaWord(r, g, b, a) { return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0; }

let bakes = 0;  // a serial per baking: the mask layer's key
/** Bake an instance's fill and outline into a canvas the size of its bounding box. */
function baked(inst, current) {
  const selected = inst.id === state.selected || state.multi.has(inst.id);
  const key = [state.opacity, state.outlines, selected, current].join("|");
  if (inst.canvas && inst.bakedKey === key) return inst.canvas;
  const [x0, y0, x1, y1] = inst.bbox;
  const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  const off = inst.canvas || document.createElement("canvas");
  off.width = bw; off.height = bh;
  const octx = off.getContext("2d");
  const data = octx.createImageData(bw, bh);
  const px = new Uint32Array(data.data.buffer), m = inst.mask, w = inst.w, h = inst.h;
  // The selected instance in its own (swatch) colour, filled more strongly; a white outline made it look grey.
  const fillA = Math.round(255 * Math.min(0.85, state.opacity * (selected ? 1.6 : 1)) * (current ? 1 : 0.5));
  const [r, g, b] = inst.colour;
  const fill = rgbaWord(r, g, b, fillA), edge = rgbaWord(r, g, b, 255);
  for (let y = y0; y <= y1; y++) {
    const row = y * w, o = (y - y0) * bw - x0;
    const border = y === 0 || y === h - 1;
    for (let x = x0; x <= x1; x++) {
      const i = row + x;
      if (!m[i]) continue;
      const isEdge = state.outlines && (border || x === 0 || x === w - 1 ||
        !m[i - 1] || !m[i + 1] || !m[i - w] || !m[i + w]);
      px[o + x] = isEdge ? edge : fill;
    }
  }
  octx.putImageData(data, 0, 0);
  inst.canvas = off;
  inst.bakedKey = key;
  inst.bakedSerial = ++bakes;
  return off;
}

/** The masks of image `img`, composited at its resolution: rebuilt (one unscaled copy per instance) only when an
 *  instance was baked again or the set changed, so a frame draws one scaled layer, not one per instance (on a
 *  software-rasterised canvas each scaled, smoothed copy of an image-sized mask costs ~2 ms; the page shares the
 *  CPU with the decoder's threads). */
const layer = { key: "", canvas: null };
function maskLayer(img) {
  const parts = [];
  for (const spec of leaf.masklets) {
    if (images[spec.image] !== img) continue;
    const current = spec.name === state.masklet;
    for (const inst of list(spec.name)) if (inst.bbox) parts.push([baked(inst, current), inst]);
  }
  const key = `${img.id}:${img.width}x${img.height}:${parts.map(([, inst]) => inst.bakedSerial).join(",")}`;
  if (layer.key !== key) {
    const off = layer.canvas || document.createElement("canvas");
    if (off.width !== img.width || off.height !== img.height) { off.width = img.width; off.height = img.height; }
    const octx = off.getContext("2d");
    octx.clearRect(0, 0, off.width, off.height);
    for (const [baking, inst] of parts) octx.drawImage(baking, inst.bbox[0], inst.bbox[1]);
    layer.key = key;
    layer.canvas = off;
  }
  return parts.length ? layer.canvas : null;
}

function resizeCanvas() {
  const rect = canvas.getBoundingClientRect();
  const w = Math.max(200, Math.floor(rect.width)), h = Math.max(200, Math.floor(rect.height));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
}

function hudText() {
  const n = Object.values(state.instances).reduce((a, l) => a + l.length, 0);
  return `${Math.round(state.view.s * 100)}% · ${n} instance(s) · version ${state.version}`;
}
export function updateHud() { $("hud").textContent = hudText(); }

/** Fit the current image into the canvas. */
export function fit() {
  resizeCanvas();
  const img = currentImage();
  const s = Math.min(canvas.width / img.width, canvas.height / img.height);
  state.view = { s, tx: (canvas.width - img.width * s) / 2, ty: (canvas.height - img.height * s) / 2 };
  updateHud();
  requestDraw();
}

/** Zoom by `factor` keeping the canvas point (cx, cy) in place. */
export function zoomAt(factor, cx, cy) {
  const v = state.view;
  const s = Math.min(40, Math.max(0.05, v.s * factor));
  v.tx = cx - (cx - v.tx) * (s / v.s);
  v.ty = cy - (cy - v.ty) * (s / v.s);
  v.s = s;
  updateHud();
  requestDraw();
}

/** A mouse event's position in image pixels. */
export function toImage(ev) {
  const rect = canvas.getBoundingClientRect();
  const v = state.view;
  return { x: (ev.clientX - rect.left - v.tx) / v.s, y: (ev.clientY - rect.top - v.ty) / v.s };
}

function draw() {
  dirty = false;
  resizeCanvas();
  const v = state.view, img = currentImage();
  const { drag, hover } = pointer;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(v.s, 0, 0, v.s, v.tx, v.ty);
  ctx.imageSmoothingEnabled = v.s < 2;
  if (img.loaded) ctx.drawImage(img.el, 0, 0);
  const masks = state.hidden ? null : maskLayer(img);
  if (masks) ctx.drawImage(masks, 0, 0);
  if (pointer.preview && state.tool === "click") ctx.drawImage(pointer.preview, 0, 0);
  const lw = 2 / v.s;
  const p = state.prompt;
  if (p.box) {
    ctx.strokeStyle = "#00e5ff"; ctx.lineWidth = lw; ctx.setLineDash([6 / v.s, 4 / v.s]);
    ctx.strokeRect(p.box[0], p.box[1], p.box[2] - p.box[0], p.box[3] - p.box[1]);
    ctx.setLineDash([]);
  }
  if (drag && drag.kind === "box") {
    ctx.strokeStyle = "#00e5ff"; ctx.lineWidth = lw;
    ctx.strokeRect(drag.x0, drag.y0, drag.x - drag.x0, drag.y - drag.y0);
  }
  for (const [x, y, label] of p.points) {
    ctx.beginPath(); ctx.arc(x, y, 6 / v.s, 0, 2 * Math.PI);
    ctx.fillStyle = label ? "#2ecc40" : "#ff4136"; ctx.fill();
    ctx.lineWidth = lw; ctx.strokeStyle = "#fff"; ctx.stroke();
  }
  if (state.polygon.length) {
    ctx.beginPath(); ctx.moveTo(state.polygon[0][0], state.polygon[0][1]);
    for (const [x, y] of state.polygon.slice(1)) ctx.lineTo(x, y);
    if (hover) ctx.lineTo(hover.x, hover.y);
    ctx.strokeStyle = "#ffdc00"; ctx.lineWidth = lw; ctx.stroke();
  }
  if (hover && (state.tool === "brush" || state.tool === "eraser")) {
    ctx.beginPath(); ctx.arc(hover.x, hover.y, state.brush, 0, 2 * Math.PI);
    ctx.strokeStyle = state.tool === "brush" ? "#fff" : "#ff4136"; ctx.lineWidth = lw; ctx.stroke();
  }
}
