import numpy as np
import pytest

from annotation.core import rle
from annotation.core.agreement import count_agreement, match_instances


def box(y1, y2, x1, x2):
    mask = np.zeros((50, 50), bool)
    mask[y1:y2, x1:x2] = True
    return rle.encode(mask)


def test_instances_are_matched_one_to_one_whatever_their_order():
    a = [box(0, 10, 0, 10), box(20, 30, 20, 30), box(40, 50, 40, 50)]
    b = [box(20, 30, 21, 31), box(0, 10, 0, 10)]
    result = match_instances(a, b)
    assert [(m.a, m.b) for m in result.matches] == [(0, 1), (1, 0)]
    assert result.matches[0].iou == 1.0
    assert result.matches[1].iou == pytest.approx(90 / 110)
    assert result.unmatched_a == (2,) and result.unmatched_b == ()
    assert result.f1 == pytest.approx(4 / 5)


def test_pairs_below_the_threshold_do_not_match():
    result = match_instances([box(0, 10, 0, 10)], [box(0, 10, 6, 16)], iou_threshold=0.5)
    assert result.matches == () and result.mean_iou == 0.0 and result.f1 == 0.0


def test_empty_annotations_agree_and_one_sided_do_not():
    assert match_instances([], []).f1 == 1.0
    one_sided = match_instances([box(0, 5, 0, 5)], [])
    assert one_sided.f1 == 0.0 and one_sided.unmatched_a == (0,) and one_sided.union_iou == 0.0


def test_count_agreement():
    assert count_agreement(3, 3).equal
    assert count_agreement(3, 5).difference == 2
    assert count_agreement(None, 2).difference is None
