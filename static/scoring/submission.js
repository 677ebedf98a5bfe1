/* Submission page while it is scored: live progress, then a reload once the final status is known.
   An ES module, loaded only for a submission that is not final (its #status carries the socket path). */
import { openSocket } from "../js/socket.js";

const status = document.getElementById("status");
if (status && status.dataset.ws) {
  const socket = openSocket(status.dataset.ws, {
    onMessage: (msg) => {
      if (msg.type === "progress") document.getElementById("progress").textContent = `${msg.done} / ${msg.total}`;
      if (msg.type === "finished") { socket.close(); location.reload(); }
    },
  });
}
