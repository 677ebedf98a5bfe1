"""Export of one annotated item to the EPIC toolkit's raw layout, and a reader of that layout.

Rules: docs/formats/epic.md 1.2-1.3. Files go to `EPIC_Bench/<leaf path>/<sample>/`: `<b>_image.<ext>`,
the leaf's overlay `<b><suffix>` (uploaded, or rendered from the display masklet), and `<b>_mask_rle.json`
(VisualMatching: `<A>__<B>_mask_rle.json` in A's folder). Scalars are written as one-element lists.
`export_files` only builds (path, bytes) pairs; writing them is the caller's job.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from annotation.core import rle as rle_utils
from annotation.core.epic import Leaf

ROOT = "EPIC_Bench"
OVERLAY_COLOUR = (255, 64, 64)


PROVENANCE_SUFFIX = "_provenance.json"


@dataclass(frozen=True)
class ExportImage:
    extension: str  # "jpg", "png", ...
    data: bytes


@dataclass(frozen=True)
class ExportItem:
    leaf: Leaf
    sample: str  # folder and stem base, e.g. "item000042"
    images: tuple[ExportImage, ...]
    texts: Mapping[str, Any] = field(default_factory=dict)
    count: int | None = None
    precise_count: bool | None = None
    count_in_description: bool | None = None
    placement_feasible: bool | None = None
    instances: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    overlay_png: bytes | None = None  # an uploaded reference overlay wins over a rendered one
    # How each mask was made (annotation/core/provenance.py), written beside the ground truth as
    # `<b>_provenance.json`; readers of the toolkit's layout look only for `*_mask_rle.json` and skip it.
    provenance: Mapping[str, Sequence[Mapping[str, Any] | None]] = field(default_factory=dict)
    version: int | None = None  # the item version exported, named in the provenance file


@dataclass(frozen=True)
class ExportFile:
    path: str  # relative, with "/" separators, starting with EPIC_Bench/
    data: bytes


def safe_stem(name: str) -> str:
    """A file-name stem that the toolkit's path rules cannot misread (no "_image", no "__", no separators)."""
    stem = re.sub(r"[^A-Za-z0-9.-]+", "-", name).strip("-.") or "sample"
    # The toolkit cuts paths at the last "_image" and splits VM names at "__"; neither may occur here.
    return stem.replace("_image", "-image")


def render_overlay(image: np.ndarray, mask: np.ndarray, *, alpha: float = 0.45) -> np.ndarray:
    """The image with the mask tinted and outlined, as the toolkit's reference overlays show it."""
    if mask.shape != image.shape[:2]:
        raise ValueError(f"overlay mask is {mask.shape[::-1]}, image is {image.shape[1::-1]}")
    out = image.astype(np.float32)
    colour = np.array(OVERLAY_COLOUR, dtype=np.float32)
    out[mask] = out[mask] * (1 - alpha) + colour * alpha
    result = out.clip(0, 255).astype(np.uint8)
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(result, contours, -1, OVERLAY_COLOUR, 2)
    return result


def png_bytes(rgb: np.ndarray) -> bytes:
    ok, buffer = cv2.imencode(".png", np.ascontiguousarray(rgb[:, :, ::-1]))
    if not ok:
        raise ValueError("could not encode PNG")
    return buffer.tobytes()


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def gt_document(item: ExportItem, image_paths: Sequence[str]) -> dict[str, Any]:
    leaf = item.leaf
    text: dict[str, Any] = {}
    for name in leaf.text_fields:
        value = item.texts.get(name)
        if value not in (None, "", []):
            text[name] = _listed(value)
    if leaf.count_field is not None:
        if item.count is not None:
            text[leaf.count_field] = [int(item.count)]
        text["precise_count"] = [bool(item.precise_count)]
        text["count_in_description"] = [bool(item.count_in_description)]
    if leaf.has_feasibility and item.placement_feasible is not None:
        text["placement_feasible"] = [bool(item.placement_feasible)]
    masks = {
        spec.name: [rle_utils.normalize(r) for r in item.instances.get(spec.name, ())] for spec in leaf.masklets
    }
    return {"image_path_saved": list(image_paths), "text_annotation": text, "mask_annotation": masks}


