"""What a player sees, in a real Chromium against a real daphne server: the device image changes around a
component when an action changes its state (one device per kind of control), and a newcomer finishes the
practice task by clicking. Set VGE_SCREENSHOTS=/some/dir to keep the screenshots."""
from __future__ import annotations

import copy
import io

import numpy as np
import pytest
from PIL import Image
from playwright.sync_api import expect

from scoring.benchmarks.vge.core import practice
from scoring.benchmarks.vge.core.device import load_device
from scoring.benchmarks.vge.core.engine import Engine
from scoring.benchmarks.vge.core.library import build_library
from scoring.benchmarks.vge.core.task_defs import Task as CoreTask
from simulator.models import Episode
from simulator.services.library import device_upsert, practice_install, task_upsert
from tests.conftest import login_page
from tests.simulator.test_browser_play import aimed_walk, open_play, perform, shot
from tests.simulator.test_replay_viewer import finished_episode

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def centre(box):
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


# (kind of control, device, start state, view, goal, component watched, the actions: (name, component, params))
CASES = [
    ("dial", "air-fryer-01", "off", "top", "hot_set", "temp_dial", [("Rotate", "temp_dial", "0, 5")]),
    ("drawer", "air-fryer-01", "off", "front", "basket_out", "basket", [("Pull", "basket", "4")]),
    ("door", "microwave-01", "idle", "front", "door_open", "door",
     [("Press", "door_button", "0"), ("Press", "door_button", "0")]),  # the first press unlocks the panel
    ("switch", "electric-kettle-01", "idle", "front", "boiling", "power_switch", [("Push", "power_switch", "1")]),
    ("light", "electric-kettle-01", "idle", "front", "boiling", "light", [("Push", "power_switch", "1")]),
    ("display", "landline-01", "idle", "top", "off_hook", "display", [("Grasp", "handset", None)]),
]


@pytest.fixture
def library(db):
    devices, _ = build_library(seed=7)
    return {d["id"]: d for d in devices}


def image_region(page, box, pad=12) -> np.ndarray:
    """The pixels of the shown view image around a component's box (0..1000 units), as the player sees them."""
    shown = Image.open(io.BytesIO(page.locator("#view-image").screenshot())).convert("RGB")
    k = shown.width / 1000
    crop = (max(0, int(box[0] * k) - pad), max(0, int(box[1] * k) - pad),
            min(shown.width, int(box[2] * k) + pad), min(shown.height, int(box[3] * k) + pad))
    return np.asarray(shown.crop(crop)).astype(int)


def wait_image(page, turn: int) -> None:
    page.wait_for_function(
        f"(() => {{ const i = document.getElementById('view-image');"
        f" return (i.dataset.src || '').endsWith('turn={turn}') && i.complete && i.naturalWidth > 0; }})()")


@pytest.mark.parametrize("kind, device_id, start, view, goal, watched, actions", CASES, ids=[c[0] for c in CASES])
def test_the_component_looks_different_after_the_action_that_changes_it(
        asgi_server, page, user, library, tmp_path, kind, device_id, start, view, goal, watched, actions):
    data = library[device_id]
    device_upsert(data=copy.deepcopy(data), source="demo")
    task_id = f"{device_id}/look-{kind}"
    task_upsert(task=CoreTask(task_id, device_id, start, view, (goal,), (f"Reach {goal}.",), 5))
    device = load_device(data)
    box = device.components[watched].boxes[view]
    open_play(page, asgi_server, task_id)
    wait_image(page, 0)
    before = image_region(page, box)
    for number, (name, component, params) in enumerate(actions, start=1):
        x, y = centre(device.components[component].boxes[view])
        perform(page, f"{name}(coord=[{x}, {y}]" + (f", params=[{params}])" if params else ")"))
        wait_image(page, number)
    after = image_region(page, box)
    shot(page, tmp_path, f"look-{kind}")
    changed = (np.abs(before - after).max(axis=2) > 40).sum()
    assert changed > 0.04 * before.shape[0] * before.shape[1], f"{kind}: only {changed} pixels changed"
    assert page.locator("#result-title").text_content().lower().startswith("success")


