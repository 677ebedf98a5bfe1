"""The test vectors of spec section 5.5, exactly."""
from __future__ import annotations

import numpy as np
import pytest

from scoring.benchmarks.epic.core.scorer import score_sample

from .helpers import record, rect, rle, tl_gt

H, W = 100, 200
TL_GT = tl_gt([rect(H, W, (10, 29), (10, 49)), rect(H, W, (50, 69), (100, 139))], count=2)


def tl(loc, count):
    return score_sample(record("TargetLocalization", "Color", loc=loc, count=[count]), TL_GT)


def test_tl_one_box_count_one_scores_half():
    s = tl([[10, 10, 50, 30]], 1)
    assert s.components["localization_score"] == pytest.approx(0.5, abs=1e-12)
    assert s.components["count_score"] == pytest.approx(0.5, abs=1e-12)
    assert s.score == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("count, expected", [(3, 0.85), (4, 0.7), (2, 1.0)])
def test_tl_perfect_boxes_with_wrong_counts(count, expected):
    assert tl([[10, 10, 50, 30], [100, 50, 140, 70]], count).score == pytest.approx(expected, abs=1e-12)


def test_tl_normalized_boxes_are_detected_in_auto_mode():
    s = tl([[0.05, 0.1, 0.25, 0.3], [0.5, 0.5, 0.7, 0.7]], 2)
    assert s.score == pytest.approx(1.0, abs=1e-12)
    assert s.details["localization"]["coordinate_system"] == "normalized_0_1"


def test_tl_box_within_image_size_is_read_as_absolute():
    s = tl([[50, 100, 150, 150]], 2)
    assert s.score == pytest.approx(0.3, abs=1e-12)
    assert s.details["localization"]["coordinate_system"] == "absolute"


FP_GT = {
    "image_path_saved": ["EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Ego/e/e_image.jpg"],
    "text_annotation": {"text_label": ["door"]},
    "mask_annotation": {"masklet_path": [rle(rect(H, W, (40, 99), (0, W - 1)))],
                        "masklet_target_area": [rle(rect(H, W, (40, 49), (150, 169)))]},
}


def fp(points):
    return score_sample(record("Navigation", "FeasiblePath_Ego", path=points, fmt="point"), FP_GT)


def test_fp_ego_four_point_path():
    s = fp([[100, 99], [100, 60], [100, 20], [155, 45]])
    d = s.details["path"]
    assert d["start_goal_distance"] == pytest.approx(70.7106781187, abs=1e-9)
    assert d["max_segment"] == pytest.approx(47.1404520791, abs=1e-9)
    assert [round(v, 3) for v in d["point_scores"]] == [1.0, 1.0, 0.608, 0.488]
    assert s.score == pytest.approx(np.mean(d["point_scores"]), abs=1e-15)
    assert round(s.score, 3) == 0.774


def test_fp_ego_two_kept_points_divide_by_point_nine():
    s = fp([[100, 99], [160, 45], [161, 46]])
    assert s.details["path"]["points_after_filter"] == 2
    assert s.score == pytest.approx(1.0, abs=1e-12)


def test_scored_boxes_and_kept_points_are_kept_in_pixels_for_the_overlay():
    normalised = tl([[0.05, 0.1, 0.25, 0.3], [0.5, 0.5, 0.7, 0.7]], 2)
    assert normalised.details["localization"]["boxes_px"] == [[10, 10, 50, 30], [100, 50, 140, 70]]
    path = fp([[100, 99], [100, 98], [100, 60], [155, 45]]).details["path"]
    assert path["points_px"] == [[100.0, 99.0], [100.0, 60.0], [155.0, 45.0]]  # the near-duplicate was filtered
