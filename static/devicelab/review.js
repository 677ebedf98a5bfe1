// The reviewer's page: mark an issue on a view by a click (a point) or a drag (a box) over its photo, on the
// format's 0..1000 scale; "Add issue" lists it and the form sends the list as JSON (`issues`).
(function () {
  "use strict";
  const form = document.getElementById("review-form");
  if (!form) return;
  const where = document.getElementById("issue-where");
  const viewSelect = document.getElementById("issue-view");
  const text = document.getElementById("issue-text");
  const list = document.getElementById("issue-list");
  const json = document.getElementById("issues-json");
  const NS = "http://www.w3.org/2000/svg";
  const CLICK = 8; // a drag shorter than this (0..1000) is a point
  const issues = [];
  let pending = null; // {view, box} or {view, point}
  let start = null;

  function scaled(svg, event) {
    const r = svg.getBoundingClientRect();
    const clamp = (v) => Math.max(0, Math.min(1000, Math.round(v)));
    return [clamp((event.clientX - r.left) / r.width * 1000), clamp((event.clientY - r.top) / r.height * 1000)];
  }

  function mark(svg) {
    let shape = svg.querySelector(".issue-pending");
    if (shape) shape.remove();
    if (!pending || pending.view !== svg.dataset.draw) return;
    if (pending.box) {
      const [x1, y1, x2, y2] = pending.box;
      shape = document.createElementNS(NS, "rect");
      shape.setAttribute("x", x1); shape.setAttribute("y", y1);
      shape.setAttribute("width", x2 - x1); shape.setAttribute("height", y2 - y1);
      shape.setAttribute("fill", "rgba(228,87,46,0.12)");
    } else {
      shape = document.createElementNS(NS, "circle");
      shape.setAttribute("cx", pending.point[0]); shape.setAttribute("cy", pending.point[1]); shape.setAttribute("r", 14);
      shape.setAttribute("fill", "#e4572e");
    }
    shape.setAttribute("class", "issue-pending");
    shape.setAttribute("stroke", "#e4572e"); shape.setAttribute("stroke-width", 6);
    svg.appendChild(shape);
  }

  document.querySelectorAll("svg[data-draw]").forEach((svg) => {
    svg.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      start = {svg, at: scaled(svg, event)};
    });
    svg.addEventListener("pointerup", (event) => {
      if (!start || start.svg !== svg) return;
      const [x1, y1] = start.at;
      const [x2, y2] = scaled(svg, event);
      start = null;
      const view = svg.dataset.draw;
      if (Math.abs(x2 - x1) < CLICK && Math.abs(y2 - y1) < CLICK) {
        pending = {view, point: [x1, y1]};
      } else {
        pending = {view, box: [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)]};
      }
      viewSelect.value = view;
      where.value = JSON.stringify(pending.box || pending.point);
      document.querySelectorAll("svg[data-draw]").forEach(mark);
      text.focus();
    });
  });

  function add() {
    if (!text.value.trim()) { text.focus(); return false; }
    const issue = {view: viewSelect.value, text: text.value.trim()};
    let at = null;
    try { at = where.value.trim() ? JSON.parse(where.value) : null; } catch (e) { at = where.value; }
    if (Array.isArray(at) && at.length === 2) issue.point = at; else if (at !== null) issue.box = at;
    issues.push(issue);
    const li = document.createElement("li");
    li.textContent = `${issue.view}${at ? " at " + JSON.stringify(at) : ""}: ${issue.text}`;
    list.appendChild(li);
    json.value = JSON.stringify(issues);
    text.value = ""; where.value = ""; pending = null;
    document.querySelectorAll(".issue-pending").forEach((s) => s.remove());
    return true;
  }

  document.getElementById("issue-add").addEventListener("click", add);
  text.addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); add(); } });
  // an issue typed but not added yet goes with the review (through the list, so a point stays a point)
  form.addEventListener("submit", () => { if (text.value.trim()) add(); });
})();
