"""The agent fast path (simulator.asgi): a start, and an act with a plain JSON output, sent with a token, are played
without Django's request stack, with the DRF views' answers; every other request reaches the DRF view with its
body intact. Through the site's real
ASGI application (config.asgi) and, to see which side answered, around a stand-in for Django."""
from __future__ import annotations

import json

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token

from simulator.asgi import agent_admission
from simulator.models import Episode, Step
from simulator.services.episodes import episode_start
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER
from tests.websockets import asgi_request

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def connections_closed_after_each_request(monkeypatch):
    """The fast path's threads outlive a test: their connections close at each request's end (CONN_MAX_AGE 0, as
    Django closes them), so the test database can be dropped."""
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


def post(app, path: str, body: bytes, headers: list[tuple[bytes, bytes]], chunks: int = 1) -> tuple[int, dict, bytes]:
    """One POST through an ASGI app, its body sent in `chunks` messages: status, headers, body."""
    return asgi_request(app, "POST", path, headers, body, chunks=chunks, timeout=20)


def token_headers(user, content_type=b"application/json") -> list[tuple[bytes, bytes]]:
    key = Token.objects.get_or_create(user=user)[0].key
    return [(b"authorization", f"Token {key}".encode()), (b"content-type", content_type)]


def act_path(episode_id: int) -> str:
    return f"/api/vge/episodes/{episode_id}/act/"


class Django:
    """A stand-in for Django's side of the site: records what reached it, body included, and answers 299."""

    def __init__(self):
        self.bodies: list[bytes] = []

    async def __call__(self, scope, receive, send):
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.bodies.append(body)
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def test_a_step_answers_as_the_drf_view_does(tiny_split, user, token_client):
    from config.asgi import application

    through_drf, _ = episode_start(user=user, task_id="tiny/t1")
    through_fast, _ = episode_start(user=user, task_id="tiny/t1")
    for output in (OPEN_DASH, "no action here", PRESS_POWER):
        expected = token_client.post(act_path(through_drf.pk), {"output": output}, format="json")
        status, headers, body = post(application, act_path(through_fast.pk),
                                     json.dumps({"output": output}).encode(), token_headers(user))
        assert (status, headers[b"content-type"]) == (200, b"application/json")
        assert headers[b"x-content-type-options"] == b"nosniff"
        answer = json.loads(body)
        answer["observation"]["image_url"] = answer["observation"]["image_url"].replace(
            f"/{through_fast.pk}/", f"/{through_drf.pk}/")
        answer["observation"]["episode"] = through_drf.pk
        assert answer == expected.json()
    # stored as the view stores it
    fast, drf = (list(Step.objects.filter(episode=e).order_by("index").values("index", "raw_output", "parsed_action",
                                                                              "outcome"))
                 for e in (through_fast, through_drf))
    assert fast == drf and len(fast) == 3
    assert Episode.objects.get(pk=through_fast.pk).state == Episode.objects.get(pk=through_drf.pk).state


def test_refusals_are_worded_as_the_drf_view_words_them(tiny_split, user, other_user):
    from config.asgi import application

    theirs, _ = episode_start(user=other_user, task_id="tiny/t1")
    body = json.dumps({"output": OPEN_DASH}).encode()
    wrong_token = [(b"authorization", b"Token not-a-real-token"), (b"content-type", b"application/json")]
    status, headers, answer = post(application, act_path(theirs.pk), body, wrong_token)
    assert (status, json.loads(answer), headers[b"www-authenticate"]) == (401, {"detail": "Invalid token."}, b"Token")
    status, _, answer = post(application, act_path(theirs.pk), body, token_headers(user))
    assert status == 403 and "someone else" in json.loads(answer)["detail"]
    status, _, answer = post(application, act_path(987654), body, token_headers(user))
    assert (status, json.loads(answer)) == (404, {"detail": "Unknown episode 987654."})
    assert Step.objects.filter(episode=theirs).count() == 0


