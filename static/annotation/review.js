/* Review page: draws the pinned version (image + masks, read-only) and lets the reviewer drop markers with notes.
 *
 * An ES module, no build step. Masks arrive as COCO RLE (column-major runs, compressed string). Markers are kept in a
 * hidden JSON field of the review form ([{image, x, y, note}] in image pixels); the server checks them again.
 */
import { decode } from "./rle.js";

const payload = JSON.parse(document.getElementById("review-payload").textContent);
const $ = (id) => document.getElementById(id);

/** Paint one RLE into RGBA pixels (row-major) with a colour; outline pixels stronger. */
function paint(data, rle, w, h, colour, alpha) {
  const mask = decode(rle);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const m = mask[y * w + x];
      if (!m) continue;
      const edge = x === 0 || y === 0 || x === w - 1 || y === h - 1 || !mask[y * w + x - 1] ||
        !mask[y * w + x + 1] || !mask[(y - 1) * w + x] || !mask[(y + 1) * w + x];
      const a = edge ? 1 : alpha, o = (y * w + x) * 4;
      for (let c = 0; c < 3; c++) data[o + c] = Math.round(data[o + c] * (1 - a) + colour[c] * a);
    }
  }
}

const markers = [];
const views = [];
const PALETTE = { scored: [[40, 220, 90], [255, 200, 0], [230, 25, 75], [145, 30, 180], [245, 130, 48]],
                  reference: [[0, 130, 200], [70, 240, 240], [170, 110, 40]] };

function renderMarkers() {
  $("markers").value = JSON.stringify(markers);
  const list = $("marker-list");
  list.textContent = "";
  markers.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = `#${i + 1} image ${m.image + 1} (${Math.round(m.x)}, ${Math.round(m.y)})${m.note ? `: ${m.note}` : ""} `;
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = "remove";
    b.addEventListener("click", () => { markers.splice(i, 1); renderMarkers(); views.forEach(draw); });
    li.append(b);
    list.append(li);
  });
}

/** One instance as an image-sized overlay canvas (fill and a stronger outline). */
function overlay(rle, w, h, colour) {
  const off = document.createElement("canvas");
  off.width = w; off.height = h;
  const octx = off.getContext("2d");
  const data = octx.createImageData(w, h);
  // Transparent pixels: paint() blends into (0,0,0,0); set the alpha where the mask is.
  paint(data.data, rle, w, h, colour, 1);
  const mask = decode(rle);
  let area = 0;
  for (let i = 0; i < w * h; i++) {
    if (!mask[i]) continue;
    area++;
    const x = i % w, y = (i - x) / w;
    const edge = x === 0 || y === 0 || x === w - 1 || y === h - 1 || !mask[i - 1] || !mask[i + 1] || !mask[i - w] || !mask[i + w];
    data.data[i * 4 + 3] = edge ? 255 : 100;
  }
  octx.putImageData(data, 0, 0);
  return { canvas: off, area };
}

/** Draw a view: the image, the instances switched on, the markers; zoomed and panned by view.s, tx, ty. */
function draw(view) {
  const { canvas, img, layers } = view;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(view.s, 0, 0, view.s, view.tx, view.ty);
  ctx.imageSmoothingEnabled = view.s < 2;
  ctx.drawImage(img, 0, 0);
  for (const layer of layers) if (layer.shown) ctx.drawImage(layer.canvas, 0, 0);
  markers.forEach((m, i) => {
    if (m.image !== view.index) return;
    const r = 9 / view.s;
    ctx.beginPath(); ctx.arc(m.x, m.y, r, 0, 2 * Math.PI);
    ctx.fillStyle = "rgba(255, 220, 0, 0.9)"; ctx.fill();
    ctx.strokeStyle = "#000"; ctx.lineWidth = 2 / view.s; ctx.stroke();
    ctx.fillStyle = "#000"; ctx.font = `bold ${11 / view.s}px sans-serif`; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    ctx.fillText(String(i + 1), m.x, m.y);
  });
}

/** The image point under a mouse event (canvas pixels may differ from CSS pixels). */
function toImage(view, ev) {
  const r = view.canvas.getBoundingClientRect();
  const cx = (ev.clientX - r.left) * (view.canvas.width / r.width), cy = (ev.clientY - r.top) * (view.canvas.height / r.height);
  return { x: (cx - view.tx) / view.s, y: (cy - view.ty) / view.s };
}

function fit(view) { view.s = view.fit; view.tx = 0; view.ty = 0; draw(view); }

function zoomAt(view, factor, cx, cy) {
  const s = Math.min(40, Math.max(view.fit, view.s * factor));
  view.tx = cx - (cx - view.tx) * (s / view.s);
  view.ty = cy - (cy - view.ty) * (s / view.s);
  view.s = s;
  if (s === view.fit) { view.tx = 0; view.ty = 0; }
  draw(view);
}

