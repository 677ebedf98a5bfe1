/* Review page: draws the pinned version (image + masks, read-only) and lets the reviewer drop markers with notes.
 *
 * An ES module, no build step. Masks arrive as COCO RLE (column-major runs, compressed string). Markers are kept in a
 * hidden JSON field of the review form ([{image, x, y, note}] in image pixels); the server checks them again.
 */
import { decode } from "./rle.js";

const payload = JSON.parse(document.getElementById("review-payload").textContent);
const $ = (id) => document.getElementById(id);
const COLOURS = { scored: [40, 220, 90], reference: [0, 130, 200] };

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

function draw(view) {
  const { canvas, base, scale, index } = view;
  const ctx = canvas.getContext("2d");
  ctx.putImageData(base, 0, 0);
  ctx.save();
  markers.forEach((m, i) => {
    if (m.image !== index) return;
    ctx.beginPath(); ctx.arc(m.x * scale, m.y * scale, 9, 0, 2 * Math.PI);
    ctx.fillStyle = "rgba(255, 220, 0, 0.9)"; ctx.fill();
    ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.stroke();
    ctx.fillStyle = "#000"; ctx.font = "bold 11px sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    ctx.fillText(String(i + 1), m.x * scale, m.y * scale);
  });
  ctx.restore();
}

function show(info, index) {
  const img = new Image();
  img.onload = () => {
    // Masks are painted at full resolution, then the whole picture is scaled to the page.
    const full = document.createElement("canvas");
    full.width = info.width; full.height = info.height;
    const fctx = full.getContext("2d");
    fctx.drawImage(img, 0, 0);
    const pixels = fctx.getImageData(0, 0, info.width, info.height);
    for (const spec of payload.masklets) {
      if (spec.image !== index) continue;
      for (const rle of payload.instances[spec.name] || []) {
        paint(pixels.data, rle, info.width, info.height, spec.scored ? COLOURS.scored : COLOURS.reference, 0.4);
      }
    }
    fctx.putImageData(pixels, 0, 0);
    const scale = Math.min(1, 860 / info.width);
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(info.width * scale); canvas.height = Math.round(info.height * scale);
    canvas.className = "review-canvas";
    canvas.dataset.image = String(index);
    canvas.setAttribute("aria-label", `Image ${index + 1} with the submitted masks; click to add a marker`);
    const ctx = canvas.getContext("2d");
    ctx.drawImage(full, 0, 0, canvas.width, canvas.height);
    const view = { canvas, base: ctx.getImageData(0, 0, canvas.width, canvas.height), scale, index };
    views.push(view);
    canvas.addEventListener("click", (ev) => {
      if (!$("markers")) return;
      const r = canvas.getBoundingClientRect();
      const x = (ev.clientX - r.left) / scale, y = (ev.clientY - r.top) / scale;
      markers.push({ image: index, x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10,
                     note: ($("marker-note") || { value: "" }).value.trim() });
      if ($("marker-note")) $("marker-note").value = "";
      renderMarkers(); views.forEach(draw);
    });
    $("review-images").append(canvas);
    draw(view);
    window.reviewPage.ready += 1;
  };
  img.src = info.url;
}

window.reviewPage = { ready: 0, markers };
payload.images.forEach(show);
if ($("markers")) {
  try { for (const m of JSON.parse($("markers").value || "[]")) markers.push(m); } catch (e) { /* re-entered */ }
  renderMarkers();
}
