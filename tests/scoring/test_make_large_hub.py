"""make_large_hub's per-sample rows, written inside the database (issue 34): the same rows on SQLite and PostgreSQL,
drawn by the documented hash, copying the demo's scored row of each sample."""
import io
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from scoring.management.commands.make_large_hub import HASH_MODULUS
from scoring.models import Benchmark, SampleScore, Score, Split, Submission
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db


def _draw(index: int, model: int, seed: int) -> int:
    """The hash the command computes in SQL, here in Python."""
    a = (48271 * index + (69621 * model + 16807 * seed + 1) % HASH_MODULUS) % HASH_MODULUS
    b = (a * a + index) % HASH_MODULUS
    return b * b % HASH_MODULUS


@pytest.fixture
def demo_plan():
    """A PLAN demo split of three samples and one scored upload with a row per sample."""
    split = SplitFactory(benchmark=Benchmark.objects.get(slug="plan-bench"), name="demo", is_default=False)
    samples = [SampleFactory(split=split, key=f"q{i}", position=i, task=f"task-{i % 2}") for i in range(3)]
    sub = Submission.objects.create(model_entry=ModelEntryFactory(), split=split, status=Submission.Status.SCORED,
                                    scorer_version="plan-1")
    Score.objects.create(submission=sub, overall=50.0, breakdown={"overall": 50.0},
                         intervals={"overall": [40.0, 60.0]}, scorer_version="plan-1")
    outcomes = ["ok", "unparsed", "ok"]
    for i, sample in enumerate(samples):
        SampleScore.objects.create(submission=sub, sample=sample, index=i, key=sample.key, task=sample.task,
                                   score=1.0 if outcomes[i] == "ok" else 0.0, outcome=outcomes[i],
                                   components={"part": i}, details={"type": "open", "judge": {"n": i}})
    return split


def test_rows_are_the_demo_rows_with_outcomes_drawn_by_the_hash(demo_plan):
    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], seed=34, stdout=open("/dev/null", "w"))

    split = Split.objects.get(benchmark__slug="plan-bench", name="scale")
    samples = list(split.samples.order_by("position").values_list("pk", "key"))
    assert [k for _, k in samples] == ["q0", "q1", "q2", "q0~1", "q1~1", "q2~1", "q0~2"]
    subs = list(Submission.objects.filter(split=split).order_by("pk"))
    assert len(subs) == 20
    rates = set()
    for model, sub in enumerate(subs):
        rows = list(SampleScore.objects.filter(submission=sub).order_by("index"))
        assert [(r.index, r.sample_id, r.key) for r in rows] == [(i, pk, k) for i, (pk, k) in enumerate(samples)]
        # the demo's row of the sample, by its key before "~"
        assert [r.components for r in rows] == [{"part": i % 3} for i in range(7)]
        assert [r.details for r in rows] == [{"type": "open", "judge": {"n": i % 3}} for i in range(7)]
        assert [r.task for r in rows] == [f"task-{(i % 3) % 2}" for i in range(7)]
        hits = [r.score == 1.0 for r in rows]
        assert [r.outcome for r in rows] == ["ok" if hit else ("unparsed" if i % 3 == 1 else "wrong")
                                             for i, hit in enumerate(hits)]
        # the draw: a hit where the hash of (index, model, seed) falls below the model's rate, alike on both databases
        draws = [_draw(i, model, 34) for i in range(7)]
        assert all(not hit for hit, d in zip(hits, draws) if d >= 0.95 * HASH_MODULUS)
        assert all(hit for hit, d in zip(hits, draws) if d < 0.05 * HASH_MODULUS)
        below = sorted(d for d, hit in zip(draws, hits) if hit)
        above = sorted(d for d, hit in zip(draws, hits) if not hit)
        assert not below or not above or below[-1] < above[0]  # one threshold separates hits from misses
        rates.add(sum(hits))
    assert len(rates) > 1  # models differ in skill


