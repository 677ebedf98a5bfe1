"""EPIC-Bench metrics: localization IoU, count, binary (feasibility), path score, and the per-task weights.

Rules: spec sections 5.1-5.3, branch for branch and in the same floating-point order as the reference, so
scores agree to well under 1e-9. Each metric returns a `Metric`: its score, the reference's error text, and
whether that error is the ground truth's fault (deviation B5) rather than the model's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Generator, Mapping, Sequence

import numpy as np

from . import fields as F
from .geometry import PixelLookup, Region, RleMask, iou, region_of, split_two_regions, union_of_instances

NVR_ERROR = "No Valid Response"
NO_POINTS_ERROR = "No path points parsed"
PRED_COUNT_MISSING = "Missing pred_count: the answer gives no count"
PRED_BINARY_MISSING = "Missing pred_binary: the answer gives no yes or no"


@dataclass(frozen=True)
class Metric:
    score: float
    error: str | None = None
    gt_error: bool = False
    details: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BoxesIoU:
    """What a localization asks of its caller: the IoU of these pixel boxes with this mask (geometry.boxes_iou),
    so that a caller scoring many samples computes all their IoUs in one batch (geometry.boxes_ious)."""

    boxes: Sequence[tuple[int, int, int, int]]
    mask: RleMask


def _is_empty_gt(value: Any) -> bool:
    return value is None or (isinstance(value, (list, dict)) and len(value) == 0)


MAX_SHOWN = 200  # boxes or points kept in a sample's details for display


def localization(
    value: Any, gt_value: Any, *, format_type: Any, mode: str, gt_count: int | None, compat: bool
) -> Generator[BoxesIoU, float, Metric]:
    """IoU of the union of predicted boxes (or masks) with the union of GT instances (5.1, branches 1-7).

    A generator: predicted boxes against a GT mask yield one `BoxesIoU` and are sent its value; the Metric is
    the return value (`yield from`)."""
    found = F.sentinel(value, expects_list=True, compat=compat)
    if found is F.Sentinel.NOT_REQUIRED:
        return Metric(0.0, details={"message": "Not Required"})
    if found is F.Sentinel.NO_VALID_RESPONSE:
        return Metric(0.0, NVR_ERROR)
    gt_empty = _is_empty_gt(gt_value) or (gt_count is not None and int(gt_count) == 0)
    gt_mask = None
    if not gt_empty:
        gt_mask, problems = union_of_instances(gt_value)
        if gt_mask is None:
            return Metric(0.0, "Failed to decode GT mask or GT mask is missing", gt_error=True,
                          details={"gt_problems": problems})
    height, width = (gt_mask.height, gt_mask.width) if gt_mask is not None else (1, 1)

    if format_type == "mask":
        if value == [] or value == {}:
            return Metric(1.0 if gt_empty else 0.0, details={"iou": 1.0 if gt_empty else 0.0, "pred_empty": True})
        pred_mask, _ = union_of_instances(value) if isinstance(value, (list, dict)) else (None, [])
        if pred_mask is None:
            return Metric(0.0, "Failed to decode predicted mask response")
        if pred_mask.area == 0:
            return Metric(1.0 if gt_empty else 0.0, details={"iou": 1.0 if gt_empty else 0.0, "pred_empty": True})
        if gt_mask is None:
            return Metric(0.0, details={"iou": 0.0})
        if (pred_mask.height, pred_mask.width) != (height, width):
            return Metric(0.0, "Pred mask shape does not match GT mask shape",
                          details={"pred_shape": [pred_mask.height, pred_mask.width], "gt_shape": [height, width]})
        score = iou(pred_mask, gt_mask)
        return Metric(score, details={"iou": score})

    boxes, notes = F.read_boxes(value)
    flat = [v for b in boxes for v in b]
    actual = F.detect_mode(flat, height, width, mode)
    base = {"coordinate_system": actual, "pred_boxes": len(boxes), "gt_empty": gt_empty}
    if boxes and gt_mask is not None:
        # For the Analysis tab: boxes reaching outside the image once scaled, and a declared coordinate system
        # that the values themselves contradict (auto-detection would have read them otherwise).
        base["boxes_off_image"] = F.boxes_off_image(boxes, height, width, actual)  # the mode detected once
        base["coordinate_system_mismatch"] = mode != F.AUTO and F.detect_mode(flat, height, width, F.AUTO) != mode
    if not boxes:
        score = 1.0 if gt_empty else 0.0
        return Metric(score, details={**base, "iou": score, "pred_empty": True}, notes=tuple(notes))
    if gt_mask is None:
        return Metric(0.0, details={**base, "iou": 0.0}, notes=tuple(notes))
    pixels = F.boxes_to_pixels(boxes, height, width, actual)
    score = yield BoxesIoU(pixels, gt_mask)
    # The boxes as scored, in pixels, for the drill-down overlay (bounded: a runaway answer stays small).
    shown = [list(b) for b in pixels[:MAX_SHOWN]]
    return Metric(score, details={**base, "iou": score, "boxes_px": shown}, notes=tuple(notes))


def count(value: Any, *, gt_count: int | None, precise: bool, in_description: bool, compat: bool) -> Metric:
    """Exact (0/1) when precise or stated in the description, else 1 - min(1, |g - p| / g) (5.2)."""
    exact = bool(precise) or bool(in_description)
    found = F.sentinel(value, expects_list=False, compat=compat)
    if found is F.Sentinel.NOT_REQUIRED:
        return Metric(0.0, details={"message": "Not Required"})
    if found is F.Sentinel.NO_VALID_RESPONSE:
        # gt_count kept so an invalid answer still counts in its true-count bucket (Analysis tab).
        return Metric(0.0, NVR_ERROR, details={"pred_count": None, "gt_count": gt_count, "exact": exact})
    pred = F.pred_count(value)
    details = {"pred_count": pred, "gt_count": gt_count, "exact": exact}
    if pred is None:
        # The toolkit says "Missing pred_count or gt_count" here; the answer alone is at fault, and a page of a split
        # with hidden ground truth must not suggest anything of the GT ("Missing" still marks it invalid).
        return Metric(0.0, PRED_COUNT_MISSING, details=details)
    if gt_count is None:
        text = "Missing pred_count or gt_count" if compat else "GT data error: the ground truth has no count"
        return Metric(0.0, text, gt_error=True, details=details)
    if exact:
        return Metric(1.0 if int(pred) == int(gt_count) else 0.0, details=details)
    gt = int(gt_count)
    if gt <= 0:
        return Metric(1.0 if int(pred) == 0 else 0.0, details=details)
    ratio = abs(gt - int(pred)) / float(max(1, gt))
    return Metric(float(max(0.0, 1.0 - min(1.0, ratio))), details=details)


def binary(value: Any, *, gt_value: bool | None, compat: bool) -> Metric:
    """1 if the predicted feasibility equals the GT's, else 0 (5.2)."""
    found = F.sentinel(value, expects_list=False, compat=compat)
    if found is F.Sentinel.NOT_REQUIRED:
        return Metric(0.0, details={"message": "Not Required"})
    if found is F.Sentinel.NO_VALID_RESPONSE:
        return Metric(0.0, NVR_ERROR)
    pred = F.pred_binary(value)
    details = {"pred": pred, "gt": gt_value}
    if pred is None:
        return Metric(0.0, PRED_BINARY_MISSING, details=details)
    if gt_value is None:
        text = "Missing pred_binary or gt_binary" if compat else "GT data error: the ground truth has no feasibility"
        return Metric(0.0, text, gt_error=True, details=details)
    return Metric(1.0 if bool(pred) == bool(gt_value) else 0.0, details=details)


