"""VGEBench metrics from an episode's outcomes: per-episode values and the macro / pooled summary.

Per-turn metrics look at the state, view and current goal before the turn's action. SR, SSR, SPL, State-F1,
EIR, TIR, VSPS and EER are macro means over the episodes where they are defined; GVPE, PSR, Avg Dist and
Avg W-Dist are pooled over all turns of all episodes. Rates are 0-100, VSPS and GVPE ratios.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from scoring.benchmarks.vge.core.engine import (
    NO_EFFECT,
    PHYSICAL,
    SUCCESS,
    SWITCH,
    UNLOCKED,
    WAIT,
    WRONG_OPERATION,
    Engine,
    StepOutcome,
)
from scoring.benchmarks.vge.core.graphs import INF, box_contains, box_distance
from scoring.benchmarks.vge.core.task_defs import Task
from scoring.core import stats

METRICS = ("SR", "SSR", "SPL", "State-F1", "EIR", "TIR", "VSPS", "GVPE", "EER", "PSR", "AvgDist", "AvgWDist")
EPISODE_METRICS = ("SR", "SSR", "SPL", "State-F1", "EIR", "TIR", "VSPS", "EER")
MACRO = ("SR", "SSR", "SPL", "State-F1", "EIR", "TIR", "VSPS", "EER")
# pooled metric -> (numerator field, denominator field, scale)
POOLED = {
    "GVPE": ("switch_turns", "goals_reached", 1.0),
    "PSR": ("psr_hits", "goals_reached", 100.0),
    "AvgDist": ("dist_sum", "dist_count", 1.0),
    "AvgWDist": ("wdist_sum", "wdist_weight", 1.0),
}
FAILED_PHYSICAL = (WRONG_OPERATION, NO_EFFECT, UNLOCKED)
# resample_indices(n, *, strata, resamples, seed) -> (resamples, n) unit indices, as in scoring.core.stats.
Resampler = Callable[..., np.ndarray]


@dataclass(frozen=True)
class EpisodeMetrics:
    task: str
    category: str
    success: bool
    goals_reached: int
    goals_total: int
    turns: int
    l_opt: float
    values: dict[str, float | None]  # the per-episode metrics (EPISODE_METRICS)
    switch_turns: int = 0
    psr_hits: int = 0
    dist_sum: float = 0.0
    dist_count: int = 0
    wdist_sum: float = 0.0
    wdist_weight: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)


class _Targets:
    """Per (state, goal) caches: components that help (TIR) and one-step target components (Avg Dist)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.graphs = engine.graphs
        self._helpful: dict[tuple[str, str], frozenset[str]] = {}
        self._targets: dict[tuple[str, str], frozenset[str]] = {}

    def helpful(self, state: str, goal: str) -> frozenset[str]:
        key = (state, goal)
        if key not in self._helpful:
            here = self.graphs.state_distance(state, goal)
            out = set()
            for trigger, transitions in self.engine.device.states[state].on.items():
                if trigger not in self.engine.device.components:
                    continue
                if any(self.graphs.state_distance(self.graphs.chain[t.next_state][0], goal) < here for t in transitions):
                    out.add(trigger)
            self._helpful[key] = frozenset(out)
        return self._helpful[key]

    def targets(self, state: str, goal: str) -> frozenset[str]:
        key = (state, goal)
        if key not in self._targets:
            here = self.graphs.state_distance(state, goal)
            out = set()
            if here != INF:
                for trigger, transitions in self.engine.device.states[state].on.items():
                    if trigger not in self.engine.device.components:
                        continue
                    if any(self.graphs.state_distance(t.next_state, goal) == here - 1 for t in transitions):
                        out.add(trigger)
            self._targets[key] = frozenset(out)
        return self._targets[key]


def _targets_for(engine: Engine) -> _Targets:
    cached = getattr(engine, "_metric_targets", None)
    if cached is None:
        cached = _Targets(engine)
        engine._metric_targets = cached  # type: ignore[attr-defined]
    return cached


def canonical_states(engine: Engine, task: Task) -> set[str]:
    """G of State-F1: the start's chain plus the canonical shortest paths start -> goal 1 -> goal 2 ..."""
    graphs = engine.graphs
    states = set(engine.start_entered(task))
    current = graphs.chain[task.start_state][0]
    for goal in task.goals:
        path = graphs.canonical_path(current, goal)
        if path:
            states.update(path)
        current = goal
    return states


def _pct(num: float, den: float) -> float | None:
    return 100.0 * num / den if den else None


