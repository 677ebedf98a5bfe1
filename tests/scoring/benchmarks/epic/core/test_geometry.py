"""RLE geometry equals dense numpy geometry (the reference's formulas) on random masks."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from pycocotools import mask as mask_utils

from scoring.benchmarks.epic.core import geometry
from scoring.benchmarks.epic.core.geometry import (
    PixelLookup,
    boxes_mask,
    counts_from_string,
    counts_from_strings,
    iou,
    region_of,
    split_two_regions,
    union_of_instances,
)
from tests.scoring.benchmarks.epic.core.dense_reference import (
    dense_iou,
    dense_pair_distance,
    dense_point_distance,
    dense_split,
)

from .helpers import rle


def masks(max_side: int = 40):
    return st.tuples(st.integers(1, max_side), st.integers(1, max_side), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))


def _random_mask(h, w, seed, density, blobs=False):
    rng = np.random.default_rng(seed)
    m = (rng.random((h, w)) < density * 0.5).astype(np.uint8)
    return m


def _rle_mask(m):
    r = rle(m)
    mask, problems = union_of_instances([r])
    assert mask is not None and not problems
    return mask


def _dense(region):
    """A region's pixels as a dense mask, from its column runs."""
    full = np.zeros((region.height, region.width), bool)
    for col, first, after in zip(region.cols.tolist(), region.first.tolist(), region.after.tolist()):
        full[first:after, col] = True
    return full


@settings(max_examples=60)
@given(masks())
def test_run_lengths_decode_like_pycocotools(spec):
    h, w, seed, density = spec
    m = _random_mask(h, w, seed, density)
    counts = counts_from_string(mask_utils.encode(np.asfortranarray(m))["counts"])
    flat = np.repeat(np.arange(counts.size) & 1, counts).astype(np.uint8)
    assert np.array_equal(flat.reshape(w, h).T, m)


def test_batch_decoding_matches_one_by_one_including_malformed_strings():
    rng = np.random.default_rng(3)
    strings = [mask_utils.encode(np.asfortranarray((rng.random((9, 13)) < p).astype(np.uint8)))["counts"]
               for p in np.linspace(0, 1, 30)]
    strings += [b"", b"zz", b"5X6", b"\x01ab", b"o" * 14 + b"0"]
    for one, batch in zip((counts_from_string(s) for s in strings), counts_from_strings(strings)):
        assert (one is None and batch is None) or np.array_equal(one, batch)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30),
                                                                   st.integers(0, 30), st.integers(0, 30)), max_size=4),
       st.integers(0, 2**32 - 1))
def test_box_union_and_iou_equal_dense_rasterisation(h, w, raw_boxes, seed):
    boxes = [(min(x1, x2, w), min(y1, y2, h), min(max(x1, x2), w), min(max(y1, y2), h)) for x1, y1, x2, y2 in raw_boxes]
    boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
    dense = np.zeros((h, w), np.uint8)
    for x1, y1, x2, y2 in boxes:
        dense[y1:y2, x1:x2] = 1
    pred = boxes_mask(boxes, h, w)
    assert pred.area == int(dense.sum())
    gt_dense = _random_mask(h, w, seed, 0.6)
    assert iou(pred, _rle_mask(gt_dense)) == dense_iou(dense, gt_dense)


def test_iou_of_two_empty_masks_is_one_like_the_dense_reference():
    empty = _rle_mask(np.zeros((5, 6), np.uint8))
    assert iou(boxes_mask([], 5, 6), empty) == 1.0


def test_instances_of_another_size_are_dropped_and_bad_ones_reported():
    a = np.zeros((10, 10), np.uint8)
    a[2:4, 2:4] = 1
    b = np.zeros((8, 8), np.uint8)
    b[0:8, 0:8] = 1
    mask, problems = union_of_instances([{"size": [10, 10], "counts": "zz!"}, rle(a), rle(b)])
    assert mask is not None and mask.area == 4
    assert any("instance 0" in p for p in problems) and any("differs" in p for p in problems)
    assert union_of_instances([{"size": [4, 4], "counts": [3, 2]}])[0] is None  # counts do not cover 16 pixels
    assert union_of_instances([{"size": [2, 2], "counts": [1, 2, 9]}])[0].area == 2  # too long: clamped


