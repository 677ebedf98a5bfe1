"""A real Celery worker process scores submissions end to end, and a killed worker loses nothing.

Runs on whatever database and broker the environment configures: SQLite + the filesystem broker by default,
PostgreSQL with Redis or RabbitMQ in the integration part of `make test`.
"""
from __future__ import annotations

import time
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import services
from scoring.models import SampleScore, Score, Submission
from tests.faults.processes import Worker, site_env, wait_for
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = [pytest.mark.worker, pytest.mark.broker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker_factory(tmp_path):
    workers: list[Worker] = []

    def make(nodename: str) -> Worker:
        worker = Worker(nodename, site_env(), tmp_path / "worker.log")
        if not workers:
            worker.purge()
        workers.append(worker)
        worker.start()
        return worker

    yield make
    for worker in workers:
        worker.end()
    log = tmp_path / "worker.log"
    if log.exists():
        print(log.read_text(errors="replace")[-4000:])


@pytest.fixture
def dummy_split(dummy_benchmark, settings):
    split = SplitFactory(benchmark__slug=f"dummy-{uuid.uuid4().hex[:6]}", benchmark__scorer="dummy")
    for i in range(8):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def submit(user, split, *, options=None) -> Submission:
    content = "\n".join(["1", "0"] * 4).encode()
    return services.submission_create(
        user=user,
        split=split,
        model_entry=ModelEntryFactory(owner=user),
        uploaded_file=SimpleUploadedFile("pred.txt", content),
        options=options or {},
    )


def test_worker_process_scores_a_submission_end_to_end(user, dummy_split, worker_factory, tmp_path):
    marker = tmp_path / "completed.txt"
    worker_factory(f"e2e-{uuid.uuid4().hex[:6]}@localhost")
    submission = submit(user, dummy_split, options={"marker": str(marker)})

    wait_for(lambda: Submission.objects.get(pk=submission.pk).is_final, timeout=90, what="the submission to be scored")

    submission.refresh_from_db()
    assert submission.status == "scored", submission.error_message
    assert Score.objects.get(submission=submission).overall == pytest.approx(50.0)
    assert SampleScore.objects.filter(submission=submission).count() == 8
    assert marker.read_text().count("completed") == 1


def test_killed_worker_mid_task_scores_exactly_once_after_restart(user, dummy_split, worker_factory, tmp_path):
    marker = tmp_path / "completed.txt"
    nodename = f"kill-{uuid.uuid4().hex[:6]}@localhost"
    first = worker_factory(nodename)
    submission = submit(user, dummy_split, options={"sleep": 1.0, "marker": str(marker)})

    # Given the worker is half-way through the job
    wait_for(
        lambda: Submission.objects.filter(pk=submission.pk, status="running", progress_done__gte=2).exists(),
        timeout=90,
        what="the worker to start scoring",
    )
    # When it is killed without warning, and started again
    first.kill()
    assert Submission.objects.get(pk=submission.pk).status == "running"
    worker_factory(nodename)

    # Then the submission is scored, once
    wait_for(lambda: Submission.objects.get(pk=submission.pk).is_final, timeout=120, what="the rescoring")
    submission.refresh_from_db()
    assert submission.status == "scored", submission.error_message
    assert submission.attempts == 2
    assert Score.objects.filter(submission=submission).count() == 1
    assert SampleScore.objects.filter(submission=submission).count() == 8
    time.sleep(3)  # a redelivered duplicate message (RabbitMQ) must find it done and change nothing
    assert marker.read_text().count("completed") == 1
    assert Submission.objects.get(pk=submission.pk).attempts == 2
