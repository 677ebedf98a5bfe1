"""Dense (decoded) reference geometry, written the slow, obvious way: the test oracle for the fast paths.

Rules: the formulas of spec sections 5.1 and 5.3 over every pixel, with no sampling; used only to check
scoring.benchmarks.epic.core.geometry, never on the scoring path.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import ndimage


def dense_iou(pred: np.ndarray, gt: np.ndarray) -> float:
    inter = int(np.logical_and(pred > 0, gt > 0).sum())
    union = int(np.logical_or(pred > 0, gt > 0).sum())
    return 1.0 if union == 0 else float(inter) / float(union)


def dense_point_distance(point: tuple[float, float], mask: np.ndarray) -> float:
    ys, xs = np.nonzero(mask)
    if ys.size == 0:
        return math.inf
    px, py = point
    row, col = int(round(py)), int(round(px))
    h, w = mask.shape
    if 0 <= row < h and 0 <= col < w and mask[row, col]:
        return 0.0
    return float(np.min(np.sqrt((xs - px) ** 2 + (ys - py) ** 2)))


def dense_pair_distance(a: np.ndarray, b: np.ndarray) -> float:
    ya, xa = np.nonzero(a)
    yb, xb = np.nonzero(b)
    d = np.sqrt((xa[:, None] - xb[None, :]) ** 2 + (ya[:, None] - yb[None, :]) ** 2)
    return float(d.min())


def dense_split(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    labels, n = ndimage.label(mask > 0)
    if n < 2:
        return None
    cents = []
    for i in range(1, n + 1):
        ys, xs = np.nonzero(labels == i)
        cents.append((float(np.mean(xs)), float(np.mean(ys))))
    s1, s2, best = 0, 1, -1.0
    for i in range(n):
        for j in range(i + 1, n):
            d = (cents[i][0] - cents[j][0]) ** 2 + (cents[i][1] - cents[j][1]) ** 2
            if d > best:
                best, s1, s2 = d, i, j
    r1 = np.zeros(mask.shape, np.uint8)
    r2 = np.zeros(mask.shape, np.uint8)
    for i, c in enumerate(cents):
        d1 = (c[0] - cents[s1][0]) ** 2 + (c[1] - cents[s1][1]) ** 2
        d2 = (c[0] - cents[s2][0]) ** 2 + (c[1] - cents[s2][1]) ** 2
        (r1 if d1 <= d2 else r2)[labels == i + 1] = 1
    if not r1.any() or not r2.any():
        return None
    return r1, r2
