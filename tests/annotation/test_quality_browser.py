"""Issue 32, quality control, in a real Chromium: the editor records how each mask was made (a click proposal of the
classical backend, a brush stroke, an eraser stroke) and sends it with the save; after the submit the consensus
check (the Celery task, eager) disagrees with the mask the eraser cut; the reviewer sees the flag, the model's
proposal drawn over the image beside the annotator's mask, and the provenance table."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group

from annotation.models import ConsensusCheck, Item
from tests.annotation.browser_helpers import instance_areas, to_client
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT_DIR = Path(os.environ.get("ANNOTATION_SCREENSHOTS", "/tmp"))


def _stroke(page, tool: str, radius: int, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.keyboard.press(tool)
    page.evaluate("(r) => { const el = document.getElementById('brush-size'); el.value = r;"
                  " el.dispatchEvent(new Event('input')); }", radius)
    page.mouse.move(*to_client(page, *start))
    page.mouse.down()
    page.mouse.move(*to_client(page, *end), steps=6)
    page.mouse.up()


def _canvas_pixel(page, x: float, y: float) -> list[int]:
    """The review canvas's colour at image pixel (x, y) (the canvas fits the card: scaled)."""
    return page.evaluate("""([x, y]) => { const v = window.reviewPage.views[0];
        const d = v.canvas.getContext('2d').getImageData(Math.round(x * v.s + v.tx), Math.round(y * v.s + v.ty), 1, 1).data;
        return [d[0], d[1], d[2]]; }""", [x, y])


def test_the_reviewer_sees_the_consensus_overlay_and_how_the_masks_were_made(
    live_server, page, celery_eager, item_factory, annotator, django_user_model, scene_png
):
    django_user_model.objects.create_user("rob", password="pw-rob-123").groups.add(
        Group.objects.get_or_create(name="reviewer")[0])
    data, _ = scene_png  # 640x360: a red disc at (192, 180) r=64, a blue rectangle x 384-544, y 90-252
    [item] = item_factory(data, assignee=annotator)
    base = live_server.url

    # The annotator: the disc from a click, widened a little with the brush; the rectangle from a click, cut in two
    # by the eraser (no longer what the model proposes from that click).
    login_page(page, base, "anna", "pw-anna-123")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{base}/annotation/items/{item.pk}/")
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_function("() => document.querySelectorAll('#proposals button').length > 0")
    _stroke(page, "b", 12, (250, 180), (275, 180))
    page.keyboard.press("n")
    page.keyboard.press("c")
    page.mouse.click(*to_client(page, 464, 170))
    page.wait_for_function("() => (window.annotationEditor.state.instances.masklet_target || []).length === 2"
                           " && window.annotationEditor.state.instances.masklet_target[1].area > 0")
    before = instance_areas(page)[1]
    _stroke(page, "e", 40, (464, 60), (464, 280))
    assert instance_areas(page)[1] < 0.8 * before
    page.fill("#t-text_label", "the red disc and the blue box")
    page.fill("#f-count", "2")
    page.check("#f-precise")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")

    saved = Item.objects.get(pk=item.pk).provenance["masklet_target"]
    assert [e["source"] for e in saved] == ["classic", "classic"] and {e["decoder"] for e in saved} == {"server"}
    [[x, y, label]] = saved[0]["prompts"][-1]["points"]  # the click, in image pixels (0.1 px)
    assert abs(x - 192) < 1.5 and abs(y - 180) < 1.5 and label == 1
    assert [h["op"] for h in saved[0]["history"]] == ["classic", "brush"] and 0 < saved[0]["painted_share"] < 0.2
    assert [h["op"] for h in saved[1]["history"]] == ["classic", "erase"] and saved[1]["painted_share"] > 0.2

    page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted')")
    checks = ConsensusCheck.objects.filter(item=item).order_by("index")
    assert [c.flagged for c in checks] == [False, True], [c.iou for c in checks]

    # The reviewer: the flag, both masks on the image (the proposal in cyan, switchable), the provenance table.
    page.context.clear_cookies()
    login_page(page, base, "rob", "pw-rob-123")
    page.goto(f"{base}/annotation/review/items/{item.pk}/")
    page.wait_for_function("() => window.reviewPage && window.reviewPage.ready === 1")
    assert page.evaluate("window.reviewPage.proposals") == 1
    assert page.locator("#consensus-flag").is_visible()
    assert "#2" in page.text_content("#consensus-flag") and "classic" in page.text_content("#consensus-flag")
    toggle = page.locator("label[data-proposal]")
    assert toggle.is_visible() and "IoU" in toggle.text_content()
    cut = (464, 170)  # erased by the annotator, inside the model's proposal
    with_proposal = _canvas_pixel(page, *cut)
    page.screenshot(path=str(SCREENSHOT_DIR / "review-consensus.png"), full_page=True)
    toggle.locator("input").uncheck()
    without = _canvas_pixel(page, *cut)
    assert with_proposal != without and with_proposal[1] > without[1]  # the cyan tint is the proposal's
    table = page.locator("#provenance")
    table.scroll_into_view_if_needed()
    assert table.is_visible()
    text = table.text_content()
    assert "classic, brush" in text and "classic, erase" in text and "server" in text
    assert "1 positive, 0 negative click(s)" in text
    row = page.locator("#provenance tr[data-index='2']").text_content()
    assert "no" in row and "IoU" in row
