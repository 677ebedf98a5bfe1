"""Quality control figures: an annotator's answer against a gold item (honeypots), and an annotator's mask against
a fresh model proposal from the same prompts (consensus).

Rules (ours, after CVAT's ground-truth jobs): masks are compared with annotation/core/agreement.py (one-to-one
matching by IoU, pycocotools); labels agree when every text field is equal after case folding, whitespace
collapsing and dropping a final full stop, and the count and the feasibility are equal. A consensus check flags
an instance whose IoU with the proposal is below the threshold.
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.core import agreement
from annotation.core import rle as rle_utils

DEFAULT_CONSENSUS_MIN_IOU = 0.8


@dataclass(frozen=True)
class GoldAgreement:
    mean_iou: float  # over matched instances of the scored layers (agreement.match_instances)
    f1: float
    union_iou: float
    labels_match: bool
    mismatches: tuple[str, ...]  # the fields that differ (text fields, count, placement_feasible)


def _text(value: Any) -> str:
    text = re.sub(r"\s+", " ", str(value or "")).strip().casefold()
    return text[:-1].rstrip() if text.endswith(".") else text


def gold_agreement(
    gold: Mapping[str, Any], answer: Mapping[str, Any], *, scored_masklets: Sequence[str],
    text_fields: Sequence[str], count_field: str | None, has_feasibility: bool,
) -> GoldAgreement:
    """`gold` and `answer` are item snapshots ({texts, count, placement_feasible, instances})."""
    ious, f1s, unions = [], [], []
    for name in scored_masklets:
        result = agreement.match_instances((gold.get("instances") or {}).get(name, []),
                                           (answer.get("instances") or {}).get(name, []))
        ious.append(result.mean_iou)
        f1s.append(result.f1)
        unions.append(result.union_iou)
    mismatches = [f for f in text_fields
                  if _text((gold.get("texts") or {}).get(f)) != _text((answer.get("texts") or {}).get(f))]
    if count_field and gold.get("count") != answer.get("count"):
        mismatches.append(count_field)
    if has_feasibility and gold.get("placement_feasible") != answer.get("placement_feasible"):
        mismatches.append("placement_feasible")
    n = max(1, len(ious))
    return GoldAgreement(sum(ious) / n if ious else 1.0, sum(f1s) / n if f1s else 1.0,
                         sum(unions) / n if unions else 1.0, not mismatches, tuple(mismatches))


@dataclass(frozen=True)
class GoldRow:
    annotator: str
    mean_iou: float
    f1: float
    labels_match: bool


@dataclass(frozen=True)
class GoldSummary:
    annotator: str
    honeypots: int
    mean_iou: float
    mean_f1: float
    labels_share: float  # share of honeypots whose labels all matched


def gold_summaries(rows: Iterable[GoldRow]) -> dict[str, GoldSummary]:
    """Per annotator, sorted by name: how many honeypots they answered and their mean agreement with gold."""
    by: dict[str, list[GoldRow]] = defaultdict(list)
    for row in rows:
        by[row.annotator].append(row)
    return {
        name: GoldSummary(name, len(rs), sum(r.mean_iou for r in rs) / len(rs), sum(r.f1 for r in rs) / len(rs),
                          sum(r.labels_match for r in rs) / len(rs))
        for name, rs in sorted(by.items())
    }


@dataclass(frozen=True)
class ConsensusResult:
    iou: float
    proposal: dict[str, Any]  # the RLE compared with
    proposal_index: int
    flagged: bool


def consensus_compare(
    mask: Mapping[str, Any], proposals: Sequence[Mapping[str, Any]], *, pick: int, min_iou: float,
) -> ConsensusResult:
    """The annotator's mask against the proposal in the place the annotator took (`pick`; the best-scored one
    when there are fewer now), flagged below `min_iou`."""
    if not 0.0 < min_iou <= 1.0:
        raise ValueError(f"min_iou must be in (0, 1], got {min_iou}")
    if not proposals:
        raise ValueError("no proposal to compare with")
    index = pick if 0 <= pick < len(proposals) else 0
    iou = rle_utils.iou(mask, proposals[index])
    return ConsensusResult(float(iou), dict(proposals[index]), index, iou < min_iou)
