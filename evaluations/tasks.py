"""Celery wrappers around the run's execution (evaluations.execution): thin, one run id each."""
from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings

from evaluations import execution
from evaluations.models import EvaluationRun


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def evaluation_run_execute(self, run_id: int) -> str:
    status = execution.run_execute(run_id=run_id)
    if status == execution.BUSY:  # another worker plays it: look again once its lease would have run out
        raise self.retry(countdown=settings.EVALUATIONS_LEASE_SECONDS)
    return status


def run_enqueue(*, run_id: int) -> None:
    evaluation_run_execute.delay(run_id)


@worker_ready.connect
def _resume_on_start(sender=None, **kwargs) -> None:
    """A worker killed mid-run left its run "running": a starting worker sends it again; it resumes from the
    stored answers (a broker that redelivers the unacknowledged task does the same, and the claim lets both in
    harmlessly: an answer is stored once)."""
    for run_id in EvaluationRun.objects.filter(status=EvaluationRun.Status.RUNNING).values_list("pk", flat=True):
        run_enqueue(run_id=run_id)
