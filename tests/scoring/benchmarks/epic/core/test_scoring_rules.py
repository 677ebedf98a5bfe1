"""Scoring rules of spec sections 5.0-5.4, the deviations B1/B5 and the compat mode."""
from __future__ import annotations

import numpy as np
import pytest

from scoring.benchmarks.epic.core.scorer import Options, score_sample, summarize
from scoring.benchmarks.epic.core.taxonomy import BY_GROUP_ORDER, BY_TYPE_ORDER, GROUP_CODES, LEAVES, resolve_leaf

from .helpers import record, rect, rle, tl_gt

H, W = 100, 200
TWO = [rect(H, W, (10, 29), (10, 49)), rect(H, W, (50, 69), (100, 139))]
PERFECT = [[10, 10, 50, 30], [100, 50, 140, 70]]
COMPAT = Options(compat=True)


def tl(loc, count, gt=None, options=Options(), **kw):
    return score_sample(record("TargetLocalization", "Color", loc=loc, count=count, **kw), gt or tl_gt(TWO, 2),
                        options=options)


def test_taxonomy_has_the_spec_keys_in_order():
    assert len(LEAVES) == 23 and len(BY_GROUP_ORDER) == 9 and GROUP_CODES == (
        "BA", "SRA", "ECA", "GD", "FP", "VM", "AR", "CR", "PR")
    assert BY_TYPE_ORDER[:2] == ("TargetLocalization/BasicAttributes/Category", "TargetLocalization/BasicAttributes/Color")
    assert BY_TYPE_ORDER[6] == "TargetLocalization/SpatialRelatedAttributes/Orientation"
    assert BY_TYPE_ORDER[10] == "TargetLocalization/EmbodiedCompositionalAttributes/ObjectState"
    assert BY_TYPE_ORDER[14:] == (
        "Navigation/GroundDetection", "Navigation/FeasiblePath/FeasiblePath_Ego", "Navigation/FeasiblePath/FeasiblePath_Exo",
        "Navigation/VisualMatching", "Manipulation/AffordanceRegion",
        "Manipulation/ContactRelationship/ContactRelationship_TypeOne",
        "Manipulation/ContactRelationship/ContactRelationship_TypeTwo",
        "Manipulation/ContactRelationship/ContactRelationship_TypeThree", "Manipulation/PlacementRegion")


def test_leaf_resolver_reads_legacy_types_from_the_path():
    p = "EPIC_Bench/TargetLocalization/SpatialRelatedAttributes/Orientation/s/s_mask_rle.json"
    assert resolve_leaf("TargetLocalization", "SpatialRelatedAttributes", p).name == "Orientation"
    assert resolve_leaf("Navigation", "FeasiblePath", "EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Exo/x.json").name == "FeasiblePath_Exo"
    assert resolve_leaf("Manipulation", "ContactRelationship",
                        "EPIC_Bench/Manipulation/ContactRelationship/ContactRelationship_TypeTwo/c.json").name == "ContactRelationship_TypeTwo"
    assert resolve_leaf("Manipulation", "Affordance", None).name == "AffordanceRegion"
    assert resolve_leaf("TargetLocalization", "Unknown", "EPIC_Bench/TargetLocalization/X/Y/s.json") is None


@pytest.mark.parametrize("precise, in_desc, count, expected_w_count, expected_count_score", [
    (False, False, 1, 0.3, 0.5),   # approximate counting
    (True, False, 1, 0.5, 0.0),    # exact
    (False, True, 1, 0.1, 0.0),    # P1: in the description -> 0.1 and exact
    (True, True, 2, 0.1, 1.0),
])
def test_count_weights_and_exactness(precise, in_desc, count, expected_w_count, expected_count_score):
    s = tl(PERFECT, [count], gt=tl_gt(TWO, 2, precise, in_desc))
    assert s.components["weight_count"] == expected_w_count
    assert s.components["count_score"] == expected_count_score
    assert s.score == pytest.approx((1 - expected_w_count) + expected_w_count * expected_count_score, abs=1e-12)


@pytest.mark.parametrize("value, expected", [(["3"], 0.5), ([2.7], 1.0), ([True], 0.5), ("2", 1.0), ([-1], 0.0)])
def test_count_values_are_read_like_the_reference(value, expected):
    assert tl(PERFECT, value).components["count_score"] == expected


def test_missing_count_is_invalid():
    s = tl(PERFECT, ["two"])
    assert s.invalid and "Missing" in s.error and s.score == pytest.approx(0.7)


def test_infinite_count_is_a_scorer_error_scoring_zero_and_invalid():
    s = tl(PERFECT, [float("inf")])
    assert (s.score, s.invalid, s.outcome) == (0.0, True, "error") and "OverflowError" in s.error


def test_empty_gt_by_count_zero():
    gt = tl_gt(TWO, 0)
    assert tl([], [0], gt=gt).score == 1.0
    assert tl(PERFECT, [0], gt=gt).components["localization_score"] == 0.0
    # Decided on the accepted boxes before clipping: an off-image box against an empty GT scores 0, not 1.
    assert tl([[500, 500, 600, 600]], [0], gt=gt).components["localization_score"] == 0.0


def test_auto_mode_reads_0_1000_output_as_absolute_on_large_images():
    """B4, reproduced: max <= max(H, W) means absolute, even for 0-1000 output."""
    s = tl([[50, 100, 150, 150]], [2])
    assert s.details["localization"]["coordinate_system"] == "absolute"
    assert tl([[50, 100, 250, 300]], [2]).details["localization"]["coordinate_system"] == "normalized_0_1000"
    declared = tl([[50, 100, 250, 300], [500, 500, 700, 700]], [2], coord="normalized_0_1000")
    assert declared.components["localization_score"] == pytest.approx(1.0)


