"""Drill-down overlays for EPIC-Bench samples: the image with the GT mask, predicted boxes and path points.

Masks arrive as COCO RLE dicts and are decoded with pycocotools; drawing uses OpenCV; the result is PNG bytes.
Coordinates passed in are pixels. The caller decides whether ground truth may be drawn at all.
`EpicSampleDetails` is the typed reading of a scored sample's details the drill-down draws from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import cv2
import numpy as np
from pycocotools import mask as mask_utils

GT_COLOUR = (60, 180, 75)  # BGR green
BOX_COLOUR = (40, 40, 220)  # BGR red
POINT_COLOUR = (220, 120, 20)  # BGR blue
MAX_SIDE = 1024
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


def decode_rle(rle: Mapping[str, Any]) -> np.ndarray:
    """A COCO RLE (counts as a string or a list) to an H x W bool array."""
    size = [int(v) for v in rle["size"]]
    counts = rle["counts"]
    if isinstance(counts, list):
        encoded = mask_utils.frPyObjects({"size": size, "counts": counts}, size[0], size[1])
    else:
        encoded = {"size": size, "counts": counts.encode("ascii") if isinstance(counts, str) else counts}
    return mask_utils.decode(encoded).astype(bool)


def find_rles(value: Any, *, limit: int = 64) -> list[Mapping[str, Any]]:
    """Every RLE-shaped dict ({"size": [h, w], "counts": ...}) found anywhere in a JSON value."""
    found: list[Mapping[str, Any]] = []

    def walk(v: Any) -> None:
        if len(found) >= limit:
            return
        if isinstance(v, Mapping):
            if "size" in v and "counts" in v and isinstance(v["size"], (list, tuple)) and len(v["size"]) == 2:
                found.append(v)
                return
            for item in v.values():
                walk(item)
        elif isinstance(v, (list, tuple)):
            for item in v:
                walk(item)

    walk(value)
    return found


def _numbers(v: Any, n: int) -> bool:
    return isinstance(v, (list, tuple)) and len(v) == n and all(isinstance(x, (int, float)) for x in v)


def find_shapes(details: Any, *, keys: Iterable[str], arity: int) -> list[tuple[float, ...]]:
    """Lists of n-number lists stored under any of `keys` anywhere in a JSON value (first match wins)."""
    wanted = set(keys)

    def walk(v: Any) -> list[tuple[float, ...]] | None:
        if isinstance(v, Mapping):
            for k, item in v.items():
                if k in wanted and isinstance(item, (list, tuple)) and item and all(_numbers(x, arity) for x in item):
                    return [tuple(float(c) for c in x) for x in item]
            for item in v.values():
                if (got := walk(item)) is not None:
                    return got
        elif isinstance(v, (list, tuple)):
            for item in v:
                if isinstance(item, (Mapping, list, tuple)) and (got := walk(item)) is not None:
                    return got
        return None

    return walk(details) or []


def render_overlay(
    image: np.ndarray | None,
    *,
    masks: Sequence[np.ndarray] = (),
    boxes: Sequence[Sequence[float]] = (),
    points: Sequence[Sequence[float]] = (),
    size: tuple[int, int] | None = None,
) -> bytes:
    """PNG bytes: the image (or a grey canvas of `size` = (h, w)) with masks tinted, boxes and points drawn."""
    canvas: np.ndarray
    if image is None:
        h, w = size or (masks[0].shape if masks else (480, 640))
        canvas = np.full((h, w, 3), 235, dtype=np.uint8)
    else:
        canvas = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    h, w = canvas.shape[:2]
    for mask in masks:
        if mask.shape != (h, w):
            mask = cv2.resize(mask.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)
        tint = np.zeros_like(canvas)
        tint[:] = GT_COLOUR
        canvas[mask] = (0.55 * canvas[mask] + 0.45 * tint[mask]).astype(np.uint8)
        contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(canvas, contours, -1, GT_COLOUR, 2)
    thickness = max(2, round(max(h, w) / 400))
    for box in boxes:
        x1, y1, x2, y2 = (int(round(v)) for v in box[:4])
        cv2.rectangle(canvas, (x1, y1), (x2, y2), BOX_COLOUR, thickness)
    previous = None
    for i, point in enumerate(points):
        p = (int(round(point[0])), int(round(point[1])))
        if previous is not None:
            cv2.line(canvas, previous, p, POINT_COLOUR, thickness)
        cv2.circle(canvas, p, thickness * 3, POINT_COLOUR, -1)
        cv2.putText(canvas, str(i + 1), (p[0] + 6, p[1] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, POINT_COLOUR, 1)
        previous = p
    scale = MAX_SIDE / max(h, w)
    if scale < 1:
        canvas = cv2.resize(canvas, (int(w * scale), int(h * scale)), interpolation=cv2.INTER_AREA)
    ok, png = cv2.imencode(".png", canvas)
    if not ok:
        raise ValueError("could not encode the overlay as PNG")
    return png.tobytes()


@dataclass(frozen=True)
class EpicSampleDetails:
    """What the drill-down draws of a scored EPIC sample: only shapes the scorer stored in pixels (raw boxes may be
    in 0-1 or 0-1000 coordinates), found at any depth of its details."""

    boxes: tuple[tuple[float, ...], ...] = ()
    points: tuple[tuple[float, ...], ...] = ()

    @classmethod
    def from_details(cls, details: Mapping[str, Any]) -> "EpicSampleDetails":
        return cls(boxes=tuple(find_shapes(details, keys=("boxes_px", "pred_boxes_px"), arity=4)),
                   points=tuple(find_shapes(details, keys=("points_px", "path_points_px"), arity=2)))


def image_names(inputs: Any) -> list[str]:
    """Every string of a sample's inputs (at any depth) that names an image file, in order."""
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str) and v.lower().endswith(IMAGE_SUFFIXES):
            found.append(v)
        elif isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(inputs)
    return found


def legend(*, ground_truth: bool) -> list[tuple[str, str]]:
    """The overlay's colours as (CSS colour, meaning), from the colours it is drawn with."""
    def css(bgr: tuple[int, int, int]) -> str:
        return f"#{bgr[2]:02x}{bgr[1]:02x}{bgr[0]:02x}"

    entries = [(css(BOX_COLOUR), "predicted boxes"), (css(POINT_COLOUR), "predicted path points")]
    if ground_truth:
        entries.insert(0, (css(GT_COLOUR), "ground-truth mask"))
    return entries
