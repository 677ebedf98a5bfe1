"""Work is never lost nor done twice when the worker dies mid-job or the broker loses its queue, on Redis and on
RabbitMQ: uploads go through the real server, a real worker scores them, beat runs as its own process (two of
them at once, as after an orphaned scheduler)."""
from __future__ import annotations

import json

import httpx
import pytest

from scoring.models import Submission
from tests.faults.conftest import assert_each_scored_once, assert_within_memory_bound
from tests.faults.processes import wait_for
from tests.scoring.upload_race import race_split

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True), pytest.mark.timeout(420)]


def upload(url: str, token: str, number: int, options: dict | None = None) -> int:
    response = httpx.post(f"{url}/api/submissions/", headers={"Authorization": f"Token {token}"}, timeout=60,
                          data={"benchmark": "race-bench", "split": "test", "model": f"Model-{number}",
                                "options": json.dumps(options or {})},
                          files={"file": (f"p{number}.txt", b"1\n0.5\n0\n")})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def test_worker_killed_mid_job_scores_it_exactly_once_after_restart(site, user, token, broker_url, tmp_path):
    marker = tmp_path / "completed.txt"
    race_split(daily_quota=None)
    server = site.server(CELERY_BROKER_URL=broker_url)
    first = site.worker(CELERY_BROKER_URL=broker_url)
    submission_id = upload(server.url, token, 1, {"sleep": 1.5, "marker": str(marker)})

    # Given the worker is half-way through the job
    wait_for(lambda: Submission.objects.filter(pk=submission_id, status="running", progress_done__gte=1).exists(),
             timeout=120, what="the worker to start scoring")
    # When it is killed without warning, and another worker (a new host name) and beat take over
    first.kill()
    assert Submission.objects.get(pk=submission_id).status == "running"
    second = site.worker(purge=False, CELERY_BROKER_URL=broker_url, SCORING_LEASE_SECONDS="5")
    site.beat(CELERY_BROKER_URL=broker_url, SCORING_LEASE_SECONDS="5", SCORING_SWEEP_SECONDS="1")

    # Then, once the dead worker's lease has run out, the job is scored once: one completed run, two attempts
    wait_for(lambda: Submission.objects.get(pk=submission_id).is_final, timeout=180, what="the rescoring")
    assert_each_scored_once([submission_id])
    assert Submission.objects.get(pk=submission_id).attempts == 2
    second.wait_ready()
    wait_for(lambda: marker.exists(), timeout=5, what="the completion marker")
    assert marker.read_text().count("completed") == 1
    assert_within_memory_bound(server, second)


def test_queue_lost_by_the_broker_is_sent_again_by_the_sweep_once(site, user, token, broker_url):
    race_split(daily_quota=None)
    lease = "6"
    server = site.server(CELERY_BROKER_URL=broker_url)
    # Given three uploads queued while no worker runs
    ids = [upload(server.url, token, n) for n in range(3)]
    assert set(Submission.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"queued"}

    # When the broker loses every waiting message
    worker = site.worker(purge=True, CELERY_BROKER_URL=broker_url, SCORING_LEASE_SECONDS=lease)
    worker.wait_ready()
    # and two schedulers sweep every second (as after an orphaned beat) once the uploads are older than the lease
    beats = [site.beat(CELERY_BROKER_URL=broker_url, SCORING_LEASE_SECONDS=lease, SCORING_SWEEP_SECONDS="1")
             for _ in range(2)]

    # Then each upload is sent again and scored, exactly once
    wait_for(lambda: Submission.objects.filter(pk__in=ids, status="scored").count() == 3, timeout=180,
             what="the sweep to re-send the lost uploads")
    assert_each_scored_once(ids)
    assert set(Submission.objects.filter(pk__in=ids).values_list("attempts", flat=True)) == {1}
    assert all(beat.alive() for beat in beats)
    assert_within_memory_bound(server, worker)
