"""Hostile files through the real server and worker: a 1,000,000-line prediction file on each benchmark, a zip
bomb and a corrupt zip as annotation uploads. Each is refused as the file's fault with where it went wrong,
nothing is stored that should not be, no 5xx, and no process of the site goes past the memory bound."""
from __future__ import annotations

import io
import json

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from PIL import Image as PILImage
from rest_framework.authtoken.models import Token

from annotation.models import Image, Item
from annotation.services.projects import project_create
from scoring.models import Submission
from tests.annotation.zip_helpers import MiB, flip_data_byte, zip_with
from tests.faults.conftest import assert_within_memory_bound
from tests.faults.processes import wait_for
from tests.scoring.bench_splits import BENCHMARKS, options_for, split_of

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

BOMB_ENTRY_BYTES = 1024 * MiB  # a 1 GiB entry: about 1 MB zipped


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_million_line_file_fails_as_the_files_fault_in_bounded_memory(site, user, token, tmp_path, benchmark):
    # Given a split of the benchmark, the server and a worker
    split = split_of(benchmark, tmp_path)
    server = site.server(PRECHECK_MAX_BYTES="1")  # its intake reads no file whole: the worker gets this one
    worker = site.worker()
    worker.wait_ready()
    worker_idle = worker.rss_mib()

    # When a 3 MB file of 1,000,000 lines "{}" is uploaded
    response = httpx.post(f"{server.url}/api/submissions/", headers={"Authorization": f"Token {token}"}, timeout=120,
                          data={"benchmark": benchmark, "split": split.name, "model": "Flood",
                                "options": json.dumps(options_for(benchmark))},
                          files={"file": ("flood.jsonl", b"{}\n" * 1_000_000)})
    assert response.status_code == 201, response.text
    submission_id = response.json()["id"]
    wait_for(lambda: Submission.objects.get(pk=submission_id).is_final, timeout=300, what="the scoring run")

    # Then it failed as the file's fault, with at most 100 problems stored and their total
    submission = Submission.objects.get(pk=submission_id)
    assert submission.status == "failed" and submission.failure_is_site_error is False
    assert submission.attempts == 1
    assert len(submission.error_report) <= 101
    detail = httpx.get(f"{server.url}/api/submissions/{submission_id}/", headers={"Authorization": f"Token {token}"})
    assert detail.status_code == 200 and len(detail.content) < 200_000, len(detail.content)
    # and the worker grew by far less than the file's worth of parsed lines
    peaks = assert_within_memory_bound(server, worker)
    growth = worker.peak_rss_mib() - worker_idle
    print(f"{benchmark}: worker idle {worker_idle:.0f} MiB, peak {peaks[worker.log_path.stem]} MiB, "
          f"growth {growth:.1f} MiB")
    assert growth < 300


@pytest.fixture
def project(django_user_model):
    curator = django_user_model.objects.create_user("curator-f", password="pw-curator-f")
    curator.groups.add(Group.objects.get_or_create(name="curator")[0])
    project = project_create(user=curator, name="Colors", slug="colors",
                             leaf="TargetLocalization/BasicAttributes/Color")
    return project, Token.objects.get_or_create(user=curator)[0].key


def _png() -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (40, 30), (90, 90, 90)).save(buffer, format="PNG")
    return buffer.getvalue()


def _media_files() -> list:
    return [path for path in settings.MEDIA_ROOT.rglob("*") if path.is_file()]


@pytest.mark.parametrize("kind", ["bomb", "corrupt"])
def test_a_zip_bomb_or_corrupt_zip_is_a_400_naming_the_entry_and_stores_nothing(site, project, kind):
    project, token = project
    server = site.server()
    if kind == "bomb":  # about 1 MB holding a good image and a 1 GiB entry
        data = zip_with([("ok.png", _png())], zeros={"scans/bomb.png": BOMB_ENTRY_BYTES})
    else:  # one flipped byte in the deflate data of the second entry
        data = flip_data_byte(zip_with([("ok.png", _png()), ("scans/flat.bmp", _png() * 40)]), "scans/flat.bmp")
    server_before = server.rss_mib()

    response = httpx.post(f"{server.url}/api/annotation/images/", headers={"Authorization": f"Token {token}"},
                          data={"project": project.slug}, files={"file": ("b.zip", data)}, timeout=120)

    assert response.status_code == 400, response.text
    body = response.json()
    assert body["field"] == "file"
    entry = "scans/bomb.png" if kind == "bomb" else "scans/flat.bmp"
    assert body["detail"].startswith(f"b.zip:{entry}: "), body
    assert Image.objects.count() == 0 and Item.objects.count() == 0 and _media_files() == []
    assert_within_memory_bound(server)
    growth = server.peak_rss_mib() - server_before
    print(f"zip {kind} ({len(data) / MiB:.1f} MiB): server grew {growth:.1f} MiB")
    assert growth < 100
