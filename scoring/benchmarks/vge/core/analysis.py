"""VGEBench's analyses (the paper's breakdowns, Fig. 3 budget sensitivity, error taxonomy, human vs model) on the
hub's own replayed episodes.

Input: each scored submission's episodes as the site stored them: `components` (SR, SSR, SPL, ... in percent)
and `details` (`task` with its goals, `l_opt`, `trace`: one `StepOutcome.as_dict()` per turn). The Human row
is one more entry (kind "human"). docs/analyses.md defines each figure. Pure.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from scoring.core.analysis import AnalysisContext, Chart, Figure, ModelSamples, SampleRow, Series, share

HEADLINE = ("SR", "SSR", "SPL")
LAMBDAS = tuple(range(1, 11))
ERRORS = (
    # (name, what counts) — see error_kinds()
    ("wrong_component", "a physical action that hit no reactive component (feedback 'null')"),
    ("wrong_operation", "the right component, operated in a way it has no transition for"),
    ("invalid_action", "an output with no valid action (system notification)"),
    ("redundant", "a valid turn that changed nothing: switch to the current view, a wait or view click with no "
                  "effect, a successful action that left the state as it was"),
    ("budget_exhausted", "an episode that ended unsuccessful because a budget reached 0 (counted once)"),
)


def _trace(s: SampleRow) -> list[Mapping[str, Any]]:
    trace = s.details.get("trace") if isinstance(s.details, Mapping) else None
    return [t for t in trace if isinstance(t, Mapping)] if isinstance(trace, list) else []


def goal_count(s: SampleRow) -> int:
    task = s.details.get("task") if isinstance(s.details, Mapping) else None
    goals = task.get("goals") if isinstance(task, Mapping) else None
    return len(goals) if isinstance(goals, list) else 0


def _metric(s: SampleRow, name: str) -> float | None:
    v = s.components.get(name)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _avg(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(sum(kept) / len(kept), 2) if kept else None


def _episodes(m: ModelSamples) -> list[SampleRow]:
    """The episodes that were played (a task with no episode in the file counts for SR but has no trace)."""
    return list(m.samples)


def _n_text(models: Sequence[ModelSamples], n: int) -> str:
    return f"{len(models)} entr{'ies' if len(models) != 1 else 'y'}, {n} episodes in all"


def breakdowns(models: Sequence[ModelSamples]) -> list[Figure]:
    categories = sorted({s.category for m in models for s in m.samples if s.category})
    cat_rows, goal_rows = [], []
    cat_series, goal_series = [], []
    total = 0
    for m in models:
        eps = _episodes(m)
        total += len(eps)
        values = []
        for c in categories:
            chosen = [s for s in eps if s.category == c]
            row = [_avg([_metric(s, k) for s in chosen]) for k in HEADLINE]
            cat_rows.append((m.label, c, len(chosen), *row))
            values.append(row[0])
        cat_series.append(Series(m.label, values))
        gvalues = []
        for label, test in (("single-goal", lambda n: n == 1), ("multi-goal", lambda n: n > 1)):
            chosen = [s for s in eps if test(goal_count(s))]
            row = [_avg([_metric(s, k) for s in chosen]) for k in HEADLINE]
            goal_rows.append((m.label, label, len(chosen), *row))
            gvalues += row
        goal_series.append(Series(m.label, gvalues))
    return [
        Figure("categories", "SR, SSR and SPL per device category",
               "Mean of each episode's SR, SSR and SPL (percent) over the episodes of tasks on devices of the "
               "category; the heat map shows SR.", _n_text(models, total),
               ("model", "category", "n", *HEADLINE), cat_rows,
               Chart("heatmap", categories, cat_series, "SR (%)", 100.0), total),
        Figure("goals", "Single- vs multi-goal tasks",
               "Episodes of tasks with one goal against tasks with two or more goals: mean SR, SSR, SPL (percent).",
               _n_text(models, total), ("model", "tasks", "n", *HEADLINE), goal_rows,
               Chart("bars", [f"{k} {g}" for g in ("single", "multi") for k in HEADLINE], goal_series, "%",
                     100.0), total),
    ]


def success_turn(s: SampleRow) -> int | None:
    """The turn on which the episode reached all its goals (None when it never did)."""
    for t in _trace(s):
        if t.get("success"):
            return int(t.get("turn") or 0)
    return None


def budget_sensitivity(models: Sequence[ModelSamples]) -> list[Figure]:
    rows, series = [], []
    total = 0
    for m in models:
        eps = [s for s in m.samples if isinstance(s.details.get("l_opt"), (int, float))
               and math.isfinite(s.details["l_opt"]) and s.details["l_opt"] > 0]
        total += len(eps)
        values = []
        for lam in LAMBDAS:
            hits = sum(1 for s in eps if (t := success_turn(s)) is not None and t <= lam * float(s.details["l_opt"]))
            values.append(share(hits, len(eps)))
            rows.append((m.label, lam, len(eps), hits, share(hits, len(eps))))
        series.append(Series(m.label, values))
    return [Figure(
        "budget", "SR against the turn budget λ·L_opt",
        "SR if the global budget had been λ·L_opt: an episode counts as a success at λ when it reached all goals "
        "on a turn ≤ λ·L_opt. Episodes were played with the task's own λ (5 by default), so beyond it the curve "
        "is a lower bound; local budgets are not re-applied.",
        _n_text(models, total), ("model", "lambda", "n", "successes", "SR"), rows,
        Chart("lines", [str(lam) for lam in LAMBDAS], series, "SR (%)", 100.0), total)]


def turn_error(t: Mapping[str, Any]) -> str | None:
    """The error class of one turn, or None for a turn that did something useful (see ERRORS)."""
    kind, turn_class = t.get("kind"), t.get("turn_class")
    if kind == "invalid" or turn_class == "invalid":
        return "invalid_action"
    if kind == "wrong_operation":
        return "wrong_operation"
    if turn_class == "physical" and kind == "no_effect":
        return "wrong_component"
    if turn_class in ("switch", "wait") and kind == "no_effect":
        return "redundant"
    if turn_class == "switch" and t.get("view_before") == t.get("view_after") \
            and t.get("unlocked_before") == t.get("unlocked_after"):
        return "redundant"
    if turn_class == "physical" and kind == "success" and t.get("state_before") == t.get("state_after") \
            and not t.get("goal_reached"):
        return "redundant"
    return None


def error_counts(s: SampleRow) -> dict[str, int]:
    counts = {name: 0 for name, _ in ERRORS}
    trace = _trace(s)
    for t in trace:
        found = turn_error(t)
        if found:
            counts[found] += 1
    if trace and not any(t.get("success") for t in trace) and trace[-1].get("done") \
            and not (isinstance(s.details, Mapping) and s.details.get("gave_up")):
        counts["budget_exhausted"] += 1
    return counts


def error_taxonomy(models: Sequence[ModelSamples]) -> list[Figure]:
    rows, series = [], []
    total = 0
    for m in models:
        eps = [s for s in m.samples if _trace(s)]
        total += len(eps)
        counts = {name: 0 for name, _ in ERRORS}
        turns = 0
        for s in eps:
            turns += len(_trace(s))
            for k, v in error_counts(s).items():
                counts[k] += v
        errors = sum(counts.values())
        shares = [share(counts[name], errors) for name, _ in ERRORS]
        rows.append((m.label, len(eps), turns, errors, *(counts[n] for n, _ in ERRORS), *shares))
        series.append(Series(m.label, shares))
    names = [name for name, _ in ERRORS]
    return [Figure(
        "errors", "Error taxonomy from the feedback",
        "Each turn is classed by its feedback kind (wrong component, wrong operation, invalid action, redundant), "
        "each failed episode that ran out of budget adds one budget exhaustion; the shares are of all errors of "
        "the entry.", _n_text(models, total),
        ("model", "episodes", "turns", "errors", *names, *(f"{n}_share" for n in names)), rows,
        Chart("bars", names, series, "share of errors (%)", 100.0), total)]


def human_vs_model(models: Sequence[ModelSamples]) -> list[Figure]:
    humans = [m for m in models if m.kind == "human"]
    keys = {s.key for m in humans for s in m.samples}
    rows, series = [], []
    total = 0
    for m in models:
        chosen = [s for s in m.samples if s.key in keys]
        if not chosen:
            continue
        total += len(chosen)
        row = [_avg([_metric(s, k) for s in chosen]) for k in HEADLINE]
        rows.append((m.label, m.kind, len({s.key for s in chosen}), len(chosen), *row))
        series.append(Series(m.label, row))
    return [Figure(
        "human-vs-model", "Human vs model on the tasks humans played",
        "Only the tasks of the human baseline that people played: each entry's mean SR, SSR, SPL over its "
        "episodes on exactly those tasks, beside the Human row (people may have played a task more than once).",
        f"{len(keys)} tasks, {total} episodes in all", ("model", "kind", "tasks", "episodes", *HEADLINE), rows,
        Chart("bars", list(HEADLINE), series, "%", 100.0), total)]


SWITCH_CLASSES = ("NP", "PN", "NN")


def classify_switches(s: SampleRow, visible: Mapping[str, Mapping[str, Sequence[str]]]) -> list[str] | None:
    """The class of each view-changing Switch_view of an episode (None when its device's views are unknown).
    The switch is judged by the next turn after it that is not a Timed_wait (waits do not depend on the view):
    NP — a physical action in the new view on a component with a box on the new view and none on the old one, or
    the switch itself unlocked the dashboard (needed, productive); PN — a physical action on a component the old
    view showed too (productive, not needed); NN — anything else: another switch, an invalid turn, a click on no
    component, or no further turn."""
    task = s.details.get("task") if isinstance(s.details, Mapping) else None
    device = task.get("device") if isinstance(task, Mapping) else None
    views = visible.get(device) if isinstance(device, str) else None
    if views is None:
        return None
    trace = _trace(s)
    out = []
    for i, t in enumerate(trace):
        old, new = t.get("view_before"), t.get("view_after")
        if t.get("turn_class") != "switch" or old == new:
            continue
        if t.get("unlocked_after") and not t.get("unlocked_before"):
            out.append("NP")
            continue
        nxt = next((u for u in trace[i + 1:] if u.get("turn_class") != "wait"), None)
        component = nxt.get("component") if nxt else None
        on_new = views.get(new, ()) if isinstance(new, str) else ()
        on_old = views.get(old, ()) if isinstance(old, str) else ()
        if nxt is None or nxt.get("turn_class") != "physical" or not component or nxt.get("view_before") != new:
            out.append("NN")
        elif component in on_new and component not in on_old:
            out.append("NP")
        elif component in on_new:
            out.append("PN")
        else:
            out.append("NN")
    return out


def view_switches(models: Sequence[ModelSamples], context: AnalysisContext) -> list[Figure]:
    visible = context.extra.get("visible") or {}
    rows, series = [], []
    total = 0
    for m in models:
        counts = {c: 0 for c in SWITCH_CLASSES}
        episodes = 0
        for s in m.samples:
            found = classify_switches(s, visible)
            if found is None or not _trace(s):
                continue
            episodes += 1
            for c in found:
                counts[c] += 1
        total += episodes
        switches = sum(counts.values())
        shares = [share(counts[c], switches) for c in SWITCH_CLASSES]
        rows.append((m.label, episodes, switches, *(counts[c] for c in SWITCH_CLASSES), *shares))
        series.append(Series(m.label, shares))
    return [Figure(
        "view-switches", "View switches: needed and productive (NP), productive not needed (PN), neither (NN)",
        "Each Switch_view that changed the view, classed by the next turn that is not a wait: a physical action on "
        "a component shown only in the new view, or the switch unlocked the dashboard (NP); a physical action on a "
        "component the old view showed too (PN); anything else (NN). Shares of the entry's switches.",
        _n_text(models, total),
        ("model", "episodes", "switches", *SWITCH_CLASSES, *(f"{c}_share" for c in SWITCH_CLASSES)), rows,
        Chart("bars", list(SWITCH_CLASSES), series, "share of switches (%)", 100.0), total)]


def robustness(models: Sequence[ModelSamples], context: AnalysisContext) -> list[Figure]:
    runs = [r for r in context.extra.get("runs") or () if isinstance(r, Mapping)
            and (context.submissions is None or r.get("submission") in context.submissions)]
    by_model: dict[str, dict[str, list[int]]] = {}
    for r in runs:
        label = str(r.get("model", "")) + (" (thinking)" if r.get("thinking") == "yes" else "")
        pooled = by_model.setdefault(label, {}).setdefault(str(r.get("perturbation") or ""), [0, 0])
        pooled[0] += int(r.get("episodes") or 0)
        pooled[1] += int(r.get("successes") or 0)
    rows, series = [], []
    total = 0
    kinds = sorted({p for settings in by_model.values() for p in settings if p})
    for label, settings in by_model.items():
        if not any(settings_key for settings_key in settings):
            continue  # no perturbed run: nothing to compare
        clean = share(settings[""][1], settings[""][0]) if "" in settings else None
        values = []
        for p in ("", *kinds):
            n, hits = settings.get(p, (0, 0))
            sr = share(hits, n)
            total += n
            if p in settings:
                rows.append((label, p or "none", n, sr, round(sr - clean, 2) if sr is not None and clean is not None else None))
            values.append(sr)
        series.append(Series(label, values))
    return [Figure(
        "robustness", "SR with and without image perturbations",
        "Agent API episodes played with a perturbation of every served view (blur:σ, jpeg:q, occlude:share) and "
        "bundled as their own submission, against the same model's unperturbed submissions on this split: SR "
        "pooled over the episodes of each setting, and its difference from the unperturbed SR. Every public "
        "scored upload of the models the board's filters keep counts, not only each model's best entry.",
        f"{len(series)} models, {total} episodes in all", ("model", "perturbation", "episodes", "SR", "delta_SR"),
        rows, Chart("bars", ["none", *kinds], series, "SR (%)", 100.0), total)]


def figures(models: Sequence[ModelSamples], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    return [*breakdowns(models), *budget_sensitivity(models), *error_taxonomy(models), *view_switches(models, context),
            *human_vs_model(models), *robustness(models, context)]
