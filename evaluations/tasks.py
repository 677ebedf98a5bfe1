"""Celery wrappers around a run's execution (evaluations.execution): thin. A run's start task makes its chunks and
sends one task per chunk, which any worker may take; the last chunk done submits the run."""
from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.utils import timezone

from evaluations import execution
from evaluations.models import EvaluationRun, RunChunk


@shared_task(acks_late=True, reject_on_worker_lost=True)
def evaluation_run_start(run_id: int) -> int:
    chunk_ids = execution.run_start(run_id=run_id)
    for chunk_id in chunk_ids:
        chunk_enqueue(chunk_id=chunk_id)
    return len(chunk_ids)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def evaluation_chunk_play(self, chunk_id: int) -> str:
    outcome = execution.chunk_play(chunk_id=chunk_id)
    if outcome == execution.BUSY:  # another worker plays it: look again once its lease would have run out
        raise self.retry(countdown=settings.EVALUATIONS_LEASE_SECONDS)
    return outcome


@shared_task
def requeue_stale_chunks() -> int:
    """Beat's sweep: a chunk left running by a worker that died (its heartbeat stale) is sent again; a live worker
    takes it over and resumes it from the stored answers."""
    stale = timezone.now() - timedelta(seconds=settings.EVALUATIONS_LEASE_SECONDS)
    chunk_ids = list(RunChunk.objects.filter(run__status=EvaluationRun.Status.RUNNING, status=RunChunk.Status.RUNNING,
                                             heartbeat_at__lt=stale).values_list("pk", flat=True))
    for chunk_id in chunk_ids:
        chunk_enqueue(chunk_id=chunk_id)
    return len(chunk_ids)


def run_enqueue(*, run_id: int) -> None:
    evaluation_run_start.delay(run_id)


def chunk_enqueue(*, chunk_id: int) -> None:
    evaluation_chunk_play.delay(chunk_id)


@worker_ready.connect
def _resume_on_start(sender=None, **kwargs) -> None:
    """A worker killed mid-run left its chunk "running": a starting worker sends every running run's start again,
    which sends its chunks not done; a chunk resumes from the stored answers (a broker that redelivers the
    unacknowledged task does the same, and the chunk's claim lets one attempt play it)."""
    for run_id in EvaluationRun.objects.filter(status=EvaluationRun.Status.RUNNING).values_list("pk", flat=True):
        run_enqueue(run_id=run_id)
