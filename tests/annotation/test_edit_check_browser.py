"""The editor's tool edits and the server's definition of them (annotation/core/edits.py) agree: a brush stroke, a
polygon and fill-holes made in Chromium are saved with their edits, which the server replays (a differing mask is
refused); and the tools' geometry gives the same pixels as edits.py for random strokes and polygons."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from annotation.core import edits as core_edits
from annotation.core import rle
from annotation.models import Item
from tests.annotation.browser_helpers import instance_areas, to_client
from tests.conftest import login_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _saved_puts(page, item_id: int) -> list[tuple[int, dict]]:
    puts: list[tuple[int, dict]] = []
    page.on("response", lambda r: puts.append((r.status, json.loads(r.request.post_data)))
            if r.request.method == "PUT" and r.url.endswith(f"/api/annotation/items/{item_id}/") else None)
    return puts


def _wait_saved(page) -> None:
    try:
        page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Saved')")
    except PlaywrightTimeoutError:
        raise AssertionError(f"not saved: {page.text_content('#save-status')!r}") from None


def test_a_brush_stroke_and_a_polygon_save_with_edits_the_server_agrees_with(live_server, page, item_factory,
                                                                              annotator, small_png):
    [item] = item_factory(small_png, assignee=annotator)  # 40x30
    login_page(page, live_server.url, "anna", "pw-anna-123")
    puts = _saved_puts(page, item.pk)
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => window.annotationEditor && window.annotationEditor.state.view.s > 1")

    page.keyboard.press("b")
    page.evaluate("() => { const s = document.getElementById('brush-size'); s.value = 3;"
                  " s.dispatchEvent(new Event('input')); }")
    page.mouse.move(*to_client(page, 5.3, 5.7))
    page.mouse.down()
    page.mouse.move(*to_client(page, 31.4, 19.2), steps=7)
    page.mouse.up()
    [brushed] = instance_areas(page)
    assert brushed > 100
    _wait_saved(page)
    status, body = puts[-1]
    assert status == 200
    [log] = body["edits"]["masklet_target"]
    [op] = log["ops"]
    assert op["op"] == "brush" and op["radius"] == 3 and len(op["points"]) >= 2
    item.refresh_from_db()
    saved = rle.decode(item.instances["masklet_target"][0])
    assert saved.sum() == brushed
    assert np.array_equal(core_edits.apply_edits(rle.decode(log["base"]), log["ops"]), saved)
    # the server holds that mask now: the next save starts from it
    assert page.evaluate("() => window.annotationEditor.payload().edits") is None

    # A second instance: a polygon, then fill-holes on a brush ring
    page.keyboard.press("n")
    page.keyboard.press("p")
    for x, y in [(24.2, 3.1), (38.6, 4.4), (36.0, 14.8)]:
        page.mouse.click(*to_client(page, x, y))
    page.keyboard.press("Enter")
    page.keyboard.press("f")
    _wait_saved(page)
    page.wait_for_function("() => window.annotationEditor.payload().edits === undefined")
    ops = [op for _, b in puts if b.get("edits") for log in b["edits"]["masklet_target"] if log for op in log["ops"]]
    assert {"polygon", "fill_holes"} <= {op["op"] for op in ops}
    assert all(status == 200 for status, _ in puts)
    item.refresh_from_db()
    assert [int(rle.decode(m).sum()) for m in item.instances["masklet_target"]] == instance_areas(page)

    # A mask the page changes behind its tools' back no longer matches its edits: the server refuses the save.
    page.keyboard.press("b")
    page.mouse.move(*to_client(page, 3, 25))
    page.mouse.down()
    page.mouse.move(*to_client(page, 12, 25), steps=3)
    page.mouse.up()
    page.evaluate("""() => { const e = window.annotationEditor, list = e.state.instances.masklet_target;
        const inst = list[list.length - 1]; inst.mask[0] = 1; inst.rle = null; inst.area += 1; e.save(); }""")
    page.wait_for_function("() => document.getElementById('save-status').textContent.startsWith('Not saved')")
    assert "is not what its" in page.text_content("#save-status")
    assert puts[-1][0] == 400
    assert Item.objects.get(pk=item.pk).version == item.version


def test_the_tools_geometry_is_the_servers(live_server, page, item_factory, annotator, small_png):
    [item] = item_factory(small_png, assignee=annotator)
    login_page(page, live_server.url, "anna", "pw-anna-123")
    page.goto(f"{live_server.url}/annotation/items/{item.pk}/")
    page.wait_for_function("() => window.annotationEditor && window.annotationEditor.raster")
    rng = random.Random(17)
    w, h = 97, 61

    def point():
        return [rng.uniform(-8, w + 8), rng.uniform(-8, h + 8)]

    strokes = [{"radius": rng.choice([1, 2, 3, 5, 8, 13, 30]), "points": [point() for _ in range(rng.randint(1, 6))]}
               for _ in range(40)]
    polygons = [[point() for _ in range(rng.randint(3, 9))] for _ in range(40)]
    js = page.evaluate("""([w, h, strokes, polygons]) => {
        const r = window.annotationEditor.raster, ones = (m) => Array.from(m.keys()).filter((i) => m[i]);
        const s = strokes.map(({radius, points}) => {
          const m = new Uint8Array(w * h);
          r.stamp(m, w, h, points[0][0], points[0][1], radius, 1);
          for (let i = 1; i < points.length; i++)
            r.strokeTo(m, w, h, {x: points[i - 1][0], y: points[i - 1][1]}, {x: points[i][0], y: points[i][1]}, radius, 1);
          return ones(m);
        });
        return [s, polygons.map((p) => ones(r.polygonMask(p, w, h)))];
    }""", [w, h, strokes, polygons])
    empty = np.zeros((h, w), bool)
    for stroke, pixels in zip(strokes, js[0]):
        server = np.flatnonzero(core_edits.brush(empty, stroke["points"], radius=stroke["radius"]))
        assert server.tolist() == pixels, stroke
    for vertices, pixels in zip(polygons, js[1]):
        assert np.flatnonzero(core_edits.polygon(empty, vertices)).tolist() == pixels, vertices
    assert sum(map(len, js[0])) > 1000 and sum(map(len, js[1])) > 1000
