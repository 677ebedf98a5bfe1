"""Consensus with the model (issue 32): each submitted mask against a fresh proposal of the configured backend (SAM,
or the classical segmenter) from the prompts stored in the mask's provenance; below the threshold the item is flagged
for the reviewer, who sees both masks.

Run by the worker (annotation.tasks.check_consensus on the embeddings queue, where the model is loaded): this module
imports neither the editing services nor the tasks, so the submit service can queue the task.
"""
from __future__ import annotations

from django.conf import settings
from django.db import transaction

from annotation.core import provenance as provenance_core
from annotation.core import quality
from annotation.core.epic import leaf_for
from annotation.core.segmentation import PromptError
from annotation.embeddings import backend_checkpoint_sha256, embedding_for, segmentation_backend
from annotation.models import ConsensusCheck, Item


def consensus_check(*, item_id: int, version: int) -> list[ConsensusCheck]:
    """Compare every mask of the item's submitted `version` with a fresh proposal; idempotent (a second delivery
    finds the rows). A version that is no longer the item's is skipped: its successor has its own check."""
    item = Item.objects.select_related("project").filter(pk=item_id).first()
    if item is None or item.version != version or item.state != Item.State.SUBMITTED:
        return []
    existing = list(ConsensusCheck.objects.filter(item=item, version=version))
    if existing:
        return existing
    leaf = leaf_for(item.project.leaf)
    images = [link.image for link in item.item_images.select_related("image").order_by("index")]
    backend = segmentation_backend()
    checkpoint = backend_checkpoint_sha256() or ""
    min_iou = float(settings.ANNOTATION_CONSENSUS_MIN_IOU)
    rows: list[ConsensusCheck] = []
    for name, masks in sorted((item.instances or {}).items()):
        entries = (item.provenance or {}).get(name) or []
        image = images[leaf.masklet(name).image_index]
        for index, mask in enumerate(masks):
            entry = entries[index] if index < len(entries) else None
            row = ConsensusCheck(item=item, version=version, masklet=name, index=index, backend=backend.model_key,
                                 checkpoint_sha256=checkpoint, min_iou=min_iou)
            prompt = provenance_core.current_prompt(entry)
            if prompt is None:
                row.status = ConsensusCheck.Status.SKIPPED
                row.reason = ("no provenance kept" if entry is None
                              else f"made by {entry.get('source')}, not from a prompt")
                rows.append(row)
                continue
            try:
                proposals = backend.segment(embedding_for(image), points=[list(p) for p in prompt.points],
                                            box=list(prompt.box) if prompt.box else None, multimask=prompt.multimask)
            except PromptError as exc:
                row.status, row.reason = ConsensusCheck.Status.SKIPPED, f"the stored prompt is refused: {exc}"[:200]
                rows.append(row)
                continue
            if not proposals:
                row.status, row.reason = ConsensusCheck.Status.SKIPPED, "the model proposed no mask"
                rows.append(row)
                continue
            result = quality.consensus_compare(mask, [p.rle for p in proposals], pick=prompt.pick, min_iou=min_iou)
            row.status, row.iou, row.flagged, row.proposal = (ConsensusCheck.Status.DONE, result.iou, result.flagged,
                                                              result.proposal)
            rows.append(row)
    with transaction.atomic():
        if ConsensusCheck.objects.filter(item=item, version=version).exists():  # a concurrent delivery won
            return list(ConsensusCheck.objects.filter(item=item, version=version))
        ConsensusCheck.objects.bulk_create(rows)
    return rows
