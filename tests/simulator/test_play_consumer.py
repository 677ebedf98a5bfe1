"""The play websocket: the real ASGI stack (session auth, router), the in-memory channel layer and the real
database. Each step is stored before its feedback arrives; bad messages change nothing."""
from __future__ import annotations

import copy
import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group

from config.asgi import application
from simulator.models import Episode, Step
from simulator.services.episodes import episode_start
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task
from tests.websockets import headers_for, run_async

pytestmark = pytest.mark.django_db(transaction=True)

OPEN_DASH = {"type": "act", "action": "switch_view", "coord": [800, 200]}
PRESS_POWER = {"type": "act", "action": "press", "coord": [200, 300], "params": [0]}


async def open_socket(episode_id: int, headers) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, f"/ws/vge/episodes/{episode_id}/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


def episode_row(pk: int) -> Episode:
    return Episode.objects.get(pk=pk)


@pytest.fixture
def episode(tiny_split, user) -> Episode:
    row, _ = episode_start(user=user, task_id="tiny/t2", kind=Episode.Kind.HUMAN)
    return row


def test_connect_sends_the_whole_state_without_state_names(episode, user):
    async def scenario():
        socket = await open_socket(episode.pk, headers_for_user)
        state = await socket.receive_json_from(timeout=3)
        assert state["type"] == "state" and state["log"] == [] and not state["finished"]
        obs = state["observation"]
        assert obs["view"] == "front" and obs["accessible_views"] == ["front", "left", "front_top"]
        assert obs["goals_total"] == 2 and obs["budgets"] == {"global": obs["budgets_max"]["global"],
                                                            "local": obs["budgets_max"]["local"]}
        text = json.dumps(state)
        assert "heating" not in text and "power_button" not in text  # no state or component names
        await socket.disconnect()

    headers_for_user = headers_for(user)
    run_async(scenario)


def test_each_step_is_stored_before_its_feedback_arrives(episode, user):
    async def scenario():
        socket = await open_socket(episode.pk, headers)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(OPEN_DASH)
        first = await socket.receive_json_from(timeout=3)
        # when the feedback is here, the step is already in the database
        stored = await database_sync_to_async(lambda: list(Step.objects.filter(episode=episode).values_list("index", "raw_output")))()
        assert stored == [(1, "Switch_view(coord=[800, 200])")]
        assert first["type"] == "step" and first["step"]["kind"] == "switched"
        assert "dashboard" in first["observation"]["accessible_views"]
        await socket.send_json_to(PRESS_POWER)
        second = await socket.receive_json_from(timeout=3)
        assert second["step"]["kind"] == "success" and second["step"]["goal_reached"] is True
        assert second["observation"]["goal_index"] == 1 and second["observation"]["turn"] == 2
        assert second["step"]["coord"] == [200, 300]
        await socket.disconnect()

    headers = headers_for(user)
    run_async(scenario)
    row = episode_row(episode.pk)
    assert row.state["turns"] == 2 and row.state["goal_index"] == 1 and not row.finished


@pytest.mark.parametrize("message, reason", [
    ("this is not json", "not JSON"),
    (json.dumps({"type": "dance"}), "Unknown message type"),
    (json.dumps({"type": "act", "action": "fly", "coord": [1, 1]}), "unknown action 'fly'"),
    (json.dumps({"type": "act", "action": "press", "coord": [1200, 5], "params": [0]}), "coord[0]: 1200 is not one of 0..1000"),
    (json.dumps({"type": "act", "action": "press", "params": [0]}), "coord: expected [x, y]"),
    (json.dumps({"type": "act", "action": "press", "coord": [10, 10], "params": [7]}), "params[0]: 7 is not one of 0, 1, 2"),
    (json.dumps({"type": "act", "action": "rotate", "coord": [10, 10], "params": [0]}), "params: expected 2 item(s)"),
    (json.dumps({"type": "act", "action": "switch_view", "params": ["front); Press(coord=[1,1]"]}), "params[0]: expected a view name"),
    (json.dumps([1, 2, 3]), "Unknown message type"),
    ("[" * 1500 + "]" * 1500, "nests lists or objects more than 8 deep"),  # 3 KB; json.loads would recurse 1500 deep
])
def test_messages_that_are_not_valid_actions_are_refused_and_cost_nothing(episode, user, message, reason):
    async def scenario():
        socket = await open_socket(episode.pk, headers)
        await socket.receive_json_from(timeout=3)
        await socket.send_to(text_data=message)
        answer = await socket.receive_json_from(timeout=3)
        assert answer["type"] == "refused" and reason in answer["message"]
        # the socket stays usable
        await socket.send_json_to(OPEN_DASH)
        assert (await socket.receive_json_from(timeout=3))["step"]["turn"] == 1
        await socket.disconnect()

    headers = headers_for(user)
    run_async(scenario)
    assert Step.objects.filter(episode=episode).count() == 1


def test_someone_elses_episode_is_refused_and_the_socket_closed(episode, other_user):
    async def scenario():
        socket = await open_socket(episode.pk, headers)
        answer = await socket.receive_json_from(timeout=3)
        assert answer == {"type": "refused", "message": "This episode belongs to someone else.", "fatal": True}
        closed = await socket.receive_output(timeout=3)
        assert closed["type"] == "websocket.close" and closed["code"] == 4403

    headers = headers_for(other_user)
    run_async(scenario)
    assert Step.objects.filter(episode=episode).count() == 0


def test_a_visitor_who_is_not_signed_in_is_refused(episode):
    async def scenario():
        socket = await open_socket(episode.pk, [(b"origin", b"http://127.0.0.1")])
        answer = await socket.receive_json_from(timeout=3)
        assert answer["type"] == "refused" and answer["message"] == "Sign in to play."

    run_async(scenario)


