// Board enhancements: sort in place, expand one group's tasks, refresh when a score lands (websocket).
// Without this script the board still works: headers are links, "Expand all tasks" asks the server.
(function () {
  "use strict";

  // A cell's sort value: its data-value when it has one (cells with an interval), else its text;
  // numbers compare as numbers, "–" (no value) as missing, names as lower-case text.
  function cellValue(row, index) {
    var cell = row.children[index];
    if (!cell) return null;
    var raw = cell.getAttribute("data-value");
    if (raw === null) {
      var first = cell.querySelector("a") || cell.firstChild;
      raw = first ? first.textContent.trim() : "";
    }
    if (raw === "" || raw === "–") return null;
    var n = Number(raw);
    return isNaN(n) ? raw.toLowerCase() : n;
  }

  function sortBy(table, th) {
    var headRow = th.parentNode;
    var index = Array.prototype.indexOf.call(headRow.children, th);
    var betterUp = th.getAttribute("data-dir") !== "down";
    var current = th.getAttribute("aria-sort");
    var descending = current ? current === "ascending" : betterUp;
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows).filter(function (r) { return r.hasAttribute("data-submission"); });
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (x === null && y === null) return 0;
      if (x === null) return 1;  // missing values always last
      if (y === null) return -1;
      if (x < y) return descending ? 1 : -1;
      if (x > y) return descending ? -1 : 1;
      return 0;
    });
    rows.forEach(function (r, i) {
      tbody.appendChild(r);
      var rank = r.querySelector("td.rank");
      if (rank) rank.textContent = String(i + 1);  // positions; significance marks apply to the server ranking only
    });
    Array.prototype.forEach.call(headRow.children, function (h) {
      h.removeAttribute("aria-sort");
      h.classList.remove("sorted");
      var ind = h.querySelector(".sort-ind");
      if (ind) ind.remove();
    });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    th.classList.add("sorted");
    var link = th.querySelector("a.sort-link");
    if (link) {
      var span = document.createElement("span");
      span.className = "sort-ind";
      span.setAttribute("aria-hidden", "true");
      span.textContent = descending ? "▼" : "▲";
      link.appendChild(span);
    }
    var url = new URL(window.location.href);
    var key = th.getAttribute("data-key");
    if (key && key !== "rank" && key !== "model" && key !== "kind") {
      url.searchParams.set("sort", key);
      url.searchParams.set("order", descending ? "desc" : "asc");
      history.replaceState(null, "", url);
    }
  }

  function refreshGroupSpans(table) {
    var groupRow = table.querySelector("tr.board-groups");
    if (!groupRow) return;
    var counts = {};
    table.querySelectorAll("thead th[data-key][data-gi]").forEach(function (th) {
      if (th.offsetParent === null) return;  // hidden
      var gi = th.getAttribute("data-gi");
      counts[gi] = (counts[gi] || 0) + 1;
    });
    groupRow.querySelectorAll("th[data-gi]").forEach(function (g) {
      var n = counts[g.getAttribute("data-gi")] || 0;
      g.classList.toggle("leaf", n === 0);
      g.classList.toggle("open", n > 0);
      if (n > 0) g.colSpan = n;
    });
  }

  function toggleGroup(table, button) {
    var parent = button.getAttribute("data-parent");
    var open = button.getAttribute("aria-expanded") !== "true";
    table.querySelectorAll('[data-parent="' + parent + '"]').forEach(function (el) {
      if (el.tagName === "BUTTON") return;
      el.classList.toggle("open", open);
    });
    button.setAttribute("aria-expanded", open ? "true" : "false");
    button.textContent = open ? "−" : "+";
    refreshGroupSpans(table);
  }

  function enhance(root) {
    var table = root.querySelector("#board-table");
    if (!table) return;
    table.querySelectorAll("thead th[data-key]").forEach(function (th) {
      var link = th.querySelector("a.sort-link");
      var target = link || th;
      if (!link) { th.classList.add("sortable"); th.tabIndex = 0; }
      target.addEventListener("click", function (ev) { ev.preventDefault(); sortBy(table, th); });
      th.addEventListener("keydown", function (ev) { if (ev.key === "Enter" && !link) sortBy(table, th); });
    });
    if (table.classList.contains("collapsed")) {
      table.querySelectorAll("button.expand").forEach(function (b) {
        b.hidden = false;
        b.addEventListener("click", function (ev) { ev.preventDefault(); ev.stopPropagation(); toggleGroup(table, b); });
      });
    }
  }

  function refresh(status) {
    fetch(window.location.href, { headers: { "X-Requested-With": "fetch" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("board");
        var board = document.getElementById("board");
        if (fresh && board) {
          board.innerHTML = fresh.innerHTML;
          enhance(board);
          status.textContent = "Updated with a new score at " + new Date().toLocaleTimeString();
        }
      })
      .catch(function () { status.textContent = "A new score landed; reload to see it."; });
  }

  function listen() {
    var status = document.getElementById("board-live");
    if (!status || !("WebSocket" in window)) return;
    var path = status.getAttribute("data-ws");
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var delay = 1000;
    function connect() {
      var ws = new WebSocket(scheme + window.location.host + path);
      ws.onopen = function () { delay = 1000; status.setAttribute("data-connected", "1"); };
      ws.onmessage = function (ev) {
        try {
          // The page cache re-reads the data at most once a second: wait a little longer than that.
          if (JSON.parse(ev.data).type === "updated") setTimeout(function () { refresh(status); }, 1200);
        } catch (e) { /* ignore */ }
      };
      ws.onclose = function () {
        status.removeAttribute("data-connected");
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    }
    connect();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var board = document.getElementById("board");
    if (board) enhance(board);
    listen();
  });
})();
