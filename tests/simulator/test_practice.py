"""The practice task and the task list: the practice panel installs once, is never scored or counted in the
Human row, its play page carries hints; the home page shows each task's instruction and difficulty."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from scoring.benchmarks.vge.core import practice
from simulator import human_board
from simulator.models import Device, Task
from simulator.services.episodes import episode_start, episode_step
from simulator.services.library import practice_install

pytestmark = pytest.mark.django_db


def test_practice_installs_once_outside_every_split():
    first = practice_install()
    again = practice_install()
    assert first.pk == again.pk and first.sample is None and first.goals_count == len(practice.LESSONS) == 9
    assert Device.objects.filter(device_id=practice.DEVICE_ID).count() == 1


def test_a_finished_practice_episode_never_enters_the_human_row(user):
    call_command("make_demo_vge", "--no-agents")  # the library, a baseline set and the practice task
    assert Task.objects.get(task_id=practice.TASK_ID).baseline_rank is None
    episode, _ = episode_start(user=user, task_id=practice.TASK_ID, kind="human")
    for text in PRACTICE_WALK:
        episode_step(episode_id=episode.pk, user=user, output=text)
    episode.refresh_from_db()
    assert episode.finished and episode.success
    assert episode not in human_board.human_baseline_episodes(split=human_board.demo_split())
    assert human_board.human_board_refresh() == []  # no baseline episode: no Human row at all


PRACTICE_WALK = [
    "Press(coord=[475, 285], params=[0])", "Press(coord=[475, 285], params=[1])", "Rotate(coord=[620, 300], params=[0, 2])",
    "Pull(coord=[280, 600], params=[4])", "Pull(coord=[660, 670], params=[4])", "Push(coord=[825, 290], params=[0])",
    "Switch_view(coord=[270, 327])", "Press(coord=[500, 637], params=[2])", "Switch_view(params=[top])",
    "Grasp(coord=[500, 460])", "Timed_wait()",
]


def test_home_offers_the_practice_and_shows_instruction_and_difficulty(tiny_split, client, user):
    html = client.get("/simulator/").content.decode()
    assert "practice-start" not in html  # not installed: no card
    practice_install()
    html = client.get("/simulator/").content.decode()
    assert f'href="/simulator/play/{practice.TASK_ID}/"' in html and "never counts in the Human row" in html
    assert "Reach idle." in html and "1 goal · 2 turns at best" in html  # tiny/t1: power on, from the dashboard
    assert "9 goals · 11 turns at best" in html  # the practice task


def test_the_practice_play_page_carries_its_hints(client, user):
    practice_install()
    client.force_login(user)
    page = client.get(client.get(f"/simulator/play/{practice.TASK_ID}/")["Location"]).content.decode()
    assert 'id="practice-hints"' in page and "Choose Press (key C)" in page and 'data-practice="1"' in page
