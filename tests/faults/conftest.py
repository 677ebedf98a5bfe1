"""Fixtures of the fault suite: the site's real processes on the test database, the brokers to run against, and
what every case checks at its end (no 5xx, each submission scored once, memory within the bound)."""
from __future__ import annotations

import os
import uuid

import pytest
from rest_framework.authtoken.models import Token

from scoring.models import Score, Submission
from tests.faults.processes import PEAK_RSS_LIMIT_MIB, Beat, Server, Worker, site_env

# The brokers a fault case runs against: the run's CELERY_BROKER_URL (Redis in `make test`) and RabbitMQ.
BROKER_VARS = {"redis": "CELERY_BROKER_URL", "rabbitmq": "AMQP_BROKER_URL"}


@pytest.fixture(params=sorted(BROKER_VARS))
def broker_url(request) -> str:
    var = BROKER_VARS[request.param]
    url = os.environ.get(var, "")
    expected = "redis://" if request.param == "redis" else "amqp://"
    if not url.startswith(expected):
        message = f"fault case on {request.param}: set {var} to a {expected} URL (make test does)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and {message}")
        pytest.skip(message)
    return url


@pytest.fixture
def site(transactional_db, tmp_path):
    """Starts the site's processes on demand and ends them all at the end (no graceful stop: the case is over),
    printing their logs' tails."""
    started = []

    class Site:
        def server(self, **env: str) -> Server:
            process = Server(site_env(**env), tmp_path / f"server-{len(started)}.log").start()
            started.append(process)
            return process

        def worker(self, *, purge: bool = True, **env: str) -> Worker:
            process = Worker(f"fault-{uuid.uuid4().hex[:8]}@localhost", site_env(**env),
                             tmp_path / f"worker-{len(started)}.log")
            if purge:
                process.purge()
            started.append(process.start())
            return process

        def beat(self, **env: str) -> Beat:
            n = len(started)
            process = Beat(site_env(**env), tmp_path / f"beat-{n}.log", tmp_path / f"beat-{n}.schedule").start()
            started.append(process)
            return process

    yield Site()
    for process in started:
        process.end()
    for process in started:
        tail = process.log_tail(1500)
        if tail:
            print(f"--- {process.log_path.name} ---\n{tail}")


@pytest.fixture
def token(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def assert_within_memory_bound(*processes) -> dict[str, float]:
    """Each process's peak resident memory is under the suite's bound; returns the figures (MiB) for the report."""
    peaks = {process.log_path.stem: round(process.peak_rss_mib(), 1) for process in processes}
    print(f"peak RSS (MiB): {peaks}")
    assert all(peak < PEAK_RSS_LIMIT_MIB for peak in peaks.values()), peaks
    return peaks


def assert_each_scored_once(submission_ids) -> None:
    """Nothing lost (every submission reached a final state) and nothing duplicated (one score, one attempt)."""
    submissions = Submission.objects.filter(pk__in=submission_ids)
    assert submissions.count() == len(set(submission_ids))
    for submission in submissions:
        assert submission.status == "scored", (submission.pk, submission.status, submission.error_message)
        assert Score.objects.filter(submission=submission).count() == 1
