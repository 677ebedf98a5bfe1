"""Mask edits done by the editor's tools: brush, eraser, polygon fill, fill holes, fragment and hole finding.

Rules: every edit takes a bool mask (H, W) and returns a new one (inputs are never changed). Coordinates are (x, y)
pixels, floats allowed; a pixel (x, y) is covered when its centre (x + 0.5, y + 0.5) is (inside a brush disc, inside
a polygon). The editor (static/annotation/editor/tools.js) paints with the same arithmetic for instant feedback and
sends its edits with each mask; `apply_edits` replays them here and the save is refused when the mask differs, so
this module is the one definition of each edit. Connected components and hole filling use scipy.ndimage.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import ndimage


class EditError(ValueError):
    """An edit that cannot be applied, with what is wrong."""


Point = tuple[float, float]
MAX_RADIUS = 500
MAX_OPS = 2000
MAX_POINTS = 100_000

# 4-connectivity for holes (a hole touching a diagonal gap is still enclosed) and 8 for fragments,
# the usual pairing so that a foreground component and the holes around it are consistent.
_EIGHT = np.ones((3, 3), dtype=bool)


def _check_mask(mask: np.ndarray) -> np.ndarray:
    array = np.asarray(mask)
    if array.ndim != 2:
        raise EditError(f"mask must be 2-D (H, W), got shape {array.shape}")
    return array.astype(bool, copy=True)


def _stamp(canvas: np.ndarray, cx: float, cy: float, r: float) -> None:
    """Set the pixels whose centre (x + 0.5, y + 0.5) lies within r of (cx, cy)."""
    h, w = canvas.shape
    x0, x1 = max(0, math.floor(cx - r)), min(w - 1, math.ceil(cx + r))
    y0, y1 = max(0, math.floor(cy - r)), min(h - 1, math.ceil(cy + r))
    if x0 > x1 or y0 > y1:
        return
    dx = np.arange(x0, x1 + 1, dtype=np.float64) + 0.5 - cx
    dy = np.arange(y0, y1 + 1, dtype=np.float64) + 0.5 - cy
    canvas[y0:y1 + 1, x0:x1 + 1] |= (dy[:, None] * dy[:, None] + dx[None, :] * dx[None, :]) <= r * r


def _stroke(shape: tuple[int, int], points: Sequence[Point], radius: float) -> np.ndarray:
    """A stroke as the editor paints it: a disc at the first point, then discs every max(1, r/2) pixels along each
    segment (the editor's tools.js does the same arithmetic, so both give the same pixels)."""
    if not (isinstance(radius, (int, float)) and 0 < radius <= MAX_RADIUS):
        raise EditError(f"brush size must be positive and at most {MAX_RADIUS}, got radius {radius!r}")
    if not points:
        raise EditError("a stroke needs at least one point")
    canvas = np.zeros(shape, dtype=bool)
    pts = [(float(x), float(y)) for x, y in points]
    _stamp(canvas, pts[0][0], pts[0][1], radius)
    for (ax, ay), (bx, by) in itertools.pairwise(pts):
        dist = math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay))
        steps = max(1, math.ceil(dist / max(1, radius / 2)))
        for i in range(1, steps + 1):
            _stamp(canvas, ax + (bx - ax) * i / steps, ay + (by - ay) * i / steps, radius)
    return canvas


def brush(mask: np.ndarray, points: Sequence[Point], *, radius: float) -> np.ndarray:
    """Paint a stroke (a polyline of discs) of the given radius into the mask."""
    out = _check_mask(mask)
    return out | _stroke(out.shape, points, radius)


def erase(mask: np.ndarray, points: Sequence[Point], *, radius: float) -> np.ndarray:
    """Remove a stroke of the given radius from the mask."""
    out = _check_mask(mask)
    return out & ~_stroke(out.shape, points, radius)