def episode_metrics(engine: Engine, task: Task, outcomes: Sequence[StepOutcome]) -> EpisodeMetrics:
    device = engine.device
    targets = _targets_for(engine)
    view_boxes = engine.graphs.view_boxes
    physical = in_box = useful = switch_turns = operations = effective = psr_hits = 0
    dist_sum = wdist_sum = wdist_weight = 0.0
    dist_count = 0
    failed_since = 0
    goals_reached = 0
    visited = set(engine.start_entered(task))
    for o in outcomes:
        visited.update(o.entered)
        goal = task.goals[o.goal_index_before] if o.goal_index_before < len(task.goals) else None
        if o.turn_class == SWITCH:
            switch_turns += 1
        else:
            operations += 1
            if (
                o.kind == SUCCESS
                and o.state_after != o.state_before
                and not any(device.states[s].error for s in o.entered)
            ):
                effective += 1
        if o.turn_class == PHYSICAL and o.action is not None and o.action.coord is not None:
            physical += 1
            x, y = o.action.coord
            boxes = view_boxes[o.view_before]
            if any(box_contains(box, x, y) for _, box in boxes):
                in_box += 1
            if goal is not None:
                helpful = targets.helpful(o.state_before, goal)
                if helpful and any(c in helpful and box_contains(box, x, y) for c, box in boxes):
                    useful += 1
                aim = targets.targets(o.state_before, goal)
                aim_boxes = [box for c, box in boxes if c in aim]
                if aim_boxes:
                    d = min(box_distance(box, x, y) for box in aim_boxes)
                    w = 1 + failed_since
                    dist_sum += d
                    dist_count += 1
                    wdist_sum += w * d
                    wdist_weight += w
        # W-Dist weights: failed physical turns since the last physical / Timed_wait success or goal change.
        if o.kind == SUCCESS and o.turn_class in (PHYSICAL, WAIT):
            failed_since = 0
        elif o.turn_class == PHYSICAL and o.kind in FAILED_PHYSICAL:
            failed_since += 1
        if o.goal_reached is not None:
            goals_reached += 1
            failed_since = 0
            if o.goal_turns == o.goal_c_opt:
                psr_hits += 1
    turns = len(outcomes)
    success = goals_reached == len(task.goals)
    start = (engine.graphs.chain[task.start_state][0], task.start_view, False)
    l_opt = engine.graphs.l_opt(start, task.goals)
    canonical = canonical_states(engine, task)
    overlap = len(visited & canonical)
    f1 = 200.0 * overlap / (len(visited) + len(canonical))
    values: dict[str, float | None] = {
        "SR": 100.0 if success else 0.0,
        "SSR": 100.0 * goals_reached / len(task.goals),
        "SPL": (100.0 * l_opt / max(turns, l_opt)) if success else 0.0,
        "State-F1": f1,
        "EIR": _pct(in_box, physical),
        "TIR": _pct(useful, physical),
        "VSPS": switch_turns / goals_reached if goals_reached else None,
        "EER": _pct(effective, operations),
    }
    return EpisodeMetrics(
        task=task.id,
        category=device.category,
        success=success,
        goals_reached=goals_reached,
        goals_total=len(task.goals),
        turns=turns,
        l_opt=l_opt,
        values=values,
        switch_turns=switch_turns,
        psr_hits=psr_hits,
        dist_sum=dist_sum,
        dist_count=dist_count,
        wdist_sum=wdist_sum,
        wdist_weight=wdist_weight,
        counts={"physical": physical, "in_box": in_box, "useful": useful, "operations": operations,
                "effective": effective},
    )


def summarise(episodes: Sequence[EpisodeMetrics]) -> dict[str, float | None]:
    """The twelve metrics over episodes: macro means where defined, pooled ratios."""
    out: dict[str, float | None] = {}
    for name in MACRO:
        values = [v for e in episodes if (v := e.values[name]) is not None]
        out[name] = float(sum(values) / len(values)) if values else None
    for name, (num, den, scale) in POOLED.items():
        n = sum(getattr(e, num) for e in episodes)
        d = sum(getattr(e, den) for e in episodes)
        out[name] = float(scale * n / d) if d else None
    return {name: out[name] for name in METRICS}


def bootstrap_intervals(
    episodes: Sequence[EpisodeMetrics],
    *,
    resample_indices: Resampler = stats.resample_indices,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of all twelve metrics, resampling episodes within categories.

    The bootstrap is the project's one (scoring.core.stats): stratified, seeded resampling of episode indices,
    then each metric as a ratio of resampled per-episode sums. `resample_indices` may still be passed in, as the
    scorer and the site do; it defaults to the stratified resampler of scoring.core.stats.
    """
    if not episodes:
        return {}
    indices = resample_indices(len(episodes), strata=[e.category for e in episodes], resamples=resamples, seed=seed)
    return stats.ratio_intervals(indices, metric_ratios(episodes), level=level)


def metric_ratios(episodes: Sequence[EpisodeMetrics]) -> dict[str, stats.Ratio]:
    """Each of the twelve metrics as per-episode (numerator, denominator, scale), in METRICS order.

    A macro metric is the mean over the episodes where it is defined (numerator value, denominator 1; 0 and 0
    where undefined); a pooled one sums its two fields over episodes, as `summarise` does.
    """
    ratios: dict[str, stats.Ratio] = {}
    for name in METRICS:
        if name in POOLED:
            num, den, scale = POOLED[name]
            ratios[name] = (
                np.array([getattr(e, num) for e in episodes], dtype=np.float64),
                np.array([getattr(e, den) for e in episodes], dtype=np.float64),
                scale,
            )
        else:
            mask = np.array([e.values[name] is not None for e in episodes], dtype=np.float64)
            vals = np.array([e.values[name] or 0.0 for e in episodes], dtype=np.float64)
            # mask * vals, not the values themselves: the same floats as ever, so re-scores keep their intervals.
            ratios[name] = (mask * vals, mask, 1.0)
    return ratios
