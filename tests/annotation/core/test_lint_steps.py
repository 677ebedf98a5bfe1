"""Characterization of `lint`: the exact findings, in order, for varied items (pins the output before refactors)."""
import numpy as np
import pytest

from annotation.core import rle
from annotation.core.epic import LEAVES
from annotation.core.lint import Finding, LintInput, LintOptions, Severity, lint

TL = LEAVES["TargetLocalization/BasicAttributes/Color"]
PR = LEAVES["Manipulation/PlacementRegion"]
CR = LEAVES["Manipulation/ContactRelationship/ContactRelationship_TypeTwo"]
VM = LEAVES["Navigation/VisualMatching"]
GD = LEAVES["Navigation/GroundDetection"]
FP = LEAVES["Navigation/FeasiblePath/FeasiblePath_Exo"]
AR = LEAVES["Manipulation/AffordanceRegion"]
SIZE = (100, 200)
E, W = Severity.ERROR, Severity.WARNING


def box(y1, y2, x1, x2, size=SIZE):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def empty(size=SIZE):
    return rle.encode(np.zeros(size, bool))


def blob_with_hole_and_fragment():
    blob = np.zeros(SIZE, bool)
    blob[10:60, 10:60] = True
    blob[30:33, 30:33] = False  # a 9 px hole
    blob[90, 190] = True  # a 1 px fragment
    return rle.encode(blob)


BAD = {"size": [1], "counts": ""}
TWO = [box(10, 30, 10, 50), box(50, 70, 100, 140)]


def tl(**kwargs):
    defaults = dict(leaf=TL, image_sizes=(SIZE,), texts={"text_label": "the red mugs"}, count=2,
                    instances={"masklet_target": TWO})
    defaults.update(kwargs)
    return LintInput(**defaults)


def pr(**kwargs):
    defaults = dict(leaf=PR, image_sizes=(SIZE,), texts={"reference_object_description_en": "a pot",
                                                         "placement_region_description_en": "the top shelf"},
                    instances={"masklet_reference_object": [box(0, 10, 0, 10)],
                                                              "masklet_placement_region": [box(50, 90, 50, 150)]})
    defaults.update(kwargs)
    return LintInput(**defaults)


FORBID = LintOptions(forbid_mask_when_infeasible=True)

