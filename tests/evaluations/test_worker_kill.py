"""A real Celery worker process killed (SIGKILL) mid-run: a new worker resumes the run's chunks (one Celery task
each) from the stored answers and the stand-in model is never asked again for an answer the hub stored."""
from __future__ import annotations

import uuid

import pytest

from evaluations import services
from evaluations.models import EvaluationRun, RunAnswer
from scoring.models import Submission
from scoring.standin import StandInModel
from tests.faults.processes import Worker, site_env, wait_for
from tests.scoring.bench_splits import plan_split

pytestmark = [pytest.mark.worker, pytest.mark.broker, pytest.mark.django_db(transaction=True)]


def test_a_killed_worker_resumes_and_asks_no_stored_answer_again(tmp_path, curator, settings) -> None:
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    split = plan_split()
    total = split.samples.count()
    # a killed worker's chunk is taken over after 3 s; chunks of 4 units, so the run is several tasks; the endpoint
    # slot a request held when the worker died comes free after 5 + 2 s, not the default 120 + 30 (the stand-in
    # answers in 0.05 s): the second worker's first request waits for it
    env = site_env(EVALUATIONS_LEASE_SECONDS="3", EVALUATIONS_CHUNK_UNITS="4", EVALUATIONS_REQUEST_TIMEOUT="5",
                   EVALUATIONS_ENDPOINT_ALLOW="127.0.0.1",  # the workers check the endpoint again, as the site
                   EVALUATIONS_SLOT_LEASE_MARGIN="2")
    first = Worker(f"run-a-{uuid.uuid4().hex[:6]}@localhost", env, tmp_path / "worker-a.log")
    first.purge()
    with StandInModel(api_key="sk-kill", delay=0.05) as server:
        run = services.run_create(user=curator, split=split, model_name="m", base_url=server.base_url,
                                  api_key="sk-kill", concurrency=1)
        first.start()
        try:
            wait_for(lambda: EvaluationRun.objects.get(pk=run.pk).units_done >= 5, timeout=120,
                     what="the first worker to answer a few samples")
        finally:
            first.kill()
        run.refresh_from_db()
        stored_at_kill = RunAnswer.objects.filter(run=run).count()
        assert run.status == EvaluationRun.Status.RUNNING and 5 <= run.units_done < total
        second = Worker(f"run-b-{uuid.uuid4().hex[:6]}@localhost", env, tmp_path / "worker-b.log").start()
        try:  # a starting worker sends the runs left running again
            wait_for(lambda: EvaluationRun.objects.get(pk=run.pk).status == EvaluationRun.Status.SUBMITTED,
                     timeout=180, what="the second worker to finish the run")
            wait_for(lambda: Submission.objects.filter(evaluation_runs=run, status="scored").exists(), timeout=120,
                     what="the hub-run row to be scored")
        finally:
            second.end()
            print((tmp_path / "worker-b.log").read_text(errors="replace")[-2000:])
    assert RunAnswer.objects.filter(run=run).count() == total
    assert run.chunks.count() == -(-total // 4) and not run.chunks.exclude(status="done").exists()
    # Each sample answered once, but for the one request in flight when the worker died: answered by the endpoint,
    # never stored, so asked again. The stored answers (stored_at_kill of them) were never asked again.
    assert total <= server.answered <= total + 1
    assert stored_at_kill >= 5
