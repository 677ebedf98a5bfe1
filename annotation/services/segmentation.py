"""Embeddings and segmentation: queueing an image's embedding, SAM proposals from it, and what the editor needs to
run SAM's decoder in the browser (the backend and the worker's computation: annotation.embeddings)."""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import tasks
from annotation.core.segmentation import MaskProposal, PromptError
from annotation.embeddings import (
    backend_checkpoint_sha256,
    backend_model_key,
    browser_decoder_file,
    browser_decoder_fingerprint,
    embedding_cache,
    embedding_load,
    segmentation_backend,
)
from annotation.models import Embedding, Image, Item
from annotation.selectors import queue_after
from annotation.services.editing import item_images
from annotation.services.errors import AnnotationError
from annotation.services.permissions import can_edit_item


def embedding_request(*, image: Image, retry_failed: bool = False) -> Embedding:
    """The embedding row of the image for the configured backend; queues a computation when there is none.

    A failed computation is queued again only when asked (opening the item), not on every status poll."""
    model_key = backend_model_key()
    row, created = Embedding.objects.get_or_create(image=image, model_key=model_key)
    if embedding_cache().has(image.sha256, model_key):
        if row.status != Embedding.Status.READY:
            row.status, row.progress, row.error = Embedding.Status.READY, 100, ""
            row.save(update_fields=["status", "progress", "error"])
        return row
    stale_ready = row.status == Embedding.Status.READY  # the cache was cleared: compute again
    if created or stale_ready or (retry_failed and row.status == Embedding.Status.FAILED):
        row.status, row.progress, row.error = Embedding.Status.QUEUED, 0, ""
        row.save(update_fields=["status", "progress", "error"])
        queue = settings.SAM_EMBEDDING_QUEUE or None  # None: the default queue every worker reads
        transaction.on_commit(lambda: tasks.compute_embedding.apply_async((row.pk,), queue=queue))
    return row


@dataclass(frozen=True)
class SegmentResult:
    masks: list[MaskProposal]
    backend: str
    ms: float


def image_segment(
    *, image: Image, points: Sequence[Sequence[float]], box: Sequence[float] | None, multimask: bool,
    mask_input: Mapping[str, Any] | None,
) -> SegmentResult | Embedding:
    """Proposals from the cached embedding, or the (queued/running) embedding row when there is none yet."""
    started = time.perf_counter()
    model_key = backend_model_key()
    embedding = embedding_load(image.sha256, model_key)
    if embedding is None:
        row = embedding_request(image=image)
        if row.status == Embedding.Status.FAILED:
            raise AnnotationError(f"The image embedding failed: {row.error}", status=503, field="embedding")
        return row
    backend = segmentation_backend()
    try:
        proposals = backend.segment(embedding, points=points, box=box, multimask=multimask, mask_input=mask_input)
    except PromptError as exc:
        raise AnnotationError(str(exc), field=exc.field) from None
    return SegmentResult(proposals, backend.name, (time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class BrowserEmbedding:
    """What the editor needs to run SAM's decoder itself: the float16 features and the frame they are in."""

    features: bytes  # little-endian float16, C order
    shape: tuple[int, ...]
    image_size: tuple[int, int]  # (H, W)
    input_size: tuple[int, int]  # (h, w) of the resized image inside the 1024 frame


def segmenter_identity() -> dict[str, str | None]:
    """The model the editor's masks come from, for their provenance: its key and its checkpoint's SHA-256."""
    return {"model": backend_model_key(), "checkpoint_sha256": backend_checkpoint_sha256()}


def browser_decoder_url() -> str | None:
    """Where the editor downloads the configured SAM model's ONNX decoder; None for the classical backend."""
    if not settings.SAM_BROWSER_DECODER or not backend_model_key().startswith("sam-"):
        return None
    fingerprint = browser_decoder_fingerprint()
    return f"/api/annotation/decoders/{backend_model_key()}/{fingerprint}.onnx" if fingerprint else None


def browser_decoder_info(*, image: Image, row: Embedding) -> dict[str, Any] | None:
    """URLs for the browser decoder when it can run on this image (SAM, embedding ready), else None."""
    if row.status != Embedding.Status.READY or (url := browser_decoder_url()) is None:
        return None
    return {"decoder_url": url, "features_url": f"/api/annotation/images/{image.pk}/embedding/features/"}


def browser_embedding(*, image: Image) -> BrowserEmbedding:
    """The image's cached SAM features for the browser decoder; 404 while there are none."""
    model_key = backend_model_key()
    embedding = embedding_load(image.sha256, model_key) if settings.SAM_BROWSER_DECODER else None
    if embedding is None or browser_decoder_fingerprint() is None:
        raise AnnotationError(f"No {model_key} embedding of image {image.pk} for the browser decoder (yet).",
                              status=404, field="embedding")
    features = np.ascontiguousarray(embedding.features, dtype="<f2")
    return BrowserEmbedding(features.tobytes(), tuple(features.shape), embedding.image_size, embedding.input_size)


def browser_decoder(*, model_key: str, fingerprint: str) -> Path:
    """The ONNX decoder file named by the editor's URL; 404 when it is not the configured model's."""
    if not settings.SAM_BROWSER_DECODER or model_key != backend_model_key() or fingerprint != browser_decoder_fingerprint():
        raise AnnotationError(f"No browser decoder {model_key}/{fingerprint} on this server.", status=404)
    path = browser_decoder_file()
    if path is None:
        raise AnnotationError("The configured segmentation backend has no browser decoder.", status=404)
    return path


def embeddings_prefetch(*, user: AbstractBaseUser, items: Sequence[Item]) -> list[Embedding]:
    """Queue ahead of time the embeddings of items `user` will open next (X-AnyLabeling pre-encodes the next ones),
    so the first click there finds a cached embedding. Only items the user may edit; an image whose embedding is
    cached, queued or running gets no second task (embedding_request), and a failed one is not retried here (opening
    its item does), so opening items over and over queues nothing more."""
    return [embedding_request(image=image)
            for item in items if can_edit_item(user, item) for image in item_images(item)]


def item_open(*, user: AbstractBaseUser, item: Item) -> list[Embedding]:
    """Queue embeddings for this item's images and, ahead of time, for the next SAM_PREFETCH_ITEMS items of its
    queue (the ones the editor's Next button leads to)."""
    rows = [embedding_request(image=image, retry_failed=True) for image in item_images(item)]
    embeddings_prefetch(user=user, items=queue_after(item=item, limit=settings.SAM_PREFETCH_ITEMS))
    return rows
