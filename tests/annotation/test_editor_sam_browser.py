"""SAM's decoder in the editor's browser (onnxruntime-web on the server's embedding), in a real Chromium.

The site's backend is a seeded random vit_b (no checkpoint is downloaded): its masks are not good segmentations,
so the tests compare the browser's answer with the server's for the same prompt instead of with the drawn shapes.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pycocotools import mask as mask_utils

from annotation.embeddings import segmentation_backend
from tests.annotation.browser_helpers import to_client
from tests.conftest import login_page

# timing: the decoder's timings and the race of a click with the hover preview's decode (run alone)
pytestmark = [pytest.mark.browser, pytest.mark.timing, pytest.mark.django_db(transaction=True)]

SEGMENT_URL = "**/api/annotation/images/*/segment/"


ORT_MODULE = Path(__file__).resolve().parents[2] / "static/vendor/onnxruntime-web/ort.wasm.bundle.min.mjs"


def _open_with_browser_decoder(page, live_server, item, blocked: list[str], query: str = "") -> None:
    if not ORT_MODULE.exists():
        pytest.fail(f"{ORT_MODULE} is missing: `make setup` installs onnxruntime-web (npm ci) and copies it there")
    def refuse(route):
        blocked.append(route.request.url)
        route.abort()

    page.route(SEGMENT_URL, refuse)
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/{query}")
    page.wait_for_function(
        "() => /decoder in the browser|segmenting on the server/"
        ".test(document.getElementById('embed-status').textContent)", timeout=30000)
    assert "decoder in the browser" in page.text_content("#embed-status"), page.text_content("#embed-status")


def _mask_of(page, masklet: str = "masklet_target") -> np.ndarray:
    data = page.evaluate(
        """(m) => { const i = window.annotationEditor.state.instances[m].at(-1);
                    return {w: i.w, h: i.h, on: Array.from(i.mask.keys()).filter(k => i.mask[k])}; }""", masklet)
    mask = np.zeros(data["w"] * data["h"], bool)
    mask[data["on"]] = True
    return mask.reshape(data["h"], data["w"])


def _server_mask(page, image_id: int, body: dict) -> np.ndarray:
    answer = page.evaluate(
        """async ([id, body]) => { const r = await fetch(`/api/annotation/images/${id}/segment/`, {method: 'POST',
             headers: {'Content-Type': 'application/json',
                       'X-CSRFToken': document.cookie.match(/csrftoken=([^;]+)/)[1]},
             body: JSON.stringify(body)}); return [r.status, await r.json()]; }""", [image_id, body])
    assert answer[0] == 200, answer
    rle = answer[1]["masks"][0]["rle"]
    return mask_utils.decode({"size": rle["size"], "counts": rle["counts"].encode()}).astype(bool)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = (a | b).sum()
    return float((a & b).sum() / union) if union else 1.0


def test_a_click_gives_a_mask_in_the_browser_with_no_request_to_the_server(live_server, page, sam_scene_item):
    item, _ = sam_scene_item
    image_id = item.images.get().pk
    blocked: list[str] = []
    _open_with_browser_decoder(page, live_server, item, blocked)

    page.uncheck("#hover-preview")  # this test is about the click; the hover preview has its own
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    assert "browser" in page.text_content("#seg-status")
    assert blocked == []
    assert len(page.query_selector_all("#proposals button")) == 3  # multimask: SAM's three answers
    # the editor is cross-origin isolated (scoring/isolation.py): WebAssembly threads on all cores but one, 2 to 4
    assert page.evaluate("() => self.crossOriginIsolated")
    cores = page.evaluate("() => navigator.hardwareConcurrency || 1")
    assert page.evaluate("() => window.annotationEditor.decoderStats.threads") == min(cores, 4, max(2, cores - 1))
    first = _mask_of(page)
    assert first.shape == (360, 640)

    # The same prompt on the server (the fallback path) gives the same mask.
    page.unroute(SEGMENT_URL)
    server = _server_mask(page, image_id, {"points": [[192, 180, 1]], "box": None, "multimask": True})
    assert _iou(first, server) > 0.98, _iou(first, server)

    # A negative point and then a box refine it locally too; the previous mask goes in as mask_input.
    blocked_again: list[str] = []
    page.route(SEGMENT_URL, lambda route: (blocked_again.append(route.request.url), route.abort()))
    page.mouse.click(*to_client(page, 300, 100), button="right")
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length >= 2")
    page.keyboard.press("2")  # pick another of the proposals
    page.wait_for_function("() => window.annotationEditor.state.prompt.pick === 1")
    page.uncheck("#multimask")
    page.click("[data-tool=box]")
    page.mouse.move(*to_client(page, 380, 80))
    page.mouse.down()
    page.mouse.move(*to_client(page, 550, 260), steps=4)
    page.mouse.up()
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length >= 3")
    assert len(page.query_selector_all("#proposals button")) == 1  # single mask asked
    assert blocked_again == []
    stats = page.evaluate("() => window.annotationEditor.stats")
    assert stats["segmentRequests"] == 0 and {c["source"] for c in stats["clicks"]} == {"browser"}
    # each click's time splits into the wait for the decoder's answer (its run and more), the page's work, the frame
    runs = page.evaluate("() => window.annotationEditor.decoderStats.runMs")
    for click, run in zip(stats["clicks"], runs[-3:]):
        assert click["answerMs"] >= run and click["workMs"] >= 0 and click["frameMs"] >= 0, (click, run)

    # The mask is saved as any other: the server stores what the browser decoded.
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    item.refresh_from_db()
    saved = json.loads(json.dumps(item.instances))["masklet_target"][-1]
    stored = mask_utils.decode({"size": saved["size"], "counts": saved["counts"].encode()}).astype(bool)
    assert (stored == _mask_of(page)).all()
    # ... with how it was made (issue 32): SAM in the browser, this checkpoint, the prompt set as clicked and boxed.
    [made] = item.provenance["masklet_target"]
    assert (made["source"], made["decoder"], made["model"]) == ("sam", "browser", "sam-vit_b")
    assert made["checkpoint_sha256"] == segmentation_backend().checkpoint_sha256()
    [prompt] = made["prompts"]  # one prompt set: the clicks and the box refined one instance
    assert prompt["box"] == pytest.approx([380, 80, 550, 260], abs=1.5)  # screen -> image pixels, rounded
    assert prompt["multimask"] is False and prompt["pick"] == 0
    assert [p[2] for p in prompt["points"]] == [1, 0]
    assert made["painted_share"] == 0 and {h["op"] for h in made["history"]} == {"sam"}
    assert isinstance(made["predicted_iou"], float)


def test_the_server_path_is_the_fallback_when_asked_for(live_server, page, sam_scene_item):
    item, _ = sam_scene_item
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/?decoder=server")
    page.wait_for_function("() => document.getElementById('embed-status').textContent.includes('ready')")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    assert page.text_content("#seg-status").startswith("sam ·") and "browser" not in page.text_content("#seg-status")
    assert page.evaluate("() => window.annotationEditor.stats.segmentRequests") == 1


def test_a_click_while_the_browser_decoder_loads_is_answered_by_the_server(live_server, page, sam_scene_item):
    """The decoder's download is held back: a click made meanwhile does not wait for it, the server answers; once the
    decoder is loaded (and has made its first decode), the next click is decoded in the browser."""
    item, _ = sam_scene_item
    held = []
    page.route("**/*.onnx", lambda route: held.append(route))  # answered later, by the test
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => /loading the in-browser decoder/.test(document.getElementById('embed-status')"
                           ".textContent)", timeout=30000)
    assert len(held) == 1, held

    page.uncheck("#hover-preview")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length === 1")
    assert "on the server while the browser's decoder loads" in page.text_content("#seg-status")
    assert page.evaluate("() => window.annotationEditor.stats.segmentRequests") == 1
    assert page.evaluate("() => window.annotationEditor.state.instances.masklet_target.at(-1).area") > 0

    held[0].continue_()
    page.wait_for_function("() => /decoder in the browser/.test(document.getElementById('embed-status').textContent)",
                           timeout=30000)
    assert page.evaluate("() => window.annotationEditor.decoderStats.firstDecodeMs.length") == 1
    page.mouse.click(*to_client(page, 450, 100))
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length === 2")
    assert "browser" in page.text_content("#seg-status")
    assert page.evaluate("() => window.annotationEditor.stats.segmentRequests") == 1


def test_a_decoder_that_fails_to_load_leaves_the_clicks_to_the_server(live_server, page, sam_scene_item):
    item, _ = sam_scene_item
    page.route("**/*.onnx", lambda route: route.abort())
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => /segmenting on the server/.test(document.getElementById('embed-status').textContent)",
                           timeout=30000)
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length === 1")
    status = page.text_content("#seg-status")
    assert status.startswith("sam ·") and "loads" not in status, status  # not said to be loading any more
    assert page.evaluate("() => window.annotationEditor.stats.segmentRequests") == 1


def test_the_hover_preview_follows_the_pointer_and_a_click_keeps_it(live_server, page, sam_scene_item):
    item, _ = sam_scene_item
    blocked: list[str] = []
    _open_with_browser_decoder(page, live_server, item, blocked)

    for x in (150, 170, 192, 220, 450):
        page.mouse.move(*to_client(page, x, 180))
        page.wait_for_timeout(60)
    page.wait_for_function("() => window.annotationEditor.stats.hoverUpdates >= 2")
    assert page.evaluate("() => window.annotationEditor.state.instances.masklet_target.length") == 0  # only a preview
    assert page.evaluate("() => window.annotationEditor.hoverShown().area") > 0

    # Rest on one point, then click it: the mask kept is the preview's, with no second decode.
    page.mouse.move(*to_client(page, 192, 180))
    page.wait_for_function("""() => { const h = window.annotationEditor.hoverShown();
        return h && !h.busy && Math.abs(h.point[0] - 192) < 1 && Math.abs(h.point[1] - 180) < 1; }""")
    shown = page.evaluate("() => window.annotationEditor.hoverShown().area")
    runs = page.evaluate("() => window.annotationEditor.decoderStats.runs")
    page.mouse.click(*to_client(page, 192, 180))  # Playwright moves the pointer onto the point first, as a mouse may
    page.wait_for_selector("#proposals button")
    assert "from the preview" in page.text_content("#seg-status")
    assert int(_mask_of(page).sum()) == shown
    # the click's own move to where the pointer already was started no decode of the prompt the preview showed
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.annotationEditor.decoderStats.runs") == runs
    assert blocked == []


def test_a_click_where_the_preview_has_a_decode_queued_is_decoded_once(live_server, page, sam_scene_item):
    """The pointer passes one place and stops on another while the first one's preview decodes, so the second's is
    queued behind it; a click there takes the queued decode's place: its prompt is decoded once, by the click (two
    decodes in all, not three)."""
    item, _ = sam_scene_item
    blocked: list[str] = []
    _open_with_browser_decoder(page, live_server, item, blocked)
    page.wait_for_function("() => { const d = window.annotationEditor.decoderStats; return d.runs + d.warmRuns >= 8; }")
    runs = page.evaluate("() => window.annotationEditor.decoderStats.runs")

    page.mouse.move(*to_client(page, 150, 180))
    page.mouse.move(*to_client(page, 450, 100))
    page.mouse.click(*to_client(page, 450, 100))
    page.wait_for_function("() => window.annotationEditor.stats.clicks.length === 1")
    page.wait_for_timeout(800)  # a second decode of the click's prompt would follow the click's at once
    assert page.evaluate("() => window.annotationEditor.decoderStats.runs") == runs + 2
    assert page.evaluate("() => window.annotationEditor.state.instances.masklet_target.at(-1).area") > 0
    assert blocked == []


def test_a_click_while_the_preview_decodes_its_point_takes_that_decode(live_server, page, sam_scene_item):
    """The pointer arrives and clicks at once: the click does not queue a second decode of the same prompt behind
    the preview's, it takes the preview's answer (one decode in all) and keeps the same mask."""
    item, _ = sam_scene_item
    blocked: list[str] = []
    _open_with_browser_decoder(page, live_server, item, blocked)
    page.wait_for_function("() => window.annotationEditor.decoderStats.warmRuns >= 8", timeout=60000)
    runs = page.evaluate("() => window.annotationEditor.decoderStats.runs")
    previews = page.evaluate("() => window.annotationEditor.stats.hoverUpdates")
    page.mouse.click(*to_client(page, 192, 180))  # one mousemove to the point, then the press at once
    page.wait_for_selector("#proposals button")
    assert "the preview's decode" in page.text_content("#seg-status"), page.text_content("#seg-status")
    assert page.evaluate("() => window.annotationEditor.decoderStats.runs") == runs + 1
    # the preview left that answer to the click: no preview of it drawn first, on the click's time
    assert page.evaluate("() => window.annotationEditor.stats.hoverUpdates") == previews
    page.unroute(SEGMENT_URL)
    server = _server_mask(page, item.images.get().pk, {"points": [[192, 180, 1]], "box": None, "multimask": True})
    assert _iou(_mask_of(page), server) > 0.98
    assert blocked == []


def test_the_decoder_runs_off_the_pages_thread(live_server, page, sam_scene_item):
    """onnxruntime-web runs in its Web Worker (`ort.env.wasm.proxy`): while a decode is in flight the page's own
    tasks still run (a timer set as the decode starts fires long before it ends), so hovering never freezes it."""
    item, _ = sam_scene_item
    _open_with_browser_decoder(page, live_server, item, [])
    page.uncheck("#hover-preview")
    timing = page.evaluate("""async () => {
        const base = document.querySelector('script[type=module][src*="main.js"]').src;
        const d = await import(new URL('decoder.js', base).href), s = await import(new URL('state.js', base).href);
        const ctx = await d.contextFor(s.currentImage());
        const runs = [];
        for (let k = 0; k < 3; k++) {
          let fired = null;
          const t0 = performance.now();
          setTimeout(() => { fired = performance.now() - t0; }, 0);
          await d.decode(ctx, {points: [[100 + 20 * k, 120, 1]], box: null, multimask: true, maskInput: null});
          runs.push({fired, total: performance.now() - t0});
        }
        return runs;
    }""")
    # On the page's thread the timer could only fire after the decode (fired == null or fired >= total).
    assert all(r["fired"] is not None and r["fired"] < r["total"] / 2 for r in timing), timing


def test_the_decoder_runs_on_several_webassembly_threads(live_server, page, sam_scene_item):
    """Asked for 2 threads (`?decoder-threads=2`), the decoder gives the server's mask."""
    item, _ = sam_scene_item
    blocked: list[str] = []
    _open_with_browser_decoder(page, live_server, item, blocked, "?decoder-threads=2")
    page.uncheck("#hover-preview")
    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    cores = page.evaluate("() => navigator.hardwareConcurrency || 1")
    assert page.evaluate("() => window.annotationEditor.decoderStats.threads") == min(2, cores)
    assert blocked == [] and "browser" in page.text_content("#seg-status")
    page.unroute(SEGMENT_URL)
    server = _server_mask(page, item.images.get().pk, {"points": [[192, 180, 1]], "box": None, "multimask": True})
    assert _iou(_mask_of(page), server) > 0.98


