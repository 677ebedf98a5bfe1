/* Annotation editor: canvas, SAM/classic prompts, mask tools, instances, labels, autosave.
 *
 * Plain JS, no build step. Masks live in memory as Uint8Array (row-major, 1 = inside) per instance and are
 * exchanged with the server as COCO RLE (column-major runs, compressed string), encoded/decoded here.
 * Instance objects are immutable: an edit makes a new object, so undo/redo snapshots are cheap lists of
 * references. Every change is saved (debounced) and mirrored into localStorage, so a closed tab loses nothing.
 */
(function () {
  "use strict";

  const config = JSON.parse(document.getElementById("editor-config").textContent);
  const leaf = config.leaf;
  const STORAGE_KEY = "annotation-item-" + config.item.id;
  const PALETTE = [
    [230, 25, 75], [60, 180, 75], [255, 225, 25], [0, 130, 200], [245, 130, 48], [145, 30, 180],
    [70, 240, 240], [240, 50, 230], [210, 245, 60], [250, 190, 212], [0, 128, 128], [220, 190, 255],
    [170, 110, 40], [255, 250, 200], [128, 0, 0], [170, 255, 195], [128, 128, 0], [255, 215, 180],
  ];
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- COCO RLE -----------------------
  const { decode: rleDecode, encode: rleEncode } = window.CocoRle;

  // ---------------------------------------------------------------- state --------------------------
  const images = config.item.images.map((img) => ({ ...img, el: null, loaded: false }));
  let nextId = 1;
  const state = {
    version: config.item.version,
    itemState: config.item.state,
    masklet: (leaf.masklets.find((m) => m.scored) || leaf.masklets[0]).name,
    instances: {},          // masklet -> [instance]
    selected: null,         // instance id
    multi: new Set(),       // ids selected for merging
    tool: "click",
    brush: 12,
    opacity: 0.45,
    outlines: true,
    hidden: false,
    view: { s: 1, tx: 0, ty: 0 },
    prompt: { points: [], box: null, proposals: [], pick: 0, lastRle: null },
    polygon: [],
    findings: config.item.findings || [],
  };
  const undoStack = [], redoStack = [];

  function maskletSpec(name) { return leaf.masklets.find((m) => m.name === name); }
  function imageOf(masklet) { return images[maskletSpec(masklet).image]; }
  function currentImage() { return imageOf(state.masklet); }

  function makeInstance(mask, w, h, id, colour) {
    let x0 = w, y0 = h, x1 = -1, y1 = -1, area = 0;
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) {
        if (mask[row + x]) {
          area++;
          if (x < x0) x0 = x; if (x > x1) x1 = x;
          if (y < y0) y0 = y; if (y > y1) y1 = y;
        }
      }
    }
    const newId = id || nextId++;
    return {
      id: newId, mask, w, h, area, colour: colour || PALETTE[(newId - 1) % PALETTE.length],
      bbox: area ? [x0, y0, x1, y1] : null, rle: null, canvas: null, bakedKey: null,
    };
  }
  function rleOf(inst) { if (!inst.rle) inst.rle = rleEncode(inst.mask, inst.w, inst.h); return inst.rle; }
  function list(masklet) { return state.instances[masklet] || (state.instances[masklet] = []); }
  function findInstance(id) {
    for (const name of Object.keys(state.instances)) {
      const i = state.instances[name].findIndex((x) => x.id === id);
      if (i >= 0) return { masklet: name, index: i, inst: state.instances[name][i] };
    }
    return null;
  }
  function selectedInstance() { return state.selected ? findInstance(state.selected) : null; }

  function snapshot() {
    const copy = {};
    for (const k of Object.keys(state.instances)) copy[k] = state.instances[k].slice();
    return { instances: copy, selected: state.selected };
  }
  function restore(snap) {
    state.instances = {};
    for (const k of Object.keys(snap.instances)) state.instances[k] = snap.instances[k].slice();
    state.selected = snap.selected;
    state.multi.clear();
  }
  /** Record the state before a change; call, then mutate, then changed(). */
  function checkpoint() {
    undoStack.push(snapshot());
    if (undoStack.length > 60) undoStack.shift();
    redoStack.length = 0;
  }
  function undo() {
    if (!undoStack.length) return;
    redoStack.push(snapshot());
    restore(undoStack.pop());
    resetPrompt();
    changed();
  }
  function redo() {
    if (!redoStack.length) return;
    undoStack.push(snapshot());
    restore(redoStack.pop());
    resetPrompt();
    changed();
  }
  function replaceInstance(id, mask) {
    const found = findInstance(id);
    if (!found) return null;
    const img = imageOf(found.masklet);
    const inst = makeInstance(mask, img.width, img.height, id, found.inst.colour);
    state.instances[found.masklet][found.index] = inst;
    return inst;
  }
  function addInstance(masklet, mask) {
    const img = imageOf(masklet);
    const inst = makeInstance(mask || new Uint8Array(img.width * img.height), img.width, img.height);
    list(masklet).push(inst);
    state.selected = inst.id;
    state.multi.clear();
    return inst;
  }

  // ---------------------------------------------------------------- rendering ----------------------
  const canvas = $("canvas");
  const ctx = canvas.getContext("2d");
  let dirty = false;
  function requestDraw() { if (!dirty) { dirty = true; requestAnimationFrame(draw); } }

  /** Bake an instance's fill and outline into a canvas the size of its bounding box. */
  function baked(inst, current) {
    const selected = inst.id === state.selected || state.multi.has(inst.id);
    const key = [state.opacity, state.outlines, selected, current].join("|");
    if (inst.canvas && inst.bakedKey === key) return inst.canvas;
    const [x0, y0, x1, y1] = inst.bbox;
    const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    const off = inst.canvas || document.createElement("canvas");
    off.width = bw; off.height = bh;
    const octx = off.getContext("2d");
    const data = octx.createImageData(bw, bh);
    const px = data.data, m = inst.mask, w = inst.w, h = inst.h;
    const fillA = Math.round(255 * state.opacity * (current ? 1 : 0.5));
    const [r, g, b] = inst.colour;
    const edge = selected ? [255, 255, 255] : [r, g, b];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = y * w + x;
        if (!m[i]) continue;
        const o = ((y - y0) * bw + (x - x0)) * 4;
        const isEdge = state.outlines && (x === 0 || y === 0 || x === w - 1 || y === h - 1 ||
          !m[i - 1] || !m[i + 1] || !m[i - w] || !m[i + w]);
        if (isEdge) { px[o] = edge[0]; px[o + 1] = edge[1]; px[o + 2] = edge[2]; px[o + 3] = 255; }
        else { px[o] = r; px[o + 1] = g; px[o + 2] = b; px[o + 3] = fillA; }
      }
    }
    octx.putImageData(data, 0, 0);
    inst.canvas = off;
    inst.bakedKey = key;
    return off;
  }

  function resizeCanvas() {
    const rect = canvas.getBoundingClientRect();
    const w = Math.max(200, Math.floor(rect.width)), h = Math.max(200, Math.floor(rect.height));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  }

  function fit() {
    resizeCanvas();
    const img = currentImage();
    const s = Math.min(canvas.width / img.width, canvas.height / img.height);
    state.view = { s, tx: (canvas.width - img.width * s) / 2, ty: (canvas.height - img.height * s) / 2 };
    $("hud").textContent = hudText();
    requestDraw();
  }

  function draw() {
    dirty = false;
    resizeCanvas();
    const v = state.view, img = currentImage();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(v.s, 0, 0, v.s, v.tx, v.ty);
    ctx.imageSmoothingEnabled = v.s < 2;
    if (img.loaded) ctx.drawImage(img.el, 0, 0);
    if (!state.hidden) {
      for (const spec of leaf.masklets) {
        if (images[spec.image] !== img) continue;
        const current = spec.name === state.masklet;
        for (const inst of list(spec.name)) {
          if (!inst.bbox) continue;
          ctx.drawImage(baked(inst, current), inst.bbox[0], inst.bbox[1]);
        }
      }
    }
    const lw = 2 / v.s;
    const p = state.prompt;
    if (p.box) {
      ctx.strokeStyle = "#00e5ff"; ctx.lineWidth = lw; ctx.setLineDash([6 / v.s, 4 / v.s]);
      ctx.strokeRect(p.box[0], p.box[1], p.box[2] - p.box[0], p.box[3] - p.box[1]);
      ctx.setLineDash([]);
    }
    if (drag && drag.kind === "box") {
      ctx.strokeStyle = "#00e5ff"; ctx.lineWidth = lw;
      ctx.strokeRect(drag.x0, drag.y0, drag.x - drag.x0, drag.y - drag.y0);
    }
    for (const [x, y, label] of p.points) {
      ctx.beginPath(); ctx.arc(x, y, 6 / v.s, 0, 2 * Math.PI);
      ctx.fillStyle = label ? "#2ecc40" : "#ff4136"; ctx.fill();
      ctx.lineWidth = lw; ctx.strokeStyle = "#fff"; ctx.stroke();
    }
    if (state.polygon.length) {
      ctx.beginPath(); ctx.moveTo(state.polygon[0][0], state.polygon[0][1]);
      for (const [x, y] of state.polygon.slice(1)) ctx.lineTo(x, y);
      if (hover) ctx.lineTo(hover.x, hover.y);
      ctx.strokeStyle = "#ffdc00"; ctx.lineWidth = lw; ctx.stroke();
    }
    if (hover && (state.tool === "brush" || state.tool === "eraser")) {
      ctx.beginPath(); ctx.arc(hover.x, hover.y, state.brush, 0, 2 * Math.PI);
      ctx.strokeStyle = state.tool === "brush" ? "#fff" : "#ff4136"; ctx.lineWidth = lw; ctx.stroke();
    }
  }

  // ---------------------------------------------------------------- panels -------------------------
  function renderInstances() {
    const ol = $("instances");
    ol.textContent = "";
    list(state.masklet).forEach((inst, i) => {
      const li = document.createElement("li");
      li.dataset.id = inst.id;
      if (inst.id === state.selected) li.classList.add("selected");
      if (state.multi.has(inst.id)) li.classList.add("multi");
      const sw = document.createElement("span");
      sw.className = "swatch"; sw.style.background = `rgb(${inst.colour.join(",")})`;
      const label = document.createElement("span");
      label.textContent = `#${i + 1}`;
      const area = document.createElement("span");
      area.className = "area"; area.textContent = `${inst.area} px`;
      li.append(sw, label, area);
      li.addEventListener("click", (ev) => {
        if (ev.shiftKey) {
          if (state.selected && !state.multi.size) state.multi.add(state.selected);
          state.multi.has(inst.id) ? state.multi.delete(inst.id) : state.multi.add(inst.id);
        } else {
          state.multi.clear();
        }
        state.selected = inst.id;
        resetPrompt();
        renderInstances(); requestDraw();
      });
      ol.append(li);
    });
    $("hud").textContent = hudText();
  }

  function hudText() {
    const n = Object.values(state.instances).reduce((a, l) => a + l.length, 0);
    return `${Math.round(state.view.s * 100)}% · ${n} instance(s) · version ${state.version}`;
  }

  function renderFindings() {
    const ul = $("findings");
    ul.textContent = "";
    if (!state.findings.length) {
      const li = document.createElement("li"); li.textContent = "No findings."; li.className = "ok"; ul.append(li);
    }
    for (const f of state.findings) {
      const li = document.createElement("li");
      li.className = f.severity;
      li.textContent = f.message;
      li.dataset.code = f.code;
      const spec = maskletSpec(f.field);
      if (spec && f.instance != null) {
        // Clicking a finding about one instance shows that instance.
        li.style.cursor = "pointer";
        li.title = "Select this instance";
        li.addEventListener("click", () => {
          if (state.masklet !== f.field) setMasklet(f.field);
          const inst = list(f.field)[f.instance];
          if (inst) { state.selected = inst.id; state.multi.clear(); renderInstances(); requestDraw(); }
        });
      }
      ul.append(li);
    }
    $("override").hidden = !state.findings.length;
  }

  function renderProposals() {
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

  function renderLabels() {
    const form = $("labels");
    form.textContent = "";
    const add = (html) => { const d = document.createElement("div"); d.innerHTML = html; form.append(d); return d; };
    for (const name of leaf.text_fields) {
      const d = add(`<label for="t-${name}"></label><input type="text" id="t-${name}" data-text="${name}">`);
      d.querySelector("label").textContent = name;
      d.querySelector("input").value = (config.item.texts || {})[name] || "";
    }
    if (leaf.count_field) {
      const d = add(`<label for="f-count"></label><input type="number" min="0" id="f-count">`);
      d.querySelector("label").textContent = `${leaf.count_field} (target count)`;
      d.querySelector("input").value = config.item.count == null ? "" : config.item.count;
      add(`<label class="check"><input type="checkbox" id="f-precise"> precise count</label>`);
      add(`<label class="check"><input type="checkbox" id="f-indesc"> count stated in the description</label>`);
      $("f-precise").checked = !!config.item.precise_count;
      $("f-indesc").checked = !!config.item.count_in_description;
    }
    if (leaf.has_feasibility) {
      add(`<label for="f-feasible">placement feasible</label><select id="f-feasible">
        <option value="">not set</option><option value="true">yes</option><option value="false">no</option></select>`);
      $("f-feasible").value = config.item.placement_feasible == null ? "" : String(config.item.placement_feasible);
    }
    form.addEventListener("input", () => changed({ labelsOnly: true }));
    form.addEventListener("submit", (ev) => ev.preventDefault());
  }

  function labelValues() {
    const texts = {};
    for (const el of $("labels").querySelectorAll("[data-text]")) texts[el.dataset.text] = el.value;
    const out = { texts };
    if (leaf.count_field) {
      const raw = $("f-count").value;
      out.count = raw === "" ? null : parseInt(raw, 10);
      out.precise_count = $("f-precise").checked;
      out.count_in_description = $("f-indesc").checked;
    }
    if (leaf.has_feasibility) {
      const v = $("f-feasible").value;
      out.placement_feasible = v === "" ? null : v === "true";
    }
    return out;
  }

  // ---------------------------------------------------------------- saving -------------------------
  function csrfToken() {
    const m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }
  async function api(url, method, body) {
    const res = await fetch(url, {
      method, credentials: "same-origin", keepalive: method !== "GET" && body && JSON.stringify(body).length < 60000,
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: body ? JSON.stringify(body) : undefined,
    });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    return { status: res.status, data };
  }

  function payload() {
    const instances = {};
    for (const spec of leaf.masklets) instances[spec.name] = list(spec.name).filter((i) => i.area > 0).map(rleOf);
    return { version: state.version, ...labelValues(), instances };
  }

  let saveTimer = null, backupTimer = null, saving = false, pending = false, conflict = false;
  // Every change bumps changeSeq; a save that carried change N sets savedSeq = N. Unsaved while they differ.
  let changeSeq = 0, savedSeq = 0;
  function setSaveStatus(text) { $("save-status").textContent = text; }

  function backup() {
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify({ savedVersion: state.version, payload: payload(), at: Date.now() }));
    } catch (e) { /* storage full or disabled: the server copy still saves */ }
  }

  function changed(opts) {
    opts = opts || {};
    changeSeq++;
    if (!opts.labelsOnly) { renderInstances(); requestDraw(); }
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
  function editable() { return ["todo", "in_progress", "needs_revision"].includes(state.itemState); }

  async function save() {
    if (saving) { pending = true; return; }
    saving = true;
    setSaveStatus("Saving…");
    const body = payload();
    const seq = changeSeq;
    let res;
    try { res = await api(config.api.item, "PUT", body); } catch (e) { res = { status: 0, data: null }; }
    if (res.status === 409) res = await reconcile(body, res);
    saving = false;
    if (res.status === 200) {
      savedSeq = Math.max(savedSeq, seq);
      state.version = res.data.version;
      state.itemState = res.data.state;
      state.findings = res.data.findings || [];
      $("item-state").textContent = res.data.state.replace("_", " ");
      renderFindings();
      backup();
      setSaveStatus(`Saved (version ${state.version}).`);
      $("hud").textContent = hudText();
    } else if (res.status === 409) {
      conflict = true;
      setSaveStatus(((res.data && res.data.detail) || "Conflict.") + " Your copy is kept in this browser.");
      $("save-status").className = "ann-banner";
    } else if (res.status === 0) {
      setSaveStatus("Offline: changes are kept in this browser and saved when the server answers.");
      setTimeout(scheduleSave, 3000);
    } else {
      setSaveStatus("Not saved: " + ((res.data && (res.data.detail || JSON.stringify(res.data.errors))) || res.status));
    }
    if (pending) { pending = false; save(); }
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

  function flushOnLeave() {
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

  async function submit() {
    if (saveTimer || changeSeq !== savedSeq) { clearTimeout(saveTimer); saveTimer = null; await save(); }
    const reason = $("override-reason").value;
    const res = await api(config.api.submit, "POST", { version: state.version, override_reason: reason });
    if (res.status === 200) {
      state.version = res.data.version;
      state.itemState = res.data.state;
      $("item-state").textContent = "submitted";
      setSaveStatus("Submitted for review.");
      backup();
      localStorage.removeItem(STORAGE_KEY);
    } else {
      if (res.data && res.data.findings) { state.findings = res.data.findings; renderFindings(); $("override-reason").focus(); }
      setSaveStatus((res.data && res.data.detail) || `Not submitted (${res.status}).`);
    }
  }

  // ---------------------------------------------------------------- segmentation ------------------
  function resetPrompt() {
    state.prompt = { points: [], box: null, proposals: [], pick: 0, lastRle: null };
    renderProposals();
  }

  let segSeq = 0;
  async function runSegment() {
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
      $("seg-status").textContent = "Segmentation failed: " + ((res.data && res.data.detail) || res.status);
      return;
    }
    p.proposals = res.data.masks.map((m) => ({ score: m.score, rle: m.rle }));
    $("seg-status").textContent = `${res.data.backend} · ${res.data.ms.toFixed(0)} ms · ${p.proposals.length} proposal(s)`;
    if (p.proposals.length) pickProposal(0, true);
    renderProposals();
  }

  function pickProposal(i, fresh) {
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
  async function watchEmbedding(img, then) {
    if (embedWatchers[img.id]) { if (then) embedWatchers[img.id].push(then); return; }
    embedWatchers[img.id] = then ? [then] : [];
    const box = $("embed-status");
    for (;;) {
      const res = await api(`/api/annotation/images/${img.id}/embedding/`, "GET");
      const d = res.data || {};
      if (res.status !== 200) { box.textContent = "Embedding status unavailable."; break; }
      if (d.status === "ready") { box.textContent = `Embedding ready (${d.model_key}).`; break; }
      if (d.status === "failed") { box.textContent = "Embedding failed: " + d.error; break; }
      box.innerHTML = `<label>Embedding ${d.status} <progress max="100"></progress></label>`;
      box.querySelector("progress").value = d.progress || 0;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const waiting = embedWatchers[img.id] || [];
    delete embedWatchers[img.id];
    for (const fn of waiting) fn();
  }

  // ---------------------------------------------------------------- mask tools --------------------
  function stamp(mask, w, h, cx, cy, r, value) {
    const x0 = Math.max(0, Math.floor(cx - r)), x1 = Math.min(w - 1, Math.ceil(cx + r));
    const y0 = Math.max(0, Math.floor(cy - r)), y1 = Math.min(h - 1, Math.ceil(cy + r));
    const r2 = r * r;
    for (let y = y0; y <= y1; y++) {
      const dy = y + 0.5 - cy;
      for (let x = x0; x <= x1; x++) {
        const dx = x + 0.5 - cx;
        if (dx * dx + dy * dy <= r2) mask[y * w + x] = value;
      }
    }
  }
  function strokeTo(mask, w, h, a, b, r, value) {
    const dist = Math.hypot(b.x - a.x, b.y - a.y);
    const steps = Math.max(1, Math.ceil(dist / Math.max(1, r / 2)));
    for (let i = 1; i <= steps; i++) stamp(mask, w, h, a.x + (b.x - a.x) * i / steps, a.y + (b.y - a.y) * i / steps, r, value);
  }

  function fillHoles(mask, w, h) {
    // Background reachable from the border (4-connected) stays; every other background pixel is a hole.
    const seen = new Uint8Array(w * h);
    const queue = new Int32Array(w * h);
    let head = 0, tail = 0;
    const push = (i) => { if (!mask[i] && !seen[i]) { seen[i] = 1; queue[tail++] = i; } };
    for (let x = 0; x < w; x++) { push(x); push((h - 1) * w + x); }
    for (let y = 0; y < h; y++) { push(y * w); push(y * w + w - 1); }
    while (head < tail) {
      const i = queue[head++], x = i % w;
      if (x > 0) push(i - 1);
      if (x < w - 1) push(i + 1);
      if (i >= w) push(i - w);
      if (i < w * (h - 1)) push(i + w);
    }
    const out = new Uint8Array(w * h);
    for (let i = 0; i < w * h; i++) out[i] = mask[i] || !seen[i] ? 1 : 0;
    return out;
  }

  function polygonMask(points, w, h) {
    const off = document.createElement("canvas");
    off.width = w; off.height = h;
    const o = off.getContext("2d");
    o.fillStyle = "#fff";
    o.beginPath(); o.moveTo(points[0][0], points[0][1]);
    for (const [x, y] of points.slice(1)) o.lineTo(x, y);
    o.closePath(); o.fill();
    const data = o.getImageData(0, 0, w, h).data;
    const mask = new Uint8Array(w * h);
    for (let i = 0; i < w * h; i++) mask[i] = data[i * 4 + 3] > 127 ? 1 : 0;
    return mask;
  }

  function ensureSelected() {
    let sel = selectedInstance();
    if (!sel || sel.masklet !== state.masklet) { addInstance(state.masklet); sel = selectedInstance(); }
    return sel;
  }

  function closePolygon() {
    if (state.polygon.length < 3) { state.polygon = []; requestDraw(); return; }
    const img = currentImage();
    checkpoint();
    const sel = ensureSelected();
    const poly = polygonMask(state.polygon, img.width, img.height);
    const mask = sel.inst.mask.slice();
    for (let i = 0; i < mask.length; i++) if (poly[i]) mask[i] = 1;
    replaceInstance(sel.inst.id, mask);
    state.polygon = [];
    resetPrompt();
    changed();
  }

  function fillSelected() {
    const sel = selectedInstance();
    if (!sel) return;
    checkpoint();
    replaceInstance(sel.inst.id, fillHoles(sel.inst.mask, sel.inst.w, sel.inst.h));
    changed();
  }

  function deleteSelected() {
    const ids = state.multi.size ? [...state.multi] : (state.selected ? [state.selected] : []);
    if (!ids.length) return;
    checkpoint();
    for (const id of ids) {
      const f = findInstance(id);
      if (f) state.instances[f.masklet].splice(f.index, 1);
    }
    state.selected = null; state.multi.clear();
    resetPrompt();
    changed();
  }

  function mergeSelected() {
    const ids = [...state.multi].filter((id) => { const f = findInstance(id); return f && f.masklet === state.masklet; });
    if (ids.length < 2) { $("seg-status").textContent = "Shift-click two or more instances in the list to merge them."; return; }
    checkpoint();
    const first = findInstance(ids[0]);
    const mask = first.inst.mask.slice();
    for (const id of ids.slice(1)) {
      const f = findInstance(id);
      const m = f.inst.mask;
      for (let i = 0; i < mask.length; i++) if (m[i]) mask[i] = 1;
      state.instances[f.masklet].splice(f.index, 1);
    }
    replaceInstance(ids[0], mask);
    state.selected = ids[0]; state.multi.clear();
    changed();
  }

  // ---------------------------------------------------------------- input --------------------------
  let drag = null, hover = null, spaceDown = false;
  function toImage(ev) {
    const rect = canvas.getBoundingClientRect();
    const v = state.view;
    return { x: (ev.clientX - rect.left - v.tx) / v.s, y: (ev.clientY - rect.top - v.ty) / v.s };
  }
  function inside(p) { const img = currentImage(); return p.x >= 0 && p.y >= 0 && p.x < img.width && p.y < img.height; }

  canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());
  canvas.addEventListener("mousedown", (ev) => {
    canvas.focus();
    const p = toImage(ev);
    const img = currentImage();
    if (state.tool === "pan" || spaceDown || ev.button === 1) {
      drag = { kind: "pan", sx: ev.clientX, sy: ev.clientY, tx: state.view.tx, ty: state.view.ty };
      return;
    }
    if (!inside(p)) return;
    if (state.tool === "click") {
      const label = ev.button === 2 || ev.altKey ? 0 : 1;
      state.prompt.points.push([Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10, label]);
      requestDraw();
      runSegment();
    } else if (state.tool === "box") {
      drag = { kind: "box", x0: p.x, y0: p.y, x: p.x, y: p.y };
    } else if (state.tool === "brush" || state.tool === "eraser") {
      checkpoint();
      const sel = ensureSelected();
      const mask = sel.inst.mask.slice();
      stamp(mask, img.width, img.height, p.x, p.y, state.brush, state.tool === "brush" ? 1 : 0);
      replaceInstance(sel.inst.id, mask);
      drag = { kind: "paint", last: p, id: sel.inst.id, mask };
      requestDraw();
    } else if (state.tool === "polygon") {
      state.polygon.push([p.x, p.y]);
      requestDraw();
    } else if (state.tool === "select") {
      const x = Math.floor(p.x), y = Math.floor(p.y);
      const hit = list(state.masklet).slice().reverse().find((i) => i.mask[y * i.w + x]);
      state.selected = hit ? hit.id : null;
      state.multi.clear();
      resetPrompt();
      renderInstances(); requestDraw();
    }
  });
  window.addEventListener("mousemove", (ev) => {
    const p = toImage(ev);
    hover = p;
    if (!drag) { if (["brush", "eraser", "polygon"].includes(state.tool)) requestDraw(); return; }
    if (drag.kind === "pan") {
      state.view.tx = drag.tx + ev.clientX - drag.sx;
      state.view.ty = drag.ty + ev.clientY - drag.sy;
    } else if (drag.kind === "box") {
      const img = currentImage();
      drag.x = Math.min(Math.max(p.x, 0), img.width); drag.y = Math.min(Math.max(p.y, 0), img.height);
    } else if (drag.kind === "paint") {
      const img = currentImage();
      strokeTo(drag.mask, img.width, img.height, drag.last, p, state.brush, state.tool === "brush" ? 1 : 0);
      drag.last = p;
      const inst = replaceInstance(drag.id, drag.mask);
      drag.mask = inst.mask;
    }
    requestDraw();
  });
  window.addEventListener("mouseup", () => {
    if (!drag) return;
    const d = drag;
    drag = null;
    if (d.kind === "box") {
      const box = [Math.min(d.x0, d.x), Math.min(d.y0, d.y), Math.max(d.x0, d.x), Math.max(d.y0, d.y)].map((v) => Math.round(v));
      if (box[2] - box[0] >= 2 && box[3] - box[1] >= 2) { state.prompt.box = box; runSegment(); }
    } else if (d.kind === "paint") {
      resetPrompt();
      changed();
    }
    requestDraw();
  });
  canvas.addEventListener("dblclick", () => { if (state.tool === "polygon") closePolygon(); });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    zoomAt(ev.deltaY < 0 ? 1.2 : 1 / 1.2, ev.clientX - canvas.getBoundingClientRect().left, ev.clientY - canvas.getBoundingClientRect().top);
  }, { passive: false });

  function zoomAt(factor, cx, cy) {
    const v = state.view;
    const s = Math.min(40, Math.max(0.05, v.s * factor));
    v.tx = cx - (cx - v.tx) * (s / v.s);
    v.ty = cy - (cy - v.ty) * (s / v.s);
    v.s = s;
    $("hud").textContent = hudText();
    requestDraw();
  }

  function setTool(tool) {
    state.tool = tool;
    if (tool !== "polygon") state.polygon = [];
    for (const b of document.querySelectorAll("[data-tool]")) b.setAttribute("aria-pressed", String(b.dataset.tool === tool));
    canvas.style.cursor = tool === "pan" ? "grab" : tool === "select" ? "default" : "crosshair";
    requestDraw();
  }

  function setBrush(size) {
    state.brush = Math.max(1, Math.min(120, size));
    $("brush-size").value = state.brush;
    $("brush-size-out").textContent = state.brush;
    requestDraw();
  }

  function switchImage() {
    // VisualMatching: go to a layer on the other image.
    const other = leaf.masklets.find((m) => m.image !== maskletSpec(state.masklet).image);
    if (other) setMasklet(other.name);
  }
  function setMasklet(name) {
    state.masklet = name;
    $("masklet").value = name;
    state.selected = null; state.multi.clear();
    resetPrompt();
    renderImageTabs();
    renderInstances();
    fit();
  }
  function renderImageTabs() {
    const tabs = $("image-tabs");
    tabs.textContent = "";
    if (images.length < 2) return;
    images.forEach((img, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = currentImage() === img ? "" : "secondary";
      b.textContent = `Image ${"AB"[i]}`;
      b.addEventListener("click", () => {
        const m = leaf.masklets.find((s) => s.image === i);
        if (m) setMasklet(m.name);
      });
      tabs.append(b);
    });
  }

  document.addEventListener("keydown", (ev) => {
    const tag = (ev.target.tagName || "").toLowerCase();
    if (["input", "textarea", "select"].includes(tag)) return;
    const key = ev.key;
    const mod = ev.ctrlKey || ev.metaKey;
    if (mod && key.toLowerCase() === "z") { ev.preventDefault(); ev.shiftKey ? redo() : undo(); return; }
    if (mod && key.toLowerCase() === "y") { ev.preventDefault(); redo(); return; }
    if (mod) return;
    if (key === " ") { spaceDown = true; ev.preventDefault(); return; }
    if (key === "?") { toggleHelp(); return; }
    if (!$("help").hidden && key === "Escape") { toggleHelp(false); return; }
    const tools = { v: "select", c: "click", x: "box", b: "brush", e: "eraser", p: "polygon", h: "pan" };
    const lower = key.toLowerCase();
    if (tools[lower]) { setTool(tools[lower]); return; }
    if (lower === "n") { state.selected = null; state.multi.clear(); resetPrompt(); renderInstances(); requestDraw();
      $("seg-status").textContent = "New instance: click or draw a box."; return; }
    if (lower === "f") { fillSelected(); return; }
    if (lower === "m") { mergeSelected(); return; }
    if (lower === "l") { $("outlines").checked = !$("outlines").checked; state.outlines = $("outlines").checked; requestDraw(); return; }
    if (lower === "o") { state.hidden = !state.hidden; requestDraw(); return; }
    if (key === "Delete" || key === "Backspace") { ev.preventDefault(); deleteSelected(); return; }
    if (key === "Escape") { state.polygon = []; resetPrompt(); requestDraw(); return; }
    if (key === "Enter") { if (state.polygon.length) closePolygon(); return; }
    if (key === "[") { setBrush(state.brush - 2); return; }
    if (key === "]") { setBrush(state.brush + 2); return; }
    if (key === "+" || key === "=") { zoomAt(1.25, canvas.width / 2, canvas.height / 2); return; }
    if (key === "-") { zoomAt(0.8, canvas.width / 2, canvas.height / 2); return; }
    if (key === "0") { fit(); return; }
    if (key === "Tab" && images.length > 1) { ev.preventDefault(); switchImage(); return; }
    if (/^[1-9]$/.test(key)) { pickProposal(parseInt(key, 10) - 1); return; }
  });
  document.addEventListener("keyup", (ev) => { if (ev.key === " ") spaceDown = false; });

  function toggleHelp(show) {
    const help = $("help");
    help.hidden = show === undefined ? !help.hidden : !show;
    if (!help.hidden) $("btn-help-close").focus(); else canvas.focus();
  }

  // ---------------------------------------------------------------- start ---------------------------
  function loadInstances(source) {
    state.instances = {};
    for (const spec of leaf.masklets) {
      const img = images[spec.image];
      state.instances[spec.name] = ((source || {})[spec.name] || []).map((rle) => {
        const inst = makeInstance(rleDecode(rle), img.width, img.height);
        inst.rle = rle;
        return inst;
      });
    }
  }

  function restoreBackup() {
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
    return true;
  }

  function start() {
    const restored = editable() && restoreBackup();
    loadInstances(config.item.instances);
    const select = $("masklet");
    for (const m of leaf.masklets) {
      const o = document.createElement("option");
      o.value = m.name;
      o.textContent = `${m.name}${images.length > 1 ? ` (image ${"AB"[m.image]})` : ""}${m.scored ? "" : " · reference"}`;
      select.append(o);
    }
    select.value = state.masklet;
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
    renderLabels();
    renderFindings();
    renderImageTabs();
    renderInstances();
    setTool("click");
    for (const img of images) {
      img.el = new Image();
      img.el.onload = () => { img.loaded = true; if (img === currentImage()) fit(); };
      img.el.src = img.url;
      watchEmbedding(img);
    }
    if (!editable()) setSaveStatus(`This item is ${state.itemState.replace("_", " ")}: changes are not saved.`);
    if (restored) { changeSeq++; setSaveStatus("Restored unsaved work from this browser; saving…"); scheduleSave(); }
    fit();
    window.annotationEditor = { state, rleEncode, rleDecode, payload, save, undo, redo, fillHoles };
  }

  start();
})();
