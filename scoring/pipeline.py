"""The scoring run of a submission: claim it, score it through its benchmark's plugin, publish the result once.

Exactly-once: a worker claims a submission with a conditional update (queued, or running with an expired lease),
and only the attempt that still owns the row publishes. `scoring.tasks` wraps these functions in Celery tasks.
"""
from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.contract import ScorerInput, ScoringResult, SubmissionRejected
from scoring.events import (
    score_landed_event,
    submission_failed_event,
    submission_finished_event,
    submission_progress_event,
)
from scoring.models import Sample, SampleScore, Score, Submission
from scoring.provenance import score_keys
from scoring.selectors import split_samples

ERROR_MESSAGE_KEPT = 4000  # characters of a rejection's message stored with the submission (it may quote the file)


def _claim(*, submission_id: int, worker: str) -> int | None:
    """Take the submission for this worker; returns the attempt number, or None if it is not ours to score."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    claimable = Q(status=Submission.Status.QUEUED) | Q(status=Submission.Status.RUNNING, heartbeat_at__lt=stale)
    claimed = Submission.objects.filter(claimable, pk=submission_id).update(
        status=Submission.Status.RUNNING,
        attempts=F("attempts") + 1,
        worker=worker,
        heartbeat_at=now,
        started_at=now,
        progress_done=0,
    )
    if not claimed:
        return None
    return Submission.objects.values_list("attempts", flat=True).get(pk=submission_id)


class _Progress:
    """Reports progress and keeps the lease alive, at most every half second."""

    def __init__(self, submission_id: int, attempt: int):
        self.submission_id = submission_id
        self.attempt = attempt
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        Submission.objects.filter(pk=self.submission_id, attempts=self.attempt).update(
            progress_done=done, progress_total=total, heartbeat_at=timezone.now()
        )
        submission_progress_event(submission_id=self.submission_id, done=done, total=total)


def submission_score(*, submission_id: int, worker: str) -> str:
    """Score one submission exactly once. Returns what happened: scored, failed, or skipped."""
    attempt = _claim(submission_id=submission_id, worker=worker)
    if attempt is None:
        return "skipped"
    submission = Submission.objects.select_related("split__benchmark", "model_entry").get(pk=submission_id)
    try:
        scorer = plugin_for(submission.split.benchmark.scorer).score_function()
        result = scorer(
            ScorerInput(
                file_path=Path(submission.file.path),
                samples=split_samples(split=submission.split),
                options=submission.options,
                progress=_Progress(submission_id, attempt),
                model=submission.model_entry.name,
            )
        )
    except UnknownBenchmark as exc:
        return _finish_failed(submission_id, attempt, str(exc), [], site_error=False)
    except SubmissionRejected as exc:
        # The report is capped (first problems and their count): a file of a million bad lines stores a hundred.
        return _finish_failed(submission_id, attempt, exc.message[:ERROR_MESSAGE_KEPT], exc.report(), site_error=False)
    _finish_scored(submission, attempt, result)
    return "scored"


def _finish_failed(submission_id: int, attempt: int, message: str, problems: list, *, site_error: bool) -> str:
    with transaction.atomic():
        updated = Submission.objects.filter(pk=submission_id, attempts=attempt, status=Submission.Status.RUNNING).update(
            status=Submission.Status.FAILED,
            error_message=message,
            error_report=problems,
            failure_is_site_error=site_error,
            finished_at=timezone.now(),
        )
        if updated:
            transaction.on_commit(lambda: submission_failed_event(submission_id=submission_id))
    return "failed" if updated else "skipped"


def submission_fail_internal(*, submission_id: int, message: str) -> None:
    """The site, not the file, failed the submission after its retries; it does not count against quota."""
    failed = Submission.objects.filter(pk=submission_id).exclude(
        status__in=[Submission.Status.SCORED, Submission.Status.FAILED]).update(
        status=Submission.Status.FAILED,
        error_message=f"Scoring failed because of an error on our side: {message}. It does not count against your quota.",
        failure_is_site_error=True,
        finished_at=timezone.now(),
    )
    if failed:
        submission_failed_event(submission_id=submission_id)
    else:
        submission_finished_event(submission_id=submission_id)


def submission_release(*, submission_id: int) -> None:
    """Put a running submission back in the queue (before a retry of the task)."""
    Submission.objects.filter(pk=submission_id, status=Submission.Status.RUNNING).update(status=Submission.Status.QUEUED)


def _finish_scored(submission: Submission, attempt: int, result: ScoringResult) -> None:
    with transaction.atomic():
        # Lock the row: only the attempt that still owns the submission may publish its score.
        owned = (
            Submission.objects.select_for_update()
            .filter(pk=submission.pk, attempts=attempt, status=Submission.Status.RUNNING)
            .exists()
        )
        if owned:
            score_publish(submission=submission, result=result)


def score_publish(*, submission: Submission, result: ScoringResult) -> None:
    """Write a result as the submission's score, replacing any earlier one, and mark it scored; once committed,
    announce that a score landed. Call inside the transaction that holds the submission's row lock. A score of a
    stored file is stamped with its provenance keys (scoring.provenance.score_keys); one of no file has none."""
    provenance = score_keys(submission=submission, scorer_version=result.scorer_version) if submission.sha256 else {}
    samples_by_key = dict(Sample.objects.filter(split_id=submission.split_id).values_list("key", "id"))
    Score.objects.filter(submission_id=submission.pk).delete()
    SampleScore.objects.filter(submission_id=submission.pk).delete()
    Score.objects.create(
        submission_id=submission.pk,
        overall=result.overall,
        breakdown=dict(result.breakdown),
        intervals={k: list(v) for k, v in result.intervals.items()},
        details=dict(result.details),
        readings={key: figures.as_dict() for key, figures in result.readings.items()},
        scorer_version=result.scorer_version,
        provenance=provenance,
    )
    SampleScore.objects.bulk_create(
        [
            SampleScore(
                submission_id=submission.pk,
                sample_id=samples_by_key.get(s.key),
                index=s.index,
                key=s.key[:300],
                task=s.task[:100],
                score=s.score,
                outcome=s.outcome[:30],
                invalid=s.invalid,
                error=s.error,
                components=dict(s.components),
                details=dict(s.details),
                readings={key: reading.as_dict() for key, reading in s.readings.items()},
            )
            for s in result.samples
        ],
        batch_size=2000,
    )
    total = len(result.samples)
    Submission.objects.filter(pk=submission.pk).update(
        status=Submission.Status.SCORED,
        scorer_version=result.scorer_version,
        error_message="",
        error_report=[],
        progress_done=total,
        progress_total=total,
        finished_at=timezone.now(),
    )
    submission_id = submission.pk
    transaction.on_commit(lambda: score_landed_event(submission_id=submission_id))


def submission_requeue_stale(*, worker: str | None = None) -> list[int]:
    """Mark queued again what may have been lost and return the ids to enqueue (the caller, a task, sends them):
    running with a stale lease or on this very (restarted) worker, and uploads queued longer than the lease and not
    sent again within it (their message may have gone with a broker that forgets messages).

    Each row changes in its own conditional update, which stamps `heartbeat_at` (on a queued row: when it was last
    sent); of two sweeps at once only the one whose update changes the row returns it, so each is sent once per
    lease. A message that was not lost after all is a harmless duplicate: the claim lets one attempt score.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    lost = Q(status=Submission.Status.RUNNING, heartbeat_at__lt=stale)
    if worker:
        lost |= Q(status=Submission.Status.RUNNING, worker=worker)
    forgotten = Q(status=Submission.Status.QUEUED, source=Submission.Source.UPLOAD, created_at__lt=stale) & (
        Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=stale)
    )
    candidates = list(Submission.objects.filter(lost | forgotten).order_by("pk").values_list("pk", flat=True))
    return [
        pk
        for pk in candidates
        if Submission.objects.filter(lost | forgotten, pk=pk).update(status=Submission.Status.QUEUED, heartbeat_at=now)
    ]
