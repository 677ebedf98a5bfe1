"""Simulator pages: home lists devices and tasks, play opens or resumes the player's episode."""
from __future__ import annotations

import pytest

from simulator.models import Episode

pytestmark = pytest.mark.django_db


def test_home_lists_devices_tasks_and_the_replay_viewer(tiny_split, client):
    html = client.get("/simulator/").content.decode()
    assert "Microwave" in html and "/simulator/play/tiny/t1/" in html and "/simulator/play/tiny/t2/" in html
    assert "Replays" in html and "No baseline set has been chosen yet" in html


def test_play_needs_a_signed_in_player(tiny_split, client):
    response = client.get("/simulator/play/tiny/t1/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_play_starts_one_human_episode_and_resumes_it(tiny_split, client, user):
    client.force_login(user)
    first = client.get("/simulator/play/tiny/t1/")
    episode = Episode.objects.get(owner=user)
    assert episode.kind == Episode.Kind.HUMAN and first["Location"] == f"/simulator/episodes/{episode.pk}/play/"
    assert client.get("/simulator/play/tiny/t1/")["Location"] == first["Location"]
    page = client.get(first["Location"]).content.decode()
    assert 'data-episode="%d"' % episode.pk in page and "play.js" in page and "Keyboard shortcuts" in page


def test_play_of_an_unknown_task_says_so(tiny_split, client, user):
    client.force_login(user)
    response = client.get("/simulator/play/nope/t9/")
    assert response.status_code == 404 and "Unknown task &#x27;nope/t9&#x27;" in response.content.decode()


def test_someone_elses_play_page_is_refused(tiny_split, client, user, other_user):
    client.force_login(user)
    location = client.get("/simulator/play/tiny/t1/")["Location"]
    client.force_login(other_user)
    response = client.get(location)
    assert response.status_code == 403 and "belongs to someone else" in response.content.decode()
