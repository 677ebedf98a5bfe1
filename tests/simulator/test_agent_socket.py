"""The agent socket (`ws/vge/agent/`): a gym-style protocol over the real ASGI stack and database, beside the HTTP
agent API. Issue 34: "A gym-style websocket protocol for agents (as OpenEnv serves environments: one socket per
episode or per harness, `reset` / `step` / `state` messages, token auth once per connection, JSON or msgpack),
running the same engine, storing the same steps, scored by the same code as the HTTP API" and "Tests cover the
websocket protocol (same stored steps and scores as the HTTP API for the same actions; auth; a malformed message
refused without closing the socket; a dropped connection resumes the episode)."""
from __future__ import annotations

import json

import msgpack
import pytest
from channels.testing import WebsocketCommunicator
from rest_framework.authtoken.models import Token

from config.asgi import application
from simulator import agent_socket
from simulator.models import Episode, Step
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START
from tests.websockets import run_async

pytestmark = pytest.mark.django_db(transaction=True)

PATH = "/ws/vge/agent/"
OUTPUTS = ("I am not sure.", OPEN_DASH, PRESS_POWER, BACK_FRONT, PRESS_START)


@pytest.fixture(autouse=True)
def _socket_threads_closed():
    """The socket's worker threads keep their database connections between messages; close them after each test,
    so the test database can be dropped."""
    yield
    agent_socket.pool_shutdown()


@pytest.fixture
def token(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


async def connect(headers=()) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, PATH, headers=list(headers))
    connected, _ = await socket.connect()
    assert connected
    return socket


def auth_header(key: str) -> tuple[bytes, bytes]:
    return (b"authorization", f"Token {key}".encode())


async def ask(socket: WebsocketCommunicator, message: dict) -> dict:
    await socket.send_json_to(message)
    return await socket.receive_json_from(timeout=10)


def stored_steps(episode_id: int) -> list[tuple]:
    return list(Step.objects.filter(episode_id=episode_id).order_by("index")
                .values_list("index", "raw_output", "parsed_action", "outcome"))


def test_a_socket_stores_the_same_steps_and_metrics_as_the_http_api_for_the_same_outputs(token_client, tiny_split,
                                                                                       token):
    http = token_client.post("/api/vge/episodes/", {"task": "tiny/t2"}, format="json").json()["episode"]
    http_answers = [token_client.post(f"/api/vge/episodes/{http}/act/", {"output": o}, format="json").json()
                    for o in OUTPUTS]
    out: dict = {}

    async def scenario():
        socket = await connect([auth_header(token)])
        started = await ask(socket, {"type": "reset", "task": "tiny/t2", "id": "r1"})
        assert started["type"] == "reset" and started["status"] == 201 and started["id"] == "r1"
        out["episode"] = started["episode"]
        out["answers"] = [await ask(socket, {"type": "step", "output": o}) for o in OUTPUTS]
        out["state"] = await ask(socket, {"type": "state"})
        await socket.disconnect()

    run_async(scenario)
    socket_answers = out["answers"]
    assert [a["type"] for a in socket_answers] == ["step"] * len(OUTPUTS)
    for mine, theirs in zip(socket_answers, http_answers):
        assert mine["feedback"] == theirs["feedback"] and mine["done"] == theirs["done"]
    assert socket_answers[-1]["done"] and socket_answers[-1]["observation"]["success"]

    def without_ids(rows):
        return [row[1:] for row in rows]

    assert without_ids(stored_steps(out["episode"])) == without_ids(stored_steps(http))
    mine, theirs = Episode.objects.get(pk=out["episode"]), Episode.objects.get(pk=http)
    assert mine.finished and mine.success and mine.metrics == theirs.metrics
    assert out["state"]["status"] == 200 and out["state"]["finished"] and out["state"]["metrics"] == theirs.metrics


def test_token_auth_once_per_connection_by_header_or_message(tiny_split, token):
    async def scenario():
        # No token yet: refused, socket open; then an auth message with a wrong token, then the right one.
        socket = await connect()
        refused = await ask(socket, {"type": "reset", "task": "tiny/t2"})
        assert refused["type"] == "error" and refused["status"] == 401
        wrong = await ask(socket, {"type": "auth", "token": "0" * 40})
        assert wrong["status"] == 401 and wrong["error"]["field"] == "token"
        right = await ask(socket, {"type": "auth", "token": token})
        assert right == {"type": "auth", "status": 200, "user": "alice"}
        assert (await ask(socket, {"type": "reset", "task": "tiny/t2"}))["status"] == 201
        await socket.disconnect()
        # A wrong token on the handshake closes the socket at once.
        bad = WebsocketCommunicator(application, PATH, headers=[auth_header("f" * 40)])
        connected, _ = await bad.connect()
        closed = await bad.receive_output(timeout=5)
        assert closed["type"] == "websocket.close" and closed["code"] == 4401
        await bad.wait()

    run_async(scenario)
    assert Episode.objects.count() == 1


