"""Issue 32, quality control: "SAM in consensus: when an annotator's mask and a fresh SAM proposal from the same
prompts disagree beyond a threshold, the item is flagged for the reviewer with both masks shown."

The check runs in the Celery task queued by the submit (eager here: the task's own code, in this process), with the
classical backend and with SAM (a seeded random vit_b: no checkpoint is downloaded; its masks are not good
segmentations, but the same prompts give the same proposal, which is what consensus compares).
"""
from __future__ import annotations

import hashlib
import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.core import rle
from annotation.embeddings import backend_checkpoint_sha256, embedding_for, segmentation_backend
from annotation.models import ConsensusCheck
from annotation.services.consensus import consensus_check
from annotation.services.editing import item_save, item_submit
from annotation.services.segmentation import image_segment
from tests.annotation.conftest import box_rle

pytestmark = pytest.mark.django_db

CLICK = [[192, 180, 1]]  # the red disc of the drawn scene


def _different(mask_rle):
    """The mask with its left half inverted: far from the proposal (IoU well under 0.8)."""
    mask = rle.decode(mask_rle).copy()
    mask[:, :320] = ~mask[:, :320]
    return rle.encode(mask)


def _submit(item, annotator, masks, entry, capture):
    saved = item_save(user=annotator, item_id=item.pk, version=item.version, texts={"text_label": "the red disc"},
                      count=len(masks), precise_count=True, instances={"masklet_target": masks},
                      provenance={"masklet_target": [entry] * len(masks)})
    with capture(execute=True):
        return item_submit(user=annotator, item_id=item.pk, version=saved.version, override_reason="test")


def test_classic_consensus_flags_the_different_mask_and_not_the_matching_one(
        item_factory, annotator, scene_png, celery_eager, django_capture_on_commit_callbacks):
    [item] = item_factory(scene_png[0], assignee=annotator)
    image = item.images.get()
    embedding_for(image)
    proposal = image_segment(image=image, points=CLICK, box=None, multimask=True, mask_input=None).masks[0]
    entry = {"source": "classic", "model": "classic", "decoder": "server", "predicted_iou": proposal.score,
             "prompts": [{"points": CLICK, "box": None, "multimask": True, "pick": 0}]}
    submitted = _submit(item, annotator, [proposal.rle, _different(proposal.rle)], entry,
                        django_capture_on_commit_callbacks)

    checks = list(ConsensusCheck.objects.filter(item=item, version=submitted.version).order_by("index"))
    assert [c.status for c in checks] == ["done", "done"]
    assert [c.flagged for c in checks] == [False, True], [c.iou for c in checks]
    assert checks[0].iou > 0.95 and checks[1].iou < 0.8
    assert {c.backend for c in checks} == {"classic"} and checks[0].min_iou == 0.8


def test_sam_consensus_uses_the_stored_prompts_on_the_real_sam_path(
        sam_scene_item, annotator, celery_eager, django_capture_on_commit_callbacks):
    item, _ = sam_scene_item
    image = item.images.get()
    result = image_segment(image=image, points=CLICK, box=[120, 110, 270, 250], multimask=False, mask_input=None)
    assert result.backend == "sam"
    proposal = result.masks[0]
    checkpoint = segmentation_backend().checkpoint_sha256()
    entry = {"source": "sam", "model": "sam-vit_b", "checkpoint_sha256": checkpoint, "decoder": "server",
             "predicted_iou": max(-1.0, min(2.0, proposal.score)),
             "prompts": [{"points": CLICK, "box": [120, 110, 270, 250], "multimask": False, "pick": 0}]}
    submitted = _submit(item, annotator, [proposal.rle, _different(proposal.rle)], entry,
                        django_capture_on_commit_callbacks)

    checks = list(ConsensusCheck.objects.filter(item=item, version=submitted.version).order_by("index"))
    assert [c.flagged for c in checks] == [False, True], [c.iou for c in checks]
    assert checks[0].iou == pytest.approx(1.0)
    assert checks[0].backend == "sam-vit_b" and checks[0].checkpoint_sha256 == checkpoint


def test_a_painted_mask_is_not_compared_and_says_why(item_factory, annotator, scene_png, celery_eager,
                                                    django_capture_on_commit_callbacks):
    [item] = item_factory(scene_png[0], assignee=annotator)
    entry = {"source": "manual", "painted_share": 1.0, "history": [{"op": "brush", "pixels": 10000}]}
    submitted = _submit(item, annotator, [box_rle(100, 200, 100, 200)], entry, django_capture_on_commit_callbacks)
    [check] = ConsensusCheck.objects.filter(item=item, version=submitted.version)
    assert check.status == "skipped" and not check.flagged and "made by manual" in check.reason


def test_the_reviewer_is_flagged_and_gets_both_masks_to_draw(
        item_factory, annotator, scene_png, celery_eager, django_capture_on_commit_callbacks, django_user_model):
    [item] = item_factory(scene_png[0], assignee=annotator)
    embedding_for(item.images.get())
    entry = {"source": "classic", "model": "classic", "decoder": "server",
             "prompts": [{"points": CLICK, "box": None, "multimask": True, "pick": 0}]}
    _submit(item, annotator, [box_rle(10, 60, 500, 600)], entry, django_capture_on_commit_callbacks)
    rob = django_user_model.objects.create_user("rob", password="pw-rob-123")
    rob.groups.add(Group.objects.get_or_create(name="reviewer")[0])
    client = Client()
    client.force_login(rob)

    queue = client.get("/annotation/review/").content.decode()
    assert f"/annotation/review/items/{item.pk}/" in queue and 'data-flag="consensus"' in queue
    page = client.get(f"/annotation/review/items/{item.pk}/").content.decode()
    assert 'id="consensus-flag"' in page and "proposal by classic" in page
    start = page.index('id="review-payload"')
    payload = json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])
    [proposal] = payload["proposals"]
    assert proposal["masklet"] == "masklet_target" and proposal["index"] == 0 and proposal["iou"] < 0.8
    assert rle.area(proposal["rle"]) > 0 and payload["instances"]["masklet_target"]


def test_a_stale_version_is_not_checked(item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    assert consensus_check(item_id=item.pk, version=item.version) == []  # not submitted
    assert not ConsensusCheck.objects.exists()


def test_a_checkpoint_files_hash_is_the_files_and_is_remembered_across_processes(sam_backend, tmp_path, settings):
    """Provenance names the checkpoint by the SHA-256 its publisher lists; vit_h's 2.4 GB is hashed once, then read
    from SAM_DECODER_DIR by every process (a second process is played here by forgetting the in-memory hash)."""
    checkpoint = tmp_path / "sam_vit_b.pth"
    checkpoint.write_bytes(b"stand-in weights")
    settings.SAM_DECODER_DIR = tmp_path / "decoders"
    saved = (sam_backend.checkpoint_path, sam_backend._checkpoint_sha256)
    try:
        sam_backend.checkpoint_path, sam_backend._checkpoint_sha256 = checkpoint, None
        assert backend_checkpoint_sha256() == hashlib.sha256(b"stand-in weights").hexdigest()
        memo = json.loads((settings.SAM_DECODER_DIR / "checkpoint-sha256.json").read_text())
        [key] = memo
        memo[key] = "f" * 64
        (settings.SAM_DECODER_DIR / "checkpoint-sha256.json").write_text(json.dumps(memo))
        sam_backend._checkpoint_sha256 = None
        assert backend_checkpoint_sha256() == "f" * 64  # read, not hashed again
    finally:
        sam_backend.checkpoint_path, sam_backend._checkpoint_sha256 = saved
