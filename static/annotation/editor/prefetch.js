/* The next item, made ready while the annotator works on this one: the server queued its embedding when this page
 * opened (annotation.services.segmentation.item_open); once it is computed, its features are downloaded (the features
 * API answers them cacheable: the browser's HTTP cache keeps them too) and loaded into the page's decoder
 * (decoder.prepare), so the Next button, which switches items in place (switch.js), finds the next item's decoder
 * ready: its first click is one decode. The decoder's session is the page's own, warm already.
 *
 * It starts after this page's own decoder is loaded (it never competes with it), asks the embedding's status now
 * and then (bounded), and downloads at low priority.
 */
import { api } from "./api.js";
import { browserDecoderPossible, prepare } from "./decoder.js";
import { config, itemSerial } from "./state.js";

const POLL_MS = 3000;
const POLLS = 100;  // five minutes: an embedding still queued then is left to the next page

/** What the tests and the speed script read (window.annotationEditor.prefetch); `data`: the next item's editor data
 *  is here. */
export const prefetchStats = { wanted: 0, cached: 0, data: false, error: "" };
let nextData = null;  // {item, data}: the next item's editor data (item_editor_data), asked for after its features

/** The next item's editor data if it was asked for ahead, once (switch.js shows it at once and checks it). */
export function takePrefetched(pk) {
  const found = nextData && nextData.item === pk ? nextData.data : null;
  nextData = null;
  prefetchStats.data = false;
  return found;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function prefetchImage(id, serial) {
  for (let poll = 0; poll < POLLS && serial === itemSerial; poll++) {
    const res = await api(`/api/annotation/images/${id}/embedding/`, "GET");
    const d = res.data || {};
    if (res.status !== 200 || d.status === "failed" || serial !== itemSerial) return;
    if (d.browser) {
      await prepare({ id }, d.browser, { priority: "low" });
      if (serial === itemSerial) prefetchStats.cached++;
      return;
    }
    if (d.status === "ready") return;  // ready but no browser decoder (the classical backend): nothing to fetch
    await sleep(POLL_MS);
  }
}

/** Start making the next item's images ready in this browser (once; no-op without the browser decoder). */
export function prefetchNext() {
  const ids = config.next_images || [];
  if (!browserDecoderPossible() || !config.decoder_url || !ids.length || prefetchStats.wanted) return;
  prefetchStats.wanted = ids.length;
  const serial = itemSerial;  // the item shown now: a prefetch for an item left stops
  const next = config.next_item;
  (async () => {
    for (const id of ids) await prefetchImage(id, serial);
    // Then the item's editor data: the Next button need not wait for the server (switch.js checks its version).
    const res = await api(`/annotation/items/${next}/editor.json`, "GET");
    if (serial === itemSerial && res.status === 200 && res.data && res.data.config) {
      nextData = { item: next, data: res.data };
      prefetchStats.data = true;
    }
  })().catch((e) => { prefetchStats.error = String(e); });
}

/** Another item is shown (switch.js): its own next item is prefetched once its decoder is loaded. */
export function prefetchReset() {
  Object.assign(prefetchStats, { wanted: 0, cached: 0, data: false, error: "" });
  nextData = null;
}
