"""Annotation pages: project list and creation, upload, assignment, export download, editor access."""
import io
import zipfile

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import AuditEvent, Embedding, Item, Project

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


def test_the_editor_is_cross_origin_isolated_and_its_static_files_may_be_loaded_there(client, annotator, item_factory,
                                                                                      small_png):
    """SAM's decoder runs on several WebAssembly threads only on an isolated page (COOP + COEP), whose worker scripts
    carry COEP too; other pages are not isolated (they may embed what they like)."""
    [mine] = item_factory(small_png, assignee=annotator)
    client.force_login(annotator)
    editor = client.get(f"/annotation/items/{mine.pk}/")
    assert (editor["Cross-Origin-Opener-Policy"], editor["Cross-Origin-Embedder-Policy"]) == ("same-origin",
                                                                                             "require-corp")
    assert "Cross-Origin-Embedder-Policy" not in client.get("/annotation/")
    runtime = client.get("/static/vendor/onnxruntime-web/ort.wasm.bundle.min.mjs")
    assert runtime.status_code == 200
    assert (runtime["Cross-Origin-Embedder-Policy"], runtime["Cross-Origin-Resource-Policy"]) == ("require-corp",
                                                                                                 "same-origin")


def test_editor_of_someone_elses_item_is_forbidden(client, annotator, item_factory, small_png):
    [item] = item_factory(small_png)
    client.force_login(annotator)
    assert client.get(f"/annotation/items/{item.pk}/").status_code == 403  # issue 32: a page that says why
    assert client.get("/annotation/items/999999/").status_code == 404
    assert client.get("/annotation/").status_code == 200


def test_curators_give_and_take_roles_on_the_project_page(curator, annotator, project_factory, django_user_model,
                                                           item_factory, small_png):
    project = project_factory()
    newcomer = django_user_model.objects.create_user("nina", password="pw-nina-123")
    client = Client()
    client.force_login(curator)
    url = f"/annotation/projects/{project.slug}/"
    page = client.get(url).content.decode()
    assert 'id="role-form"' in page and "<td>anna</td><td>annotator</td>" in page

    assert client.post(url, {"username": "nina", "role": "reviewer", "give": "1"}).status_code == 302
    assert set(newcomer.groups.values_list("name", flat=True)) == {"reviewer"}
    assert client.post(url, {"username": "nina", "role": "annotator", "give": "1"}).status_code == 302
    assert "<td>nina</td><td>annotator, reviewer</td>" in client.get(url).content.decode()
    assert client.post(url, {"username": "nina", "role": "reviewer", "give": "0"}).status_code == 302
    assert set(newcomer.groups.values_list("name", flat=True)) == {"annotator"}
    assert list(AuditEvent.objects.filter(project=project).values_list("action", flat=True).order_by("pk"))[-3:] == [
        "role_give", "role_give", "role_take"]

    # Refusals: an unknown user or role, the curator role, an annotator with open items, a non-curator.
    assert "No user &#x27;nobody&#x27;" in client.post(url, {"username": "nobody", "role": "reviewer", "give": "1"}).content.decode()
    assert client.post(url, {"username": "nina", "role": "curator", "give": "1"}).status_code == 400
    item_factory(small_png, project=project, assignee=annotator)
    taken = client.post(url, {"username": "anna", "role": "annotator", "give": "0"})
    assert taken.status_code == 409 and "still has open items" in taken.content.decode()
    anna = Client()
    anna.force_login(annotator)
    assert anna.post(url, {"username": "nina", "role": "reviewer", "give": "1"}).status_code in (200, 404)
    assert not newcomer.groups.filter(name="reviewer").exists()
