/* SAM / classic prompts: clicks, boxes and the hover preview, decoded in the browser (decoder.js) when SAM's
   decoder and the image's embedding are loaded, else sent to the server's segmenter; the proposals; and the
   image-embedding status both wait for. */
import { decode as rleDecode } from "../rle.js";
import { api } from "./api.js";
import { pointer, requestDraw, rgbaWord } from "./canvas.js";
import { browserDecoderPossible, contextFor, decode, isReady, prepare } from "./decoder.js";
import { checkpoint } from "./history.js";
import { provFromProposal } from "./provenance.js";
import {
  $, addInstance, changed, config, currentImage, isLocked, itemSerial, replaceInstance, rleOf, selectedInstance, state,
} from "./state.js";

/** Timings the speed script and the tests read (window.annotationEditor.stats). */
export const stats = { clicks: [], hoverUpdates: 0, segmentRequests: 0, lastSource: "" };

/** After the next frame is drawn, note the time since `t0` (an event's timeStamp); `answered`: when the segmenter's
 *  answer came (the click's time splits into waiting for it, the page's own work after it, and the frame). */
function noteDrawn(t0, source, answered) {
  if (t0 == null) return;
  const queued = performance.now();
  requestAnimationFrame(() => {
    const now = performance.now();
    stats.clicks.push({
      ms: now - t0, source, at: now, answerMs: answered - t0, workMs: queued - answered, frameMs: now - queued,
    });
  });
}

/** The browser decoder's context for this image: loaded, loading (a promise) or null (use the server). */
function browserContext(img) {
  return browserDecoderPossible() ? contextFor(img) : null;
}

export function renderProposals() {
  const box = $("proposals");
  box.textContent = "";
  state.prompt.proposals.forEach((p, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `${i + 1}: ${p.score.toFixed(2)}`;
    b.setAttribute("aria-pressed", String(i === state.prompt.pick));
    b.title = `Use proposal ${i + 1} (key ${i + 1})`;
    b.addEventListener("click", () => pickProposal(i));
    box.append(b);
  });
}

let segSeq = 0;
/** Segment the current prompt (points and/or box) for the selected instance, or a new one, and take the best
 *  proposal: in the browser when its decoder is loaded for this image, else on the server. `t0`: the event time. */
export async function runSegment(t0) {
  const p = state.prompt;
  if ((!p.points.length && !p.box) || isLocked()) return;
  const img = currentImage();
  let sel = selectedInstance();
  if (!sel || sel.masklet !== state.masklet) { checkpoint(); addInstance(state.masklet); sel = selectedInstance(); }
  const seq = ++segSeq;
  // The browser decodes once its decoder, the image's features and a first decode are done (decoder.prepare); a
  // click before that is answered by the server instead of waiting for them.
  const local = browserContext(img);
  const ctx = local && isReady(img) ? local : null;
  if (ctx) {
    // The new point is drawn with its mask, in one frame, as the SAM demo does: a frame drawn while the decoder's
    // threads run takes the CPU they need (on 2 cores a click's mask came ~15 ms later with the point drawn first;
    // perf/sam_browser_speed.py).
    try {
      // The preview already shows this prompt's mask, or is decoding it (the pointer arrived and clicked at once):
      // the click takes that answer instead of queueing a second decode of the same prompt.
      const key = promptKey(p.points, p.box);
      const hovered = isFor(hover.result, key, img) ? hover.result : null;
      const pending = !hovered && isFor(hover.pending, key, img) ? hover.pending : null;
      if (pending) pending.taken = true;  // the preview leaves its answer to the click (no preview drawn first)
      // A preview decode queued for the pointer's place (behind one for a place it passed) would be this click's
      // prompt decoded a second time, ahead of the click's own: the click takes its place in the queue.
      cancelHover();
      const started = performance.now();
      const proposals = hovered ? hovered.proposals : pending ? await pending.proposals : await decode(ctx, {
        points: p.points, box: p.box, multimask: $("multimask").checked,
        maskInput: p.lastLowRes || (sel.inst.area ? sel.inst.mask : null),
      });
      if (seq !== segSeq) return;
      const answered = performance.now();
      clearHover();
      p.proposals = proposals;
      p.made = { source: "sam", decoder: "browser", multimask: $("multimask").checked };
      const how = hovered ? "from the preview" : `${(answered - started).toFixed(0)} ms${pending ? " (the preview's decode)" : ""}`;
      $("seg-status").textContent = `sam · browser · ${how} · ${proposals.length} proposal(s)`;
      stats.lastSource = "browser";
      if (proposals.length) pickProposal(0, true);
      renderProposals();
      requestDraw();
      noteDrawn(t0, "browser", answered);
      return;
    } catch (e) {
      $("seg-status").textContent = `In-browser decoder unavailable (${e.message || e}); asking the server.`;
    }
  }
  const loading = Boolean(local) && !ctx;
  requestDraw();
  $("seg-status").textContent = "Segmenting…";
  stats.segmentRequests++;
  const body = { points: p.points, box: p.box, multimask: $("multimask").checked,
                 mask_input: p.lastRle || (sel.inst.area ? rleOf(sel.inst) : null) };
  const res = await api(`/api/annotation/images/${img.id}/segment/`, "POST", body);
  if (seq !== segSeq) return;  // a newer prompt superseded this one
  const answered = performance.now();
  if (res.status === 202) {
    $("seg-status").textContent = "Waiting for the image embedding…";
    watchEmbedding(img, () => runSegment());
    return;
  }
  if (res.status !== 200) {
    $("seg-status").textContent = `Segmentation failed: ${(res.data && res.data.detail) || res.status}`;
    return;
  }
  p.proposals = res.data.masks.map((m) => ({ score: m.score, rle: m.rle }));
  p.made = { source: res.data.backend === "sam" ? "sam" : "classic", decoder: "server", multimask: body.multimask };
  $("seg-status").textContent = `${res.data.backend} · ${res.data.ms.toFixed(0)} ms · ${p.proposals.length} proposal(s)`
    + (loading ? " · on the server while the browser's decoder loads" : "");
  stats.lastSource = "server";
  if (p.proposals.length) pickProposal(0, true);
  renderProposals();
  noteDrawn(t0, "server", answered);
}

