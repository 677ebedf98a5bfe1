"""What one agent step costs the database, held so it cannot regrow: a turn is one SELECT (the locked episode), one
INSERT (the step) and one UPDATE (the episode's state), after the API token's check (one SELECT of the token joined
to its user's access flags: the cached user never outlives its row, accounts.auth); the token and its user are not
loaded again on every request."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from simulator.models import Episode, Step
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


def statements(captured) -> list[str]:
    """The statements run, each as its verb and table (transaction control left out: backends differ there)."""
    out = []
    for query in captured.captured_queries:
        sql = query["sql"].strip()
        if sql.upper().startswith(TRANSACTION_CONTROL):
            continue
        verb = sql.split()[0].upper()
        table = next((t for t in ("simulator_episode", "simulator_step", "simulator_task", "authtoken_token",
                                  "auth_user") if f'"{t}"' in sql.split(" WHERE ")[0]), "?")
        out.append(f"{verb} {table}")
    return out


def start(client) -> int:
    response = client.post("/api/vge/episodes/", {"task": "tiny/t2"}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["episode"]


def act(client, episode: int, output: str):
    return client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json")


@pytest.mark.django_db
def test_a_step_is_one_select_one_insert_one_update(token_client, tiny_split):
    episode = start(token_client)
    assert act(token_client, episode, OPEN_DASH).status_code == 200  # warms the engine and the token cache
    with CaptureQueriesContext(connection) as captured:
        response = act(token_client, episode, PRESS_POWER)
    assert response.status_code == 200 and response.json()["feedback"]["kind"] == "success"
    assert statements(captured) == ["SELECT authtoken_token", "SELECT simulator_episode", "INSERT simulator_step",
                                    "UPDATE simulator_episode"]
    stored = Episode.objects.get(pk=episode)
    assert stored.state["turns"] == 2 and Step.objects.filter(episode_id=episode).count() == 2


@pytest.mark.django_db
def test_the_last_step_adds_only_the_reads_for_its_metrics(token_client, tiny_split):
    episode = start(token_client)
    for output in (OPEN_DASH, PRESS_POWER, BACK_FRONT):
        act(token_client, episode, output)
    with CaptureQueriesContext(connection) as captured:
        body = act(token_client, episode, PRESS_START).json()
    assert body["done"] and body["observation"]["success"]
    assert statements(captured) == ["SELECT authtoken_token", "SELECT simulator_episode", "INSERT simulator_step",
                                    "SELECT simulator_episode", "SELECT simulator_step", "UPDATE simulator_episode"]
    stored = Episode.objects.get(pk=episode)
    assert stored.finished and stored.success and stored.metrics["SR"] == 100


@pytest.mark.django_db
def test_a_step_on_a_fresh_process_reads_the_task_once(token_client, tiny_split):
    from simulator.engines import engine_cache_clear

    episode = start(token_client)
    engine_cache_clear()  # as a web process that has not seen this device yet
    with CaptureQueriesContext(connection) as captured:
        assert act(token_client, episode, OPEN_DASH).status_code == 200
    assert statements(captured) == ["SELECT authtoken_token", "SELECT simulator_episode", "SELECT simulator_task",
                                    "INSERT simulator_step", "UPDATE simulator_episode"]
    with CaptureQueriesContext(connection) as captured:
        assert act(token_client, episode, PRESS_POWER).status_code == 200
    assert "SELECT simulator_task" not in statements(captured)


@pytest.mark.django_db
def test_a_deleted_or_replaced_token_is_refused_at_once(tiny_split, user):
    key = Token.objects.create(user=user).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    episode = start(client)
    assert act(client, episode, OPEN_DASH).status_code == 200  # cached now
    Token.objects.filter(user=user).delete()  # what "new token" on /accounts/token/ does
    new = Token.objects.create(user=user).key
    assert act(client, episode, PRESS_POWER).status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"Token {new}")
    assert act(client, episode, PRESS_POWER).status_code == 200


@pytest.mark.django_db
def test_a_deactivated_user_is_refused_at_once(token_client, tiny_split, user):
    episode = start(token_client)
    assert act(token_client, episode, OPEN_DASH).status_code == 200  # cached now
    user.is_active = False
    user.save()
    assert act(token_client, episode, PRESS_POWER).status_code == 401


@pytest.mark.django_db
def test_a_bad_act_body_still_gets_the_serializer_s_error(token_client, tiny_split):
    episode = start(token_client)
    for body in ({}, {"output": None}, {"output": "x" * 20001}, ["output"]):
        response = token_client.post(f"/api/vge/episodes/{episode}/act/", body, format="json")
        assert response.status_code == 400 and response.json()["detail"] == "Invalid request.", body
    assert Step.objects.filter(episode_id=episode).count() == 0
    # As before, a number is taken as its text (the serializer's coercion): an invalid turn, not a 400.
    assert act(token_client, episode, 5).json()["feedback"]["kind"] == "invalid"
