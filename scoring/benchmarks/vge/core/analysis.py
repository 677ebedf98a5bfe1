"""VGEBench's analyses (the paper's breakdowns, Fig. 3 budget sensitivity, error taxonomy, human vs model) on the
hub's own replayed episodes.

Input: each scored submission's episodes as the site stored them: `components` (SR, SSR, SPL, ... in percent)
and `details` (`task` with its goals, `l_opt`, `trace`: one `StepOutcome.as_dict()` per turn). The Human row
is one more entry (kind "human"). The error taxonomy and the view switches need each device's graphs
(`context.extra["graphs"]`: device id -> DeviceGraphs, read by the site hook). docs/analyses.md defines each
figure. Pure.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from scoring.benchmarks.vge.core.device import TIMED_WAIT
from scoring.benchmarks.vge.core.episode_options import (
    DEFAULT_INSTRUCTION,
    HISTORY_FULL,
    HISTORY_OPTION,
    INSTRUCTION_OPTION,
    PERTURBATION_OPTION,
)
from scoring.benchmarks.vge.core.graphs import DeviceGraphs, Node
from scoring.benchmarks.vge.core.task_defs import DEFAULT_LAMBDA
from scoring.core.analysis import (
    AnalysisContext,
    AnalysisSummaries,
    Chart,
    Figure,
    ModelSamples,
    ModelSummary,
    SampleRow,
    Series,
    share,
    summarise_all,
)

HEADLINE = ("SR", "SSR", "SPL")
LAMBDAS = tuple(range(1, 11))
# The paper's error taxonomy (App. B): three classes, each with the kinds of turn it counts (see turn_error()).
GROUNDING = "Fine-grained Visual Grounding"
EXECUTION = "Action Execution"
NAVIGATION = "Visual Navigation"
CLASSES = (
    (GROUNDING, ("invalid coordinates", "incorrect or non-optimal component")),
    (EXECUTION, ("parameter error", "atomic-action error", "invalid waiting")),
    (NAVIGATION, ("NN", "PN")),
)
OUTSIDE = "not in the paper's classes"
OUTSIDE_KINDS = ("invalid output", "switch that changed no view", "target unknown")
# The paper's shares of all errors (App. B), shown as a reference row beside the hub's.
PAPER_SOURCE = "paper (VGEBench, App. B)"
PAPER_SHARES = {(GROUNDING, "all"): 66.1, (EXECUTION, "all"): 17.2, (EXECUTION, "parameter error"): 10.8,
                (NAVIGATION, "all"): 16.7}


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


def _n_text(entries: int, n: int) -> str:
    return f"{entries} entr{'ies' if entries != 1 else 'y'}, {n} episodes in all"


def _metric_sums(samples: Sequence[SampleRow]) -> list[Any]:
    """[n, then per headline metric (SR, SSR, SPL) the sum and count of the episodes that have it]."""
    out: list[Any] = [len(samples)]
    for k in HEADLINE:
        kept = [v for s in samples if (v := _metric(s, k)) is not None]
        out += [sum(kept), len(kept)]
    return out


def _means(cell: Sequence[Any]) -> list[float | None]:
    """The headline metrics' means of a `_metric_sums` cell (as `_avg`)."""
    return [round(cell[1 + 2 * i] / cell[2 + 2 * i], 2) if cell[2 + 2 * i] else None for i in range(len(HEADLINE))]


GOAL_GROUPS = (("single-goal", lambda n: n == 1), ("multi-goal", lambda n: n > 1))


def _summarise_breakdowns(m: ModelSamples) -> dict[str, Any]:
    eps = _episodes(m)
    categories = sorted({s.category for s in eps if s.category})
    return {"categories": [[c, *_metric_sums([s for s in eps if s.category == c])] for c in categories],
            "goals": [_metric_sums([s for s in eps if test(goal_count(s))]) for _label, test in GOAL_GROUPS]}


