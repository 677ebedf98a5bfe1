"""Which scorer scores which benchmark.

A scorer is a function `score(ScorerInput) -> ScoringResult` (see `scoring.core.contract`). Benchmarks name
their scorer; a benchmark whose scorer is not registered yet fails its submissions with a clear message.
"""
from __future__ import annotations

import importlib
from typing import Callable

from django.conf import settings

from scoring.core.contract import ScorerInput, ScoringResult

Scorer = Callable[[ScorerInput], ScoringResult]

REGISTRY: dict[str, str] = {
    "epic-bench": "scoring.benchmarks.epic.scorer:score",
    "plan-bench": "scoring.benchmarks.plan.scorer:score",
    "vge-bench": "scoring.benchmarks.vge.scorer:score",
}


class NoScorer(LookupError):
    pass


def _registered() -> dict[str, str]:
    entries = dict(REGISTRY)
    for item in filter(None, (part.strip() for part in settings.EXTRA_SCORERS.split(","))):
        name, _, target = item.partition("=")
        entries[name.strip()] = target.strip()
    return entries


def get_scorer(name: str) -> Scorer:
    target = _registered().get(name)
    if target is None:
        raise NoScorer(f"No scorer for this benchmark yet ('{name}'): the submission was stored but cannot be scored.")
    module_name, _, function_name = target.partition(":")
    return getattr(importlib.import_module(module_name), function_name)
