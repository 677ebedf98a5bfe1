/* Replay viewer: frame k shows the view the player saw before turn k+1, with that turn's click drawn on it,
   then the feedback and the state change. The last frame shows where the episode ended. Plain JS. */
(function () {
  "use strict";
  const frames = JSON.parse(document.getElementById("frames").textContent);
  const $ = (id) => document.getElementById(id);
  const img = $("view-image"), marker = $("marker"), scrub = $("scrub");
  let at = 0;
  scrub.max = String(frames.length - 1);

  function fact(dl, k, v, cls) {
    if (v === null || v === undefined || v === "") return;
    const dt = document.createElement("dt"), dd = document.createElement("dd");
    dt.textContent = k; dd.textContent = String(v); if (cls) dd.className = cls;
    dl.append(dt, dd);
  }

  // Same-task comparison: the chosen model episode's frame at the same turn, beside this one.
  const compareEl = document.getElementById("compare");
  const others = compareEl ? JSON.parse(compareEl.textContent) : [];
  let other = null;
  if (others.length) {
    $("compare-with").onchange = (e) => {
      other = e.target.value === "" ? null : others[Number(e.target.value)];
      $("compare-stage").hidden = !other;
      if (other) $("compare-link").href = other.url;
      show(at);
    };
  }
  function showOther(k) {
    if (!other) return;
    const n = Math.min(k, other.frames.length - 1);
    const frame = other.frames[n];
    const step = n + 1 < other.frames.length ? other.frames[n + 1].step : null;
    $("compare-image").src = frame.image;
    const m = $("compare-marker");
    if (step && step.coord) {
      m.style.left = `${step.coord[0] / 10}%`; m.style.top = `${step.coord[1] / 10}%`; m.hidden = false;
    } else { m.hidden = true; }
    $("compare-title").textContent = step ? `Turn ${n + 1}: ${step.action_text || "no valid action"} (${step.kind})`
      : `Ended after ${other.frames.length - 1} turns`;
    $("compare-feedback").textContent = step ? (step.feedback === "null" ? "Nothing happened." : step.feedback || "") : "";
  }

  function show(k) {
    at = Math.max(0, Math.min(frames.length - 1, k));
    showOther(at);
    const frame = frames[at];
    const step = at + 1 < frames.length ? frames[at + 1].step : null; // the action taken on this view
    img.src = frame.image;
    $("view-name").textContent = (frame.view || "").replace("_", " ");
    $("state-name").textContent = frame.state ? `state: ${frame.state}` : "";
    scrub.value = String(at);
    $("position").textContent = `step ${at + 1 < frames.length ? at + 1 : "end"} of ${frames.length - 1}`;
    const dl = $("step-facts");
    dl.innerHTML = "";
    if (step) {
      $("step-title").textContent = `Turn ${at + 1}: ${step.action_text || "no valid action"}`;
      fact(dl, "Outcome", step.kind, `kind-${step.kind}`);
      fact(dl, "Feedback", step.feedback === "null" ? "null (nothing happened)" : step.feedback);
      fact(dl, "Click", step.coord ? `(${step.coord[0]}, ${step.coord[1]})` : "none");
      fact(dl, "State", step.state_before === step.state_after ? step.state_before : `${step.state_before} → ${step.state_after}`);
      if (step.entered && step.entered.length) fact(dl, "Entered", step.entered.join(" → "));
      if (step.view_before) fact(dl, "View after", frames[at + 1].view);
      if (step.goal_reached) fact(dl, "Goal reached", step.goal_reached, "kind-success");
      // a replay of a hidden split carries no budgets (they follow from lambda and the optimal cost)
      if (step.global_left != null) fact(dl, "Budgets left", `${step.global_left} total, ${step.local_left} for the goal`);
      $("raw").textContent = step.raw_output || "";
      $("raw-box").hidden = !step.raw_output;
      if (step.coord) {
        marker.style.left = `${step.coord[0] / 10}%`;
        marker.style.top = `${step.coord[1] / 10}%`;
        marker.hidden = false;
      } else { marker.hidden = true; }
    } else {
      $("step-title").textContent = frames.length > 1 ? "Where the episode ended" : "No turns were played";
      fact(dl, "Final state", frame.state);
      $("raw-box").hidden = true;
      marker.hidden = true;
    }
    $("prev").disabled = at === 0; $("first").disabled = at === 0;
    $("next").disabled = at === frames.length - 1; $("last").disabled = at === frames.length - 1;
  }

  $("first").onclick = () => show(0);
  $("prev").onclick = () => show(at - 1);
  $("next").onclick = () => show(at + 1);
  $("last").onclick = () => show(frames.length - 1);
  scrub.oninput = () => show(Number(scrub.value));
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") show(at - 1);
    else if (e.key === "ArrowRight") show(at + 1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(frames.length - 1);
  });
  show(0);
})();
