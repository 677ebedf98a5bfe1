"""Fixtures for board tests: benchmarks' splits with reported and scored rows, built through the real models."""
from __future__ import annotations

import random

import pytest
from django.utils import timezone

from scoring.models import Benchmark, ModelEntry, Sample, SampleScore, Score, Split, Submission

EPIC_LEAVES = ("Navigation/FeasiblePath/FeasiblePath_Ego", "Navigation/FeasiblePath/FeasiblePath_Exo")


def make_entry(name: str, *, kind: str = "open-source", thinking: str = "no", params: float | None = None,
               **fields) -> ModelEntry:
    from django.utils.text import slugify

    return ModelEntry.objects.create(name=name, slug=slugify(f"{name}-{thinking}"), kind=kind, thinking=thinking,
                                     parameters_b=params, **fields)


def make_reported(split: Split, entry: ModelEntry, overall: float, breakdown: dict | None = None) -> Submission:
    sub = Submission.objects.create(model_entry=entry, split=split, source=Submission.Source.REPORTED,
                                    status=Submission.Status.SCORED, scorer_version="paper",
                                    finished_at=timezone.now())
    Score.objects.create(submission=sub, overall=overall, breakdown=breakdown or {}, scorer_version="paper")
    return sub


def make_scored(split: Split, entry: ModelEntry, per_sample: list[float], *, breakdown: dict | None = None,
                submitter=None, tasks: list[str] | None = None, details: list[dict] | None = None,
                outcomes: list[str] | None = None) -> Submission:
    """A submission scored here: a Score with an interval and one SampleScore per split sample."""
    samples = list(Sample.objects.filter(split=split).order_by("position"))
    sub = Submission.objects.create(model_entry=entry, split=split, submitter=submitter,
                                    status=Submission.Status.SCORED, scorer_version="test-1",
                                    finished_at=timezone.now())
    overall = 100 * sum(per_sample) / len(per_sample)
    Score.objects.create(submission=sub, overall=overall, breakdown=breakdown or {},
                         intervals={"overall": [overall - 5, overall + 5]}, scorer_version="test-1")
    SampleScore.objects.bulk_create([
        SampleScore(submission=sub, sample=samples[i] if i < len(samples) else None, index=i,
                    key=samples[i].key if i < len(samples) else f"k{i}",
                    task=(tasks[i] if tasks else (samples[i].task if i < len(samples) else "")), score=v,
                    outcome=(outcomes[i] if outcomes else ("ok" if v >= 0.5 else "low_iou")),
                    details=(details[i] if details else {}))
        for i, v in enumerate(per_sample)
    ])
    return sub


def benchmark(slug: str) -> Benchmark:
    """A board's benchmark. The migration registers it, but a transactional test elsewhere may have flushed it."""
    return Benchmark.objects.get_or_create(slug=slug, defaults={"name": slug.upper(), "scorer": slug})[0]


def board_test_split(slug: str) -> Split:
    return Split.objects.get_or_create(benchmark=benchmark(slug), name="test", version=1,
                                       defaults={"is_default": True, "hidden_ground_truth": True})[0]


@pytest.fixture
def epic_split(db) -> Split:
    """The EPIC-Bench board's test split (registered by the migration), with 40 samples over two leaves."""
    split = board_test_split("epic-bench")
    for i in range(40):
        Sample.objects.create(split=split, key=f"e{i:03d}", position=i, category="Nav", group="FP",
                              task=EPIC_LEAVES[i % 2])
    return split


@pytest.fixture
def epic_dev(db) -> Split:
    split = Split.objects.create(benchmark=benchmark("epic-bench"), name="dev", hidden_ground_truth=False)
    for i in range(10):
        Sample.objects.create(split=split, key=f"d{i:03d}", position=i, task=EPIC_LEAVES[i % 2])
    return split


def random_scores(seed: int, n: int, p: float) -> list[float]:
    rng = random.Random(seed)
    return [1.0 if rng.random() < p else 0.0 for _ in range(n)]

