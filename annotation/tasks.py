"""Celery tasks for annotation: thin wrappers around the worker's side of the embeddings and the consensus check.

They import only `annotation.embeddings` and `annotation.services.consensus` (which imports no service that queues
a task), so the services that queue them can import this module."""
from __future__ import annotations

from celery import shared_task

from annotation import embeddings
from annotation.services import consensus


@shared_task(acks_late=True, reject_on_worker_lost=True)
def compute_embedding(embedding_id: int) -> str:
    # Idempotent: a second delivery finds the cache file and only marks the row ready.
    return embeddings.embedding_compute(embedding_id=embedding_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def check_consensus(item_id: int, version: int) -> int:
    # Idempotent: a second delivery finds the version's rows. Queued on the embeddings queue, where the model is.
    return len(consensus.consensus_check(item_id=item_id, version=version))
