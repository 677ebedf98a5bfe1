"""Celery tasks for annotation: thin wrappers over the services."""
from __future__ import annotations

from celery import shared_task

from annotation import services


@shared_task(acks_late=True, reject_on_worker_lost=True)
def compute_embedding(embedding_id: int) -> str:
    # Idempotent: a second delivery finds the cache file and only marks the row ready.
    return services.embedding_compute(embedding_id=embedding_id)
