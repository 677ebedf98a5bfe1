"""EPIC-Bench's coordinate mode from the web form and the client, the submission page's facts of the upload (file
name, size, options, scorer version, how coordinates were read) and the download of its per-sample results, which
shows a viewer what the drill-down shows them."""
from __future__ import annotations

import io
import json

import httpx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.wsgi import get_wsgi_application
from rest_framework.authtoken.models import Token

from scoring import pipeline
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.core.fields import FAMILY_COORDINATES
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.client import main as client_main
from scoring.models import Benchmark, Submission
from tests.scoring.bench_splits import good_file, split_of, upload

pytestmark = pytest.mark.django_db


def post_form(client, split, body: bytes, **fields):
    return client.post("/submissions/new/", {"split": split.pk, "model_name": "Form-VL",
                                             "file": SimpleUploadedFile("answers.jsonl", body), **fields})


def test_the_form_sends_the_coordinate_mode_and_the_page_says_it_was_chosen(client, user, tmp_path):
    split = split_of("epic-bench", tmp_path)
    client.force_login(user)
    response = post_form(client, split, good_file("epic-bench"), raw_responses="on", coord_mode="normalized_0_1000")
    submission = Submission.objects.get()
    assert response.status_code == 302 and submission.options == {"raw": True, "coord_mode": "normalized_0_1000"}
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "Raw responses: yes; Coordinate mode: normalized_0_1000" in html
    assert '<dd id="upload-coordinates"><code>normalized_0_1000</code>, chosen on upload' in html
    # Every sample's boxes (or path) were read in the chosen mode.
    coordinates = submission.score.details["coordinates"]
    assert coordinates["decided_by"] == "upload" and set(coordinates["resolved"]) == {"normalized_0_1000"}


def test_auto_is_the_default_and_the_page_says_auto_detection_decided(client, user, tmp_path):
    split = split_of("epic-bench", tmp_path)
    client.force_login(user)
    post_form(client, split, good_file("epic-bench"), raw_responses="on", coord_mode="auto")
    submission = Submission.objects.get()
    assert submission.options == {"raw": True}
    pipeline.submission_score(submission_id=submission.pk, worker="test")
    submission.refresh_from_db()
    coordinates = submission.score.details["coordinates"]
    assert coordinates["mode"] == "auto" and coordinates["decided_by"] == "auto"
    assert sum(coordinates["resolved"].values()) == split.samples.count()  # the oracle's pixel boxes
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "<code>auto</code>, auto-detected per sample (read as <code>absolute</code>" in html


def test_the_form_shows_the_model_families_usual_modes(client, user, tmp_path):
    split_of("epic-bench", tmp_path)
    client.force_login(user)
    html = client.get("/submissions/new/").content.decode()
    assert 'name="coord_mode"' in html
    for family, mode in FAMILY_COORDINATES:
        assert f"{family} {mode}" in html


@pytest.mark.parametrize("extra, expected", [
    (["--family", "Gemini"], {"coord_mode": "normalized_0_1000"}),
    (["--family", "Gemini", "--coord-mode", "absolute"], {"coord_mode": "absolute"}),  # the mode wins
    (["--coord-mode", "auto"], {}),
])
@pytest.mark.django_db(transaction=True)
def test_the_client_sends_the_coordinate_mode(user, tmp_path, celery_eager, extra, expected):
    split = split_of("epic-bench", tmp_path / "layout")
    token = Token.objects.create(user=user).key
    path = tmp_path / "raw.jsonl"
    path.write_bytes(good_file("epic-bench"))
    out = io.StringIO()
    code = client_main(["submit", "--url", "http://testserver", "--token", token, "--benchmark", "epic-bench",
                        "--split", split.name, "--model", "Client-VL", "--raw", "--interval", "0", *extra, str(path)],
                       transport=httpx.WSGITransport(app=get_wsgi_application()), out=out)
    assert code == 0, out.getvalue()
    assert Submission.objects.get().options == {"raw": True, **expected}