def tl_weights(precise: bool, in_description: bool) -> tuple[float, float]:
    """(w_loc, w_count) for TL and CR: 0.1 if the count is in the description, else 0.5 if precise, else 0.3."""
    w_count = 0.1 if in_description else (0.5 if precise else 0.3)
    return 1.0 - w_count, w_count


# ---------------------------------------------------------------------------------------------------------
# Path (5.3)
# ---------------------------------------------------------------------------------------------------------
_W_FIRST = (1.0, 0.0, 0.0, 0.0, 0.0)
_W_MIDDLE = (0.0, 0.4, 0.2, 0.2, 0.2)
_W_LAST = (0.3, 0.4, 0.1, 0.1, 0.1)
_K = 3.0
_NEAR_RATIO = 1.0 / 30.0
_MAX_RATIO = 2.0 / 3.0
_SEGMENT_SAMPLES = 50
_T = (np.arange(_SEGMENT_SAMPLES) + 0.5) / _SEGMENT_SAMPLES


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


def _keep_apart(points: list[tuple[float, float]], near: float) -> list[tuple[float, float]]:
    kept = points[:1]
    for p in points[1:]:
        if _dist(kept[-1], p) >= near:
            kept.append(p)
    return kept


def _feasibility(points: list[tuple[float, float]], lookup: PixelLookup) -> list[float]:
    """Per segment, the share of 50 evenly spaced samples whose rounded pixel is on the feasible area."""
    if len(points) < 2:
        return []
    p = np.asarray(points, dtype=np.float64)
    a, b = p[:-1, None, :], p[1:, None, :]
    t = _T[None, :, None]
    xy = a * (1 - t) + b * t
    cols = np.rint(xy[..., 0]).astype(np.int64)  # rint rounds half to even, like Python's round
    rows = np.rint(xy[..., 1]).astype(np.int64)
    inside = lookup.contains(rows.ravel(), cols.ravel()).reshape(rows.shape)
    return [float(v) for v in inside.sum(axis=1) / _SEGMENT_SAMPLES]


