"""Issue 32, Players: "The result box explains SR but does not show the episode's figures; "Turns left for this
goal 7/7" remains after all goals are reached." """
from __future__ import annotations

import re

import pytest

from simulator import selectors
from simulator.models import Episode
from simulator.services.episodes import episode_start, episode_step

from .conftest import OPEN_DASH, PRESS_POWER

pytestmark = pytest.mark.django_db


def finished_episode(user) -> Episode:
    episode, _ = episode_start(user=user, task_id="tiny/t1", kind=Episode.Kind.HUMAN)
    for text in (OPEN_DASH, PRESS_POWER):
        episode_step(episode_id=episode.pk, user=user, output=text)
    episode.refresh_from_db()
    assert episode.finished and episode.success
    return episode


def test_the_result_box_shows_the_episodes_own_figures(tiny_split, user, client):
    """"The result box explains SR but does not show the episode's figures": SR, SPL, State-F1, turns and goals."""
    episode = finished_episode(user)
    state = selectors.play_state(episode_id=episode.pk, user=user)
    figures = dict(state["result"])
    assert figures["SR"] == "100" and figures["SPL"] == "100" and figures["State-F1"] == "100"
    assert figures["Turns"] == "2 (shortest possible: 2)" and figures["Goals reached"] == "1 of 1"
    client.force_login(user)
    html = client.get(f"/simulator/episodes/{episode.pk}/play/").content.decode()
    box = re.search(r'<section id="result"[^>]*>(.*?)</section>', html, re.S)
    assert box and " hidden" not in box.group(0).split(">")[0]  # shown without waiting for the socket
    assert "<dt>SR</dt><dd>100</dd>" in box.group(1) and "<dt>Goals reached</dt><dd>1 of 1</dd>" in box.group(1)


def test_turns_left_for_the_goal_is_not_shown_after_all_goals_are_reached(tiny_split, user, client):
    """""Turns left for this goal 7/7" remains after all goals are reached": no goal is left, so neither is its
    budget line."""
    episode = finished_episode(user)
    client.force_login(user)
    html = client.get(f"/simulator/episodes/{episode.pk}/play/").content.decode()
    local = re.search(r'<div id="local-budget"[^>]*>', html)
    assert local and "hidden" in local.group(0)
    running, _ = episode_start(user=user, task_id="tiny/t1", kind=Episode.Kind.HUMAN)
    html = client.get(f"/simulator/episodes/{running.pk}/play/").content.decode()
    local = re.search(r'<div id="local-budget"[^>]*>', html)
    assert local and "hidden" not in local.group(0)
