"""The editor in a real Chromium (Playwright, system browser) against pytest-django's live server."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from annotation.models import Item
from annotation.services.editing import item_save
from tests.annotation.browser_helpers import instance_areas, to_client
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT_DIR = Path(os.environ.get("ANNOTATION_SCREENSHOTS", "/tmp"))


def _wait_saved(page) -> None:
    try:
        page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    except PlaywrightTimeoutError:
        raise AssertionError(f"not saved: {page.text_content('#save-status')!r}") from None


def test_annotator_segments_edits_saves_and_submits_in_the_editor(
    live_server, page, celery_eager, item_factory, annotator, scene_png
):
    data, truth = scene_png  # 640x360: a red disc at (192, 180) r=64, a blue rectangle x 384-544, y 90-252
    [item] = item_factory(data, assignee=annotator)
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")

    # A positive click on the disc gives a mask close to the disc.
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    [area] = instance_areas(page)
    assert abs(area - truth["disc"].sum()) < 0.1 * truth["disc"].sum()
    assert "classic" in page.text_content("#seg-status")

    # Brush adds, undo takes it back, redo brings it again.
    page.keyboard.press("b")
    page.mouse.move(*to_client(page, 20, 20))
    page.mouse.down()
    page.mouse.move(*to_client(page, 60, 20), steps=5)
    page.mouse.up()
    [brushed] = instance_areas(page)
    assert brushed > area
    page.keyboard.press("Control+z")
    assert instance_areas(page) == [area]
    page.keyboard.press("Control+Shift+z")
    assert instance_areas(page) == [brushed]
    # The eraser removes the stroke again (a wider eraser, size changed with "]").
    page.keyboard.press("e")
    for _ in range(5):
        page.keyboard.press("]")
    page.mouse.move(*to_client(page, 15, 20))
    page.mouse.down()
    page.mouse.move(*to_client(page, 65, 20), steps=8)
    page.mouse.up()
    assert instance_areas(page) == [area]

    # A new instance from a box prompt around the rectangle.
    page.keyboard.press("n")
    page.keyboard.press("x")
    page.mouse.move(*to_client(page, 375, 82))
    page.mouse.down()
    page.mouse.move(*to_client(page, 552, 260), steps=6)
    page.mouse.up()
    page.wait_for_function("() => window.annotationEditor.state.instances['masklet_target'].length === 2")
    page.wait_for_function("() => window.annotationEditor.state.instances['masklet_target'][1].area > 0")
    rect_area = instance_areas(page)[1]
    assert abs(rect_area - truth["rect"].sum()) < 0.1 * truth["rect"].sum()

    # Labels: the text says three but there are two: the linter says so after the autosave.
    page.fill("#t-text_label", "the three coloured shapes")
    page.fill("#f-count", "2")
    page.check("#f-precise")
    page.check("#f-indesc")
    _wait_saved(page)
    page.wait_for_selector("#findings li[data-code=text-count-mismatch]")

    # Reloading shows the saved work.
    page.reload()
    page.wait_for_function("() => window.annotationEditor && window.annotationEditor.state.instances['masklet_target'].length === 2")
    assert page.input_value("#f-count") == "2"
    stored = Item.objects.get(pk=item.pk)
    assert len(stored.instances["masklet_target"]) == 2 and stored.state == "in_progress"

    # A change made while the browser is offline survives closing the tab (localStorage backup): the next
    # visit restores it and saves it. (Online, the tab's last-chance keepalive save would reach the server.)
    context = page.context
    context.set_offline(True)
    page.fill("#t-text_label", "the two coloured shapes")
    page.wait_for_function("() => localStorage.getItem('annotation-item-%d').includes('the two coloured')" % item.pk)
    page.close()
    context.set_offline(False)
    assert Item.objects.get(pk=item.pk).texts["text_label"] == "the three coloured shapes"
    page = context.new_page()
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    assert page.input_value("#t-text_label") == "the two coloured shapes"
    _wait_saved(page)
    assert Item.objects.get(pk=item.pk).texts["text_label"] == "the two coloured shapes"
    page.wait_for_function("() => document.querySelector('#findings li').textContent === 'No findings.'")

    # Help overlay, zoom, opacity and outline toggles.
    page.keyboard.press("?")
    assert page.is_visible("#help")
    page.screenshot(path=str(SCREENSHOT_DIR / "annotation-editor-help.png"))
    page.keyboard.press("Escape")
    assert not page.is_visible("#help")
    before = page.evaluate("() => window.annotationEditor.state.view.s")
    page.mouse.move(*to_client(page, 320, 180))
    page.mouse.wheel(0, -300)
    assert page.evaluate("() => window.annotationEditor.state.view.s") > before
    page.keyboard.press("0")
    page.keyboard.press("l")
    assert page.evaluate("() => window.annotationEditor.state.outlines") is False
    page.keyboard.press("l")
    page.screenshot(path=str(SCREENSHOT_DIR / "annotation-editor.png"))

    # Submission: blocked while there are findings unless overridden with a reason.
    page.fill("#t-text_label", "the several coloured shapes and one more")
    _wait_saved(page)
    page.wait_for_selector("#findings li.error")
    page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.includes('give a reason')")
    assert Item.objects.get(pk=item.pk).state == "in_progress"
    page.fill("#override-reason", "the description is quoted from the operator verbatim")
    page.click("#btn-submit")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Submitted for review')")
    submitted = Item.objects.get(pk=item.pk)
    assert submitted.state == Item.State.SUBMITTED
    assert submitted.override_reason == "the description is quoted from the operator verbatim"


@pytest.mark.timing  # a frame's time is bounded
def test_editor_stays_responsive_with_50_instances_on_a_1920x1080_image(
    live_server, page, celery_eager, item_factory, annotator, curator
):
    import numpy as np

    from annotation.core import rle

    from .conftest import png_bytes

    image = np.random.default_rng(3).integers(0, 255, size=(1080, 1920, 3), dtype=np.uint8)
    [item] = item_factory(png_bytes(image), assignee=annotator)
    masks = []
    for k in range(50):
        mask = np.zeros((1080, 1920), bool)
        y, x = divmod(k, 10)
        mask[40 + y * 200 : 40 + y * 200 + 150, 20 + x * 190 : 20 + x * 190 + 160] = True
        masks.append(rle.encode(mask))
    item_save(user=curator, item_id=item.pk, version=1, count=50, instances={"masklet_target": masks})
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => window.annotationEditor.state.instances['masklet_target'].length === 50")
    # Time 30 redraws with zoom changes (every instance drawn each frame) and one brush edit + autosave encode.
    timing = page.evaluate("""async () => {
        const ed = window.annotationEditor;
        const canvas = document.getElementById('canvas');
        const t0 = performance.now();
        for (let i = 0; i < 30; i++) {
            canvas.dispatchEvent(new WheelEvent('wheel', {deltaY: i % 2 ? 100 : -100, clientX: 300, clientY: 300}));
            await new Promise(r => requestAnimationFrame(() => r()));
        }
        const frame = (performance.now() - t0) / 30;
        const t1 = performance.now();
        const p = ed.payload();
        const encode = performance.now() - t1;
        return {frame, encode, n: p.instances.masklet_target.length};
    }""")
    print(f"50 instances on 1920x1080: {timing['frame']:.1f} ms per frame, payload {timing['encode']:.0f} ms")
    assert timing["n"] == 50
    assert timing["frame"] < 100, timing
    page.screenshot(path=str(SCREENSHOT_DIR / "annotation-editor-50.png"))


def test_polygon_fill_holes_merge_and_delete_in_the_editor(live_server, page, celery_eager, item_factory, annotator,
                                                            small_png):
    [item] = item_factory(small_png, assignee=annotator)  # 40x30
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => window.annotationEditor && window.annotationEditor.state.view.s > 1")

    # A polygon (closed with Enter) makes instance 1: the square 2..12 x 2..12.
    page.keyboard.press("p")
    for x, y in [(2, 2), (12, 2), (12, 12), (2, 12)]:
        page.mouse.click(*to_client(page, x, y))
    page.keyboard.press("Enter")
    [square] = instance_areas(page)
    assert 90 <= square <= 110

    # A brush ring around (27, 15) as instance 2, then fill-holes fills its inside.
    page.keyboard.press("n")
    page.keyboard.press("b")
    page.evaluate("() => { document.getElementById('brush-size').value = 1; document.getElementById('brush-size').dispatchEvent(new Event('input')); }")
    ring = [(22, 10), (32, 10), (32, 20), (22, 20), (22, 10)]
    page.mouse.move(*to_client(page, *ring[0]))
    page.mouse.down()
    for point in ring[1:]:
        page.mouse.move(*to_client(page, *point), steps=10)
    page.mouse.up()
    ring_area = instance_areas(page)[1]
    page.keyboard.press("f")
    filled = instance_areas(page)[1]
    assert filled > ring_area + 40

    # Shift-click both in the list and merge them; then delete the merged one.
    page.click("#instances li:nth-child(1)")
    page.click("#instances li:nth-child(2)", modifiers=["Shift"])
    page.keyboard.press("m")
    assert instance_areas(page) == [square + filled]
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    page.click("#instances li:nth-child(1)")
    page.keyboard.press("Delete")
    assert instance_areas(page) == []
    page.keyboard.press("Control+z")
    assert instance_areas(page) == [square + filled]


def test_visual_matching_editor_draws_each_layer_on_its_own_image(live_server, page, celery_eager, item_factory,
                                                                 annotator, project_factory, scene_png):
    import numpy as np

    from .conftest import png_bytes, zip_bytes

    project = project_factory(leaf="Navigation/VisualMatching", slug="vm")
    small = png_bytes(np.full((30, 40, 3), 90, np.uint8))
    [item] = item_factory(zip_bytes([("s/a.png", small), ("s/b.png", scene_png[0])]), name="vm.zip", project=project,
                          assignee=annotator)
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    # The scored layer (matching area) is on image B, the 640x360 scene.
    page.wait_for_function("() => window.annotationEditor && window.annotationEditor.state.masklet === 'masklet_matching_area'")
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_function("() => (window.annotationEditor.state.instances['masklet_matching_area'] || []).length === 1 && window.annotationEditor.state.instances['masklet_matching_area'][0].area > 0")
    inst = page.evaluate("() => { const i = window.annotationEditor.state.instances['masklet_matching_area'][0]; return [i.w, i.h]; }")
    assert inst == [640, 360]
    # Tab goes to the reference layer on image A (40x30).
    page.keyboard.press("Tab")
    assert page.evaluate("() => window.annotationEditor.state.masklet") == "masklet_reference_area"
    page.keyboard.press("p")
    for x, y in [(2, 2), (20, 2), (20, 20)]:
        page.mouse.click(*to_client(page, x, y))
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    saved = Item.objects.get(pk=item.pk).instances
    assert [r["size"] for r in saved["masklet_reference_area"]] == [[30, 40]]
    assert [r["size"] for r in saved["masklet_matching_area"]] == [[360, 640]]


def _shown(page, x: float, y: float) -> list[int]:
    """The canvas's colour (RGB) at image point (x, y), after the next two frames are drawn."""
    return page.evaluate(
        """async ([x, y]) => {
            await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
            const v = window.annotationEditor.state.view, canvas = document.getElementById('canvas');
            const px = canvas.getContext('2d').getImageData(Math.floor(v.tx + x * v.s), Math.floor(v.ty + y * v.s),
                                                            1, 1).data;
            return [px[0], px[1], px[2]]; }""", [x, y])