def export_files(item: ExportItem, *, decoded_first_image: np.ndarray | None = None) -> list[ExportFile]:
    """The files of one sample. `decoded_first_image` (RGB) is needed only to render an overlay."""
    leaf = item.leaf
    if len(item.images) != leaf.images:
        raise ValueError(f"{leaf.path} needs {leaf.images} image(s), the item has {len(item.images)}")
    sample = safe_stem(item.sample)
    folder = f"{ROOT}/{leaf.path}/{sample}"
    stems = [sample] if leaf.images == 1 else [f"{sample}-A", f"{sample}-B"]
    files: list[ExportFile] = []
    image_paths: list[str] = []
    for stem, image in zip(stems, item.images):
        path = f"{folder}/{stem}_image.{image.extension}"
        image_paths.append(path)
        files.append(ExportFile(path, image.data))
    if leaf.overlay is not None:
        overlay = item.overlay_png
        if overlay is None:
            if decoded_first_image is None:
                raise ValueError(f"{leaf.path} needs an overlay: pass the decoded first image to render one")
            spec = leaf.masklet(leaf.overlay.masklet)
            size = decoded_first_image.shape[:2]
            union = rle_utils.decode(rle_utils.merge(item.instances.get(spec.name, ()), size=size))
            overlay = png_bytes(render_overlay(decoded_first_image, union))
        # The toolkit cuts image 1's path at its last "_image" and appends the suffix.
        files.append(ExportFile(f"{folder}/{stems[0]}{leaf.overlay.suffix}", overlay))
    gt_name = f"{stems[0]}_mask_rle.json" if leaf.images == 1 else f"{stems[0]}__{stems[1]}_mask_rle.json"
    document = gt_document(item, image_paths)
    files.append(ExportFile(f"{folder}/{gt_name}", json.dumps(document, indent=1).encode("utf-8")))
    if item.provenance:
        provenance = {"sample": sample, "version": item.version, "mask_file": gt_name,
                      "instances": {name: list(entries) for name, entries in item.provenance.items()}}
        files.append(ExportFile(f"{folder}/{stems[0]}{PROVENANCE_SUFFIX}",
                                json.dumps(provenance, indent=1).encode("utf-8")))
    return files


def write_files(files: Sequence[ExportFile], root: Path) -> list[Path]:
    """Write exported files under root (a folder that will hold EPIC_Bench/)."""
    written = []
    for export_file in files:
        target = (root / export_file.path).resolve()
        if root.resolve() not in target.parents:
            raise ValueError(f"export path {export_file.path} leaves the export folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(export_file.data)
        written.append(target)
    return written


@dataclass(frozen=True)
class RawSample:
    """One sample as read back from the raw layout (the subset the annotation site writes)."""

    gt_path: str
    leaf_path: str
    image_paths: tuple[str, ...]
    overlay_path: str | None
    text_annotation: dict[str, Any]
    mask_annotation: dict[str, list[dict[str, Any]]]


def read_layout(root: Path, leaves: Mapping[str, Leaf]) -> list[RawSample]:
    """Every `*_mask_rle.json` under root/EPIC_Bench, in sorted path order, with the files it names."""
    samples: list[RawSample] = []
    base = root / ROOT
    for gt in sorted(base.rglob("*_mask_rle.json")):
        relative = gt.relative_to(root).as_posix()
        leaf_path = next((p for p in sorted(leaves, key=len, reverse=True) if relative.startswith(f"{ROOT}/{p}/")), None)
        if leaf_path is None:
            raise ValueError(f"{relative}: not under any EPIC leaf folder")
        document = json.loads(gt.read_text("utf-8"))
        images = tuple(document["image_path_saved"])
        for image in images:
            if not (root / image).is_file():
                raise ValueError(f"{relative}: image_path_saved names {image}, which does not exist")
        leaf = leaves[leaf_path]
        overlay = None
        if leaf.overlay is not None:
            first = images[0]
            overlay = first[: first.rfind("_image")] + leaf.overlay.suffix
            if not (root / overlay).is_file():
                raise ValueError(f"{relative}: overlay {overlay} does not exist")
        samples.append(
            RawSample(relative, leaf_path, images, overlay, document.get("text_annotation", {}),
                      document.get("mask_annotation", {}))
        )
    return samples
