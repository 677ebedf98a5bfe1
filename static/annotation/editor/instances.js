/* The side panels: the instance list of the current layer, layer and image switching, the linter's findings,
   and the label form; plus the list operations (merge, delete). */
import { fit, requestDraw, updateHud } from "./canvas.js";
import { checkpoint } from "./history.js";
import { provMerged } from "./provenance.js";
import {
  $, changed, config, currentImage, findInstance, images, isLocked, leaf, list, maskletSpec, replaceInstance,
  resetPrompt,
  state,
} from "./state.js";

export function renderInstances() {
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
  updateHud();
}

export function renderFindings() {
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

export function renderImageTabs() {
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

export function setMasklet(name) {
  state.masklet = name;
  $("masklet").value = name;
  state.selected = null; state.multi.clear();
  resetPrompt();
  renderImageTabs();
  renderInstances();
  fit();
}

/** VisualMatching: go to a layer on the other image. */
export function switchImage() {
  const other = leaf.masklets.find((m) => m.image !== maskletSpec(state.masklet).image);
  if (other) setMasklet(other.name);
}

export function deleteSelected() {
  if (isLocked()) return;
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

export function mergeSelected() {
  if (isLocked()) return;
  const ids = [...state.multi].filter((id) => { const f = findInstance(id); return f && f.masklet === state.masklet; });
  if (ids.length < 2) { $("seg-status").textContent = "Shift-click two or more instances in the list to merge them."; return; }
  checkpoint();
  const first = findInstance(ids[0]);
  const parts = ids.map((id) => findInstance(id).inst);
  const mask = first.inst.mask.slice();
  for (const id of ids.slice(1)) {
    const f = findInstance(id);
    const m = f.inst.mask;
    for (let i = 0; i < mask.length; i++) if (m[i]) mask[i] = 1;
    state.instances[f.masklet].splice(f.index, 1);
  }
  replaceInstance(ids[0], mask, null, provMerged(parts, mask));
  state.selected = ids[0]; state.multi.clear();
  changed();
}

// ---------------------------------------------------------------- labels -------------------------
export function renderLabels() {
  const form = $("labels");
  form.textContent = "";
  const add = (html) => { const d = document.createElement("div"); d.innerHTML = html; form.append(d); return d; };
  for (const name of leaf.text_fields) {
    const d = add(`<label for="t-${name}"></label><input type="text" id="t-${name}" data-text="${name}">`);
    d.querySelector("label").textContent = (leaf.field_labels || {})[name] || name;
    d.querySelector("input").title = name;  // the EPIC field name, for those who know it
    d.querySelector("input").value = (config.item.texts || {})[name] || "";
  }
  if (leaf.count_field) {
    const d = add(`<label for="f-count"></label><input type="number" min="0" id="f-count">`);
    d.querySelector("label").textContent = (leaf.field_labels || {})[leaf.count_field] || leaf.count_field;
    d.querySelector("input").title = leaf.count_field;
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
  // Set, not added: the form is rendered again for each item the page shows (switch.js).
  form.oninput = () => changed({ labelsOnly: true });
  form.onsubmit = (ev) => ev.preventDefault();
}

/** The label form's values, as the item API takes them. */
export function labelValues() {
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
