"""A fourth benchmark is one package and one registration (docs/adding-a-benchmark.md): Tiny-Bench, which lives in
tests/tiny_benchmark/, is uploaded to, scored by the same pipeline, shown on its board and scored by the CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import benchmarks
from scoring.models import Score, Submission
from tests.scoring.factories import SampleFactory, SplitFactory
from tests.tiny_benchmark.plugin import PLUGIN, SLUG

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = [("q1", "colour", "red"), ("q2", "colour", "blue"), ("q3", "shape", "cube"), ("q4", "shape", "ball")]
ANSWERS = b'{"id": "q1", "answer": "Red"}\n{"id": "q2", "answer": "green"}\n{"id": "q3", "answer": "cube"}\n'


@pytest.fixture
def tiny_split(register_benchmark):
    register_benchmark(PLUGIN)
    split = SplitFactory(benchmark__slug=SLUG, benchmark__name="Tiny-Bench", benchmark__scorer=SLUG, name="dev")
    for position, (key, kind, answer) in enumerate(SAMPLES):
        SampleFactory(split=split, key=key, position=position, task=kind, ground_truth={"answer": answer})
    return split


@pytest.mark.django_db
def test_a_registered_benchmark_is_scored_and_shown_on_its_board(tiny_split, token_client, client, celery_eager,
                                                                 django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client.post("/api/submissions/", {
            "benchmark": SLUG, "split": "dev", "model": "Tiny-VLM", "file": SimpleUploadedFile("a.jsonl", ANSWERS),
        }, format="multipart")
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.status == Submission.Status.SCORED, submission.error_message
    score = Score.objects.get(submission=submission)
    assert score.overall == pytest.approx(50.0)  # red and cube right, blue wrong, ball missing
    assert score.breakdown == {"colour": pytest.approx(50.0), "shape": pytest.approx(50.0)}
    assert score.scorer_version == "tiny-1"

    page = client.get(f"/leaderboard/{SLUG}/").content.decode()
    assert "Tiny-VLM" in page and "Colour" in page and "Shape" in page
    board = client.get(f"/api/leaderboards/{SLUG}/").json()
    assert [c["key"] for c in board["columns"]] == ["overall", "colour", "shape"]
    assert board["rows"][0]["intervals"].get("overall") == score.intervals.get("overall")  # headline_key's default

    # A plugin that sets none of the board hooks gets the generic drill-down: each sample's row, no image.
    client.force_login(submission.submitter)
    samples = client.get(f"/submissions/{submission.pk}/samples/")
    assert samples.status_code == 200 and samples.context["items"][0]["view"] == {}
    assert 'id="overlay-legend"' not in samples.content.decode()
    assert client.get(f"/submissions/{submission.pk}/samples/0/overlay.png").status_code == 404


@pytest.mark.django_db
def test_a_benchmark_that_is_not_registered_is_refused_with_the_reason(token_client, celery_eager,
                                                                      django_capture_on_commit_callbacks):
    split = SplitFactory(benchmark__slug="unknown-bench", benchmark__scorer="unknown-bench", name="dev")
    SampleFactory(split=split, key="k")
    with django_capture_on_commit_callbacks(execute=True):
        response = token_client.post("/api/submissions/", {
            "benchmark": "unknown-bench", "split": "dev", "model": "M", "file": SimpleUploadedFile("a.txt", b"1\n"),
        }, format="multipart")
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.status == Submission.Status.FAILED
    assert "No scorer for this benchmark yet ('unknown-bench')" in submission.error_message


def test_registering_and_unregistering_leaves_the_built_in_benchmarks():
    assert [p.slug for p in benchmarks.plugins()][:3] == ["epic-bench", "plan-bench", "vge-bench"]
    previous = benchmarks.register(PLUGIN)
    assert previous is None and benchmarks.plugin_for(SLUG) is PLUGIN
    benchmarks.unregister(SLUG)
    with pytest.raises(benchmarks.UnknownBenchmark):
        benchmarks.plugin_for(SLUG)


def test_the_cli_scores_a_benchmark_named_by_extra_benchmarks(tmp_path):
    samples = tmp_path / "samples.json"
    samples.write_text(json.dumps([{"key": k, "task": t, "answer": a} for k, t, a in SAMPLES]))
    answers = tmp_path / "answers.jsonl"
    answers.write_bytes(ANSWERS)
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env.update(PYTHONPATH=str(ROOT), EXTRA_BENCHMARKS="tests.tiny_benchmark.plugin:PLUGIN")
    run = subprocess.run([sys.executable, "-m", "scoring", SLUG, "--samples", str(samples), str(answers)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"overall": 50.0}
    listing = subprocess.run([sys.executable, "-m", "scoring", "--help"], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
    assert "tiny-bench" in listing.stdout and "epic-bench" in listing.stdout
