"""A run as Celery-sized work: its units in chunks any worker may play, the endpoint's concurrency and pace shared
by every run on it (rows in the database, not a process's state), the run submitted once however many workers
finish at once, and a user's run quota per phase."""
from __future__ import annotations

import threading
import time

import pytest
from django.db import connections

from evaluations import execution, services
from evaluations.limits import endpoint_for
from evaluations.models import Endpoint, EvaluationRun, RunChunk, RunLine
from scoring.errors import ServiceRefusal
from scoring.models import Phase, Submission
from scoring.standin import StandInModel
from tests.scoring.bench_splits import plan_split

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "sk-fanout"


@pytest.fixture(autouse=True)
def _settings(settings):
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    settings.EVALUATIONS_LEASE_SECONDS = 2
    settings.EVALUATIONS_CHUNK_UNITS = 12


def plan_splits(n: int) -> list:
    """n PLAN splits of the demo items (each made as "t", then renamed so the next can be)."""
    out = []
    for number in range(n):
        split = plan_split()
        split.name = f"t{number}"
        split.save()
        out.append(split)
    return out


def start(user, split, server, **kw) -> EvaluationRun:
    defaults = dict(model_name="m", base_url=server.base_url, api_key=KEY, concurrency=3)
    return services.run_create(user=user, split=split, **{**defaults, **kw})


def play_chunks_at_once(chunk_ids: list[int], **kw) -> list[str]:
    """Each chunk in a thread of its own, as workers of their own would: all started together."""
    outcomes: dict[int, str] = {}
    barrier = threading.Barrier(len(chunk_ids))

    def play(chunk_id: int) -> None:
        barrier.wait()
        try:
            outcomes[chunk_id] = execution.chunk_play(chunk_id=chunk_id, **kw)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=play, args=(c,)) for c in chunk_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [outcomes[c] for c in chunk_ids]


def test_a_run_is_cut_into_chunks_that_workers_play_apart(curator) -> None:
    split = plan_split()
    total = split.samples.count()
    with StandInModel(api_key=KEY, delay=0.02) as server:
        run = start(curator, split, server, k=2)
        chunk_ids = execution.run_start(run_id=run.pk)
        assert execution.run_start(run_id=run.pk) == chunk_ids  # the same chunks, however often asked
        assert len(chunk_ids) == -(-2 * total // 12)
        assert sorted(k for c in RunChunk.objects.filter(run=run) for k in c.units) == sorted(
            f"r{r}/{key}" for r in (1, 2) for key in split.samples.values_list("key", flat=True))
        outcomes = play_chunks_at_once(chunk_ids)
    assert outcomes == [execution.DONE] * len(chunk_ids)
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.SUBMITTED and run.units_done == run.units_total == 2 * total
    assert server.answered == run.requests == 2 * total  # each (repeat, sample) asked once
    assert run.submissions.count() == 2  # submitted once, by whichever chunk was done last


def test_two_runs_on_one_endpoint_never_exceed_its_concurrency(curator) -> None:
    split, other = plan_splits(2)
    with StandInModel(api_key=KEY, delay=0.15) as server:
        runs = [start(curator, split, server, concurrency=3), start(curator, other, server, concurrency=3)]
        chunk_ids = [c for run in runs for c in execution.run_start(run_id=run.pk)]
        assert len(chunk_ids) >= 4
        play_chunks_at_once(chunk_ids)  # every chunk of both runs at once, 3 threads each
        assert server.peak_in_flight == 3  # the endpoint's 3, not 3 per chunk or per run
        # A curator's cap on the endpoint holds every run on it to less.
        Endpoint.objects.filter(pk=endpoint_for(base_url=server.base_url, model="m").pk).update(concurrency=2)
        server.peak_in_flight = 0
        again = [start(curator, split, server, concurrency=3, seed=1), start(curator, other, server, seed=1)]
        play_chunks_at_once([c for run in again for c in execution.run_start(run_id=run.pk)])
        assert server.peak_in_flight == 2
    assert all(r.status == EvaluationRun.Status.SUBMITTED for r in EvaluationRun.objects.all())
    assert server.answered == 4 * split.samples.count()


def test_two_runs_on_one_endpoint_share_its_pace(curator) -> None:
    split, other = plan_splits(2)
    with StandInModel(api_key=KEY) as server:
        runs = [start(curator, split, server, rate_per_minute=600), start(curator, other, server,
                                                                         rate_per_minute=600)]
        started = time.monotonic()
        play_chunks_at_once([c for run in runs for c in execution.run_start(run_id=run.pk)])
        wall = time.monotonic() - started
    # 600 a minute over both runs: one request each 0.1 s, so n requests take at least (n - 1) x 0.1 s
    assert wall >= (server.answered - 1) * 0.1 * 0.95


def test_workers_finishing_at_once_submit_the_run_once(curator) -> None:
    split = plan_split()
    with StandInModel(api_key=KEY) as server:
        run = start(curator, split, server)
        chunk_ids = execution.run_start(run_id=run.pk)
        assert play_chunks_at_once(chunk_ids, finish=False) == [execution.DONE] * len(chunk_ids)
    assert EvaluationRun.objects.get(pk=run.pk).status == EvaluationRun.Status.RUNNING
    won: list[bool] = []
    barrier = threading.Barrier(4)

    def finish() -> None:
        barrier.wait()
        try:
            won.append(execution.run_finish(run_id=run.pk))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=finish) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == [False, False, False, True]
    assert Submission.objects.filter(evaluation_runs=run).count() == 1
    assert EvaluationRun.objects.get(pk=run.pk).status == EvaluationRun.Status.SUBMITTED


