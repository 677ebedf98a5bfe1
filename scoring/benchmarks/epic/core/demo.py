"""Deterministic synthetic EPIC-style scenes with exact per-instance masks, for demos, tests and benchmarks.

Rules: everything follows from the seed (numpy Generator passed in or built from it); masks are drawn with
OpenCV, stored as COCO RLE in the toolkit's GT schema, laid out as spec section 1 (`EPIC_Bench/...`).
Responses (oracle / noisy / random) are raw model answers in the prompts' JSON shape, absolute pixels.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np
from pycocotools import mask as mask_utils

from .taxonomy import LEAVES, Leaf

COLORS = {"red": (40, 40, 220), "green": (60, 170, 60), "blue": (200, 90, 40), "yellow": (40, 210, 230),
          "purple": (160, 60, 150), "orange": (30, 140, 250)}
SHAPES = ("box", "ball", "bottle", "book", "mug")


@dataclass(frozen=True)
class DemoSample:
    leaf: Leaf
    folder: str                      # relative to the EPIC_Bench parent
    gt_name: str
    gt: dict[str, Any]
    image_names: tuple[str, ...]     # files fed to the model, in order (inside `folder`)
    height: int
    width: int
    truth: dict[str, Any] = field(default_factory=dict)  # what a perfect model would answer
    images: dict[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> str:
        return f"{self.folder}/{self.gt_name}"

    @property
    def image_paths(self) -> list[str]:
        return [f"{self.folder}/{name}" for name in self.image_names]


def encode(mask: np.ndarray) -> dict[str, Any]:
    out = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(mask.shape[0]), int(mask.shape[1])], "counts": out["counts"].decode("ascii")}


def _blob(rng: np.random.Generator, h: int, w: int, center: tuple[float, float], radius: float) -> np.ndarray:
    """A filled irregular polygon (ellipse-like, jagged edges): realistic run-length structure."""
    n = int(rng.integers(8, 20))
    angles = np.sort(rng.uniform(0, 2 * np.pi, n))
    radii = radius * rng.uniform(0.6, 1.0, n)
    stretch = rng.uniform(0.6, 1.4)
    pts = np.stack([center[0] + radii * np.cos(angles) * stretch, center[1] + radii * np.sin(angles) / stretch], 1)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 1)
    return mask


def _bbox(mask: np.ndarray) -> list[int]:
    ys, xs = np.nonzero(mask)
    return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]


def _scene(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    top = rng.integers(120, 230, 3)
    bottom = rng.integers(60, 160, 3)
    t = np.linspace(0, 1, h)[:, None, None]
    img = (top[None, None, :] * (1 - t) + bottom[None, None, :] * t).astype(np.uint8)
    return np.ascontiguousarray(np.broadcast_to(img, (h, w, 3)))


def _paint(img: np.ndarray, mask: np.ndarray, color: Sequence[int]) -> None:
    img[mask.astype(bool)] = color


def _overlay(img: np.ndarray, mask: np.ndarray) -> np.ndarray:
    out = img.copy()
    sel = mask.astype(bool)
    out[sel] = (0.5 * out[sel] + 0.5 * np.array([0, 255, 0])).astype(np.uint8)
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(out, contours, -1, (0, 255, 0), 2)
    return out


def _objects(rng: np.random.Generator, h: int, w: int, n: int, area: tuple[float, float] = (0.0, 0.62)) -> list[np.ndarray]:
    """n non-overlapping blobs inside the given vertical band."""
    masks: list[np.ndarray] = []
    taken = np.zeros((h, w), np.uint8)
    tries = 0
    while len(masks) < n and tries < 200:
        tries += 1
        r = float(rng.uniform(0.05, 0.12) * min(h, w))
        c = (float(rng.uniform(r, w - r)), float(rng.uniform(h * area[0] + r, h * area[1] - r)))
        m = _blob(rng, h, w, c, r)
        if m.any() and not (m & taken).any():
            masks.append(m)
            taken |= m
    return masks


def make_sample(leaf: Leaf, index: int, rng: np.random.Generator, size: tuple[int, int] = (480, 640),
                with_images: bool = True) -> DemoSample:
    h, w = size
    name = f"{leaf.name.lower()}_{index:04d}"
    folder = f"EPIC_Bench/{leaf.by_type}/{name}"
    img = _scene(rng, h, w) if with_images else np.zeros((1, 1, 3), np.uint8)
    color = str(rng.choice(list(COLORS)))
    shape = str(rng.choice(SHAPES))
    images: dict[str, np.ndarray] = {}
    truth: dict[str, Any] = {}
    text: dict[str, Any] = {}
    masks: dict[str, list[dict[str, Any]]] = {}
    fam = leaf.group_code
    if leaf.category == "TargetLocalization" or fam in ("CR",):
        n = int(rng.choice([0, 1, 1, 2, 2, 3])) if leaf.category == "TargetLocalization" else int(rng.integers(1, 3))
        objs = _objects(rng, h, w, n + 2)
        targets, others = objs[:n], objs[n:]
        n = len(targets)
        if with_images:
            for m in others:
                _paint(img, m, COLORS[str(rng.choice(list(COLORS)))])
            for m in targets:
                _paint(img, m, COLORS[color])
        precise = bool(rng.random() < 0.4)
        in_desc = bool(rng.random() < 0.3)
        boxes = [_bbox(m) for m in targets]
        truth.update(boxes=boxes, count=n)
        if fam == "CR":
            refs = _objects(rng, h, w, 1)
            ref_mask = refs[0] if refs else np.zeros((h, w), np.uint8)
            masks["masklet_reference_object"] = [encode(ref_mask)]
            masks["masklet_contact_target"] = [encode(m) for m in targets]
            text.update(text_label=[f"the {shape} on the table"], count_contact_target=[n], precise_count=[precise],
                        count_in_description=[in_desc])
            if with_images:
                images[f"{name}_reference_object_overlay.png"] = _overlay(img, ref_mask)
        else:
            words = {0: "no", 1: "one", 2: "two", 3: "three"}
            label = f"{'the ' + words[n] if in_desc else 'all the'} {color} {shape}s"
            text.update(text_label=[label], count_target_instance=[n], precise_count=[precise],
                        count_in_description=[in_desc])
            masks["masklet_target"] = [encode(m) for m in targets]
    elif fam == "GD":
        ground = np.zeros((h, w), np.uint8)
        pts = np.array([[0, h - 1], [w - 1, h - 1], [int(w * rng.uniform(0.6, 0.9)), int(h * 0.55)],
                        [int(w * rng.uniform(0.1, 0.4)), int(h * 0.55)]], np.int32)
        cv2.fillPoly(ground, [pts], 1)
        if with_images:
            _paint(img, ground, (90, 110, 120))
        masks["masklet_ground"] = [encode(ground)]
        text["scene_description_en"] = ["a synthetic room"]
        truth["boxes"] = [_bbox(ground)]
    elif fam == "FP":
        ground = np.zeros((h, w), np.uint8)
        cv2.fillPoly(ground, [np.array([[0, h - 1], [w - 1, h - 1], [int(w * 0.8), int(h * 0.45)],
                                        [int(w * 0.2), int(h * 0.45)]], np.int32)], 1)
        exo = leaf.name.endswith("Exo")
        r = 0.05 * min(h, w)
        if exo:
            a = _blob(rng, h, w, (w * rng.uniform(0.25, 0.4), h * rng.uniform(0.55, 0.7)), r)
            b = _blob(rng, h, w, (w * rng.uniform(0.6, 0.75), h * rng.uniform(0.75, 0.9)), r)
            target = ((a | b) & ground).astype(np.uint8)
            ends = [_centroid(a), _centroid(b)]
        else:
            target = (_blob(rng, h, w, (w * rng.uniform(0.3, 0.7), h * rng.uniform(0.5, 0.6)), r) & ground)
            ends = [(w / 2.0, float(h - 1)), _centroid(target)]
        if with_images:
            _paint(img, ground, (95, 115, 125))
            images[f"{name}_target_area_overlay.png"] = _overlay(img, target)
        masks["masklet_path"] = [encode(ground)]
        masks["masklet_target_area"] = [encode(target)]
        text.update(text_label=["the red mat22the door" if exo else "the red mat"], visually_blocked=[False])
        (x0, y0), (x1, y1) = ends
        truth["points"] = [[round(x0 + (x1 - x0) * t, 1), round(y0 + (y1 - y0) * t, 1)] for t in (0, 1 / 3, 2 / 3, 1)]
    elif fam == "VM":
        img_b = _scene(rng, h, w) if with_images else img
        ref = _objects(rng, h, w, 1)[0]
        n = int(rng.integers(1, 4))
        targets = _objects(rng, h, w, n)
        if with_images:
            _paint(img, ref, COLORS[color])
            for m in targets:
                _paint(img_b, m, COLORS[color])
            images[f"{name}_reference_area_overlay.png"] = _overlay(img, ref)
            images[f"{name}b_image.jpg"] = img_b
        precise = bool(rng.random() < 0.5)
        masks["masklet_reference_area"] = [encode(ref)]
        masks["masklet_matching_area"] = [encode(m) for m in targets]
        text.update(reference_area_description_en=[f"{color} {shape}s"], count_matching_area=[len(targets)],
                    precise_count=[precise])
        truth.update(boxes=[_bbox(m) for m in targets], count=len(targets))
    elif fam == "AR":
        ref = _objects(rng, h, w, 1)[0]
        ys, xs = np.nonzero(ref)
        part = ref.copy()
        part[:, : int(np.median(xs))] = 0
        if with_images:
            _paint(img, ref, COLORS[color])
            images[f"{name}_reference_area_overlay.png"] = _overlay(img, ref)
        masks["masklet_reference_area"] = [encode(ref)]
        masks["masklet_affordance_region"] = [encode(part)]
        text.update(text_label=[f"pick up the {shape}"], reference_object_description_en=[f"{color} {shape}"])
        truth["boxes"] = [_bbox(part)]
    else:  # PR
        objs = _objects(rng, h, w, 2)
        ref, region = objs[0], objs[1] if len(objs) > 1 else objs[0]
        feasible = bool(rng.random() < 0.6)
        if with_images:
            _paint(img, ref, COLORS[color])
            _paint(img, region, (180, 180, 180))
            images[f"{name}_reference_object_overlay.png"] = _overlay(img, ref)
        masks["masklet_reference_object"] = [encode(ref)]
        masks["masklet_placement_region"] = [encode(region)]
        text.update(reference_object_description_en=[f"a {color} {shape}"],
                    placement_region_description_en=["the grey shelf"], placement_feasible=[feasible])
        truth.update(boxes=[_bbox(region)], feasible=feasible)
    image_name = f"{name}_image.jpg"
    if with_images:
        images[image_name] = img
    order = [image_name] + [k for k in images if k.endswith("_overlay.png")] + [k for k in images if k == f"{name}b_image.jpg"]
    if fam == "VM":
        order = [image_name, f"{name}_reference_area_overlay.png", f"{name}b_image.jpg"]
        gt_name = f"{name}__{name}b_mask_rle.json"
        saved = [f"{folder}/{image_name}", f"{folder}/{name}b_image.jpg"]
    else:
        overlays = {"FP": "_target_area_overlay.png", "AR": "_reference_area_overlay.png",
                    "CR": "_reference_object_overlay.png", "PR": "_reference_object_overlay.png"}
        order = [image_name] + ([f"{name}{overlays[fam]}"] if fam in overlays else [])
        gt_name = f"{name}_mask_rle.json"
        saved = [f"{folder}/{image_name}"]
    gt = {"image_path_saved": saved, "text_annotation": text, "mask_annotation": masks}
    return DemoSample(leaf, folder, gt_name, gt, tuple(order), h, w, truth, images)


def _centroid(mask: np.ndarray) -> tuple[float, float]:
    ys, xs = np.nonzero(mask)
    return (float(xs.mean()), float(ys.mean())) if xs.size else (mask.shape[1] / 2.0, mask.shape[0] / 2.0)


def make_split(seed: int, per_leaf: int = 2, *, sizes: Sequence[tuple[int, int]] = ((480, 640),),
               counts: dict[str, int] | None = None, with_images: bool = True) -> list[DemoSample]:
    """`per_leaf` samples of each of the 23 leaves (or `counts[leaf name]`), in taxonomy order."""
    rng = np.random.default_rng(seed)
    out = []
    for leaf in LEAVES:
        for i in range((counts or {}).get(leaf.name, per_leaf)):
            size = sizes[int(rng.integers(len(sizes)))]
            out.append(make_sample(leaf, i, rng, size, with_images))
    return out


def write_layout(root: Path, samples: Sequence[DemoSample]) -> list[Path]:
    """Write images and GT JSON files under root (the parent of EPIC_Bench); returns the GT paths."""
    written = []
    for s in samples:
        folder = root / s.folder
        folder.mkdir(parents=True, exist_ok=True)
        for name, img in s.images.items():
            path = folder / name
            if not path.exists():
                cv2.imwrite(str(path), img)
        gt_path = folder / s.gt_name
        text = json.dumps(s.gt, ensure_ascii=False)
        if not gt_path.exists() or gt_path.read_text(encoding="utf-8") != text:
            gt_path.write_text(text, encoding="utf-8")
        written.append(gt_path)
    return written


# ---------------------------------------------------------------------------------------------------------
# Demo "models": raw responses in the prompts' shapes
# ---------------------------------------------------------------------------------------------------------


def _answer(sample: DemoSample, boxes: list[list[float]], count: int | None, points: list[list[float]] | None,
            feasible: bool | None) -> str:
    fam = sample.leaf.group_code

    def fmt(bs: Sequence[Sequence[float]]) -> str:
        return "[" + ", ".join("(" + ", ".join(f"{v:g}" for v in b) + ")" for b in bs) + "]"

    if fam == "FP":
        body = '{"points": ' + fmt(points or []) + "}"
    elif sample.leaf.category == "TargetLocalization":
        body = f'{{"number_of_objects": {count}, "bounding_boxes": {fmt(boxes)}}}'
    elif fam in ("VM", "CR"):
        body = f'{{"number_of_instances": {count}, "bounding_boxes": {fmt(boxes)}}}'
    elif fam == "PR":
        body = f'{{"bounding_boxes": {fmt(boxes)}, "placement_feasibility": {"true" if feasible else "false"}}}'
    else:
        body = f'{{"bounding_boxes": {fmt(boxes)}}}'
    return f"```json\n{body}\n```"


def oracle_response(sample: DemoSample) -> str:
    t = sample.truth
    return _answer(sample, t.get("boxes", []), t.get("count"), t.get("points"), t.get("feasible"))


def noisy_response(sample: DemoSample, rng: np.random.Generator) -> str:
    if rng.random() < 0.05:
        return "I cannot tell from this image."
    t = sample.truth
    h, w = sample.height, sample.width
    boxes = []
    for x1, y1, x2, y2 in t.get("boxes", []):
        dx, dy = 0.15 * (x2 - x1), 0.15 * (y2 - y1)
        boxes.append([round(float(np.clip(v + rng.normal(0, s), 0, lim)), 1)
                      for v, s, lim in ((x1, dx, w), (y1, dy, h), (x2, dx, w), (y2, dy, h))])
    count = t.get("count")
    if count is not None and rng.random() < 0.3:
        count = max(0, count + int(rng.choice([-1, 1])))
    points = [[round(float(np.clip(x + rng.normal(0, 0.03 * w), 0, w - 1)), 1),
               round(float(np.clip(y + rng.normal(0, 0.03 * h), 0, h - 1)), 1)] for x, y in t.get("points") or []]
    feasible = t.get("feasible")
    if feasible is not None and rng.random() < 0.25:
        feasible = not feasible
    return _answer(sample, boxes, count, points, feasible)


def random_response(sample: DemoSample, rng: np.random.Generator) -> str:
    h, w = sample.height, sample.width
    n = int(rng.integers(0, 3))
    boxes: list[list[float]] = []
    for _ in range(n):
        x = np.sort(rng.uniform(0, w, 2))
        y = np.sort(rng.uniform(0, h, 2))
        boxes.append([round(float(x[0])), round(float(y[0])), round(float(x[1])), round(float(y[1]))])
    points: list[list[float]] = [[round(float(rng.uniform(0, w - 1))), round(float(rng.uniform(0, h - 1)))]
                                 for _ in range(4)]
    return _answer(sample, boxes, n, points, bool(rng.random() < 0.5))


def raw_line(sample: DemoSample, response: str, prefix: str = "") -> dict[str, Any]:
    return {"images": [prefix + p for p in sample.image_paths], "response": response}
