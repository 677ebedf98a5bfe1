"""Celery tasks for annotation: thin wrappers around the worker's side of the embeddings.

They import only `annotation.embeddings`, never the services, so the services that queue them can import this
module."""
from __future__ import annotations

from celery import shared_task

from annotation import embeddings


@shared_task(acks_late=True, reject_on_worker_lost=True)
def compute_embedding(embedding_id: int) -> str:
    # Idempotent: a second delivery finds the cache file and only marks the row ready.
    return embeddings.embedding_compute(embedding_id=embedding_id)
