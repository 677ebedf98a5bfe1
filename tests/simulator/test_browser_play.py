"""Playing VGE episodes in a real Chromium against a real daphne server (HTTP + websockets) and database.

Where to click is computed from the device's component boxes (the optimal player's walk, re-aimed at box
centres where the centre wins the hit test), then converted to pixels of the image as the page shows it.
Set VGE_SCREENSHOTS=/some/dir to keep the screenshots.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from scoring.benchmarks.vge.core.actions import parse_action
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.graphs import box_contains
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.oracle import optimal_outputs
from simulator.human_board import DEMO_SPLIT
from simulator.models import Episode
from simulator.services.baseline import baseline_mark
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.conftest import login_page
from tests.simulator.test_replay_viewer import scored_upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEVICE = "coffee-machine-02"
TASK = "coffee-machine-02/t4"  # 3 goals; the walk uses both kinds of view switch, press, wait and pull
PRESS_KEYS = {"0": "c", "1": "l", "2": "d"}


@pytest.fixture
def demo_device(db):
    devices, tasks = build_library(seed=7, variants=2)
    data = next(d for d in devices if d["id"] == DEVICE)
    device_upsert(data=data, source="demo")
    split = split_ensure(name=DEMO_SPLIT, public=True)
    tasks_into_split(tasks=[t for t in tasks if t.device == DEVICE], split=split)
    engine = Engine(load_device(data))
    return engine, {t.id: t for t in tasks if t.device == DEVICE}


def shot(page, tmp_path: Path, name: str) -> None:
    folder = Path(os.environ.get("VGE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def hit(engine: Engine, state, view: str, point) -> str | None:
    on = engine.device.states[state.state].on
    return next((c for c, box in engine.graphs.view_boxes[view] if on.get(c) and box_contains(box, *point)), None)


def aimed_walk(engine: Engine, task) -> list[str]:
    """The optimal walk, each component action moved to its box centre when the centre hits the same component."""
    state = engine.new_episode(task)
    walk = []
    for text in optimal_outputs(engine, task):
        action = parse_action(text).action
        if action.name == "switch_view" and action.coord:
            box = engine.unlock_box
            text = f"Switch_view(coord=[{(box[0] + box[2]) // 2}, {(box[1] + box[3]) // 2}])"
        elif action.physical:
            target = hit(engine, state, state.view, action.coord)
            box = engine.device.components[target].boxes[state.view]
            centre = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
            locked_unlock = (not state.unlocked and state.view == engine.unlock_view
                             and box_contains(engine.unlock_box, *centre))
            if hit(engine, state, state.view, centre) == target and not locked_unlock:
                params = f", params=[{', '.join(action.params)}]" if action.params and action.name != "grasp" else ""
                text = f"{action.name.capitalize()}(coord=[{centre[0]}, {centre[1]}]{params})"
        state, outcome = engine.step(state, text)
        assert outcome.kind in ("success", "switched"), (text, outcome.feedback)
        walk.append(parse_action(text).action.text())
    assert state.success
    return walk


def same_action(sent: str, wanted: str) -> bool:
    """The same action, the click within 2 units: one screen pixel is about 1.6 units on a 640-pixel image."""
    a, b = parse_action(sent).action, parse_action(wanted).action
    if (a.name, a.params) != (b.name, b.params) or (a.coord is None) != (b.coord is None):
        return False
    return a.coord is None or max(abs(a.coord[0] - b.coord[0]), abs(a.coord[1] - b.coord[1])) <= 2


def log_count(page) -> int:
    return page.locator("#log li").count()


def click_view(page, x: int, y: int) -> None:
    box = page.locator("#view-image").bounding_box()
    page.mouse.click(box["x"] + x / 1000 * box["width"], box["y"] + y / 1000 * box["height"])


def perform(page, text: str) -> None:
    """Do one action through the page's controls, as a player would, and wait for its feedback."""
    action = parse_action(text).action
    before = log_count(page)
    if action.name == "switch_view" and action.params:
        page.click(f".view-btn[data-view='{action.params[0]}']")
    elif action.name == "timed_wait":
        page.keyboard.press("w")
    else:
        key = {"switch_view": "v", "rotate": "r", "push": "u", "pull": "o", "grasp": "g"}.get(action.name)
        page.keyboard.press(key or PRESS_KEYS[action.params[0]])
        if action.name == "rotate":
            page.select_option("#rotate-dir", action.params[0])
            page.fill("#rotate-detents", action.params[1])
        elif action.name in ("push", "pull"):
            page.select_option("#move-dir", action.params[0])
        click_view(page, *action.coord)
    page.wait_for_function(f"document.querySelectorAll('#log li').length > {before}")


