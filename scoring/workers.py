"""Scoring workers' heartbeats: each worker process writes its row every WORKER_BEAT_SECONDS from a thread of its
own (started when the worker is ready, in `scoring.tasks`), and deletes it when it stops cleanly. A worker counts as
alive while its last beat is at most three beats old, so one killed without warning drops out within a minute."""
from __future__ import annotations

import logging
import threading
from datetime import datetime, timedelta

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from scoring.models import WorkerBeat

log = logging.getLogger(__name__)

SCORING_QUEUE = "celery"  # Celery's default queue, where score_submission goes (CELERY_TASK_DEFAULT_QUEUE unset)


def worker_beat(*, hostname: str, queues: list[str], now: datetime | None = None) -> None:
    """Write (or refresh) a worker's beat."""
    now = now or timezone.now()
    updated = WorkerBeat.objects.filter(hostname=hostname).update(beat_at=now, queues=queues)
    if not updated:
        WorkerBeat.objects.update_or_create(hostname=hostname,
                                            defaults={"beat_at": now, "started_at": now, "queues": queues})


def worker_gone(*, hostname: str) -> None:
    WorkerBeat.objects.filter(hostname=hostname).delete()


def alive_after(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(seconds=3 * settings.WORKER_BEAT_SECONDS)


def workers_alive(*, queue: str = SCORING_QUEUE, now: datetime | None = None) -> list[WorkerBeat]:
    """The workers taking jobs from `queue` whose last beat is fresh (queues are filtered here, not in SQL: JSON
    containment differs between SQLite and PostgreSQL, and there are a handful of rows)."""
    fresh = WorkerBeat.objects.filter(beat_at__gte=alive_after(now))
    return [beat for beat in fresh if not beat.queues or queue in beat.queues]


class BeatThread(threading.Thread):
    """Writes the worker's beat until stopped; a database error is logged and tried again next beat."""

    def __init__(self, *, hostname: str, queues: list[str]):
        super().__init__(name=f"beat-{hostname}", daemon=True)
        self.hostname = hostname
        self.queues = queues
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                close_old_connections()
                worker_beat(hostname=self.hostname, queues=self.queues)
            except Exception:  # the next beat tries again; a beat must never stop the worker
                log.exception("worker %s could not write its beat", self.hostname)
            self.stopped.wait(settings.WORKER_BEAT_SECONDS)
        connection.close()

    def stop(self) -> None:
        self.stopped.set()
