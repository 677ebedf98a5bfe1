"""Builders for EPIC-Bench test records: masks as RLE, GT JSON dicts, std_format records."""
from __future__ import annotations

from typing import Any

import numpy as np
from pycocotools import mask as mask_utils


def rle(mask: np.ndarray) -> dict[str, Any]:
    encoded = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": [int(mask.shape[0]), int(mask.shape[1])], "counts": encoded["counts"].decode("ascii")}


def rect(h: int, w: int, rows: tuple[int, int], cols: tuple[int, int]) -> np.ndarray:
    """Mask with rows r0..r1 and cols c0..c1 set, both inclusive."""
    m = np.zeros((h, w), dtype=np.uint8)
    m[rows[0] : rows[1] + 1, cols[0] : cols[1] + 1] = 1
    return m


def tl_gt(instances: list[np.ndarray], count: int, precise: bool = False, in_desc: bool = False) -> dict[str, Any]:
    return {
        "image_path_saved": ["EPIC_Bench/TargetLocalization/BasicAttributes/Color/s/s_image.jpg"],
        "text_annotation": {"text_label": ["x"], "count_target_instance": [count], "precise_count": [precise],
                            "count_in_description": [in_desc]},
        "mask_annotation": {"masklet_target": [rle(m) for m in instances]},
    }


def record(category: str, task_type: str, *, loc: Any = None, count: Any = None, path: Any = None,
           binary: Any = None, coord: str = "auto", fmt: str = "bbox", gt_path: str | None = None,
           **inline: Any) -> dict[str, Any]:
    nr = ["Not Required"]
    gt: dict[str, Any] = {"gt_json_path": [gt_path] if gt_path else []}
    gt.update(inline)
    return {
        "task_category": [category],
        "task_type": [task_type],
        "format_type": [fmt],
        "coordinate_system": [coord],
        "formatted_response_localization": nr if loc is None else loc,
        "formatted_response_count": nr if count is None else count,
        "formatted_response_path": nr if path is None else path,
        "formatted_response_binary": nr if binary is None else binary,
        "images": [],
        "ground_truth": gt,
    }
