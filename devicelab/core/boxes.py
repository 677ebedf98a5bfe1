"""Boxes on a view's photo: from a proposed mask (pixels) to the `vge-device/1` scale (0..1000 of the image), and
back; an author's adjusted box checked with the field named."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SCALE = 1000

Box = tuple[int, int, int, int]


class BoxError(ValueError):
    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def mask_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """The pixel box [x1, y1, x2, y2] (inclusive) of a boolean mask, None when it is empty."""
    ys = np.flatnonzero(mask.any(axis=1))
    xs = np.flatnonzero(mask.any(axis=0))
    if not len(xs):
        return None
    return int(xs[0]), int(ys[0]), int(xs[-1]), int(ys[-1])


def to_scale(box: Sequence[float], width: int, height: int) -> Box:
    """A pixel box as 0..1000 integers (the edges rounded outwards so the box still covers the mask)."""
    x1, y1, x2, y2 = box
    return (int(np.floor(x1 * SCALE / width)), int(np.floor(y1 * SCALE / height)),
            min(SCALE, int(np.ceil((x2 + 1) * SCALE / width))), min(SCALE, int(np.ceil((y2 + 1) * SCALE / height))))


def to_pixels(box: Sequence[int], width: int, height: int) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return x1 * width / SCALE, y1 * height / SCALE, x2 * width / SCALE, y2 * height / SCALE


def box_check(value: object, *, field: str) -> Box:
    """An author's box: four integers, within 0..1000, of positive size."""
    if not isinstance(value, (list, tuple)) or len(value) != 4 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise BoxError(field, f"a box is four integers [x1, y1, x2, y2], got {value!r}")
    x1, y1, x2, y2 = value
    if x2 < x1 or y2 < y1:
        raise BoxError(field, f"box {list(value)} has a negative size ({x2 - x1} x {y2 - y1})")
    if x2 == x1 or y2 == y1:
        raise BoxError(field, f"box {list(value)} is empty (needs x1 < x2 and y1 < y2)")
    if min(value) < 0 or max(value) > SCALE:
        raise BoxError(field, f"box {list(value)} lies outside its image (0..{SCALE})")
    return x1, y1, x2, y2