def _polygon_area(shape: tuple[int, int], vertices: Sequence[Point]) -> np.ndarray:
    """The pixels whose centre is inside the closed polygon (even-odd rule), row by row: on the row through
    y + 0.5, each edge crossing at x0 + (yc - y0) * (x1 - x0) / (y1 - y0); pixels between pairs of crossings."""
    h, w = shape
    canvas = np.zeros(shape, dtype=bool)
    pts = [(float(x), float(y)) for x, y in vertices]
    ys = [y for _, y in pts]
    for y in range(max(0, math.floor(min(ys))), min(h, math.ceil(max(ys)) + 1)):
        yc = y + 0.5
        xs = []
        for i, (x0, y0) in enumerate(pts):
            x1, y1 = pts[(i + 1) % len(pts)]
            if (y0 <= yc < y1) or (y1 <= yc < y0):
                xs.append(x0 + (yc - y0) * (x1 - x0) / (y1 - y0))
        xs.sort()
        for a, b in zip(xs[::2], xs[1::2]):
            start, stop = max(0, math.ceil(a - 0.5)), min(w, math.ceil(b - 0.5))
            if start < stop:
                canvas[y, start:stop] = True
    return canvas


def polygon(mask: np.ndarray, vertices: Sequence[Point], *, add: bool = True) -> np.ndarray:
    """Fill (or, with add=False, cut) a closed polygon given by at least 3 vertices."""
    out = _check_mask(mask)
    if len(vertices) < 3:
        raise EditError(f"a polygon needs at least 3 vertices, got {len(vertices)}")
    area = _polygon_area(out.shape, vertices)
    return out | area if add else out & ~area


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


def _points(value: Any, where: str, *, least: int) -> list[Point]:
    if not isinstance(value, list) or len(value) < least:
        raise EditError(f"{where}: needs a list of at least {least} [x, y] point(s)")
    out = []
    for k, p in enumerate(value):
        if not (isinstance(p, (list, tuple)) and len(p) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in p)):
            raise EditError(f"{where}.points[{k}]: not an [x, y] pair of finite numbers")
        out.append((float(p[0]), float(p[1])))
    return out


def apply_edits(mask: np.ndarray, ops: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """The mask after the editor's edits, in order. Each edit is {"op": "brush"|"erase", "radius": r, "points":
    [[x, y], ...]}, {"op": "polygon", "points": [...], "add": true|false} or {"op": "fill_holes"}; EditError names
    the edit at fault ("edit 3: ...")."""
    out = _check_mask(mask)
    if not isinstance(ops, (list, tuple)) or len(ops) > MAX_OPS:
        raise EditError(f"edits must be a list of at most {MAX_OPS} edits")
    if sum(len(op.get("points") or []) for op in ops if isinstance(op, Mapping)) > MAX_POINTS:
        raise EditError(f"edits hold more than {MAX_POINTS} points in all")
    for index, op in enumerate(ops):
        where = f"edit {index}"
        kind = op.get("op") if isinstance(op, Mapping) else None
        try:
            if kind in ("brush", "erase"):
                radius = op.get("radius")
                if isinstance(radius, bool):
                    raise EditError(f"brush size must be a number, got {radius!r}")
                points = _points(op.get("points"), where, least=1)
                out = (brush if kind == "brush" else erase)(out, points, radius=radius)
            elif kind == "polygon":
                out = polygon(out, _points(op.get("points"), where, least=3), add=op.get("add", True) is not False)
            elif kind == "fill_holes":
                out = fill_holes(out)
            else:
                raise EditError(f"unknown edit {kind!r} (brush, erase, polygon, fill_holes)")
        except EditError as exc:
            message = str(exc)
            raise EditError(message if message.startswith(where) else f"{where} ({kind}): {message}") from None
    return out


def first_difference(a: np.ndarray, b: np.ndarray) -> tuple[int, tuple[int, int]] | None:
    """(pixels that differ, (x, y) of the first in row order) between two masks of one size, or None if equal."""
    differ = np.asarray(a, bool) != np.asarray(b, bool)
    if not differ.any():
        return None
    y, x = divmod(int(np.flatnonzero(differ)[0]), differ.shape[1])
    return int(differ.sum()), (x, y)
