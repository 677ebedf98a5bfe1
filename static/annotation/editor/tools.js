/* Mask tools (brush, eraser, polygon, fill holes), the tool and brush-size controls, and the pointer input on the
   canvas, which hands clicks and boxes to prompts.js and pans/zooms the view. */
import { canvas, pointer, requestDraw, toImage, zoomAt } from "./canvas.js";
import { checkpoint } from "./history.js";
import { renderInstances } from "./instances.js";
import { clearHover, hoverAt, promptPoint, runSegment } from "./prompts.js";
import { provAfterEdit } from "./provenance.js";
import {
  $, addInstance, changed, currentImage, editsAfter, isLocked, list, replaceInstance, resetPrompt, selectedInstance,
  state,
} from "./state.js";

// ---------------------------------------------------------------- mask operations ----------------
export function stamp(mask, w, h, cx, cy, r, value) {
  const x0 = Math.max(0, Math.floor(cx - r)), x1 = Math.min(w - 1, Math.ceil(cx + r));
  const y0 = Math.max(0, Math.floor(cy - r)), y1 = Math.min(h - 1, Math.ceil(cy + r));
  const r2 = r * r;
  for (let y = y0; y <= y1; y++) {
    const dy = y + 0.5 - cy;
    for (let x = x0; x <= x1; x++) {
      const dx = x + 0.5 - cx;
      if (dx * dx + dy * dy <= r2) mask[y * w + x] = value;
    }
  }
}
// The same arithmetic as annotation/core/edits.py (_stamp, _stroke, _polygon_area): the server replays every edit
// the editor sends with a save and refuses a mask that differs, so keep the two identical.
export function strokeTo(mask, w, h, a, b, r, value) {
  const dist = Math.sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y));
  const steps = Math.max(1, Math.ceil(dist / Math.max(1, r / 2)));
  for (let i = 1; i <= steps; i++) stamp(mask, w, h, a.x + (b.x - a.x) * i / steps, a.y + (b.y - a.y) * i / steps, r, value);
}

export function fillHoles(mask, w, h) {
  // Background reachable from the border (4-connected) stays; every other background pixel is a hole.
  const seen = new Uint8Array(w * h);
  const queue = new Int32Array(w * h);
  let head = 0, tail = 0;
  const push = (i) => { if (!mask[i] && !seen[i]) { seen[i] = 1; queue[tail++] = i; } };
  for (let x = 0; x < w; x++) { push(x); push((h - 1) * w + x); }
  for (let y = 0; y < h; y++) { push(y * w); push(y * w + w - 1); }
  while (head < tail) {
    const i = queue[head++], x = i % w;
    if (x > 0) push(i - 1);
    if (x < w - 1) push(i + 1);
    if (i >= w) push(i - w);
    if (i < w * (h - 1)) push(i + w);
  }
  const out = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) out[i] = mask[i] || !seen[i] ? 1 : 0;
  return out;
}

export function polygonMask(points, w, h) {
  // Pixels whose centre is inside (even-odd), row by row, as edits.py's _polygon_area.
  const mask = new Uint8Array(w * h);
  const ys = points.map((p) => p[1]);
  const yStart = Math.max(0, Math.floor(Math.min(...ys))), yEnd = Math.min(h, Math.ceil(Math.max(...ys)) + 1);
  for (let y = yStart; y < yEnd; y++) {
    const yc = y + 0.5, xs = [];
    for (let i = 0; i < points.length; i++) {
      const [x0, y0] = points[i], [x1, y1] = points[(i + 1) % points.length];
      if ((y0 <= yc && yc < y1) || (y1 <= yc && yc < y0)) xs.push(x0 + (yc - y0) * (x1 - x0) / (y1 - y0));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const start = Math.max(0, Math.ceil(xs[k] - 0.5)), stop = Math.min(w, Math.ceil(xs[k + 1] - 0.5));
      for (let x = start; x < stop; x++) mask[y * w + x] = 1;
    }
  }
  return mask;
}

/** The selected instance if it is on the current layer, else a new empty one there. */
function ensureSelected() {
  let sel = selectedInstance();
  if (!sel || sel.masklet !== state.masklet) { addInstance(state.masklet); sel = selectedInstance(); }
  return sel;
}

export function closePolygon() {
  if (isLocked()) { state.polygon = []; return; }
  if (state.polygon.length < 3) { state.polygon = []; requestDraw(); return; }
  const img = currentImage();
  checkpoint();
  const sel = ensureSelected();
  const poly = polygonMask(state.polygon, img.width, img.height);
  const mask = sel.inst.mask.slice();
  for (let i = 0; i < mask.length; i++) if (poly[i]) mask[i] = 1;
  const op = { op: "polygon", points: state.polygon.map(([x, y]) => [x, y]), add: true };
  replaceInstance(sel.inst.id, mask, editsAfter(sel.inst, op), provAfterEdit(sel.inst, "polygon", mask));
  state.polygon = [];
  resetPrompt();
  changed();
}

export function fillSelected() {
  if (isLocked()) return;
  const sel = selectedInstance();
  if (!sel) return;
  checkpoint();
  const filled = fillHoles(sel.inst.mask, sel.inst.w, sel.inst.h);
  replaceInstance(sel.inst.id, filled, editsAfter(sel.inst, { op: "fill_holes" }),
                  provAfterEdit(sel.inst, "fill_holes", filled));
  changed();
}