def test_the_page_shows_the_files_facts_and_the_download_has_what_the_drilldown_shows(client, user, other_user,
                                                                                      tmp_path):
    split = split_of("epic-bench", tmp_path)  # hidden ground truth
    submission = upload(user, split, good_file("epic-bench"), options={"raw": True}, name="my answers.jsonl")
    pipeline.submission_score(submission_id=submission.pk, worker="test")
    submission.refresh_from_db()
    client.force_login(user)
    html = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert '<dd id="upload-file-name">my answers.jsonl</dd>' in html
    assert f"({submission.size_bytes} bytes)" in html and submission.sha256 in html
    assert f'<dd id="upload-scorer">{submission.scorer_version}</dd>' in html
    download = client.get(f"/submissions/{submission.pk}/samples.jsonl")
    assert download.status_code == 200 and "attachment" in download["Content-Disposition"]
    rows = [json.loads(x) for x in b"".join(download.streaming_content).splitlines()]
    assert len(rows) == split.samples.count() and all(r["score"] is not None for r in rows)
    allowed = {"line", "notes", "message", "localization", "coordinate_system", "pred_boxes", "boxes_px",
               "pred_boxes_px", "pred_empty", "pred_shape", "iou", "count", "pred_count", "binary", "pred", "path",
               "points_before_filter", "points_after_filter", "points_px", "path_points_px", "point_scores",
               "start_end", "feasibility", "localization_score", "count_score", "path_score", "binary_score"}

    def keys(value):
        if isinstance(value, dict):
            return set(value) | {k for v in value.values() for k in keys(v)}
        if isinstance(value, list):
            return {k for v in value for k in keys(v)}
        return set()
    shown = {k for r in rows for k in keys(r["details"]) | keys(r["components"])}
    assert shown and shown <= allowed  # e.g. no gt_error, gt_count or weights on a hidden split
    client.force_login(other_user)
    assert client.get(f"/submissions/{submission.pk}/samples.jsonl").status_code == 404


def test_0_to_1000_boxes_on_large_images_need_the_mode_and_the_form_gives_it(client, user, tmp_path):
    """The listed problem: 0-1000 boxes on images over 1000 px are read as pixels in auto mode (every value is
    within the image); choosing normalized_0_1000 on the form scores them as meant."""
    Benchmark.objects.get_or_create(slug="epic-bench", defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    samples = demo.make_split(5, per_leaf=0, sizes=((1200, 1600),), counts={"GroundDetection": 2,
                                                                            "AffordanceRegion": 2})
    demo.write_layout(tmp_path, samples)
    split, report = epic_split_import(path=tmp_path, split_name="large", hidden=False)
    assert report.problems == []

    def response(sample):
        boxes = [[round(x1 * 1000 / sample.width), round(y1 * 1000 / sample.height), round(x2 * 1000 / sample.width),
                  round(y2 * 1000 / sample.height)] for x1, y1, x2, y2 in sample.truth["boxes"]]
        return "```json\n" + json.dumps({"bounding_boxes": boxes}) + "\n```"

    thousandths = "".join(json.dumps(demo.raw_line(s, response(s))) + "\n" for s in samples).encode()
    pixels = "".join(json.dumps(demo.raw_line(s, demo.oracle_response(s))) + "\n" for s in samples).encode()
    client.force_login(user)
    overall = {}
    for name, body, mode, read_as in (("pixels", pixels, "auto", "absolute"),
                                      ("auto", thousandths, "auto", "absolute"),
                                      ("chosen", thousandths, "normalized_0_1000", "normalized_0_1000")):
        post_form(client, split, body, raw_responses="on", coord_mode=mode)
        submission = Submission.objects.order_by("-pk").first()
        assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
        submission.refresh_from_db()
        overall[name] = submission.score.overall
        assert set(submission.score.details["coordinates"]["resolved"]) == {read_as}
    # Chosen, the 0-1000 answers score as the same answers in pixels (up to rounding); left to auto, far less.
    assert abs(overall["chosen"] - overall["pixels"]) < 3 and overall["auto"] < overall["pixels"] - 30, overall


def test_the_upload_block_names_the_run_set_and_links_to_the_board(client, user, tmp_path):
    split = split_of("epic-bench", tmp_path)
    client.force_login(user)
    post_form(client, split, good_file("epic-bench"), raw_responses="on", run_set="seed  sweep")
    post_form(client, split, good_file("epic-bench"), raw_responses="on")
    labelled, single = Submission.objects.order_by("pk")
    assert labelled.run_set == "seed sweep"
    html = client.get(f"/submissions/{labelled.pk}/").content.decode()
    board = f"/leaderboard/{split.benchmark.slug}/?split={split.name}&amp;q=Form-VL"
    assert f'<dd id="upload-run-set">Repeated run of: <a href="{board}">seed sweep</a>' in html
    # A single run says nothing about run sets.
    assert "upload-run-set" not in client.get(f"/submissions/{single.pk}/").content.decode()
