"""Fixtures for board tests: benchmarks' splits with reported and scored rows, built through the real models."""
from __future__ import annotations

import random

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.utils import timezone

from leaderboard.selectors import board_local_responses_clear
from scoring import pipeline, rescore
from scoring.models import Benchmark, ModelEntry, RescoreRun, Sample, SampleScore, Score, Split, Submission

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


# -- the dummy benchmark's board before and after a scorer version bump (issue 29) --
FIGURES = {"Alpha": [1, 1, 1, 1], "Beta": [1, 1, 0, 0], "Gamma": [1, 0, 0, 0]}  # 100, 50, 25 under dummy-1


@pytest.fixture
def board(dummy_benchmark):
    """The dummy benchmark's board: three uploads scored under dummy-1 and a paper's row at 40."""
    cache.clear()
    bench = benchmark("dummy")
    split = Split.objects.create(benchmark=bench, name="test", is_default=True, hidden_ground_truth=False)
    for i in range(4):
        Sample.objects.create(split=split, key=f"k{i}", position=i)
    subs = {}
    for name, values in FIGURES.items():
        sub = Submission.objects.create(model_entry=make_entry(name), split=split)
        sub.file.save(f"{name}.txt", ContentFile("\n".join(map(str, values)).encode()))
        assert pipeline.submission_score(submission_id=sub.pk, worker="setup") == "scored"
        subs[name] = sub
    subs["Paper"] = make_reported(split, make_entry("Paper-Model"), 40.0)
    yield split, subs
    cache.clear()


def forget_pages() -> None:
    """The boards' cached pages and rows, shared and this process's (a test's direct write bumps no version)."""
    cache.clear()
    board_local_responses_clear()


def rescore_now(split, monkeypatch, version="dummy-2") -> RescoreRun:
    """Bump the dummy scorer's version (dummy-2 halves every figure) and re-score in this process."""
    monkeypatch.setenv("DUMMY_SCORER_VERSION", version)
    run = rescore.rescore_run_start(benchmark=split.benchmark)
    for item in run.items.all():
        rescore.rescore_item_run(item_id=item.pk, worker="test")
    forget_pages()
    return run
