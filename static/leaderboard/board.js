// Board enhancements: sort in place, expand one group's tasks, refresh when a score lands (websocket).
// Without this script the board still works: headers are links, "Expand all tasks" asks the server.
// An ES module (deferred: it runs once the page is parsed).
import { openSocket } from "../js/socket.js";

// A cell's sort value: its data-value when it has one (cells with an interval), else its text;
// numbers compare as numbers, "–" (no value) as missing, names as lower-case text.
function cellValue(row, index) {
  const cell = row.children[index];
  if (!cell) return null;
  let raw = cell.getAttribute("data-value");
  if (raw === null) {
    const first = cell.querySelector("a") || cell.firstChild;
    raw = first ? first.textContent.trim() : "";
  }
  if (raw === "" || raw === "–") return null;
  const n = Number(raw);
  return isNaN(n) ? raw.toLowerCase() : n;
}

function sortBy(table, th) {
  const headRow = th.parentNode;
  const index = Array.from(headRow.children).indexOf(th);
  const betterUp = th.getAttribute("data-dir") !== "down";
  const current = th.getAttribute("aria-sort");
  const descending = current ? current === "ascending" : betterUp;
  const tbody = table.tBodies[0];
  const rows = Array.from(tbody.rows).filter((r) => r.hasAttribute("data-submission"));
  rows.sort((a, b) => {
    const x = cellValue(a, index), y = cellValue(b, index);
    if (x === null && y === null) return 0;
    if (x === null) return 1;  // missing values always last
    if (y === null) return -1;
    if (x < y) return descending ? 1 : -1;
    if (x > y) return descending ? -1 : 1;
    return 0;
  });
  rows.forEach((r, i) => {
    tbody.appendChild(r);
    const rank = r.querySelector("td.rank");
    if (rank) rank.textContent = String(i + 1);  // positions; significance marks apply to the server ranking only
  });
  for (const h of headRow.children) {
    h.removeAttribute("aria-sort");
    h.classList.remove("sorted");
    const ind = h.querySelector(".sort-ind");
    if (ind) ind.remove();
  }
  th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  th.classList.add("sorted");
  const link = th.querySelector("a.sort-link");
  if (link) {
    const span = document.createElement("span");
    span.className = "sort-ind";
    span.setAttribute("aria-hidden", "true");
    span.textContent = descending ? "▼" : "▲";
    link.appendChild(span);
  }
  const url = new URL(window.location.href);
  const key = th.getAttribute("data-key");
  if (key && key !== "rank" && key !== "model" && key !== "kind") {
    url.searchParams.set("sort", key);
    url.searchParams.set("order", descending ? "desc" : "asc");
    history.replaceState(null, "", url);
    // The exports (CSV, JSON, API) give the rows in the order on screen.
    document.querySelectorAll("a[data-export]").forEach((a) => {
      const target = new URL(a.href, window.location.href);
      target.searchParams.set("sort", key);
      target.searchParams.set("order", descending ? "desc" : "asc");
      a.href = target.pathname + target.search;
    });
  }
}

// The columns a reader can show or hide ("Columns"): every column but rank, model and collapsed task columns.
// On a phone only rank, model and the headline score show until the reader picks more.
function cellsOf(table, key) {
  return table.querySelectorAll(`[data-key="${CSS.escape(key)}"]`);
}

function buildPicker(table) {
  const picker = document.getElementById("column-picker");
  if (!picker) return;
  const box = picker.querySelector(".choices");
  box.textContent = "";
  const heads = Array.from(table.querySelectorAll("thead tr:last-child th[data-key]"))
    .filter((th) => !th.classList.contains("pin") && !(th.classList.contains("leaf") && !th.classList.contains("open")));
  heads.forEach((th) => {
    const key = th.getAttribute("data-key");
    const label = document.createElement("label");
    const box2 = document.createElement("input");
    box2.type = "checkbox";
    box2.value = key;
    box2.checked = getComputedStyle(th).display !== "none";
    box2.addEventListener("change", () => {
      cellsOf(table, key).forEach((el) => {
        el.classList.toggle("show-col", box2.checked);
        el.classList.toggle("hide-col", !box2.checked);
      });
      refreshGroupSpans(table);
    });
    label.appendChild(box2);
    label.append(" " + (th.getAttribute("data-label") || key));
    box.appendChild(label);
  });
  picker.hidden = false;
}

