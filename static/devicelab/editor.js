// The device editor's clicks: a click on a photo asks the segmenter for the control's box (0..1000 of the photo),
// draws it and fills the box form; the author adjusts the numbers and saves. Nothing else needs script.
(function () {
  "use strict";
  const form = document.getElementById("box-form");
  if (!form) return;
  const status = document.getElementById("propose-status");
  const payload = JSON.parse(document.getElementById("draft-payload").textContent);
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;

  function draw(view, box) {
    const rect = document.querySelector(`svg[data-boxes="${view}"] rect.proposal`);
    if (!rect || !box) return;
    rect.setAttribute("x", box[0]); rect.setAttribute("y", box[1]);
    rect.setAttribute("width", box[2] - box[0]); rect.setAttribute("height", box[3] - box[1]);
  }

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
    ["x1", "y1", "x2", "y2"].forEach((k, i) => { form[k].value = body.box[i]; });
    form.proposed_by.value = body.backend;
    draw(view, body.box);
    status.textContent = `Proposed by ${body.backend}: adjust if needed, then save.`;
  }

  document.querySelectorAll("img.view-photo").forEach((img) => {
    img.style.cursor = "crosshair";
    img.addEventListener("click", (event) => {
      const r = img.getBoundingClientRect();
      const x = Math.round((event.clientX - r.left) * 1000 / r.width);
      const y = Math.round((event.clientY - r.top) * 1000 / r.height);
      propose(img.dataset.view, Math.min(1000, Math.max(0, x)), Math.min(1000, Math.max(0, y)), 40);
    });
  });
  ["x1", "y1", "x2", "y2"].forEach((k) => form[k].addEventListener("input", () => {
    const box = ["x1", "y1", "x2", "y2"].map((n) => parseInt(form[n].value, 10));
    if (box.every(Number.isFinite)) draw(form.view.value, box);
  }));
})();
