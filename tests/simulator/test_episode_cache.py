"""The agent writer's episode cache (simulator.services.episodes.EpisodeCache): the socket and the HTTP fast path
step a cached episode without reading it, but never on a stale state. Another path's step, a give-up, a rolled-back
batch: the next cached step writes nothing from the cache and plays from the stored row, so the stored steps and
metrics are those of the same outputs played all through the HTTP API."""
from __future__ import annotations

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from config.asgi import application
from simulator import agent_socket
from simulator.agent_writer import writer
from simulator.models import Episode, Step
from simulator.services.episodes import episode_give_up, episode_start, episode_step_within, writer_cache
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START
from tests.websockets import asgi_request, run_async

pytestmark = pytest.mark.django_db(transaction=True)

PATH = "/ws/vge/agent/"
OUTPUTS = ("I am not sure.", OPEN_DASH, PRESS_POWER, BACK_FRONT, PRESS_START)


@pytest.fixture(autouse=True)
def _socket_threads_closed():
    yield
    agent_socket.pool_shutdown()


@pytest.fixture
def token(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def stored(episode_id: int) -> list[tuple]:
    return list(Step.objects.filter(episode_id=episode_id).order_by("index")
                .values_list("index", "raw_output", "parsed_action", "outcome"))


def all_http(token_client) -> int:
    episode = token_client.post("/api/vge/episodes/", {"task": "tiny/t2"}, format="json").json()["episode"]
    for output in OUTPUTS:
        assert token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output},
                                 format="json").status_code == 200
    return episode


def socket_steps(token: str, messages: list[dict]) -> list[dict]:
    """The answers to `messages` sent on a new agent socket, one after another."""
    answers: list[dict] = []

    async def scenario():
        socket = WebsocketCommunicator(application, PATH, headers=[(b"authorization", f"Token {token}".encode())])
        assert (await socket.connect())[0]
        for message in messages:
            await socket.send_json_to(message)
            answers.append(await socket.receive_json_from(timeout=10))
        await socket.disconnect()

    run_async(scenario)
    return answers


def cached_turns(episode_id: int) -> int | None:
    row = writer_cache.get(episode_id)
    return None if row is None else row.state.turns


def test_an_http_step_between_socket_steps_stores_the_same_steps_as_all_http(token_client, tiny_split, token):
    reference = all_http(token_client)
    first = (socket_steps(token, [{"type": "reset", "task": "tiny/t2"},
                                                   {"type": "step", "output": OUTPUTS[0]},
                                                   {"type": "step", "output": OUTPUTS[1]}]))
    episode = first[0]["episode"]
    assert [a["status"] for a in first] == [201, 200, 200]
    assert cached_turns(episode) == 2  # the writer holds the episode: its next step would read nothing
    # The DRF view (not the writer) plays the third turn: the cached state is now stale.
    assert token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": OUTPUTS[2]},
                             format="json").status_code == 200
    assert cached_turns(episode) == 2
    rest = (socket_steps(token, [{"type": "step", "episode": episode, "output": o}
                                                  for o in OUTPUTS[3:]]))
    assert [a["status"] for a in rest] == [200, 200] and rest[-1]["done"]
    assert [row[1:] for row in stored(episode)] == [row[1:] for row in stored(reference)]
    assert [row[0] for row in stored(episode)] == [1, 2, 3, 4, 5]
    mine, theirs = Episode.objects.get(pk=episode), Episode.objects.get(pk=reference)
    assert mine.finished and mine.metrics == theirs.metrics and mine.state == theirs.state
    assert cached_turns(episode) is None  # over: forgotten


def test_a_fast_path_http_step_and_a_socket_step_share_the_cache(token_client, tiny_split, token):
    """The HTTP fast path (simulator.asgi) plays its steps through the same writer: socket, HTTP, socket, HTTP..."""
    reference = all_http(token_client)
    headers = [(b"authorization", f"Token {token}".encode()), (b"content-type", b"application/json")]
    [started] = socket_steps(token, [{"type": "reset", "task": "tiny/t2"}])
    episode = started["episode"]
    statuses = []
    for i, output in enumerate(OUTPUTS):
        if i % 2:
            status, _, _ = asgi_request(application, "POST", f"/api/vge/episodes/{episode}/act/", headers,
                                        json.dumps({"output": output}).encode())
            statuses.append(status)
        else:
            statuses += [a["status"] for a in socket_steps(token, [{"type": "step", "episode": episode,
                                                                    "output": output}])]
        if i < len(OUTPUTS) - 1:
            assert cached_turns(episode) == i + 1  # each path's step left the episode cached for the other
    assert statuses == [200] * len(OUTPUTS)
    assert [row[1:] for row in stored(episode)] == [row[1:] for row in stored(reference)]
    assert Episode.objects.get(pk=episode).metrics == Episode.objects.get(pk=reference).metrics


