"""Items: saving with optimistic concurrency, history, linting, submission, assignment, prefetching."""
import numpy as np
import pytest

from annotation.core import rle
from annotation.models import Embedding, Item
from annotation.services.editing import item_save, item_submit
from annotation.services.errors import AnnotationError
from annotation.services.projects import items_assign
from annotation.services.segmentation import item_open

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db


def _box(y1, y2, x1, x2, size=(360, 640)):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


@pytest.fixture
def item(item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    return item


def _save(user, item, version, **kwargs):
    defaults = dict(texts={"text_label": "the red disc"}, count=1, precise_count=True,
                    instances={"masklet_target": [_box(100, 200, 100, 200)]})
    defaults.update(kwargs)
    return item_save(user=user, item_id=item.pk, version=version, **defaults)


def test_saving_bumps_the_version_records_history_and_starts_work(item, annotator):
    saved = _save(annotator, item, 1)
    assert saved.version == 2 and saved.state == Item.State.IN_PROGRESS
    assert saved.findings == []
    revision = saved.revisions.order_by("pk").last()
    assert (revision.kind, revision.version, revision.author) == ("save", 2, annotator)
    assert revision.snapshot["count"] == 1
    assert rle.area(revision.snapshot["instances"]["masklet_target"][0]) == 10000


def test_a_stale_version_is_refused_with_the_current_one(item, annotator):
    _save(annotator, item, 1)
    with pytest.raises(AnnotationError) as info:
        _save(annotator, item, 1, count=2)
    assert info.value.status == 409 and info.value.extra == {"version": 2}
    assert Item.objects.get(pk=item.pk).count == 1


def test_masks_of_the_wrong_size_or_layer_are_refused(item, annotator):
    with pytest.raises(AnnotationError, match=r"instances.masklet_target\[0\]: mask is 20x10, image 1 is 640x360"):
        _save(annotator, item, 1, instances={"masklet_target": [_box(0, 5, 0, 5, size=(10, 20))]})
    with pytest.raises(AnnotationError, match="has no masklet 'masklet_ground'"):
        _save(annotator, item, 1, instances={"masklet_ground": []})
    with pytest.raises(AnnotationError, match="no text field 'bogus'"):
        _save(annotator, item, 1, texts={"bogus": "x"})


def test_linter_findings_are_stored_on_save_and_block_submission_without_a_reason(item, annotator):
    saved = _save(annotator, item, 1, texts={"text_label": "the two red discs"}, count_in_description=True)
    assert [f["code"] for f in saved.findings] == ["text-count-mismatch"]
    with pytest.raises(AnnotationError) as info:
        item_submit(user=annotator, item_id=item.pk, version=saved.version)
    assert info.value.field == "override_reason"
    assert info.value.extra["findings"][0]["code"] == "text-count-mismatch"
    assert Item.objects.get(pk=item.pk).state == Item.State.IN_PROGRESS

    submitted = item_submit(user=annotator, item_id=item.pk, version=saved.version,
                            override_reason="the second disc is hidden behind the first")
    assert submitted.state == Item.State.SUBMITTED and submitted.submitted_at is not None
    assert submitted.override_reason == "the second disc is hidden behind the first"
    assert submitted.revisions.order_by("pk").last().note == submitted.override_reason


def test_clean_item_submits_and_then_cannot_be_edited(item, annotator):
    saved = _save(annotator, item, 1)
    submitted = item_submit(user=annotator, item_id=item.pk, version=saved.version)
    assert submitted.state == Item.State.SUBMITTED and submitted.override_reason == ""
    with pytest.raises(AnnotationError, match="cannot be edited") as info:
        _save(annotator, item, submitted.version)
    assert info.value.status == 409


def test_only_the_assignee_or_a_curator_edits(item, annotator, curator, django_user_model):
    from django.contrib.auth.models import Group

    stranger = django_user_model.objects.create_user("sam", password="pw-sam-123")
    stranger.groups.add(Group.objects.get(name="annotator"))
    with pytest.raises(AnnotationError) as info:
        _save(stranger, item, 1)
    assert info.value.status == 403
    assert _save(curator, item, 1).updated_by == curator


def test_assignment_needs_an_annotator(item, curator, user):
    with pytest.raises(AnnotationError, match="not in the annotator group"):
        items_assign(user=curator, items=[item], assignee=user)


def test_opening_an_item_queues_its_embedding_and_the_next_items(item_factory, annotator, curator, small_png):
    pngs = [png_bytes(np.full((20, 20, 3), v, np.uint8)) for v in (10, 20, 30, 40, 50, 60)]
    items = item_factory(zip_bytes([(f"{i}.png", p) for i, p in enumerate(pngs)]), name="six.zip", assignee=annotator)
    item_open(user=annotator, item=items[0])
    queued = set(Embedding.objects.values_list("image__items__position", flat=True))
    # This item and the next SAM_PREFETCH_ITEMS (3) of the same annotator.
    assert queued == {items[i].position for i in range(4)}
    assert set(Embedding.objects.values_list("status", flat=True)) == {"queued"}


def test_a_mask_of_a_huge_declared_size_is_refused_before_it_is_decoded(item, annotator):
    # 20 bytes declaring 20000x20000: decoded before its size was checked, it cost 400 MB (and more)
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(AnnotationError, match=r"mask is 20000x20000, image 1 is 640x360"):
            _save(annotator, item, 1, instances={"masklet_target": [{"size": [20000, 20000], "counts": "0"}]})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, peak
