"""Zip bombs and corrupt zips through the upload API and the project page: a 400 naming the entry, nothing
stored, bounded memory; an upload Django spooled to disk is read from its file."""
import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from PIL import Image as PILImage

from annotation.models import Image, Item
from tests.annotation.core.test_images import exif_jpeg
from tests.annotation.zip_helpers import MiB, flip_data_byte, peak_bytes, zip_with

pytestmark = pytest.mark.django_db


def _nothing_stored() -> bool:
    files = [path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()]
    return Image.objects.count() == 0 and Item.objects.count() == 0 and files == []


def _flat_bmp() -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (200, 100), (10, 200, 30)).save(buffer, format="BMP")
    return buffer.getvalue()


@pytest.mark.parametrize(
    "limit, value, message",
    [
        ("SAM_UPLOAD_MAX_IMAGE_BYTES", 16 * MiB, f"unpacks to {64 * MiB} bytes, over the limit of {16 * MiB} bytes per image"),
        ("SAM_UPLOAD_MAX_BYTES", 8 * MiB, f"the zip unpacks to more than {8 * MiB} bytes"),
    ],
    ids=["per-image", "total"],
)
def test_zip_bomb_upload_is_refused_with_400_and_nothing_stored(curator_client, project_factory, small_png,
                                                                 settings, limit, value, message):
    # given a 64 KB zip with a good image and a 64 MB entry, and a limit below 64 MB
    setattr(settings, limit, value)
    project = project_factory()
    data = zip_with([("ok.png", small_png)], zeros={"scans/bomb.png": 64 * MiB})
    # when it is uploaded into a project
    response, peak = peak_bytes(lambda: curator_client.post(
        "/api/annotation/images/", {"file": SimpleUploadedFile("b.zip", data), "project": project.slug}))
    # then a 400 names the entry and the limit, nothing is stored, and the bomb was never inflated
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "file"
    assert response.json()["detail"].startswith("b.zip:scans/bomb.png: ")
    assert message in response.json()["detail"]
    assert _nothing_stored()
    assert peak < 16 * MiB, f"the refused upload allocated {peak / MiB:.0f} MiB"


def test_corrupt_deflate_data_is_a_400_naming_the_entry(curator_client, project_factory, small_png):
    # given a zip whose second entry has one flipped byte in its deflate data
    project = project_factory()
    data = flip_data_byte(zip_with([("ok.png", small_png), ("scans/flat.bmp", _flat_bmp())]), "scans/flat.bmp")
    # when it is uploaded
    response = curator_client.post("/api/annotation/images/",
                                   {"file": SimpleUploadedFile("c.zip", data), "project": project.slug})
    # then a 400 (not a 500) names the entry, and nothing is stored
    assert response.status_code == 400, response.content
    assert response.json()["detail"].startswith("c.zip:scans/flat.bmp: corrupt zip entry")
    assert _nothing_stored()


def test_project_page_upload_of_a_corrupt_zip_shows_the_entry(client, curator, project_factory, small_png):
    project = project_factory()
    client.force_login(curator)
    data = flip_data_byte(zip_with([("ok.png", small_png), ("scans/flat.bmp", _flat_bmp())]), "scans/flat.bmp")
    response = client.post(f"/annotation/projects/{project.slug}/",
                           {"upload": "1", "file": SimpleUploadedFile("c.zip", data)})
    assert response.status_code == 400
    assert "c.zip:scans/flat.bmp: corrupt zip entry" in response.content.decode()
    assert _nothing_stored()