@pytest.mark.parametrize("body, headers_of", [
    (b'{"output": 12}', "json"),  # the serializer coerces it
    (b'{"output": "a\\u0000b"}', "json"),  # refused by the serializer, worded there
    (b'{"output": "a\\ud800b"}', "json"),  # a lone surrogate: refused by the serializer
    (b'{"output": "x", "oops"', "json"),  # not JSON: DRF words the parse error
    (b"output=Action%3A+Press", "form"),  # a form body
    (b"[" * 100_000 + b"]" * 100_000, "json"),  # nested past the JSON parser's depth
    (b'{"output": "Action: Press"}', "session"),  # no token
])
def test_what_the_fast_path_does_not_play_reaches_django_unread(tiny_split, user, body, headers_of):
    episode, _ = episode_start(user=user, task_id="tiny/t1")
    django = Django()
    headers = {"json": token_headers(user), "form": token_headers(user, b"application/x-www-form-urlencoded"),
               "session": [(b"content-type", b"application/json"), (b"cookie", b"sessionid=abc")]}[headers_of]
    status, _, _ = post(agent_admission(django, limit=2), act_path(episode.pk), body, headers, chunks=3)
    assert status == 299 and django.bodies == [body]
    assert Step.objects.filter(episode=episode).count() == 0


def test_a_plain_step_never_reaches_django(tiny_split, user):
    episode, _ = episode_start(user=user, task_id="tiny/t1")
    django = Django()
    status, _, body = post(agent_admission(django, limit=2), act_path(episode.pk),
                           json.dumps({"output": OPEN_DASH}).encode(), token_headers(user), chunks=4)
    assert status == 200 and json.loads(body)["feedback"]["kind"] == "switched"
    assert django.bodies == [] and Step.objects.filter(episode=episode).count() == 1


def test_what_django_answers_for_the_declined_bodies(tiny_split, user):
    """The declined bodies get the view's own answers through the real site: coerced, refused, or a parse error."""
    from config.asgi import application

    episode, _ = episode_start(user=user, task_id="tiny/t1")
    status, _, body = post(application, act_path(episode.pk), b'{"output": "a\\u0000b"}', token_headers(user))
    assert status == 400 and json.loads(body)["errors"]["output"] == ["Null characters are not allowed."]
    status, _, body = post(application, act_path(episode.pk), b'{"output": "a\\ud800b"}', token_headers(user))
    assert (status, json.loads(body)["errors"]["output"]) == (400, ["Surrogate characters are not allowed: U+D800."])
    status, _, body = post(application, act_path(episode.pk), b'{"output": "x", "oops"', token_headers(user))
    assert status == 400 and "JSON parse error" in json.loads(body)["detail"], body
    assert Step.objects.filter(episode=episode).count() == 0


def test_a_start_answers_as_the_drf_view_does(tiny_split, user, token_client):
    from config.asgi import application

    expected = token_client.post("/api/vge/episodes/", {"task": "tiny/t1", "perturbation": "blur:2"}, format="json")
    status, _, body = post(application, "/api/vge/episodes/",
                           json.dumps({"task": "tiny/t1", "perturbation": "blur:2"}).encode(), token_headers(user))
    answer = json.loads(body)
    assert status == 201 and expected.status_code == 201
    mine, theirs = answer["episode"], expected.json()["episode"]
    assert json.loads(body.decode().replace(f"/{mine}/", f"/{theirs}/").replace(f'"episode":{mine}',
                                                                                 f'"episode":{theirs}')) == expected.json()
    assert Episode.objects.get(pk=mine).perturbation == "blur:2" and Episode.objects.get(pk=mine).owner == user
    # refusals: an unknown task, a field the serializer refuses
    status, _, body = post(application, "/api/vge/episodes/", b'{"task": "no/such"}', token_headers(user))
    assert (status, json.loads(body)) == (404, {"detail": "Unknown task 'no/such'."})
    status, _, body = post(application, "/api/vge/episodes/", b'{"task": "tiny/t1", "perturbation": "blur:x"}',
                           token_headers(user))
    assert status == 400 and "perturbation" in json.loads(body)["errors"]


def test_a_start_with_a_token_never_reaches_django_and_a_list_body_does(tiny_split, user):
    django = Django()
    app = agent_admission(django, limit=2)
    status, _, body = post(app, "/api/vge/episodes/", b'{"task": "tiny/t1"}', token_headers(user))
    assert status == 201 and django.bodies == [] and Episode.objects.filter(pk=json.loads(body)["episode"]).exists()
    status, _, _ = post(app, "/api/vge/episodes/", b'["tiny/t1"]', token_headers(user))
    assert status == 299 and django.bodies == [b'["tiny/t1"]']
