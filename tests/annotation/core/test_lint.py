import numpy as np

from annotation.core import rle
from annotation.core.epic import LEAVES
from annotation.core.lint import LintInput, LintOptions, lint, text_counts

TL = LEAVES["TargetLocalization/BasicAttributes/Color"]
PR = LEAVES["Manipulation/PlacementRegion"]
CR = LEAVES["Manipulation/ContactRelationship/ContactRelationship_TypeTwo"]
SIZE = (100, 200)


def box(y1, y2, x1, x2, size=SIZE):
    mask = np.zeros(size, bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def codes(findings):
    return sorted(f.code for f in findings)


def tl(**kwargs):
    defaults = dict(leaf=TL, image_sizes=(SIZE,), texts={"text_label": "the red mugs"}, count=2,
                    instances={"masklet_target": [box(10, 30, 10, 50), box(50, 70, 100, 140)]})
    defaults.update(kwargs)
    return LintInput(**defaults)


def test_clean_item_has_no_findings():
    assert lint(tl()) == []


def test_text_numbers_and_quantifiers_are_read_but_separator_digits_are_not():
    assert [(m.word, m.value) for m in text_counts("the two red mugs and 3 cups, several plates")] == [
        ("two", 2), ("3", 3), ("several", None)]
    assert text_counts("the plate2the cup") == []
    assert text_counts("a 3D printer") == []


def test_text_number_disagreeing_with_count():
    findings = lint(tl(texts={"text_label": "the three red mugs"}, count_in_description=True))
    assert codes(findings) == ["text-count-mismatch"]
    assert "'three' (3)" in findings[0].message and "count_target_instance is 2" in findings[0].message


def test_plural_quantifier_with_a_count_of_one():
    findings = lint(tl(texts={"text_label": "several red mugs"}, count=1,
                       instances={"masklet_target": [box(10, 30, 10, 50)]}))
    assert codes(findings) == ["text-count-mismatch"]


def test_text_number_disagreeing_with_instances_when_count_is_missing():
    findings = lint(tl(texts={"text_label": "the three red mugs"}, count=None, precise_count=True,
                       count_in_description=True))
    assert "text-instances-mismatch" in codes(findings) and "missing-count" in codes(findings)


def test_number_in_text_without_the_flag_and_flag_without_number():
    assert codes(lint(tl(texts={"text_label": "the two red mugs"}))) == ["count-in-description-unset"]
    assert codes(lint(tl(count_in_description=True))) == ["count-in-description-without-number"]


def test_precise_count_must_equal_instances():
    findings = lint(tl(count=3, precise_count=True))
    assert codes(findings) == ["count-instances-mismatch"]
    # Issue 32: "a count of 5 with 2 instances passes unless "precise count" is ticked": without it the
    # difference is a warning (overridable with a reason), with it an error.
    assert codes(lint(tl(count=5, precise_count=False))) == ["count-instances-differ"]
    assert lint(tl(count=5, precise_count=False))[0].severity.value == "warning"


def test_empty_mask_with_positive_count_and_mask_with_zero_count():
    assert "empty-mask-positive-count" in codes(lint(tl(instances={"masklet_target": []})))
    assert codes(lint(tl(count=0))) == ["mask-with-zero-count"]
    assert lint(tl(count=0, instances={})) == []


def test_placement_feasibility_rules():
    base = dict(leaf=PR, image_sizes=(SIZE,), texts={"reference_object_description_en": "a pot",
                                                      "placement_region_description_en": "the shelf"},
                instances={"masklet_reference_object": [box(0, 10, 0, 10)],
                                                          "masklet_placement_region": [box(50, 90, 50, 150)]})
    assert codes(lint(LintInput(**base))) == ["missing-feasibility"]
    assert lint(LintInput(**base, placement_feasible=False)) == []
    forbid = LintOptions(forbid_mask_when_infeasible=True)
    assert codes(lint(LintInput(**base, placement_feasible=False), forbid)) == ["mask-when-infeasible"]
    assert lint(LintInput(**base, placement_feasible=True), forbid) == []


def test_tiny_fragments_small_holes_and_overlaps():
    blob = np.zeros(SIZE, bool)
    blob[10:60, 10:60] = True
    blob[30:33, 30:33] = False  # a 9 px hole
    blob[90, 190] = True  # a 1 px fragment
    other = np.zeros(SIZE, bool)
    other[50:80, 50:90] = True  # overlaps blob on rows 50-59, cols 50-59
    findings = lint(tl(instances={"masklet_target": [rle.encode(blob), rle.encode(other)]}))
    assert codes(findings) == ["overlapping-instances", "small-hole", "tiny-fragment"]
    overlap = next(f for f in findings if f.code == "overlapping-instances")
    assert "overlap by 100 px" in overlap.message


def test_large_intended_hole_is_not_flagged():
    ring = np.zeros(SIZE, bool)
    ring[10:90, 10:90] = True
    ring[30:70, 30:70] = False
    assert lint(tl(count=1, instances={"masklet_target": [rle.encode(ring)]}, texts={"text_label": "the ring"})) == []


def test_mask_of_the_wrong_size_and_undecodable_mask_are_errors():
    findings = lint(tl(instances={"masklet_target": [box(0, 5, 0, 5, size=(50, 50)), {"size": [1], "counts": ""}]}))
    assert {"mask-size-mismatch", "bad-mask"} <= set(codes(findings))


def test_cr_text_digits_separate_references_and_are_not_counts():
    item = LintInput(leaf=CR, image_sizes=(SIZE,), texts={"text_label": "the plate2the cup"}, count=1,
                     instances={"masklet_reference_object": [box(0, 10, 0, 10), box(20, 30, 20, 30)],
                                "masklet_contact_target": [box(50, 60, 50, 60)]})
    assert lint(item) == []


def test_scored_masklet_without_count_must_not_be_empty():
    gd = LintInput(leaf=LEAVES["Navigation/GroundDetection"], image_sizes=(SIZE,))
    assert codes(lint(gd)) == ["empty-masklet"]
