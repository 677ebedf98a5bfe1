// Analysis tab: when a score lands on this board (the board's websocket), fetch the page again and swap in the
// new figures, so a new upload appears in them without a reload. Without script the page is complete as served.
import { openSocket } from "../js/socket.js";

function refresh(status) {
  fetch(window.location.href, { headers: { "X-Requested-With": "fetch" } })
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => {
      const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("analysis-figures");
      const figures = document.getElementById("analysis-figures");
      if (fresh && figures) {
        figures.innerHTML = fresh.innerHTML;
        status.textContent = `Updated with a new score at ${new Date().toLocaleTimeString()}`;
      }
    })
    .catch(() => { status.textContent = "A new score landed; reload to see it."; });
}

const status = document.getElementById("analysis-live");
if (status && "WebSocket" in window) {
  openSocket(status.getAttribute("data-ws"), {
    onStatus: (s) => {
      if (s === "open") status.setAttribute("data-connected", "1");
      else status.removeAttribute("data-connected");
    },
    onMessage: (msg) => {
      // The board's data key re-reads the fingerprint at most once a second: wait a little longer than that.
      if (msg.type === "updated") setTimeout(() => refresh(status), 1200);
    },
  });
}
