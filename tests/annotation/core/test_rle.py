import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from annotation.core import rle


@settings(max_examples=60)
@given(arrays(np.bool_, st.tuples(st.integers(1, 30), st.integers(1, 30))))
def test_encode_decode_round_trips_any_mask(mask):
    encoded = rle.encode(mask)
    assert encoded["size"] == list(mask.shape)
    assert isinstance(encoded["counts"], str)
    assert np.array_equal(rle.decode(encoded), mask)
    assert rle.area(encoded) == int(mask.sum())


def test_uncompressed_counts_are_accepted_and_normalised():
    # 2x3, column-major runs: 1 zero, 2 ones, 3 zeros
    uncompressed = {"size": [2, 3], "counts": [1, 2, 3]}
    mask = rle.decode(uncompressed)
    assert mask.tolist() == [[False, True, False], [True, False, False]]
    assert rle.decode(rle.normalize(uncompressed)).tolist() == mask.tolist()


def test_uncompressed_counts_with_wrong_total_are_refused():
    with pytest.raises(rle.RleError, match="sum to 5"):
        rle.decode({"size": [2, 3], "counts": [1, 4]})


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"counts": "abc"}, "size"),
        ({"size": [2], "counts": "abc"}, "size"),
        ({"size": [2, 3], "counts": 7}, "counts"),
        ("not a dict", "object"),
    ],
)
def test_malformed_rle_says_what_is_wrong(bad, message):
    with pytest.raises(rle.RleError, match=message):
        rle.decode(bad)


def test_merge_is_the_union_and_iou_is_exact():
    a = np.zeros((10, 10), bool)
    a[0:5, 0:5] = True
    b = np.zeros((10, 10), bool)
    b[0:5, 3:8] = True
    merged = rle.decode(rle.merge([rle.encode(a), rle.encode(b)]))
    assert np.array_equal(merged, a | b)
    assert rle.iou(rle.encode(a), rle.encode(b)) == pytest.approx(10 / 40)
    assert rle.iou_matrix([rle.encode(a)], [rle.encode(a), rle.encode(b)])[0].tolist() == pytest.approx([1.0, 0.25])


def test_merge_of_nothing_needs_a_size_and_gives_an_empty_mask():
    with pytest.raises(rle.RleError, match="size"):
        rle.merge([])
    assert rle.area(rle.merge([], size=(4, 6))) == 0


def test_masks_of_different_sizes_do_not_merge_or_compare():
    with pytest.raises(rle.RleError, match="different sizes"):
        rle.merge([rle.encode(np.ones((2, 2), bool)), rle.encode(np.ones((3, 2), bool))])
    with pytest.raises(rle.RleError, match="different sizes"):
        rle.iou(rle.encode(np.ones((2, 2), bool)), rle.encode(np.ones((3, 2), bool)))


def test_two_empty_masks_have_iou_one():
    empty = rle.encode(np.zeros((3, 3), bool))
    assert rle.iou(empty, empty) == 1.0