def test_the_idle_page_warms_the_decoder_up_without_touching_the_annotation(live_server, page, sam_scene_item):
    """V8 compiles WebAssembly in tiers and the runtime plans its memory per prompt size, so a page's first decodes
    are slow: left idle, the editor decodes dummy prompts of 1 to 4 points until 8 decodes are made. They leave no
    instance, no proposal, no save and no click timing behind, and the annotator's next click decodes as usual."""
    item, _ = sam_scene_item
    blocked: list[str] = []
    saves: list[str] = []  # the editor saves an item with PUT (autosave.js)
    page.on("request", lambda r: saves.append(r.url) if r.method in ("PUT", "POST") and "/api/" in r.url else None)
    _open_with_browser_decoder(page, live_server, item, blocked)
    page.uncheck("#hover-preview")
    page.wait_for_function("() => window.annotationEditor.decoderStats.warmRuns >= 8", timeout=60000)
    page.wait_for_timeout(300)
    stats = page.evaluate("() => window.annotationEditor.decoderStats")
    assert stats["warmRuns"] == 8 and stats["runs"] == 0 and stats["runMs"] == []
    assert sorted(set(stats["warmPoints"])) == [1, 2, 3, 4], stats["warmPoints"]
    assert page.evaluate("() => window.annotationEditor.state.instances.masklet_target.length") == 0
    assert page.evaluate("() => window.annotationEditor.state.prompt.proposals.length") == 0
    assert page.evaluate("() => window.annotationEditor.stats.clicks.length") == 0
    assert saves == []

    page.mouse.click(*to_client(page, 192, 180))
    page.wait_for_selector("#proposals button")
    assert page.evaluate("() => window.annotationEditor.decoderStats.runs") == 1
    assert page.evaluate("() => window.annotationEditor.decoderStats.warmRuns") == 8  # no more once warm
    assert blocked == [] and _mask_of(page).sum() > 0
