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


def test_the_canvas_is_locked_in_review_after_submitting(
    live_server, page, item_factory, project_factory, annotator, scene_png
):
    project = project_factory(instructions="Count every mug, handles included.")
    [item] = item_factory(scene_png[0], assignee=annotator, project=project)
    segment_requests: list[str] = []
    page.on("request", lambda r: segment_requests.append(r.url) if "/segment/" in r.url else None)
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    assert page.is_hidden("#lock-banner")
    # On a 1280x720 laptop screen the Linter and Submit are in view, the state on one line, the task path whole.
    page.set_viewport_size({"width": 1280, "height": 720})
    assert page.locator("#btn-submit").bounding_box()["y"] + 30 <= 720
    assert page.evaluate("() => { const e = document.getElementById('item-state'); return e.getClientRects().length; }") == 1
    assert page.evaluate("() => { const c = document.querySelector('.ann-leaf code'); return c.scrollWidth <= c.clientWidth + 1; }")
    # Plain labels and the project's instructions.
    assert page.text_content("label[for=t-text_label]") == "Target Object Description · in the model's prompt"
    assert "Count every mug" in page.text_content("#instructions")
    # The "Keyboard shortcuts" button is readable on the white sidebar (it was white on white).
    colour = page.evaluate("() => getComputedStyle(document.getElementById('btn-help')).color")
    assert colour != "rgb(255, 255, 255)", colour
    page.keyboard.press("b")
    _stroke(page, 20, 20, 80, 20)
    [area] = instance_areas(page)
    # The selected instance is drawn in its swatch's colour (it was drawn grey with a white outline).
    swatch = page.evaluate("() => getComputedStyle(document.querySelector('#instances li.selected .swatch')).backgroundColor")
    colour = [int(v) for v in swatch[swatch.index("(") + 1:-1].split(",")[:3]]
    drawn = page.evaluate("""([x, y]) => { const v = window.annotationEditor.state.view;
        return Array.from(document.getElementById('canvas').getContext('2d')
          .getImageData(Math.round(v.tx + x * v.s), Math.round(v.ty + y * v.s), 1, 1).data).slice(0, 3); }""", [50, 20])
    # The scene's background is grey (~120): the drawn pixel must lean well towards the swatch's colour.
    assert sum(abs(d - c) for d, c in zip(drawn, colour)) < 0.5 * sum(abs(120 - c) for c in colour), (drawn, colour)
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")

    page.click("#btn-submit")
    page.wait_for_function("() => /give a reason|Submitted/.test(document.getElementById('save-status').textContent)")
    if "give a reason" in page.text_content("#save-status"):
        page.fill("#override-reason", "a stroke is all this test draws")
        page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted for review')")
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
