/* SAM's prompt encoder + mask decoder in the browser (onnxruntime-web, WebAssembly), on the image embedding the
 * server computed once: a click, a box or a hover gives masks in tens of milliseconds with no round trip.
 *
 * The ONNX graph is annotation/core/sam_onnx.py's: inputs image_embeddings (1,256,64,64), point_coords (1,N,2)
 * and point_labels (1,N) in the 1024 frame (box corners as labels 2 and 3, a padding point -1 without a box),
 * mask_input (1,1,256,256) + has_mask_input (1); outputs scores (1,4) and low_res_masks (1,4,256,256). Mask 0 is
 * SAM's single answer, 1..3 its multimask answers; only the mask shown is upsampled to the image (bilinear, the
 * half-pixel convention of OpenCV, as SamBackend._upscale on the server). The server path stays the fallback:
 * no WebAssembly, no onnxruntime-web in static files, the classical backend, or an embedding not ready yet.
 * The runtime runs in onnxruntime-web's proxy Web Worker, so a decode never blocks the page (hover keeps frames).
 */
import { config } from "./state.js";

const LOW = 256;          // side of SAM's low-resolution mask logits
const FRAME = 1024;       // side of the padded frame the encoder saw
const MASK_LOGIT = 8.0;   // a binary mask as logits, as SamBackend._mask_prompt
const pageQuery = new URLSearchParams(window.location.search);
const forcedServer = pageQuery.get("decoder") === "server";
// ?decoder-threads=N sets the WebAssembly threads (at most the cores; by default all but one, 2 to 4)
const threadsAsked = parseInt(pageQuery.get("decoder-threads"), 10) || 0;

let ortPromise = null;
const sessions = {};      // decoder_url -> Promise<InferenceSession>
const perImage = {};      // image id -> Promise<{session, features: {data, shape}, imageSize, inputSize}>
const ready = {};         // image id -> the resolved value, for synchronous checks
const failed = {};        // image id -> true once its loading failed (the server path serves it)

export const decoderStats = {
  loads: [], firstDecodeMs: [], runs: 0, warmRuns: 0, warmPoints: [], lastMs: 0, runMs: [], error: "", threads: 0,
};

// V8 compiles the runtime's WebAssembly lazily and in tiers: a page's first decode compiles the code it runs (4-7x
// a warm decode: ~650 against ~90 ms in Node here), the next few run 1.5-3x slower than the rest; and the first
// decode of each prompt size (1, 2, 3… points: the runtime plans its memory per input shape) is slower again. The
// first decode is made on a dummy prompt and a blank embedding as soon as the session exists (warmUp), before the
// decoder counts as ready (the server answers clicks until then), so it overlaps the features' download and the
// embedding's computing; the session stays warm for every item the page shows (switch.js switches items in place);
// then, while the page is idle, the decoder runs on dummy prompts of 1 to 4 points, with and without a mask prompt,
// until 8 decodes have been made (real ones count), so the annotator's first clicks on an instance get the fast
// code (the slowest clicks of a series were its first four); a real prompt goes first.
const WARM_RUNS = 8;
const WARM_POINTS = 4;
const WARM_IDLE_MS = 400;  // the idle warm-up waits this long after loading: an immediate click goes first
let inFlight = 0;
let warming = null;
const whenIdle = self.requestIdleCallback
  ? (fn) => self.requestIdleCallback(fn, { timeout: 200 }) : (fn) => setTimeout(fn, 50);

/** True when this browser can run the decoder at all (WebAssembly present, onnxruntime-web served). */
export function browserDecoderPossible() {
  return !forcedServer && Boolean(config.ort) && typeof WebAssembly === "object";
}

function loadOrt() {
  if (!ortPromise) {
    ortPromise = import(config.ort.module).then((ort) => {
      ort.env.wasm.wasmPaths = { wasm: new URL(config.ort.wasm, window.location.href).href };
      // Several threads where the page is cross-origin isolated (the editor is: scoring/isolation.py), else one:
      // all cores but one for the page and the compositor, at least 2, at most 4. On 2 cores two threads decode a
      // click faster than one (p50 70 against 81 ms) though the page draws fewer frames while hovering
      // (perf/sam_browser_speed.py; `?decoder-threads=1` shows the other side).
      const cores = navigator.hardwareConcurrency || 1;
      ort.env.wasm.numThreads = !self.crossOriginIsolated ? 1
        : Math.min(cores, threadsAsked || Math.min(4, Math.max(2, cores - 1)));
      decoderStats.threads = ort.env.wasm.numThreads;
      // The runtime runs in onnxruntime-web's own Web Worker (a proxy): a decode never blocks the page's thread,
      // so the pointer, drawing and hover keep their frames while SAM decodes.
      ort.env.wasm.proxy = true;
      return ort;
    });
  }
  return ortPromise;
}

async function fetchOk(url, priority = "auto") {
  const res = await fetch(url, { credentials: "same-origin", priority });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res;
}