def test_a_newcomer_finishes_the_practice_task_by_clicking(asgi_server, page, user, tmp_path):
    practice_install()
    engine = Engine(load_device(practice.DEVICE))
    walk = aimed_walk(engine, practice.task())
    page.set_viewport_size({"width": 1200, "height": 900})
    open_play(page, asgi_server, practice.TASK_ID)  # logs in
    page.goto(f"{asgi_server}/simulator/")
    page.click("#practice-start")
    page.wait_for_selector("#conn.conn-ok")
    # the state message follows the socket's opening: wait for it rather than read the placeholder
    expect(page.locator("#instruction")).to_contain_text("Press the big round red button", timeout=15_000)
    # a wrong first try: the hint says what to do
    perform(page, "Pull(coord=[475, 285], params=[4])")
    assert page.locator("#hint").is_visible() and "Press (key C)" in page.locator("#hint").text_content()
    for text in walk:
        perform(page, text)
    page.wait_for_selector("#result:not([hidden])")
    assert "all goals reached" in page.locator("#result-title").text_content().lower()
    assert "fewest turns possible" in page.locator("#result-explain").text_content()
    shot(page, tmp_path, "practice-done")
    episode = Episode.objects.get(task__task_id=practice.TASK_ID)
    assert episode.finished and episode.success and episode.task.sample is None and episode.task.baseline_rank is None


def test_the_direction_picker_remembers_and_the_image_works_from_the_keyboard(asgi_server, page, user, tmp_path):
    practice_install()
    open_play(page, asgi_server, practice.TASK_ID)
    page.keyboard.press("o")
    assert page.locator("#move-dir").input_value() == "4"  # Pull starts at 'out'
    page.keyboard.press("u")
    page.keyboard.press("ArrowUp")  # Push up
    page.keyboard.press("o")
    page.keyboard.press("u")
    assert page.locator("#move-dir").input_value() == "0"  # Push kept 'up'
    page.reload()
    page.wait_for_selector("#conn.conn-ok")
    page.keyboard.press("u")
    assert page.locator("#move-dir").input_value() == "0"  # kept across pages
    # keyboard on the image: move the cursor onto the red button at (475, 285) and press Enter
    page.keyboard.press("c")
    page.focus("#view-image")
    assert page.locator("#cursor").is_visible()
    for _ in range(1):
        page.keyboard.press("ArrowLeft")
    for _ in range(11):
        page.keyboard.press("ArrowUp")
    page.keyboard.press("Enter")  # at (480, 280)
    page.wait_for_function("document.querySelectorAll('#log li').length > 0")
    assert "log-success" in page.locator("#log li").first.get_attribute("class")
    assert page.locator("#log li a.log-view").first.get_attribute("href").endswith("view.png?turn=1")


def test_the_play_page_fits_a_390_pixel_screen(asgi_server, page, user, tmp_path):
    practice_install()
    page.set_viewport_size({"width": 390, "height": 844})
    open_play(page, asgi_server, practice.TASK_ID)
    wait_image(page, 0)
    width = page.evaluate("document.documentElement.scrollWidth")
    image = page.locator("#view-image").bounding_box()
    tools = page.locator("#tools").bounding_box()
    shot(page, tmp_path, "play-390")
    assert width <= 390, f"the page scrolls sideways: {width} px wide"
    assert image["x"] >= 0 and image["x"] + image["width"] <= 390
    assert tools["y"] >= image["y"] + image["height"] - 1  # the action bar sits under the image
    assert tools["y"] + tools["height"] - image["y"] <= 844  # image and action bar fit on the screen together


def test_the_replay_page_shows_a_model_episode_of_the_same_task_turn_by_turn(asgi_server, page, user, tiny_split, tmp_path):
    mine = finished_episode(user)
    agent = finished_episode(user, kind=Episode.Kind.AGENT)
    login_page(page, asgi_server, "alice", "pw-alice-123")
    page.goto(f"{asgi_server}/simulator/replay/episode/{mine.pk}/")
    assert page.locator("#compare-stage").is_hidden()
    page.select_option("#compare-with", label=page.locator("#compare-with option").nth(1).text_content())
    assert page.locator("#compare-stage").is_visible()
    assert page.locator("#compare-link").get_attribute("href") == f"/simulator/replay/episode/{agent.pk}/"
    assert page.locator("#compare-title").text_content().startswith("Turn 1:")
    page.click("#next")
    page.click("#next")
    assert page.locator("#compare-title").text_content().startswith("Turn 3:")
    page.wait_for_function("document.getElementById('compare-image').src.endsWith('/view/2.png')")
    shot(page, tmp_path, "replay-compare")
    page.wait_for_load_state("networkidle")