@settings(max_examples=60)
@given(masks(30), st.lists(st.tuples(st.floats(0, 29), st.floats(0, 29)), min_size=1, max_size=5))
def test_point_distance_equals_minimum_over_all_pixels(spec, points):
    h, w, seed, density = spec
    m = _random_mask(h, w, seed, density)
    region = region_of(_rle_mask(m))
    points = [(min(x, w - 1), min(y, h - 1)) for x, y in points]
    for x, y in points:
        assert region.distance((x, y)) == dense_point_distance((x, y), m)
    assert region.distances(points) == [dense_point_distance(p, m) for p in points]  # all points at once


@settings(max_examples=40, deadline=None)
@given(masks(30))
def test_region_runs_and_lookup_agree_with_the_dense_mask(spec):
    h, w, seed, density = spec
    m = _random_mask(h, w, seed, density)
    mask = _rle_mask(m)
    rows, cols = np.indices((h, w))
    assert np.array_equal(PixelLookup(mask).contains(rows.ravel(), cols.ravel()).reshape(h, w), m.astype(bool))
    region = region_of(mask)
    if not m.any():
        assert region.empty and region.centroid() == (h / 2.0, w / 2.0)
        return
    ys, xs = np.nonzero(m)
    assert region.centroid() == (float(np.mean(ys)), float(np.mean(xs)))
    assert np.array_equal(_dense(region), m.astype(bool))


@settings(max_examples=50, deadline=None)
@given(masks(36))
def test_exo_split_and_least_distance_equal_the_dense_reference(spec):
    h, w, seed, density = spec
    m = _random_mask(h, w, seed, density * 0.4)
    first, second = split_two_regions(region_of(_rle_mask(m)))
    expected = dense_split(m)
    if expected is None:
        assert second is None
        return
    assert second is not None
    for region, dense in zip((first, second), expected):
        assert np.array_equal(_dense(region), dense.astype(bool))
    assert first.min_distance_to(second) == dense_pair_distance(*expected)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 40), st.integers(0, 2**32 - 1))
def test_exo_split_of_few_or_many_components_equals_scipys_labelling(blobs, seed):
    """Few or many components (of rectangles that touch, overlap or stand apart), numbered as scipy numbers them."""
    rng = np.random.default_rng(seed)
    m = np.zeros((90, 120), np.uint8)
    for _ in range(blobs):
        y, x, h, w = rng.integers(0, 85), rng.integers(0, 115), rng.integers(1, 6), rng.integers(1, 6)
        m[y:y + h, x:x + w] = 1
    first, second = split_two_regions(region_of(_rle_mask(m)))
    expected = dense_split(m)
    assert (second is None) == (expected is None)
    if expected is not None:
        assert second is not None
        for region, dense in zip((first, second), expected):
            assert np.array_equal(_dense(region), dense.astype(bool))
        assert first.min_distance_to(second) == dense_pair_distance(*expected)


def _split_runs(m, seed):
    """Uncompressed RLE counts of a mask with some runs of ones cut in two by a run of no zero: runs that touch."""
    flat = m.T.ravel()
    edges = np.flatnonzero(np.diff(np.concatenate(([0], flat, [1 - flat[-1]])))) if flat.size else []
    counts = np.diff(np.concatenate(([0], edges))).tolist()
    rng = np.random.default_rng(seed)
    out = []
    for k, n in enumerate(counts):
        if k % 2 == 1 and n > 1 and rng.random() < 0.5:
            cut = int(rng.integers(1, n))
            out += [cut, 0, n - cut]
        else:
            out.append(n)
    return {"size": list(m.shape), "counts": out}


@settings(max_examples=120, deadline=None)
@given(masks(24), st.sampled_from(["none", "rows", "columns", "frame", "full"]), st.booleans(),
       st.lists(st.tuples(st.integers(0, 47), st.integers(0, 47)), min_size=1, max_size=4))