CASES = {
    "clean": (tl(), LintOptions()),
    "text-count-mismatch": (tl(texts={"text_label": "the three red mugs"}, count_in_description=True), LintOptions()),
    "quantifier-with-count-one": (
        tl(texts={"text_label": "several red mugs"}, count=1, instances={"masklet_target": [box(10, 30, 10, 50)]}),
        LintOptions()),
    "missing-count-text-instances": (
        tl(texts={"text_label": "the three red mugs"}, count=None, precise_count=True, count_in_description=True),
        LintOptions()),
    "number-without-flag-two-fields": (
        tl(texts={"text_label": "the two red mugs", "target_object_description_en": "2 mugs, several cups"}),
        LintOptions()),
    "flag-without-number": (tl(count_in_description=True), LintOptions()),
    "flag-without-number-no-texts": (tl(count_in_description=True, texts={}), LintOptions()),
    "precise-count-mismatch": (tl(count=3, precise_count=True), LintOptions()),
    "empty-mask-positive-count": (tl(instances={"masklet_target": []}), LintOptions()),
    "mask-with-zero-count": (tl(count=0), LintOptions()),
    "zero-count-no-masks": (tl(count=0, instances={}), LintOptions()),
    "negative-count-with-texts": (
        tl(count=-1, precise_count=True, texts={"text_label": "three mugs", "target_object_description_en": "two"}),
        LintOptions()),
    "none-count-instances-only-with-flag": (
        tl(count=None, texts={"text_label": "one mug"}), LintOptions()),
    "precise-all-mismatches": (
        tl(count=5, precise_count=True, count_in_description=True,
           texts={"text_label": "five mugs", "target_object_description_en": "many cups and 2 plates"},
           instances={"masklet_target": [box(10, 30, 10, 50), empty(), BAD]}),
        LintOptions()),
    "pr-missing-feasibility": (pr(), LintOptions()),
    "pr-infeasible": (pr(placement_feasible=False), LintOptions()),
    "pr-infeasible-forbid": (pr(placement_feasible=False), FORBID),
    "pr-feasible-forbid": (pr(placement_feasible=True), FORBID),
    "pr-infeasible-forbid-empty": (
        pr(placement_feasible=False, instances={"masklet_reference_object": [box(0, 10, 0, 10)]}), FORBID),
    "pr-none-empty": (pr(instances={}), FORBID),
    "pr-infeasible-empty-no-forbid": (pr(placement_feasible=False, instances={}), LintOptions()),
    "geometry": (
        tl(instances={"masklet_target": [blob_with_hole_and_fragment(), box(50, 80, 50, 90)]}), LintOptions()),
    "geometry-strict-options": (
        tl(instances={"masklet_target": [blob_with_hole_and_fragment(), box(50, 80, 50, 90)]}),
        LintOptions(fragment_fraction=0.0, fragment_min_px=2000, hole_fraction=0.0, hole_min_px=5, overlap_min_px=101)),
    "three-way-overlap-and-empty-instance": (
        tl(count=4, instances={"masklet_target": [box(0, 20, 0, 20), empty(), box(10, 30, 10, 30), box(15, 40, 15, 40)]}),
        LintOptions()),
    "bad-and-wrong-size-masks": (
        tl(instances={"masklet_target": [box(0, 5, 0, 5, size=(50, 50)), BAD]}), LintOptions()),
    "cr-separator-digits": (
        LintInput(leaf=CR, image_sizes=(SIZE,), texts={"text_label": "the plate2the cup"}, count=1,
                  instances={"masklet_reference_object": [box(0, 10, 0, 10), box(20, 30, 20, 30)],
                             "masklet_contact_target": [box(50, 60, 50, 60)]}),
        LintOptions()),
    "cr-empty": (LintInput(leaf=CR, image_sizes=(SIZE,), count=0), LintOptions()),
    "gd-empty": (LintInput(leaf=GD, image_sizes=(SIZE,)), LintOptions()),
    "fp-empty-and-unknown": (
        LintInput(leaf=FP, image_sizes=(SIZE,), instances={"masklet_bogus": [box(0, 5, 0, 5)], "masklet_other": []}),
        LintOptions()),
    "ar-reference-only": (
        LintInput(leaf=AR, image_sizes=(SIZE,), instances={"masklet_reference_area": [box(0, 5, 0, 5)]}),
        LintOptions()),
    "vm-missing-image": (
        LintInput(leaf=VM, image_sizes=(SIZE,), count=2, texts={"reference_area_description_en": "two doors"},
                  instances={"masklet_reference_area": [box(0, 5, 0, 5)],
                             "masklet_matching_area": [box(0, 5, 0, 5), box(10, 15, 10, 15)]}),
        LintOptions()),
    "vm-no-images": (LintInput(leaf=VM, image_sizes=(), count=None), LintOptions()),
    "vm-clean-two-images": (
        LintInput(leaf=VM, image_sizes=(SIZE, (60, 80)), count=1, texts={"reference_area_description_en": "a door"},
                  instances={"masklet_reference_area": [box(0, 5, 0, 5)],
                             "masklet_matching_area": [box(0, 5, 0, 5, size=(60, 80))]}),
        LintOptions()),
    "vm-wrong-image-size": (
        LintInput(leaf=VM, image_sizes=(SIZE, (60, 80)), count=1, precise_count=True,
                  texts={"reference_area_description_en": "one door"}, count_in_description=True,
                  instances={"masklet_reference_area": [box(0, 5, 0, 5, size=(60, 80))],
                             "masklet_matching_area": [box(0, 5, 0, 5)]}),
        LintOptions()),
    "everything-at-once": (
        tl(count=3, precise_count=True, texts={"text_label": "two red mugs", "target_object_description_en": "few"},
           image_sizes=(SIZE,),
           instances={"masklet_target": [blob_with_hole_and_fragment(), box(50, 80, 50, 90), empty(), BAD],
                      "masklet_extra": [box(0, 5, 0, 5)]}),
        LintOptions()),
}

