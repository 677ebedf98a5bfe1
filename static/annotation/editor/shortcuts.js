/* Keyboard shortcuts (listed in the page's help dialog, which "?" toggles). */
import { canvas, fit, pointer, requestDraw, zoomAt } from "./canvas.js";
import { redo, undo } from "./history.js";
import { deleteSelected, mergeSelected, renderInstances, switchImage } from "./instances.js";
import { pickProposal } from "./prompts.js";
import { $, images, resetPrompt, state } from "./state.js";
import { closePolygon, fillSelected, setBrush, setTool } from "./tools.js";

const TOOL_KEYS = { v: "select", c: "click", x: "box", b: "brush", e: "eraser", p: "polygon", h: "pan" };

export function toggleHelp(show) {
  const help = $("help");
  help.hidden = show === undefined ? !help.hidden : !show;
  if (!help.hidden) $("btn-help-close").focus(); else canvas.focus();
}

function onKeyDown(ev) {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (["input", "textarea", "select"].includes(tag)) return;
  const key = ev.key;
  const mod = ev.ctrlKey || ev.metaKey;
  if (mod && key.toLowerCase() === "z") { ev.preventDefault(); ev.shiftKey ? redo() : undo(); return; }
  if (mod && key.toLowerCase() === "y") { ev.preventDefault(); redo(); return; }
  if (mod) return;
  if (key === " ") { pointer.spaceDown = true; ev.preventDefault(); return; }
  if (key === "?") { toggleHelp(); return; }
  if (!$("help").hidden && key === "Escape") { toggleHelp(false); return; }
  const lower = key.toLowerCase();
  if (TOOL_KEYS[lower]) { setTool(TOOL_KEYS[lower]); return; }
  if (lower === "n") { state.selected = null; state.multi.clear(); resetPrompt(); renderInstances(); requestDraw();
    $("seg-status").textContent = "New instance: click or draw a box."; return; }
  if (lower === "f") { fillSelected(); return; }
  if (lower === "m") { mergeSelected(); return; }
  if (lower === "l") { $("outlines").checked = !$("outlines").checked; state.outlines = $("outlines").checked; requestDraw(); return; }
  if (lower === "o") { state.hidden = !state.hidden; requestDraw(); return; }
  if (key === "Delete" || key === "Backspace") { ev.preventDefault(); deleteSelected(); return; }
  if (key === "Escape") { state.polygon = []; resetPrompt(); requestDraw(); return; }
  if (key === "Enter") { if (state.polygon.length) closePolygon(); return; }
  if (key === "[") { setBrush(state.brush - 2); return; }
  if (key === "]") { setBrush(state.brush + 2); return; }
  if (key === "+" || key === "=") { zoomAt(1.25, canvas.width / 2, canvas.height / 2); return; }
  if (key === "-") { zoomAt(0.8, canvas.width / 2, canvas.height / 2); return; }
  if (key === "0") { fit(); return; }
  if (key === "Tab" && images.length > 1) { ev.preventDefault(); switchImage(); return; }
  if (/^[1-9]$/.test(key)) { pickProposal(parseInt(key, 10) - 1); return; }
}

export function bindShortcuts() {
  document.addEventListener("keydown", onKeyDown);
  document.addEventListener("keyup", (ev) => { if (ev.key === " ") pointer.spaceDown = false; });
}
