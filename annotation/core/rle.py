"""COCO run-length encoding helpers on pycocotools: encode, decode, merge, area, IoU.

Rules: an RLE here is the JSON form `{"size": [H, W], "counts": "<compressed str>"}`; an uncompressed RLE
(`counts` a list of ints) is accepted on input. Masks are 2-D bool arrays (H, W). Bad input raises
`RleError` naming what is wrong.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from pycocotools import mask as mask_utils

Rle = dict[str, Any]


class RleError(ValueError):
    """An RLE (or a mask) that cannot be used, with what is wrong about it."""


def encode(mask: np.ndarray) -> Rle:
    """A 2-D mask (bool or 0/1) -> compressed JSON RLE."""
    array = np.asarray(mask)
    if array.ndim != 2:
        raise RleError(f"mask must be 2-D (H, W), got shape {array.shape}")
    rle = mask_utils.encode(np.asfortranarray(array.astype(np.uint8, copy=False) > 0, dtype=np.uint8))
    return {"size": [int(rle["size"][0]), int(rle["size"][1])], "counts": rle["counts"].decode("ascii")}


def _to_coco(rle: Mapping[str, Any]) -> dict[str, Any]:
    """JSON RLE (compressed or uncompressed) -> the object pycocotools expects."""
    if not isinstance(rle, Mapping):
        raise RleError(f"RLE must be an object with 'size' and 'counts', got {type(rle).__name__}")
    size = rle.get("size")
    counts = rle.get("counts")
    if (
        not isinstance(size, Sequence)
        or len(size) != 2
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in size)
    ):
        raise RleError(f"RLE 'size' must be [H, W] with non-negative ints, got {size!r}")
    height, width = int(size[0]), int(size[1])
    if isinstance(counts, str):
        return {"size": [height, width], "counts": counts.encode("ascii")}
    if isinstance(counts, bytes):
        return {"size": [height, width], "counts": counts}
    if isinstance(counts, list):
        if not all(isinstance(v, (int, np.integer)) and v >= 0 for v in counts):
            raise RleError("uncompressed RLE 'counts' must be non-negative ints")
        if sum(counts) != height * width:
            raise RleError(f"uncompressed RLE counts sum to {sum(counts)}, expected H*W = {height * width}")
        return mask_utils.frPyObjects({"size": [height, width], "counts": counts}, height, width)
    raise RleError(f"RLE 'counts' must be a string or a list of ints, got {type(counts).__name__}")


def normalize(rle: Mapping[str, Any]) -> Rle:
    """Any accepted RLE -> compressed JSON RLE (validates it by decoding)."""
    return encode(decode(rle))


def decode(rle: Mapping[str, Any]) -> np.ndarray:
    """JSON RLE -> bool mask (H, W)."""
    coco = _to_coco(rle)
    try:
        decoded = mask_utils.decode(coco)
    except Exception as exc:  # pycocotools raises bare Exceptions/ValueErrors on bad strings
        raise RleError(f"RLE does not decode: {exc}") from exc
    height, width = coco["size"]
    if decoded.shape[:2] != (height, width):
        raise RleError(f"RLE decodes to {decoded.shape[:2]}, but its size says {(height, width)}")
    return decoded.astype(bool)


def size_of(rle: Mapping[str, Any]) -> tuple[int, int]:
    coco = _to_coco(rle)
    return int(coco["size"][0]), int(coco["size"][1])


def area(rle: Mapping[str, Any]) -> int:
    return int(mask_utils.area(_to_coco(rle)))


def merge(rles: Iterable[Mapping[str, Any]], *, size: tuple[int, int] | None = None) -> Rle:
    """Union of RLEs of one shape. An empty list needs `size` and gives an empty mask."""
    cocos = [_to_coco(r) for r in rles]
    if not cocos:
        if size is None:
            raise RleError("cannot merge an empty list of RLEs without a size")
        return encode(np.zeros(size, dtype=bool))
    shapes = {tuple(c["size"]) for c in cocos}
    if len(shapes) != 1:
        raise RleError(f"cannot merge RLEs of different sizes: {sorted(shapes)}")
    merged = mask_utils.merge(cocos, intersect=False)
    return {"size": [int(v) for v in merged["size"]], "counts": merged["counts"].decode("ascii")}


def iou(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """Intersection over union of two masks of the same size; two empty masks have IoU 1."""
    ca, cb = _to_coco(a), _to_coco(b)
    if list(ca["size"]) != list(cb["size"]):
        raise RleError(f"IoU of masks of different sizes: {ca['size']} vs {cb['size']}")
    if mask_utils.area(ca) == 0 and mask_utils.area(cb) == 0:
        return 1.0
    return float(mask_utils.iou([ca], [cb], [0])[0][0])


def iou_matrix(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Pairwise IoU, shape (len(a), len(b))."""
    if not a or not b:
        return np.zeros((len(a), len(b)), dtype=float)
    ca = [_to_coco(r) for r in a]
    cb = [_to_coco(r) for r in b]
    shapes = {tuple(c["size"]) for c in ca + cb}
    if len(shapes) != 1:
        raise RleError(f"IoU of masks of different sizes: {sorted(shapes)}")
    return np.asarray(mask_utils.iou(ca, cb, [0] * len(cb)), dtype=float).reshape(len(a), len(b))


def bbox(rle: Mapping[str, Any]) -> tuple[float, float, float, float]:
    """(x, y, w, h) of the mask, zeros when empty."""
    x, y, w, h = mask_utils.toBbox(_to_coco(rle))
    return float(x), float(y), float(w), float(h)
