"""The human baseline set: a deterministic stratified pick of tasks, by device category and single/multi-goal.

Rules: within each stratum tasks are ordered by sha256(seed:task id) (stable across machines and
Python versions, unlike hash()), the first `per_stratum` are kept; the result is interleaved round by
round over the strata in name order, so a player who stops early has still seen many strata.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Candidate:
    task_id: str
    category: str
    goals: int

    @property
    def stratum(self) -> tuple[str, str]:
        return self.category, "multi-goal" if self.goals > 1 else "single-goal"


def _order_key(seed: int, task_id: str) -> str:
    return hashlib.sha256(f"{seed}:{task_id}".encode()).hexdigest()


def stratified_pick(candidates: Iterable[Candidate], *, per_stratum: int, seed: int) -> list[str]:
    """Task ids of the baseline set, in play order."""
    if per_stratum < 1:
        raise ValueError("per_stratum must be at least 1")
    strata: dict[tuple[str, str], list[Candidate]] = {}
    for c in candidates:
        strata.setdefault(c.stratum, []).append(c)
    picked = {
        key: sorted(items, key=lambda c: (_order_key(seed, c.task_id), c.task_id))[:per_stratum]
        for key, items in strata.items()
    }
    order: list[str] = []
    for round_ in range(per_stratum):
        for key in sorted(picked):
            if round_ < len(picked[key]):
                order.append(picked[key][round_].task_id)
    return order
