"""Issue 32, Players: "Replays of a named player's episodes are open to anonymous visitors: players choose whether
their name is shown." Ours: the name is hidden by default (shown to the player and curators only) until the player
chooses to show it."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from simulator.models import Episode
from simulator.services.episodes import episode_start, episode_step

from .conftest import OPEN_DASH, PRESS_POWER

pytestmark = pytest.mark.django_db


def played(user) -> Episode:
    episode, _ = episode_start(user=user, task_id="tiny/t1", kind=Episode.Kind.HUMAN)
    for text in (OPEN_DASH, PRESS_POWER):
        episode_step(episode_id=episode.pk, user=user, output=text)
    return episode


def test_a_players_name_is_not_shown_on_their_replay_unless_they_choose(tiny_split, user, other_user,
                                                                         django_user_model):
    """"Replays of a named player's episodes are open to anonymous visitors: players choose whether their name is
    shown": hidden from anonymous visitors and other players by default."""
    episode = played(user)
    url = f"/simulator/replay/episode/{episode.pk}/"
    anonymous = Client().get(url)
    assert anonymous.status_code == 200  # the replay of a public split stays open
    assert "alice" not in anonymous.content.decode() and "a player" in anonymous.content.decode()
    other = Client()
    other.force_login(other_user)
    assert "alice" not in other.get(url).content.decode()
    own = Client()
    own.force_login(user)
    assert "alice" in own.get(url).content.decode()  # the player sees their own name
    curator = django_user_model.objects.create_user("carol", password="pw-carol-123")
    curator.groups.add(Group.objects.get_or_create(name="curator")[0])
    curators = Client()
    curators.force_login(curator)
    assert "alice" in curators.get(url).content.decode()


def test_a_player_chooses_to_show_their_name_and_back(tiny_split, user):
    """"players choose whether their name is shown": a choice on the simulator's home page."""
    episode = played(user)
    url = f"/simulator/replay/episode/{episode.pk}/"
    own = Client()
    own.force_login(user)
    home = own.get("/simulator/").content.decode()
    assert 'id="replay-name"' in home and "not shown" in home
    assert own.post("/simulator/player/replay-name/", {"shown": "1"}).status_code == 302
    assert "alice" in Client().get(url).content.decode()
    assert "<strong>shown</strong>" in own.get("/simulator/").content.decode()
    own.post("/simulator/player/replay-name/", {"shown": "0"})
    assert "alice" not in Client().get(url).content.decode()
    assert Client().post("/simulator/player/replay-name/", {"shown": "1"}).status_code == 302  # to login
