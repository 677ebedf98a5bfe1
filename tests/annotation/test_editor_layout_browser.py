"""Issue 32 in Chromium at 1366x768: "At 1366×768 the Masks buttons are hidden under the sticky Linter/Submit block
and Labels sits in an inner scroll area. No project description or instructions appear in the editor." —
""Preview under the pointer" is ticked with the classical backend but does nothing: say what the preview needs." —
"After submit the status line showed version 11 while the server had 12." """
from __future__ import annotations

import pytest

from annotation.models import Item
from tests.annotation.browser_helpers import to_client
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VISIBLE = """(sel) => { const e = document.querySelector(sel); const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return r.width > 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth && (hit === e || e.contains(hit)); }"""
# Every scrollable box around the element that actually scrolls (its content taller than itself).
SCROLLERS = """(sel) => { const out = []; for (let e = document.querySelector(sel).parentElement; e; e = e.parentElement) {
  const o = getComputedStyle(e).overflowY; if ((o === 'auto' || o === 'scroll') && e.scrollHeight > e.clientHeight + 1
  && e !== document.scrollingElement) out.push(e.className || e.tagName); } return out; }"""


def test_the_editor_at_1366x768(live_server, page, item_factory, project_factory, annotator, scene_png, settings):
    project = project_factory(description="Mugs on office desks, for the TL Color leaf.",
                              instructions="Count every mug, handles included.")
    [item] = item_factory(scene_png[0], assignee=annotator, project=project)
    page.set_viewport_size({"width": 1366, "height": 768})
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_selector("#t-text_label")

    # Masks buttons, every label field and Submit are all in view and not covered; no inner scroll area holds them.
    for control in ("#btn-new", "#btn-merge", "#btn-delete", "#masklet", "#t-text_label",
                    "#t-target_object_description_cn", "#btn-submit"):
        assert page.evaluate(VISIBLE, control), control
    assert page.evaluate(SCROLLERS, "#labels") == []
    assert page.evaluate(SCROLLERS, "#btn-new") == []
    # The project's description and instructions.
    assert "Mugs on office desks" in page.text_content("#project-description")
    assert "Count every mug" in page.text_content("#instructions")
    # With the classical backend the preview is off and the page says what it needs.
    assert not page.is_checked("#hover-preview") and page.is_disabled("#hover-preview")
    assert "needs SAM's decoder in the browser" in page.text_content("#preview-needs")

    # After submit the status line and the HUD show the server's version.
    page.keyboard.press("b")
    page.mouse.move(*to_client(page, 20, 20))
    page.mouse.down()
    page.mouse.move(*to_client(page, 80, 20), steps=4)
    page.mouse.up()
    page.fill("#t-text_label", "the grey mug")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    page.fill("#override-reason", "a stroke is all this test draws")
    page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted for review')")
    version = Item.objects.get(pk=item.pk).version
    assert f"(version {version})" in page.text_content("#save-status")
    assert f"version {version}" in page.text_content("#hud")