def test_a_paused_run_puts_its_chunk_back_and_resumes_without_asking_again(curator) -> None:
    split = plan_split()
    with StandInModel(api_key=KEY, delay=0.1) as server:
        run = start(curator, split, server, concurrency=1)
        [first, *rest] = execution.run_start(run_id=run.pk)

        def pause_after_the_first_line() -> None:
            try:
                while not RunLine.objects.filter(run=run).exists():
                    time.sleep(0.01)
                services.run_pause(user=curator, run=run)
            finally:
                connections.close_all()

        pauser = threading.Thread(target=pause_after_the_first_line)
        pauser.start()
        assert execution.chunk_play(chunk_id=first) == EvaluationRun.Status.PAUSED
        pauser.join()
        assert RunChunk.objects.get(pk=first).status == RunChunk.Status.PENDING
        answered = server.answered
        assert 0 < RunLine.objects.filter(run=run).count() < 12
        services.run_resume(user=curator, run=run)
        assert execution.run_execute(run_id=run.pk) == EvaluationRun.Status.SUBMITTED
    assert server.answered == split.samples.count() and answered < server.answered


def test_a_users_runs_per_phase_are_limited_and_curators_are_not(user, curator, settings) -> None:
    settings.EVALUATIONS_RUNS_PER_PHASE = 2
    split, sibling, elsewhere = plan_splits(3)  # the sibling is in the same phase: it counts too
    phase = Phase.objects.create(benchmark=split.benchmark, name="Run quota phase", slug="run-quota")
    for one in (split, sibling):
        one.phase = phase
        one.save()
    url = "http://127.0.0.1:9/v1"
    services.run_create(user=user, split=split, model_name="m", base_url=url)
    services.run_create(user=user, split=sibling, model_name="m", base_url=url)
    with pytest.raises(ServiceRefusal, match="Run quota for the phase Run quota phase: you have started 2 of the 2") as caught:
        services.run_create(user=user, split=split, model_name="m", base_url=url)
    assert caught.value.field == "split" and caught.value.status == 429
    for _ in range(3):
        services.run_create(user=curator, split=split, model_name="m", base_url=url)
    services.run_create(user=user, split=elsewhere, model_name="m", base_url=url)
    assert EvaluationRun.objects.filter(owner=user).count() == 3
