"""Hostile input shapes through the site's real processes (issue 26): one very long JSON line, deep JSON nesting,
a mask RLE declaring a huge size, a small zip of large BMPs. Each is answered as the input's fault (no 5xx), and
the peak resident memory (VmHWM) of the web process, and of the worker where a file is scored, grows by at most
the bound beside the case in docs/reliability.md."""
from __future__ import annotations

import copy
import io
import json
import zipfile

import httpx
import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group
from PIL import Image as PILImage
from rest_framework.authtoken.models import Token
from websockets.sync.client import connect

from annotation import embeddings
from annotation.models import Embedding, Image, Item
from annotation.services.projects import images_upload, items_assign, project_create
from scoring.models import Submission
from simulator.models import Episode
from simulator.services.episodes import episode_start
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.annotation.zip_helpers import MiB
from tests.faults.conftest import assert_within_memory_bound
from tests.faults.processes import wait_for
from tests.scoring.bench_splits import BENCHMARKS, options_for, split_of
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task
from tests.websockets import headers_for

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True), pytest.mark.timeout(600)]

# One JSON line of 10,000,000 empty objects, 30 MB (decoded whole it took a process to ~27x its size).
LONG_LINE = b'{"id": "x", "objects": [' + b"{}," * 10_000_000 + b"{}]}\n"
DEEP = "[" * 100_000 + "]" * 100_000  # 200 KB; Python's json would recurse 100,000 deep
HUGE_RLE = {"size": [20000, 20000], "counts": "0"}  # 20 bytes declaring 400 MP
# Growth bounds (MiB) of one case's processes over their idle size; the figures measured are in docs/reliability.md.
LINE_GROWTH_MIB = 150
SMALL_INPUT_GROWTH_MIB = 50
BMP_GROWTH_MIB = 120


def _growth(process, idle: float) -> float:
    return round(process.peak_rss_mib() - idle, 1)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def test_one_very_long_line_to_the_precheck_and_the_worker(site, user, token, tmp_path):
    # Given a split of each benchmark, the server and a worker
    splits = {benchmark: split_of(benchmark, tmp_path / benchmark) for benchmark in BENCHMARKS}
    server = site.server()
    worker = site.worker()
    worker.wait_ready()
    # and a server whose intake reads no file whole (PRECHECK_MAX_BYTES=1: the sniff only), so the worker gets one
    past_intake = site.server(PRECHECK_MAX_BYTES="1")
    server_idle, worker_idle, past_idle = server.rss_mib(), worker.rss_mib(), past_intake.rss_mib()
    try:
        _long_line_to_each(server, past_intake, token, splits)
    finally:
        growth = {"server": _growth(server, server_idle), "worker": _growth(worker, worker_idle),
                  "server past the intake": _growth(past_intake, past_idle)}
        print(f"30 MB line, pre-check and upload on {len(splits)} benchmarks: growth (MiB) {growth}")
    # and neither process grew by more than a few times the line bound
    assert_within_memory_bound(server, worker, past_intake)
    assert max(growth.values()) < LINE_GROWTH_MIB, growth


def _long_line_to_each(server, past_intake, token: str, splits) -> None:
    for benchmark, split in splits.items():
        form = {"benchmark": benchmark, "split": split.name, "options": json.dumps(options_for(benchmark))}
        # When a 30 MB one-line file goes to the anonymous pre-check
        response = httpx.post(f"{server.url}/api/submissions/precheck/", data=form, timeout=120,
                              files={"file": ("long.jsonl", LONG_LINE)})
        # Then it is the file's problem at line 1, naming the limit
        assert response.status_code == 200, response.text[:500]
        assert not response.json()["ok"]
        assert "line 1: a line of more than 4,194,304 bytes" in json.dumps(response.json()["problems"]), response.text
        # When it is uploaded: the intake refuses it for the same reason, before anything is stored
        stored = Submission.objects.count()
        response = httpx.post(f"{server.url}/api/submissions/", headers=_auth(token), timeout=120,
                              data={**form, "model": "Long"}, files={"file": ("long.jsonl", LONG_LINE)})
        assert response.status_code == 400, response.text[:500]
        assert "line 1: a line of more than 4,194,304 bytes" in json.dumps(response.json()["problems"]), response.text
        assert Submission.objects.count() == stored
        # When it reaches the worker past the intake (a server that pre-checks no file whole) and is scored
        response = httpx.post(f"{past_intake.url}/api/submissions/", headers=_auth(token), timeout=120,
                              data={**form, "model": "Long"}, files={"file": ("long.jsonl", LONG_LINE)})
        assert response.status_code == 201, response.text[:500]
        submission_id = response.json()["id"]
        wait_for(lambda pk=submission_id: Submission.objects.get(pk=pk).is_final, timeout=300, what="the scoring run")
        # Then it failed as the file's fault, at line 1
        submission = Submission.objects.get(pk=submission_id)
        assert submission.status == "failed" and submission.failure_is_site_error is False
        assert "line 1: a line of more than 4,194,304 bytes" in submission.error_message


