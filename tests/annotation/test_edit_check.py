"""The server judges the editor's tool edits: a save that lists the brush/erase/polygon/fill edits of a mask has them
replayed with annotation/core/edits.py, and a mask that differs is refused with where (400)."""
from __future__ import annotations

import numpy as np
import pytest

from annotation.core import edits as core_edits
from annotation.core import rle
from annotation.services.editing import item_save
from annotation.services.errors import AnnotationError
from tests.annotation.conftest import client_for

pytestmark = pytest.mark.django_db

OPS = [
    {"op": "brush", "radius": 3, "points": [[5.25, 5.5], [20.75, 9.125], [30.5, 22.0]]},
    {"op": "polygon", "points": [[2.5, 15.0], [12.25, 14.5], [8.0, 27.75]], "add": True},
    {"op": "erase", "radius": 1, "points": [[10.0, 7.0], [18.0, 8.0]]},
    {"op": "fill_holes"},
]


def _body(item, mask, ops, *, base=None):
    base = rle.encode(np.zeros((30, 40), bool) if base is None else base)
    return {"version": item.version, "instances": {"masklet_target": [rle.encode(mask)]},
            "edits": {"masklet_target": [{"base": base, "ops": ops}]}}


@pytest.fixture
def item(item_factory, annotator, small_png):
    [item] = item_factory(small_png, assignee=annotator)  # 40x30
    return item


def test_a_mask_that_its_edits_give_is_saved(item, annotator):
    mask = core_edits.apply_edits(np.zeros((30, 40), bool), OPS)
    assert mask.sum() > 50
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", _body(item, mask, OPS), format="json")
    assert response.status_code == 200, response.json()
    item.refresh_from_db()
    assert np.array_equal(rle.decode(item.instances["masklet_target"][0]), mask)


def test_a_mask_that_differs_from_its_edits_is_refused_with_where(item, annotator):
    mask = core_edits.apply_edits(np.zeros((30, 40), bool), OPS)
    mask[29, 39] = True  # one pixel the edits never painted
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", _body(item, mask, OPS), format="json")
    body = response.json()
    assert response.status_code == 400
    assert body["field"] == "edits.masklet_target[0]" and body["pixels"] == 1 and body["first"] == [39, 29]
    assert "instances.masklet_target[0] is not what its 4 edit(s) give: 1 pixel(s) differ, the first at x=39, y=29" \
        in body["detail"]
    item.refresh_from_db()
    assert item.instances == {} or item.instances.get("masklet_target") in (None, [])


@pytest.mark.parametrize("ops, message", [
    ([{"op": "brush", "radius": 0, "points": [[1, 1]]}], "edit 0 (brush): brush size must be positive"),
    ([{"op": "brush", "radius": 2, "points": [[1, "x"]]}], "edits.masklet_target[0]: edit 0.points[0]: not an [x, y] pair"),
    ([{"op": "polygon", "points": [[1, 1], [2, 2]]}], "edits.masklet_target[0]: edit 0: needs a list of at least 3"),
    ([{"op": "fill_holes"}, {"op": "spray"}], "edit 1 (spray): unknown edit 'spray'"),
])
def test_bad_edits_are_refused_naming_the_edit(item, annotator, ops, message):
    mask = np.zeros((30, 40), bool)
    mask[0, 0] = True
    with pytest.raises(AnnotationError) as info:
        item_save(user=annotator, item_id=item.pk, version=item.version,
                  **{k: v for k, v in _body(item, mask, ops).items() if k != "version"})
    assert info.value.field == "edits.masklet_target[0]" and message in info.value.message


def test_edits_must_match_the_instances_they_describe(item, annotator):
    mask = core_edits.apply_edits(np.zeros((30, 40), bool), OPS)
    body = _body(item, mask, OPS)
    body["edits"]["masklet_target"].append(None)
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", body, format="json")
    assert response.status_code == 400 and response.json()["field"] == "edits.masklet_target"
    body = _body(item, mask, OPS, base=np.zeros((10, 10), bool))
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/", body, format="json")
    assert response.status_code == 400 and response.json()["field"] == "edits.masklet_target[0].base"
    # without edits the masks are taken as they are (API clients, SAM masks)
    response = client_for(annotator).put(f"/api/annotation/items/{item.pk}/",
                                         {"version": item.version, "instances": body["instances"]}, format="json")
    assert response.status_code == 200


def test_a_stroke_is_discs_at_pixel_centres_every_half_radius():
    out = core_edits.brush(np.zeros((20, 30), bool), [(5.0, 10.0), (25.0, 10.0)], radius=2)
    # pixel (x, y) is inside a disc when (x + 0.5 - cx)^2 + (y + 0.5 - cy)^2 <= r^2; discs every 1 px here
    assert out[8:12, 5:25].all() and not out[7, 10] and not out[12, 10]
    assert out[9, 3] and not out[9, 2]
