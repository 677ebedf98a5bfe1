"""Issue 33's "done when", in a real Chromium against a real ASGI server: a device authored from two photos
(controls marked by clicks through the segmenter, a box dragged on its photo with a live check firing before it is
saved, a dial with detents, the machine pruned to them), a live check firing and fixed, tasks generated, one play-tested in the browser player, submitted; two reviewers approve it, a
curator publishes it into a split, and an agent plays it through the API. Prints how long the author's part took."""
from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import Group

from devicelab.core import demo_photos
from devicelab.models import DeviceDraft
from devicelab.selectors import draft_authoring
from devicelab.services import drafts as draft_services
from simulator.models import Task
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _switch(page, base: str, username: str) -> None:
    page.context.clear_cookies()
    login_page(page, base, username, f"pw-{username}-123")


def _mark(page, component: str) -> None:
    """Click the control's centre on its photo, wait for the proposed box, save it for `component`."""
    view, x, y = demo_photos.centre(component)
    photo = page.locator(f"img.view-photo[data-view='{view}']")
    photo.scroll_into_view_if_needed()
    box = photo.bounding_box()
    page.mouse.click(box["x"] + x / 1000 * box["width"], box["y"] + y / 1000 * box["height"])
    page.wait_for_function("() => document.getElementById('propose-status').textContent.startsWith('Proposed')",
                           timeout=60000)
    page.select_option("#box-form select[name=component]", component)
    page.click("#box-form button:not([name])")
    page.wait_for_selector(f"svg[data-boxes='{view}'] rect[data-component='{component}']")


def _adjust_on_the_photo(page, draft_pk: int) -> None:
    """The thermostat's saved box: a typed number past the photo fires a live check before anything is saved;
    then its right edge dragged and the box moved on the photo, the numbers following, and saved."""
    saved = DeviceDraft.objects.get(pk=draft_pk)
    box = saved.definition["components"]["thermostat"]["boxes"]["front"]
    page.select_option("#box-form select[name=view]", "front")
    page.select_option("#box-form select[name=component]", "thermostat")
    x2 = page.locator("#box-form input[name=x2]")
    assert x2.input_value() == str(box[2])  # the saved box, shown to adjust
    x2.fill("1200")
    live = page.locator(".check-error[data-path='components.thermostat.boxes.front']")
    live.wait_for()
    assert "front" in live.text_content() and "unsaved" in page.text_content("#checks-status")
    assert DeviceDraft.objects.get(pk=draft_pk).version == saved.version  # nothing saved by a live check
    x2.fill(str(box[2]))
    live.wait_for(state="detached")
    edit = page.locator("svg[data-boxes='front'] rect.proposal")
    edit.scroll_into_view_if_needed()
    rect = edit.bounding_box()
    right, middle = rect["x"] + rect["width"] - 2, rect["y"] + rect["height"] / 2
    page.mouse.move(right, middle)
    page.mouse.down()
    page.mouse.move(right + 30, middle, steps=5)
    page.mouse.up()
    widened = [int(page.locator(f"#box-form input[name={k}]").input_value()) for k in ("x1", "y1", "x2", "y2")]
    assert widened[0] == box[0] and widened[2] > box[2] + 40  # 30 px of a 420 px photo: about 70 of 1000
    rect = edit.bounding_box()
    centre = (rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2)
    page.mouse.move(*centre)
    page.mouse.down()
    page.mouse.move(centre[0], centre[1] + 10, steps=3)
    page.mouse.up()
    moved = [int(page.locator(f"#box-form input[name={k}]").input_value()) for k in ("x1", "y1", "x2", "y2")]
    assert moved[1] > widened[1] and moved[3] - moved[1] == widened[3] - widened[1]  # moved, same size
    with page.expect_navigation():
        page.click("#box-form button:not([name])")
    assert DeviceDraft.objects.get(pk=draft_pk).definition["components"]["thermostat"]["boxes"]["front"] == moved


