"""The annotation API: upload, segment (202 then 200), embedding status, permissions."""
import numpy as np
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation import tasks
from annotation.core import rle
from annotation.models import Embedding, Image, Item

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db


def _stored_files():
    try:
        _, months = default_storage.listdir("annotation/images")
    except FileNotFoundError:
        return []
    return months


def test_upload_single_image_returns_it_with_size_and_urls(annotator_client, small_png):
    response = annotator_client.post("/api/annotation/images/", {"file": SimpleUploadedFile("a.png", small_png)})
    assert response.status_code == 201, response.json()
    [image] = response.json()["images"]
    assert (image["width"], image["height"], image["format"]) == (40, 30, "PNG")
    assert image["segment_url"] == f"/api/annotation/images/{image['id']}/segment/"
    assert response.json()["items"] == []
    assert annotator_client.get(image["url"]).status_code == 200


def test_upload_zip_into_a_project_makes_one_item_per_image(curator_client, project_factory, small_png):
    project = project_factory()
    data = zip_bytes([("batch/one.png", small_png), ("batch/two.png", png_bytes(np.zeros((8, 9, 3), np.uint8)))])
    response = curator_client.post("/api/annotation/images/",
                                   {"file": SimpleUploadedFile("b.zip", data), "project": project.slug})
    assert response.status_code == 201, response.json()
    items = Item.objects.filter(pk__in=response.json()["items"]).order_by("position")
    assert [i.name for i in items] == ["one", "two"]
    assert all(i.state == Item.State.TODO and i.version == 1 for i in items)
    assert items[0].revisions.get().kind == "create"


def test_visual_matching_zip_makes_items_of_two_images(curator_client, project_factory, small_png):
    project = project_factory(leaf="Navigation/VisualMatching", slug="vm")
    other = png_bytes(np.zeros((8, 9, 3), np.uint8))
    data = zip_bytes([("p1/a.png", small_png), ("p1/b.png", other)])
    response = curator_client.post("/api/annotation/images/", {"file": SimpleUploadedFile("vm.zip", data),
                                                               "project": project.slug})
    assert response.status_code == 201
    item = Item.objects.get(pk=response.json()["items"][0])
    assert [link.image.width for link in item.item_images.order_by("index")] == [40, 9]


@pytest.mark.parametrize(
    "name, data_fn, message",
    [
        ("notes.txt", lambda png: b"just text", "notes.txt: not an image"),
        ("evil.zip", lambda png: zip_bytes([("ok.png", png), ("../../etc/x.png", png)]), "outside the upload"),
        ("bad.zip", lambda png: b"PK\x03\x04garbage", "corrupt zip"),
        ("mixed.zip", lambda png: zip_bytes([("ok.png", png), ("readme.md", b"# hi")]), "mixed.zip:readme.md: not an image"),
    ],
)
def test_bad_uploads_are_refused_and_nothing_is_stored(curator_client, project_factory, small_png, name, data_fn, message):
    project = project_factory()
    response = curator_client.post("/api/annotation/images/",
                                   {"file": SimpleUploadedFile(name, data_fn(small_png)), "project": project.slug})
    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert response.json()["field"] == "file"
    assert Image.objects.count() == 0 and Item.objects.count() == 0
    assert _stored_files() == []


def test_image_over_the_pixel_limit_is_refused(curator_client, settings, small_png):
    settings.SAM_MAX_IMAGE_PIXELS = 1000
    response = curator_client.post("/api/annotation/images/", {"file": SimpleUploadedFile("a.png", small_png)})
    assert response.status_code == 400
    assert "40x30 = 1200 pixels, over the limit of 1000" in response.json()["detail"]


def test_anonymous_and_roleless_users_cannot_upload(api_client, user, small_png):
    assert api_client.post("/api/annotation/images/", {"file": SimpleUploadedFile("a.png", small_png)}).status_code in (401, 403)
    from .conftest import client_for

    response = client_for(user).post("/api/annotation/images/", {"file": SimpleUploadedFile("a.png", small_png)})
    assert response.status_code == 403


