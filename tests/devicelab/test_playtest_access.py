"""A draft's play-test device (`lab-draft-<id>`) is its author's, the reviewers' and the curators' only (issue 33):
another annotator, a signed-in user without a role, or an author taken off the draft finds no such task or episode,
through the services, the task list, the play socket and the agent socket. The route × role table of the same rule:
tests/test_access_table.py (PLAYTEST_TABLE)."""
from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator
from rest_framework.authtoken.models import Token

from config.asgi import application
from devicelab.models import DeviceDraft
from simulator import agent_socket
from simulator.engines import EpisodeError
from simulator.models import Step
from simulator.selectors import play_state, playable_tasks, replay_episode
from simulator.services.episodes import episode_start, episode_step, writer_cache
from tests.access_fixtures import playtest_build
from tests.websockets import headers_for, run_async


@pytest.fixture
def playtest(curator, annotator):
    return playtest_build(users={"curator": curator, "annotator": annotator})


@pytest.mark.django_db
def test_only_the_author_reviewers_and_curators_start_list_and_replay_it(playtest, annotator, annotator2, reviewers,
                                                                         curator, user):
    for person in (annotator, reviewers[0], curator):
        episode, _ = episode_start(user=person, task_id=playtest.task_id)
        assert playable_tasks(user=person, device=playtest.device_id).count() == 1
    for person in (annotator2, user, None):
        with pytest.raises(EpisodeError) as info:
            episode_start(user=person, task_id=playtest.task_id)
        assert info.value.status == 404 and "Unknown task" in info.value.message
        assert playable_tasks(user=person, device=playtest.device_id).count() == 0
        with pytest.raises(EpisodeError) as info:
            replay_episode(episode_id=playtest.finished, user=person)
        assert info.value.status == 404


@pytest.mark.django_db
def test_an_author_taken_off_the_draft_loses_its_episodes(playtest, annotator, annotator2):
    assert play_state(episode_id=playtest.running, user=annotator)["type"] == "state"
    DeviceDraft.objects.filter(pk=playtest.draft_id).update(assignee=annotator2)
    for call in (lambda: play_state(episode_id=playtest.running, user=annotator),
                 lambda: episode_step(episode_id=playtest.running, user=annotator, output="Action: Wait()"),
                 lambda: replay_episode(episode_id=playtest.finished, user=annotator)):
        with pytest.raises(EpisodeError) as info:
            call()
        assert info.value.status == 404


@pytest.fixture
def _socket_threads_closed():
    yield
    agent_socket.pool_shutdown()


@pytest.mark.django_db(transaction=True)
def test_the_sockets_refuse_it_to_others(playtest, annotator, annotator2, _socket_threads_closed):
    mine, theirs = (Token.objects.create(user=u).key for u in (annotator, annotator2))
    out: dict = {}

    async def ask(key: str, message: dict) -> dict:
        socket = WebsocketCommunicator(application, "/ws/vge/agent/",
                                       headers=[(b"authorization", f"Token {key}".encode())])
        assert (await socket.connect())[0]
        await socket.send_json_to(message)
        answer = await socket.receive_json_from(timeout=10)
        await socket.disconnect()
        return answer

    async def scenario():
        out["mine"] = await ask(mine, {"type": "reset", "task": playtest.task_id})
        out["theirs"] = await ask(theirs, {"type": "reset", "task": playtest.task_id})
        play = WebsocketCommunicator(application, f"/ws/vge/episodes/{playtest.running}/", headers=other_browser)
        assert (await play.connect())[0]
        out["play"] = await play.receive_json_from(timeout=5)
        out["closed"] = await play.receive_output(timeout=5)

    other_browser = headers_for(annotator2)
    run_async(scenario)
    assert "episode" in out["mine"], out["mine"]
    assert out["theirs"]["status"] == 404 and "Unknown task" in str(out["theirs"]), out["theirs"]
    assert out["play"]["type"] == "refused" and out["closed"]["code"] == 4404


@pytest.mark.django_db(transaction=True)
def test_an_author_taken_off_the_draft_is_refused_the_next_socket_step(playtest, annotator, annotator2,
                                                                       _socket_threads_closed):
    """The agent writer steps a running episode from its cache (simulator.services.episodes.EpisodeCache), without
    reading it: the play-test check still runs at every step."""
    key = Token.objects.create(user=annotator).key
    out: dict = {}

    async def steps(messages: list[dict]) -> list[dict]:
        socket = WebsocketCommunicator(application, "/ws/vge/agent/",
                                       headers=[(b"authorization", f"Token {key}".encode())])
        assert (await socket.connect())[0]
        answers = []
        for message in messages:
            await socket.send_json_to(message)
            answers.append(await socket.receive_json_from(timeout=10))
        await socket.disconnect()
        return answers

    async def before():
        out["before"] = await steps([{"type": "reset", "task": playtest.task_id},
                                     {"type": "step", "output": "Action: Wait()"}])

    run_async(before)
    started, stepped = out["before"]
    assert started["status"] == 201 and stepped["status"] == 200, out["before"]
    assert writer_cache.get(started["episode"]) is not None
    DeviceDraft.objects.filter(pk=playtest.draft_id).update(assignee=annotator2)

    async def after():
        out["after"] = await steps([{"type": "step", "episode": started["episode"], "output": "Action: Wait()"}])

    run_async(after)
    assert out["after"][0]["status"] == 404 and "Unknown episode" in str(out["after"][0]), out["after"]
    assert Step.objects.filter(episode_id=started["episode"]).count() == 1
