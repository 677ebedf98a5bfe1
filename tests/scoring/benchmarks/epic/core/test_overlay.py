import cv2
import numpy as np
from pycocotools import mask as mask_utils

from scoring.benchmarks.epic.core.overlay import (
    EpicSampleDetails,
    decode_rle,
    find_rles,
    find_shapes,
    image_names,
    legend,
    render_overlay,
)


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


def test_sample_details_keep_only_shapes_stored_in_pixels():
    details = EpicSampleDetails.from_details({"pred_boxes": [[0.1, 0.2, 0.3, 0.4]],
                                              "localization": {"boxes_px": [[1, 2, 3, 4]]},
                                              "path": {"path_points_px": [[5, 6], [7, 8]]}})
    assert details.boxes == ((1.0, 2.0, 3.0, 4.0),) and details.points == ((5.0, 6.0), (7.0, 8.0))
    assert EpicSampleDetails.from_details({}) == EpicSampleDetails()


def test_image_names_are_found_at_any_depth_in_order():
    inputs = {"images": [{"url": "/media/public/a.PNG"}, "b.jpg"], "prompt": ["look.txt"], "n": 3}
    assert image_names(inputs) == ["/media/public/a.PNG", "b.jpg"]


def test_the_legend_names_the_ground_truth_colour_only_when_it_is_drawn():
    assert [meaning for _, meaning in legend(ground_truth=False)] == ["predicted boxes", "predicted path points"]
    shown = legend(ground_truth=True)
    assert shown[0] == ("#4bb43c", "ground-truth mask")
