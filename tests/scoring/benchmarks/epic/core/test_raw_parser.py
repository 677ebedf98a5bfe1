"""Raw responses -> std_format by the reference rules of spec section 3 (quirks kept on purpose)."""
from __future__ import annotations

import pytest

from scoring.benchmarks.epic.core.raw import gt_path_from_images, task_from_path, to_std_record

TL_IMG = "/d/EPIC_Bench/TargetLocalization/BasicAttributes/Color/s01/s01_image.jpg"
GD_IMG = "/d/EPIC_Bench/Navigation/GroundDetection/g/g_image.jpg"
FP_IMG = "/d/EPIC_Bench/Navigation/FeasiblePath/FeasiblePath_Exo/x/x_image.jpg"
PR_IMG = "/d/EPIC_Bench/Manipulation/Placement/p/p_image.jpg"
VM_IMGS = ["/d/EPIC_Bench/Navigation/VisualMatching/v/camA_image.jpg",
           "/d/EPIC_Bench/Navigation/VisualMatching/v/camA_reference_area_overlay.png",
           "/d/EPIC_Bench/Navigation/VisualMatching/v/camB_image.jpg"]


def parse(response, image=TL_IMG):
    return to_std_record({"images": image if isinstance(image, list) else [image], "response": response})


def loc(response, image=TL_IMG):
    return parse(response, image)["formatted_response_localization"]


def test_task_and_gt_path_from_images():
    assert task_from_path(TL_IMG) == ("TargetLocalization", "Color")
    assert task_from_path(PR_IMG) == ("Manipulation", "PlacementRegion")
    assert task_from_path("/d/EPIC_Bench/Navigation/FeasiblePath/x/x_image.jpg") == ("Navigation", "FeasiblePath")
    assert task_from_path("/d/EPIC_Bench/TargetLocalization/BasicAttributes/Unknown/s_image.jpg") == ("TargetLocalization", None)
    assert gt_path_from_images(VM_IMGS, "VisualMatching") == "/d/EPIC_Bench/Navigation/VisualMatching/v/camA__camB_mask_rle.json"
    assert gt_path_from_images([TL_IMG, TL_IMG], "Color") is None


def test_python_tuples_and_fences():
    rec = parse('```json\n{"number_of_objects": 2, "bounding_boxes": [(1, 2, 3, 4), (5, 6, 7, 8)]}\n```')
    assert rec["formatted_response_localization"] == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert rec["formatted_response_count"] == [2]
    assert rec["formatted_response_path"] == ["Not Required"]


@pytest.mark.parametrize("response", [
    "<think>no end", "", "   ", None, 42,
    '```JSON\n{"number_of_objects": 1, "bounding_boxes": [[1,2,3,4]]}\n```',  # tag kept inside the candidate
    '{"number_of_objects": 1, "bounding_boxes": [[1,2,3,4]],}',  # the template's trailing comma
    '{"number_of_objects": "2.0", "bounding_boxes": []}',
    'number_of_objects is below {"number_of_objects": 1, "bounding_boxes": []}',  # one brace-scan attempt only
    '{"number_of_objects": 1, "bounding_boxes": [((1,2),(3,4))]}',  # nested tuples
])
def test_no_valid_response_cases(response):
    rec = parse(response)
    assert rec["formatted_response_localization"] == ["No Valid Response"]
    assert rec["formatted_response_count"] == ["No Valid Response"]


def test_lone_closing_think_lets_the_draft_win():
    rec = parse('draft {"number_of_objects": 2, "bounding_boxes": [[1,2,3,4]]}</think> {"number_of_objects": 1}')
    assert rec["formatted_response_count"] == [2]


def test_think_blocks_are_removed():
    rec = parse('<think>{"number_of_objects": 9, "bounding_boxes": []}</think>{"number_of_objects": 1, "bounding_boxes": []}')
    assert rec["formatted_response_count"] == [1]


def test_box_item_forms():
    boxes = loc('{"number_of_objects": 4, "bounding_boxes": [[[1,2],[3,4]], [[5,6,7,8]], [1,2,3,4,5], ["a",1,2,3], ["9", 1.5, 2.0, 3]]}')
    assert boxes == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 1.5, 2, 3]]
    assert loc('{"number_of_objects": 1, "bounding_boxes": [1, 2, 3, 4]}') == []  # flat box: a valid empty answer


def test_points_need_three_after_dropping():
    assert parse('{"points": [(1,2), (3,4), (5,6)]}', FP_IMG)["formatted_response_path"] == [[1, 2], [3, 4], [5, 6]]
    assert parse('{"points": [[1,2],[3,4]]}', FP_IMG)["formatted_response_path"] == ["No Valid Response"]
    assert parse('{"Points": [[1,2],[3,4],[5,6]]}', FP_IMG)["formatted_response_path"] == ["No Valid Response"]
    assert parse('{"points": [[1,2],[3,4]]}', FP_IMG)["format_type"] == ["point"]


@pytest.mark.parametrize("value, expected", [("true", [True]), ("True", [True]), ('"feasible"', [False]), ('"yes"', [True])])
def test_placement_feasibility(value, expected):
    rec = parse('{"bounding_boxes": [[1,2,3,4]], "placement_feasibility": ' + value + "}", PR_IMG)
    assert rec["formatted_response_binary"] == expected


def test_visual_matching_without_count_keeps_boxes():
    rec = parse('{"bounding_boxes": [[1,2,3,4]]}', VM_IMGS)
    assert rec["formatted_response_localization"] == [[1, 2, 3, 4]]
    assert rec["formatted_response_count"] == ["No Valid Response"]
    assert rec["ground_truth"]["gt_json_path"] == ["/d/EPIC_Bench/Navigation/VisualMatching/v/camA__camB_mask_rle.json"]


def test_unknown_task_has_nothing_required():
    rec = to_std_record({"images": ["/x/y.jpg"], "response": "{}"})
    assert rec["task_category"] == [] and rec["formatted_response_localization"] == ["Not Required"]
    assert rec["ground_truth"] == {"gt_json_path": []}