def test_upload_spooled_to_disk_is_read_from_its_file(curator_client, small_png, settings):
    # given a 30 MB upload (over FILE_UPLOAD_MAX_MEMORY_SIZE, so Django writes it to a temporary file)
    # whose bulk is an archiver entry that is skipped
    data = zip_with([("a/1.png", small_png), ("__MACOSX/a/._big", bytes(30 * MiB))], method=zipfile.ZIP_STORED)
    assert len(data) > settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    body = encode_multipart(BOUNDARY, {"file": SimpleUploadedFile("big.zip", data)})
    # when it is uploaded (the test client copies the body once into its fake socket: that copy is counted)
    response, peak = peak_bytes(lambda: curator_client.post("/api/annotation/images/", body,
                                                            content_type=MULTIPART_CONTENT))
    # then the image is stored and the upload was not also read into memory whole
    assert response.status_code == 201, response.content
    assert [image["original_name"] for image in response.json()["images"]] == ["a/1.png"]
    assert peak < len(body) + 8 * MiB, f"the upload of {len(body) / MiB:.0f} MiB allocated {peak / MiB:.0f} MiB"


def test_an_exif_rotated_upload_is_stored_upright_beside_the_original(curator_client):
    data = exif_jpeg(np.zeros((30, 40, 3), np.uint8), 6)
    response = curator_client.post("/api/annotation/images/", {"file": SimpleUploadedFile("phone.jpg", data)})
    assert response.status_code == 201, response.json()
    [image] = response.json()["images"]
    assert (image["width"], image["height"]) == (30, 40)
    row = Image.objects.get(pk=image["id"])
    with row.original.open("rb") as handle:
        assert handle.read() == data
    with row.file.open("rb") as handle:
        assert handle.read() != data


def _distinct_bmps(count: int, side: int) -> list[tuple[str, bytes]]:
    """`count` flat BMPs of side x side, each a different colour (so none is stored once for another)."""
    entries = []
    for index in range(count):
        buffer = io.BytesIO()
        PILImage.new("RGB", (side, side), (index * 20, 90, 200 - index * 20)).save(buffer, format="BMP")
        entries.append((f"scans/{index}.bmp", buffer.getvalue()))
    return entries


def _warm_up(client, project) -> None:
    """One request without a file first, so the measured one does not also count what a first request imports."""
    assert client.post("/api/annotation/images/", {"project": project.slug}).status_code == 400


def test_a_zip_of_large_bmps_over_the_total_pixels_is_refused_before_any_is_decoded(curator_client, project_factory,
                                                                                      settings):
    # given a small zip of eight 1000x1000 BMPs (3 MB each, each within the per-image limits): 8 MP in all
    settings.SAM_UPLOAD_MAX_TOTAL_PIXELS = 7_000_000
    project = project_factory()
    data = zip_with(_distinct_bmps(8, 1000))
    assert len(data) < 1 * MiB
    _warm_up(curator_client, project)
    # when it is uploaded into a project
    response, peak = peak_bytes(lambda: curator_client.post(
        "/api/annotation/images/", {"file": SimpleUploadedFile("bmps.zip", data), "project": project.slug}))
    # then a 400 names the upload, its total and the limit; nothing is stored; no entry was inflated whole
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "file"
    assert response.json()["detail"] == (
        "bmps.zip: the zip's 8 images hold 8,000,000 pixels in total, over the limit of 7,000,000 pixels for one "
        "upload; nothing was imported")
    assert _nothing_stored()
    assert peak < 2 * MiB, f"the refused upload allocated {peak / MiB:.1f} MiB"


def test_a_zip_of_large_bmps_within_the_limits_is_read_one_image_at_a_time(curator_client, project_factory):
    # given a small zip of eight 1000x1000 BMPs (3 MB each, 24 MB unpacked), within every limit
    project = project_factory()
    data = zip_with(_distinct_bmps(8, 1000))
    _warm_up(curator_client, project)
    # when it is uploaded into a project
    response, peak = peak_bytes(lambda: curator_client.post(
        "/api/annotation/images/", {"file": SimpleUploadedFile("bmps.zip", data), "project": project.slug}))
    # then all eight are stored, and at no time were more than about two of them (3 MB each) held in memory
    assert response.status_code == 201, response.content
    assert len(response.json()["images"]) == 8 and Item.objects.count() == 8
    assert peak < 8 * MiB, f"the upload of 24 MB of BMPs allocated {peak / MiB:.1f} MiB"
