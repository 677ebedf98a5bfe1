"""Tiny-Bench, the fourth benchmark the test suite adds the way docs/adding-a-benchmark.md says."""
from __future__ import annotations

from scoring.core.columns import BoardSpec, Column
from scoring.core.plugin import BenchmarkPlugin
from tests.tiny_benchmark.core.scoring import KINDS

SLUG = "tiny-bench"

PLUGIN = BenchmarkPlugin(
    slug=SLUG,
    title="Tiny-Bench",
    scorer="tests.tiny_benchmark.scorer:score",
    scorer_version="tests.tiny_benchmark.core.scoring:VERSION",
    board=BoardSpec(SLUG, (Column("overall", "Overall"), *(Column(k, k.title(), f"{k} questions") for k in KINDS))),
    cli="tests.tiny_benchmark.core.cli",
    cli_help="Tiny-Bench: one-word answers",
)
