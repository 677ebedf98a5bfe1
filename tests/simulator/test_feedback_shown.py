"""`feedback` as every agent path answers it (issue 30: "`feedback` with `kind` and a `text` that is a sentence or
absent"; "`feedback.text` is the literal string "null" for no effect"): the HTTP API, its ASGI fast path and the agent
socket give the same body, through one function (simulator.api.act_answer), while the stored step keeps the
engine's text (the paper's "null") and the metrics are unchanged."""
from __future__ import annotations

import json

import pytest
from channels.testing import WebsocketCommunicator
from django.db import connections
from rest_framework.authtoken.models import Token

from config.asgi import application
from scoring.benchmarks.vge.core.grammar import KIND_NAMES, NOTHING_HAPPENED, feedback_text
from simulator import agent_socket
from simulator.models import Step
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER
from tests.websockets import asgi_request, run_async

NOTHING_THERE = "Action: Press(coord=[5, 5], params=[0])"  # no component at the point: no effect
MISSED_DASHBOARD = "Action: Switch_view(coord=[5, 5])"  # a Switch_view coord off the dashboard's spot: no effect


def test_the_engine_text_becomes_a_sentence_or_nothing():
    assert feedback_text("null") == NOTHING_HAPPENED == "Nothing happened."
    assert feedback_text("") is None and feedback_text("  ") is None and feedback_text(None) is None
    assert feedback_text("It hums. It is heating.") == "It hums. It is heating."


@pytest.mark.django_db
def test_no_effect_is_a_sentence_over_http_and_the_stored_step_keeps_the_engines_text(token_client, tiny_split):
    episode = token_client.post("/api/vge/episodes/", {"task": "tiny/t2"}, format="json").json()["episode"]
    for output in (NOTHING_THERE, MISSED_DASHBOARD):
        body = token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json").json()
        assert body["feedback"]["kind"] == "no_effect"
        assert body["feedback"]["text"] == "Nothing happened."
    stored = [step.outcome["feedback"] for step in Step.objects.filter(episode_id=episode).order_by("index")]
    assert stored == ["null", "null"]
    # the episode's trace (what a harness reads back) says it the same way, never "null"
    trace = token_client.get(f"/api/vge/episodes/{episode}/").json()["trace"]
    assert [s["feedback"] for s in trace] == ["Nothing happened.", "Nothing happened."]
    assert "null" not in json.dumps([s.get("feedback") for s in trace])


@pytest.mark.django_db
def test_every_kind_is_a_documented_one_with_a_sentence(token_client, tiny_split):
    episode = token_client.post("/api/vge/episodes/", {"task": "tiny/t2"}, format="json").json()["episode"]
    for output in ("no idea", NOTHING_THERE, OPEN_DASH, PRESS_POWER):
        feedback = token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json").json()[
            "feedback"]
        assert feedback["kind"] in KIND_NAMES
        assert feedback["text"] != "null" and feedback["text"].rstrip().endswith((".", ")"))


@pytest.mark.django_db(transaction=True)
def test_http_fast_path_and_socket_answer_the_same_feedback(user, tiny_split, monkeypatch):
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    key = Token.objects.get_or_create(user=user)[0].key
    headers = [(b"authorization", f"Token {key}".encode()), (b"content-type", b"application/json")]
    status, _, raw = asgi_request(application, "POST", "/api/vge/episodes/", headers, b'{"task": "tiny/t2"}')
    assert status == 201
    episode = json.loads(raw)["episode"]
    status, _, raw = asgi_request(application, "POST", f"/api/vge/episodes/{episode}/act/", headers,
                                  json.dumps({"output": NOTHING_THERE}).encode())
    fast = json.loads(raw)
    out: dict = {}

    async def scenario():
        socket = WebsocketCommunicator(application, "/ws/vge/agent/", headers=[headers[0]])
        assert (await socket.connect())[0]
        await socket.send_json_to({"type": "reset", "task": "tiny/t2"})
        await socket.receive_json_from(timeout=10)
        await socket.send_json_to({"type": "step", "output": NOTHING_THERE})
        out["step"] = await socket.receive_json_from(timeout=10)
        await socket.disconnect()

    try:
        run_async(scenario)
    finally:
        agent_socket.pool_shutdown()
    assert status == 200
    assert fast["feedback"] == out["step"]["feedback"] == {
        "kind": "no_effect", "text": "Nothing happened.", "action": "Press(coord=[5, 5], params=[0])",
        "goal_reached": False}
