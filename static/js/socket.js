/* One reconnecting websocket for the live pages (board, play, submission). Plain ES module, no build step.
 *
 * Policy: after an unexpected close, wait and reconnect, the wait doubling from 0.5 s up to 10 s with jitter
 * (a random 50-100 % of it, so that many tabs do not come back at the same instant); a connection that opens
 * starts the wait over. Messages are JSON both ways.
 */
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10000;

/** The wait before reconnect attempt `attempt` (0, 1, 2…). */
function backoff(attempt) {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
  return ceiling * (0.5 + Math.random() / 2);
}

/**
 * Open a websocket to `path` on this host (ws: or wss: as the page) and keep it open. `path` may be a function,
 * asked again at each (re)connect (a page can then tell the server what it already shows).
 *
 * onOpen(): each time a connection opens. onMessage(msg): each JSON message (anything else is dropped).
 * onStatus(status): "connecting", "open", "reconnecting" (closed, another try is scheduled) or "closed"
 * (closed for good). reconnect(): asked at each close; false stops reconnecting (default: always reconnect).
 * Returns { send(obj) -> bool (false when not open), isOpen(), close() } — close() is deliberate: no reconnect.
 */
export function openSocket(path, { onOpen, onMessage, onStatus, reconnect = () => true } = {}) {
  const url = () => `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${
    typeof path === "function" ? path() : path}`;
  let ws = null, attempt = 0, timer = null, closed = false;
  const status = (s) => { if (onStatus) onStatus(s); };

  function connect() {
    timer = null;
    ws = new WebSocket(url());
    status("connecting");
    ws.onopen = () => {
      attempt = 0;
      status("open");
      if (onOpen) onOpen();
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (onMessage) onMessage(msg);
    };
    ws.onclose = () => {
      if (closed || !reconnect()) { closed = true; status("closed"); return; }
      status("reconnecting");
      timer = setTimeout(connect, backoff(attempt++));
    };
  }

  const isOpen = () => ws !== null && ws.readyState === WebSocket.OPEN;
  connect();
  return {
    send: (obj) => {
      if (!isOpen()) return false;
      ws.send(JSON.stringify(obj));
      return true;
    },
    isOpen,
    close: () => {
      closed = true;
      if (timer !== null) { clearTimeout(timer); timer = null; status("closed"); }  // between two tries
      else if (ws) ws.close();  // onclose reports "closed"
    },
  };
}