def test_actions_after_the_end_are_refused_and_change_nothing(tiny_split, user):
    episode, _ = episode_start(user=user, task_id="tiny/t1", kind=Episode.Kind.HUMAN)

    async def scenario():
        socket = await open_socket(episode.pk, headers)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(OPEN_DASH)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(PRESS_POWER)
        last = await socket.receive_json_from(timeout=3)
        assert last["step"]["done"] and last["step"]["success"]
        final = await socket.receive_json_from(timeout=3)  # the whole state, with the metrics
        assert final["type"] == "state" and final["finished"] and final["metrics"]["SR"] == 100
        await socket.send_json_to(PRESS_POWER)
        answer = await socket.receive_json_from(timeout=3)
        assert answer == {"type": "refused", "message": "The episode is over; start a new one."}
        await socket.send_json_to({"type": "give_up"})
        assert (await socket.receive_json_from(timeout=3))["message"] == "The episode is already over."
        await socket.disconnect()

    headers = headers_for(user)
    run_async(scenario)
    row = episode_row(episode.pk)
    assert row.finished and row.success and not row.gave_up and row.steps.count() == 2


def test_a_second_tab_takes_over_and_the_first_becomes_read_only(episode, user):
    async def scenario():
        first = await open_socket(episode.pk, headers)
        await first.receive_json_from(timeout=3)
        second = await open_socket(episode.pk, headers)
        assert (await second.receive_json_from(timeout=3))["type"] == "state"
        notice = await first.receive_json_from(timeout=3)
        assert notice["type"] == "readonly" and "read-only" in notice["message"]
        await first.send_json_to(OPEN_DASH)
        refused = await first.receive_json_from(timeout=3)
        assert refused["type"] == "refused" and "read-only" in refused["message"]
        await second.send_json_to(OPEN_DASH)
        assert (await second.receive_json_from(timeout=3))["step"]["turn"] == 1
        assert await second.receive_nothing(timeout=0.2)
        await first.disconnect()
        await second.disconnect()

    headers = headers_for(user)
    run_async(scenario)
    assert Step.objects.filter(episode=episode).count() == 1


def test_reconnecting_resumes_the_episode_with_its_log(episode, user):
    async def scenario():
        socket = await open_socket(episode.pk, headers)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to({"type": "act", "action": "press", "coord": [5, 5], "params": [0]})
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(OPEN_DASH)
        await socket.receive_json_from(timeout=3)
        await socket.disconnect()
        again = await open_socket(episode.pk, headers)
        state = await again.receive_json_from(timeout=3)
        assert [s["kind"] for s in state["log"]] == ["no_effect", "switched"]
        assert state["observation"]["view"] == "dashboard" and state["observation"]["turn"] == 2
        await again.disconnect()

    headers = headers_for(user)
    run_async(scenario)


def test_give_up_ends_the_episode_scored_up_to_that_turn(episode, user):
    async def scenario():
        socket = await open_socket(episode.pk, headers)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(OPEN_DASH)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(PRESS_POWER)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to({"type": "give_up"})
        state = await socket.receive_json_from(timeout=3)
        assert state["type"] == "state" and state["finished"] and state["gave_up"] and not state["success"]
        assert state["metrics"]["turns"] == 2 and state["metrics"]["goals_reached"] == 1
        assert state["metrics"]["SSR"] == 50
        await socket.disconnect()

    headers = headers_for(user)
    run_async(scenario)


@pytest.fixture
def hidden_task(db) -> str:
    """A task of a VGE split with hidden ground truth."""
    device_upsert(data=copy.deepcopy(TINY), source="test")
    split = split_ensure(name="hidden", public=False)
    assert split.hidden_ground_truth
    tasks_into_split(tasks=[make_task(("idle",), "tiny/h1")], split=split)
    return "tiny/h1"


def final_state_of_a_played_episode(person, task_id: str) -> dict:
    """Plays the task to success over the socket; the state sent at the end, with the metrics."""
    episode, _ = episode_start(user=person, task_id=task_id, kind=Episode.Kind.HUMAN)
    received = {}

    async def scenario():
        socket = await open_socket(episode.pk, headers)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(OPEN_DASH)
        await socket.receive_json_from(timeout=3)
        await socket.send_json_to(PRESS_POWER)
        assert (await socket.receive_json_from(timeout=3))["step"]["done"]
        received["final"] = await socket.receive_json_from(timeout=3)
        await socket.send_json_to({"type": "sync"})
        received["sync"] = await socket.receive_json_from(timeout=3)
        await socket.disconnect()

    headers = headers_for(person)
    run_async(scenario)
    assert received["final"] == received["sync"]
    return received["final"]


def test_the_end_of_an_episode_on_a_hidden_task_sends_no_l_opt(hidden_task, user):
    final = final_state_of_a_played_episode(user, hidden_task)
    assert final["type"] == "state" and final["finished"] and final["success"]
    assert final["metrics"]["SR"] == 100 and final["metrics"]["turns"] == 2  # the player's own figures stay
    assert "l_opt" not in json.dumps(final)


def test_a_curator_sees_l_opt_on_a_hidden_task_and_everyone_on_a_public_one(hidden_task, tiny_split, user,
                                                                            django_user_model):
    curator = django_user_model.objects.create_user("carol", password="pw-carol-123")
    curator.groups.add(Group.objects.get_or_create(name="curator")[0])
    assert final_state_of_a_played_episode(curator, hidden_task)["metrics"]["l_opt"] == 2
    assert final_state_of_a_played_episode(user, "tiny/t1")["metrics"]["l_opt"] == 2
