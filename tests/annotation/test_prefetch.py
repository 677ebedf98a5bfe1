"""Issue 34: opening an item queues the embeddings of the next items of its queue, so the first click there finds a
cached embedding; no second task for an image cached or in flight; never an item the opener may not edit."""
from __future__ import annotations

import json

import numpy as np
import pytest
from celery.signals import before_task_publish
from django.contrib.auth.models import Group
from django.test import Client

from annotation.embeddings import backend_model_key, embedding_cache
from annotation.models import Embedding, Item
from annotation.services.projects import items_assign
from annotation.services.segmentation import embeddings_prefetch, item_open

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue(item_factory, annotator):
    """Five items of one upload, in the annotator's queue in this order."""
    pngs = [png_bytes(np.full((24, 32, 3), 30 * (k + 1), np.uint8)) for k in range(5)]
    return item_factory(zip_bytes([(f"{k}.png", p) for k, p in enumerate(pngs)]), name="five.zip",
                        assignee=annotator)


@pytest.fixture
def published():
    """The embedding tasks sent to the broker: (task name, its arguments), as the broker receives them."""
    sent: list[tuple[str, tuple]] = []

    def note(sender=None, body=None, **_):
        sent.append((sender, tuple(body[0]) if isinstance(body, tuple) else tuple(body.get("args", ()))))

    before_task_publish.connect(note, weak=False)
    yield sent
    before_task_publish.disconnect(note)


def _cached(item: Item) -> bool:
    return all(embedding_cache().has(image.sha256, backend_model_key()) for image in item.images.all())


def _open_page(user, item: Item) -> dict:
    client = Client()
    client.force_login(user)
    response = client.get(f"/annotation/items/{item.pk}/")
    assert response.status_code == 200
    text = response.content.decode()
    start = text.index('<script id="editor-config" type="application/json">') + len(
        '<script id="editor-config" type="application/json">')
    return json.loads(text[start:text.index("</script>", start)])


def test_opening_an_item_makes_the_next_items_embedding_cached(
        queue, annotator, settings, celery_eager, django_capture_on_commit_callbacks):
    settings.SAM_PREFETCH_ITEMS = 2
    assert not any(_cached(item) for item in queue)
    with django_capture_on_commit_callbacks(execute=True):
        config = _open_page(annotator, queue[0])
    # this item, and the next two of the queue computed ahead (the worker's task, run in this process)
    assert [_cached(item) for item in queue] == [True, True, True, False, False]
    assert set(Embedding.objects.filter(image__items__in=queue[:3]).values_list("status", flat=True)) == {"ready"}
    # the page names the item its Next button opens and that item's images, which its script downloads ahead
    assert config["next_item"] == queue[1].pk
    assert config["next_images"] == [image.pk for image in queue[1].images.all()]
    # the next item's page says its embedding is ready as it opens (no status request before the first click)
    with django_capture_on_commit_callbacks(execute=True):
        config = _open_page(annotator, queue[1])
    assert {entry["status"] for entry in config["embeddings"].values()} == {"ready"}
    assert list(config["embeddings"]) == [str(image.pk) for image in queue[1].images.all()]


def test_no_second_task_for_an_embedding_cached_or_in_flight(
        queue, annotator, settings, published, django_capture_on_commit_callbacks):
    settings.SAM_PREFETCH_ITEMS = 2
    image_of = {item.pk: item.images.get() for item in queue}
    row_of = lambda item: Embedding.objects.get(image=image_of[item.pk]).pk  # noqa: E731

    with django_capture_on_commit_callbacks(execute=True):
        item_open(user=annotator, item=queue[0])
    assert sorted(args[0] for _, args in published) == sorted(row_of(item) for item in queue[:3])
    assert {name for name, _ in published} == {"annotation.tasks.compute_embedding"}

    # opened again, and the next item opened: only the one item not yet queued (queue[3]) gets a task
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        item_open(user=annotator, item=queue[0])
        item_open(user=annotator, item=queue[1])
    assert [args[0] for _, args in published] == [row_of(queue[3])]

    # a cached embedding gets none either, whatever its row says; nor does a failed one opened ahead of time
    published.clear()
    embedding_cache().put(image_of[queue[4].pk].sha256, _classic_embedding(image_of[queue[4].pk]))
    Embedding.objects.filter(pk=row_of(queue[3])).update(status=Embedding.Status.FAILED, error="broken")
    with django_capture_on_commit_callbacks(execute=True):
        item_open(user=annotator, item=queue[2])
    assert published == []
    assert Embedding.objects.get(image=image_of[queue[4].pk]).status == "ready"
    # opening the failed item itself retries it
    with django_capture_on_commit_callbacks(execute=True):
        item_open(user=annotator, item=queue[3])
    assert [args[0] for _, args in published] == [row_of(queue[3])]


def _classic_embedding(image):
    from annotation.core import images as image_core
    from annotation.embeddings import segmentation_backend

    with image.file.open("rb") as handle:
        return segmentation_backend().embed(image_core.decode_rgb(handle.read()))


def test_never_an_item_the_opener_may_not_edit(queue, annotator, curator, django_user_model, settings, published,
                                               django_capture_on_commit_callbacks):
    settings.SAM_PREFETCH_ITEMS = 2
    bob = django_user_model.objects.create_user("bob", password="pw-bob-123")
    bob.groups.add(Group.objects.get(name="annotator"))
    # bob's items sit between anna's in the project's order; a done item of anna's too
    items_assign(user=curator, items=[queue[1], queue[3]], assignee=bob)
    Item.objects.filter(pk=queue[2].pk).update(state=Item.State.ACCEPTED)

    with django_capture_on_commit_callbacks(execute=True):
        config = _open_page(annotator, queue[0])
    queued = set(Embedding.objects.values_list("image__items", flat=True))
    assert queued == {queue[0].pk, queue[4].pk}  # anna's next open item only: not bob's, not the accepted one
    assert config["next_item"] == queue[4].pk  # the Next button takes the same queue

    # asked directly for items that are not hers, the service queues nothing
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        rows = embeddings_prefetch(user=annotator, items=[queue[1], queue[3]])
    assert rows == [] and published == []
    # bob's embeddings stay out of her reach (the access policy of tests/test_access_table.py)
    client = Client()
    client.force_login(annotator)
    image = queue[1].images.get()
    assert client.get(f"/api/annotation/images/{image.pk}/embedding/").status_code == 404
    assert client.get(f"/api/annotation/images/{image.pk}/embedding/features/").status_code == 404


def test_the_number_ahead_is_a_setting(queue, annotator, settings, django_capture_on_commit_callbacks):
    settings.SAM_PREFETCH_ITEMS = 0
    with django_capture_on_commit_callbacks(execute=True):
        item_open(user=annotator, item=queue[0])
    assert set(Embedding.objects.values_list("image__items", flat=True)) == {queue[0].pk}