def test_non_numeric_box_items_are_dropped_and_noted():
    s = tl([["a", 1, 2, 3], [10, 10, 50, 30, 0.9]], [1])
    assert s.components["localization_score"] == pytest.approx(0.5)
    assert any("item 0" in n for n in s.details["notes"])


def test_nan_box_coordinates_clip_like_python_min_max():
    # min(nan, 50) and max(nan, 50) are both nan, which then clips to 0: the box has no area (toolkit: same).
    s = tl([[float("nan"), 10, 50, 30]], [1])
    assert s.components["localization_score"] == 0.0 and not s.invalid
    assert any("non-finite" in n for n in s.details["notes"])


# B1 -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("loc", [["No Valid Response"], "whatever", ["garbage"], [None]])
def test_b1_strings_in_a_list_field_are_invalid(loc):
    gt = tl_gt(TWO, 0)
    default = tl(loc, [0], gt=gt)
    assert default.invalid and default.components["localization_score"] == 0.0
    compat = tl(loc, [0], gt=gt, options=COMPAT)
    assert compat.components["localization_score"] == 1.0  # the toolkit reads them as an empty prediction
    assert not compat.invalid


def test_b1_not_required_wrapped_scores_zero_without_being_invalid():
    s = tl(PERFECT, ["Not Required"])
    assert s.components["count_score"] == 0.0 and not s.invalid
    assert tl(PERFECT, ["Not Required"], options=COMPAT).invalid  # toolkit: "Missing pred_count"


def test_b1_ground_detection_nvr_list_is_flagged():
    gt = {"mask_annotation": {"masklet_ground": [rle(rect(H, W, (50, 99), (0, 199)))]}}
    rec = record("Navigation", "GroundDetection", loc=["No Valid Response"])
    assert score_sample(rec, gt).invalid
    assert not score_sample(rec, gt, options=COMPAT).invalid


# B5 -------------------------------------------------------------------------------------------------------

def test_b5_missing_gt_count_is_a_data_error_not_an_invalid_response():
    gt = tl_gt(TWO, 2)
    del gt["text_annotation"]["count_target_instance"]
    s = tl(PERFECT, [2], gt=gt)
    assert s.components["count_score"] == 0.0 and not s.invalid and s.gt_error and s.outcome == "gt_error"
    assert tl(PERFECT, [2], gt=gt, options=COMPAT).invalid


def test_b5_missing_feasibility_is_not_charged_to_the_model():
    gt = {"mask_annotation": {"masklet_placement_region": [rle(TWO[0])]}, "text_annotation": {}}
    rec = record("Manipulation", "PlacementRegion", loc=[[10, 10, 50, 30]], binary=[True])
    s = score_sample(rec, gt)
    assert s.score == 0.5 and not s.invalid and s.gt_error
    assert score_sample(rec, gt, options=COMPAT).invalid


def test_undecodable_gt_mask_scores_zero_without_invalid():
    gt = tl_gt(TWO, 2)
    gt["mask_annotation"]["masklet_target"] = [{"size": [H, W], "counts": "!!"}]
    s = tl(PERFECT, [2], gt=gt)
    assert s.components["localization_score"] == 0.0 and not s.invalid and s.gt_error


def test_gt_fields_fall_back_to_inline_ground_truth():
    inline = {"masklet_target": [rle(m) for m in TWO], "count_target_instance": [2]}
    s = score_sample(record("TargetLocalization", "Color", loc=PERFECT, count=[2], **inline), None)
    assert s.score == pytest.approx(1.0)


# Other families -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [([True], 1.0), (["yes"], 1.0), ([0], 0.0), (["no"], 0.0)])
def test_placement_binary(value, expected):
    gt = {"mask_annotation": {"masklet_placement_region": [rle(TWO[0])]},
          "text_annotation": {"placement_feasible": [True]}}
    s = score_sample(record("Manipulation", "PlacementRegion", loc=[[10, 10, 50, 30]], binary=value), gt)
    assert s.components["binary_score"] == expected and s.score == 0.5 + 0.5 * expected


def test_mask_format_predictions():
    gt = tl_gt(TWO, 2)
    s = tl([rle(m) for m in TWO], [2], gt=gt, fmt="mask")
    assert s.score == pytest.approx(1.0)
    wrong = tl([rle(np.ones((5, 5), np.uint8))], [2], gt=gt, fmt="mask")
    assert wrong.components["localization_score"] == 0.0 and "shape" in wrong.error and not wrong.invalid


def test_unregistered_task_gets_the_placeholder():
    s = score_sample(record("TargetLocalization", "Unknown", loc=PERFECT, count=[2]), tl_gt(TWO, 2))
    assert (s.score, s.invalid, s.outcome) == (0.0, False, "unknown_task")


def test_summary_is_a_micro_mean_with_fixed_bucket_order():
    gt = tl_gt(TWO, 2)
    a = score_sample(record("TargetLocalization", "Color", loc=PERFECT, count=[2]), gt, index=0)
    b = score_sample(record("Navigation", "GroundDetection", loc=["No Valid Response"]),
                     {"mask_annotation": {"masklet_ground": [rle(TWO[0])]}}, index=1)
    c = score_sample(record("TargetLocalization", "Unknown", loc=[]), gt, index=2)
    summary = summarize([b, a, c])
    assert summary["overall"]["average_score"] == pytest.approx(1 / 3)
    assert summary["overall"]["num_invalid_response"] == 1
    assert list(summary["by_category"]) == ["TargetLocalization", "Navigation"]
    assert list(summary["by_type"]) == ["TargetLocalization/BasicAttributes/Color", "Navigation/GroundDetection"]
