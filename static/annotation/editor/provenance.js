/* Mask provenance (issue 32): how each instance was made, sent with every save and checked by the server
 * (annotation/core/provenance.py): the prompt sets (clicks with their labels, the box, multimask, the proposal
 * taken), the model and its checkpoint hash, the decoder path (browser or server), SAM's predicted IoU, the share
 * of the mask painted by hand, and the edits (the last 50; older ones are counted).
 *
 * In memory an instance's `prov` also holds `ref`, the mask the model proposed (or the mask as loaded), and
 * `priorShare`, the painted share before that reference: the painted share sent is
 * 1 - (1 - priorShare) * (1 - |mask xor ref| / |mask or ref|), so a pure model mask is 0 and a painted one 1.
 */
import { config } from "./state.js";

const MAX_HISTORY = 50, MAX_PROMPTS = 20;
const segmenter = config.segmenter || { model: null, checkpoint_sha256: null };

/** Pixels that differ between two masks of the same size. */
export function countDiff(a, b) {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!a[i] !== !b[i]) n++;
  return n;
}

function withHistory(prov, op, pixels) {
  const history = [...(prov.history || []), { op, pixels }];
  const dropped = Math.max(0, history.length - MAX_HISTORY);
  return { ...prov, history: history.slice(dropped), history_dropped: (prov.history_dropped || 0) + dropped };
}

/** After a proposal of the model was taken for `inst`: `source` "sam" or "classic", `decoder` "browser" or
 *  "server", `prompt` {points, box, multimask, pick, id}, `score` the model's predicted IoU. */
export function provFromProposal(inst, mask, { source, decoder, prompt, score }) {
  const before = inst.prov || {};
  const set = { points: prompt.points.map((p) => [...p]), box: prompt.box ? [...prompt.box] : null,
                multimask: prompt.multimask, pick: prompt.pick };
  // More clicks on the same prompt set replace its entry; a new prompt set (after N, Esc, another instance) adds one.
  const earlier = (before.prompts || []).slice(0, before.promptId === prompt.id ? -1 : undefined);
  const prov = {
    ...before, source, model: segmenter.model || source,
    checkpoint_sha256: segmenter.checkpoint_sha256 || null, decoder,
    prompts: [...earlier, set].slice(-MAX_PROMPTS), promptId: prompt.id,
    predicted_iou: Number.isFinite(score) ? Math.max(-1, Math.min(2, score)) : null, ref: mask, priorShare: 0,
  };
  return withHistory(prov, source, countDiff(inst.mask, mask));
}

/** After a brush, eraser, polygon or fill edit turned `inst`'s mask into `mask`. */
export function provAfterEdit(inst, op, mask) {
  // An instance painted from nothing (or whose making is unknown) is all painted: no reference.
  const base = inst.prov || { source: "manual", model: null, checkpoint_sha256: null, decoder: null, prompts: [],
                              predicted_iou: null, history: [], history_dropped: 0, ref: null, priorShare: 1 };
  return withHistory(base, op, countDiff(inst.mask, mask));
}

/** After instances were merged into `mask`: their prompts and edits together, the painted share area-weighted. */
export function provMerged(parts, mask) {
  let area = 0, painted = 0;
  const prompts = [], history = [];
  let dropped = 0;
  for (const inst of parts) {
    const entry = inst.prov ? provJson(inst) : null;
    area += inst.area;
    painted += inst.area * (entry ? entry.painted_share : 1);
    if (entry) { prompts.push(...entry.prompts); history.push(...entry.history); dropped += entry.history_dropped; }
  }
  const first = parts.find((p) => p.prov) || {};
  const prov = {
    source: "merged", model: (first.prov || {}).model || null, checkpoint_sha256: (first.prov || {}).checkpoint_sha256 || null,
    decoder: (first.prov || {}).decoder || null, prompts: prompts.slice(-MAX_PROMPTS), predicted_iou: null,
    history, history_dropped: dropped, ref: mask, priorShare: area ? painted / area : 1,
  };
  return withHistory(prov, "merge", parts.length ? countDiff(parts[0].mask, mask) : 0);
}

/** The entry the server takes for `inst` (null when nothing is known of how it was made). */
export function provJson(inst) {
  const p = inst.prov;
  if (!p) return null;
  if (inst._share === undefined) {
    let share = 1;
    if (p.ref) {
      let union = 0, diff = 0;
      for (let i = 0; i < inst.mask.length; i++) {
        const a = inst.mask[i], b = p.ref[i];
        if (a || b) { union++; if (!a !== !b) diff++; }
      }
      share = 1 - (1 - (p.priorShare || 0)) * (1 - (union ? diff / union : 0));
    }
    inst._share = Math.max(0, Math.min(1, share));  // instances are immutable: computed once per mask
  }
  return {
    source: p.source, model: p.model ?? null, checkpoint_sha256: p.checkpoint_sha256 ?? null, decoder: p.decoder ?? null,
    prompts: (p.prompts || []).map(({ points, box, multimask, pick }) => ({ points, box, multimask, pick })),
    predicted_iou: p.predicted_iou ?? null, painted_share: Math.round(inst._share * 1e6) / 1e6,
    history: p.history || [], history_dropped: p.history_dropped || 0,
  };
}