// ---------------------------------------------------------------- hover preview ------------------
const promptKey = (points, box) => JSON.stringify([points, box]);
/** A prompt point's coordinates from the pointer's image point: rounded to 0.1 px, the same for a click and for
 *  the preview of a click there (their prompts compare equal). */
export const promptPoint = (x, y) => [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
/** Whether `entry` (the preview shown, or its decode under way) is for prompt `key` on image `img`. */
const isFor = (entry, key, img) => Boolean(entry) && entry.key === key && entry.img === img.id;
/** The preview under the pointer: one decode in flight at a time, the latest pointer position next; `want`: the
 *  prompt the pointer asks for now (null: none). */
const hover = { busy: false, next: null, result: null, pending: null, want: null };

/** The shown preview's point and mask area, and whether a preview decode is under way; or null (for the tests and
 *  the speed script). */
export function hoverShown() {
  return hover.result ? { point: hover.result.point, area: hover.result.area, busy: hover.busy } : null;
}

/** Drop the preview decode queued next, if any (the one under way ends and is not shown). */
function cancelHover() {
  hover.next = null;
  hover.want = null;
}

export function clearHover() {
  cancelHover();
  if (hover.result || pointer.preview) { hover.result = null; pointer.preview = null; requestDraw(); }
}

function previewCanvas(mask, W, H) {
  const off = document.createElement("canvas");
  off.width = W; off.height = H;
  const o = off.getContext("2d");
  const data = o.createImageData(W, H);
  const px = new Uint32Array(data.data.buffer);
  const fill = rgbaWord(0x00, 0xe5, 0xff, 140);  // #00e5ff at 55 %
  for (let i = 0; i < mask.length; i++) if (mask[i]) px[i] = fill;
  o.putImageData(data, 0, 0);
  return off;
}

/** The pointer moved to image point (x, y) with the click tool: show SAM's mask for a click there. */
export function hoverAt(x, y) {
  const img = currentImage();
  if (!browserDecoderPossible() || !isReady(img) || !$("hover-preview").checked || isLocked()) return;
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) { clearHover(); return; }
  const point = promptPoint(x, y);
  // No decode for a move that leaves the preview as it is: the pointer still (a click's own move before its
  // mousedown; the browser's own move events after the page's layout changes), so the preview shows or decodes
  // this prompt already, or the pointer on a point of the prompt (just clicked there: a second point on it adds
  // nothing). Such a decode would only hold the cores while the page draws the click.
  if (state.prompt.points.some(([px, py]) => px === point[0] && py === point[1])) { clearHover(); return; }
  const key = promptKey([...state.prompt.points, [...point, 1]], state.prompt.box);
  hover.want = key;
  if (isFor(hover.result, key, img) || (isFor(hover.pending, key, img) && !hover.pending.taken)) {
    hover.next = null;
    return;
  }
  hover.next = point;
  if (!hover.busy) runHover(img);
}

