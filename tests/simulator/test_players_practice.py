"""Issue 32, Players: "Practice bounces a first-time visitor to login without saying why (let anonymous visitors
practise; only scored episodes need an account)." The real ASGI stack and session for the websocket."""
from __future__ import annotations

import pytest
from django.test import Client

from scoring.benchmarks.vge.core import practice
from simulator.models import Episode, Step
from simulator.services.library import practice_install
from tests.websockets import ORIGIN, run_async

from .test_play_consumer import open_socket

pytestmark = pytest.mark.django_db(transaction=True)

FIRST_LESSON = {"type": "act", "action": "press", "coord": [475, 285], "params": [0]}


def cookie_of(client: Client) -> list[tuple[bytes, bytes]]:
    return [ORIGIN, (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]


def test_an_anonymous_visitor_practises_without_an_account():
    """"Practice bounces a first-time visitor to login without saying why (let anonymous visitors practise)"."""
    practice_install()
    visitor = Client()
    answer = visitor.get(f"/simulator/play/{practice.TASK_ID}/")
    assert answer.status_code == 302 and "/login" not in answer["Location"]
    episode = Episode.objects.get()
    assert episode.owner_id is None and episode.kind == Episode.Kind.HUMAN and episode.task.task_id == practice.TASK_ID
    page = visitor.get(answer["Location"])
    assert page.status_code == 200 and 'id="practice-hints"' in page.content.decode()
    assert "not saved to an account" in page.content.decode()
    # the same visitor comes back to the same running practice episode
    assert visitor.get(f"/simulator/play/{practice.TASK_ID}/")["Location"] == answer["Location"]

    async def scenario():
        socket = await open_socket(episode.pk, cookie_of(visitor))
        state = await socket.receive_json_from(timeout=5)
        assert state["type"] == "state" and state["task"] == practice.TASK_ID
        await socket.send_json_to(FIRST_LESSON)
        step = await socket.receive_json_from(timeout=5)
        assert step["type"] == "step" and step["observation"]["goal_index"] == 1
        await socket.disconnect()

    run_async(scenario)
    assert Step.objects.filter(episode=episode).count() == 1
    image = f"/api/vge/episodes/{episode.pk}/view.png?turn=1"
    assert visitor.get(image).status_code == 200  # the view is drawn for the visitor who plays it
    assert Client().get(image).status_code in (401, 403)  # and for nobody else without an account


def test_another_anonymous_visitor_cannot_play_someone_elses_practice():
    """"let anonymous visitors practise": each visitor plays only the practice episode their own browser started."""
    practice_install()
    first, second = Client(), Client()
    first.get(f"/simulator/play/{practice.TASK_ID}/")
    second.get("/simulator/")  # a session of its own, without the episode
    episode = Episode.objects.get()
    assert second.get(f"/simulator/episodes/{episode.pk}/play/").status_code in (302, 403)

    async def scenario():
        socket = await open_socket(episode.pk, [ORIGIN])
        answer = await socket.receive_json_from(timeout=5)
        assert answer["type"] == "refused" and answer["fatal"]

    run_async(scenario)


def test_a_scored_task_asks_an_anonymous_visitor_to_sign_in_and_says_why(tiny_split):
    """"only scored episodes need an account": the login page says why the visitor was sent there."""
    practice_install()
    answer = Client().get("/simulator/play/tiny/t1/", follow=True)
    html = answer.content.decode()
    assert answer.redirect_chain and "/login" in answer.redirect_chain[-1][0]
    assert "Scored episodes need an account" in html and "practice" in html.lower()
    assert Episode.objects.count() == 0
