"""Mask edits done by the editor's tools: brush, eraser, polygon fill, fill holes, fragment and hole finding.

Rules: every edit takes a bool mask (H, W) and returns a new one (inputs are never changed). Geometry is
drawn with OpenCV, connected components and hole filling with scipy.ndimage. Coordinates are (x, y) pixels.
"""
from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from scipy import ndimage


class EditError(ValueError):
    """An edit that cannot be applied, with what is wrong."""


Point = tuple[float, float]

# 4-connectivity for holes (a hole touching a diagonal gap is still enclosed) and 8 for fragments,
# the usual pairing so that a foreground component and the holes around it are consistent.
_EIGHT = np.ones((3, 3), dtype=bool)


def _check_mask(mask: np.ndarray) -> np.ndarray:
    array = np.asarray(mask)
    if array.ndim != 2:
        raise EditError(f"mask must be 2-D (H, W), got shape {array.shape}")
    return array.astype(bool, copy=True)


def _stroke(shape: tuple[int, int], points: Sequence[Point], radius: float) -> np.ndarray:
    if radius <= 0:
        raise EditError(f"brush size must be positive, got radius {radius}")
    if not points:
        raise EditError("a stroke needs at least one point")
    canvas = np.zeros(shape, dtype=np.uint8)
    r = max(1, int(round(radius)))
    pts = [(int(round(x)), int(round(y))) for x, y in points]
    # Round caps and joints: a circle at each point plus thick lines between them.
    for p in pts:
        cv2.circle(canvas, p, r, 1, thickness=-1, lineType=cv2.LINE_8)
    for p, q in zip(pts, pts[1:]):
        cv2.line(canvas, p, q, 1, thickness=2 * r, lineType=cv2.LINE_8)
    return canvas.astype(bool)


def brush(mask: np.ndarray, points: Sequence[Point], *, radius: float) -> np.ndarray:
    """Paint a stroke (a polyline with round caps) of the given radius into the mask."""
    out = _check_mask(mask)
    return out | _stroke(out.shape, points, radius)


def erase(mask: np.ndarray, points: Sequence[Point], *, radius: float) -> np.ndarray:
    """Remove a stroke of the given radius from the mask."""
    out = _check_mask(mask)
    return out & ~_stroke(out.shape, points, radius)


def polygon(mask: np.ndarray, vertices: Sequence[Point], *, add: bool = True) -> np.ndarray:
    """Fill (or, with add=False, cut) a closed polygon given by at least 3 vertices."""
    out = _check_mask(mask)
    if len(vertices) < 3:
        raise EditError(f"a polygon needs at least 3 vertices, got {len(vertices)}")
    canvas = np.zeros(out.shape, dtype=np.uint8)
    pts = np.round(np.asarray(vertices, dtype=float)).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(canvas, [pts], 1)
    return out | canvas.astype(bool) if add else out & ~canvas.astype(bool)


def fill_holes(mask: np.ndarray, *, max_area: int | None = None) -> np.ndarray:
    """Fill enclosed background regions; with max_area only holes up to that many pixels."""
    out = _check_mask(mask)
    filled = ndimage.binary_fill_holes(out)
    if max_area is None:
        return filled
    holes = filled & ~out
    labels, count = ndimage.label(holes)
    if count == 0:
        return out
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    small = np.zeros(count + 1, dtype=bool)
    small[1:] = sizes[1:] <= max_area
    return out | small[labels]


def fragments(mask: np.ndarray) -> list[int]:
    """Pixel areas of the 8-connected components of the mask, largest first."""
    labels, count = ndimage.label(_check_mask(mask), structure=_EIGHT)
    if count == 0:
        return []
    sizes = np.bincount(labels.ravel(), minlength=count + 1)[1:]
    return sorted((int(s) for s in sizes), reverse=True)


def holes(mask: np.ndarray) -> list[int]:
    """Pixel areas of enclosed background regions (4-connected), largest first."""
    out = _check_mask(mask)
    enclosed = ndimage.binary_fill_holes(out) & ~out
    labels, count = ndimage.label(enclosed)
    if count == 0:
        return []
    sizes = np.bincount(labels.ravel(), minlength=count + 1)[1:]
    return sorted((int(s) for s in sizes), reverse=True)


def remove_fragments(mask: np.ndarray, *, min_area: int) -> np.ndarray:
    """Drop 8-connected components smaller than min_area pixels."""
    out = _check_mask(mask)
    labels, count = ndimage.label(out, structure=_EIGHT)
    if count == 0:
        return out
    sizes = np.bincount(labels.ravel(), minlength=count + 1)
    keep = sizes >= min_area
    keep[0] = False
    return keep[labels]
