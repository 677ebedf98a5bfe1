"""Image perturbations of the served view: parsing, determinism, and what each does to the pixels."""
from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from scoring.benchmarks.vge.core.perturb import (
    OCCLUDER_PATCHES,
    PAPER_OCCLUSION_LEVELS,
    Perturbation,
    PerturbationInvalid,
    apply_array,
    apply_png,
    occluder_patches,
    parse,
)


def image() -> np.ndarray:
    """A 40 x 60 black image with a white square: edges a blur softens, flat areas an occluder covers."""
    img = np.zeros((40, 60, 3), np.uint8)
    img[10:30, 20:40] = 255
    return img


@pytest.mark.parametrize("text, canonical", [
    ("blur:2", "blur:2"), (" BLUR:1.5 ", "blur:1.5"), ("jpeg:30", "jpeg:30"), ("jpeg:30.0", "jpeg:30"),
    ("occlude:0.25", "occlude:0.25"),
])
def test_parse_gives_a_canonical_text(text, canonical):
    assert parse(text).text() == canonical


@pytest.mark.parametrize("text, message", [
    ("blur", "use blur:σ, jpeg:q or occlude:share"), ("rain:3", "use blur:σ"), ("blur:x", "'x' is not a number"),
    ("blur:0", "(0, 20]"), ("blur:21", "(0, 20]"), ("jpeg:0", "integer from 1 to 100"), ("jpeg:50.5", "integer"),
    ("occlude:0.95", "(0, 0.9]"), ("blur:nan", "finite"),
])
def test_bad_perturbations_say_what_is_wrong(text, message):
    with pytest.raises(PerturbationInvalid, match=re.escape(message)):
        parse(text)


def test_none_is_no_perturbation():
    assert parse("") is None and parse("none") is None and parse(None) is None


def test_blur_softens_edges_and_keeps_the_mean():
    out = apply_array(image(), Perturbation("blur", 2.0), key="e:1")
    assert out.shape == image().shape and 0 < out[20, 20, 0] < 255  # the edge pixel is now grey
    assert abs(float(out.mean()) - float(image().mean())) < 1.0


def test_jpeg_at_low_quality_changes_pixels_and_high_quality_barely():
    low = apply_array(image(), Perturbation("jpeg", 5), key="e:1")
    high = apply_array(image(), Perturbation("jpeg", 100), key="e:1")

    def err(a):
        return float(np.abs(a.astype(int) - image().astype(int)).mean())

    assert err(low) > err(high) and err(high) < 1.0


def test_the_papers_occlusion_levels():
    assert PAPER_OCCLUSION_LEVELS == (0.10, 0.25, 0.40) and OCCLUDER_PATCHES == 8


@pytest.mark.parametrize("size", [(40, 60), (480, 640), (600, 400)])
@pytest.mark.parametrize("share", [0.10, 0.25, 0.40])
def test_occlusion_is_eight_black_patches_covering_the_levels_area(size, share):
    """The paper (E.2): "Occlusion uses eight black patches covering total area ratios of 10%, 25%, or 40%".
    Counted on the perturbed pixels of an image with no black in it: exactly round(share · pixels) are black, in
    eight separate filled rectangles, and nothing else changed; the same key (the episode's seed: episode and
    turn) gives the same patches, other keys others."""
    height, width = size
    img = np.full((height, width, 3), 200, np.uint8)
    img[: height // 2, : width // 3] = (30, 90, 250)
    p = Perturbation("occlude", share)
    out = apply_array(img, p, key="e:1")
    black = (out == 0).all(axis=2)
    assert int(black.sum()) == round(share * height * width)
    assert np.array_equal((out != img).any(axis=2), black)  # only the patches changed, every patch pixel black
    count, labels, stats, _ = cv2.connectedComponentsWithStats(black.astype(np.uint8), connectivity=4)
    assert count - 1 == 8  # eight patches (here none touches another)
    areas = stats[1:, cv2.CC_STAT_AREA]
    assert (areas == stats[1:, cv2.CC_STAT_WIDTH] * stats[1:, cv2.CC_STAT_HEIGHT]).all()  # each a rectangle
    assert np.array_equal(out, apply_array(img, p, key="e:1"))
    assert len({apply_array(img, p, key=f"e:{turn}").tobytes() for turn in range(6)}) == 6


def test_occluder_patches_never_overlap_and_sum_to_the_area():
    for share in PAPER_OCCLUSION_LEVELS:
        patches = occluder_patches(480, 640, share, key="e:1")
        mask = np.zeros((480, 640), int)
        for top, left, h, w in patches:
            mask[top:top + h, left:left + w] += 1
        assert len(patches) == OCCLUDER_PATCHES and mask.max() == 1
        assert int(mask.sum()) == round(share * 480 * 640)
        assert occluder_patches(480, 640, share, key="e:1") == patches != occluder_patches(480, 640, share, key="e:2")


def test_occlusion_at_other_shares_stays_near_the_share():
    for share in (0.05, 0.5, 0.7, 0.9):
        patches = occluder_patches(480, 640, share, key="7:3")
        assert len(patches) == 8
        assert abs(sum(h * w for _, _, h, w in patches) - share * 480 * 640) <= 8


def test_png_round_trip_and_bad_bytes():
    ok, png = cv2.imencode(".png", image())
    once = apply_png(png.tobytes(), Perturbation("occlude", 0.5), key="7:2")
    assert once == apply_png(png.tobytes(), Perturbation("occlude", 0.5), key="7:2") and once[:4] == b"\x89PNG"
    with pytest.raises(PerturbationInvalid, match="could not be decoded"):
        apply_png(b"not an image", Perturbation("blur", 1), key="k")
