"""Celery tasks for scoring: thin wrappers that own retries and call the scoring pipeline."""
from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import InterfaceError, OperationalError

from scoring import pipeline, queue_health, quota, rescore, workers

log = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=3)
def score_submission(self, submission_id: int) -> str:
    try:
        return pipeline.submission_score(submission_id=submission_id, worker=self.request.hostname or "worker")
    except (OperationalError, InterfaceError) as exc:
        # The database went away mid-job: the attempt is released and tried again.
        pipeline.submission_release(submission_id=submission_id)
        raise self.retry(exc=exc, countdown=5 * (self.request.retries + 1)) from exc
    except Exception as exc:  # an unexpected scorer crash is the site's fault, not the file's
        log.exception("scoring submission %s failed", submission_id)
        if self.request.retries < self.max_retries:
            pipeline.submission_release(submission_id=submission_id)
            raise self.retry(exc=exc, countdown=2 * (self.request.retries + 1)) from exc
        pipeline.submission_fail_internal(submission_id=submission_id, message=f"{type(exc).__name__}: {exc}")
        return "failed"


def submission_enqueue(*, submission_id: int) -> None:
    score_submission.delay(submission_id)


@shared_task(acks_late=True)
def requeue_stale_submissions() -> list[int]:
    """The periodic sweep (beat): sends again what a dead worker or a forgetful broker lost. Each id comes back from
    one sweep only, so two schedulers running at once still send each submission once."""
    ids = pipeline.submission_requeue_stale()
    for submission_id in ids:
        submission_enqueue(submission_id=submission_id)
    return ids


@shared_task
def prune_quota_days() -> int:
    """Daily (beat): the per-day quota lock rows of past days are no longer needed."""
    return quota.quota_days_prune()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2)
def rescore_item(self, item_id: int) -> str:
    """One submission of a re-score (scoring.rescore): exactly once per run; a failure marks this one only."""
    try:
        return rescore.rescore_item_run(item_id=item_id, worker=self.request.hostname or "worker")
    except (OperationalError, InterfaceError) as exc:
        rescore.rescore_item_release(item_id=item_id)
        raise self.retry(exc=exc, countdown=5 * (self.request.retries + 1)) from exc
    except Exception as exc:  # a scorer crash: try again, then mark this item failed and let the run go on
        log.exception("re-scoring item %s failed", item_id)
        if self.request.retries < self.max_retries:
            rescore.rescore_item_release(item_id=item_id)
            raise self.retry(exc=exc, countdown=2 * (self.request.retries + 1)) from exc
        rescore.rescore_item_fail(item_id=item_id, message=f"{type(exc).__name__}: {exc}")
        return "failed"


def rescore_item_enqueue(item_id: int) -> None:
    rescore_item.delay(item_id)


@shared_task(acks_late=True)
def requeue_rescore_items() -> list[int]:
    """The periodic sweep (beat) for re-scores: items whose worker died or whose message was lost are sent again."""
    ids = rescore.rescore_items_requeue()
    for item_id in ids:
        rescore_item_enqueue(item_id)
    return ids


@shared_task
def flag_overdue_submissions() -> list[int]:
    """The periodic sweep (beat): flags uploads queued past QUEUE_STALE_AFTER_MINUTES, giving their quota back."""
    return queue_health.submissions_flag_overdue()


_beats: dict[str, workers.BeatThread] = {}


def _queues_of(consumer) -> list[str]:
    task_consumer = getattr(consumer, "task_consumer", None)
    if task_consumer is not None:
        return sorted(q.name for q in task_consumer.queues)
    return sorted(consumer.app.amqp.queues.consume_from or [workers.SCORING_QUEUE])


@worker_ready.connect
def _beat_on_start(sender=None, **kwargs) -> None:
    """Queue health counts the workers alive by their beats: start this one's."""
    hostname = getattr(sender, "hostname", None) or "worker"
    beat = workers.BeatThread(hostname=hostname, queues=_queues_of(sender))
    _beats[hostname] = beat
    beat.start()


@worker_shutdown.connect
def _beat_on_stop(sender=None, **kwargs) -> None:
    for hostname, beat in list(_beats.items()):
        beat.stop()
        beat.join(timeout=5)
        try:
            workers.worker_gone(hostname=hostname)
        except Exception:  # the row goes stale by itself
            log.exception("worker %s could not remove its beat", hostname)
        _beats.pop(hostname, None)


@worker_ready.connect
def _requeue_on_start(sender=None, **kwargs) -> None:
    hostname = getattr(sender, "hostname", None)
    ids = pipeline.submission_requeue_stale(worker=hostname)
    for submission_id in ids:
        submission_enqueue(submission_id=submission_id)
    if ids:
        log.warning("worker %s queued again submissions left unfinished: %s", hostname, ids)
    items = rescore.rescore_items_requeue(worker=hostname)
    for item_id in items:
        rescore_item_enqueue(item_id)
    if items:
        log.warning("worker %s sent again %d re-score items left unfinished", hostname, len(items))
    if settings.RESCORE_ON_WORKER_START:
        # The deploy's trigger: a worker started on new code re-scores what an older scorer version scored.
        for run in rescore.rescore_runs_start_for_changes(enqueue=rescore_item_enqueue):
            log.warning("worker %s started %s", hostname, run)
