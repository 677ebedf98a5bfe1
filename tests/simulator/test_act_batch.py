"""The batch form of the agent API: several episodes' actions in one request, each played as by its own call and
answered independently, in order."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from simulator.models import Episode, Step
from simulator.services.episodes import episode_start
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER
from tests.simulator.test_step_queries import statements

BATCH = "/api/vge/episodes/act/"


def start(client, task="tiny/t2") -> int:
    response = client.post("/api/vge/episodes/", {"task": task}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["episode"]


@pytest.mark.django_db
def test_each_action_is_played_and_answered_on_its_own(token_client, tiny_split, other_user):
    mine = [start(token_client), start(token_client, "tiny/t1")]
    theirs, _ = episode_start(user=other_user, task_id="tiny/t1")
    actions = [{"episode": mine[0], "output": OPEN_DASH}, {"episode": 987654, "output": OPEN_DASH},
               {"episode": theirs.pk, "output": OPEN_DASH}, {"episode": mine[1], "output": "not an action"}]
    response = token_client.post(BATCH, {"actions": actions}, format="json")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [(r["episode"], r["status"]) for r in results] == [(mine[0], 200), (987654, 404), (theirs.pk, 403),
                                                               (mine[1], 200)]
    assert results[0]["feedback"]["kind"] == "switched" and results[0]["observation"]["turn"] == 1
    assert "dashboard" in results[0]["observation"]["accessible_views"]
    assert results[3]["feedback"]["kind"] == "invalid" and not results[3]["done"]
    assert "someone else" in results[2]["detail"]
    # the same as the one-action call would have stored
    assert [Episode.objects.get(pk=pk).state["turns"] for pk in mine] == [1, 1]
    assert Step.objects.filter(episode_id=theirs.pk).count() == 0


@pytest.mark.django_db
def test_a_batch_costs_each_step_what_one_call_does(token_client, tiny_split):
    episodes = [start(token_client) for _ in range(3)]
    token_client.post(BATCH, {"actions": [{"episode": e, "output": OPEN_DASH} for e in episodes]}, format="json")
    with CaptureQueriesContext(connection) as captured:
        response = token_client.post(BATCH, {"actions": [{"episode": e, "output": PRESS_POWER} for e in episodes]},
                                     format="json")
    assert [r["feedback"]["kind"] for r in response.json()["results"]] == ["success"] * 3
    # The token's check once for the batch (accounts.auth), then each step as one call costs.
    assert statements(captured) == ["SELECT authtoken_token"] + [
        "SELECT simulator_episode", "INSERT simulator_step", "UPDATE simulator_episode"] * 3


@pytest.mark.django_db
@pytest.mark.parametrize("body, field", [
    ({"actions": []}, "actions"),
    ({"actions": [{"episode": 1, "output": "x"}] * 2}, "actions"),
    ({"actions": [{"episode": i + 1, "output": "x"} for i in range(101)]}, "actions"),
    ({"actions": [{"episode": 1}]}, "actions"),
    ({}, "actions"),
])
def test_a_bad_batch_plays_nothing(token_client, tiny_split, body, field):
    episode = start(token_client)
    response = token_client.post(BATCH, body, format="json")
    assert response.status_code == 400 and field in response.json()["errors"], response.content
    assert Step.objects.filter(episode_id=episode).count() == 0


@pytest.mark.django_db
def test_the_batch_needs_a_signed_in_caller(api_client, tiny_split):
    assert api_client.post(BATCH, {"actions": [{"episode": 1, "output": "x"}]}, format="json").status_code == 401
