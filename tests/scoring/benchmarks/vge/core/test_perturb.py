"""Image perturbations of the served view: parsing, determinism, and what each does to the pixels."""
from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from scoring.benchmarks.vge.core.perturb import (
    OCCLUDER_GREY,
    Perturbation,
    PerturbationInvalid,
    apply_array,
    apply_png,
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


def test_occlusion_covers_the_share_and_is_deterministic_per_key():
    p = Perturbation("occlude", 0.25)
    out = apply_array(image(), p, key="e:1")
    grey = int((out[:, :, 0] == OCCLUDER_GREY).sum())
    assert grey == 20 * 30  # h = round(40·√.25) = 20, w = round(.25·40·60 / 20) = 30: a quarter of 2400 pixels
    assert np.array_equal(out, apply_array(image(), p, key="e:1"))
    placements = {apply_array(image(), p, key=f"e:{turn}").tobytes() for turn in range(6)}
    assert len(placements) > 1  # another turn, another place


def test_png_round_trip_and_bad_bytes():
    ok, png = cv2.imencode(".png", image())
    once = apply_png(png.tobytes(), Perturbation("occlude", 0.5), key="7:2")
    assert once == apply_png(png.tobytes(), Perturbation("occlude", 0.5), key="7:2") and once[:4] == b"\x89PNG"
    with pytest.raises(PerturbationInvalid, match="could not be decoded"):
        apply_png(b"not an image", Perturbation("blur", 1), key="k")
