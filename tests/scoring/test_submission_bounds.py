"""A file far longer than its split is refused at the split's line bound, saying the limit and why; a failed
submission stores its first problems and how many there were in all; scoring a million-line file stays within a
bounded amount of memory, on every benchmark."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import pipeline
from tests.conftest import subprocess_database_url
from tests.scoring.bench_splits import BENCHMARKS, options_for, split_of, upload

ROOT = Path(__file__).resolve().parents[2]


def lines_allowed(samples: int) -> int:
    """The documented bound: twice the split's samples, and never fewer than the samples plus 1,000."""
    return max(2 * samples, samples + 1000)


@pytest.mark.django_db
@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_file_past_the_line_bound_is_refused_with_the_limit_and_why(user, tmp_path, benchmark):
    # Given a file of 5,000 well-formed lines for a split of at most a few dozen samples
    split = split_of(benchmark, tmp_path)
    samples = split.samples.count()
    limit = lines_allowed(samples)
    body = b"".join(b'{"id": "extra-%d", "prediction": "A"}\n' % n for n in range(5000))
    submission = upload(user, split, body, options=options_for(benchmark))

    # When it is scored
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "failed"

    # Then it is the file's fault, and the one problem says where reading stopped, the limit and why
    submission.refresh_from_db()
    assert submission.failure_is_site_error is False
    assert f"this split has {samples:,} samples" in submission.error_message
    assert f"at most {limit:,} lines" in submission.error_message
    assert len(submission.error_report) == 1
    assert submission.error_report[0]["line"] == limit + 1


@pytest.mark.django_db
@pytest.mark.parametrize("benchmark", ["epic-bench", "vge-bench"])
def test_stored_problems_are_the_first_hundred_and_the_total_shows(user, token_client, client, tmp_path, benchmark):
    # Given a file of 600 lines (within the bound) that are each a problem
    split = split_of(benchmark, tmp_path)
    submission = upload(user, split, b"{}\n" * 600, options=options_for(benchmark))

    # When it is scored
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "failed"

    # Then the first 100 problems are stored, then one entry saying how many more there were
    submission.refresh_from_db()
    report = submission.error_report
    assert len(report) == 101
    assert [p["line"] for p in report[:100]] == list(range(1, 101))
    assert report[100]["more"] == 500 and "500 more" in report[100]["message"]
    # and the API gives the total, the page says "and 500 more"
    body = token_client.get(f"/api/submissions/{submission.pk}/").json()
    assert body["error_count"] == 600 and len(body["error_report"]) == 101
    client.force_login(user)
    assert "and 500 more problems" in client.get(f"/submissions/{submission.pk}/").content.decode()


def scored_in_a_fresh_process(submission, settings) -> dict:
    """Score `submission` through the pipeline in a new interpreter (tests.scoring.memory_probe); its figures."""
    env = dict(os.environ, DATABASE_URL=subprocess_database_url(), MEDIA_ROOT=str(settings.MEDIA_ROOT),
               PYTHONPATH=str(ROOT))
    run = subprocess.run([sys.executable, "-m", "tests.scoring.memory_probe", str(submission.pk)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_million_line_file_is_scored_in_bounded_memory(user, settings, tmp_path, benchmark):
    # Given a 3 MB file of 1,000,000 lines "{}" (what grew a worker from 695 to 2,225 MiB)
    split = split_of(benchmark, tmp_path)
    submission = upload(user, split, b"{}\n" * 1_000_000, options=options_for(benchmark))

    # When a fresh process scores it through the pipeline
    probe = scored_in_a_fresh_process(submission, settings)

    # Then it failed as the file's fault, with a bounded report, and the process grew by far less than 300 MiB
    submission.refresh_from_db()
    assert probe["outcome"] == "failed" and submission.failure_is_site_error is False
    assert len(submission.error_report) <= 101
    assert probe["growth_mib"] < 300, probe


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_one_very_long_line_is_refused_in_bounded_memory(user, settings, tmp_path, benchmark):
    # Given a 30 MB file of one JSON line of 10,000,000 empty objects (decoded whole it grew a worker ~27x its size)
    split = split_of(benchmark, tmp_path)
    body = b'{"id": "x", "objects": [' + b"{}," * 10_000_000 + b"{}]}\n"
    submission = upload(user, split, body, options=options_for(benchmark))

    # When a fresh process scores it through the pipeline
    probe = scored_in_a_fresh_process(submission, settings)

    # Then it failed as the file's fault at line 1, naming the limit, and the process grew by less than 100 MiB
    assert probe["growth_mib"] < 100, probe
    submission.refresh_from_db()
    assert probe["outcome"] == "failed" and submission.failure_is_site_error is False
    assert "line 1: a line of more than 4,194,304 bytes" in submission.error_message
    assert submission.error_report[0]["line"] == 1