def test_a_malformed_message_is_refused_and_the_socket_plays_on(tiny_split, token):
    out: dict = {}

    async def scenario():
        socket = await connect([auth_header(token)])
        episode = (await ask(socket, {"type": "reset", "task": "tiny/t2"}))["episode"]
        refusals = []
        for text in ("not json {", json.dumps({"type": "jump"}), "[" * 12 + "1" + "]" * 12,
                     json.dumps({"type": "step", "output": 5}), json.dumps({"type": "step", "episode": "x",
                                                                            "output": OPEN_DASH}),
                     json.dumps({"type": "step", "output": "x" * 20001})):
            await socket.send_to(text_data=text)
            refusals.append(await socket.receive_json_from(timeout=10))
        await socket.send_to(bytes_data=b"\xc1\xff not msgpack")
        refusals.append(msgpack.unpackb(await socket.receive_from(timeout=10)))
        other = await ask(socket, {"type": "step", "episode": episode + 1000, "output": OPEN_DASH})
        out["refusals"], out["other"] = refusals, other
        out["after"] = await ask(socket, {"type": "step", "output": OPEN_DASH})
        out["episode"] = episode
        await socket.disconnect()

    run_async(scenario)
    assert [r["type"] for r in out["refusals"]] == ["error"] * 7
    assert all(r["status"] == 400 and r["error"]["detail"] for r in out["refusals"])
    assert out["other"]["status"] == 404
    # Nothing was played by any of them; the next good message plays turn 1.
    assert out["after"]["type"] == "step" and out["after"]["feedback"]["kind"] == "switched"
    assert [row[0] for row in stored_steps(out["episode"])] == [1]


def test_a_dropped_connection_resumes_the_episode_on_a_new_socket(tiny_split, token):
    out: dict = {}

    async def scenario():
        first = await connect([auth_header(token)])
        episode = (await ask(first, {"type": "reset", "task": "tiny/t2"}))["episode"]
        await ask(first, {"type": "step", "output": OPEN_DASH})
        await first.disconnect()  # the harness's connection drops

        second = await connect()
        await ask(second, {"type": "auth", "token": token})
        state = await ask(second, {"type": "state", "episode": episode})
        assert state["status"] == 200 and not state["finished"] and len(state["trace"]) == 1
        assert state["observation"]["view"] == "dashboard"
        for output in (PRESS_POWER, BACK_FRONT):
            assert (await ask(second, {"type": "step", "output": output}))["status"] == 200
        out["episode"] = episode
        await second.disconnect()

    run_async(scenario)
    assert [row[0] for row in stored_steps(out["episode"])] == [1, 2, 3]


def test_msgpack_frames_are_answered_in_msgpack(tiny_split, token):
    out: dict = {}

    async def scenario():
        socket = await connect([auth_header(token)])
        await socket.send_to(bytes_data=msgpack.packb({"type": "reset", "task": "tiny/t2", "id": 7}))
        started = msgpack.unpackb(await socket.receive_from(timeout=10))
        await socket.send_to(bytes_data=msgpack.packb({"type": "step", "output": OPEN_DASH, "id": 8}))
        out["started"], out["step"] = started, msgpack.unpackb(await socket.receive_from(timeout=10))
        await socket.disconnect()

    run_async(scenario)
    assert out["started"]["status"] == 201 and out["started"]["id"] == 7, out["started"]
    assert out["step"]["id"] == 8 and out["step"]["feedback"]["kind"] == "switched"


def test_someone_elses_episode_is_refused(tiny_split, token, other_user):
    other = Token.objects.create(user=other_user).key
    out: dict = {}

    async def scenario():
        mine = await connect([auth_header(token)])
        episode = (await ask(mine, {"type": "reset", "task": "tiny/t2"}))["episode"]
        await mine.disconnect()
        theirs = await connect([auth_header(other)])
        out["step"] = await ask(theirs, {"type": "step", "episode": episode, "output": OPEN_DASH})
        out["state"] = await ask(theirs, {"type": "state", "episode": episode})
        await theirs.disconnect()

    run_async(scenario)
    assert out["step"]["status"] == 403 and out["state"]["status"] == 403
    assert not Step.objects.exists()