def test_author_check_playtest_submit_review_publish_and_an_agent_plays(asgi_server, page, django_user_model,
                                                                        tmp_path):
    from rest_framework.test import APIClient

    people = {}
    for name, group in (("cora", "curator"), ("ann", "annotator"), ("rob", "reviewer"), ("rita", "reviewer")):
        people[name] = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
        people[name].groups.add(Group.objects.get_or_create(name=group)[0])
    draft_services.project_create(user=people["cora"], name="Lab", slug="lab")
    for view in ("front", "top"):
        (tmp_path / f"{view}.png").write_bytes(demo_photos.photo(view))
    base = asgi_server

    # The curator adds a Heater to the project, for ann.
    _switch(page, base, "cora")
    page.goto(f"{base}/devicelab/projects/lab/")
    page.select_option("select[name=category]", "Heater")
    page.fill("input[name=device_id]", "heater-browser")
    page.fill("input[name=assignee]", "ann")
    page.click("text=Create device")
    page.wait_for_url("**/devicelab/drafts/*/")
    draft = DeviceDraft.objects.get(device_id="heater-browser")

    # The annotator: two photos, controls by clicks, prune, a live check fires and is fixed.
    _switch(page, base, "ann")
    started = time.perf_counter()
    page.goto(f"{base}/devicelab/drafts/{draft.pk}/")
    for view in ("front", "top"):
        page.set_input_files(f"input[data-photo-input='{view}']", str(tmp_path / f"{view}.png"))
        page.click(f"text=Upload {view}")
        page.wait_for_selector(f"img.view-photo[data-view='{view}']")
    for component in ("thermostat", "power_switch"):
        _mark(page, component)
    _adjust_on_the_photo(page, draft.pk)
    page.click("text=Prune the machine to the components on the photos")
    page.wait_for_selector(".messages li")
    states = set(DeviceDraft.objects.get(pk=draft.pk).definition["states"])
    assert {"off", "low", "high"} <= states and "eco" not in states
    assert page.locator("[data-edge='states.low.on.thermostat[0]']").count() == 1  # the dial, rotate 0,2
    # a typo in a new transition: the check names its JSON path, and submitting is blocked
    page.select_option("#transition-form select[name=state]", "high")
    page.select_option("#transition-form select[name=trigger]", "thermostat")
    page.select_option("#transition-form select[name=action]", "rotate")
    page.fill("#transition-form input[name=parameter]", "0,1")
    page.fill("#transition-form input[name=next_state]", "hihg")
    page.click("text=Add transition")
    check = page.locator(".check-error[data-path='states.high.on.thermostat[1].next_state']")
    assert "unknown state 'hihg'" in check.text_content()
    assert page.locator("#submit-draft").is_disabled()
    page.click("button[aria-label='remove states.high.on.thermostat[1]']")
    page.wait_for_selector(".messages li")
    assert page.locator(".check-error").count() == 0
    # the dial drawn over the front photo at its detent in state "high": the preview shows what the player will
    page.select_option("#overlays-form select[name=state]", "high")
    page.select_option("#overlays-form select[name=view]", "front")
    page.check("#overlays-form input[name=components][value=thermostat]")
    with page.expect_navigation():
        page.click("text=Save overlays")
    overlays = DeviceDraft.objects.get(pk=draft.pk).definition["states"]["high"]["look"]["overlays"]
    assert overlays == {"front": ["thermostat"]}
    page.select_option("#look-state", "high")
    page.wait_for_function("() => { const img = document.querySelector('img.look-image[data-view=front]');"
                           " return img.src.includes('state=high') && img.complete && img.naturalWidth > 0; }")
    # tasks with their optimal lengths, then a play-test in the browser player
    assert page.locator("#tasks [data-lopt]").count() >= 1
    page.click("#playtest")
    page.wait_for_url("**/simulator/episodes/*/play/")
    page.wait_for_selector("#conn.conn-ok")
    page.wait_for_function("document.getElementById('view-image').complete")
    page.keyboard.press("w")  # one turn: wait
    page.wait_for_function("document.querySelectorAll('#log li').length > 0")
    page.goto(f"{base}/devicelab/drafts/{draft.pk}/")
    page.click("#submit-draft")
    page.wait_for_selector(".messages li")
    authoring = time.perf_counter() - started
    assert DeviceDraft.objects.get(pk=draft.pk).state == DeviceDraft.State.SUBMITTED

    # Two reviewers, one round each.
    for reviewer in ("rob", "rita"):
        _switch(page, base, reviewer)
        page.goto(f"{base}/devicelab/drafts/{draft.pk}/review/")
        assert page.locator("svg[data-draw='front'] rect[data-component='thermostat']").count() == 1
        page.click("#review-submit")
        page.wait_for_selector(".messages li")
    assert DeviceDraft.objects.get(pk=draft.pk).state == DeviceDraft.State.ACCEPTED

    # The curator publishes it into a public split.
    _switch(page, base, "cora")
    page.goto(f"{base}/devicelab/drafts/{draft.pk}/")
    page.fill("input[name=split]", "lab")
    page.check("input[name=public]")
    page.click("#publish")
    page.wait_for_selector(".messages li")
    assert DeviceDraft.objects.get(pk=draft.pk).state == DeviceDraft.State.PUBLISHED

    # An agent plays a published task through the API: to the top view, push the switch up.
    task = next(t for t in Task.objects.filter(device__device_id="heater-browser", sample__split__name="lab")
                if t.definition["goals"] == ["low"])
    agent = APIClient()
    agent.force_authenticate(people["rob"])
    episode = agent.post("/api/vge/episodes/", {"task": task.task_id}, format="json").json()["episode"]
    view, x, y = demo_photos.centre("power_switch")
    for output in (f"Action: Switch_view(params=[{view}])", f"Action: Push(coord=[{x}, {y}], params=[0])"):
        assert agent.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json").status_code == 200
    assert agent.get(f"/api/vge/episodes/{episode}/").json()["success"]
    recorded = draft_authoring(DeviceDraft.objects.get(pk=draft.pk))["total"]
    assert recorded.edits >= 8 and 0 < recorded.seconds <= authoring
    print(f"\nauthoring in the browser (driven): {authoring:.1f} s; recorded as active authoring time: "
          f"{recorded.seconds:.1f} s over {recorded.edits} saves in {recorded.sessions} session(s)")
