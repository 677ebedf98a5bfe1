"""Issue 34, the browser's side of the prefetch: while anna works on an item, the editor downloads the next item's
embedding features once they are computed and loads them into its decoder; the Next button (in place) finds them
loaded, and a page of that item (a reload, a link opened) reads them from the browser's cache."""
from __future__ import annotations

import pytest

from tests.annotation.browser_helpers import first_and_flipped_items, to_client
from tests.conftest import login_page

from .test_editor_sam_browser import ORT_MODULE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_next_items_features_are_fetched_ahead_and_its_page_reads_them_from_the_cache(
        live_server, page, sam_backend, sam_scene_embedding, scene_png, project_factory, item_factory, annotator,
        settings):
    if not ORT_MODULE.exists():
        pytest.fail(f"{ORT_MODULE} is missing: `make setup` installs onnxruntime-web (npm ci) and copies it there")
    first, second, cache = first_and_flipped_items(scene_png[0], sam_scene_embedding, project_factory, item_factory,
                                                   annotator, settings)

    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{first.pk}/")
    page.wait_for_function("() => /decoder in the browser/.test(document.getElementById('embed-status').textContent)",
                           timeout=30000)
    # opening the first item queued the second's embedding; the worker's part, done here: its features cached
    assert second.images.get().embeddings.get().status == "queued"
    cache.put(second.images.get().sha256, sam_scene_embedding)
    page.wait_for_function("() => window.annotationEditor.prefetch.cached === 1", timeout=30000)

    page.click("a.button:has-text('Next item')")
    page.wait_for_url(f"**/annotation/items/{second.pk}/")
    page.wait_for_function("() => /decoder in the browser/.test(document.getElementById('embed-status').textContent)",
                           timeout=30000)
    features = f"/api/annotation/images/{second.images.get().pk}/embedding/features/"
    loads = """() => performance.getEntriesByType('resource')
        .filter((e) => /embedding[/]features|decoders/.test(e.name)).map((e) => [e.name, e.transferSize, e.startTime])"""
    # In place (switch.js): the features were downloaded once, by the prefetch, before the Next button; none since.
    next_at = page.evaluate("() => window.annotationEditor.switches.at(-1).at")
    [(_, _, started)] = [entry for entry in page.evaluate(loads) if entry[0].endswith(features)]
    assert started < next_at
    page.uncheck("#hover-preview")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    assert "browser" in page.text_content("#seg-status")
    # the click decoded the features loaded ahead: still that one download
    assert [entry[2] for entry in page.evaluate(loads) if entry[0].endswith(features)] == [started]

    # A page of that item (the fallback when the switch cannot be made in place: a reload, a link opened) reads them
    # from the cache (the ~19 MiB decoder file is not checked: a test browser's in-memory cache keeps no entry that
    # large, an annotator's disk cache does).
    page.reload()
    page.wait_for_function("() => /decoder in the browser/.test(document.getElementById('embed-status').textContent)",
                           timeout=30000)
    assert [size for name, size, _ in page.evaluate(loads) if name.endswith(features)] == [0], page.evaluate(loads)