EXPECTED = {
    'clean': [
    ],
    'text-count-mismatch': [
        ('text-count-mismatch', E, "text_label says 'three' (3) but count_target_instance is 2", 'text_label', None),
    ],
    'quantifier-with-count-one': [
        ('text-count-mismatch', E, 'text_label says several but count_target_instance is 1', 'text_label', None),
    ],
    'missing-count-text-instances': [
        ('missing-count', E, 'count_target_instance is not set', 'count_target_instance', None),
        ('text-instances-mismatch', E, "text_label says 'three' (3) but masklet_target has 2 instance(s)", 'text_label', None),
    ],
    'number-without-flag-two-fields': [
        ('count-in-description-unset', W, "text_label states a number ('two') but count-in-description is not set", 'count_in_description', None),
        ('count-in-description-unset', W, "target_object_description_en states a number ('2') but count-in-description is not set", 'count_in_description', None),
    ],
    'flag-without-number': [
        ('count-in-description-without-number', W, 'count-in-description is set but the description states no number', 'count_in_description', None),
    ],
    'flag-without-number-no-texts': [
        ('missing-description', E, 'Target Object Description (text_label) is empty: the model\'s prompt would read "Target Object Description: "', 'text_label', None),
        ('count-in-description-without-number', W, 'count-in-description is set but the description states no number', 'count_in_description', None),
    ],
    'precise-count-mismatch': [
        ('count-instances-mismatch', E, 'precise count is set and count_target_instance is 3, but masklet_target has 2 instance(s)', 'count_target_instance', None),
    ],
    'empty-mask-positive-count': [
        ('empty-mask-positive-count', E, 'count_target_instance is 2 but masklet_target is empty', 'masklet_target', None),
    ],
    'mask-with-zero-count': [
        ('mask-with-zero-count', E, 'count_target_instance is 0 but masklet_target has 2 instance(s) (the scorer treats a zero count as no target)', 'masklet_target', None),
    ],
    'zero-count-no-masks': [
    ],
    'negative-count-with-texts': [
        ('negative-count', E, 'count_target_instance is -1', 'count_target_instance', None),
        ('text-instances-mismatch', E, "text_label says 'three' (3) but masklet_target has 2 instance(s)", 'text_label', None),
        ('count-in-description-unset', W, "text_label states a number ('three') but count-in-description is not set", 'count_in_description', None),
        ('count-in-description-unset', W, "target_object_description_en states a number ('two') but count-in-description is not set", 'count_in_description', None),
    ],
    'none-count-instances-only-with-flag': [
        ('missing-count', E, 'count_target_instance is not set', 'count_target_instance', None),
        ('count-in-description-unset', W, "text_label states a number ('one') but count-in-description is not set", 'count_in_description', None),
    ],
    'precise-all-mismatches': [
        ('bad-mask', E, "masklet_target[2] does not decode: RLE 'size' must be [H, W] with non-negative ints, got [1]", 'masklet_target', 2),
        ('count-instances-mismatch', E, 'precise count is set and count_target_instance is 5, but masklet_target has 1 instance(s)', 'count_target_instance', None),
        ('text-instances-mismatch', E, "text_label says 'five' (5) but masklet_target has 1 instance(s)", 'text_label', None),
        ('text-instances-mismatch', E, 'target_object_description_en says many but masklet_target has 1 instance(s)', 'target_object_description_en', None),
        ('text-count-mismatch', E, "target_object_description_en says '2' (2) but count_target_instance is 5", 'target_object_description_en', None),
        ('empty-instance', W, 'masklet_target[1] has no pixels', 'masklet_target', 1),
    ],
    'pr-missing-feasibility': [
        ('missing-feasibility', E, 'placement_feasible is not set', 'placement_feasible', None),
    ],
    'pr-infeasible': [
    ],
    'pr-infeasible-forbid': [
        ('mask-when-infeasible', E, 'placement is marked infeasible but masklet_placement_region is not empty (this project requires no placement mask when placement is infeasible)', 'masklet_placement_region', None),
    ],
    'pr-feasible-forbid': [
    ],
    'pr-infeasible-forbid-empty': [
    ],
    'pr-none-empty': [
        ('missing-feasibility', E, 'placement_feasible is not set', 'placement_feasible', None),
        ('empty-masklet', E, 'masklet_placement_region (the described placement region) is empty', 'masklet_placement_region', None),
    ],
    'pr-infeasible-empty-no-forbid': [
        ('empty-masklet', E, 'masklet_placement_region (the described placement region) is empty', 'masklet_placement_region', None),
    ],
    'geometry': [
        ('tiny-fragment', W, 'masklet_target[0] has 1 fragment(s) under 16 px (smallest 1 px)', 'masklet_target', 0),
        ('small-hole', W, 'masklet_target[0] has 1 small hole(s) up to 25 px (use fill-holes if they are not meant)', 'masklet_target', 0),
        ('overlapping-instances', W, 'masklet_target[0] and [1] overlap by 100 px', 'masklet_target', 1),
    ],
    'geometry-strict-options': [
        ('tiny-fragment', W, 'masklet_target[0] has 1 fragment(s) under 2000 px (smallest 1 px)', 'masklet_target', 0),
        ('tiny-fragment', W, 'masklet_target[1] has 1 fragment(s) under 2000 px (smallest 1200 px)', 'masklet_target', 1),
    ],
    'three-way-overlap-and-empty-instance': [
        ('count-instances-differ', W, 'count_target_instance is 4 but masklet_target has 3 instance(s): draw one instance per object, or give a reason (precise count unset: the count is scored as approximate; with precise count set this is an error)', 'count_target_instance', None),
        ('empty-instance', W, 'masklet_target[1] has no pixels', 'masklet_target', 1),
        ('overlapping-instances', W, 'masklet_target[0] and [2] overlap by 100 px', 'masklet_target', 2),
        ('overlapping-instances', W, 'masklet_target[0] and [3] overlap by 25 px', 'masklet_target', 3),
        ('overlapping-instances', W, 'masklet_target[2] and [3] overlap by 225 px', 'masklet_target', 3),
    ],
    'bad-and-wrong-size-masks': [
        ('mask-size-mismatch', E, 'masklet_target[0] is 50x50, its image is 200x100', 'masklet_target', 0),
        ('bad-mask', E, "masklet_target[1] does not decode: RLE 'size' must be [H, W] with non-negative ints, got [1]", 'masklet_target', 1),
        ('empty-mask-positive-count', E, 'count_target_instance is 2 but masklet_target is empty', 'masklet_target', None),
    ],
    'cr-separator-digits': [
    ],
    'cr-empty': [
        ('missing-description', E, 'Reference Object Description (text_label) is empty: the model\'s prompt would read "Reference Object Description: "', 'text_label', None),
    ],
    'gd-empty': [
        ('empty-masklet', E, 'masklet_ground (each separate ground region) is empty', 'masklet_ground', None),
    ],
    'fp-empty-and-unknown': [
        ('unknown-masklet', E, "Navigation/FeasiblePath/FeasiblePath_Exo has no masklet 'masklet_bogus'", 'masklet_bogus', None),
        ('unknown-masklet', E, "Navigation/FeasiblePath/FeasiblePath_Exo has no masklet 'masklet_other'", 'masklet_other', None),
        ('missing-description', E, 'Target Area Description (text_label) is empty: the model\'s prompt would read "Target Area Description: "', 'text_label', None),
        ('empty-masklet', E, 'masklet_path (the feasible ground area) is empty', 'masklet_path', None),
        ('empty-masklet', E, 'masklet_target_area (both endpoint areas (two separate blobs)) is empty', 'masklet_target_area', None),
    ],
    'ar-reference-only': [
        ('missing-description', E, 'Reference Object Description (reference_object_description_en) is empty: the model\'s prompt would read "Reference Object Description: "', 'reference_object_description_en', None),
        ('missing-description', E, 'Task Description (text_label) is empty: the model\'s prompt would read "Task Description: "', 'text_label', None),
        ('empty-masklet', E, 'masklet_affordance_region (the region used for the task) is empty', 'masklet_affordance_region', None),
    ],
    'vm-missing-image': [
        ('missing-image', E, 'masklet_matching_area belongs on image 2, the item has 1 image(s)', 'masklet_matching_area', None),
        ('empty-mask-positive-count', E, 'count_matching_area is 2 but masklet_matching_area is empty', 'masklet_matching_area', None),
        ('count-in-description-unset', W, "reference_area_description_en states a number ('two') but count-in-description is not set", 'count_in_description', None),
    ],
    'vm-no-images': [
        ('missing-image', E, 'masklet_reference_area belongs on image 1, the item has 0 image(s)', 'masklet_reference_area', None),
        ('missing-image', E, 'masklet_matching_area belongs on image 2, the item has 0 image(s)', 'masklet_matching_area', None),
        ('missing-count', E, 'count_matching_area is not set', 'count_matching_area', None),
    ],
    'vm-clean-two-images': [
    ],
    'vm-wrong-image-size': [
        ('mask-size-mismatch', E, 'masklet_reference_area[0] is 80x60, its image is 200x100', 'masklet_reference_area', 0),
        ('mask-size-mismatch', E, 'masklet_matching_area[0] is 200x100, its image is 80x60', 'masklet_matching_area', 0),
        ('count-instances-mismatch', E, 'precise count is set and count_matching_area is 1, but masklet_matching_area has 0 instance(s)', 'count_matching_area', None),
        ('empty-mask-positive-count', E, 'count_matching_area is 1 but masklet_matching_area is empty', 'masklet_matching_area', None),
    ],
    'everything-at-once': [
        ('bad-mask', E, "masklet_target[3] does not decode: RLE 'size' must be [H, W] with non-negative ints, got [1]", 'masklet_target', 3),
        ('unknown-masklet', E, "TargetLocalization/BasicAttributes/Color has no masklet 'masklet_extra'", 'masklet_extra', None),
        ('count-instances-mismatch', E, 'precise count is set and count_target_instance is 3, but masklet_target has 2 instance(s)', 'count_target_instance', None),
        ('text-count-mismatch', E, "text_label says 'two' (2) but count_target_instance is 3", 'text_label', None),
        ('count-in-description-unset', W, "text_label states a number ('two') but count-in-description is not set", 'count_in_description', None),
        ('tiny-fragment', W, 'masklet_target[0] has 1 fragment(s) under 16 px (smallest 1 px)', 'masklet_target', 0),
        ('small-hole', W, 'masklet_target[0] has 1 small hole(s) up to 25 px (use fill-holes if they are not meant)', 'masklet_target', 0),
        ('empty-instance', W, 'masklet_target[2] has no pixels', 'masklet_target', 2),
        ('overlapping-instances', W, 'masklet_target[0] and [1] overlap by 100 px', 'masklet_target', 1),
    ],
}


def test_cases_and_expectations_match_up():
    assert CASES.keys() == EXPECTED.keys()


@pytest.mark.parametrize("name", list(CASES))
def test_lint_findings_are_exact_and_in_order(name):
    item, options = CASES[name]
    expected = [Finding(code, severity, message, field, instance)
                for code, severity, message, field, instance in EXPECTED[name]]
    assert lint(item, options) == expected


def test_lint_is_repeatable_and_leaves_its_input_alone():
    item, options = CASES["everything-at-once"]
    before = {name: [dict(r) for r in rles] for name, rles in item.instances.items()}
    assert lint(item, options) == lint(item, options)
    assert {name: [dict(r) for r in rles] for name, rles in item.instances.items()} == before
