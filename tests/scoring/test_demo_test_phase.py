"""The demo's test phase (issue 30: "The demo must show the hub's central use: a hidden-ground-truth test split with
samples, inputs to download, an example that scores, a quota, and results on the board"): per benchmark a
Development phase on the public demo split and a Test phase on split `demo-test`, hidden ground truth, with samples."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from scoring import pipeline
from scoring.benchmarks.vge.core.library import build_library, build_test_tasks
from scoring.models import Phase, Sample, Split, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def epic_demo(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("make_demo_epic")
    return Split.objects.get(benchmark__slug="epic-bench", name="demo-test")


def test_the_epic_demo_has_a_dev_and_a_test_phase_with_samples_and_a_quota(epic_demo):
    dev = Split.objects.get(benchmark__slug="epic-bench", name="demo")
    assert epic_demo.hidden_ground_truth and not dev.hidden_ground_truth
    assert Sample.objects.filter(split=epic_demo).count() == 23  # one scene per leaf task
    assert (dev.phase.name, epic_demo.phase.name) == ("Development", "Test")
    test = epic_demo.phase
    assert (test.daily_quota, test.total_quota, test.results_at_close, test.closes_at) == (5, 20, False, None)
    # The paper's test split (no samples until the real set is imported) is in the same phase, and not offered
    paper = Split.objects.get(benchmark__slug="epic-bench", name="test")
    assert paper.phase_id == test.pk
    # A baseline is on the test board
    assert Submission.objects.filter(split=epic_demo, status="scored", visibility="public").count() == 1
    call_command("make_demo_epic")  # idempotent
    assert Phase.objects.filter(benchmark__slug="epic-bench").count() == 2
    assert Submission.objects.filter(split=epic_demo).count() == 1


def test_the_test_phase_example_and_inputs_hold_samples_and_the_example_scores(epic_demo, token_client, client):
    example = client.get("/leaderboard/epic-bench/format/demo-test-v1-example.jsonl")
    assert example.status_code == 200
    lines = example.content.decode().splitlines()
    assert len(lines) == 23
    inputs = client.get("/leaderboard/epic-bench/format/demo-test-v1-inputs.zip")
    assert inputs.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(inputs.streaming_content))) as archive:
        questions = [json.loads(line) for line in archive.read("questions.jsonl").decode().splitlines()]
        assert len(questions) == 23
        assert not any(name.endswith((".jpg", ".png")) for name in archive.namelist())  # hidden: no images
    assert not any("ground_truth" in q or "gt" in q for q in questions)
    # The format page offers both phases with their splits
    page = client.get("/leaderboard/epic-bench/format/").content.decode()
    assert "<strong>Test</strong>" in page and "<strong>Development</strong>" in page and "quota per user: 5 a day" in page
    # The example, uploaded as the format page says (raw), is scored
    response = token_client.post("/api/submissions/", {
        "benchmark": "epic-bench", "split": "demo-test", "model": "Example-VLM", "raw": "true",
        "file": SimpleUploadedFile("example.jsonl", example.content)}, format="multipart")
    assert response.status_code == 201, response.json()
    assert pipeline.submission_score(submission_id=response.json()["id"], worker="w") == "scored"
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.status == "scored" and submission.score.overall is not None
    board = client.get("/leaderboard/epic-bench/?split=demo-test").content.decode()
    assert "Example-VLM" in board and "Phase <strong>Test</strong>" in board


def test_the_vge_test_tasks_are_other_tasks_than_the_demo_splits():
    devices, tasks = build_library(seed=7, variants=2)
    test = build_test_tasks(devices, seed=7, every=2)
    assert len(test) == 26 and len({t.device for t in test}) == 26
    assert not {t.id for t in test} & {t.id for t in tasks}
    assert build_test_tasks(devices, seed=7, every=2) == test  # deterministic
