"""Queue health: reads of what waits and what runs, per benchmark, and where one upload stands; and the sweep that
flags uploads kept waiting past QUEUE_STALE_AFTER_MINUTES, giving their quota back (the site kept them waiting).

Every scoring worker takes every benchmark's jobs from one queue, so "workers alive" is the same for each benchmark.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Min, Q
from django.utils import timezone

from scoring import workers
from scoring.core.queue import estimated_wait_seconds, median_seconds
from scoring.models import Benchmark, Submission

DAY = timedelta(days=1)
TIMES_READ = 5000  # the newest scored submissions of the last day that the medians read, at most


def overdue_cutoff(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(minutes=settings.QUEUE_STALE_AFTER_MINUTES)


def overdue_q(now: datetime | None = None) -> Q:
    """Uploads the site kept waiting: flagged by the sweep, or still queued past the limit (the sweep, a beat task,
    may not be running either)."""
    return Q(overdue_at__isnull=False) | Q(
        status=Submission.Status.QUEUED, source=Submission.Source.UPLOAD, created_at__lt=overdue_cutoff(now))


def submission_is_overdue(submission: Submission, now: datetime | None = None) -> bool:
    if submission.overdue_at is not None:
        return True
    return (submission.status == Submission.Status.QUEUED and submission.source == Submission.Source.UPLOAD
            and submission.created_at < overdue_cutoff(now))


def submissions_flag_overdue(*, now: datetime | None = None) -> list[int]:
    """Stamp `overdue_at` on uploads still queued past the limit; returns their ids. Once stamped a submission keeps
    its quota back even if it is scored later."""
    now = now or timezone.now()
    rows = Submission.objects.filter(status=Submission.Status.QUEUED, source=Submission.Source.UPLOAD,
                                     created_at__lt=overdue_cutoff(now), overdue_at__isnull=True)
    ids = list(rows.values_list("pk", flat=True))
    Submission.objects.filter(pk__in=ids, overdue_at__isnull=True).update(overdue_at=now)
    return ids


def scoring_medians(*, now: datetime | None = None) -> tuple[dict[int, float | None], dict[int, float | None]]:
    """Per benchmark id: the median scoring time (started -> finished) and the median turnaround (uploaded ->
    scored), in seconds, of the submissions scored in the last day."""
    now = now or timezone.now()
    rows = (Submission.objects.filter(status=Submission.Status.SCORED, finished_at__gte=now - DAY,
                                      started_at__isnull=False)
            .order_by("-finished_at")
            .values_list("split__benchmark_id", "created_at", "started_at", "finished_at")[:TIMES_READ])
    scoring: dict[int, list[float]] = {}
    turnaround: dict[int, list[float]] = {}
    for benchmark_id, created, started, finished in rows:
        scoring.setdefault(benchmark_id, []).append((finished - started).total_seconds())
        turnaround.setdefault(benchmark_id, []).append((finished - created).total_seconds())
    return ({b: median_seconds(v) for b, v in scoring.items()}, {b: median_seconds(v) for b, v in turnaround.items()})


@dataclass(frozen=True)
class BenchmarkQueue:
    slug: str
    name: str
    queued: int
    running: int
    overdue: int  # queued past QUEUE_STALE_AFTER_MINUTES
    oldest_queued_at: datetime | None
    oldest_queued_seconds: float | None
    scored_last_day: int
    median_scoring_seconds: float | None
    median_turnaround_seconds: float | None


@dataclass(frozen=True)
class QueueHealth:
    at: datetime
    workers_alive: int
    worker_names: list[str]
    stale_after_minutes: int
    benchmarks: list[BenchmarkQueue]

    def as_dict(self) -> dict:
        return {
            "at": self.at.isoformat(),
            "workers_alive": self.workers_alive,
            "workers": self.worker_names,
            "stale_after_minutes": self.stale_after_minutes,
            "benchmarks": [
                {**{k: getattr(b, k) for k in ("slug", "name", "queued", "running", "overdue", "scored_last_day")},
                 "oldest_queued_at": b.oldest_queued_at.isoformat() if b.oldest_queued_at else None,
                 "oldest_queued_seconds": _rounded(b.oldest_queued_seconds),
                 "workers_alive": self.workers_alive,
                 "median_scoring_seconds": _rounded(b.median_scoring_seconds),
                 "median_turnaround_seconds": _rounded(b.median_turnaround_seconds)}
                for b in self.benchmarks
            ],
        }


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


def queue_health(*, now: datetime | None = None) -> QueueHealth:
    """What waits and runs per benchmark, the workers alive, and the last day's scoring times."""
    now = now or timezone.now()
    cutoff = overdue_cutoff(now)
    counts = (Submission.objects.filter(status__in=[Submission.Status.QUEUED, Submission.Status.RUNNING])
              .values("split__benchmark_id")
              .annotate(queued=Count("pk", filter=Q(status=Submission.Status.QUEUED)),
                        running=Count("pk", filter=Q(status=Submission.Status.RUNNING)),
                        overdue=Count("pk", filter=Q(status=Submission.Status.QUEUED, created_at__lt=cutoff)),
                        oldest=Min("created_at", filter=Q(status=Submission.Status.QUEUED))))
    by_benchmark = {row["split__benchmark_id"]: row for row in counts}
    scored = dict(Submission.objects.filter(status=Submission.Status.SCORED, finished_at__gte=now - DAY)
                  .values("split__benchmark_id").annotate(n=Count("pk")).values_list("split__benchmark_id", "n"))
    scoring, turnaround = scoring_medians(now=now)
    alive = workers.workers_alive(now=now)
    rows = []
    for benchmark in Benchmark.objects.order_by("order", "slug"):
        row = by_benchmark.get(benchmark.pk, {})
        oldest = row.get("oldest")
        rows.append(BenchmarkQueue(
            slug=benchmark.slug, name=benchmark.name, queued=row.get("queued", 0), running=row.get("running", 0),
            overdue=row.get("overdue", 0), oldest_queued_at=oldest,
            oldest_queued_seconds=(now - oldest).total_seconds() if oldest else None,
            scored_last_day=scored.get(benchmark.pk, 0),
            median_scoring_seconds=scoring.get(benchmark.pk), median_turnaround_seconds=turnaround.get(benchmark.pk)))
    return QueueHealth(at=now, workers_alive=len(alive), worker_names=[w.hostname for w in alive],
                       stale_after_minutes=settings.QUEUE_STALE_AFTER_MINUTES, benchmarks=rows)


