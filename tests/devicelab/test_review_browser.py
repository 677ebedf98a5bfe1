"""Issue 33's review half in a real Chromium: a reviewer drags a box and clicks a point on a view's photo on the
review page (where each view's boxes and the state graph are drawn), sends the device back; its author opens the
editor and sees both issues drawn over that view's photo where they were marked."""
from __future__ import annotations

import pytest

from devicelab.models import DeviceDraft
from devicelab.services import review as review_services
from tests.access_fixtures import playtest_build
from tests.conftest import login_page, user_in_group

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _at(locator, x: float, y: float) -> tuple[float, float]:
    """The page point at (x, y) of 0..1000 of an element's box."""
    box = locator.bounding_box()
    return box["x"] + x / 1000 * box["width"], box["y"] + y / 1000 * box["height"]


def test_a_reviewer_draws_issues_on_a_view_and_the_author_sees_them_drawn(asgi_server, page, django_user_model):
    people = {name: user_in_group(django_user_model, name, group)
              for name, group in (("cora", "curator"), ("ann", "annotator"), ("rob", "reviewer"))}
    playtest = playtest_build(users={"curator": people["cora"], "annotator": people["ann"]})
    draft = DeviceDraft.objects.get(pk=playtest.draft_id)
    review_services.draft_submit(user=people["ann"], draft_id=draft.pk, version=draft.version)
    base = asgi_server

    # The reviewer: the boxes over each view and the graph, then a box dragged and a point clicked on the front.
    login_page(page, base, "rob", "pw-rob-123")
    page.goto(f"{base}/devicelab/drafts/{draft.pk}/")
    page.click("#open-review")
    page.wait_for_url("**/review/")
    assert page.locator("svg[data-draw='front'] rect[data-component='thermostat']").count() == 1
    assert page.locator("#graph [data-state]").count() >= 3 and page.locator("#graph [data-edge]").count() >= 2
    front = page.locator("svg[data-draw='front']")
    front.scroll_into_view_if_needed()
    page.mouse.move(*_at(front, 150, 200))
    page.mouse.down()
    page.mouse.move(*_at(front, 300, 350), steps=5)
    page.mouse.move(*_at(front, 450, 600), steps=5)
    page.mouse.up()
    page.wait_for_selector("svg[data-draw='front'] .issue-pending")
    page.fill("#issue-text", "the dial's box misses its detent marks")
    page.click("#issue-add")
    front.scroll_into_view_if_needed()  # the text field took the focus (and the page scrolled to it)
    page.mouse.click(*_at(front, 700, 300))
    page.wait_for_selector("svg[data-draw='front'] circle.issue-pending")
    page.fill("#issue-text", "is this a second button?")
    page.select_option("#verdict", "revise")
    page.click("#review-submit")
    page.wait_for_selector(".messages li")
    review = DeviceDraft.objects.get(pk=draft.pk).reviews.get()
    box, point = review.issues
    assert box["view"] == "front" and point["view"] == "front" and set(point) == {"view", "text", "point"}
    assert all(abs(a - b) <= 6 for a, b in zip(box["box"], [150, 200, 450, 600])), box
    assert all(abs(a - b) <= 6 for a, b in zip(point["point"], [700, 300])), point

    # The author: sent back, the issues drawn over the front photo where the reviewer marked them.
    page.context.clear_cookies()
    login_page(page, base, "ann", "pw-ann-123")
    page.goto(f"{base}/devicelab/drafts/{draft.pk}/")
    assert page.locator("#sent-back").is_visible()
    photo = page.locator("[data-issue-view='front'] img[data-issue-photo='front']")
    photo.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector(\"img[data-issue-photo='front']\").complete")
    drawn = page.locator("[data-issue-view='front'] rect[data-issue='1']").bounding_box()
    x1, y1 = _at(photo, *box["box"][:2])
    x2, y2 = _at(photo, *box["box"][2:])
    assert abs(drawn["x"] - x1) < 4 and abs(drawn["y"] - y1) < 4
    assert abs(drawn["x"] + drawn["width"] - x2) < 4 and abs(drawn["y"] + drawn["height"] - y2) < 4
    dot = page.locator("[data-issue-view='front'] circle[data-issue='2']").bounding_box()
    cx, cy = _at(photo, *point["point"])
    assert abs(dot["x"] + dot["width"] / 2 - cx) < 4 and abs(dot["y"] + dot["height"] / 2 - cy) < 4
    assert "is this a second button?" in page.locator("#reviews").text_content()