@pytest.fixture
def tiny_episode(user) -> Episode:
    device_upsert(data=copy.deepcopy(TINY), source="test")
    split = split_ensure(name="dev", public=True)
    tasks = [make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2")]
    tasks_into_split(tasks=tasks, split=split)
    return episode_start(user=user, task_id="tiny/t2", kind=Episode.Kind.HUMAN)[0]


def test_deep_json_to_the_api_and_the_play_socket(site, user, token, tiny_episode):
    server = site.server()
    server_idle = server.rss_mib()
    # When a 200 KB body nesting 100,000 deep is posted to JSON endpoints
    for path in ("/api/vge/episodes/", "/api/vge/submissions/"):
        response = httpx.post(f"{server.url}{path}", headers={**_auth(token), "Content-Type": "application/json"},
                              content=DEEP, timeout=60)
        print(f"{path} nesting 100,000 deep: {response.status_code}, server growth {_growth(server, server_idle)} MiB")
        # Then each is a 400 naming the limit
        assert response.status_code == 400, (path, response.status_code, response.text[:300])
        assert "nested too deeply" in response.json()["detail"]
    # When the play socket gets a 3 KB message nesting 1,500 deep
    cookie = dict(headers_for(user))[b"cookie"].decode()
    url = f"ws://127.0.0.1:{server.port}/ws/vge/episodes/{tiny_episode.pk}/"
    with connect(url, additional_headers={"Origin": "http://127.0.0.1", "Cookie": cookie}, open_timeout=30) as socket:
        assert json.loads(socket.recv(timeout=30))["type"] == "state"
        socket.send("[" * 1500 + "]" * 1500)
        refused = json.loads(socket.recv(timeout=30))
        # Then it is refused, and the socket stays open and answers the next message
        assert refused["type"] == "refused" and "more than 8 deep" in refused["message"], refused
        socket.send(json.dumps([1, 2, 3]))
        assert "Unknown message type" in json.loads(socket.recv(timeout=30))["message"]
    assert_within_memory_bound(server)
    growth = _growth(server, server_idle)
    print(f"deep JSON (API 100,000 deep, socket 1,500 deep): server growth {growth} MiB")
    assert growth < SMALL_INPUT_GROWTH_MIB


def _user_in(django_user_model, name: str, group: str):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def curator(django_user_model):
    return _user_in(django_user_model, "curator-s", "curator")


@pytest.fixture
def project(curator):
    return project_create(user=curator, name="Colors", slug="colors",
                          leaf="TargetLocalization/BasicAttributes/Color")


def test_a_huge_declared_rle_to_the_segment_api_and_an_item_save(site, django_user_model, curator, project, settings,
                                                                  tmp_path):
    # Given an annotator's item of a 640x360 image, with its embedding computed (in this test's own folder)
    settings.SAM_EMBEDDING_DIR = tmp_path / "embeddings"
    annotator = _user_in(django_user_model, "anna-s", "annotator")
    token = Token.objects.get_or_create(user=annotator)[0].key
    [item] = images_upload(user=curator, name="scene.png", data=_png(640, 360),
                           project=project).items
    items_assign(user=curator, items=[item], assignee=annotator)
    image = item.item_images.get().image
    server = site.server(SAM_EMBEDDING_DIR=str(settings.SAM_EMBEDDING_DIR))
    segment = f"{server.url}/api/annotation/images/{image.pk}/segment/"
    response = httpx.post(segment, headers=_auth(token), json={"points": [[10, 10, 1]]}, timeout=60)
    assert response.status_code == 202, response.text
    embeddings.embedding_compute(embedding_id=Embedding.objects.get(image=image).pk)
    server_idle = server.rss_mib()
    # When a 20-byte RLE declaring 20000x20000 is sent as the segment API's mask_input
    response = httpx.post(segment, headers=_auth(token), json={"points": [[10, 10, 1]], "mask_input": HUGE_RLE},
                          timeout=120)
    print(f"RLE declaring 20000x20000 to the segment API: {response.status_code}, "
          f"server growth {_growth(server, server_idle)} MiB")
    # Then it is a 400 naming the field
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "mask_input", response.json()
    # When it is an instance of an item save
    response = httpx.put(f"{server.url}/api/annotation/items/{item.pk}/", headers=_auth(token), timeout=120,
                         json={"version": 1, "texts": {"text_label": "the red disc"}, "count": 1,
                               "instances": {"masklet_target": [HUGE_RLE]}})
    print(f"... and in an item PUT: {response.status_code}, server growth {_growth(server, server_idle)} MiB")
    # Then it is a 400 naming the instance and the sizes
    assert response.status_code == 400, response.text
    assert "mask is 20000x20000, image 1 is 640x360" in response.json()["detail"], response.json()
    assert_within_memory_bound(server)
    growth = _growth(server, server_idle)
    print(f"RLE declaring 20000x20000 (segment API, item PUT): server growth {growth} MiB")
    assert growth < SMALL_INPUT_GROWTH_MIB


def _bmp_zip(count: int, side: int) -> bytes:
    """A zip of `count` flat BMPs of side x side, each its own colour, written one at a time."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(count):
            buffer = io.BytesIO()
            PILImage.new("RGB", (side, side), (index * 20, 90, 200 - index * 20)).save(buffer, format="BMP")
            archive.writestr(f"scans/{index}.bmp", buffer.getvalue())
            del buffer
    return out.getvalue()


def _media_files() -> list:
    return [path for path in django_settings.MEDIA_ROOT.rglob("*") if path.is_file()]


def test_a_small_zip_of_large_bmps(site, curator, project):
    token = Token.objects.get_or_create(user=curator)[0].key
    server = site.server()
    upload = f"{server.url}/api/annotation/images/"
    # Given the zip: eight 6320x6320 BMPs (958 MB unpacked, each within the per-image limits), under 1 MB
    finding = _bmp_zip(8, 6320)
    assert len(finding) < 1 * MiB
    server_idle = server.rss_mib()
    # When it is uploaded
    response = httpx.post(upload, headers=_auth(token), data={"project": project.slug},
                          files={"file": ("bmps.zip", finding)}, timeout=300)
    refused = _growth(server, server_idle)
    print(f"zip of 8 x 6320^2 BMPs: {response.status_code}, server growth {refused} MiB")
    # Then a 400 names the upload and its total, nothing is stored, and the server barely grew
    assert response.status_code == 400, response.text
    assert response.json()["detail"] == (
        "bmps.zip: the zip's 8 images hold 319,539,200 pixels in total, over the limit of 250,000,000 pixels for "
        "one upload; nothing was imported")
    assert Image.objects.count() == 0 and Item.objects.count() == 0 and _media_files() == []
    # When eight 2000x2000 BMPs (96 MB unpacked), within the limits, are uploaded
    response = httpx.post(upload, headers=_auth(token), data={"project": project.slug},
                          files={"file": ("within.zip", _bmp_zip(8, 2000))}, timeout=300)
    # Then all are stored, and the server held about one of them at a time
    assert response.status_code == 201, response.text
    assert Item.objects.count() == 8
    assert_within_memory_bound(server)
    accepted = _growth(server, server_idle)
    print(f"zip of BMPs: server growth {refused} MiB (8 x 6320^2, refused), {accepted} MiB (8 x 2000^2, stored)")
    assert refused < SMALL_INPUT_GROWTH_MIB
    assert accepted < BMP_GROWTH_MIB