def test_run_region_equals_the_pixel_mask_at_the_edges(spec, edges, touching, halves):
    """Runs that cross from one column into the next (ones at the bottom and top rows), masks at the image's
    edges or full, RLEs holding runs of no pixel between ones (runs that touch, joined), points at half pixels
    (rounded half to even): the regions' pixels, centroid, distances, Exo split and least distance equal the dense
    mask's."""
    h, w, seed, density = spec
    m = _random_mask(h, w, seed, density * 0.6)
    if edges in ("rows", "frame"):
        m[[0, -1], :] = 1
    if edges in ("columns", "frame"):
        m[:, [0, -1]] = 1
    if edges == "full":
        m[:] = 1
    mask, problems = union_of_instances([_split_runs(m, seed) if touching else rle(m)])
    assert mask is not None and not problems
    region = region_of(mask)
    assert np.array_equal(_dense(region), m.astype(bool))
    if not m.any():
        return
    ys, xs = np.nonzero(m)
    assert region.centroid() == (float(np.mean(ys)), float(np.mean(xs)))
    points = [(min(x / 2, w - 1), min(y / 2, h - 1)) for x, y in halves]
    assert region.distances(points) == [dense_point_distance(p, m) for p in points]
    first, second = split_two_regions(region)
    expected = dense_split(m)
    assert (second is None) == (expected is None)
    if expected is not None:
        assert second is not None
        assert np.array_equal(_dense(first), expected[0].astype(bool))
        assert np.array_equal(_dense(second), expected[1].astype(bool))
        assert first.min_distance_to(second) == dense_pair_distance(*expected)


def test_least_distance_by_kd_tree_equals_the_pairwise_minimum(monkeypatch):
    """Regions with many boundary pixels go to a KD-tree instead of comparing every pair: the same double."""
    rng = np.random.default_rng(5)
    m = (rng.random((60, 80)) < 0.25).astype(np.uint8)
    m[:, 38:42] = 0
    m[:, :38] |= np.eye(60, 38, dtype=np.uint8)
    first, second = split_two_regions(region_of(_rle_mask(m)))
    assert second is not None
    pairwise = first.min_distance_to(second)
    monkeypatch.setattr(geometry, "_PAIRS_BY_BRUTE_FORCE", 0)
    by_tree = split_two_regions(region_of(_rle_mask(m)))
    assert by_tree[1] is not None and by_tree[0].min_distance_to(by_tree[1]) == pairwise
    assert pairwise == dense_pair_distance(*dense_split(m))


def test_least_distance_is_exact_for_regions_over_a_thousand_pixels():
    """B2: the reference samples 1000 pixels at random from larger regions; we take the exact minimum."""
    m = np.zeros((200, 300), np.uint8)
    m[10:60, 10:60] = 1     # 2500 pixels
    m[100:150, 200:260] = 1  # 3000 pixels
    first, second = split_two_regions(region_of(_rle_mask(m)))
    assert first.min_distance_to(second) == math.hypot(200 - 59, 100 - 59)


@settings(max_examples=60)
@given(st.integers(1, 25), st.integers(1, 25), st.lists(st.tuples(st.integers(0, 25), st.integers(0, 25),
                                                                   st.integers(0, 25), st.integers(0, 25)), max_size=3),
       st.integers(0, 2**32 - 1), st.floats(0, 1))
def test_boxes_iou_equals_dense_iou(h, w, raw_boxes, seed, density):
    boxes = [(min(x1, x2, w), min(y1, y2, h), min(max(x1, x2), w), min(max(y1, y2), h)) for x1, y1, x2, y2 in raw_boxes]
    boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
    dense = np.zeros((h, w), np.uint8)
    for x1, y1, x2, y2 in boxes:
        dense[y1:y2, x1:x2] = 1
    gt_dense = _random_mask(h, w, seed, density)
    from scoring.benchmarks.epic.core.geometry import boxes_iou
    assert boxes_iou(boxes, _rle_mask(gt_dense)) == dense_iou(dense, gt_dense)


def test_batch_decoding_matches_one_by_one_on_random_and_garbage_byte_strings():
    rng = np.random.default_rng(11)
    for _ in range(200):
        strings = [bytes(rng.integers(40, 116, int(rng.integers(0, 25))).astype(np.uint8)) for _ in range(5)]
        strings += [bytes(rng.integers(48, 112, int(rng.integers(0, 25))).astype(np.uint8)) for _ in range(5)]
        strings.insert(int(rng.integers(0, 10)), b"")
        for one, batch in zip((counts_from_string(s) for s in strings), counts_from_strings(strings)):
            assert (one is None and batch is None) or np.array_equal(one, batch)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30), st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2**32 - 1),
                                                                   st.floats(0, 1)), min_size=2, max_size=4))
