/* Saving: every change is saved (debounced) with the item's version, mirrored into localStorage so a closed tab
   loses nothing, flushed with a keepalive request when the tab goes away; submitting for review. */
import { api, csrfToken } from "./api.js";
import { updateHud } from "./canvas.js";
import { labelValues, renderFindings } from "./instances.js";
import { provJson } from "./provenance.js";
import { $, config, isLocked, leaf, list, rleOf, settleEdits, state, STORAGE_KEY } from "./state.js";

/** What the item API takes: the version this copy is based on, the labels, every layer's non-empty masks, and for
 *  each mask made by the brush, eraser, polygon or fill tools the edits that made it (the server replays them with
 *  annotation/core/edits.py and refuses a mask that differs). */
export function payload() {
  const instances = {}, edits = {}, provenance = {};
  for (const spec of leaf.masklets) {
    const kept = list(spec.name).filter((i) => i.area > 0);
    instances[spec.name] = kept.map(rleOf);
    if (kept.some((i) => i.edits)) edits[spec.name] = kept.map((i) => i.edits || null);
    // How each mask was made (provenance.js): the server checks it and keeps it with the masks.
    if (kept.some((i) => i.prov)) provenance[spec.name] = kept.map(provJson);
  }
  return { version: state.version, ...labelValues(), instances, provenance,
           ...(Object.keys(edits).length ? { edits } : {}) };
}

let saveTimer = null, backupTimer = null, saving = false, pending = false, conflict = false;
let saveDone = null, submitting = null, retryTimer = null;  // promises of the save and the submit under way (flushSave waits for them)
// Every change bumps changeSeq; a save that carried change N sets savedSeq = N. Unsaved while they differ.
let changeSeq = 0, savedSeq = 0;
export function setSaveStatus(text) { $("save-status").textContent = text; }
export function editable() { return !isLocked(); }

/** Lock the editor while the item is not the annotator's (submitted, in review…): the masks and labels cannot be
 *  changed on screen either, since the server would keep the old ones. Zoom, pan, layers and opacity still work. */
export function applyLock() {
  if (!isLocked()) return;
  document.getElementById("editor").classList.add("ann-locked");
  const keep = new Set(["opacity", "outlines", "masklet", "btn-help", "btn-help-close"]);
  for (const el of document.querySelectorAll(".ann-side button, .ann-side input, .ann-side select, .ann-side textarea")) {
    if (keep.has(el.id) || el.dataset.tool === "pan" || el.dataset.tool === "select" || el.closest(".ann-review")) continue;
    if (!el.disabled) { el.disabled = true; el.dataset.locked = "1"; }  // the lock's own: clearLock enables them
  }
  const banner = $("lock-banner");
  const label = state.itemState === "submitted" ? "in review" : state.itemState.replace("_", " ");
  banner.textContent = `This item is ${label}: it is locked until a reviewer sends it back to you.`;
  banner.hidden = false;
}

/** Undo applyLock (another item is shown in place): what the lock disabled is enabled, the banner hidden. */
export function clearLock() {
  document.getElementById("editor").classList.remove("ann-locked");
  for (const el of document.querySelectorAll("[data-locked]")) { el.disabled = false; delete el.dataset.locked; }
  $("lock-banner").hidden = true;
}

function backup() {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ savedVersion: state.version, payload: payload(), at: Date.now() }));
  } catch (e) { /* storage full or disabled: the server copy still saves */ }
}

/** An edit happened: back it up soon and save it a little later. */
export function noteChange() {
  changeSeq++;
  clearTimeout(backupTimer);
  backupTimer = setTimeout(backup, 150);
  scheduleSave();
}
function scheduleSave() {
  if (conflict || !editable()) return;
  setSaveStatus("Unsaved changes…");
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => { saveTimer = null; save(); }, 700);
}

/** Save now (a save under way: once more after it); resolves when no save is left under way. */
export function save() {
  if (saving) { pending = true; return saveDone; }
  saving = true;
  saveDone = (async () => {
    try {
      do { pending = false; await saveOnce(); } while (pending);
    } finally {
      saving = false;
      saveDone = null;
    }
  })();
  return saveDone;
}

async function saveOnce() {
  setSaveStatus("Saving…");
  const body = payload();
  const seq = changeSeq;
  let res;
  try { res = await api(config.api.item, "PUT", body); } catch (e) { res = { status: 0, data: null }; }
  if (res.status === 409) res = await reconcile(body, res);
  if (res.status === 200) {
    if (seq === changeSeq) settleEdits();  // the server holds exactly these masks: later edits start from them
    savedSeq = Math.max(savedSeq, seq);
    state.version = res.data.version;
    state.itemState = res.data.state;
    state.findings = res.data.findings || [];
    $("item-state").textContent = res.data.state.replace("_", " ");
    renderFindings();
    backup();
    // "Saved" only when nothing changed meanwhile: a later edit is still to be saved (its timer or `pending`)
    setSaveStatus(seq === changeSeq ? `Saved (version ${state.version}).` : "Unsaved changes…");
    updateHud();
  } else if (res.status === 409) {
    conflict = true;
    setSaveStatus(`${(res.data && res.data.detail) || "Conflict."} Your copy is kept in this browser.`);
    $("save-status").className = "ann-banner";
  } else if (res.status === 0) {
    setSaveStatus("Offline: changes are kept in this browser and saved when the server answers.");
    retryTimer = setTimeout(scheduleSave, 3000);
  } else {
    setSaveStatus(`Not saved: ${(res.data && (res.data.detail || JSON.stringify(res.data.errors))) || res.status}`);
  }
}