async function runHover(img) {
  hover.busy = true;
  try {
    while (hover.next) {
      const [x, y] = hover.next;
      hover.next = null;
      const ctx = contextFor(img);
      const p = state.prompt;
      const points = [...p.points, [x, y, 1]];
      const sel = selectedInstance();
      const key = promptKey(points, p.box);
      const decoding = decode(ctx, {
        points, box: p.box, multimask: $("multimask").checked,
        maskInput: p.lastLowRes || (sel && sel.inst.area && sel.masklet === state.masklet ? sel.inst.mask : null),
      });
      const entry = { key, img: img.id, proposals: decoding, taken: false };
      hover.pending = entry;
      let proposals;
      try {
        proposals = await decoding;
      } finally {
        hover.pending = null;
      }
      if (img !== currentImage() || state.tool !== "click") break;
      if (entry.taken) continue;  // a click took this decode: its mask is drawn by the click
      // The pointer came to rest on what the preview showed before this decode, or on none: that stays shown.
      if (!hover.next && key !== hover.want) continue;
      const mask = proposals.length ? proposals[0].mask() : null;
      let area = 0;
      if (mask) for (let i = 0; i < mask.length; i++) area += mask[i];
      hover.result = { key, img: img.id, proposals, point: [x, y], area };
      pointer.preview = mask ? previewCanvas(mask, img.width, img.height) : null;
      stats.hoverUpdates++;
      requestDraw();
      // No frame's wait before the next decode: it runs in the decoder's worker, so the page draws this preview
      // and takes input meanwhile, and the preview keeps up with the pointer at one decode's pace.
    }
  } catch (e) {
    hover.result = null;
  } finally {
    hover.busy = false;
  }
}

export function pickProposal(i, fresh) {
  const p = state.prompt;
  if (!p.proposals[i]) return;
  const sel = selectedInstance();
  if (!sel) return;
  checkpoint();
  p.pick = i;
  if (fresh) { p.lastRle = null; p.lastLowRes = null; }
  const chosen = p.proposals[i];
  const made = p.made || { source: "sam", decoder: chosen.lowRes ? "browser" : "server", multimask: true };
  const prompt = { points: p.points, box: p.box, multimask: made.multimask, pick: i, id: p.id };
  const mask = chosen.lowRes ? chosen.mask() : rleDecode(chosen.rle);
  // How this mask was made: the prompt, the model, the decoder path, SAM's predicted IoU (provenance.js).
  const prov = provFromProposal(sel.inst, mask, { source: made.source, decoder: made.decoder, prompt, score: chosen.score });
  if (chosen.lowRes) {  // decoded in the browser
    replaceInstance(sel.inst.id, mask, null, prov);
    p.lastLowRes = chosen.lowRes;  // SAM's own logits, fed back as mask_input on the next click
  } else {
    const inst = replaceInstance(sel.inst.id, mask, null, prov);
    inst.rle = chosen.rle;
    p.lastRle = chosen.rle;  // fed back as mask_input on the next click
  }
  renderProposals();
  changed();
}

/** Another item is shown in place (switch.js): an answer still coming for the previous item's prompt or preview is
 *  dropped, and its embeddings' watchers stop (each sees the item serial change). */
export function promptsReset() {
  segSeq++;
  clearHover();
  hover.pending = null;
  for (const id of Object.keys(embedWatchers)) delete embedWatchers[id];
  $("seg-status").textContent = "";
  $("embed-status").textContent = "";
  renderProposals();
}

const embedWatchers = {};
/** Poll an image's embedding until it is ready or failed, showing its progress; then run `then` (if given). A watch
 *  of the previous item's image (the page switched items in place) ends without a word or a `then`. */
export async function watchEmbedding(img, then) {
  if (embedWatchers[img.id]) { if (then) embedWatchers[img.id].push(then); return; }
  const waiting = then ? [then] : [];
  embedWatchers[img.id] = waiting;
  const serial = itemSerial;
  const gone = () => serial !== itemSerial;
  const box = $("embed-status");
  // The page came with each image's status (the view's): a ready one is not asked for on the page's first watch
  // (taken once: a later watch, after the server answered 202, asks).
  const opened = config.embeddings || {};
  let known = opened[img.id];
  delete opened[img.id];
  for (;;) {
    const res = known && known.status === "ready"
      ? { status: 200, data: known } : await api(`/api/annotation/images/${img.id}/embedding/`, "GET");
    known = null;
    if (gone()) return;
    const d = res.data || {};
    if (res.status !== 200) { box.textContent = "Embedding status unavailable."; break; }
    if (d.status === "ready") {
      box.textContent = `Embedding ready (${d.model_key}).`;
      if (d.browser && browserDecoderPossible()) {
        box.textContent = `Embedding ready (${d.model_key}); loading the in-browser decoder…`;
        let said;
        try {
          await prepare(img, d.browser);
          said = `Embedding ready (${d.model_key}); decoder in the browser.`;
        } catch (e) {
          said = `Embedding ready (${d.model_key}); segmenting on the server (${e.message || e}).`;
        }
        if (gone()) return;
        box.textContent = said;
      }
      break;
    }
    if (d.status === "failed") { box.textContent = `Embedding failed: ${d.error}`; break; }
    box.innerHTML = `<label>Embedding ${d.status} <progress max="100"></progress></label>`;
    box.querySelector("progress").value = d.progress || 0;
    await new Promise((r) => setTimeout(r, 1000));
    if (gone()) return;
  }
  if (embedWatchers[img.id] === waiting) delete embedWatchers[img.id];
  for (const fn of waiting) fn();
}
