"""Annotation quality of devices (ours): how well two annotators' boxes of the same component on the same view
agree, as intersection over union. The paper lists annotation quality among its measures without a formula; this is
the hub's reading, labelled "ours" wherever it is shown."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def box_iou(a: Sequence[int], b: Sequence[int]) -> float:
    """IoU of two [x1, y1, x2, y2] boxes (areas as (x2 - x1)(y2 - y1), as the engine measures them)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    inter = max(0, w) * max(0, h)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


@dataclass(frozen=True)
class BoxPair:
    component: str
    view: str
    first: str  # annotator names
    second: str
    iou: float


@dataclass(frozen=True)
class Agreement:
    pairs: tuple[BoxPair, ...]

    @property
    def mean_iou(self) -> float | None:
        return sum(p.iou for p in self.pairs) / len(self.pairs) if self.pairs else None

    def share_at(self, threshold: float = 0.5) -> float | None:
        """Share of the doubly-annotated boxes whose IoU reaches `threshold`."""
        return sum(p.iou >= threshold for p in self.pairs) / len(self.pairs) if self.pairs else None


def box_agreement(boxes: Iterable[tuple[str, str, str, Sequence[int]]]) -> Agreement:
    """(component, view, annotator, box) in the order they were drawn: each annotator's last box counts; every
    (component, view) that two annotators drew gives one pair (the first two annotators in name order)."""
    latest: dict[tuple[str, str], dict[str, Sequence[int]]] = {}
    for component, view, annotator, box in boxes:
        latest.setdefault((component, view), {})[annotator] = box
    pairs = []
    for (component, view), by in sorted(latest.items()):
        if len(by) >= 2:
            first, second = sorted(by)[:2]
            pairs.append(BoxPair(component, view, first, second, box_iou(by[first], by[second])))
    return Agreement(tuple(pairs))
