/* VGE play page: a websocket to the server's engine; clicks on the view image become actions on the
   0..1000 scale. An ES module, no build step. The server is the only source of truth: the page redraws from
   every "state" message (on connect and after reconnecting), so a reload resumes where the episode was. */
import { openSocket } from "../js/socket.js";

const playRoot = document.getElementById("play");
if (playRoot) start(playRoot);

function start(root) {
  const episodeId = root.dataset.episode;
  const $ = (id) => document.getElementById(id);
  const img = $("view-image"), marker = $("marker"), busyEl = $("busy"), logEl = $("log");

  const TOOLS = {
    press0: { action: "press", params: () => [0], label: "Press" },
    press1: { action: "press", params: () => [1], label: "Long press" },
    press2: { action: "press", params: () => [2], label: "Double press" },
    rotate: { action: "rotate", params: () => [Number($("rotate-dir").value), Number($("rotate-detents").value)], label: "Rotate" },
    push: { action: "push", params: () => [Number($("move-dir").value)], label: "Push" },
    pull: { action: "pull", params: () => [Number($("move-dir").value)], label: "Pull" },
    grasp: { action: "grasp", params: () => [], label: "Grasp" },
    look: { action: "switch_view", params: () => [], label: "Look closer" },
  };
  const KEYS = { c: "press0", l: "press1", d: "press2", r: "rotate", u: "push", o: "pull", g: "grasp", v: "look" };

  let socket = null, tool = "press0", busy = false, finished = false, readOnly = false, fatal = false;
  let views = [], currentView = null, seq = 0;
  const cursor = { x: 500, y: 500 };
  const hintsEl = document.getElementById("practice-hints");
  const hints = hintsEl ? JSON.parse(hintsEl.textContent) : null;
  let goalIndex = 0;

  // The direction picker and the rotate settings remember the last choice per action (in this browser).
  // Until then Push goes in and Pull comes out: what most drawers, trays and doors want.
  const memory = {
    get(key, fallback) { try { return window.localStorage.getItem(`vge-${key}`) ?? fallback; } catch { return fallback; } },
    set(key, value) { try { window.localStorage.setItem(`vge-${key}`, value); } catch { /* private mode: not kept */ } },
  };

  // -- connection (reconnects on its own until the episode turns read-only or the server refuses it) ---------
  const STATUS = {
    connecting: ["connecting", "wait"],
    open: ["connected", "ok"],
    reconnecting: ["reconnecting…", "wait"],
  };
  function connect() {
    socket = openSocket(`/ws/vge/episodes/${episodeId}/`, {
      onMessage: handle,
      onStatus: (status) => {
        if (status === "reconnecting" || status === "closed") setBusy(false);
        if (status === "closed") setConn(readOnly ? "read-only" : "closed", "bad");
        else setConn(...STATUS[status]);
      },
      reconnect: () => !fatal && !readOnly,
    });
  }
  function setConn(text, cls) { const c = $("conn"); c.textContent = text; c.className = `conn conn-${cls}`; }
  function send(message) {
    if (!socket || !socket.isOpen()) { addLog({ refused: true, text: "Not connected yet; try again in a moment." }); return false; }
    message.seq = ++seq;
    socket.send(message);
    return true;
  }

  // -- messages from the server ----------------------------------------------------------------------------
  function handle(msg) {
    if (msg.type === "state") {
      finished = msg.finished;
      logEl.innerHTML = "";
      msg.log.forEach((s) => addLog(stepEntry(s)));
      render(msg.observation);
      showResult(msg);
      setBusy(false);
    } else if (msg.type === "step") {
      addLog(stepEntry(msg.step));
      $("last-feedback").textContent = stepEntry(msg.step).text || "";
      render(msg.observation);
      showHint(msg.step);
      setBusy(false);
    } else if (msg.type === "refused") {
      addLog({ refused: true, text: msg.message });
      if (msg.fatal) { fatal = true; showBanner(msg.message); disableAll(); }
      setBusy(false);
    } else if (msg.type === "readonly") {
      readOnly = true;
      showBanner(msg.message);
      addLog({ refused: true, text: msg.message });
      disableAll();
    }
  }

  function stepEntry(s) {
    const what = s.action_text || "(no action)";
    const text = s.feedback || ""; // a sentence from the server (the engine's "null" is "Nothing happened."), or none
    return { turn: s.turn, kind: s.kind, action: what, text, goal: s.goal_reached, view: s.view_after || s.view_before };
  }

  function addLog(entry) {
    const li = document.createElement("li");
    li.className = entry.refused ? "log-refused" : `log-${entry.kind}${entry.goal ? " log-goal" : ""}`;
    if (entry.refused) {
      li.innerHTML = `<span class="log-kind">refused</span> `;
      li.appendChild(document.createTextNode(entry.text));
    } else {
      li.innerHTML = `<span class="log-turn">${entry.turn}</span><span class="log-kind">${entry.kind.replace("_", " ")}</span> <code></code><br>`;
      li.querySelector("code").textContent = entry.action;
      li.appendChild(document.createTextNode(entry.text));
      if (entry.view) { // the picture of the view right after this turn
        const a = document.createElement("a");
        a.className = "log-view";
        a.href = `/api/vge/episodes/${episodeId}/view.png?turn=${entry.turn}`;
        a.target = "_blank";
        a.rel = "noopener";
        a.textContent = `see the ${entry.view.replace("_", " ")} view`;
        li.append(" ", a);
      }
    }
    logEl.prepend(li);
  }

  function render(obs) {
    const next = obs.image_url;
    if (img.dataset.src !== next) {
      const pre = new Image();
      pre.onload = () => { img.src = next; img.dataset.src = next; };
      pre.src = next;
      if (!img.src) { img.src = next; img.dataset.src = next; }
    }
    if (currentView !== null && obs.view !== currentView) marker.hidden = true; // the click was on another view
    currentView = obs.view;
    $("view-name").textContent = obs.view.replace("_", " ");
    $("instruction").textContent = obs.instruction || (obs.success ? "All goals reached." : "The episode is over.");
    const total = obs.goals_total, reached = Math.min(obs.goal_index, total);
    goalIndex = obs.goal_index;
    $("goal-line-text").textContent = obs.success ? `All ${total} goals reached`
      : `Goal ${Math.min(obs.goal_index + 1, total)} of ${total}`;
    $("turns").textContent = `turn ${obs.turn}`;
    $("goal-steps").innerHTML = Array.from({ length: total }, (_, i) =>
      `<span class="goal-dot ${i < reached ? "done" : i === reached ? "now" : ""}"></span>`).join("");
    bar("global", obs.budgets.global, obs.budgets_max.global);
    bar("local", obs.budgets.local, obs.budgets_max.local);
    $("local-budget").hidden = Boolean(obs.done); // no goal is left once the episode is over
    views = obs.accessible_views;
    const holder = $("views");
    holder.innerHTML = "";
    views.forEach((v, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = `view-btn${v === obs.view ? " current" : ""}${v === "dashboard" ? " dash" : ""}`;
      b.dataset.view = v;
      b.innerHTML = `<kbd>${i + 1}</kbd> ${v.replace("_", " ")}`;
      b.setAttribute("aria-pressed", v === obs.view ? "true" : "false");
      b.addEventListener("click", () => switchView(v));
      holder.appendChild(b);
    });
    if (obs.done) finished = true;
    if (finished || readOnly) disableAll();
  }

  // Practice: when a turn did nothing useful, say what to try for the current goal.
  function showHint(step) {
    if (!hints) return;
    const el = $("hint");
    if (finished || !["wrong_operation", "no_effect", "invalid"].includes(step.kind)) { el.hidden = true; return; }
    el.textContent = `Hint: ${hints[Math.min(goalIndex, hints.length - 1)]}`;
    el.hidden = false;
  }

  function bar(name, left, max) {
    const el = $(`bar-${name}`);
    el.max = Math.max(max, 1);
    el.value = Math.max(left, 0);
    el.className = left / Math.max(max, 1) <= 0.2 ? "low" : "";
    $(`${name}-text`).textContent = `${fmt(Math.max(left, 0))} / ${fmt(max)}`;
  }
  const fmt = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

  function showResult(msg) {
    if (!msg.finished) { $("result").hidden = true; return; }
    $("result").hidden = false;
    $("result-title").textContent = msg.gave_up ? "You gave up — the episode counts as played up to here."
      : msg.success ? "Success: all goals reached!" : "Out of turns: the episode is over.";
    $("result").className = `panel result ${msg.success ? "result-ok" : "result-bad"}`;
    // the episode's own figures, worded by the server (selectors.result_figures)
    $("result-metrics").innerHTML = "";
    (msg.result || []).forEach(([k, v]) => {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = k; dd.textContent = v;
      $("result-metrics").append(dt, dd);
    });
    disableAll();
  }

  function showBanner(text) { const b = $("banner"); b.textContent = text; b.hidden = false; }
  function disableAll() {
    document.querySelectorAll(".play-grid button, .play-grid select, .play-grid input").forEach((el) => { el.disabled = true; });
    $("stage").classList.add("stage-off");
  }
  function setBusy(on) { busy = on; busyEl.hidden = !on; $("stage").classList.toggle("stage-busy-on", on); }

  // -- player actions -----------------------------------------------------------------------------------
  function canAct() { return !busy && !finished && !readOnly && !fatal; }

  function selectTool(name) {
    tool = name;
    document.querySelectorAll(".tool").forEach((b) => {
      const on = b.dataset.tool === name;
      b.classList.toggle("active", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    });
    $("params-rotate").hidden = name !== "rotate";
    $("params-dir").hidden = !(name === "push" || name === "pull");
    $("dir-4").textContent = name === "pull" ? "out" : "in";
    if (name === "push" || name === "pull") $("move-dir").value = memory.get(`dir-${name}`, "4");
  }
  function rememberDirection() { if (tool === "push" || tool === "pull") memory.set(`dir-${tool}`, $("move-dir").value); }
  function rememberRotate() { memory.set("rotate-dir", $("rotate-dir").value); memory.set("rotate-detents", $("rotate-detents").value); }

  function act(message) {
    if (!canAct()) return;
    if (send(Object.assign({ type: "act" }, message))) setBusy(true);
  }
  function switchView(v) { act({ action: "switch_view", params: [v] }); }

  const clamp = (v) => Math.max(0, Math.min(1000, Math.round(v)));
  function actAt(x, y) {
    if (!canAct()) return;
    marker.style.left = `${(x / 10)}%`;
    marker.style.top = `${(y / 10)}%`;
    marker.hidden = false;
    const t = TOOLS[tool];
    const message = { action: t.action, coord: [x, y] };
    if (t.action !== "switch_view") message.params = t.params();
    act(message);
  }
  img.addEventListener("click", (e) => {
    const rect = img.getBoundingClientRect();
    actAt(clamp(((e.clientX - rect.left) / rect.width) * 1000), clamp(((e.clientY - rect.top) / rect.height) * 1000));
  });

  // Keyboard play on the focused image: arrows move a cursor (Shift: bigger steps), Enter or Space acts there.
  const cursorEl = $("cursor");
  function showCursor() {
    cursorEl.style.left = `${cursor.x / 10}%`;
    cursorEl.style.top = `${cursor.y / 10}%`;
    cursorEl.hidden = false;
    $("coord-readout").textContent = `${TOOLS[tool].label} at (${cursor.x}, ${cursor.y}) — Enter acts`;
  }
  // A mouse click does not focus the image (the arrow keys keep setting the push/pull direction after it), but
  // it still takes the focus away from a field such as Detents, so the action keys work again.
  img.addEventListener("mousedown", (e) => {
    e.preventDefault();
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
  });
  img.addEventListener("focus", () => { if (img.matches(":focus-visible")) showCursor(); });
  img.addEventListener("blur", () => { cursorEl.hidden = true; });
  img.addEventListener("keydown", (e) => {
    const step = e.shiftKey ? 100 : 20;
    const moves = { ArrowUp: [0, -step], ArrowDown: [0, step], ArrowLeft: [-step, 0], ArrowRight: [step, 0] };
    if (moves[e.key] && cursorEl.hidden) {
      showCursor(); // the first arrow shows where the cursor is
    } else if (moves[e.key]) {
      cursor.x = clamp(cursor.x + moves[e.key][0]);
      cursor.y = clamp(cursor.y + moves[e.key][1]);
      showCursor();
    } else if (e.key === "Enter" || e.key === " ") {
      actAt(cursor.x, cursor.y);
    } else {
      return; // every other key does what it does anywhere on the page
    }
    e.preventDefault();
    e.stopPropagation();
  });
  img.addEventListener("mousemove", (e) => {
    const rect = img.getBoundingClientRect();
    const x = Math.round(((e.clientX - rect.left) / rect.width) * 1000), y = Math.round(((e.clientY - rect.top) / rect.height) * 1000);
    $("coord-readout").textContent = `${TOOLS[tool].label} at (${x}, ${y})`;
  });

  document.querySelectorAll(".tool").forEach((b) => b.addEventListener("click", () => selectTool(b.dataset.tool)));
  $("move-dir").addEventListener("change", rememberDirection);
  $("rotate-dir").addEventListener("change", rememberRotate);
  $("rotate-detents").addEventListener("change", rememberRotate);
  $("rotate-dir").value = memory.get("rotate-dir", "0");
  $("rotate-detents").value = memory.get("rotate-detents", "1");
  $("wait-btn").addEventListener("click", () => act({ action: "timed_wait" }));
  $("giveup-btn").addEventListener("click", () => {
    if (!canAct()) return;
    if (window.confirm("Give up this episode? It will count as played up to this turn.")) {
      if (send({ type: "give_up" })) setBusy(true);
    }
  });
  const help = $("help");
  $("help-open").addEventListener("click", () => help.showModal());

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    const key = e.key;
    if (key === "?") { help.open ? help.close() : help.showModal(); e.preventDefault(); return; }
    if (help.open) return;
    const lower = key.toLowerCase();
    if (KEYS[lower]) { selectTool(KEYS[lower]); e.preventDefault(); return; }
    if (lower === "w") { act({ action: "timed_wait" }); e.preventDefault(); return; }
    if (/^[1-9]$/.test(key) && views[Number(key) - 1]) { switchView(views[Number(key) - 1]); e.preventDefault(); return; }
    if (tool === "rotate") {
      if (lower === "q") { const s = $("rotate-dir"); s.value = s.value === "0" ? "1" : "0"; rememberRotate(); e.preventDefault(); }
      const n = $("rotate-detents");
      if (key === "+" || key === "=") { n.value = Math.min(12, Number(n.value) + 1); rememberRotate(); e.preventDefault(); }
      if (key === "-") { n.value = Math.max(1, Number(n.value) - 1); rememberRotate(); e.preventDefault(); }
    }
    if (tool === "push" || tool === "pull") {
      const dirs = { ArrowUp: "0", ArrowDown: "1", ArrowLeft: "2", ArrowRight: "3", i: "4", I: "4" };
      if (dirs[key]) { $("move-dir").value = dirs[key]; rememberDirection(); e.preventDefault(); }
    }
  });

  selectTool("press0");
  connect();
}