@dataclass(frozen=True)
class QueuePlace:
    position: int  # 1: next to be taken
    ahead: int  # queued before it
    running: int  # being scored now (any benchmark)
    workers_alive: int
    estimate_seconds: float | None
    overdue: bool
    stale_after_minutes: int

    @property
    def why_no_estimate(self) -> str:
        if self.workers_alive == 0:
            return "no scoring worker is running"
        return "nothing was scored in the last day to estimate from"

    def as_dict(self) -> dict:
        return {"position": self.position, "ahead": self.ahead, "running": self.running,
                "workers_alive": self.workers_alive, "estimate_seconds": _rounded(self.estimate_seconds),
                "overdue": self.overdue, "stale_after_minutes": self.stale_after_minutes}


def submission_queue_place(*, submission: Submission, now: datetime | None = None) -> QueuePlace | None:
    """Where a queued submission stands: its place among the queued jobs of every benchmark (oldest first, as
    workers take them), the jobs running, and an estimated wait from the medians and the workers alive. None when it
    is not queued."""
    if submission.status != Submission.Status.QUEUED:
        return None
    now = now or timezone.now()
    earlier = Q(created_at__lt=submission.created_at) | Q(created_at=submission.created_at, pk__lt=submission.pk)
    ahead = Counter(dict(Submission.objects.filter(earlier, status=Submission.Status.QUEUED)
                         .values("split__benchmark_id").annotate(n=Count("pk"))
                         .values_list("split__benchmark_id", "n")))
    running = [(benchmark_id, (now - started).total_seconds() if started else 0.0)
               for benchmark_id, started in Submission.objects.filter(status=Submission.Status.RUNNING)
               .values_list("split__benchmark_id", "started_at")]
    scoring, _ = scoring_medians(now=now)
    alive = len(workers.workers_alive(now=now))
    estimate = estimated_wait_seconds(
        own=str(submission.split.benchmark_id), queued_ahead={str(k): v for k, v in ahead.items()},
        running_elapsed=[(str(k), s) for k, s in running], medians={str(k): v for k, v in scoring.items()},
        workers=alive)
    n_ahead = sum(ahead.values())
    return QueuePlace(position=n_ahead + 1, ahead=n_ahead, running=len(running), workers_alive=alive,
                      estimate_seconds=estimate, overdue=submission_is_overdue(submission, now),
                      stale_after_minutes=settings.QUEUE_STALE_AFTER_MINUTES)
