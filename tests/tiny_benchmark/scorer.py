"""Tiny-Bench on the site: the worker's entry point."""
from __future__ import annotations

from scoring.core.contract import ScorerInput, ScoringResult
from tests.tiny_benchmark.core.scoring import read_answers
from tests.tiny_benchmark.core.scoring import score as score_answers


def score(inp: ScorerInput) -> ScoringResult:
    return score_answers(inp.samples, read_answers(inp.file_path))
