"""Migration scoring/0011_phases: each split's former daily quota becomes a phase of its own, so its uploads keep
their limit; going back puts the phase's daily quota on the split again."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("scoring", "0010_submission_row_types")]
AFTER = [("scoring", "0011_phases")]


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_a_splits_daily_quota_becomes_its_phases():
    old = _migrate(BEFORE)
    Benchmark, Split = old.get_model("scoring", "Benchmark"), old.get_model("scoring", "Split")
    bench = Benchmark.objects.create(slug="mig-bench", name="Mig", scorer="dummy")
    limited = Split.objects.create(benchmark=bench, name="test", daily_quota=7)
    Split.objects.create(benchmark=bench, name="test-2", daily_quota=2)
    free = Split.objects.create(benchmark=bench, name="dev", daily_quota=None)
    try:
        new = _migrate(AFTER)
        Split = new.get_model("scoring", "Split")
        phase = Split.objects.get(pk=limited.pk).phase
        assert (phase.name, phase.slug, phase.daily_quota, phase.total_quota) == ("Test", "test", 7, None)
        assert phase.opens_at == limited.created_at and phase.closes_at is None
        assert Split.objects.get(name="test-2", benchmark_id=bench.pk).phase.daily_quota == 2
        assert Split.objects.get(pk=free.pk).phase is None
        # the paper test splits of the three benchmarks keep their 5 a day
        papers = Split.objects.filter(name="test").exclude(benchmark_id=bench.pk)
        assert papers.exists() and all(s.phase.daily_quota == 5 for s in papers)
        # and back
        old = _migrate(BEFORE)
        assert old.get_model("scoring", "Split").objects.get(pk=limited.pk).daily_quota == 7
    finally:  # every app back at its newest migration, for the tests that follow in this process
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
