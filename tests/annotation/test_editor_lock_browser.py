"""After "Submit for review" the editor is locked: the screen cannot show edits the server would not keep."""
from __future__ import annotations

import pytest

from annotation.models import Item

from tests.annotation.browser_helpers import instance_areas, to_client
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _stroke(page, x0, y0, x1, y1):
    page.mouse.move(*to_client(page, x0, y0))
    page.mouse.down()
    page.mouse.move(*to_client(page, x1, y1), steps=4)
    page.mouse.up()


def test_the_canvas_is_locked_in_review_after_submitting(live_server, page, item_factory, annotator, scene_png):
    [item] = item_factory(scene_png[0], assignee=annotator)
    segment_requests: list[str] = []
    page.on("request", lambda r: segment_requests.append(r.url) if "/segment/" in r.url else None)
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    assert page.is_hidden("#lock-banner")
    # The "Keyboard shortcuts" button is readable on the white sidebar (it was white on white).
    colour = page.evaluate("() => getComputedStyle(document.getElementById('btn-help')).color")
    assert colour != "rgb(255, 255, 255)", colour
    page.keyboard.press("b")
    _stroke(page, 20, 20, 80, 20)
    [area] = instance_areas(page)
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")

    page.click("#btn-submit")
    page.wait_for_function("() => /give a reason|Submitted/.test(document.getElementById('save-status').textContent)")
    if "give a reason" in page.text_content("#save-status"):
        page.fill("#override-reason", "a stroke is all this test draws")
        page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent === 'Submitted for review.'")
    assert Item.objects.get(pk=item.pk).state == Item.State.SUBMITTED

    # Locked and saying so: the brush, the clicks, undo and the buttons change nothing.
    assert page.is_visible("#lock-banner") and "in review" in page.text_content("#lock-banner")
    assert page.text_content("#item-state") == "in review"
    _stroke(page, 20, 60, 200, 60)
    page.keyboard.press("c")
    page.mouse.click(*to_client(page, 192, 180))
    page.keyboard.press("Control+z")
    page.keyboard.press("Delete")
    assert instance_areas(page) == [area]
    assert segment_requests == []
    for control in ("#btn-submit", "#btn-fill", "#btn-undo", "#btn-delete", "#t-text_label", "[data-tool=brush]"):
        assert page.is_disabled(control), control
    # Looking still works: zoom.
    before = page.evaluate("() => window.annotationEditor.state.view.s")
    page.mouse.wheel(0, -300)
    assert page.evaluate("() => window.annotationEditor.state.view.s") > before

    # Opening it again: still locked.
    page.reload()
    page.wait_for_function("() => window.annotationEditor !== undefined")
    assert page.is_visible("#lock-banner") and page.is_disabled("#btn-submit")
    page.keyboard.press("b")
    _stroke(page, 20, 60, 200, 60)
    assert instance_areas(page) == [area]
    assert Item.objects.get(pk=item.pk).version == page.evaluate("() => window.annotationEditor.state.version")
