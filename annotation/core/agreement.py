"""Agreement between two annotations of one item: instance matching by IoU, and count agreement.

Rules: instances are matched one-to-one by maximising total IoU (scipy's linear_sum_assignment); a pair
counts as matched only at or above the IoU threshold. Two empty annotations agree perfectly.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from annotation.core import rle as rle_utils


@dataclass(frozen=True)
class Match:
    a: int
    b: int
    iou: float


@dataclass(frozen=True)
class InstanceAgreement:
    matches: tuple[Match, ...]
    unmatched_a: tuple[int, ...]
    unmatched_b: tuple[int, ...]
    mean_iou: float  # over matched pairs; 1.0 when both sides are empty, 0.0 when nothing matched
    f1: float  # 2 * matched / (len(a) + len(b))
    union_iou: float  # IoU of the two unions (what the scorer compares)


@dataclass(frozen=True)
class CountAgreement:
    a: int | None
    b: int | None
    equal: bool
    difference: int | None


def match_instances(
    a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]], *, iou_threshold: float = 0.5
) -> InstanceAgreement:
    if not 0.0 < iou_threshold <= 1.0:
        raise ValueError(f"iou_threshold must be in (0, 1], got {iou_threshold}")
    if not a and not b:
        return InstanceAgreement((), (), (), 1.0, 1.0, 1.0)
    sizes = {rle_utils.size_of(r) for r in list(a) + list(b)}
    if len(sizes) != 1:
        raise rle_utils.RleError(f"annotations have masks of different sizes: {sorted(sizes)}")
    size = sizes.pop()
    union_iou = rle_utils.iou(rle_utils.merge(a, size=size), rle_utils.merge(b, size=size))
    if not a or not b:
        return InstanceAgreement((), tuple(range(len(a))), tuple(range(len(b))), 0.0, 0.0, union_iou)
    ious = rle_utils.iou_matrix(a, b)
    rows, cols = linear_sum_assignment(-ious)
    matches = tuple(
        Match(int(r), int(c), float(ious[r, c])) for r, c in zip(rows, cols) if ious[r, c] >= iou_threshold
    )
    matched_a = {m.a for m in matches}
    matched_b = {m.b for m in matches}
    mean_iou = float(np.mean([m.iou for m in matches])) if matches else 0.0
    f1 = 2 * len(matches) / (len(a) + len(b))
    return InstanceAgreement(
        matches,
        tuple(i for i in range(len(a)) if i not in matched_a),
        tuple(j for j in range(len(b)) if j not in matched_b),
        mean_iou,
        f1,
        union_iou,
    )


def count_agreement(a: int | None, b: int | None) -> CountAgreement:
    if a is None or b is None:
        return CountAgreement(a, b, a == b, None)
    return CountAgreement(a, b, a == b, abs(a - b))