// After "More columns" the added columns sit at the right end: bring them into view next to rank and model.
function showExtras(table) {
  if (!new URLSearchParams(window.location.search).get("extras")) return;
  const extras = table.querySelectorAll("thead th.extra");
  if (!extras.length) return;
  extras.forEach((th) => cellsOf(table, th.getAttribute("data-key")).forEach((el) => el.classList.add("show-col")));
  const scroller = table.closest(".board-scroll");
  const model = table.querySelector("thead th.pin-model");
  if (!scroller || !model) return;
  const first = extras[0];
  const pinned = model.offsetLeft + model.offsetWidth;
  const last = extras[extras.length - 1];
  if (last.offsetLeft + last.offsetWidth > scroller.scrollLeft + scroller.clientWidth) {
    scroller.scrollLeft = Math.max(0, first.offsetLeft - pinned - 8);
  }
}

function refreshGroupSpans(table) {
  const groupRow = table.querySelector("tr.board-groups");
  if (!groupRow) return;
  const counts = {};
  table.querySelectorAll("thead th[data-key][data-gi]").forEach((th) => {
    if (th.offsetParent === null) return;  // hidden
    const gi = th.getAttribute("data-gi");
    counts[gi] = (counts[gi] || 0) + 1;
  });
  groupRow.querySelectorAll("th[data-gi]").forEach((g) => {
    const n = counts[g.getAttribute("data-gi")] || 0;
    g.classList.toggle("leaf", n === 0);
    g.classList.toggle("open", n > 0);
    if (n > 0) g.colSpan = n;
  });
}

function toggleGroup(table, button) {
  const parent = button.getAttribute("data-parent");
  const open = button.getAttribute("aria-expanded") !== "true";
  table.querySelectorAll(`[data-parent="${parent}"]`).forEach((el) => {
    if (el.tagName === "BUTTON") return;
    el.classList.toggle("open", open);
  });
  button.setAttribute("aria-expanded", open ? "true" : "false");
  button.textContent = open ? "−" : "+";
  refreshGroupSpans(table);
}

function enhance(root) {
  const table = root.querySelector("#board-table");
  if (!table) return;
  // A board of several pages sorts on the server (its header links): sorting in place would sort one page only.
  const paged = Number(table.getAttribute("data-pages") || "1") > 1;
  if (!paged) table.querySelectorAll("thead th[data-key]").forEach((th) => {
    const link = th.querySelector("a.sort-link");
    const target = link || th;
    if (!link) { th.classList.add("sortable"); th.tabIndex = 0; }
    target.addEventListener("click", (ev) => { ev.preventDefault(); sortBy(table, th); });
    th.addEventListener("keydown", (ev) => { if (ev.key === "Enter" && !link) sortBy(table, th); });
  });
  if (table.classList.contains("collapsed")) {
    table.querySelectorAll("button.expand").forEach((b) => {
      b.hidden = false;
      b.addEventListener("click", (ev) => {
        ev.preventDefault(); ev.stopPropagation(); toggleGroup(table, b); buildPicker(table);
      });
    });
  }
  showExtras(table);
  buildPicker(table);
}

function refresh(status) {
  fetch(window.location.href, { headers: { "X-Requested-With": "fetch" } })
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => {
      const doc = new DOMParser().parseFromString(html, "text/html");
      const fresh = doc.getElementById("board");
      const board = document.getElementById("board");
      if (fresh && board) {
        board.innerHTML = fresh.innerHTML;
        enhance(board);
        status.textContent = `Updated with a new score at ${new Date().toLocaleTimeString()}`;
      }
    })
    .catch(() => { status.textContent = "A new score landed; reload to see it."; });
}

function listen() {
  const status = document.getElementById("board-live");
  if (!status || !("WebSocket" in window)) return;
  // The fingerprint of the data this page shows: on each (re)connect the server compares it with the current one
  // and says "updated" at once if a score landed meanwhile (while the page was offline, say).
  let shown = status.getAttribute("data-fingerprint") || "";
  const path = () => `${status.getAttribute("data-ws")}?since=${encodeURIComponent(shown)}`;
  openSocket(path, {
    onStatus: (s) => {
      if (s === "open") status.setAttribute("data-connected", "1");
      else status.removeAttribute("data-connected");
    },
    onMessage: (msg) => {
      // The page cache re-reads the data at most once a second: wait a little longer than that.
      if (msg.type === "updated") {
        if (msg.fingerprint) shown = msg.fingerprint;
        setTimeout(() => refresh(status), 1200);
      }
    },
  });
}

const board = document.getElementById("board");
if (board) enhance(board);
listen();
