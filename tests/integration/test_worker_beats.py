"""Queue health counts real workers: a started `celery worker` writes its beat and is counted alive; queued uploads
wait while it is stopped (and the page says no worker runs); stopped cleanly it removes its beat; killed, its beat
goes stale and it drops out of the count."""
from __future__ import annotations

import uuid

import pytest
from django.test import Client

from scoring.models import Submission, WorkerBeat
from tests.faults.processes import Worker, site_env, wait_for
from tests.integration.test_worker import dummy_split, submit  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def alive(client: Client) -> int:
    return client.get("/api/queue/").json()["workers_alive"]


def test_a_worker_is_counted_alive_by_its_beat_and_not_once_stopped(user, dummy_split, tmp_path, settings):
    client = Client()
    nodename = f"beat-{uuid.uuid4().hex[:6]}@localhost"
    worker = Worker(nodename, site_env(WORKER_BEAT_SECONDS="1"), tmp_path / "worker.log")
    worker.purge()
    settings.WORKER_BEAT_SECONDS = 1
    # Given no worker: an upload waits, and no one is alive
    submission = submit(user, dummy_split)
    assert alive(client) == 0
    assert "No scoring worker is running" in client.get("/queue/").content.decode()
    try:
        # When a worker starts, it beats and scores what waited
        worker.start()
        wait_for(lambda: alive(client) == 1, timeout=90, what="the worker's beat")
        assert client.get("/api/queue/").json()["workers"] == [nodename]
        wait_for(lambda: Submission.objects.get(pk=submission.pk).is_final, timeout=90, what="the scoring")
        assert WorkerBeat.objects.get(hostname=nodename).queues == ["celery"]
    finally:
        worker.stop()
    # Then, stopped cleanly, it is gone from the count at once
    assert alive(client) == 0 and not WorkerBeat.objects.filter(hostname=nodename).exists()


def test_a_killed_worker_drops_out_when_its_beat_goes_stale(tmp_path, settings, transactional_db):
    client = Client()
    nodename = f"killed-{uuid.uuid4().hex[:6]}@localhost"
    worker = Worker(nodename, site_env(WORKER_BEAT_SECONDS="1"), tmp_path / "worker.log")
    settings.WORKER_BEAT_SECONDS = 1
    worker.start()
    try:
        wait_for(lambda: alive(client) == 1, timeout=90, what="the worker's beat")
        worker.kill()
        assert WorkerBeat.objects.filter(hostname=nodename).exists()  # no clean stop: the row stays
        wait_for(lambda: alive(client) == 0, timeout=10, what="the killed worker's beat to go stale")
    finally:
        worker.stop()
