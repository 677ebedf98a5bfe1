"""The agent writer (simulator.agent_writer): jobs played in batched transactions on one thread, each answered once
its batch has committed; a refusal does not stop the others, and a failing job fails alone."""
from __future__ import annotations

import asyncio

import pytest
from django.db import connection

from simulator.agent_writer import writer
from simulator.engines import EpisodeError
from simulator.models import Episode, Step
from simulator.services.episodes import episode_start, episode_step_within
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START
from tests.websockets import run_async

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_answer_comes_after_its_step_is_committed_and_a_refusal_stops_no_other_job(tiny_split, user):
    first, _ = episode_start(user=user, task_id="tiny/t2")
    second, _ = episode_start(user=user, task_id="tiny/t2")
    seen: dict = {}

    def committed_steps(episode_id: int) -> int:
        """Read on a connection of its own (closed after): what another process would see."""
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT COUNT(*) FROM simulator_step WHERE episode_id = %s", [episode_id])
                return cursor.fetchone()[0]
        finally:
            connection.close()

    async def scenario():
        jobs = [
            lambda: episode_step_within(episode_id=first.pk, user=user, output=OPEN_DASH),
            lambda: episode_step_within(episode_id=10**12, user=user, output=OPEN_DASH),
            lambda: episode_step_within(episode_id=second.pk, user=user, output=PRESS_POWER),
        ]
        seen["answers"] = await asyncio.gather(*(writer.run(job) for job in jobs), return_exceptions=True)
        seen["committed"] = await asyncio.to_thread(committed_steps, first.pk)

    run_async(scenario)
    played, refused, other = seen["answers"]
    assert isinstance(refused, EpisodeError) and refused.status == 404
    assert played[0].turn == 1 and other[0].turn == 1
    assert seen["committed"] == 1  # already visible outside the writer's transaction when the answer came
    assert Step.objects.filter(episode__in=[first, second]).count() == 2


def test_a_failing_job_fails_alone_and_leaves_nothing_stored(tiny_split, user):
    episode, _ = episode_start(user=user, task_id="tiny/t2")
    seen: dict = {}

    def fails_after_writing():
        episode_start(user=user, task_id="tiny/t1")
        raise RuntimeError("broken after its write")

    async def scenario():
        jobs = [lambda: episode_step_within(episode_id=episode.pk, user=user, output=OPEN_DASH), fails_after_writing,
                lambda: episode_start(user=user, task_id="tiny/t2")]
        seen["answers"] = await asyncio.gather(*(writer.run(job) for job in jobs), return_exceptions=True)

    run_async(scenario)
    stepped, failed, started = seen["answers"]
    assert isinstance(failed, RuntimeError)
    assert stepped[0].turn == 1 and Step.objects.filter(episode=episode).count() == 1
    assert not Episode.objects.filter(task__task_id="tiny/t1").exists()  # its write rolled back
    assert Episode.objects.filter(pk=started[0].pk).exists()


def test_a_batch_stores_its_steps_rows_together_and_the_last_step_scores_every_turn(tiny_split, user):
    """The writer holds a batch's step rows for one INSERT before its commit; an episode's last step reads its
    steps for the metrics, its own held row among them, and an answer still comes after its row is stored."""
    from simulator.services.episodes import writer_cache

    first, _ = episode_start(user=user, task_id="tiny/t2", cache=writer_cache)
    second, _ = episode_start(user=user, task_id="tiny/t2", cache=writer_cache)
    seen: dict = {}

    def step(episode: Episode, output: str):
        return episode_step_within(episode_id=episode.pk, user=user, output=output, cache=writer_cache)

    async def scenario():
        for output in (OPEN_DASH, PRESS_POWER, BACK_FRONT):
            await asyncio.gather(writer.run(lambda o=output: step(first, o)),
                                 writer.run(lambda o=output: step(second, o)))
        seen["last"] = await asyncio.gather(writer.run(lambda: step(first, PRESS_START)),
                                            writer.run(lambda: step(second, OPEN_DASH)))

    run_async(scenario)
    (done, _), (other, _) = seen["last"]
    assert done.done and not other.done
    ended = Episode.objects.get(pk=first.pk)
    assert ended.finished and ended.success and ended.metrics["turns"] == 4 and ended.metrics["SR"] == 100
    assert list(Step.objects.filter(episode=first).order_by("index").values_list("index", flat=True)) == [1, 2, 3, 4]
    assert list(Step.objects.filter(episode=second).order_by("index").values_list("index", flat=True)) == [1, 2, 3, 4]
    assert Episode.objects.get(pk=second.pk).state["turns"] == 4
