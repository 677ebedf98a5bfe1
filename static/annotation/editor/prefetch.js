/* The next item, made ready while the annotator works on this one: the server queued its embedding when this page
 * opened (annotation.services.segmentation.item_open); once it is computed, its features are downloaded into the
 * browser's HTTP cache (the features API answers them cacheable), so the Next button's page starts its decoder from
 * the cache. The decoder file and the runtime are this page's own, cached already.
 *
 * It starts after this page's own decoder is loaded (it never competes with it), asks the embedding's status now
 * and then (bounded), and downloads at low priority.
 */
import { api } from "./api.js";
import { browserDecoderPossible } from "./decoder.js";
import { config } from "./state.js";

const POLL_MS = 3000;
const POLLS = 100;  // five minutes: an embedding still queued then is left to the next page

/** What the tests and the speed script read (window.annotationEditor.prefetch). */
export const prefetchStats = { wanted: 0, cached: 0, error: "" };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function prefetchImage(id) {
  for (let poll = 0; poll < POLLS; poll++) {
    const res = await api(`/api/annotation/images/${id}/embedding/`, "GET");
    const d = res.data || {};
    if (res.status !== 200 || d.status === "failed") return;
    if (d.browser) {
      const features = await fetch(d.browser.features_url, { credentials: "same-origin", priority: "low" });
      if (features.ok) {
        await features.arrayBuffer();  // read to the end: only a whole answer is kept in the cache
        prefetchStats.cached++;
      }
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
  (async () => {
    for (const id of ids) await prefetchImage(id);
  })().catch((e) => { prefetchStats.error = String(e); });
}
