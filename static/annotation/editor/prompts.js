/* SAM / classic prompts: clicks and boxes sent to the server's segmenter, the proposals it returns, and the
   image-embedding status the segmenter waits for. */
import { decode as rleDecode } from "../rle.js";
import { api } from "./api.js";
import { checkpoint } from "./history.js";
import { $, addInstance, changed, currentImage, replaceInstance, rleOf, selectedInstance, state } from "./state.js";

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
/** Send the current prompt (points and/or box) for the selected instance, or a new one, and take the best proposal. */
export async function runSegment() {
  const p = state.prompt;
  if (!p.points.length && !p.box) return;
  const img = currentImage();
  let sel = selectedInstance();
  if (!sel || sel.masklet !== state.masklet) { checkpoint(); addInstance(state.masklet); sel = selectedInstance(); }
  const seq = ++segSeq;
  $("seg-status").textContent = "Segmenting…";
  const body = { points: p.points, box: p.box, multimask: $("multimask").checked,
                 mask_input: p.lastRle || (sel.inst.area ? rleOf(sel.inst) : null) };
  const res = await api(`/api/annotation/images/${img.id}/segment/`, "POST", body);
  if (seq !== segSeq) return;  // a newer prompt superseded this one
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
  $("seg-status").textContent = `${res.data.backend} · ${res.data.ms.toFixed(0)} ms · ${p.proposals.length} proposal(s)`;
  if (p.proposals.length) pickProposal(0, true);
  renderProposals();
}

export function pickProposal(i, fresh) {
  const p = state.prompt;
  if (!p.proposals[i]) return;
  const sel = selectedInstance();
  if (!sel) return;
  checkpoint();
  p.pick = i;
  if (fresh) p.lastRle = null;
  const inst = replaceInstance(sel.inst.id, rleDecode(p.proposals[i].rle));
  inst.rle = p.proposals[i].rle;
  p.lastRle = p.proposals[i].rle;  // fed back as mask_input on the next click
  renderProposals();
  changed();
}

const embedWatchers = {};
/** Poll an image's embedding until it is ready or failed, showing its progress; then run `then` (if given). */
export async function watchEmbedding(img, then) {
  if (embedWatchers[img.id]) { if (then) embedWatchers[img.id].push(then); return; }
  embedWatchers[img.id] = then ? [then] : [];
  const box = $("embed-status");
  for (;;) {
    const res = await api(`/api/annotation/images/${img.id}/embedding/`, "GET");
    const d = res.data || {};
    if (res.status !== 200) { box.textContent = "Embedding status unavailable."; break; }
    if (d.status === "ready") { box.textContent = `Embedding ready (${d.model_key}).`; break; }
    if (d.status === "failed") { box.textContent = `Embedding failed: ${d.error}`; break; }
    box.innerHTML = `<label>Embedding ${d.status} <progress max="100"></progress></label>`;
    box.querySelector("progress").value = d.progress || 0;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const waiting = embedWatchers[img.id] || [];
  delete embedWatchers[img.id];
  for (const fn of waiting) fn();
}