def breakdowns(models: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    categories = span["categories"]
    cat_rows, goal_rows = [], []
    cat_series, goal_series = [], []
    total = span["n"]
    empty = [0, *([0, 0] * len(HEADLINE))]
    for m in models:
        by_category = {cell[0]: cell[1:] for cell in m.summary["categories"]}
        values = []
        for c in categories:
            cell = by_category.get(c, empty)
            row = _means(cell)
            cat_rows.append((m.label, c, cell[0], *row))
            values.append(row[0])
        cat_series.append(Series(m.label, values))
        gvalues = []
        for (label, _test), cell in zip(GOAL_GROUPS, m.summary["goals"]):
            row = _means(cell)
            goal_rows.append((m.label, label, cell[0], *row))
            gvalues += row
        goal_series.append(Series(m.label, gvalues))
    return [
        Figure("categories", "SR, SSR and SPL per device category",
               "Mean of each episode's SR, SSR and SPL (percent) over the episodes of tasks on devices of the "
               "category; the heat map shows SR.", _n_text(span["entries"], total),
               ("model", "category", "n", *HEADLINE), cat_rows,
               Chart("heatmap", categories, cat_series, "SR (%)", 100.0), total),
        Figure("goals", "Single- vs multi-goal tasks",
               "Episodes of tasks with one goal against tasks with two or more goals: mean SR, SSR, SPL (percent).",
               _n_text(span["entries"], total), ("model", "tasks", "n", *HEADLINE), goal_rows,
               Chart("bars", [f"{k} {g}" for g in ("single", "multi") for k in HEADLINE], goal_series, "%",
                     100.0), total),
    ]


def success_turn(s: SampleRow) -> int | None:
    """The turn on which the episode reached all its goals (None when it never did)."""
    for t in _trace(s):
        if t.get("success"):
            return int(t.get("turn") or 0)
    return None


NORMALISED_AT = 2  # the paper's Fig. 3: "normalizes performance at λ = 2 to zero"


def played_lambda(s: SampleRow) -> float:
    """The interaction budget λ the episode was played with: the scorer's `lambda` detail, else its task's λ."""
    task = s.details.get("task") if isinstance(s.details, Mapping) else None
    for value in (s.details.get("lambda"), task.get("lambda") if isinstance(task, Mapping) else None):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
            return int(value) if float(value).is_integer() else float(value)
    return DEFAULT_LAMBDA


def _with_l_opt(samples: Sequence[SampleRow]) -> list[SampleRow]:
    return [s for s in samples if isinstance(s.details.get("l_opt"), (int, float))
            and math.isfinite(s.details["l_opt"]) and s.details["l_opt"] > 0]


def _succeeded(s: SampleRow) -> bool:
    """The episode reached all its goals: its SR (100 or 0), else its trace."""
    sr = _metric(s, "SR")
    return sr >= 100.0 if sr is not None else success_turn(s) is not None


def _hits(eps: Sequence[SampleRow]) -> int:
    return sum(1 for s in eps if _succeeded(s))


def truncation_label(lam: float) -> str:
    return f"truncated from λ = {lam:g} episodes (not normalised)"


def run_label(r: Mapping[str, Any]) -> str:
    """What a figure calls a submission's model (as the board labels an entry)."""
    return str(r.get("model", "")) + (" (thinking)" if r.get("thinking") == "yes" else "")


def runs_from_summaries(context: AnalysisContext) -> list[dict[str, Any]]:
    """The per-(submission, λ) counts of the site's run submissions (`context.extra["run_submissions"]`: each public
    scored upload's id, model and options, in id order) from their summaries (`context.summaries`, "runs"): what
    `context.extra["runs"]` gives where no summaries are combined."""
    out = []
    for meta in context.extra.get("run_submissions") or ():
        summary = context.summaries.get(meta.get("submission"))
        if summary is None:
            continue  # not among the submissions the board's filters keep
        for lam, n, hits, ssr_sum in summary.get("runs") or [[None, 0, 0, 0.0]]:
            out.append({**meta, "lambda": lam, "episodes": n, "successes": hits, "ssr_sum": ssr_sum})
    return out


def kept_runs(context: AnalysisContext) -> list[Mapping[str, Any]]:
    """The site's per-(submission, λ) counts (`context.extra["runs"]`, else `runs_from_summaries`) of the
    submissions the board's filters keep."""
    runs = context.extra["runs"] if "runs" in context.extra else runs_from_summaries(context)
    return [r for r in runs or () if isinstance(r, Mapping)
            and (context.submissions is None or r.get("submission") in context.submissions)]


def _summarise_runs(m: ModelSamples) -> list[list[Any]]:
    """Per λ played, by λ: [λ, episodes, successes (score 100), sum of the episodes' SSR] (the site's runs)."""
    counts: dict[float, list[Any]] = {}
    for s in m.samples:
        row = counts.setdefault(played_lambda(s), [0, 0, 0.0])
        ssr = s.components.get("SSR")
        row[0] += 1
        row[1] += s.score is not None and s.score >= 100.0
        row[2] += float(ssr) if isinstance(ssr, (int, float)) else 0.0
    return [[lam, *row] for lam, row in sorted(counts.items())]


# The episode options a run may be played with besides λ, and their defaults (as the site's runs spell them).
OPTION_DEFAULTS = {PERTURBATION_OPTION: "", HISTORY_OPTION: HISTORY_FULL, INSTRUCTION_OPTION: DEFAULT_INSTRUCTION}


def option_value(r: Mapping[str, Any], option: str) -> str:
    return str(r.get(option) or OPTION_DEFAULTS[option])


def _default_except(r: Mapping[str, Any], option: str) -> bool:
    """The run was played with every episode option at its default but `option` (the one a figure varies)."""
    defaults = {name: option_value(r, name) == default for name, default in OPTION_DEFAULTS.items()}
    defaults["lambda"] = r.get("lambda_option") in (None, "")
    return all(ok for name, ok in defaults.items() if name != option)


def pooled_by_option(context: AnalysisContext, option: str) -> dict[str, dict[str, list[float]]]:
    """Per model and value of `option`: [episodes, successes, sum of the episodes' SSR] over the kept runs played
    with every other option at its default."""
    by_model: dict[str, dict[str, list[float]]] = {}
    for r in kept_runs(context):
        if not _default_except(r, option):
            continue
        pooled = by_model.setdefault(run_label(r), {}).setdefault(option_value(r, option), [0, 0, 0.0])
        pooled[0] += int(r.get("episodes") or 0)
        pooled[1] += int(r.get("successes") or 0)
        pooled[2] += float(r.get("ssr_sum") or 0.0)
    return by_model


def _sr_ssr(counts: Sequence[float] | None) -> tuple[float | None, float | None]:
    if not counts or not counts[0]:
        return None, None
    return share(int(counts[1]), int(counts[0])), round(counts[2] / counts[0], 2)


def _summarise_budget(m: ModelSamples) -> dict[str, Any]:
    """Per λ played (in the order first played): [λ, episodes, successes]; and per λ played, the truncation of its
    episodes with an L_opt: [λ, episodes, successes within λ'·L_opt for each λ' of LAMBDAS]."""
    played: dict[float, list[int]] = {}
    cut: dict[float, list[Any]] = {}
    for s in m.samples:
        lam = played_lambda(s)
        found = played.setdefault(lam, [0, 0])
        found[0] += 1
        found[1] += _succeeded(s)
    for s in _with_l_opt(m.samples):
        lam = played_lambda(s)
        row = cut.setdefault(lam, [0, [0] * len(LAMBDAS)])
        row[0] += 1
        t = success_turn(s)
        for i, budget in enumerate(LAMBDAS):
            row[1][i] += t is not None and t <= budget * float(s.details["l_opt"])
    return {"lambdas": [[lam, n, hits] for lam, (n, hits) in played.items()],
            "truncation": [[lam, n, hits] for lam, (n, hits) in cut.items()]}


def _budget_counts(models: Sequence[ModelSummary], context: AnalysisContext,
                   ) -> tuple[dict[str, dict[float, list[int]]], dict[str, list[list[Any]]]]:
    """Per model label: (per λ played [episodes, successes], its entries' truncation cells), in the order first met,
    a model's episodes pooled over all its submissions the board's filters keep (`budget_sensitivity`)."""
    runs = kept_runs(context)
    pooled = [r for r in runs if _default_except(r, "lambda")]
    handled = {r.get("submission") for r in runs}
    label_of = {r.get("submission"): run_label(r) for r in pooled}
    counts: dict[str, dict[float, list[int]]] = {}
    cuts_of: dict[str, list[list[Any]]] = {}
    for m in models:
        if m.submission_id in handled and m.submission_id not in label_of:
            continue  # a submission played with another option (a perturbation): not this figure's
        label = label_of.get(m.submission_id, m.label)
        cuts_of.setdefault(label, []).extend(m.summary["truncation"])
        by_lam = counts.setdefault(label, {})
        if m.submission_id in handled:
            continue  # counted from the runs below
        for lam, n, hits in m.summary["lambdas"]:
            found = by_lam.setdefault(lam, [0, 0])
            found[0] += n
            found[1] += hits
    for r in pooled:
        lam = r.get("lambda")
        if not isinstance(lam, (int, float)) or isinstance(lam, bool):
            continue
        found = counts.setdefault(run_label(r), {}).setdefault(lam, [0, 0])
        found[0] += int(r.get("episodes") or 0)
        found[1] += int(r.get("successes") or 0)
    return counts, cuts_of


def _budget_episodes(models: Sequence[ModelSummary], context: AnalysisContext) -> int:
    """The episodes `budget_sensitivity` counts, every model's."""
    counts, _ = _budget_counts(models, context)
    return sum(c[0] for by_lam in counts.values() for c in by_lam.values())


def budget_sensitivity(models: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext(),
                       span: Mapping[str, Any] | None = None) -> list[Figure]:
    """Fig. 3 as the paper: SR of the episodes actually played at each λ, minus SR at λ = 2. On the site a model's
    episodes come from all its submissions the board's filters keep (the site's runs: a bundle of episodes played
    at one λ is a submission of its own), unperturbed; elsewhere from the given entries. A model with no episodes
    at λ = 2, or played at one λ only, gets no normalisation: its episodes of the largest λ played are cut after
    the fact (a success at λ when all goals were reached on a turn ≤ λ·L_opt), a separate labelled series."""
    over_all = span if span is not None else vge_span(models, context)
    counts, cuts_of = _budget_counts(models, context)
    rows: list[tuple[Any, ...]] = []
    series = []
    total = over_all["budget"]
    for label, by_lam in counts.items():
        by_lam = {lam: c for lam, c in by_lam.items() if c[0]}
        if not by_lam or not context.keeps(label):
            continue  # no episode, or another page's entry
        sr = {lam: share(c[1], c[0]) for lam, c in by_lam.items()}
        normalised = NORMALISED_AT in by_lam and len(by_lam) > 1
        base = sr.get(NORMALISED_AT) if normalised else None
        gains: dict[float, float | None] = {}
        for lam in sorted(by_lam):
            value = sr[lam]
            gains[lam] = round(value - base, 2) if value is not None and base is not None else None
            rows.append((label, "played", lam, by_lam[lam][0], by_lam[lam][1], value, gains[lam]))
        if normalised:
            series.append(Series(label, [gains.get(lam) for lam in LAMBDAS]))
            continue
        played = max(by_lam)
        n_eps, cut = 0, [0] * len(LAMBDAS)
        for lam, n, hits_at in cuts_of.get(label, ()):
            if lam == played:
                n_eps += n
                cut = [a + b for a, b in zip(cut, hits_at)]
        if not n_eps:
            continue  # none of its episodes at that λ is among the entries shown: nothing to cut
        values: list[float | None] = []
        for lam, hits in zip(LAMBDAS, cut):
            if lam > played:
                values.append(None)  # beyond the budget played: the cut says nothing there
                continue
            values.append(share(hits, n_eps))
            rows.append((label, truncation_label(played), lam, n_eps, hits, share(hits, n_eps), None))
        series.append(Series(f"{label} · {truncation_label(played)}, SR", values))  # " · ": paged with its entry
    return [Figure(
        "budget", "SR gain against the interaction budget λ, normalised at λ = 2 (Fig. 3)",
        "As the paper (Fig. 3): SR of the episodes actually played with each λ (global budget λ·L_opt, local λ·C_opt), "
        "minus SR at λ = 2, so λ = 2 is zero; a model's unperturbed submissions the filters keep are pooled (each "
        "bundle of episodes played at one λ is a submission of its own). A model with no episodes at λ = 2 or with one λ only is not "
        "normalised: its episodes of the largest λ played are cut after the fact (a success at λ when all goals were "
        "reached on a turn ≤ λ·L_opt; local budgets not re-applied), shown as SR in its own series labelled "
        "“truncated from λ = … episodes” (ours).",
        _n_text(over_all["entries"], total), ("model", "series", "lambda", "n", "successes", "SR",
                                              "gain_vs_lambda_2"), rows,
        Chart("lines", [str(lam) for lam in LAMBDAS], series,
              "SR gain vs λ = 2 (points); truncated series: SR (%)", None), total)]


Graphs = Mapping[str, DeviceGraphs]


def _device_graphs(s: SampleRow, graphs: Graphs) -> tuple[DeviceGraphs, tuple[str, ...]] | None:
    """The episode's device graphs and goals (None when the device is unknown or the task names no goals)."""
    task = s.details.get("task") if isinstance(s.details, Mapping) else None
    device = task.get("device") if isinstance(task, Mapping) else None
    goals = task.get("goals") if isinstance(task, Mapping) else None
    g = graphs.get(device) if isinstance(device, str) else None
    if g is None or not isinstance(goals, list) or not goals:
        return None
    return g, tuple(str(x) for x in goals)


def _node_goal(t: Mapping[str, Any], g: DeviceGraphs, goals: tuple[str, ...]) -> tuple[Node, str] | None:
    """Where the turn started and the goal current then (None when the trace does not say or the goal cannot be
    reached from there: the optimal plan is unknown)."""
    index, state, view = t.get("goal_index_before"), t.get("state_before"), t.get("view_before")
    if not isinstance(index, int) or not 0 <= index < len(goals) or not isinstance(state, str) \
            or not isinstance(view, str):
        return None
    node = (state, view, bool(t.get("unlocked_before")))
    if g.distances_to(goals[index]).get(node) is None:
        return None
    return node, goals[index]


def _shown(g: DeviceGraphs, view: Any) -> set[str]:
    return {c for c, _box in g.view_boxes.get(view, ())} if isinstance(view, str) else set()


def switch_class(t: Mapping[str, Any], g: DeviceGraphs, goals: tuple[str, ...]) -> str | None:
    """The paper's class of a view-changing Switch_view (App. B): N (negative) for a view that does not show the
    current goal's target component, P (positive) for one that does, before then after: NP, NN, PN or PP.
    "unknown" when the target cannot be determined; None for a turn that is not a view-changing switch."""
    if t.get("turn_class") != "switch" or t.get("view_before") == t.get("view_after"):
        return None
    found = _node_goal(t, g, goals)
    targets = g.target_components(*found) if found else frozenset()
    if not targets:
        return "unknown"
    before = "P" if targets & _shown(g, t.get("view_before")) else "N"
    after = "P" if targets & _shown(g, t.get("view_after")) else "N"
    return before + after


def turn_error(t: Mapping[str, Any], g: DeviceGraphs, goals: tuple[str, ...]) -> tuple[str, str] | None:
    """The paper's error class and kind of one turn (App. B), or (OUTSIDE, kind) for an error it has no class
    for, or None for a turn on an optimal plan. The target is what the optimal plan from the turn's state, view
    and dashboard lock does next for the current goal (DeviceGraphs.optimal_steps)."""
    turn_class, kind = t.get("turn_class"), t.get("kind")
    if turn_class == "invalid" or kind == "invalid":
        if "is outside 0..1000" in str(t.get("feedback") or ""):
            return GROUNDING, "invalid coordinates"
        return OUTSIDE, "invalid output"
    if turn_class == "switch":
        if t.get("view_before") == t.get("view_after"):
            return OUTSIDE, "switch that changed no view"
        switch = switch_class(t, g, goals)
        if switch in ("NN", "PN"):
            return NAVIGATION, str(switch)
        return (OUTSIDE, "target unknown") if switch == "unknown" else None
    if turn_class == "physical" and kind == "no_effect":
        return GROUNDING, "invalid coordinates"  # a click on no reactive component
    if turn_class == "physical" and kind == "unlocked":
        return None  # a passive unlock: the view is opened, no component is acted on
    start = _node_goal(t, g, goals)
    if start is None:
        return OUTSIDE, "target unknown"
    node, goal = start
    dist = g.distances_to(goal)
    steps = g.optimal_steps(node, goal)
    closer = dist.get((str(t.get("state_after")), node[1], node[2])) == dist[node] - 1  # one step along a plan
    if turn_class == "wait":
        if kind == "success" and closer and any(trigger == TIMED_WAIT for trigger, _a, _p in steps):
            return None
        return EXECUTION, "invalid waiting"
    component = t.get("component")
    planned = [a for trigger, a, _p in steps if trigger == component]
    if not planned:
        return GROUNDING, "incorrect or non-optimal component"
    if kind == "success" and closer:
        return None
    action = t.get("action")
    if isinstance(action, Mapping) and action.get("name") in planned:
        return EXECUTION, "parameter error"  # the plan's component and atomic action, other parameters
    return EXECUTION, "atomic-action error"


def error_counts(s: SampleRow, graphs: Graphs) -> dict[tuple[str, str], int] | None:
    """The episode's errors by (class, kind), or None when its device is unknown (not classed)."""
    found = _device_graphs(s, graphs)
    if found is None:
        return None
    counts = {(c, k): 0 for c, kinds in (*CLASSES, (OUTSIDE, OUTSIDE_KINDS)) for k in kinds}
    for t in _trace(s):
        error = turn_error(t, *found)
        if error:
            counts[error] += 1
    return counts


def _summarise_errors(m: ModelSamples, graphs: Graphs) -> list[Any]:
    """[episodes classed, then [class, kind, count] per error kind (CLASSES, then OUTSIDE_KINDS)]."""
    counts: dict[tuple[str, str], int] = {}
    episodes = 0
    for s in m.samples:
        found = error_counts(s, graphs) if _trace(s) else None
        if found is None:
            continue
        episodes += 1
        for k, v in found.items():
            counts[k] = counts.get(k, 0) + v
    return [episodes, [[c, k, v] for (c, k), v in counts.items()]]


def error_taxonomy(models: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    rows: list[tuple[Any, ...]] = []
    series = []
    total = span["errors"]
    names = [c for c, _kinds in CLASSES]
    for m in models:
        episodes, found = m.summary["errors"]
        counts = {(c, k): v for c, k, v in found}
        errors = sum(v for (c, _k), v in counts.items() if c != OUTSIDE)
        shares = []
        for c, kinds in CLASSES:
            n = sum(counts.get((c, k), 0) for k in kinds)
            shares.append(share(n, errors))
            rows.append((m.label, episodes, c, "all", n, share(n, errors)))
            rows += [(m.label, episodes, c, k, counts.get((c, k), 0), share(counts.get((c, k), 0), errors))
                     for k in kinds]
        rows += [(m.label, episodes, OUTSIDE, k, counts.get((OUTSIDE, k), 0), None) for k in OUTSIDE_KINDS]
        series.append(Series(m.label, shares))
    if span["entries"]:
        for c, kinds in CLASSES:
            for k in ("all", *kinds):
                if (c, k) in PAPER_SHARES:
                    rows.append((PAPER_SOURCE, None, c, k, None, PAPER_SHARES[(c, k)]))
        series.append(Series(PAPER_SOURCE, [PAPER_SHARES[(c, "all")] for c in names]))
    return [Figure(
        "errors", "Error taxonomy as the paper's (App. B)",
        "Each turn against the optimal plan from where it started, for the current goal: Fine-grained Visual "
        "Grounding (a click on no component or off the image; a component the plan does not act on next), Action "
        "Execution (the plan's component, wrong operation: parameters, or an atomic action it has no such "
        "transition for; a wait the plan does not make), Visual Navigation (Switch_view NN and PN). Shares are of "
        "the three classes' errors; invalid outputs, switches that changed no view and turns whose target cannot "
        "be determined are counted apart. The paper's shares (App. B) are the reference row.",
        _n_text(span["entries"], total), ("model", "episodes", "class", "error", "count", "share"), rows,
        Chart("bars", names, series, "share of errors (%)", 100.0), total)]


def _summarise_keys(m: ModelSamples, human_keys: Any) -> list[list[Any]]:
    """Per task (sample key) a human played, in key order: [key, `_metric_sums` of the entry's episodes of it]. A
    human entry's summary holds every task it played; another's the tasks of `human_keys` (the split's human
    entries' tasks: the site's `analysis_summary_context`, else the humans among the models summarised)."""
    wanted = None if m.kind == "human" else set(human_keys or ())
    by_key: dict[str, list[SampleRow]] = {}
    for s in m.samples:
        if wanted is None or s.key in wanted:
            by_key.setdefault(s.key, []).append(s)
    return [[key, *_metric_sums(by_key[key])] for key in sorted(by_key)]


def _human_keys(models: Sequence[ModelSummary]) -> list[str]:
    """The tasks the human entries played, sorted."""
    return sorted({cell[0] for m in models if m.kind == "human" for cell in m.summary["keys"]})


def _on_human_tasks(m: ModelSummary, keys: Collection[str]) -> list[list[Any]]:
    """An entry's `_metric_sums` cells of the tasks `keys`."""
    return [cell[1:] for cell in m.summary["keys"] if cell[0] in keys]


def human_vs_model(models: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    keys = set(span["human_keys"])
    rows, series = [], []
    total = span["human_episodes"]
    for m in models:
        chosen = _on_human_tasks(m, keys)
        if not chosen:
            continue
        n = sum(cell[0] for cell in chosen)
        pooled = [n, *(sum(cell[i] for cell in chosen) for i in range(1, 1 + 2 * len(HEADLINE)))]
        row = _means(pooled)
        rows.append((m.label, m.kind, len(chosen), n, *row))
        series.append(Series(m.label, row))
    return [Figure(
        "human-vs-model", "Human vs model on the tasks humans played",
        "Only the tasks of the human baseline that people played: each entry's mean SR, SSR, SPL over its "
        "episodes on exactly those tasks, beside the Human row (people may have played a task more than once).",
        f"{len(keys)} tasks, {total} episodes in all", ("model", "kind", "tasks", "episodes", *HEADLINE), rows,
        Chart("bars", list(HEADLINE), series, "%", 100.0), total)]


SWITCH_CLASSES = ("NP", "NN", "PN", "PP")


def classify_switches(s: SampleRow, graphs: Graphs) -> list[str] | None:
    """The class of each view-changing Switch_view of an episode (switch_class; None when its device is
    unknown)."""
    found = _device_graphs(s, graphs)
    if found is None:
        return None
    return [c for t in _trace(s) if (c := switch_class(t, *found)) is not None]


def _summarise_switches(m: ModelSamples, graphs: Graphs) -> list[Any]:
    """[episodes classed, count per class of SWITCH_CLASSES then "unknown"]."""
    counts = {c: 0 for c in (*SWITCH_CLASSES, "unknown")}
    episodes = 0
    for s in m.samples:
        found = classify_switches(s, graphs)
        if found is None or not _trace(s):
            continue
        episodes += 1
        for c in found:
            counts[c] += 1
    return [episodes, [counts[c] for c in (*SWITCH_CLASSES, "unknown")]]


def view_switches(models: Sequence[ModelSummary], span: Mapping[str, Any]) -> list[Figure]:
    rows, series = [], []
    total = span["switches"]
    for m in models:
        episodes, found = m.summary["switches"]
        counts = dict(zip((*SWITCH_CLASSES, "unknown"), found))
        switches = sum(counts[c] for c in SWITCH_CLASSES)
        shares = [share(counts[c], switches) for c in SWITCH_CLASSES]
        rows.append((m.label, episodes, switches, *(counts[c] for c in SWITCH_CLASSES), counts["unknown"], *shares))
        series.append(Series(m.label, shares))
    return [Figure(
        "view-switches", "View switches as the paper (App. B): NP, NN and PN",
        "Each Switch_view that changed the view, classed as the paper (App. B) by whether the view left and the "
        "view reached show the current goal's target component (the component the optimal plan from there acts "
        "on next): N (negative) does not, P (positive) does. NP is successful navigation; NN (ineffective view "
        "searching) and PN (losing the target component) are Visual Navigation Errors; PP (shown in both, which "
        "the paper does not name) is reported too. Shares are of the classed switches; switches whose target "
        "cannot be determined (the goal unreachable or reached without a component) are counted apart.",
        _n_text(span["entries"], total),
        ("model", "episodes", "switches", *SWITCH_CLASSES, "target_unknown",
         *(f"{c}_share" for c in SWITCH_CLASSES)), rows,
        Chart("bars", list(SWITCH_CLASSES), series, "share of switches (%)", 100.0), total)]


ROBUSTNESS_KINDS = ("blur", "jpeg", "occlude")  # perturb.KINDS, in the figure's order


def _setting_order(setting: str) -> tuple[int, float, str]:
    """none first, then blur, JPEG and occlusion, each by level (JPEG by falling quality: harsher later)."""
    kind, _, level = setting.partition(":")
    try:
        value = float(level)
    except ValueError:
        value = 0.0
    rank = ROBUSTNESS_KINDS.index(kind) + 1 if kind in ROBUSTNESS_KINDS else len(ROBUSTNESS_KINDS) + 1
    return (0 if not setting else rank, -value if kind == "jpeg" else value, setting)


def _delta(value: float | None, clean: float | None) -> float | None:
    return round(value - clean, 2) if value is not None and clean is not None else None


def _compared(context: AnalysisContext, option: str, order: Any = None) -> dict[str, Any]:
    """Of the models whose kept runs were played with another value of `option` than its default: the other values
    played (sorted by `order`), the models' number and their episodes at those values and the default."""
    by_model = pooled_by_option(context, option)
    default = OPTION_DEFAULTS[option]
    others = sorted({v for values in by_model.values() for v in values if v != default}, key=order)
    compared = [values for values in by_model.values() if set(values) != {default}]
    return {"others": others, "models": len(compared),
            "episodes": sum(int(values[v][0]) for values in compared for v in (default, *others) if v in values)}


def robustness(context: AnalysisContext, span: Mapping[str, Any]) -> list[Figure]:
    by_model = pooled_by_option(context, PERTURBATION_OPTION)  # per model, per setting ("" none)
    series: list[Series] = []
    rows = []
    compared = span["options"][PERTURBATION_OPTION]
    total, models_shown, settings_shown = compared["episodes"], compared["models"], compared["others"]
    for label, settings in by_model.items():
        if not any(settings_key for settings_key in settings) or not context.keeps(label):
            continue  # no perturbed run (nothing to compare), or another page's entry
        clean_sr, clean_ssr = _sr_ssr(settings.get(""))
        srs, ssrs = [], []
        for p in ("", *settings_shown):
            n = int(settings.get(p, (0,))[0])
            sr, ssr = _sr_ssr(settings.get(p))
            if p in settings:
                kind, _, level = p.partition(":")
                rows.append((label, kind or "none", level or None, n, sr, ssr, _delta(sr, clean_sr),
                             _delta(ssr, clean_ssr)))
            srs.append(sr)
            ssrs.append(ssr)
        series.extend((Series(f"{label} · SR", srs), Series(f"{label} · SSR", ssrs)))  # " · ": paged with its entry
    return [Figure(
        "robustness", "SR and SSR with and without image perturbations (E.2)",
        "As the paper (E.2): agent API episodes played with Gaussian blur (blur:σ; the paper goes to σ 5.0), JPEG "
        "compression (jpeg:q) or occlusion by eight black patches covering 10 %, 25 % or 40 % of the image "
        "(occlude:share) on every served view, bundled as their own submission, against the same model's "
        "unperturbed submissions on this split. Per perturbation and level: SR pooled over the episodes, SSR "
        "(sub-goal success rate, each episode's share of its goals reached) averaged over them, and each one's "
        "difference from the unperturbed value. Every public scored upload of the models the board's filters keep "
        "counts, not only each model's best entry.",
        f"{models_shown} models, {total} episodes in all",
        ("model", "perturbation", "level", "episodes", "SR", "SSR", "delta_SR", "delta_SSR"),
        rows, Chart("bars", ["none", *settings_shown], series, "SR / SSR (%)", 100.0), total)]


def _history_order(value: str) -> tuple[int, int]:
    return (1, 0) if value == HISTORY_FULL else (0, int(value)) if value.isdigit() else (2, 0)


def option_comparison(context: AnalysisContext, span: Mapping[str, Any], option: str, *, key: str, title: str,
                      note: str) -> list[Figure]:
    """SR and SSR per value of an episode option per model, beside its default; no figure unless some kept run was
    played with another value."""
    by_model = pooled_by_option(context, option)
    default = OPTION_DEFAULTS[option]
    compared = span["options"][option]
    others, models_shown, total = compared["others"], compared["models"], compared["episodes"]
    if not others:
        return []
    rows: list[tuple[Any, ...]] = []
    series: list[Series] = []
    for label, values in by_model.items():
        if set(values) == {default} or not context.keeps(label):
            continue  # only the default (nothing to compare), or another page's entry
        base_sr, base_ssr = _sr_ssr(values.get(default))
        srs, ssrs = [], []
        for value in (default, *others):
            sr, ssr = _sr_ssr(values.get(value))
            if value in values:
                n = int(values[value][0])
                rows.append((label, value, n, sr, ssr, _delta(sr, base_sr), _delta(ssr, base_ssr)))
            srs.append(sr)
            ssrs.append(ssr)
        series.extend((Series(f"{label} · SR", srs), Series(f"{label} · SSR", ssrs)))  # " · ": paged with its entry
    return [Figure(key, title, note, f"{models_shown} models, {total} episodes in all",
                   ("model", option, "episodes", "SR", "SSR", "delta_SR", "delta_SSR"), rows,
                   Chart("bars", [default, *others], series, "SR / SSR (%)", 100.0), total)]


def history_length(context: AnalysisContext, span: Mapping[str, Any]) -> list[Figure]:
    return option_comparison(
        context, span, HISTORY_OPTION, key="history",
        title="SR and SSR against the history shown to the agent (App. C)",
        note="Agent API episodes played with the episode option history (the number of past turns the episode's "
             "trace shows the agent while it runs: 0, 3, ... or full), each bundled as its own submission, against "
             "the same model's submissions with the full history (the default). SR pooled over the episodes, SSR "
             "averaged over them, and each one's difference from the full-history value. Every public scored upload "
             "of the models the board's filters keep counts, played with the other options at their defaults.")


def instruction_robustness(context: AnalysisContext, span: Mapping[str, Any]) -> list[Figure]:
    return option_comparison(
        context, span, INSTRUCTION_OPTION, key="instruction",
        title="SR and SSR with the goals worded another way (E.2)",
        note="Agent API episodes played with the episode option instruction = rephrased (every goal worded in a "
             "second style, the same for every episode of a task: core/rephrase.py), each bundled as its own "
             "submission, against the same model's submissions with the task's own wording. SR pooled over the "
             "episodes, SSR averaged over them, and each one's difference from the original wording.")


def summarise(m: ModelSamples, extra: Mapping[str, Any]) -> dict[str, Any]:
    """One submission's sufficient statistics for every figure (docs/analyses.md, "Summaries"). `extra`: the
    device graphs (`graphs`: the error taxonomy and view switches; absent, their episodes are not classed) and the
    tasks the split's human entries played (`human_keys`)."""
    graphs: Graphs = extra.get("graphs") or {}
    return {"n": len(_episodes(m)), **_summarise_breakdowns(m), **_summarise_budget(m),
            "runs": _summarise_runs(m), "errors": _summarise_errors(m, graphs),
            "switches": _summarise_switches(m, graphs),
            "keys": _summarise_keys(m, extra.get("human_keys"))}


# The episode options the figures compare a model's runs over, each with the order of its values.
COMPARED_OPTIONS = ((PERTURBATION_OPTION, _setting_order), (HISTORY_OPTION, _history_order), (INSTRUCTION_OPTION, None))


def vge_span(models: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext()) -> dict[str, Any]:
    """What the figures read of every entry: their number and episodes, the union of their device categories, the
    episodes each figure counts, the tasks humans played, and per compared option its values and models."""
    keys = _human_keys(models)
    wanted = set(keys)
    return {"entries": len(models), "n": sum(m.summary["n"] for m in models),
            "categories": sorted({cell[0] for m in models for cell in m.summary["categories"]}),
            "budget": _budget_episodes(models, context),
            "errors": sum(m.summary["errors"][0] for m in models),
            "switches": sum(m.summary["switches"][0] for m in models),
            "human_keys": keys,
            "human_episodes": sum(cell[0] for m in models for cell in _on_human_tasks(m, wanted)),
            "options": {option: _compared(context, option, order) for option, order in COMPARED_OPTIONS}}


def combine(models: Sequence[ModelSummary], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    """The figures of these entries; per entry, only the rows and series of the entries `context` keeps (a page of
    the tab), every N and aggregate over all entries (`context.span`, else these entries')."""
    # The kept runs read once for the four figures that read them (each upload of the split is a run: 2,000 at 100x).
    context = replace(context, extra={**context.extra, "runs": kept_runs(context)})
    over_all = context.span if context.span is not None else vge_span(models, context)
    kept = [m for m in models if context.keeps(m.label)]
    return [*breakdowns(kept, over_all), *budget_sensitivity(models, context, over_all),
            *error_taxonomy(kept, over_all), *view_switches(kept, over_all), *human_vs_model(kept, over_all),
            *robustness(context, over_all), *history_length(context, over_all),
            *instruction_robustness(context, over_all)]


SUMMARIES = AnalysisSummaries(version="vge-1", summarise=summarise, combine=combine, span=vge_span)


def figures(models: Sequence[ModelSamples], context: AnalysisContext = AnalysisContext()) -> list[Figure]:
    """The figures of these entries: each summarised (with the tasks the human entries among them played), then
    combined."""
    human_keys = sorted({s.key for m in models if m.kind == "human" for s in m.samples})
    return combine(summarise_all(SUMMARIES, models, {**context.extra, "human_keys": human_keys}), context)
