"""Two stale-job sweeps at once on PostgreSQL (two beat schedulers, or a beat run meeting a worker start): each lost
submission is sent again by one of them only (issue 13, defect 11)."""
from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from scoring import pipeline
from scoring.models import Submission
from tests.scoring.factories import ModelEntryFactory, SplitFactory

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

LEASE = 120


def sessions_waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # within a transaction, the view would not change
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def test_two_sweeps_at_once_send_each_lost_submission_once(settings):
    assert connection.vendor == "postgresql"
    settings.SCORING_LEASE_SECONDS = LEASE
    long_ago = timezone.now() - timedelta(seconds=LEASE + 60)
    split, entry = SplitFactory(), ModelEntryFactory()
    crashed = [Submission.objects.create(model_entry=entry, split=split) for _ in range(10)]
    forgotten = [Submission.objects.create(model_entry=entry, split=split) for _ in range(10)]
    Submission.objects.filter(pk__in=[s.pk for s in crashed]).update(
        status=Submission.Status.RUNNING, heartbeat_at=long_ago, worker="dead@host"
    )
    Submission.objects.filter(pk__in=[s.pk for s in crashed + forgotten]).update(created_at=long_ago)
    lost = sorted(s.pk for s in crashed + forgotten)

    sent: dict[str, list[int]] = {}

    def sweep(name: str) -> None:
        try:
            sent[name] = pipeline.submission_requeue_stale()
        finally:
            connections.close_all()

    # Given both sweeps have read the lost rows and wait on them (this test holds their locks)
    with transaction.atomic():
        list(Submission.objects.select_for_update().filter(pk__in=lost))
        sweeps = [threading.Thread(target=sweep, args=(name,)) for name in ("a", "b")]
        for thread in sweeps:
            thread.start()
        deadline = time.monotonic() + 30
        while sessions_waiting_on_a_lock() < 2:
            assert time.monotonic() < deadline, "the two sweeps never reached the rows"
            time.sleep(0.05)
    # When the locks are released and both go on
    for thread in sweeps:
        thread.join(timeout=30)

    # Then every lost submission is sent again, each by one sweep only, and is queued
    assert sorted(sent["a"] + sent["b"]) == lost
    assert set(sent["a"]).isdisjoint(sent["b"])
    assert set(Submission.objects.filter(pk__in=lost).values_list("status", flat=True)) == {Submission.Status.QUEUED}
