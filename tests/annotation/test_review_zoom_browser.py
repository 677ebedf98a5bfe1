"""The review page in Chromium: a 1280x720 image fits its card, zoom and pan, each instance switched off and on."""
from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth.models import Group

from annotation.core import rle
from annotation.services.editing import item_save, item_submit
from tests.annotation.conftest import png_bytes
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

W, H = 1280, 720


def _box(y1, y2, x1, x2):
    mask = np.zeros((H, W), bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def _pixel(page, index, x, y):
    """The colour drawn on the review canvas at image point (x, y)."""
    return page.evaluate("""([i, x, y]) => { const v = window.reviewPage.views.find(v => v.index === i);
        const c = v.canvas.getContext('2d').getImageData(Math.round(v.tx + x * v.s), Math.round(v.ty + y * v.s), 1, 1).data;
        return [c[0], c[1], c[2]]; }""", [index, x, y])


def test_review_image_fits_zooms_pans_and_toggles_instances(live_server, page, item_factory, annotator,
                                                            django_user_model):
    reviewer = django_user_model.objects.create_user("rob", password="pw-rob-123")
    reviewer.groups.add(Group.objects.get_or_create(name="reviewer")[0])
    [item] = item_factory(png_bytes(np.full((H, W, 3), 128, np.uint8)), assignee=annotator)
    saved = item_save(user=annotator, item_id=item.pk, version=item.version,
                      texts={"text_label": "two boxes"}, count=2, precise_count=True,
                      instances={"masklet_target": [_box(100, 300, 100, 400), _box(400, 600, 800, 1200)]})
    item_submit(user=annotator, item_id=item.pk, version=saved.version, override_reason="drawn for the test")

    page.set_viewport_size({"width": 1280, "height": 900})
    login_page(page, live_server.url, "rob", "pw-rob-123")
    page.goto(f"{live_server.url}/annotation/review/items/{item.pk}/")
    page.wait_for_function("() => window.reviewPage && window.reviewPage.ready === 1")

    # The image stays inside its card.
    card = page.locator(".review-card").bounding_box()
    canvas = page.locator(".review-canvas").bounding_box()
    assert canvas["x"] >= card["x"] and canvas["x"] + canvas["width"] <= card["x"] + card["width"] + 0.5
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")

    # Both instances drawn; switching the first off shows the grey image there, the second stays.
    grey = [128, 128, 128]
    assert _pixel(page, 0, 250, 200) != grey and _pixel(page, 0, 1000, 500) != grey
    page.uncheck(".review-toggles input[data-layer='0']")
    assert _pixel(page, 0, 250, 200) == grey and _pixel(page, 0, 1000, 500) != grey
    page.check(".review-toggles input[data-layer='0']")
    assert _pixel(page, 0, 250, 200) != grey

    # Zoom in with the wheel around a point: that point stays under the pointer; then pan by dragging.
    fit = page.evaluate("() => window.reviewPage.views[0].s")
    px, py = canvas["x"] + canvas["width"] * 0.25, canvas["y"] + canvas["height"] * 0.5
    page.mouse.move(px, py)
    page.mouse.wheel(0, -200)
    page.wait_for_function(f"() => window.reviewPage.views[0].s > {fit}")
    view = page.evaluate("() => { const v = window.reviewPage.views[0]; return {s: v.s, tx: v.tx, ty: v.ty}; }")
    ratio = page.evaluate("() => { const c = window.reviewPage.views[0].canvas; return c.width / c.getBoundingClientRect().width; }")
    before = ((px - canvas["x"]) * ratio - view["tx"]) / view["s"]
    assert abs(before - 0.25 * W) < 2
    page.mouse.down()
    page.mouse.move(px + 100, py + 40, steps=4)
    page.mouse.up()
    moved = page.evaluate("() => window.reviewPage.views[0].tx")
    assert moved > view["tx"] + 50
    assert page.evaluate("() => window.reviewPage.markers.length") == 0  # a drag is no marker
    page.click(".review-toggles button[data-zoom=Fit]")
    assert page.evaluate("() => window.reviewPage.views[0].s") == fit

    # A click (no drag) still drops a marker at the image point under it.
    page.mouse.click(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    [marker] = page.evaluate("() => window.reviewPage.markers")
    assert abs(marker["x"] - W / 2) < 3 and abs(marker["y"] - H / 2) < 3