def settle(page) -> None:
    """Let the last view images finish loading: daphne cannot stop while an HTTP request is still in flight."""
    page.wait_for_load_state("networkidle")
    page.wait_for_function("document.getElementById('view-image').complete")


def open_play(page, base: str, task_id: str) -> int:
    login_page(page, base, "alice", "pw-alice-123")
    page.goto(f"{base}/simulator/play/{task_id}/")
    page.wait_for_selector("#conn.conn-ok")
    page.wait_for_function("document.getElementById('instruction').textContent !== 'Connecting…'")
    return int(page.locator("#play").get_attribute("data-episode"))


def test_a_player_solves_a_demo_task_by_clicking(asgi_server, page, user, demo_device, tmp_path):
    engine, tasks = demo_device
    walk = aimed_walk(engine, tasks[TASK])
    episode_id = open_play(page, asgi_server, TASK)
    assert page.locator("#goal-line-text").text_content() == "Goal 1 of 3"
    shot(page, tmp_path, "play-start")
    for number, text in enumerate(walk, start=1):
        perform(page, text)
        latest = page.locator("#log li").first
        assert same_action(latest.locator("code").text_content(), text), f"turn {number}: the page sent something else"
        assert latest.get_attribute("class").split()[0] in ("log-success", "log-switched"), latest.text_content()
        if number == 2:
            shot(page, tmp_path, "play-dashboard")
    page.wait_for_selector("#result:not([hidden])")
    assert "all goals reached" in page.locator("#result-title").text_content().lower()
    shot(page, tmp_path, "play-success")
    episode = Episode.objects.get(pk=episode_id)
    assert episode.finished and episode.success and episode.metrics["SPL"] == 100
    assert page.locator("#wait-btn").is_disabled() and page.locator(".tool").first.is_disabled()
    # the replay viewer steps through it
    page.click("#result-replay")
    page.wait_for_selector("#step-title")
    page.click("#next")
    assert page.locator("#marker").is_visible() or walk[1].startswith("Switch_view(params")
    shot(page, tmp_path, "replay")
    settle(page)


def test_pressing_on_the_panel_unlocks_the_dashboard_passively(asgi_server, page, user, demo_device, tmp_path):
    engine, tasks = demo_device
    box = engine.unlock_box
    open_play(page, asgi_server, TASK)
    assert page.locator(".view-btn[data-view='dashboard']").count() == 0
    perform(page, f"Press(coord=[{(box[0] + box[2]) // 2}, {(box[1] + box[3]) // 2}], params=[0])")
    latest = page.locator("#log li").first
    assert "log-unlocked" in latest.get_attribute("class") and "close-up dashboard view" in latest.text_content()
    assert page.locator("#view-name").text_content() == "front"  # a passive unlock does not move the view
    dashboard = page.locator(".view-btn[data-view='dashboard']")
    dashboard.wait_for()
    shot(page, tmp_path, "unlocked")
    page.keyboard.press(str(page.locator(".view-btn").count()))  # the dashboard is the last view: its number key
    page.wait_for_function("document.getElementById('view-name').textContent === 'dashboard'")
    settle(page)
    shot(page, tmp_path, "dashboard")


