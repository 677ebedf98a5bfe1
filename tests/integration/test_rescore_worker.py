"""A worker started on a new scorer version re-scores what the old one scored (the deploy's trigger), each
submission once, keeping the old scores; killed mid-run and started again, it still scores each once (issue 29).

Runs on whatever database and broker the environment configures, like tests/integration/test_worker.py.
"""
from __future__ import annotations

import time
import uuid

import pytest
from django.core.files.base import ContentFile

from scoring import pipeline
from scoring.models import RescoreItem, RescoreRun, SampleScore, Score, ScoreVersion, Submission
from tests.faults.processes import Worker, site_env, wait_for
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

FIGURES = [[1, 1, 1, 1], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]


@pytest.fixture
def workers(tmp_path):
    started: list[Worker] = []

    def start(nodename: str, **env: str) -> Worker:
        worker = Worker(nodename, site_env(**env), tmp_path / "worker.log")
        if not started:
            worker.purge()
        started.append(worker)
        worker.start()
        return worker

    yield start
    for worker in started:
        worker.end()
    log = tmp_path / "worker.log"
    if log.exists():
        print(log.read_text(errors="replace")[-4000:])


@pytest.fixture
def demo_board(dummy_benchmark, tmp_path):
    """Four submissions of the dummy benchmark scored under dummy-1, each counting its completed scorings in a file
    of its own, and slow enough (0.4 s a sample) that a worker can be killed half-way through the run."""
    split = SplitFactory(benchmark__slug=f"dummy-{uuid.uuid4().hex[:6]}", benchmark__scorer="dummy")
    for i in range(4):
        SampleFactory(split=split, key=f"k{i}", position=i)
    subs = []
    for i, values in enumerate(FIGURES):
        marker = tmp_path / f"scorings-{i}.txt"
        sub = Submission.objects.create(model_entry=ModelEntryFactory(name=f"demo-{i}"), split=split,
                                        options={"marker": str(marker), "sleep": 0.4})
        sub.file.save(f"p{i}.txt", ContentFile("\n".join(map(str, values)).encode()))
        assert pipeline.submission_score(submission_id=sub.pk, worker="setup") == "scored"
        subs.append((sub, marker))
    return split, subs


def run_finished() -> RescoreRun | None:
    return RescoreRun.objects.filter(finished_at__isnull=False).first()


def assert_rescored_once_each(subs) -> None:
    for (sub, marker), values in zip(subs, FIGURES):
        old = 100 * sum(values) / 4
        assert marker.read_text().count("completed") == 2, f"submission {sub.pk} scored other than once again"
        score = Score.objects.get(submission=sub)
        assert score.scorer_version == "dummy-2" and score.overall == pytest.approx(old / 2)
        kept = ScoreVersion.objects.get(submission=sub)
        assert kept.scorer_version == "dummy-1" and kept.overall == pytest.approx(old)
        assert SampleScore.objects.filter(submission=sub).count() == 4


def test_a_worker_on_a_new_scorer_version_rescores_each_submission_once(demo_board, workers):
    split, subs = demo_board
    # When a worker starts on code whose scorer is dummy-2
    workers(f"deploy-{uuid.uuid4().hex[:6]}@localhost", DUMMY_SCORER_VERSION="dummy-2")

    # Then it starts a re-score of its own, and every submission is re-scored once, keeping its old score
    run = wait_for(run_finished, timeout=120, what="the re-score to finish")
    assert run.reason == RescoreRun.Reason.DEPLOY and run.scorer_version == "dummy-2"
    assert sorted(run.items.values_list("state", flat=True)) == ["rescored"] * 4
    assert_rescored_once_each(subs)


@pytest.mark.broker  # the killed worker's messages come back (RabbitMQ at once) beside the restart's
def test_a_killed_worker_resumes_the_rescore_without_scoring_twice(demo_board, workers):
    split, subs = demo_board
    nodename = f"rekill-{uuid.uuid4().hex[:6]}@localhost"
    first = workers(nodename, DUMMY_SCORER_VERSION="dummy-2")

    # Given the worker is half-way through the run: one re-scored, another being scored
    wait_for(lambda: RescoreItem.objects.filter(state="rescored").exists()
             and RescoreItem.objects.filter(state="running").exists(), timeout=120, what="the re-score to be under way")
    # When it is killed without warning, and started again
    first.kill()
    assert RescoreRun.objects.get().finished_at is None
    workers(nodename, DUMMY_SCORER_VERSION="dummy-2")

    # Then the run finishes, each submission re-scored once (the killed attempt never completed a scoring)
    run = wait_for(run_finished, timeout=120, what="the re-score to finish after the restart")
    assert RescoreRun.objects.count() == 1, "the restart started a second run"
    assert sorted(run.items.values_list("state", flat=True)) == ["rescored"] * 4
    assert run.items.filter(attempts=2).count() == 1  # the one the kill interrupted
    assert_rescored_once_each(subs)
    time.sleep(3)  # a redelivered duplicate message must find the items done and change nothing
    assert_rescored_once_each(subs)
