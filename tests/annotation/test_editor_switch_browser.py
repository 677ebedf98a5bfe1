"""Issue 34: the Next button switches items in place, in a real Chromium: no page load (the page's SAM decoder
session stays, warm), the item's unsaved work saved first, nothing of one item in the next, back and forward
land on the right item, and a click on the next item decodes that item's own embedding in the browser."""
from __future__ import annotations

import json

import numpy as np
import pytest
from pycocotools import mask as mask_utils

from annotation.core.segmentation import Embedding as SamEmbedding
from annotation.services.editing import item_save
from tests.annotation.browser_helpers import first_and_flipped_items, instance_areas, to_client
from tests.conftest import login_page

from .test_editor_sam_browser import ORT_MODULE, _iou, _mask_of, _server_mask

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DECODER_READY = "() => /decoder in the browser/.test(document.getElementById('embed-status').textContent)"


def _stored(item, masklet: str = "masklet_target") -> list[np.ndarray]:
    item.refresh_from_db()
    return [mask_utils.decode({"size": r["size"], "counts": r["counts"].encode()}).astype(bool)
            for r in json.loads(json.dumps(item.instances)).get(masklet, [])]


def test_next_switches_in_place_saving_first_and_keeping_the_decoder(
        live_server, page, sam_backend, sam_scene_embedding, scene_png, project_factory, item_factory, annotator,
        settings):
    if not ORT_MODULE.exists():
        pytest.fail(f"{ORT_MODULE} is missing: `make setup` installs onnxruntime-web (npm ci) and copies it there")
    first, second, cache = first_and_flipped_items(scene_png[0], sam_scene_embedding, project_factory, item_factory,
                                                   annotator, settings)
    # the second image's own features: a mask decoded from the first's would differ
    other = np.random.default_rng(29).normal(0, 0.5, size=(1, 256, 64, 64)).astype(np.float16)
    cache.put(second.images.get().sha256, SamEmbedding("sam-vit_b", (360, 640), (576, 1024), other))
    page.set_default_timeout(60000)

    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{first.pk}/")
    page.wait_for_function(DECODER_READY)
    page.evaluate("() => { window.keptAcrossItems = 'set on the first item'; }")  # gone if the page loads again
    page.uncheck("#hover-preview")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    first_mask = _mask_of(page)
    assert first_mask.any()
    # The page asked for the next item's editor data ahead (after its features); the item changes on the server
    # meanwhile (a curator's edit, another tab): the switch shows the item as it is now.
    page.wait_for_function("() => window.annotationEditor.prefetch.data === true")
    item_save(user=annotator, item_id=second.pk, version=second.version, texts={"text_label": "saved meanwhile"})
    # A label typed and Next pressed in the same moment: the label's save is still to come (the autosave waits
    # 700 ms after an edit), so the switch has to make it.
    unsaved = page.evaluate("""() => {
        const input = document.querySelector('[data-text=text_label]');
        input.value = 'the left one';
        input.dispatchEvent(new Event('input', {bubbles: true}));
        const status = document.getElementById('save-status').textContent;
        document.getElementById('btn-next').click();
        return status; }""")
    assert unsaved.startswith("Unsaved"), unsaved
    page.wait_for_url(f"**/annotation/items/{second.pk}/")
    page.wait_for_function(DECODER_READY)

    # No page load: what the first item's page set is still there, and the decoder's session is the same one (made
    # once: its first decode is made once per session).
    assert page.evaluate("() => window.keptAcrossItems") == "set on the first item"
    assert len(page.evaluate("() => window.annotationEditor.decoderStats.firstDecodeMs")) == 1
    assert page.evaluate("() => window.annotationEditor.switches.map((s) => [s.item, s.ahead])") == [[second.pk, True]]
    # The first item's work was saved before the switch ...
    [stored_first] = _stored(first)
    assert (stored_first == first_mask).all()
    assert first.texts == {"text_label": "the left one"}
    # ... and none of it is on the second: no masks, its own label (the server's, checked after the switch), an
    # undo with nothing to undo, its own name.
    page.wait_for_function("() => document.querySelector('[data-text=text_label]').value === 'saved meanwhile'")
    assert instance_areas(page) == []
    page.keyboard.press("Control+z")
    assert instance_areas(page) == []
    assert page.text_content("#item-name") == second.name and second.name in page.title()
    assert page.is_hidden("#btn-next")  # the queue ends here

    # A click on the second item decodes in the browser, from the second item's embedding.
    clicks = page.evaluate("() => window.annotationEditor.stats.clicks.length")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_function(f"() => window.annotationEditor.stats.clicks.length > {clicks}")
    assert "browser" in page.text_content("#seg-status")
    assert page.evaluate("() => window.annotationEditor.stats.segmentRequests") == 0
    second_mask = _mask_of(page)
    prompt = {"points": [[192, 180, 1]], "box": None, "multimask": True}
    own = _server_mask(page, second.images.get().pk, prompt)
    of_first = _server_mask(page, first.images.get().pk, prompt)
    assert _iou(second_mask, own) > 0.98, _iou(second_mask, own)
    assert _iou(second_mask, of_first) < 0.9, _iou(second_mask, of_first)

    # Back: the first item, in place, with its saved work; the second's click was saved on the way.
    page.go_back()
    page.wait_for_url(f"**/annotation/items/{first.pk}/")
    page.wait_for_function("() => window.annotationEditor.switches.length === 2")  # the URL changes first
    assert page.evaluate("() => window.keptAcrossItems") == "set on the first item"
    assert instance_areas(page) == [int(first_mask.sum())]
    assert page.input_value("[data-text=text_label]") == "the left one"
    [stored_second] = _stored(second)
    assert (stored_second == second_mask).all()
    # Forward: the second item again; a reload of its address opens it as a page.
    page.go_forward()
    page.wait_for_url(f"**/annotation/items/{second.pk}/")
    page.wait_for_function("() => window.annotationEditor.switches.length === 3")
    assert page.evaluate("() => window.annotationEditor.switches.map((s) => s.item)") == [second.pk, first.pk,
                                                                                          second.pk]
    assert instance_areas(page) == [int(second_mask.sum())]
    page.reload()
    page.wait_for_function("() => (window.annotationEditor.state.instances.masklet_target || []).length === 1")
    assert page.evaluate("() => window.keptAcrossItems") is None
    assert instance_areas(page) == [int(second_mask.sum())]
    assert len(page.evaluate("() => window.annotationEditor.switches")) == 0