def test_segment_answers_202_while_embedding_then_masks_from_the_cache(annotator_client, annotator, item_factory, scene_png):
    data, truth = scene_png
    [item] = item_factory(data, assignee=annotator)
    image = item.images.get()
    url = f"/api/annotation/images/{image.pk}/segment/"
    prompt = {"points": [[192, 180, 1]], "box": None, "multimask": True}

    # Given no embedding yet: 202 with a status URL, and the embedding is queued once.
    first = annotator_client.post(url, prompt, format="json")
    assert first.status_code == 202
    assert first.json()["status_url"] == f"/api/annotation/images/{image.pk}/embedding/"
    assert first["Location"] == first.json()["status_url"]
    row = Embedding.objects.get(image=image)
    assert row.status == Embedding.Status.QUEUED and row.model_key == "classic"
    assert annotator_client.get(first.json()["status_url"]).json()["status"] == "queued"

    # When the worker runs the task (called as the worker calls it)...
    assert tasks.compute_embedding(row.pk) == "ready"
    status = annotator_client.get(first.json()["status_url"]).json()
    assert (status["status"], status["progress"]) == ("ready", 100)

    # ...then clicks are answered from the cache.
    second = annotator_client.post(url, prompt, format="json")
    assert second.status_code == 200, second.json()
    body = second.json()
    assert body["backend"] == "classic" and body["ms"] > 0
    best = rle.decode(body["masks"][0]["rle"])
    assert (best & truth["disc"]).sum() / (best | truth["disc"]).sum() > 0.9
    assert isinstance(body["masks"][0]["score"], float)


def test_segment_with_a_point_outside_the_image_is_a_clear_error(annotator_client, annotator, item_factory, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    image = item.images.get()
    row = Embedding.objects.create(image=image, model_key="classic")
    tasks.compute_embedding(row.pk)
    response = annotator_client.post(f"/api/annotation/images/{image.pk}/segment/",
                                     {"points": [[10, 10, 1], [700, 10, 0]]}, format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "points[1]: (700, 10) is outside the image (width 640, height 360)",
                                "field": "points[1]"}


def test_annotator_cannot_segment_images_of_items_not_assigned_to_them(annotator_client, item_factory, scene_png):
    [item] = item_factory(scene_png[0])
    response = annotator_client.post(f"/api/annotation/images/{item.images.get().pk}/segment/",
                                     {"points": [[1, 1, 1]]}, format="json")
    assert response.status_code == 404


def test_failed_embedding_is_reported_with_its_error(annotator_client, annotator, item_factory, scene_png, settings):
    [item] = item_factory(scene_png[0], assignee=annotator)
    image = item.images.get()
    settings.SAM_CHECKPOINT = str(settings.SAM_EMBEDDING_DIR / "missing.pth")
    row = annotator_client.post(f"/api/annotation/images/{image.pk}/segment/", {"points": [[1, 1, 1]]}, format="json")
    assert row.status_code == 202 and row.json()["model_key"] == "sam-vit_b"
    embedding = Embedding.objects.get(image=image, model_key="sam-vit_b")
    with pytest.raises(Exception, match="does not exist"):
        tasks.compute_embedding(embedding.pk)
    status = annotator_client.get(f"/api/annotation/images/{image.pk}/embedding/").json()
    assert status["status"] == "failed" and "SAM checkpoint" in status["error"] and "does not exist" in status["error"]


def test_upload_over_the_byte_limit_is_refused_before_reading(curator_client, settings, small_png):
    settings.SAM_UPLOAD_MAX_BYTES = 10
    response = curator_client.post("/api/annotation/images/", {"file": SimpleUploadedFile("a.png", small_png)})
    assert response.status_code == 413
    assert "over the limit of 10" in response.json()["detail"]
    assert Image.objects.count() == 0