def test_union_run_lengths_equal_the_decoded_pycocotools_merge(h, w, parts):
    instances = []
    for kind, seed, density in parts:
        m = _random_mask(h, w, seed, density) if kind else np.zeros((h, w), np.uint8)
        if kind == 1:  # solid blocks touching or overlapping: runs that must join
            m[:, : w // 2] = 1
        instances.append(rle(m))
    merged, problems = union_of_instances(instances)
    assert not problems
    assert np.array_equal(merged.counts(), counts_from_string(merged.rle["counts"]))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40),
                                                                   st.integers(0, 40), st.integers(0, 40)),
                                                         min_size=1, max_size=5),
       st.integers(0, 2**32 - 1), st.floats(0, 1), st.sampled_from(["one", "overlapping", "disjoint"]), st.booleans())
def test_boxes_iou_on_runs_equals_pycocotools_iou_of_the_rasterised_boxes(h, w, raw_boxes, seed, density, instances_kind,
                                                                          decoded):
    """One instance, or a union of instances that overlap (the rasterising fallback unless the union is decoded)
    or not (each instance's runs); the union's runs decoded before or not."""
    from scoring.benchmarks.epic.core.geometry import boxes_iou
    boxes = [(min(x1, x2, w), min(y1, y2, h), min(max(x1, x2), w), min(max(y1, y2), h)) for x1, y1, x2, y2 in raw_boxes]
    if not boxes:
        return  # no box at all is decided before boxes_iou's geometry; boxes without pixels are kept
    first = _random_mask(h, w, seed, density)
    instances = [rle(first)]
    if instances_kind != "one":
        second = _random_mask(h, w, seed + 1, density)
        if instances_kind == "disjoint":
            second[first > 0] = 0
            if w > 1:
                second[:, 0] = 1 - first[:, 0]  # a run that meets the first instance's: the union joins them
        instances.append(rle(second))
    gt, _ = union_of_instances(instances)
    if decoded:
        gt.counts()
    expected = float(mask_utils.iou([boxes_mask(boxes, h, w).rle], [gt.rle], [0])[0, 0])
    assert boxes_iou(boxes, gt) == expected


def test_boxes_truncated_to_no_pixel_score_zero_like_pycocotools():
    from scoring.benchmarks.epic.core.geometry import boxes_iou
    for gt_dense in (np.zeros((300, 500), np.uint8), np.ones((300, 500), np.uint8)):
        gt = _rle_mask(gt_dense)
        for boxes in ([(1, 0, 500, 0)], [(1, 0, 500, 0), (7, 7, 7, 9)]):
            expected = float(mask_utils.iou([boxes_mask(boxes, 300, 500).rle], [gt.rle], [0])[0, 0])
            assert boxes_iou(boxes, gt) == expected == 0.0


def _blob_mask(h, w, rng, blobs):
    m = np.zeros((h, w), np.uint8)
    for _ in range(blobs):
        y, x = rng.integers(0, h), rng.integers(0, w)
        m[y:y + rng.integers(1, h // 2), x:x + rng.integers(1, w // 2)] = 1
    return m


def test_boxes_ious_of_many_pairs_in_one_batch_equal_pycocotools_pair_by_pair():
    """Many (boxes, GT) pairs of different sizes scored together, as a chunk of a file is: single instances and
    unions of disjoint instances (runs not in pixel order once the instances' are put together), decoded or not,
    overlapping instances, empty GTs, boxes without pixels; each IoU the one pycocotools gives the pair alone."""
    from scoring.benchmarks.epic.core.geometry import boxes_iou, boxes_ious
    rng = np.random.default_rng(3)
    pairs, expected = [], []
    for k in range(120):
        h, w = int(rng.integers(20, 90)), int(rng.integers(20, 120))
        first = _blob_mask(h, w, rng, int(rng.integers(0, 4)))
        instances = [rle(first)]
        kind = k % 3
        if kind:
            second = _blob_mask(h, w, rng, int(rng.integers(1, 4)))
            if kind == 1:
                second[first > 0] = 0  # disjoint
            instances.append(rle(second))
        gt, _ = union_of_instances(instances)
        if k % 5 == 0:
            gt.counts()
        boxes = []
        for _ in range(int(rng.integers(1, 5))):
            x1, x2 = sorted(rng.integers(0, w + 1, 2).tolist())
            y1, y2 = sorted(rng.integers(0, h + 1, 2).tolist())
            boxes.append((x1, y1, x2, y2))
        pairs.append((boxes, gt))
        expected.append(float(mask_utils.iou([boxes_mask(boxes, h, w).rle], [gt.rle], [0])[0, 0]))
    assert boxes_ious(pairs) == expected
    assert [boxes_iou(boxes, gt) for boxes, gt in pairs] == expected
