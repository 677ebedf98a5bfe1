/* Annotation editor entry point: canvas, SAM/classic prompts, mask tools, instances, labels, autosave.
 *
 * ES modules, no build step (templates/annotation/editor.html loads this one). state.js holds what the modules
 * share; this module subscribes the renderers and the autosave to its notifications, binds the page's controls
 * and starts the editor. window.annotationEditor is the hook the browser tests use.
 */
import { decode as rleDecode, encode as rleEncode } from "../rle.js";
import {
  applyLock, editable, flushOnLeave, noteChange, payload, resetAutosave, restoreBackup, save, saveRestored,
  setSaveStatus, submit,
} from "./autosave.js";
import { fit, requestDraw } from "./canvas.js";
import { clearHistory, redo, undo } from "./history.js";
import {
  deleteSelected, mergeSelected, renderFindings, renderImageTabs, renderInstances, renderLabels, setMasklet,
} from "./instances.js";
import { decoderStats, release, warmUp } from "./decoder.js";
import { prefetchNext, prefetchReset, prefetchStats } from "./prefetch.js";
import { hoverShown, promptsReset, renderProposals, stats, watchEmbedding } from "./prompts.js";
import { bindShortcuts, toggleHelp } from "./shortcuts.js";
import {
  $, config, currentImage, images, itemReplace, leaf, loadInstances, on, resetPrompt, state,
} from "./state.js";
import { bindSwitch, switches } from "./switch.js";
import { bindPointer, fillHoles, fillSelected, polygonMask, setBrush, setTool, stamp, strokeTo } from "./tools.js";

on("changed", (opts) => {
  if (!opts.labelsOnly) { renderInstances(); requestDraw(); }
  noteChange();
});
on("prompt", renderProposals);

function bindControls() {
  const select = $("masklet");
  for (const m of leaf.masklets) {
    const o = document.createElement("option");
    o.value = m.name;
    o.textContent = `${m.label}${images.length > 1 ? ` (image ${"AB"[m.image]})` : ""}${m.scored ? "" : " · reference"}`;
    o.title = m.name;
    select.append(o);
  }
  select.addEventListener("change", () => setMasklet(select.value));
  for (const b of document.querySelectorAll("[data-tool]")) b.addEventListener("click", () => setTool(b.dataset.tool));
  $("brush-size").addEventListener("input", (e) => setBrush(parseInt(e.target.value, 10)));
  $("opacity").addEventListener("input", (e) => { state.opacity = parseInt(e.target.value, 10) / 100; requestDraw(); });
  $("outlines").addEventListener("change", (e) => { state.outlines = e.target.checked; requestDraw(); });
  $("btn-fill").addEventListener("click", fillSelected);
  $("btn-undo").addEventListener("click", undo);
  $("btn-redo").addEventListener("click", redo);
  $("btn-new").addEventListener("click", () => { state.selected = null; resetPrompt(); renderInstances(); });
  $("btn-merge").addEventListener("click", mergeSelected);
  $("btn-delete").addEventListener("click", deleteSelected);
  $("btn-submit").addEventListener("click", submit);
  $("btn-help").addEventListener("click", () => toggleHelp(true));
  $("btn-help-close").addEventListener("click", () => toggleHelp(false));
  window.addEventListener("resize", () => requestDraw());
  window.addEventListener("beforeunload", flushOnLeave);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") flushOnLeave(); });
}

/** The item's part of the page: its masks (or this browser's unsaved copy of them), labels, findings, images and
 *  their embeddings; run as the page opens and for each item switch.js shows in place. */
function openItem() {
  const restored = editable() && restoreBackup();
  loadInstances(config.item.instances, config.item.provenance);
  $("masklet").value = state.masklet;
  renderLabels();
  renderFindings();
  renderImageTabs();
  renderInstances();
  for (const img of images) {
    img.el = new Image();
    img.el.onload = () => { img.loaded = true; if (img === currentImage()) fit(); };
    img.el.src = img.url;
    watchEmbedding(img, prefetchNext);  // this item's decoder first, then the next item's features
  }
  if (!editable()) { setSaveStatus(`This item is ${state.itemState.replace("_", " ")}: changes are not saved.`); applyLock(); }
  if (restored) saveRestored();
  fit();
}

/** Show another item in place (switch.js, after this item's changes were saved): `data` is item_editor_data's. The
 *  decoder's session stays; the features of images not shown are let go (the next item's, prefetched, are kept). */
function showItem(data) {
  release([...data.config.item.images.map((img) => img.id), ...(data.config.next_images || [])]);
  itemReplace(data.config);
  clearHistory();
  resetAutosave();
  prefetchReset();
  promptsReset();
  document.title = `${data.page.title} · Embodied Bench Hub`;
  $("item-name").textContent = data.page.name;
  $("item-state").textContent = data.page.state;
  $("review-panel").innerHTML = data.page.panel;
  const next = $("btn-next");
  next.hidden = !config.next_item;
  next.href = config.next_item ? `/annotation/items/${config.next_item}/` : "";
  openItem();
}

function start() {
  bindPointer();
  bindShortcuts();
  bindControls();
  bindSwitch(showItem);
  setTool("click");
  warmUp(config.decoder_url);
  openItem();
  window.annotationEditor = {
    state, rleEncode, rleDecode, payload, save, undo, redo, fillHoles, stats, decoderStats, hoverShown,
    prefetch: prefetchStats, switches,
    raster: { stamp, strokeTo, polygonMask },  // the tools' geometry, compared with annotation/core/edits.py in tests
  };
}

start();
