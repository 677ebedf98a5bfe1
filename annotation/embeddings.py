"""The segmentation backend of this process and the image embeddings it computes (the worker's side).

Below `annotation.services` and `annotation.tasks`: the worker task calls `embedding_compute`, and the services
that queue it import the task, so this module imports neither.
"""
from __future__ import annotations

import functools
import json
import os
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from annotation.core import images as image_core
from annotation.core.segmentation import ClassicBackend, EmbeddingCache, SamBackend, SegmentationBackend
from annotation.core.segmentation import Embedding as SamEmbedding
from annotation.models import Embedding, Image


@functools.lru_cache(maxsize=4)
def _backend_for(checkpoint: str, model_type: str, device: str, decoder_threads: int) -> SegmentationBackend:
    if checkpoint:
        return SamBackend.from_checkpoint(
            checkpoint, model_type=model_type, device=device, decoder_threads=decoder_threads or None
        )
    return ClassicBackend()


# The adapter boundary: a benchmark or test may install a real backend built another way (e.g. a SAM model
# with random weights, since no checkpoint may be downloaded). Nothing else is replaceable.
_installed_backend: SegmentationBackend | None = None


def segmentation_backend_install(backend: SegmentationBackend | None) -> None:
    global _installed_backend
    _installed_backend = backend


def segmentation_backend() -> SegmentationBackend:
    """SAM when SAM_CHECKPOINT is set, else the classical segmenter; built once per process."""
    if _installed_backend is not None:
        return _installed_backend
    return _backend_for(
        settings.SAM_CHECKPOINT, settings.SAM_MODEL_TYPE, settings.SAM_DEVICE, settings.SAM_DECODER_THREADS
    )


def backend_model_key() -> str:
    """The cache key of the configured backend, known without loading the model."""
    if _installed_backend is not None:
        return _installed_backend.model_key
    return f"sam-{settings.SAM_MODEL_TYPE}" if settings.SAM_CHECKPOINT else ClassicBackend.model_key


def backend_checkpoint_sha256() -> str | None:
    """The SHA-256 of the SAM checkpoint in use, None for the classical backend. Hashing vit_h's 2.4 GB takes
    seconds, so a checkpoint file's hash is remembered in SAM_DECODER_DIR by its path, size and modification time
    (every web and worker process reads it there instead of hashing again)."""
    backend = segmentation_backend()
    if not isinstance(backend, SamBackend):
        return None
    path = backend.checkpoint_path
    if path is None:
        return backend.checkpoint_sha256()
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    memo = Path(settings.SAM_DECODER_DIR) / "checkpoint-sha256.json"
    try:
        known = json.loads(memo.read_text("utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if isinstance(known.get(key), str):
        return str(known[key])
    known[key] = backend.checkpoint_sha256()
    memo.parent.mkdir(parents=True, exist_ok=True)
    partial = memo.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(known, indent=1), "utf-8")
    os.replace(partial, memo)  # whole or not at all, for a reader in another process
    return str(known[key])


def embedding_cache() -> EmbeddingCache:
    return EmbeddingCache(settings.SAM_EMBEDDING_DIR)


# A few recently used embeddings stay in memory, so a burst of clicks does not reread the file each time.
_recent: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
_RECENT_SIZE = 8


def embedding_load(digest: str, model_key: str) -> Any:
    """The cached embedding of the image with this digest, or None when it is not computed yet."""
    cache = embedding_cache()
    key = (str(cache.root), digest, model_key)
    if key in _recent:
        _recent.move_to_end(key)
        return _recent[key]
    embedding = cache.get(digest, model_key)
    if embedding is not None:
        _recent[key] = embedding
        while len(_recent) > _RECENT_SIZE:
            _recent.popitem(last=False)
    return embedding


def browser_decoder_file() -> Path | None:
    """The configured SAM model's ONNX decoder (exported on first use), or None when the backend is not SAM."""
    backend = segmentation_backend()
    if not isinstance(backend, SamBackend):
        return None
    return backend.onnx_decoder(settings.SAM_DECODER_DIR, quantized=settings.SAM_DECODER_QUANTIZED)


def browser_decoder_fingerprint() -> str | None:
    backend = segmentation_backend()
    if not isinstance(backend, SamBackend):
        return None
    return backend.decoder_fingerprint(quantized=settings.SAM_DECODER_QUANTIZED)


def embedding_for(image: Image) -> SamEmbedding:
    """The image's embedding for the configured backend: the cached one, else computed here and cached (the
    worker's side: the consensus check runs on the embeddings queue)."""
    backend = segmentation_backend()
    found = embedding_load(image.sha256, backend.model_key)
    if found is not None:
        return found
    with image.file.open("rb") as handle:
        pixels = image_core.decode_rgb(handle.read())
    embedding = backend.embed(pixels)
    embedding_cache().put(image.sha256, embedding)
    return embedding


def embedding_compute(*, embedding_id: int) -> str:
    """Run by the worker: decode the image, embed it, write the cache file. Idempotent."""
    row = Embedding.objects.select_related("image").get(pk=embedding_id)
    cache = embedding_cache()
    if cache.has(row.image.sha256, row.model_key):
        Embedding.objects.filter(pk=row.pk).update(status=Embedding.Status.READY, progress=100, error="")
        return "ready"
    started = time.perf_counter()
    Embedding.objects.filter(pk=row.pk).update(status=Embedding.Status.RUNNING, progress=10, started_at=timezone.now())
    try:
        backend = segmentation_backend()
        if backend.model_key != row.model_key:
            raise RuntimeError(f"this worker runs {backend.model_key}, the request was for {row.model_key}")
        with row.image.file.open("rb") as handle:
            pixels = image_core.decode_rgb(handle.read())
        Embedding.objects.filter(pk=row.pk).update(progress=30)
        embedding = backend.embed(pixels)
        Embedding.objects.filter(pk=row.pk).update(progress=90)
        cache.put(row.image.sha256, embedding)
        if settings.SAM_BROWSER_DECODER:
            browser_decoder_file()  # once per checkpoint: the editor downloads it with the embedding
    except Exception as exc:  # any failure is shown to the annotator as the embedding's error
        Embedding.objects.filter(pk=row.pk).update(
            status=Embedding.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        raise
    Embedding.objects.filter(pk=row.pk).update(
        status=Embedding.Status.READY, progress=100, error="", finished_at=timezone.now(),
        seconds=time.perf_counter() - started,
    )
    return "ready"