/** A 409 whose server copy already equals what we sent (e.g. a save sent as the last tab closed) is no conflict. */
async function reconcile(body, res) {
  let current;
  try { current = await api(config.api.item, "GET"); } catch (e) { return res; }
  if (current.status !== 200) return res;
  const d = current.data;
  const same = JSON.stringify(d.instances) === JSON.stringify(body.instances) &&
    JSON.stringify(d.texts) === JSON.stringify(Object.fromEntries(Object.entries(body.texts).filter(([, v]) => v !== ""))) &&
    (!leaf.count_field || (d.count === body.count && d.precise_count === body.precise_count &&
                           d.count_in_description === body.count_in_description)) &&
    (!leaf.has_feasibility || d.placement_feasible === body.placement_feasible);
  return same ? current : res;
}

/** The tab is hidden or closing: back up, and send unsaved work with a request that outlives the tab. */
export function flushOnLeave() {
  backup();
  if (changeSeq !== savedSeq && !conflict && editable()) {
    clearTimeout(saveTimer);
    saveTimer = null;
    const body = JSON.stringify(payload());
    // keepalive lets the request finish after the tab closes (small payloads only; the backup covers the rest)
    if (body.length < 60000) {
      fetch(config.api.item, { method: "PUT", keepalive: true, credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() }, body });
    }
  }
}

/** Another item is about to be shown in place (switch.js): save this one's changes now, after any save or submit under
 *  way. Resolves to true when the server holds all of them (or the item is not editable here), false when not
 *  (offline, a conflict, a refusal: the caller then leaves the page as a link would, the backup kept). */
export async function flushSave() {
  clearTimeout(backupTimer);
  backup();
  if (submitting) await submitting;
  for (let tries = 0; tries < 3; tries++) {
    if (saveDone) await saveDone;
    if (conflict) return false;
    if (!editable() || changeSeq === savedSeq) return true;
    clearTimeout(saveTimer);
    saveTimer = null;
    await save();
  }
  return changeSeq === savedSeq;
}

/** Whether the item shown was edited (or its restored backup is being saved) since it was shown. */
export function touched() { return changeSeq !== 0 || saving; }

/** The item shown is another (switch.js): nothing of the previous one's saving is left (flushSave ran first). */
export function resetAutosave() {
  for (const timer of [saveTimer, backupTimer, retryTimer]) clearTimeout(timer);
  saveTimer = backupTimer = retryTimer = null;
  pending = conflict = false;
  changeSeq = savedSeq = 0;
  $("save-status").className = "muted";
  setSaveStatus("");
  clearLock();
}

export function submit() {
  submitting = submitOnce().finally(() => { submitting = null; });
  return submitting;
}

async function submitOnce() {
  if (saveTimer || changeSeq !== savedSeq) { clearTimeout(saveTimer); saveTimer = null; await save(); }
  const reason = $("override-reason").value;
  const res = await api(config.api.submit, "POST", { version: state.version, override_reason: reason });
  if (res.status === 200) {
    state.version = res.data.version;
    state.itemState = res.data.state;
    $("item-state").textContent = "in review";
    // The submit made a new version on the server: the status line and the HUD show it (issue 32).
    setSaveStatus(`Submitted for review (version ${state.version}).`);
    updateHud();
    applyLock();
    backup();
    localStorage.removeItem(STORAGE_KEY);
  } else {
    if (res.data && res.data.findings) { state.findings = res.data.findings; renderFindings(); $("override-reason").focus(); }
    setSaveStatus((res.data && res.data.detail) || `Not submitted (${res.status}).`);
  }
}

/**
 * Before the editor renders: if this browser holds unsaved work for the item's current version that differs from
 * the server's copy, put it into config.item (which the editor then loads) and return true.
 */
export function restoreBackup() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null"); } catch (e) { saved = null; }
  if (!saved || !saved.payload) return false;
  if (saved.savedVersion !== config.item.version) {
    // The server moved on (saved elsewhere, or this backup is older): the server copy wins.
    if (saved.savedVersion < config.item.version) localStorage.removeItem(STORAGE_KEY);
    return false;
  }
  const p = saved.payload;
  const same = JSON.stringify(p.instances) === JSON.stringify(config.item.instances || {}) &&
    JSON.stringify(p.texts || {}) === JSON.stringify(Object.assign(Object.fromEntries(leaf.text_fields.map((f) => [f, ""])), config.item.texts || {}));
  if (same) return false;
  config.item.texts = p.texts || {};
  if ("count" in p) { config.item.count = p.count; config.item.precise_count = p.precise_count; config.item.count_in_description = p.count_in_description; }
  if ("placement_feasible" in p) config.item.placement_feasible = p.placement_feasible;
  config.item.instances = p.instances;
  config.item.provenance = p.provenance || {};
  return true;
}

/** Restored work counts as an unsaved change: save it. */
export function saveRestored() {
  changeSeq++;
  setSaveStatus("Restored unsaved work from this browser; saving…");
  scheduleSave();
}
