// The device editor's script. A click on a photo asks the segmenter for the control's box (0..1000 of the photo);
// the box in the box form (proposed, or a saved one chosen by its component and view) is drawn over its photo and
// adjusted by dragging its edges, corners or body, its numbers kept in step; "Save box" saves it as a new version
// (the form's one path). Every change of the numbers asks the server for the live checks of the unsaved definition
// (devicelab/core/checks.py, the checks of a saved version: no rule is repeated here), shown before saving.
(function () {
  "use strict";
  const payload = JSON.parse(document.getElementById("draft-payload").textContent);

  const lookState = document.getElementById("look-state");
  if (lookState) {  // the look preview follows the chosen state
    lookState.addEventListener("change", () => {
      document.querySelectorAll("img.look-image").forEach((img) => {
        const url = new URL(img.src, window.location.href);
        url.searchParams.set("state", lookState.value);
        img.src = url.toString();
      });
    });
  }

  const form = document.getElementById("box-form");
  if (!form) return;
  const status = document.getElementById("propose-status");
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  const KEYS = ["x1", "y1", "x2", "y2"];
  const SCALE = 1000;
  const GRIP = 9;  // screen pixels from an edge that grab the edge rather than the body
  let proposal = false;  // the box in the form is a click's proposal, for the component chosen next

  const formBox = () => KEYS.map((k) => parseInt(form[k].value, 10));
  const setForm = (box) => KEYS.forEach((k, i) => { form[k].value = box[i]; });
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

  function draw(view, box) {
    document.querySelectorAll("rect.proposal").forEach((rect) => {
      const shown = rect.dataset.editBox === view && box && box.every(Number.isFinite);
      rect.setAttribute("x", shown ? box[0] : 0); rect.setAttribute("y", shown ? box[1] : 0);
      rect.setAttribute("width", shown ? Math.max(0, box[2] - box[0]) : 0);
      rect.setAttribute("height", shown ? Math.max(0, box[3] - box[1]) : 0);
      rect.style.pointerEvents = shown ? "all" : "none";
    });
  }

  // -- live checks of the unsaved change -------------------------------------------------------------------------
  const list = document.getElementById("checks-list");
  const clean = document.getElementById("checks-clean");
  const checksStatus = document.getElementById("checks-status");
  let timer = null;
  let asked = 0;

  function unsavedDefinition() {
    const definition = JSON.parse(JSON.stringify(payload.definition));
    const component = (definition.components || {})[form.component.value];
    if (component) {
      // a number not typed yet goes as null: the checks name the box's path
      component.boxes = Object.assign({}, component.boxes, {[form.view.value]: formBox().map((v) => (Number.isFinite(v) ? v : null))});
    }
    return definition;
  }

  function showChecks(checks) {
    list.replaceChildren(...checks.map((c) => {
      const li = document.createElement("li");
      li.className = `check-${c.level}`;
      li.dataset.path = c.path;
      const level = document.createElement("strong"); level.textContent = c.level;
      const path = document.createElement("code"); path.textContent = c.path || "(device)";
      li.append(level, " ", path);
      if (c.view) { const view = document.createElement("em"); view.textContent = c.view; li.append(" on view ", view); }
      li.append(`: ${c.message}`);
      return li;
    }));
    clean.hidden = checks.length > 0;
  }

  async function checkNow() {
    const mine = ++asked;
    const response = await fetch(`/api/devicelab/drafts/${payload.id}/checks/`, {
      method: "POST", headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
      body: JSON.stringify({definition: unsavedDefinition()}), credentials: "same-origin",
    });
    if (mine !== asked) return;  // a newer change was sent meanwhile
    const body = await response.json();
    if (!response.ok) { checksStatus.textContent = body.detail || "The checks could not run."; return; }
    showChecks(body.checks);
    const errors = body.checks.filter((c) => c.level === "error").length;
    checksStatus.textContent = `Checks of your unsaved change (${errors} error${errors === 1 ? "" : "s"}): save the box to keep it.`;
    checksStatus.dataset.live = "unsaved";
  }

  function changed() {
    draw(form.view.value, formBox());
    clearTimeout(timer);
    timer = setTimeout(checkNow, 250);
  }

  // -- a click proposes a box -----------------------------------------------------------------------------------
  async function propose(view, x, y, tries) {
    status.textContent = "Finding the control…";
    const response = await fetch(`/api/devicelab/drafts/${payload.id}/propose/`, {
      method: "POST", headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
      body: JSON.stringify({view, x, y}), credentials: "same-origin",
    });
    const body = await response.json();
    if (response.status === 202 && tries > 0) {  // the photo's embedding is still being computed
      status.textContent = `Preparing the photo (${body.progress || 0}%)…`;
      setTimeout(() => propose(view, x, y, tries - 1), 700);
      return;
    }
    if (!response.ok) { status.textContent = body.detail || "No proposal."; return; }
    if (!body.box) { status.textContent = "Nothing found there: draw the box by its numbers."; return; }
    form.view.value = view;
    setForm(body.box);
    form.proposed_by.value = body.backend;
    proposal = true;
    changed();
    status.textContent = `Proposed by ${body.backend}: adjust if needed, then save.`;
  }

  document.querySelectorAll("img.view-photo").forEach((img) => {
    img.style.cursor = "crosshair";
    img.addEventListener("click", (event) => {
      const r = img.getBoundingClientRect();
      const x = Math.round((event.clientX - r.left) * SCALE / r.width);
      const y = Math.round((event.clientY - r.top) * SCALE / r.height);
      propose(img.dataset.view, clamp(x, 0, SCALE), clamp(y, 0, SCALE), 40);
    });
  });

  KEYS.forEach((k) => form[k].addEventListener("input", changed));

  // choosing a component and a view shows its saved box, to adjust; the component chosen just after a click's
  // proposal is the one the proposal is for
  function loadSaved(event) {
    if (proposal && event.target === form.component) return;
    proposal = false;
    const saved = (((payload.definition.components || {})[form.component.value] || {}).boxes || {})[form.view.value];
    if (Array.isArray(saved) && saved.length === 4) {
      setForm(saved);
      form.proposed_by.value = "";
      changed();
    }
  }
  form.component.addEventListener("change", loadSaved);
  form.view.addEventListener("change", loadSaved);

  // -- dragging the box: an edge or corner resizes it, the body moves it; never past the photo, never inside out --
  document.querySelectorAll("rect.proposal").forEach((rect) => {
    const svg = rect.ownerSVGElement;
    let drag = null;

    function at(event) {
      const r = svg.getBoundingClientRect();
      return {x: (event.clientX - r.left) * SCALE / r.width, y: (event.clientY - r.top) * SCALE / r.height,
              gx: GRIP * SCALE / r.width, gy: GRIP * SCALE / r.height};
    }

    function grips(p, box) {
      const [x1, y1, x2, y2] = box;
      const near = (a, b, g) => Math.abs(a - b) <= g;
      const left = near(p.x, x1, p.gx) && !(near(p.x, x2, p.gx) && p.x > (x1 + x2) / 2);
      const right = near(p.x, x2, p.gx) && !left;
      const top = near(p.y, y1, p.gy) && !(near(p.y, y2, p.gy) && p.y > (y1 + y2) / 2);
      const bottom = near(p.y, y2, p.gy) && !top;
      return {left, right, top, bottom, move: !(left || right || top || bottom)};
    }

    function cursor(g) {
      if (g.move) return "move";
      if ((g.left && g.top) || (g.right && g.bottom)) return "nwse-resize";
      if ((g.right && g.top) || (g.left && g.bottom)) return "nesw-resize";
      return g.left || g.right ? "ew-resize" : "ns-resize";
    }

    rect.addEventListener("pointerdown", (event) => {
      const box = formBox();
      if (!box.every(Number.isFinite)) return;
      const p = at(event);
      drag = {start: p, box, grips: grips(p, box)};
      rect.setPointerCapture(event.pointerId);
      event.preventDefault();
    });
    rect.addEventListener("pointermove", (event) => {
      const p = at(event);
      if (!drag) { rect.style.cursor = cursor(grips(p, formBox())); return; }
      const dx = p.x - drag.start.x, dy = p.y - drag.start.y;
      let [x1, y1, x2, y2] = drag.box;
      if (drag.grips.move) {
        const w = x2 - x1, h = y2 - y1;
        x1 = clamp(x1 + dx, 0, Math.max(0, SCALE - w)); y1 = clamp(y1 + dy, 0, Math.max(0, SCALE - h));
        x2 = x1 + w; y2 = y1 + h;
      } else {
        if (drag.grips.left) x1 = clamp(x1 + dx, 0, x2 - 1);
        if (drag.grips.right) x2 = clamp(x2 + dx, x1 + 1, SCALE);
        if (drag.grips.top) y1 = clamp(y1 + dy, 0, y2 - 1);
        if (drag.grips.bottom) y2 = clamp(y2 + dy, y1 + 1, SCALE);
      }
      setForm([x1, y1, x2, y2].map(Math.round));
      form.view.value = svg.dataset.boxes;
      changed();
    });
    const stop = () => {
      if (drag) status.textContent = "Adjusted on the photo: save the box to keep it.";
      drag = null;
    };
    rect.addEventListener("pointerup", stop);
    rect.addEventListener("pointercancel", stop);
  });
})();
