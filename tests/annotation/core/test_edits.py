import numpy as np
import pytest

from annotation.core import edits


def test_brush_paints_a_round_stroke_of_the_given_radius():
    mask = np.zeros((50, 50), bool)
    out = edits.brush(mask, [(10, 25), (40, 25)], radius=5)
    assert not mask.any(), "the input is left unchanged"
    assert out[25, 10:41].all() and out[21, 25] and out[29, 25]
    assert not out[25, 2] and not out[15, 25]


def test_eraser_removes_only_inside_its_size():
    mask = np.ones((40, 40), bool)
    small = edits.erase(mask, [(20, 20)], radius=3)
    large = edits.erase(mask, [(20, 20)], radius=10)
    assert not small[20, 20] and small[20, 25]
    assert not large[20, 25]
    assert (~small).sum() < (~large).sum()


def test_brush_size_must_be_positive():
    with pytest.raises(edits.EditError, match="positive"):
        edits.brush(np.zeros((5, 5), bool), [(1, 1)], radius=0)


def test_polygon_fills_a_triangle_and_can_cut():
    mask = np.zeros((20, 20), bool)
    tri = edits.polygon(mask, [(0, 0), (19, 0), (0, 19)])
    assert tri[1, 1] and not tri[18, 18]
    cut = edits.polygon(np.ones((20, 20), bool), [(0, 0), (19, 0), (0, 19)], add=False)
    assert not cut[1, 1] and cut[18, 18]


def test_polygon_needs_three_vertices():
    with pytest.raises(edits.EditError, match="at least 3"):
        edits.polygon(np.zeros((5, 5), bool), [(0, 0), (1, 1)])


def test_fill_holes_fills_enclosed_regions_and_respects_a_size_limit():
    ring = np.zeros((30, 30), bool)
    ring[5:25, 5:25] = True
    ring[10:20, 10:20] = False  # a 100 px hole
    ring[7, 7] = False  # a 1 px hole
    assert edits.holes(ring) == [100, 1]
    assert edits.fill_holes(ring).sum() == 400
    partly = edits.fill_holes(ring, max_area=10)
    assert partly[7, 7] and not partly[15, 15]


def test_fragments_and_removal_of_small_ones():
    mask = np.zeros((30, 30), bool)
    mask[0:10, 0:10] = True
    mask[20, 20] = True
    assert edits.fragments(mask) == [100, 1]
    assert edits.fragments(edits.remove_fragments(mask, min_area=2)) == [100]