def test_the_same_seed_makes_the_same_rows(demo_plan, django_db_blocker):
    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], seed=34, stdout=open("/dev/null", "w"))
    first = list(SampleScore.objects.filter(submission__split__name="scale").order_by("submission_id", "index")
                 .values_list("score", "outcome"))
    SampleScore.objects.filter(submission__split__name="scale").delete()
    Submission.objects.filter(split__name="scale").delete()
    Split.objects.filter(name="scale").delete()
    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], seed=34, stdout=open("/dev/null", "w"))
    again = list(SampleScore.objects.filter(submission__split__name="scale").order_by("submission_id", "index")
                 .values_list("score", "outcome"))
    assert again == first and len(first) == 140


def test_the_table_keeps_its_indexes_and_constraints(demo_plan):
    """On PostgreSQL the per-sample table's secondary indexes and foreign keys are dropped for the load and made again:
    afterwards the table is as its migrations made it (and the rows pass its foreign keys and unique constraint)."""
    table = SampleScore._meta.db_table

    def schema() -> dict:
        with connection.cursor() as cursor:
            return connection.introspection.get_constraints(cursor, table)

    before = schema()
    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], seed=34, stdout=open("/dev/null", "w"))
    assert schema() == before
    assert SampleScore.objects.filter(submission__split__name="scale").count() == 140


def test_each_scored_submission_has_its_analysis_summary_as_the_worker_would_write(demo_plan):
    """The worker writes a score's Analysis summary when it lands; the generator bypasses the worker, so it makes them
    itself (before, the first Analysis request of each benchmark made them all: minutes at 10x, past the speed
    script's read timeout for VGE)."""
    from leaderboard.models import AnalysisSummary

    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], seed=34, stdout=open("/dev/null", "w"))

    scored = set(Submission.objects.filter(split__name="scale", status=Submission.Status.SCORED)
                 .values_list("pk", flat=True))
    assert len(scored) == 20
    assert scored <= set(AnalysisSummary.objects.values_list("submission_id", flat=True))


def test_a_benchmark_may_get_fewer_entries_and_no_summaries_for_a_disk_that_cannot_hold_them(demo_plan):
    """--entries SLUG=N caps a benchmark's entries below 20 x scale (the 100x hub on a 75 GB disk gives VGE 1,800);
    --no-summaries SLUG leaves its Analysis summaries for the tab to make (VGE's take ~4 s each on this machine)."""

    from leaderboard.models import AnalysisSummary

    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], entries=["plan-bench=6"],
                 no_summaries=["plan-bench"], seed=34, stdout=open("/dev/null", "w"))

    subs = Submission.objects.filter(split__name="scale", split__benchmark__slug="plan-bench")
    assert subs.count() == 6 and SampleScore.objects.filter(submission__in=subs).count() == 6 * 7
    assert not AnalysisSummary.objects.filter(submission__in=subs).exists()
    with pytest.raises(CommandError, match="--entries 'plan-bench': expected SLUG=N"):
        call_command("make_large_hub", scale=1, entries=["plan-bench"], stdout=open("/dev/null", "w"))


def test_another_generator_may_be_left_out(demo_plan):
    """--without make_large_episodes: a wide hub measured for its boards makes no episodes (200,000 at 100x); the
    other generators still run, and a name that is not one of them is refused."""
    out = io.StringIO()
    call_command("make_large_hub", scale=1, samples=["plan-bench=7"], without=["make_large_episodes"], seed=34,
                 stdout=out)
    lines = out.getvalue().splitlines()
    assert "make_large_episodes: left out (--without)" in lines
    assert not [line for line in lines if re.fullmatch(r"make_large_episodes: \d+ s", line)]  # not run
    assert [line for line in lines if re.fullmatch(r"make_large_annotation: \d+ s", line)]  # the others are
    with pytest.raises(CommandError, match="invalid choice: 'make_large_things'"):
        call_command("make_large_hub", "--without", "make_large_things", stdout=io.StringIO())
