"""The stale-job sweep (beat, every minute, and at worker start): what a dead worker or a forgetful broker lost is
sent again, once per lease, and scored exactly once (issue 13, defects 6 and 11)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from scoring import pipeline, services, tasks
from scoring.models import Score, Submission
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = pytest.mark.django_db

LEASE = 120


@pytest.fixture
def lost_upload(dummy_benchmark, user, settings) -> Submission:
    """An upload queued longer than the lease whose message never reached a worker (the test transaction never
    commits, so the enqueue on commit never runs: as if the broker had lost the message)."""
    settings.SCORING_LEASE_SECONDS = LEASE
    split = SplitFactory(benchmark__scorer="dummy")
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    submission = services.submission_create(
        user=user,
        split=split,
        model_entry=ModelEntryFactory(owner=user),
        uploaded_file=SimpleUploadedFile("p.txt", b"1\n1\n0\n0\n"),
    )
    Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - timedelta(seconds=LEASE + 1))
    return submission


def test_beat_sweep_scores_a_queued_submission_whose_message_was_lost(lost_upload, celery_eager):
    # When the periodic sweep runs (not a worker restart)
    sent = tasks.requeue_stale_submissions()

    # Then the submission is sent again and scored, once
    assert sent == [lost_upload.pk]
    lost_upload.refresh_from_db()
    assert lost_upload.status == Submission.Status.SCORED
    assert lost_upload.attempts == 1
    assert Score.objects.filter(submission=lost_upload).count() == 1
    assert tasks.requeue_stale_submissions() == []


def test_a_queued_submission_is_sent_again_once_per_lease(lost_upload):
    assert pipeline.submission_requeue_stale() == [lost_upload.pk]
    # the message just sent may be waiting behind others: the next sweeps leave it alone for a lease
    assert pipeline.submission_requeue_stale() == []
    Submission.objects.filter(pk=lost_upload.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=LEASE + 1))
    assert pipeline.submission_requeue_stale() == [lost_upload.pk]


def test_a_queued_submission_younger_than_the_lease_is_left_to_its_message(lost_upload):
    Submission.objects.filter(pk=lost_upload.pk).update(created_at=timezone.now())
    assert pipeline.submission_requeue_stale() == []


def test_a_running_submission_with_a_stale_lease_is_queued_again_once(lost_upload):
    stale = timezone.now() - timedelta(seconds=LEASE + 1)
    Submission.objects.filter(pk=lost_upload.pk).update(status=Submission.Status.RUNNING, heartbeat_at=stale)

    assert pipeline.submission_requeue_stale() == [lost_upload.pk]
    assert Submission.objects.get(pk=lost_upload.pk).status == Submission.Status.QUEUED
    assert pipeline.submission_requeue_stale() == []


def test_a_running_submission_with_a_live_lease_is_left_to_its_worker(lost_upload):
    Submission.objects.filter(pk=lost_upload.pk).update(status=Submission.Status.RUNNING, heartbeat_at=timezone.now())
    assert pipeline.submission_requeue_stale() == []
    assert Submission.objects.get(pk=lost_upload.pk).status == Submission.Status.RUNNING