def test_the_canvas_shows_what_the_instances_hold_as_they_change(live_server, page, celery_eager, item_factory,
                                                                  annotator, small_png):
    """The masks are drawn from one layer per image, rebuilt when an instance changes: every change shows."""
    [item] = item_factory(small_png, assignee=annotator)  # 40x30, grey 90
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => window.annotationEditor && window.annotationEditor.state.view.s > 1")
    inside, outside = (7.5, 7.5), (30.5, 25.5)  # pixel centres
    image = _shown(page, *inside)
    assert image == _shown(page, *outside) == [90, 90, 90]

    page.keyboard.press("p")
    for x, y in [(2, 2), (12, 2), (12, 12), (2, 12)]:
        page.mouse.click(*to_client(page, x, y))
    page.keyboard.press("Enter")
    tinted = _shown(page, *inside)
    assert tinted != image and _shown(page, *outside) == image
    page.keyboard.press("o")  # hide the masks
    assert _shown(page, *inside) == image
    page.keyboard.press("o")
    assert _shown(page, *inside) == tinted
    page.evaluate("() => { const o = document.getElementById('opacity'); o.value = 90; o.dispatchEvent(new Event('input')); }")
    stronger = _shown(page, *inside)
    assert stronger not in (tinted, image)

    # A second instance beside the first: both drawn; deleting one leaves the other; undo brings it back.
    page.keyboard.press("n")
    page.keyboard.press("p")
    for x, y in [(20, 15), (35, 15), (35, 28), (20, 28)]:
        page.mouse.click(*to_client(page, x, y))
    page.keyboard.press("Enter")
    assert _shown(page, *outside) != image and _shown(page, *inside) != image
    page.click("#instances li:nth-child(1)")
    page.keyboard.press("Delete")
    assert _shown(page, *inside) == image and _shown(page, *outside) != image
    page.keyboard.press("Control+z")
    assert _shown(page, *inside) != image and _shown(page, *outside) != image


def test_a_click_the_server_answers_shows_its_point_while_it_waits(live_server, page, celery_eager, item_factory,
                                                                     annotator, small_png):
    """The browser decoder's click is drawn with its mask in one frame; a click waiting on the server at once."""
    [item] = item_factory(small_png, assignee=annotator)
    held = []
    page.route("**/api/annotation/images/*/segment/", lambda route: held.append(route))
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")
    assert _shown(page, 20, 15) == [90, 90, 90]
    page.mouse.click(*to_client(page, 20, 15))
    page.wait_for_function("() => document.getElementById('seg-status').textContent === 'Segmenting…'")
    assert held, "the click should be waiting on the server"
    assert _shown(page, 20, 15) == [0x2E, 0xCC, 0x40]  # the positive point's marker, drawn before the answer
    held[0].continue_()
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length === 1")
    assert page.evaluate("() => window.annotationEditor.stats.lastSource") == "server"