// float16 -> float32 through a table of the 65536 half values (built once, 256 KiB).
let halfTable = null;
function halfToFloat(bits) {
  if (!halfTable) {
    halfTable = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) {
      const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
      halfTable[h] = e === 0 ? s * f * 2 ** -24 : e === 31 ? (f ? NaN : s * Infinity) : s * (1 + f / 1024) * 2 ** (e - 15);
    }
  }
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = halfTable[bits[i]];
  return out;
}

const pair = (text) => text.split(",").map((v) => parseInt(v, 10));

/** Start downloading the runtime and the decoder and creating its session (idempotent). The session's first decode
 *  (the runtime compiling its code) is made at once on a dummy embedding, while the image's features download or
 *  its embedding is computed, not after them. */
export function warmUp(url) {
  if (!browserDecoderPossible() || !url) return null;
  if (!sessions[url]) {
    sessions[url] = Promise.all([loadOrt(), fetchOk(url).then((r) => r.arrayBuffer())])
      // The file is saved optimized (sam_onnx._optimize): creating the session has no graph optimization to make.
      .then(async ([ort, buf]) => {
        const session = await ort.InferenceSession.create(buf, {
          executionProviders: ["wasm"], graphOptimizationLevel: "disabled",
        });
        const first = performance.now();
        const blank = { data: new Float32Array(256 * 64 * 64), shape: [1, 256, 64, 64] };
        await warmOnce({ ort, session, features: blank, imageSize: [FRAME, FRAME], inputSize: [FRAME, FRAME] });
        decoderStats.firstDecodeMs.push(performance.now() - first);
        return session;
      });
    sessions[url].catch((e) => { decoderStats.error = String(e); });
  }
  return sessions[url];
}

/** Start loading the decoder and the image's features (idempotent); resolves to the context or rejects. The next
 *  item's images are prepared ahead (prefetch.js, `priority` "low"), so the Next button finds them loaded. */
export function prepare(img, browser, { priority = "auto" } = {}) {
  if (perImage[img.id]) return perImage[img.id];
  perImage[img.id] = (async () => {
    const started = performance.now();
    const download = fetchOk(browser.features_url, priority);
    const ort = await loadOrt();
    const [session, res] = await Promise.all([warmUp(browser.decoder_url), download]);
    const shape = pair(res.headers.get("X-Embedding-Shape"));
    const features = { data: halfToFloat(new Uint16Array(await res.arrayBuffer())), shape };
    const ctx = {
      ort, session, features, imageSize: pair(res.headers.get("X-Image-Size")),
      inputSize: pair(res.headers.get("X-Input-Size")),
    };
    ready[img.id] = ctx;
    decoderStats.loads.push(performance.now() - started);
    warmInIdle(ctx);
    return ctx;
  })();
  perImage[img.id].catch((e) => { decoderStats.error = String(e); delete ready[img.id]; failed[img.id] = true; });
  return perImage[img.id];
}

/** Forget the loaded features of every image but `keep`'s ids (the page shows another item; the decoder's session
 *  stays, warm). An image forgotten and shown again loads its features anew, from the browser's cache. */
export function release(keep) {
  const kept = new Set(keep.map(String));
  for (const table of [perImage, ready, failed]) {
    // an image whose loading failed is tried again when shown
    for (const id of Object.keys(table)) if (!kept.has(id) || failed[id]) delete table[id];
  }
}

/** The loaded context of an image, or a promise of it while it loads, or null (not started or failed). */
export function contextFor(img) {
  if (ready[img.id]) return ready[img.id];
  return failed[img.id] ? null : perImage[img.id] || null;
}
export function isReady(img) { return Boolean(ready[img.id]); }

/** A binary mask (W*H, row-major) -> SAM's 256x256 mask prompt logits, as SamBackend._mask_prompt. */
export function maskToLogits(mask, ctx) {
  const [H, W] = ctx.imageSize, [h, w] = ctx.inputSize;
  const out = new Float32Array(LOW * LOW);
  const cell = FRAME / LOW;  // 4 frame pixels per low-res cell
  for (let r = 0; r < LOW; r++) {
    for (let c = 0; c < LOW; c++) {
      let sum = 0;
      for (let i = 0; i < cell; i++) {
        const fy = r * cell + i;
        if (fy >= h) break;
        const y = Math.min(H - 1, Math.floor((fy + 0.5) * H / h));
        for (let j = 0; j < cell; j++) {
          const fx = c * cell + j;
          if (fx >= w) break;
          sum += mask[y * W + Math.min(W - 1, Math.floor((fx + 0.5) * W / w))];
        }
      }
      out[r * LOW + c] = (2 * sum / (cell * cell) - 1) * MASK_LOGIT;
    }
  }
  return out;
}