def test_a_give_up_between_socket_steps_refuses_the_next_one(tiny_split, token, user):
    first = (socket_steps(token, [{"type": "reset", "task": "tiny/t2"},
                                                   {"type": "step", "output": OPEN_DASH}]))
    episode = first[0]["episode"]
    assert cached_turns(episode) == 1
    episode_give_up(episode_id=episode, user=user)
    [after] = (socket_steps(token, [{"type": "step", "episode": episode, "output": PRESS_POWER}]))
    assert after["type"] == "error" and after["status"] == 409, after
    assert [row[0] for row in stored(episode)] == [1]
    assert Episode.objects.get(pk=episode).gave_up


def test_a_rolled_back_batch_leaves_no_cached_state_behind(tiny_split, user):
    episode, _ = episode_start(user=user, task_id="tiny/t2")
    seen: dict = {}

    def step(output: str):
        return episode_step_within(episode_id=episode.pk, user=user, output=output, cache=writer_cache)

    def fails() -> None:
        raise RuntimeError("after the step, in the same batch")

    async def scenario():
        await writer.run(lambda: step(OPEN_DASH))  # cached at turn 1
        # Both in one batch: the step writes turn 2 (and caches it), then the batch rolls back; each job is played
        # again alone.
        seen["batch"] = await asyncio.gather(writer.run(lambda: step(PRESS_POWER)), writer.run(fails),
                                             return_exceptions=True)
        seen["next"] = await writer.run(lambda: step(BACK_FRONT))

    run_async(scenario)
    replayed, failed = seen["batch"]
    assert isinstance(failed, RuntimeError) and replayed[0].turn == 2
    assert seen["next"][0].turn == 3
    assert [row[0] for row in stored(episode.pk)] == [1, 2, 3]
    assert Episode.objects.get(pk=episode.pk).state["turns"] == 3


def test_a_stale_cache_entry_writes_nothing(tiny_split, user):
    """The cache is never trusted alone: an entry whose version is not the row's falls back to the row."""
    episode, _ = episode_start(user=user, task_id="tiny/t2", cache=writer_cache)
    seen: dict = {}

    def step(output: str):
        return episode_step_within(episode_id=episode.pk, user=user, output=output, cache=writer_cache)

    async def scenario():
        seen["first"] = await writer.run(lambda: step(OPEN_DASH))
        stale = writer_cache.get(episode.pk)
        # Another process plays turn 2 (a write the writer never sees), then the writer steps again.
        await asyncio.to_thread(_played_elsewhere, episode.pk, user)
        assert writer_cache.get(episode.pk) is stale
        seen["next"] = await writer.run(lambda: step(BACK_FRONT))

    run_async(scenario)
    assert seen["first"][0].turn == 1 and seen["next"][0].turn == 3
    assert [row[0] for row in stored(episode.pk)] == [1, 2, 3]


def _played_elsewhere(episode_id: int, user) -> None:
    from django.db import connection

    from simulator.services.episodes import episode_step

    try:
        episode_step(episode_id=episode_id, user=user, output=PRESS_POWER)
    finally:
        connection.close()


def test_the_last_step_of_an_episode_the_writer_started_reads_no_step_back(token_client, tiny_split, user):
    """The cache holds every outcome of an episode it started: the metrics come from them, the same as from the rows.
    The queries are captured on the writer thread's connection from the start's job to the last step's: a batch's
    cached steps run on the cursor its batch opened (EpisodeCache.steps_collected), so the capture must be on
    before the last step's batch begins."""
    seen: dict = {}
    captured = CaptureQueriesContext(connection)  # `connection`: the writer thread's own, entered there

    def started() -> int:
        captured.__enter__()
        return episode_start(user=user, task_id="tiny/t2", cache=writer_cache)[0].pk

    def step(episode_id: int, output: str, last: bool):
        if not last:
            return episode_step_within(episode_id=episode_id, user=user, output=output, cache=writer_cache)
        try:
            return episode_step_within(episode_id=episode_id, user=user, output=output, cache=writer_cache)
        finally:
            captured.__exit__(None, None, None)
            seen["last"] = [query["sql"] for query in captured.captured_queries]

    async def scenario():
        episode = seen["episode"] = await writer.run(started)
        for number, output in enumerate(OUTPUTS, start=1):
            last = number == len(OUTPUTS)
            await writer.run(lambda output=output, last=last: step(episode, output, last))

    run_async(scenario)
    steps_table = Step._meta.db_table
    assert seen["last"] and not [sql for sql in seen["last"]
                                 if sql.lstrip().upper().startswith("SELECT") and steps_table in sql]
    http = all_http(token_client)
    mine, theirs = Episode.objects.get(pk=seen["episode"]), Episode.objects.get(pk=http)
    assert mine.finished and mine.success and (mine.metrics, mine.success) == (theirs.metrics, theirs.success)
    assert [row[1:] for row in stored(mine.pk)] == [row[1:] for row in stored(http)]
