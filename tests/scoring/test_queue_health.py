"""Queue health under a stopped worker: no worker runs in these tests, so uploads stay queued; the figures (queued,
the oldest's age, workers alive), the flag on an upload kept waiting and the quota it gives back are read from the
real database. Time passing is the rows' own timestamps moved back (`created_at`), not a patched clock."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from scoring import pipeline, workers
from scoring.models import Submission, WorkerBeat
from scoring.queue_health import queue_health, submission_queue_place, submissions_flag_overdue
from scoring.quota import submission_quota
from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue_split(dummy_benchmark):
    split = SplitFactory(benchmark__slug="dummy-queue", benchmark__name="Dummy Queue", benchmark__scorer="dummy",
                         name="test", daily_quota=3)
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def upload(client) -> int:
    response = client.post("/api/submissions/", {"benchmark": "dummy-queue", "split": "test", "model": "Q-VLM",
                                                 "file": SimpleUploadedFile("pred.txt", b"1\n0\n1\n")},
                           format="multipart")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def figures(client) -> dict:
    body = client.get("/api/queue/").json()
    return next(b for b in body["benchmarks"] if b["slug"] == "dummy-queue") | {"all": body}


def age(submission_id: int, minutes: float) -> None:
    Submission.objects.filter(pk=submission_id).update(created_at=timezone.now() - timedelta(minutes=minutes))


def test_queued_uploads_grow_and_age_with_no_worker_alive(token_client, queue_split, settings):
    settings.QUEUE_STALE_AFTER_MINUTES = 30
    first = upload(token_client)
    assert figures(token_client)["queued"] == 1
    upload(token_client)
    age(first, 12)

    row = figures(token_client)
    assert row["queued"] == 2 and row["running"] == 0
    assert row["workers_alive"] == 0 and row["all"]["workers_alive"] == 0 and row["all"]["workers"] == []
    assert 12 * 60 - 5 <= row["oldest_queued_seconds"] <= 12 * 60 + 60
    assert row["overdue"] == 0 and row["median_scoring_seconds"] is None


def test_the_public_page_says_no_worker_runs_and_shows_the_figures(client, token_client, queue_split):
    first = upload(token_client)
    age(first, 5)
    html = client.get("/queue/").content.decode()
    assert "No scoring worker is running" in html
    assert 'id="queue-dummy-queue"' in html and "5 minutes ago" in html
    assert 'href="/queue/"' in client.get("/").content.decode()  # the footer links it


def test_an_upload_waiting_past_the_limit_is_flagged_and_gives_its_quota_back(
        client, token_client, user, queue_split, settings):
    settings.QUEUE_STALE_AFTER_MINUTES = 30
    ids = [upload(token_client) for _ in range(3)]
    assert submission_quota(user=user, split=queue_split).remaining == 0
    assert token_client.post("/api/submissions/", {"benchmark": "dummy-queue", "split": "test", "model": "Q-VLM",
                                                   "file": SimpleUploadedFile("p.txt", b"1\n")},
                             format="multipart").status_code == 429
    client.force_login(user)
    assert 'id="overdue"' not in client.get(f"/submissions/{ids[0]}/").content.decode()

    # When the oldest has waited 31 minutes with no worker to take it
    age(ids[0], 31)

    # Then its page flags it, the queue counts it, and its quota comes back
    page = client.get(f"/submissions/{ids[0]}/").content.decode()
    assert 'id="overdue"' in page and "longer than 30 minutes" in page and "does not count against your quota" in page
    assert figures(token_client)["overdue"] == 1
    assert submission_quota(user=user, split=queue_split).remaining == 1
    assert token_client.get(f"/api/submissions/{ids[0]}/").json()["queue"]["overdue"] is True

    # The sweep stamps it, so the quota stays given back once it is scored after all
    assert submissions_flag_overdue() == [ids[0]]
    assert submissions_flag_overdue() == []
    assert pipeline.submission_score(submission_id=ids[0], worker="late") == "scored"
    assert submission_quota(user=user, split=queue_split).remaining == 1
    assert 'id="overdue"' in client.get(f"/submissions/{ids[0]}/").content.decode()


def test_the_submission_page_shows_its_place_and_why_there_is_no_estimate(client, token_client, user, queue_split):
    ids = [upload(token_client) for _ in range(3)]
    client.force_login(user)
    page = client.get(f"/submissions/{ids[2]}/").content.decode()
    assert "number 3 (2 ahead, 0 being scored, 0 workers alive)" in page
    assert "no estimate: no scoring worker is running" in page
    place = token_client.get(f"/api/submissions/{ids[2]}/").json()["queue"]
    assert place["position"] == 3 and place["workers_alive"] == 0 and place["estimate_seconds"] is None


def test_workers_alive_counts_fresh_beats_on_the_scoring_queue(token_client, queue_split, settings):
    settings.WORKER_BEAT_SECONDS = 10
    workers.worker_beat(hostname="scoring@a", queues=["celery"])
    workers.worker_beat(hostname="embeddings@a", queues=["sam"])  # takes no scoring jobs
    workers.worker_beat(hostname="scoring@dead", queues=["celery"],
                        now=timezone.now() - timedelta(seconds=31))  # three beats missed
    body = figures(token_client)["all"]
    assert body["workers_alive"] == 1 and body["workers"] == ["scoring@a"]
    workers.worker_gone(hostname="scoring@a")
    assert figures(token_client)["all"]["workers_alive"] == 0
    assert WorkerBeat.objects.count() == 2


def test_medians_and_the_estimate_come_from_the_last_days_scoring(client, token_client, user, queue_split):
    queue_split.phase.daily_quota = None  # the split's phase holds its quota
    queue_split.phase.save()
    now = timezone.now()
    done = [upload(token_client) for _ in range(4)]
    # Three scored in the last day in 10, 20 and 60 s; one two days ago in 1000 s (not counted)
    for pk, seconds, ago in zip(done, (10, 20, 60, 1000), (1, 2, 3, 48 * 60), strict=True):
        finished = now - timedelta(minutes=ago)
        Submission.objects.filter(pk=pk).update(status="scored", created_at=finished - timedelta(seconds=seconds + 5),
                                                started_at=finished - timedelta(seconds=seconds), finished_at=finished)
    waiting = [upload(token_client) for _ in range(3)]
    workers.worker_beat(hostname="scoring@one", queues=["celery"])

    row = figures(token_client)
    assert row["median_scoring_seconds"] == pytest.approx(20.0, abs=0.2)
    assert row["median_turnaround_seconds"] == pytest.approx(25.0, abs=0.2)
    assert row["scored_last_day"] == 3 and row["queued"] == 3 and row["workers_alive"] == 1
    # Two ahead of the third, one worker: 2 * 20 s shared by one worker, then its own 20 s
    place = submission_queue_place(submission=Submission.objects.get(pk=waiting[2]))
    assert place.position == 3 and place.estimate_seconds == pytest.approx(60.0, abs=0.5)
    client.force_login(user)
    assert "scored in about <span id=\"queue-estimate\">1 minute</span>" in client.get(
        f"/submissions/{waiting[2]}/").content.decode()


def test_health_lists_every_benchmark_even_an_idle_one(queue_split):
    health = queue_health()
    assert {"epic-bench", "plan-bench", "vge-bench", "dummy-queue"} <= {b.slug for b in health.benchmarks}
    assert all(b.queued == 0 or b.slug == "dummy-queue" for b in health.benchmarks)
