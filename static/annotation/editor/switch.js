/* The Next button, and the browser's back and forward, show another item of the queue in place (issue 34): no page
 * load, so the page keeps onnxruntime-web's runtime and SAM's decoder session, warm (a page load built them again and
 * its first decode compiled the runtime's code, ~1.3 s, so the first click went to the server). The next item's
 * features are loaded ahead (prefetch.js): its first click is one decode.
 *
 * The switch: the item's JSON (annotation.views.item_editor_data, the page's own access rules; asked for ahead by
 * prefetch.js, else now) while this item's unsaved changes are saved (autosave.flushSave); once both are done the
 * URL becomes the item's (history.pushState: a reload, back and forward land on it) and main.js's `show` replaces the
 * item's state and panels. Data asked for ahead is asked for again at once: a version changed meanwhile is shown (a
 * save made on it before the answer is the autosave's conflict, as any page's). Any failure (a save not made, the
 * item not the annotator's, another leaf, the server away) leaves the page as the link would, the unsaved work kept
 * in this browser (autosave.js's backup and its keepalive save).
 */
import { api } from "./api.js";
import { flushSave, touched } from "./autosave.js";
import { takePrefetched } from "./prefetch.js";
import { $, config, itemSerial, leaf } from "./state.js";

/** The switches made ({item, at: the Next click's or the history move's time, shownAt}), for the tests and
 *  perf/sam_browser_speed.py (window.annotationEditor.switches). */
export const switches = [];

let busy = false;

const pageUrl = (pk) => `/annotation/items/${pk}/${window.location.search}`;
const itemInUrl = () => {
  const m = window.location.pathname.match(/\/annotation\/items\/(\d+)\/$/);
  return m ? parseInt(m[1], 10) : null;
};

/** Show item `pk` with `show(data)`; `push`: a new history entry (the Next button), else the URL is the item's
 *  already (back, forward). */
async function goTo(pk, { push, at }, show) {
  if (busy) return;
  busy = true;
  const url = pageUrl(pk);
  const leave = () => { if (push) window.location.assign(url); else window.location.reload(); };
  try {
    $("btn-next").setAttribute("aria-busy", "true");
    $("save-status").textContent = "Opening the item…";
    // The item's data is asked for at once: this item's save (its own item) need not be made first.
    const ahead = push ? takePrefetched(pk) : null;
    const data = ahead ? Promise.resolve({ status: 200, data: ahead }) : itemData(pk);
    if (!(await flushSave())) { leave(); return; }
    const res = await data;
    const next = res.status === 200 && res.data && res.data.config;
    if (!next || next.leaf.path !== leaf.path) { leave(); return; }
    if (push) window.history.pushState({ editorItem: pk }, "", url);
    show(res.data);
    switches.push({ item: pk, at, shownAt: performance.now(), ahead: Boolean(ahead) });
    if (ahead) recheck(pk, ahead, show);
  } catch (e) {
    leave();
  } finally {
    busy = false;
    $("btn-next").removeAttribute("aria-busy");
  }
  // Back or forward pressed again while this switch ran: show where the URL is now.
  const wanted = itemInUrl();
  if (!push && wanted && wanted !== config.item.id) goTo(wanted, { push: false, at: performance.now() }, show);
}

const itemData = (pk) => api(`/annotation/items/${pk}/editor.json`, "GET").catch(() => ({ status: 0, data: null }));

/** The item was shown from data asked for ahead: ask again; another version (saved elsewhere meanwhile) is shown
 *  instead while the annotator has not edited it yet; the item no longer theirs, the page says so (a page load). */
async function recheck(pk, shown, show) {
  const serial = itemSerial;
  const res = await itemData(pk);
  if (serial !== itemSerial || res.status === 0) return;  // another item shown since, or the server away
  const fresh = res.status === 200 && res.data && res.data.config;
  if (!fresh || fresh.leaf.path !== leaf.path) { window.location.reload(); return; }
  if (fresh.item.version === shown.config.item.version || touched()) return;
  show(res.data);
}

/** The Next link switches in place (a click with a modifier, for a new tab or window, stays the link's); back and
 *  forward to an item this page showed switch back in place. */
export function bindSwitch(show) {
  window.history.replaceState({ ...(window.history.state || {}), editorItem: config.item.id }, "");
  $("btn-next").addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey || !config.next_item) return;
    ev.preventDefault();
    goTo(config.next_item, { push: true, at: ev.timeStamp }, show);
  });
  window.addEventListener("popstate", (ev) => {
    const pk = ev.state && ev.state.editorItem;
    if (pk && pk !== config.item.id) goTo(pk, { push: false, at: ev.timeStamp }, show);
  });
}