/** One low-res logit plane (256x256) -> a binary mask of the image (bilinear on the part the image fills). */
export function upscale(logits, ctx) {
  const [H, W] = ctx.imageSize, [h, w] = ctx.inputSize;
  const rows = Math.max(1, Math.round(h * LOW / FRAME)), cols = Math.max(1, Math.round(w * LOW / FRAME));
  const mask = new Uint8Array(W * H);
  const xs0 = new Int32Array(W), xs1 = new Int32Array(W), fxs = new Float32Array(W);
  for (let x = 0; x < W; x++) {
    const sx = Math.min(cols - 1, Math.max(0, (x + 0.5) * cols / W - 0.5));
    xs0[x] = Math.floor(sx); xs1[x] = Math.min(cols - 1, xs0[x] + 1); fxs[x] = sx - xs0[x];
  }
  for (let y = 0; y < H; y++) {
    const sy = Math.min(rows - 1, Math.max(0, (y + 0.5) * rows / H - 0.5));
    const y0 = Math.floor(sy), y1 = Math.min(rows - 1, y0 + 1), fy = sy - y0;
    const r0 = y0 * LOW, r1 = y1 * LOW, o = y * W;
    for (let x = 0; x < W; x++) {
      const a = logits[r0 + xs0[x]], b = logits[r0 + xs1[x]], c = logits[r1 + xs0[x]], d = logits[r1 + xs1[x]];
      const top = a + (b - a) * fxs[x], bottom = c + (d - c) * fxs[x];
      mask[o + x] = top + (bottom - top) * fy > 0 ? 1 : 0;
    }
  }
  return mask;
}

/** One decode of a dummy prompt: the k-th of 1 to 4 points, with and without a mask prompt (as real clicks
 *  alternate). */
async function warmOnce(ctx) {
  const [H, W] = ctx.imageSize;
  const k = decoderStats.warmRuns, odd = k % 2;
  const points = Array.from({ length: 1 + (k % WARM_POINTS) }, (_, i) => [W * (0.2 + 0.15 * i), H * 0.5, 1]);
  await decode(ctx, {
    points, box: null, multimask: true, maskInput: odd ? new Float32Array(LOW * LOW) : null,
  }, { warm: true });
  decoderStats.warmPoints.push(points.length);
}

function warmInIdle(ctx) {
  if (warming) return;
  const idle = (ms) => new Promise((r) => setTimeout(r, ms));
  warming = (async () => {
    await idle(WARM_IDLE_MS);
    while (decoderStats.runs + decoderStats.warmRuns < WARM_RUNS) {
      if (inFlight) { await idle(50); continue; }
      await warmOnce(ctx);
    }
  })().catch(() => {});
}

/** Run the decoder on a prompt. `maskInput`: low-res logits (Float32Array 256*256), a binary image mask, or null.
 *  Resolves to proposals best first: {score, lowRes, mask()} (mask() upsamples once, on demand). */
export async function decode(ctx, { points, box, multimask, maskInput }, { warm = false } = {}) {
  const [H, W] = ctx.imageSize, [h, w] = ctx.inputSize;
  const sx = w / W, sy = h / H;
  const coords = [], labels = [];
  for (const [x, y, label] of points) { coords.push(x * sx, y * sy); labels.push(label); }
  if (box) { coords.push(box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy); labels.push(2, 3); }
  else { coords.push(0, 0); labels.push(-1); }
  let logits = null;
  if (maskInput) logits = maskInput.length === LOW * LOW && maskInput instanceof Float32Array ? maskInput : maskToLogits(maskInput, ctx);
  const { ort } = ctx;
  const n = labels.length;
  // A copy of the embedding per run (the proxy transfers its inputs' buffers to the worker): made ahead, after the
  // previous run while the page idles, so the 4 MiB copy (~2 ms) is not on the click's path.
  const embedding = ctx.spare || ctx.features.data.slice();
  ctx.spare = null;
  const feeds = {
    image_embeddings: new ort.Tensor("float32", embedding, ctx.features.shape),
    point_coords: new ort.Tensor("float32", Float32Array.from(coords), [1, n, 2]),
    point_labels: new ort.Tensor("float32", Float32Array.from(labels), [1, n]),
    mask_input: new ort.Tensor("float32", logits || new Float32Array(LOW * LOW), [1, 1, LOW, LOW]),
    has_mask_input: new ort.Tensor("float32", Float32Array.of(logits ? 1 : 0), [1]),
  };
  const started = performance.now();
  inFlight++;
  let out;
  try {
    out = await ctx.session.run(feeds);
  } finally {
    inFlight--;
    whenIdle(() => { if (!ctx.spare) ctx.spare = ctx.features.data.slice(); });
  }
  if (warm) {
    decoderStats.warmRuns++;
  } else {
    decoderStats.runs++;
    decoderStats.lastMs = performance.now() - started;
    if (decoderStats.runMs.length < 10000) decoderStats.runMs.push(decoderStats.lastMs);
  }
  const scores = out.scores.data, low = out.low_res_masks.data;
  const picks = multimask ? [1, 2, 3] : [0];
  const proposals = picks.map((k) => {
    const plane = low.slice(k * LOW * LOW, (k + 1) * LOW * LOW);
    let cached = null;
    return { score: scores[k], lowRes: plane, mask: () => cached || (cached = upscale(plane, ctx)) };
  });
  proposals.sort((a, b) => b.score - a.score);
  return proposals;
}