def path(
    value: Any, path_gt: Any, target_gt: Any, *, exo: bool, mode: str, compat: bool
) -> Metric:
    """Path score: mean over kept points of weighted start/end, feasibility, away, toward and continuity terms."""
    found = F.sentinel(value, expects_list=True, compat=compat)
    if found is F.Sentinel.NOT_REQUIRED:
        return Metric(0.0, details={"message": "Not Required"})
    if found is F.Sentinel.NO_VALID_RESPONSE:
        return Metric(0.0, NVR_ERROR)
    feasible, problems = union_of_instances(path_gt)
    if feasible is None:
        return Metric(0.0, "Failed to decode feasible area mask (masklet_path) or mask is missing", gt_error=True,
                      details={"gt_problems": problems})
    height, width = feasible.height, feasible.width
    raw_points, notes = F.read_points(value)
    if not raw_points:
        return Metric(0.0, NO_POINTS_ERROR, details={"coordinate_system": F.detect_mode([], height, width, mode)},
                      notes=tuple(notes))
    actual = F.detect_mode([v for p in raw_points for v in p], height, width, mode)
    points = _keep_apart(F.points_to_pixels(raw_points, height, width, actual), (height**2 + width**2) ** 0.5 * _NEAR_RATIO)
    base: dict[str, Any] = {"coordinate_system": actual, "points_before_filter": len(raw_points),
                            "points_after_filter": len(points),
                            "points_px": [[round(x, 1), round(y, 1)] for x, y in points[:MAX_SHOWN]]}
    if len(points) < 2:
        return Metric(0.0, details={**base, "message": "Fewer than 2 points; score is undefined"}, notes=tuple(notes))

    target_mask, _ = union_of_instances(target_gt)
    start_point = (width / 2.0, float(height - 1))
    start: Region | None = None
    end: Region | None = None
    n = len(points)
    # Each region's distances to the points are computed once, in one call (with the start point where it is needed).
    to_start = [_dist(p, start_point) for p in points]
    to_end = [math.inf] * n
    d_se = math.inf
    if target_mask is not None:
        end = region_of(target_mask)
        first_region, second_region = split_two_regions(end) if exo else (end, None)
        if second_region is not None:
            to_first, to_second = first_region.distances(points), second_region.distances(points)
            if to_first[0] <= to_second[0]:
                start, end, to_start, to_end = first_region, second_region, to_first, to_second
            else:
                start, end, to_start, to_end = second_region, first_region, to_second, to_first
            d_se = start.min_distance_to(end)
        else:
            *to_end, d_se = end.distances([*points, start_point])

    diag = (height**2 + width**2) ** 0.5
    if d_se == math.inf or d_se <= 0:
        if start is not None:
            cy, cx = start.centroid()
            sp = (cx, cy)
        else:
            sp = start_point
        if end is not None:
            cy, cx = end.centroid()
            ep = (cx, cy)
        else:
            ep = (width / 2.0, height / 2.0)
        d_se = _dist(sp, ep)
    near = diag * _NEAR_RATIO
    longest = d_se * _MAX_RATIO if d_se > 0 else diag

    se_first = max(0.0, 1.0 - _K * (to_start[0] / diag if diag > 0 else 0.0))
    se_last = max(0.0, 1.0 - _K * (to_end[-1] / diag if diag > 0 else 0.0))
    feasibility = [0.0] + _feasibility(points, PixelLookup(feasible))

    point_scores: list[float] = []
    for i in range(n):
        if i == 0:
            point_scores.append(se_first)  # weights (1, 0, 0, 0, 0): the score is the start term alone
            continue
        last = i == n - 1
        w_se, w_fea, w_away, w_toward, w_cont = _W_LAST if last else _W_MIDDLE
        away = 1.0 if to_start[i] > to_start[i - 1] else 0.0
        toward = 1.0 if to_end[i] < to_end[i - 1] else 0.0
        total = 0.0
        weight = 0.0
        if last:
            total += w_se * se_last
            weight += w_se
        total += w_fea * feasibility[i]
        weight += w_fea
        total += w_away * away + w_toward * toward
        weight += w_away + w_toward
        if not last or n >= 3:
            segment = _dist(points[i - 1], points[i])
            total += w_cont * (1.0 if near <= segment <= longest else 0.0)
            weight += w_cont
        point_scores.append(total / weight if weight > 0 else 0.0)
    score = sum(point_scores) / n
    details = {**base, "start_goal_distance": d_se, "max_segment": longest, "point_scores": point_scores,
               "start_end": (se_first + se_last) / 2.0,
               "feasibility": sum(feasibility) / max(1, n - 1)}
    return Metric(float(score), details=details, notes=tuple(notes))
