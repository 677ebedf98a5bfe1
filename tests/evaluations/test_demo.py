"""make_demo_hub_runs: one hub-run row per benchmark, VGE through the agent API served by the command itself."""
from __future__ import annotations

import pytest

from evaluations.demo import demo_hub_runs
from scoring.models import Submission
from tests.scoring.bench_splits import plan_split, vge_split

pytestmark = pytest.mark.django_db(transaction=True)


def test_one_scored_hub_run_row_per_benchmark_and_idempotent() -> None:
    plan_split()
    vge_split()
    runs = demo_hub_runs(write=lambda line: None)
    assert sorted(r.split.benchmark.scorer for r in runs) == ["plan-bench", "vge-bench"]
    rows = Submission.objects.filter(source=Submission.Source.HUB_RUN)
    assert rows.count() == 2 and all(s.status == Submission.Status.SCORED for s in rows)
    assert [r.pk for r in demo_hub_runs(write=lambda line: None)] == [r.pk for r in runs]
    assert Submission.objects.filter(source=Submission.Source.HUB_RUN).count() == 2