function toggles(view, info) {
  const box = document.createElement("div");
  box.className = "review-toggles";
  box.dataset.image = String(view.index);
  const zoom = document.createElement("span");
  for (const [label, act] of [["+", () => zoomAt(view, 1.5, view.canvas.width / 2, view.canvas.height / 2)],
    ["−", () => zoomAt(view, 1 / 1.5, view.canvas.width / 2, view.canvas.height / 2)], ["Fit", () => fit(view)]]) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = label;
    b.title = label === "Fit" ? "Fit the image" : `Zoom ${label === "+" ? "in" : "out"} (or use the wheel; drag to pan)`;
    b.dataset.zoom = label;
    b.addEventListener("click", act);
    zoom.append(b);
  }
  box.append(zoom);
  view.layers.forEach((layer, k) => {
    const label = document.createElement("label");
    label.className = "check";
    const input = document.createElement("input");
    input.type = "checkbox"; input.checked = true; input.dataset.layer = String(k);
    input.addEventListener("change", () => { layer.shown = input.checked; draw(view); });
    const sw = document.createElement("span");
    sw.className = "swatch"; sw.style.background = `rgb(${layer.colour.join(",")})`;
    if (layer.proposal) { label.dataset.proposal = "1"; sw.style.outline = "2px dashed #000"; }
    label.append(input, sw, ` ${layer.name} #${layer.number} (${layer.area} px${layer.proposal ? `, IoU ${layer.iou.toFixed(3)}` : ""})`);
    box.append(label);
  });
  return box;
}

/** The model's fresh proposal where it disagrees with a mask (consensus): light fill, dashed outline. */
function proposalOverlay(rle, w, h) {
  const off = document.createElement("canvas");
  off.width = w; off.height = h;
  const octx = off.getContext("2d");
  const data = octx.createImageData(w, h);
  const mask = decode(rle);
  let area = 0;
  for (let i = 0; i < w * h; i++) {
    if (!mask[i]) continue;
    area++;
    const x = i % w, y = (i - x) / w;
    const edge = x === 0 || y === 0 || x === w - 1 || y === h - 1 || !mask[i - 1] || !mask[i + 1] || !mask[i - w] || !mask[i + w];
    if (edge && ((x + y) >> 2) % 2) continue;  // dashes along the outline
    const o = i * 4;
    data.data[o] = PROPOSAL[0]; data.data[o + 1] = PROPOSAL[1]; data.data[o + 2] = PROPOSAL[2];
    data.data[o + 3] = edge ? 255 : 60;
  }
  octx.putImageData(data, 0, 0);
  return { canvas: off, area };
}
const PROPOSAL = [0, 229, 255];

function show(info, index) {
  const img = new Image();
  img.onload = () => {
    const layers = [];
    for (const spec of payload.masklets) {
      if (spec.image !== index) continue;
      const colours = spec.scored ? PALETTE.scored : PALETTE.reference;
      (payload.instances[spec.name] || []).forEach((rle, k) => {
        const colour = colours[k % colours.length];
        const { canvas, area } = overlay(rle, info.width, info.height, colour);
        layers.push({ name: spec.name, number: k + 1, colour, canvas, area, shown: true });
      });
    }
    for (const p of payload.proposals || []) {
      const spec = payload.masklets.find((m) => m.name === p.masklet);
      if (!spec || spec.image !== index || !p.rle) continue;
      const { canvas, area } = proposalOverlay(p.rle, info.width, info.height);
      layers.push({ name: `${p.backend} proposal for ${p.masklet}`, number: p.index + 1, colour: PROPOSAL, canvas,
                    area, shown: true, proposal: true, iou: p.iou });
      window.reviewPage.proposals += 1;
    }
    // The canvas fits the card's width (a 1280x720 image no longer overflows it); zoom and pan inside it.
    const room = Math.max(200, $("review-images").clientWidth || 860);
    const fitScale = Math.min(1, room / info.width);
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(info.width * fitScale); canvas.height = Math.round(info.height * fitScale);
    canvas.className = "review-canvas";
    canvas.dataset.image = String(index);
    canvas.setAttribute("aria-label", `Image ${index + 1} with the submitted masks; click to add a marker, wheel to zoom, drag to pan`);
    const view = { canvas, img, layers, index, fit: fitScale, s: fitScale, tx: 0, ty: 0 };
    views.push(view);
    let drag = null;
    canvas.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, y: ev.clientY, tx: view.tx, ty: view.ty, moved: false }; });
    window.addEventListener("mousemove", (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved || view.s === view.fit) return;
      const k = canvas.width / canvas.getBoundingClientRect().width;
      view.tx = drag.tx + dx * k; view.ty = drag.ty + dy * k;
      draw(view);
    });
    window.addEventListener("mouseup", () => { setTimeout(() => { drag = null; }, 0); });
    canvas.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const r = canvas.getBoundingClientRect();
      const k = canvas.width / r.width;
      zoomAt(view, ev.deltaY < 0 ? 1.25 : 1 / 1.25, (ev.clientX - r.left) * k, (ev.clientY - r.top) * k);
    }, { passive: false });
    canvas.addEventListener("click", (ev) => {
      if (!$("markers") || (drag && drag.moved)) return;
      const p = toImage(view, ev);
      if (p.x < 0 || p.y < 0 || p.x > info.width || p.y > info.height) return;
      markers.push({ image: index, x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10,
                     note: ($("marker-note") || { value: "" }).value.trim() });
      if ($("marker-note")) $("marker-note").value = "";
      renderMarkers(); views.forEach(draw);
    });
    $("review-images").append(canvas, toggles(view, info));
    draw(view);
    window.reviewPage.ready += 1;
  };
  img.src = info.url;
}

window.reviewPage = { ready: 0, proposals: 0, markers, views };
payload.images.forEach(show);
if ($("markers")) {
  try { for (const m of JSON.parse($("markers").value || "[]")) markers.push(m); } catch (e) { /* re-entered */ }
  renderMarkers();
}