// ---------------------------------------------------------------- controls -----------------------
export function setTool(tool) {
  state.tool = tool;
  if (tool !== "click") clearHover();
  if (tool !== "polygon") state.polygon = [];
  for (const b of document.querySelectorAll("[data-tool]")) b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
  canvas.style.cursor = tool === "pan" ? "grab" : tool === "select" ? "default" : "crosshair";
  requestDraw();
}

export function setBrush(size) {
  state.brush = Math.max(1, Math.min(120, size));
  $("brush-size").value = state.brush;
  $("brush-size-out").textContent = state.brush;
  requestDraw();
}

// ---------------------------------------------------------------- pointer input ------------------
function inside(p) { const img = currentImage(); return p.x >= 0 && p.y >= 0 && p.x < img.width && p.y < img.height; }

function onMouseDown(ev) {
  canvas.focus();
  const p = toImage(ev);
  const img = currentImage();
  if (state.tool === "pan" || pointer.spaceDown || ev.button === 1) {
    pointer.drag = { kind: "pan", sx: ev.clientX, sy: ev.clientY, tx: state.view.tx, ty: state.view.ty };
    return;
  }
  if (!inside(p)) return;
  if (isLocked() && state.tool !== "select") return;  // submitted: nothing on the canvas changes the masks
  if (state.tool === "click") {
    const label = ev.button === 2 || ev.altKey ? 0 : 1;
    state.prompt.points.push([...promptPoint(p.x, p.y), label]);
    runSegment(ev.timeStamp);  // draws the point: with its mask when the browser decodes it, else at once
  } else if (state.tool === "box") {
    pointer.drag = { kind: "box", x0: p.x, y0: p.y, x: p.x, y: p.y };
  } else if (state.tool === "brush" || state.tool === "eraser") {
    checkpoint();
    const sel = ensureSelected();
    const mask = sel.inst.mask.slice();
    stamp(mask, img.width, img.height, p.x, p.y, state.brush, state.tool === "brush" ? 1 : 0);
    // One stroke is one edit; its points grow while the mouse moves (the intermediate instances are dropped).
    const op = { op: state.tool === "brush" ? "brush" : "erase", radius: state.brush, points: [[p.x, p.y]] };
    const edits = editsAfter(sel.inst, op);
    replaceInstance(sel.inst.id, mask, edits);
    // The instance before the stroke: the stroke's provenance entry is measured against it when it ends.
    pointer.drag = { kind: "paint", last: p, id: sel.inst.id, mask, op, edits, before: sel.inst };
    requestDraw();
  } else if (state.tool === "polygon") {
    state.polygon.push([p.x, p.y]);
    requestDraw();
  } else if (state.tool === "select") {
    const x = Math.floor(p.x), y = Math.floor(p.y);
    const hit = list(state.masklet).slice().reverse().find((i) => i.mask[y * i.w + x]);
    state.selected = hit ? hit.id : null;
    state.multi.clear();
    resetPrompt();
    renderInstances(); requestDraw();
  }
}

function onMouseMove(ev) {
  const p = toImage(ev);
  const drag = pointer.drag;
  pointer.hover = p;
  if (!drag) {
    if (["brush", "eraser", "polygon"].includes(state.tool)) requestDraw();
    else if (state.tool === "click" && ev.target === canvas && !pointer.spaceDown) hoverAt(p.x, p.y);
    return;
  }
  if (drag.kind === "pan") {
    state.view.tx = drag.tx + ev.clientX - drag.sx;
    state.view.ty = drag.ty + ev.clientY - drag.sy;
  } else if (drag.kind === "box") {
    const img = currentImage();
    drag.x = Math.min(Math.max(p.x, 0), img.width); drag.y = Math.min(Math.max(p.y, 0), img.height);
  } else if (drag.kind === "paint") {
    const img = currentImage();
    strokeTo(drag.mask, img.width, img.height, drag.last, p, drag.op.radius, drag.op.op === "brush" ? 1 : 0);
    drag.op.points.push([p.x, p.y]);
    drag.last = p;
    const inst = replaceInstance(drag.id, drag.mask, drag.edits);
    drag.mask = inst.mask;
  }
  requestDraw();
}

function onMouseUp(ev) {
  const d = pointer.drag;
  if (!d) return;
  pointer.drag = null;
  if (d.kind === "box") {
    const box = [Math.min(d.x0, d.x), Math.min(d.y0, d.y), Math.max(d.x0, d.x), Math.max(d.y0, d.y)].map((v) => Math.round(v));
    if (box[2] - box[0] >= 2 && box[3] - box[1] >= 2) {
      state.prompt.box = box;
      runSegment(ev.timeStamp);  // draws the box: with its mask when the browser decodes it, else at once
      return;
    }
  } else if (d.kind === "paint") {
    replaceInstance(d.id, d.mask, d.edits, provAfterEdit(d.before, d.op.op, d.mask));
    resetPrompt();
    changed();
  }
  requestDraw();
}

/** Listen to the mouse on the canvas (moves and releases on the whole window, so drags may leave it). */
export function bindPointer() {
  canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());
  canvas.addEventListener("mousedown", onMouseDown);
  window.addEventListener("mousemove", onMouseMove);
  window.addEventListener("mouseup", onMouseUp);
  canvas.addEventListener("mouseleave", clearHover);
  canvas.addEventListener("dblclick", () => { if (state.tool === "polygon") closePolygon(); });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const rect = canvas.getBoundingClientRect();
    zoomAt(ev.deltaY < 0 ? 1.2 : 1 / 1.2, ev.clientX - rect.left, ev.clientY - rect.top);
  }, { passive: false });
}
