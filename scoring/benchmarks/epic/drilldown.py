"""EPIC-Bench on the per-sample results page: the overlay image (the sample's image with the ground-truth mask,
predicted boxes and path points) and its legend. Site-side: the image is looked up under MEDIA_ROOT."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from django.conf import settings

from scoring.benchmarks.epic.core import overlay
from scoring.core.plugin import DrilldownSample


def _image_path(inputs: Any, *, private_ok: bool) -> Path | None:
    """The first image a sample's inputs name, found under MEDIA_ROOT (never outside it; never under
    MEDIA_ROOT/private unless `private_ok`)."""
    root = Path(settings.MEDIA_ROOT).resolve()
    private = root / "private"
    media_url = settings.MEDIA_URL or "/media/"
    for name in overlay.image_names(inputs):
        # A served URL (/media/public/...) maps back to its file; other names are relative to MEDIA_ROOT.
        name = name[len(media_url):] if name.startswith(media_url) else name
        for base in (root, root / "public"):
            path = (base / name.lstrip("/")).resolve()
            if not path.is_relative_to(root) or (path.is_relative_to(private) and not private_ok):
                continue
            if path.is_file():
                return path
    return None


def sample_image(sample: DrilldownSample) -> bytes:
    """The overlay PNG of one sample; the ground-truth mask only when the viewer may see ground truth (its size
    still sets the canvas when there is no image)."""
    image = None
    if (path := _image_path(sample.inputs, private_ok=sample.private_media_visible)) is not None:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    masks: list[np.ndarray] = []
    size = None
    rles = overlay.find_rles(sample.ground_truth)
    if rles:
        size = tuple(int(v) for v in rles[0]["size"])
        if sample.ground_truth_visible:
            masks = [overlay.decode_rle(r) for r in rles]
    shapes: overlay.EpicSampleDetails = sample.details
    return overlay.render_overlay(image, masks=masks, boxes=shapes.boxes, points=shapes.points, size=size)


def page(*, show_gt: bool) -> dict[str, Any]:
    """Above the samples: the overlay's colours."""
    return {"overlay_legend": overlay.legend(ground_truth=show_gt)}
