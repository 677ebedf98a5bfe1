"""Accuracy columns of a PLAN-Bench submission: overall, 3 dimensions, 16 subtasks, single choice vs open.

A column is final when none of its items is undecided; until then its value is None and `ranges` gives the
provisional [all undecided wrong, all undecided right] in percent. Intervals are 95% bootstrap percentiles
(scoring.core.stats, fixed seed, stratified by dimension), computed only for a final submission.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION
from scoring.benchmarks.plan.core.rules import RULE_VERSION
from scoring.benchmarks.plan.core.types import DIMENSION_KEYS, SUBTASKS, ItemType
from scoring.core.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_mean_intervals

COLUMNS: tuple[str, ...] = ("overall", *DIMENSION_KEYS.values(), *SUBTASKS, "single_choice", "open")


@dataclass(frozen=True)
class Row:
    dimension: str  # full name, "Spatial Cognition"
    subtask: str  # code, "OO"
    type: ItemType
    correct: bool | None


@dataclass(frozen=True)
class Summary:
    total: int
    correct: int
    undecided: int
    breakdown: dict[str, float | None]  # column -> percent; None while the column has undecided items
    ranges: dict[str, tuple[float, float]]  # column -> [low, high] percent
    counts: dict[str, int]  # column -> number of items
    intervals: dict[str, tuple[float, float]]

    @property
    def final(self) -> bool:
        return self.undecided == 0

    @property
    def overall(self) -> float | None:
        return self.breakdown.get("overall")


def _members(rows: Sequence[Row]) -> dict[str, list[bool]]:
    columns: dict[str, list[bool]] = {}
    for key in COLUMNS:
        columns[key] = [
            key == "overall"
            or DIMENSION_KEYS[r.dimension] == key
            or r.subtask == key
            or r.type.value == key
            for r in rows
        ]
    return columns


def chance_breakdown(rows: Sequence[Row], options: Sequence[int]) -> dict[str, float | None]:
    """What a uniform guesser scores in expectation, per column, averaged over the column's items as `summarise`
    averages verdicts: a single-choice item with k options counts 1/k (0 when it has none), an open item 0 (the
    paper's Table 1 "Random baseline": 25% single choice / 0% open). None for a column without items."""
    chances = [1.0 / k if r.type is ItemType.SINGLE_CHOICE and k > 0 else 0.0 for r, k in zip(rows, options)]
    out: dict[str, float | None] = {}
    for key, mask in _members(rows).items():
        chosen = [c for c, m in zip(chances, mask) if m]
        out[key] = round(100.0 * sum(chosen) / len(chosen), 4) if chosen else None
    return out


def summarise(
    rows: Sequence[Row], *, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES, intervals: bool = True
) -> Summary:
    members = _members(rows)
    breakdown: dict[str, float | None] = {}
    ranges: dict[str, tuple[float, float]] = {}
    counts: dict[str, int] = {}
    for key, mask in members.items():
        chosen = [r for r, m in zip(rows, mask) if m]
        counts[key] = len(chosen)
        if not chosen:
            breakdown[key] = None
            continue
        right = sum(1 for r in chosen if r.correct is True)
        open_ = sum(1 for r in chosen if r.correct is None)
        low, high = 100.0 * right / len(chosen), 100.0 * (right + open_) / len(chosen)
        ranges[key] = (round(low, 4), round(high, 4))
        breakdown[key] = round(low, 4) if open_ == 0 else None
    undecided = sum(1 for r in rows if r.correct is None)
    cis: dict[str, tuple[float, float]] = {}
    if intervals and rows and undecided == 0:
        raw = bootstrap_mean_intervals(
            [1.0 if r.correct else 0.0 for r in rows],
            {k: m for k, m in members.items() if any(m)},
            strata=[r.dimension for r in rows],
            resamples=resamples,
            seed=seed,
            scale=100.0,
        )
        cis = {k: (round(lo, 4), round(hi, 4)) for k, (lo, hi) in raw.items()}
    return Summary(
        total=len(rows),
        correct=sum(1 for r in rows if r.correct is True),
        undecided=undecided,
        breakdown=breakdown,
        ranges=ranges,
        counts=counts,
        intervals=cis,
    )


def score_fields(summary: Summary, *, judge: str = "", prompt_version: str = PROMPT_VERSION) -> dict[str, Any]:
    """Score row fields from a summary; the scorer and the recompute after a human decision both use this."""
    details: dict[str, Any] = {
        "final": summary.final,
        "undecided": summary.undecided,
        "range": {k: list(v) for k, v in summary.ranges.items()},
        "counts": summary.counts,
        "items": summary.total,
        "correct": summary.correct,
        "prompt_version": prompt_version,
        "rule_version": RULE_VERSION,
        "status_text": "final" if summary.final else f"awaiting judgement ({summary.undecided} items)",
    }
    if judge:
        details["judge"] = judge
    return {
        "overall": summary.overall,
        "breakdown": dict(summary.breakdown),
        "intervals": {k: list(v) for k, v in summary.intervals.items()},
        "details": details,
    }