def test_running_out_of_turns_ends_the_episode(asgi_server, page, user, demo_device, tmp_path):
    engine, tasks = demo_device
    episode_id = open_play(page, asgi_server, f"{DEVICE}/t1")
    budget = int(page.locator("#global-text").text_content().split("/")[1])
    local = int(page.locator("#local-text").text_content().split("/")[1])
    for _ in range(min(budget, local)):
        perform(page, "Press(coord=[4, 4], params=[0])")  # the background: nothing happens
    page.wait_for_selector("#result:not([hidden])")
    assert "out of turns" in page.locator("#result-title").text_content().lower()
    assert page.locator("progress#bar-local").get_attribute("class") == "low"
    shot(page, tmp_path, "out-of-turns")
    before = log_count(page)
    click_view(page, 4, 4)  # the page no longer sends anything
    page.wait_for_timeout(300)
    assert log_count(page) == before
    episode = Episode.objects.get(pk=episode_id)
    assert episode.finished and not episode.success and episode.steps.count() == min(budget, local)
    settle(page)


def test_reloading_mid_episode_resumes_where_it_was(asgi_server, page, user, demo_device, tmp_path):
    engine, tasks = demo_device
    walk = aimed_walk(engine, tasks[TASK])
    episode_id = open_play(page, asgi_server, TASK)
    for text in walk[:3]:
        perform(page, text)
    view, turns = page.locator("#view-name").text_content(), page.locator("#turns").text_content()
    page.reload()
    page.wait_for_selector("#conn.conn-ok")
    page.wait_for_function("document.querySelectorAll('#log li').length === 3")
    assert page.locator("#view-name").text_content() == view and page.locator("#turns").text_content() == turns
    # the same episode, and it plays on to success from here
    assert int(page.locator("#play").get_attribute("data-episode")) == episode_id
    page.goto(f"{asgi_server}/simulator/play/{TASK}/")  # the task link also resumes it
    page.wait_for_function("document.querySelectorAll('#log li').length === 3")
    for text in walk[3:]:
        perform(page, text)
    page.wait_for_selector("#result:not([hidden])")
    assert Episode.objects.filter(owner=user).count() == 1 and Episode.objects.get(pk=episode_id).success
    settle(page)


def test_the_simulator_home_leads_a_player_to_the_next_baseline_episode(asgi_server, page, user, demo_device,
                                                                           django_user_model, tmp_path):
    curator = django_user_model.objects.create_user("carol", password="pw-carol-123", is_staff=True)
    marked = baseline_mark(user=curator, per_stratum=1, seed=0)
    login_page(page, asgi_server, "alice", "pw-alice-123")
    page.goto(f"{asgi_server}/simulator/")
    assert page.locator(f"a.sim-task[href='/simulator/play/{TASK}/']").count() == 1
    assert "You have played 0 of %d baseline tasks" % len(marked) in page.locator("main").text_content()
    shot(page, tmp_path, "home")
    page.click("#baseline-next")
    page.wait_for_selector("#conn.conn-ok")
    assert page.locator("#play").get_attribute("data-task") == marked[0].task_id
    assert page.locator(".play-crumbs .tag").text_content() == "baseline"
    settle(page)


def test_help_overlay_and_giving_up(asgi_server, page, user, demo_device, tmp_path):
    episode_id = open_play(page, asgi_server, f"{DEVICE}/t1")
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    shot(page, tmp_path, "help")
    page.keyboard.press("Escape")
    assert not page.locator("#help").is_visible()
    perform(page, "Press(coord=[4, 4], params=[0])")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#giveup-btn")
    page.wait_for_selector("#result:not([hidden])")
    assert "gave up" in page.locator("#result-title").text_content().lower()
    episode = Episode.objects.get(pk=episode_id)
    assert episode.finished and episode.gave_up and episode.metrics["turns"] == 1
    settle(page)


def test_the_replay_of_a_hidden_split_names_no_budgets(asgi_server, page, user, tiny_split, tmp_path):
    submission_id = scored_upload(user, tiny_split)
    login_page(page, asgi_server, "alice", "pw-alice-123")

    def first_turn_facts() -> str:
        page.goto(f"{asgi_server}/simulator/replay/submission/{submission_id}/0/")
        page.wait_for_function("document.getElementById('step-title').textContent.startsWith('Turn 1')")
        return page.locator("#step-facts").text_content()

    assert "Budgets left" in first_turn_facts()  # a public split shows them
    tiny_split.hidden_ground_truth = True
    tiny_split.save()
    facts = first_turn_facts()
    shot(page, tmp_path, "replay-hidden")
    assert "Budgets left" not in facts and "undefined" not in facts and "Feedback" in facts
    settle(page)
