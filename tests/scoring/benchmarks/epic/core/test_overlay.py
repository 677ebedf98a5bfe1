import cv2
import numpy as np
from pycocotools import mask as mask_utils

from scoring.benchmarks.epic.core.overlay import decode_rle, find_rles, find_shapes, render_overlay


def _rle(mask):
    enc = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": list(enc["size"]), "counts": enc["counts"].decode("ascii")}


def test_decode_rle_round_trips_a_mask():
    mask = np.zeros((20, 30), bool)
    mask[5:10, 3:12] = True
    assert (decode_rle(_rle(mask)) == mask).all()


def test_find_rles_and_shapes_in_nested_json():
    mask = np.zeros((4, 4), bool)
    gt = {"masklet_target": [{"instances": [_rle(mask)]}], "count": 2}
    assert len(find_rles(gt)) == 1
    details = {"response_details": {"boxes_px": [[1, 2, 3, 4]], "other": [1, 2]}}
    assert find_shapes(details, keys=("boxes_px",), arity=4) == [(1.0, 2.0, 3.0, 4.0)]
    assert find_shapes(details, keys=("points",), arity=2) == []


def test_overlay_draws_mask_and_box_pixels():
    mask = np.zeros((100, 200), bool)
    mask[10:30, 10:50] = True
    png = render_overlay(None, masks=[mask], boxes=[(100, 50, 150, 90)], points=[(20, 80), (60, 80)])
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (100, 200, 3)
    inside = img[20, 30].astype(int)
    assert inside[1] > inside[0] and inside[1] > inside[2]  # tinted green
    edge = img[50, 125].astype(int)  # top edge of the box: red in BGR
    assert edge[2] > 150 and edge[0] < 100
    assert (img[95, 5] == 235).all()  # untouched canvas
