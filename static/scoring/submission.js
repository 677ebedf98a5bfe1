/* Submission page while it is scored: live status and progress ("done / total"), then the final page in place
   (fetched and swapped in, no reload). An ES module, loaded only for a submission that is not final (its #status
   carries the socket path and the JSON status URL).

   The socket sends the current state on every (re)connect, so a page that was offline when the submission finished
   catches up. Where websockets do not get through (a proxy without them), the page polls the JSON status instead. */
import { openSocket } from "../js/socket.js";

const POLL_MS = 3000;
const status = document.getElementById("status");
let done = false;

function show(state) {
  if (state.label) status.textContent = state.label;
  if (state.status) status.className = `status status-${state.status}`;
  const progress = document.getElementById("progress");
  if (progress && state.total) progress.textContent = `${state.done} / ${state.total}`;
  // The queue place was true when the page was made; once a worker takes the job it is no longer
  const place = document.getElementById("queue-place");
  if (place && state.status && state.status !== "queued") {
    place.previousElementSibling?.remove();
    place.remove();
  }
}

function finish(socket) {
  if (done) return;
  done = true;
  socket.close();
  fetch(location.href, { headers: { "X-Requested-With": "fetch" }, credentials: "same-origin" })
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => {
      const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("main");
      const main = document.getElementById("main");
      if (!fresh || !main) throw new Error("no #main");
      main.innerHTML = fresh.innerHTML;
    })
    .catch(() => { status.textContent = "Finished: reload the page to see the result."; });
}

if (status && status.dataset.ws) {
  const socket = openSocket(status.dataset.ws, {
    onMessage: (msg) => {
      if (msg.type === "state") {
        show(msg);
        if (msg.final) finish(socket);
      } else if (msg.type === "progress") {
        show({ status: "running", label: "Running", done: msg.done, total: msg.total });
      } else if (msg.type === "finished") {
        finish(socket);
      }
    },
  });
  // Fallback: while the socket is not open, ask the JSON status now and then.
  const url = status.dataset.statusUrl;
  if (url) {
    const timer = setInterval(() => {
      if (done) { clearInterval(timer); return; }
      if (socket.isOpen()) return;
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : Promise.reject(r.status)))
        .then((s) => {
          show({ status: s.status, label: s.status_label || s.status,
                 done: s.progress_done, total: s.progress_total });
          if (["scored", "awaiting_judgement", "failed"].includes(s.status)) { clearInterval(timer); finish(socket); }
        })
        .catch(() => {});
    }, POLL_MS);
  }
}
