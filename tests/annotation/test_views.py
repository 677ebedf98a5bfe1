"""Annotation pages: project list and creation, upload, assignment, export download, editor access."""
import io
import zipfile

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Embedding, Item, Project

from .conftest import png_bytes, zip_bytes

pytestmark = pytest.mark.django_db


def test_curator_creates_a_project_uploads_assigns_and_exports(client, curator, annotator, small_png):
    client.force_login(curator)
    page = client.get("/annotation/")
    assert page.status_code == 200 and b"New project" in page.content
    created = client.post("/annotation/", {"name": "Mugs", "slug": "mugs", "leaf": "TargetLocalization/BasicAttributes/Color"})
    assert created.status_code == 302 and created["Location"] == "/annotation/projects/mugs/"

    upload = client.post("/annotation/projects/mugs/", {
        "upload": "1", "file": SimpleUploadedFile("b.zip", zip_bytes([("x/1.png", small_png), ("x/2.png", png_bytes(np.zeros((5, 5, 3), np.uint8)))]))})
    assert upload.status_code == 302
    assert Item.objects.filter(project__slug="mugs").count() == 2

    bad = client.post("/annotation/projects/mugs/", {"upload": "1", "file": SimpleUploadedFile("x.txt", b"nope")})
    assert bad.status_code == 400 and b"x.txt: not an image" in bad.content

    assigned = client.post("/annotation/projects/mugs/", {"assign": "1", "items": "unassigned", "assignee": annotator.pk})
    assert assigned.status_code == 302
    assert set(Item.objects.values_list("assignee", flat=True)) == {annotator.pk}

    export = client.get("/annotation/projects/mugs/export.zip")
    assert export.status_code == 200 and export["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(export.content)).namelist()
    assert sum(n.endswith("_mask_rle.json") for n in names) == 2
    assert all(n.startswith("EPIC_Bench/TargetLocalization/BasicAttributes/Color/mugs-") for n in names)


def test_annotator_sees_only_projects_with_their_items_and_opens_the_editor(client, annotator, item_factory, small_png):
    [mine] = item_factory(small_png, assignee=annotator)
    other_project = Project.objects.create(name="Other", slug="other", leaf="Navigation/GroundDetection")
    client.force_login(annotator)
    listing = client.get("/annotation/")
    assert b"Colors" in listing.content and b"Other" not in listing.content and b"New project" not in listing.content
    assert client.get(f"/annotation/projects/{other_project.slug}/").status_code == 404
    editor = client.get(f"/annotation/items/{mine.pk}/")
    assert editor.status_code == 200 and b'id="editor-config"' in editor.content
    # Opening the editor queued the embedding of the item's image.
    assert Embedding.objects.filter(image__items=mine).exists()
    assert client.get("/annotation/projects/colors/export.zip").status_code == 404


def test_editor_of_someone_elses_item_is_not_found(client, annotator, item_factory, small_png):
    [item] = item_factory(small_png)
    client.force_login(annotator)
    assert client.get(f"/annotation/items/{item.pk}/").status_code == 404
    assert client.get("/annotation/").status_code == 200
