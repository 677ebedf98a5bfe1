"""Exact mask geometry for EPIC-Bench on COCO RLE: unions, box rasterisation, IoU, lookups and distances.

Rules: GT instances are unioned in RLE space (pycocotools), boxes are rasterised with `frPyObjects`, IoU is
taken from RLE areas; nothing decodes a full image for localization. Path scoring reads pixels through the
run lengths (binary search) and decodes only the bounding band of a target area, at most once per sample.
No per-pixel Python loops, no random sampling.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from pycocotools import mask as mask_utils

_CHAR_MIN, _CHAR_MAX = 48, 48 + 63


def counts_from_string(counts: bytes) -> np.ndarray | None:
    """Run lengths of a COCO compressed RLE string (LEB128-like, 5 bits a char, delta-coded), or None if malformed."""
    raw = np.frombuffer(counts, dtype=np.uint8)
    if raw.size == 0:
        return np.zeros(0, dtype=np.int64)
    if raw.min() < _CHAR_MIN or raw.max() > _CHAR_MAX:
        return None
    c = raw.astype(np.int64) - _CHAR_MIN
    last = (c & 0x20) == 0  # a char without the continuation bit ends a number
    if not last[-1]:
        return None
    ends = np.flatnonzero(last)
    starts = np.concatenate(([0], ends[:-1] + 1))
    group = np.repeat(np.arange(ends.size), ends - starts + 1)
    shift = 5 * (np.arange(c.size) - starts[group])
    if shift.max() > 55:
        return None
    x = np.add.reduceat((c & 0x1F) << shift, starts)
    negative = (c[ends] & 0x10) != 0
    x = x - np.where(negative, np.left_shift(1, 5 * (ends - starts + 1)), 0)
    # Counts from the fourth on are stored as differences to the count two places before.
    out = x.copy()
    if out.size > 3:
        out[3::2] = np.cumsum(x[3::2]) + x[1]
    if out.size > 4:
        out[4::2] = np.cumsum(x[4::2]) + x[2]
    return out


def counts_from_strings(strings: Sequence[bytes]) -> list[np.ndarray | None]:
    """`counts_from_string` for many strings in one vectorised pass (the per-call numpy overhead dominates
    for single masks). Same result, string by string. Most numbers are one char (the counts are delta-coded),
    so the work is kept to a few passes over the bytes and the numbers, in uint8 where it can be."""
    if not strings:
        return []
    counts, first, stops, ok = _decode_batch(strings)
    pieces = _pieces(counts, first, stops)
    return [piece if good else None for piece, good in zip(pieces, ok.tolist())]


def _pieces(counts: np.ndarray, first: np.ndarray, stops: np.ndarray) -> list[np.ndarray]:
    """Each string's run lengths as a view of `counts` (slices: np.split costs several times more per piece)."""
    return [counts[a:b] for a, b in zip(first.tolist(), stops.tolist())]


def _decode_batch(strings: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All strings' run lengths in one array; string i owns [first[i], stops[i]) and decoded well if ok[i]."""
    n = len(strings)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=n)
    raw = np.frombuffer(b"".join(strings), dtype=np.uint8)
    if raw.size == 0:
        nothing = np.zeros(n, dtype=np.int64)
        return np.zeros(0, dtype=np.int64), nothing, nothing, np.ones(n, dtype=bool)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    ok = np.ones(n, dtype=bool)
    c = raw - np.uint8(_CHAR_MIN)  # uint8: a char below '0' wraps above 63, so one test finds both bad kinds
    bad = np.flatnonzero(c > 63)
    if bad.size:
        ok[np.searchsorted(ends, bad, side="right")] = False
    last = c < 32  # no continuation bit (0x20): the char ends a number
    nonempty = np.flatnonzero(lengths > 0)
    tail = ends[nonempty] - 1
    ok[nonempty] &= last[tail]
    last[tail] = True  # keep later strings aligned even if one is truncated
    num_end = np.flatnonzero(last)
    width = np.empty_like(num_end)
    width[0] = num_end[0] + 1
    np.subtract(num_end[1:], num_end[:-1], out=width[1:])
    # Five bits a char; a number's last char is signed (bit 0x10: less 32, i.e. the number less 1 << 5 * width):
    # in one pass over the chars, so that a number's chars are summed without a sign step after.
    payload = (c & np.uint8(0x1F)).view(np.int8)
    payload -= ((c & np.uint8(0x10)) << np.uint8(1)).view(np.int8) * last
    # Most numbers are one char, their last: read there. The others (the first char least significant) are summed
    # apart, a char at a time, each pass over fewer of them.
    x = payload[num_end].astype(np.int64)
    longer = np.flatnonzero(width > 1)
    if longer.size:
        longer_width = width[longer]
        at = num_end[longer] - longer_width + 1
        value = payload[at].astype(np.int64)
        active = np.arange(longer.size)
        j = 1
        while active.size and j < 12:
            value[active] += payload[at[active] + j].astype(np.int64) << (5 * j)
            j += 1
            active = active[longer_width[active] > j]
        x[longer] = value
        too_long = longer[longer_width > 12]
        if too_long.size:
            ok[np.searchsorted(ends, num_end[too_long], side="right")] = False
    first = np.searchsorted(num_end, starts, side="left")  # index of each string's first number
    stops = np.append(first[1:], num_end.size)
    # counts[k] = x[k] + counts[k-2] for k >= 3: running sums over every other number, less the sum reached
    # just before the string (same parity as k) so that each string restarts; k = 0 keeps x[0].
    every_other = np.empty_like(x)
    np.cumsum(x[0::2], out=every_other[0::2])
    np.cumsum(x[1::2], out=every_other[1::2])
    at_first = every_other[np.minimum(first, x.size - 1)]
    before_first = np.where(first >= 1, every_other[np.maximum(first - 1, 0)], 0)
    first_even = (first & 1) == 0
    base_even = np.where(first_even, at_first, before_first)  # for numbers at even positions
    base_odd = np.where(first_even, before_first, at_first)
    n_even = (stops + 1) // 2 - (first + 1) // 2
    n_odd = (stops - first) - n_even
    counts = every_other
    counts[0::2] -= np.repeat(base_even, n_even)
    counts[1::2] -= np.repeat(base_odd, n_odd)
    heads = first[stops > first]
    counts[heads] = x[heads]
    return counts, first, stops, ok


# By the counts as the GT holds them (a str's hash is kept in it: looked up again at no cost): runs, their sum, any
# negative, the run bounds (`RleMask.run_bounds`)
_PREPARED: dict[str | bytes, tuple[np.ndarray | None, int, bool, np.ndarray | None]] = {}


def prepare(values: Sequence[Any]) -> None:
    """Decode the run lengths of every compressed RLE in `values` (GT mask fields) in one batch; `_instance`
    then finds them ready. Call `forget_prepared()` when the batch is scored."""
    keys: list[str | bytes] = []
    for value in values:
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("counts"), (str, bytes)):
                keys.append(item["counts"])
    if keys:
        found = [data.encode("utf-8") if isinstance(data, str) else data for data in keys]
        counts, first, stops, ok = _decode_batch(found)
        # What `_instance` checks, per string, without a numpy call per mask: the sum and any negative run.
        sums = np.empty(counts.size + 1, dtype=np.int64)
        sums[0] = 0
        np.cumsum(counts, out=sums[1:])
        total = (sums[stops] - sums[first]).tolist()
        below = counts < 0
        if below.any():  # well-formed masks have none: no second running sum then
            negatives = np.concatenate(([0], np.cumsum(below)))
            negative = (negatives[stops] > negatives[first]).tolist()
        else:
            negative = [False] * len(found)
        pieces = _pieces(counts, first, stops)
        # Each string's run ends (its cumulative sums) in one pass, up to an even number of runs.
        ends = sums[1:] - np.repeat(sums[first], stops - first)
        bounds = _pieces(ends, first, first + ((stops - first) & ~1))
        _PREPARED.update((key, (piece, runs_total, neg, bound) if good else (None, 0, True, None))
                         for key, piece, runs_total, neg, bound, good in
                         zip(keys, pieces, total, negative, bounds, ok.tolist()))


def forget_prepared() -> None:
    _PREPARED.clear()


class RleMask:
    """A binary mask of size (height, width) as a pycocotools RLE; run lengths decoded on demand. A union of
    instances (`union_of_instances`) merges them into its RLE (pycocotools) only when that is asked for: box IoU
    and path scoring read the instances' own runs."""

    def __init__(self, height: int, width: int, rle: dict[str, Any] | None = None, *,
                 instances: Sequence[RleMask] | None = None) -> None:
        self.height, self.width = height, width
        self._rle = rle
        if instances is not None:
            self._instances = list(instances)

    @property
    def rle(self) -> dict[str, Any]:
        if self._rle is None:
            self._rle = mask_utils.merge([part.rle for part in self._instances], intersect=0)
        return self._rle

    @property
    def area(self) -> int:
        return int(mask_utils.area(self.rle))

    def counts(self) -> np.ndarray:
        cached = self.__dict__.get("_counts")
        if cached is None:
            parts = self.__dict__.get("_instances")
            if parts is not None:
                cached = union_counts([part.counts() for part in parts], self.height * self.width)
            else:
                data = self.rle["counts"]
                cached = counts_from_string(data.encode("utf-8") if isinstance(data, str) else data)
            assert cached is not None  # RLEs built here are always well formed
            object.__setattr__(self, "_counts", cached)
        return cached

    def run_bounds(self) -> np.ndarray | None:
        """The ends of the runs up to the last run of ones, an even number of them (ones run k covers pixels
        [b[2k], b[2k + 1]) in column-major order); None where the run lengths are not decoded (a union, or counts
        given as a list: `counts()` would decode them)."""
        cached = self.__dict__.get("_bounds")
        if cached is None:
            counts = self.__dict__.get("_counts")
            if counts is None:
                return None
            cached = np.cumsum(counts[: counts.size & ~1])
            object.__setattr__(self, "_bounds", cached)
        return cached

    def decoded_bounds(self) -> np.ndarray:
        """`run_bounds`, the run lengths decoded first where they are not (those of GT masks come decoded, their
        bounds with them: `prepare`)."""
        self.counts()
        bounds = self.run_bounds()
        assert bounds is not None  # the counts are decoded
        return bounds


def empty_mask(height: int, width: int) -> RleMask:
    return RleMask(height, width, mask_utils.frPyObjects({"size": [height, width], "counts": [height * width]}, height, width))


def _instance(item: Any) -> tuple[RleMask | None, str | None]:
    """One GT/predicted RLE instance, checked; (mask, None) or (None, why it does not decode)."""
    if not isinstance(item, dict):
        return None, "instance is not an RLE object"
    size, counts = item.get("size"), item.get("counts")
    if not size or counts is None:
        return None, "RLE lacks 'size' or 'counts'"
    try:
        height, width = int(size[0]), int(size[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return None, f"RLE size {size!r} is not [H, W]"
    if height <= 0 or width <= 0:
        return None, f"RLE size {size!r} is empty"
    total = height * width
    if isinstance(counts, (str, bytes)):
        prepared = _PREPARED.get(counts)
        if prepared is not None:
            runs, runs_total, negative, bounds = prepared
        else:
            bounds = None
            runs = counts_from_string(counts.encode("utf-8") if isinstance(counts, str) else counts)
            negative = runs is None or bool((runs < 0).any())
            runs_total = 0 if runs is None else int(runs.sum())
        if runs is None or negative or runs_total != total:
            return None, f"RLE counts do not decode to a {height}x{width} mask"
        mask = RleMask(height, width, {"size": [height, width], "counts": counts})  # pycocotools reads str or bytes
        object.__setattr__(mask, "_counts", runs)  # decoded once: path scoring reads the runs again
        if bounds is not None:
            object.__setattr__(mask, "_bounds", bounds)
        return mask, None
    if isinstance(counts, list):
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            return None, "uncompressed RLE counts must be non-negative integers"
        runs_list = list(counts)
        if sum(runs_list) > total:
            # The reference falls back to a clamping decoder here; clamp the same way.
            kept, acc = [], 0
            for n in runs_list:
                n = min(n, total - acc)
                kept.append(n)
                acc += n
                if acc >= total:
                    break
            runs_list = kept
        elif sum(runs_list) < total:
            return None, f"RLE counts do not cover a {height}x{width} mask"
        return RleMask(height, width, mask_utils.frPyObjects({"size": [height, width], "counts": runs_list}, height, width)), None
    return None, "RLE counts must be a string or a list of integers"


def union_of_instances(value: Any) -> tuple[RleMask | None, list[str]]:
    """Union of an RLE list (or one RLE); the first decodable instance fixes (H, W), other shapes are dropped.

    Returns (None, problems) when nothing decodes, as the reference does.
    """
    if isinstance(value, dict):
        items = [value]
    elif isinstance(value, list):
        items = [x for x in value if isinstance(x, dict)]
    else:
        items = []
    problems: list[str] = []
    masks: list[RleMask] = []
    for i, item in enumerate(items):
        mask, why = _instance(item)
        if mask is None:
            problems.append(f"instance {i}: {why}")
            continue
        if masks and (mask.height, mask.width) != (masks[0].height, masks[0].width):
            problems.append(f"instance {i}: size {mask.height}x{mask.width} differs from the first instance; dropped")
            continue
        masks.append(mask)
    if not masks:
        if not items:
            problems.append("no RLE instance")
        return None, problems
    if len(masks) == 1:
        return masks[0], problems
    # If the union's run lengths are needed (path scoring), they come from the instances' decoded runs,
    # cheaper than decoding the merged string again; the same runs as pycocotools' merge.
    return RleMask(masks[0].height, masks[0].width, instances=masks), problems


def union_counts(runs: Sequence[np.ndarray], total: int) -> np.ndarray:
    """Run lengths (zeros first, no empty run after the first) of the pixel union of masks given by their runs."""
    starts_l, ends_l = [], []
    for counts in runs:
        ends = np.cumsum(counts)
        k = counts.size // 2
        starts_l.append(ends[0 : 2 * k : 2])
        ends_l.append(ends[1 : 2 * k : 2])
    starts, ends = np.concatenate(starts_l), np.concatenate(ends_l)
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if starts.size == 0:
        return np.array([total], dtype=np.int64)
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], np.maximum.accumulate(ends[order])
    # An interval opens a new group when it starts after everything before it has ended (touching ones join).
    new = np.ones(starts.size, dtype=bool)
    new[1:] = starts[1:] > ends[:-1]
    first = np.flatnonzero(new)
    group_ends = np.append(ends[first[1:] - 1], ends[-1])
    bounds = np.empty(2 * first.size + 2, dtype=np.int64)
    bounds[0] = 0
    bounds[1:-1:2] = starts[first]
    bounds[2:-1:2] = group_ends
    bounds[-1] = total
    out = np.diff(bounds)
    return out if out[-1] > 0 else out[:-1]


def boxes_mask(boxes: Sequence[tuple[int, int, int, int]], height: int, width: int) -> RleMask:
    """Union of integer boxes (x1, y1, x2, y2), each filling rows [y1, y2) and columns [x1, x2)."""
    if not boxes:
        return empty_mask(height, width)
    xywh = np.array([[x1, y1, x2 - x1, y2 - y1] for x1, y1, x2, y2 in boxes], dtype=np.float64)
    rles = mask_utils.frPyObjects(xywh, height, width)
    rle = rles[0] if len(rles) == 1 else mask_utils.merge(rles, intersect=0)
    return RleMask(height, width, rle)


def iou(pred: RleMask, gt: RleMask) -> float:
    """Mask IoU from RLE areas; both empty gives 1.0, as the reference's dense IoU does."""
    if (pred.height, pred.width) != (gt.height, gt.width):
        return 0.0
    areas = mask_utils.area([pred.rle, gt.rle])
    if areas[0] == 0 and areas[1] == 0:
        return 1.0  # union 0: the reference's dense IoU says 1.0
    # pycocotools divides intersection by union in double precision, as the reference does.
    return float(mask_utils.iou([pred.rle], [gt.rle], [0])[0, 0])


def _disjoint_rects(boxes: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """The union of boxes (x1, y1, x2, y2) as disjoint rectangles: one per column slab between consecutive box
    edges and per merged run of rows of the boxes that span that slab."""
    if len(boxes) == 1:  # the usual answer: the box itself, where it holds a pixel
        x1, y1, x2, y2 = boxes[0]
        return [(x1, y1, x2, y2)] if x2 > x1 and y2 > y1 else []
    edges = sorted({x for x1, _, x2, _ in boxes for x in (x1, x2)})
    by_rows = sorted(boxes, key=lambda box: (box[1], box[3]))  # each slab's boxes in the order they are merged in
    rects: list[tuple[int, int, int, int]] = []
    for xa, xb in zip(edges, edges[1:]):
        rows = [(y1, y2) for x1, y1, x2, y2 in by_rows if x1 <= xa and x2 >= xb]
        top = bottom = -1
        for y1, y2 in rows:
            if y1 <= bottom:
                bottom = max(bottom, y2)
                continue
            if bottom > top:
                rects.append((xa, top, xb, bottom))
            top, bottom = y1, y2
        if bottom > top:
            rects.append((xa, top, xb, bottom))
    return rects


def boxes_iou(boxes: Sequence[tuple[int, int, int, int]], gt: RleMask) -> float:
    """IoU of the union of integer boxes with a mask (boxes already clipped to the mask's size; a box may hold
    no pixel once truncated to integers, e.g. y1 = y2 = 0): `boxes_ious` of one pair."""
    return boxes_ious([(boxes, gt)])[0]


_PAIRS_PER_BATCH = 1 << 21  # (rectangle, run) pairs computed in one numpy pass at most


def boxes_ious(pairs: Sequence[tuple[Sequence[tuple[int, int, int, int]], RleMask]]) -> list[float]:
    """`boxes_iou` of many (boxes, mask) pairs, the closed-form ones in a few numpy passes for all of them.

    Computed on the GT's decoded run bounds (of each instance, for a union of instances that do not overlap),
    without rasterising the boxes: a rectangle's pixels before pixel p (column-major) are a closed form of p,
    so the rectangle's pixels inside a run of ones [s, e) are that count at e less that count at s, for all
    runs and rectangles of all pairs in one pass. Integer intersection and union, divided in double precision:
    the same value as pycocotools' `iou` against the rasterised boxes (`boxes_mask`), which the tests check.
    """
    out = [0.0] * len(pairs)
    batch: list[tuple[int, np.ndarray, list[tuple[int, int, int, int]], int, int]] = []
    size = 0
    for k, (boxes, gt) in enumerate(pairs):
        if not boxes:
            out[k] = 1.0 if gt.area == 0 else 0.0
            continue
        points = _union_bounds(gt)
        if points is None:
            # Counts given as lists, or overlapping instances: rasterising the boxes is cheaper than decoding.
            out[k] = float(mask_utils.iou([boxes_mask(boxes, gt.height, gt.width).rle], [gt.rle], [0])[0, 0])
            continue
        rects = _disjoint_rects(boxes)
        if not rects or points.size == 0:
            continue  # no box pixel, or an empty GT: no common pixel, which pycocotools scores 0 (even empty)
        batch.append((k, points, rects, gt.height, gt.height * gt.width))
        size += len(rects) * (points.size // 2)  # at most: only the runs in a rectangle's columns are paired
        if size >= _PAIRS_PER_BATCH:
            _closed_form_ious(batch, out)
            batch, size = [], 0
    if batch:
        _closed_form_ious(batch, out)
    return out


def _union_bounds(gt: RleMask) -> np.ndarray | None:
    """The run bounds of a mask's ones (`RleMask.run_bounds`): its own, or those of its instances where they do not
    overlap; None where they are not decoded or the instances overlap."""
    # A union's own runs once decoded (for path scoring), else its instances'.
    parts = ("_counts" not in gt.__dict__ and gt.__dict__.get("_instances")) or (gt,)
    bounds = [b for b in (part.run_bounds() for part in parts) if b is not None]
    if len(bounds) < len(parts):
        return None
    if len(bounds) == 1:
        return bounds[0]
    # The instances' runs in pixel order (`_closed_form_ious` searches them): sorted by their starts.
    runs = np.concatenate(bounds).reshape(-1, 2)
    runs = runs[np.argsort(runs[:, 0], kind="stable")]
    if (runs[1:, 0] < runs[:-1, 1]).any():
        return None  # overlapping instances: their runs are not the union's
    return runs.ravel()


def _closed_form_ious(batch: list[tuple[int, np.ndarray, list[tuple[int, int, int, int]], int, int]],
                      out: list[float]) -> None:
    """The IoUs of (index into out, run bounds, disjoint rectangles, mask height, mask size) in one pass: each
    rectangle against the runs of ones of its own mask that reach into its columns (the others lie wholly
    before or after them, where the closed form below gives both their ends the same count)."""
    sizes = np.array([b[4] for b in batch], dtype=np.int64)
    base = np.cumsum(sizes) - sizes  # the masks one after the other in one pixel line: one sorted array of bounds
    lengths = np.array([b[1].size for b in batch], dtype=np.int64)
    points = np.concatenate([b[1] for b in batch]) + np.repeat(base, lengths)
    starts, ends = points[0::2], points[1::2]
    n_rects = np.array([len(b[2]) for b in batch], dtype=np.int64)
    rects = np.array([r for b in batch for r in b[2]], dtype=np.int64)
    xa, ya, xb, yb = rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3]
    h = np.repeat(np.array([b[3] for b in batch], dtype=np.int64), n_rects)
    rect_base = np.repeat(base, n_rects)
    lo, hi = xa * h + rect_base, xb * h + rect_base
    first = np.searchsorted(ends, lo, side="right")  # the first run ending after the rectangle's first column
    count = np.maximum(np.searchsorted(starts, hi, side="left") - first, 0)
    total = int(count.sum())
    run = np.arange(total, dtype=np.int64) + np.repeat(first - (np.cumsum(count) - count), count)
    xa, ya, yb, h, lo, hi, rect_base = (np.repeat(v, count) for v in (xa, ya, yb, h, lo, hi, rect_base))
    # A rectangle's pixels before p: full columns before p's, then rows of p's column above p; p clamped to the
    # rectangle's columns first (before them: none; after them: all). Less xa * (yb - ya), the same for every
    # point, which the differences cancel.
    tall = yb - ya
    inside = np.zeros(total, dtype=np.int64)
    for sign, p in ((1, ends[run]), (-1, starts[run])):
        col, row = np.divmod(np.minimum(np.maximum(p, lo), hi) - rect_base, h)
        before = col * tall + np.minimum(np.maximum(row - ya, 0), tall)
        inside += before if sign > 0 else -before
    job = np.repeat(np.repeat(np.arange(len(batch)), n_rects), count)
    # Sums of integers below 2**53 in double precision: exact.
    inter = np.bincount(job, weights=inside, minlength=len(batch)).astype(np.int64).tolist()
    runs = lengths // 2
    gt_area = np.add.reduceat(ends - starts, np.cumsum(runs) - runs).tolist()
    for (k, _, rects_k, _, _), common, area in zip(batch, inter, gt_area):
        boxes_area = sum((x2 - x1) * (y2 - y1) for x1, y1, x2, y2 in rects_k)
        # pycocotools: no common pixel gives 0
        out[k] = common / (boxes_area + area - common) if common else 0.0


# ---------------------------------------------------------------------------------------------------------
# Path geometry
# ---------------------------------------------------------------------------------------------------------


class PixelLookup:
    """Membership of pixels in an RLE mask by binary search over the run ends (no decode)."""

    def __init__(self, mask: RleMask):
        self.height, self.width = mask.height, mask.width
        # The run bounds up to the last run of ones: a pixel after them finds an even run, as in the zeros after.
        self.ends = mask.decoded_bounds()

    def contains(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        ok = (rows >= 0) & (rows < self.height) & (cols >= 0) & (cols < self.width)
        index = cols.astype(np.int64) * self.height + rows.astype(np.int64)
        run = np.searchsorted(self.ends, index, side="right")
        return ok & ((run & 1) == 1)


@dataclass(frozen=True, eq=False)
class Region:
    """A mask as its runs of ones down each column, in the RLE's (column-major) order: run k covers rows
    [first[k], after[k]) of column cols[k]. Runs never cross into the next column, and runs of one column never touch
    (`region_of` joins them), so 4-connectivity and distances are read from the runs without decoding a pixel.
    Empty: no run."""

    height: int
    width: int
    cols: np.ndarray
    first: np.ndarray
    after: np.ndarray

    @property
    def empty(self) -> bool:
        return self.cols.size == 0

    def _flat_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The runs' first pixels and the pixels after them in column-major order: both sorted, as the runs are."""
        cached = self.__dict__.get("_flat_cache")
        if cached is None:
            base = self.cols * self.height
            cached = (base + self.first, base + self.after)
            object.__setattr__(self, "_flat_cache", cached)
        return cached

    def contains(self, row: int, col: int) -> bool:
        return bool(self._contains([row], [col])[0])

    def _contains(self, rows: Sequence[int], cols: Sequence[int]) -> list[bool]:
        starts, ends = self._flat_bounds()
        out = [False] * len(rows)
        inside = [k for k, (r, c) in enumerate(zip(rows, cols)) if 0 <= r < self.height and 0 <= c < self.width]
        if inside and starts.size:
            flat = np.array([cols[k] * self.height + rows[k] for k in inside], dtype=np.int64)
            run = np.searchsorted(starts, flat, side="right") - 1  # the last run starting at or before the pixel
            held = ((run >= 0) & (flat < ends[np.maximum(run, 0)])).tolist()
            for k, h in zip(inside, held):
                out[k] = h
        return out

    def distance(self, point: tuple[float, float]) -> float:
        """0 if the rounded pixel is inside, else the least Euclidean distance to the mask's pixels; inf if empty
        (`distances` of one point)."""
        return self.distances([point])[0]

    def distances(self, points: Sequence[tuple[float, float]]) -> list[float]:
        """`distance` of each point, those outside in one array operation over the runs.

        A run's pixel nearest a point is the one in the point's rounded row, clamped to the run's rows; each
        squared distance is computed as over pixels, (x - px)^2 + (y - py)^2 in doubles, and those are monotonic in
        |y - py| down a column, so the least over the runs is the least over all pixels: the same double.
        """
        if self.empty:
            return [math.inf] * len(points)
        inside = self._contains([int(round(py)) for _, py in points], [int(round(px)) for px, _ in points])
        out = [0.0 if held else math.nan for held in inside]
        outside = [k for k, held in enumerate(inside) if not held]
        if outside:
            px = np.array([points[k][0] for k in outside], dtype=np.float64)[:, None]
            py = np.array([points[k][1] for k in outside], dtype=np.float64)[:, None]
            rows = np.minimum(np.maximum(np.rint(py), self.first), self.after - 1)  # rint: exact, half to even
            dx, dy = self.cols - px, rows - py
            # The root of the least square: the root is monotonic and correctly rounded, so the same double as the
            # least root, for one root a point instead of one a run.
            least = np.sqrt((dx * dx + dy * dy).min(axis=1)).tolist()
            for k, d in zip(outside, least):
                out[k] = d
        return out

    def centroid(self) -> tuple[float, float]:
        """(mean row, mean column) of the pixels; the image centre for an empty mask. Integer sums (exact), so
        each mean is the double np.mean of the pixels' coordinates gives."""
        if self.empty:
            return self.height / 2.0, self.width / 2.0
        length = self.after - self.first
        count = int(length.sum())
        rows = int(((self.first + self.after - 1) * length).sum()) // 2
        return rows / count, int((self.cols * length).sum()) / count

    def min_distance_to(self, other: "Region") -> float:
        """Exact least pixel-to-pixel distance between two disjoint regions.

        Between two runs it is the columns' difference and the gap between their rows (0 where the rows overlap),
        so the least over pairs of runs is the least over pairs of pixels. Only the runs that can hold it are
        paired: a run farther from the other region's bounding box than some pair already found (the run nearest
        the other's box, with its nearest partner) cannot. The pairs left are compared a block at a time where
        there are few (the usual case), else their pixels go to a KD-tree (scipy, imported then only: it costs more
        to import than most files take to score). Integer coordinates: squared distances are exact, so the root
        is the same double either way.
        """
        if self.empty or other.empty:
            return math.inf
        mine: _Runs = (self.cols, self.first, self.after)
        theirs: _Runs = (other.cols, other.first, other.after)
        to_box = _squared_distances_to_box(*mine, *theirs)
        k = int(to_box.argmin())
        bound = int(_squared_run_distances(*_take(mine, slice(k, k + 1)), *theirs).min())
        mine = _take(mine, to_box <= bound)
        theirs = _take(theirs, _squared_distances_to_box(*theirs, *mine) <= bound)
        if mine[0].size * theirs[0].size > _PAIRS_BY_BRUTE_FORCE:
            from scipy.spatial import cKDTree

            tree = cKDTree(_run_pixels(*theirs))
            nearest, _ = tree.query(_run_pixels(*mine), k=1)
            return float(nearest.min())
        step = max(1, _PAIRS_PER_BLOCK // max(1, theirs[0].size))
        least = bound
        across = _take(theirs, np.newaxis)
        for i in range(0, mine[0].size, step):
            block = _squared_run_distances(*_take(mine, (slice(i, i + step), np.newaxis)), *across)
            least = min(least, int(block.min()))
        return float(np.sqrt(np.float64(least)))


_Runs = tuple[np.ndarray, np.ndarray, np.ndarray]  # (cols, first, after), as a Region holds them


def _take(runs: _Runs, index: Any) -> _Runs:
    """The runs at `index` (a slice, a boolean mask, or a new axis to broadcast against)."""
    cols, first, after = runs
    return cols[index], first[index], after[index]


def _squared_run_distances(cols: np.ndarray, first: np.ndarray, after: np.ndarray, other_cols: np.ndarray,
                           other_first: np.ndarray, other_after: np.ndarray) -> np.ndarray:
    """The least squared distance between the pixels of runs (cols, first, after) and of the other runs, pair by
    pair as the arrays broadcast."""
    dx = cols - other_cols
    dy = np.maximum(np.maximum(first - other_after, other_first - after) + 1, 0)
    return dx * dx + dy * dy


def _squared_distances_to_box(cols: np.ndarray, first: np.ndarray, after: np.ndarray, box_cols: np.ndarray,
                              box_first: np.ndarray, box_after: np.ndarray) -> np.ndarray:
    """Each run's least squared distance to the bounding box of the other runs: 0 where it reaches into it."""
    dx = np.maximum(np.maximum(box_cols.min() - cols, cols - box_cols.max()), 0)
    dy = np.maximum(np.maximum(box_first.min() - after, first - box_after.max()) + 1, 0)
    return dx * dx + dy * dy


def _run_pixels(cols: np.ndarray, first: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The (column, row) of every pixel of the runs, as doubles."""
    length = after - first
    offsets = np.cumsum(length) - length
    rows = np.arange(int(length.sum())) - np.repeat(offsets - first, length)
    return np.stack([np.repeat(cols, length), rows], axis=1).astype(np.float64)


_PAIRS_BY_BRUTE_FORCE = 1 << 24  # run pairs compared one by one at most (else a KD-tree over their pixels)
_PAIRS_PER_BLOCK = 1 << 18


def region_of(mask: RleMask) -> Region:
    """The mask's runs of ones, joined where they touch (an RLE may hold runs of no pixel) and cut at the columns'
    ends: no pixel is decoded."""
    bounds = mask.decoded_bounds()
    start, stop = bounds[0::2], bounds[1::2]
    held = stop > start  # runs of no pixel left out
    if not held.all():
        start, stop = start[held], stop[held]
    h = mask.height
    if not start.size:
        empty = np.zeros(0, dtype=np.int64)
        return Region(mask.height, mask.width, empty, empty, empty)
    if start.size > 1:
        new = np.ones(start.size, dtype=bool)
        new[1:] = start[1:] > stop[:-1]
        if not new.all():
            heads = np.flatnonzero(new)
            start, stop = start[heads], stop[np.append(heads[1:] - 1, stop.size - 1)]
    col, last_col = start // h, (stop - 1) // h
    if (col == last_col).all():
        return Region(mask.height, mask.width, col, start - col * h, stop - col * h)
    # A run into the next columns: one run per column it reaches, from row 0 there and to the last row before.
    pieces = last_col - col + 1
    run = np.repeat(np.arange(start.size), pieces)
    col = np.arange(run.size) - np.repeat(np.cumsum(pieces) - pieces - col, pieces)
    base = col * h
    return Region(mask.height, mask.width, col, np.maximum(start[run] - base, 0), np.minimum(stop[run] - base, h))


def _run_components(rows: np.ndarray, first: np.ndarray, after: np.ndarray, width: int) -> np.ndarray:
    """Each run's 4-connected component as the index of the component's first run, for runs along rows given in
    raster order (`rows` here may be a region's columns: the same relation, transposed): runs in neighbouring rows
    that share a column touch. By hooking roots to the smaller root and shortcutting."""
    n = rows.size
    stride = width + 1
    starts, ends = rows * stride + first, rows * stride + after  # sorted, as the runs are
    below = (rows + 1) * stride
    lo = np.searchsorted(ends, below + first, side="right")  # the runs of the next row that overlap
    hi = np.searchsorted(starts, below + after, side="left")
    many = np.maximum(hi - lo, 0)
    a = np.repeat(np.arange(n), many)
    b = np.arange(a.size) + np.repeat(lo - (np.cumsum(many) - many), many)
    parent = np.arange(n)
    while a.size:
        pa, pb = parent[a], parent[b]
        apart = pa != pb
        if not apart.any():
            break
        pa, pb = pa[apart], pb[apart]
        np.minimum.at(parent, np.maximum(pa, pb), np.minimum(pa, pb))
        while True:
            up = parent[parent]
            if not (up != parent).any():
                break
            parent = up
    return parent


def split_two_regions(region: Region) -> tuple[Region, Region | None]:
    """Exo endpoints: 4-connected components clustered around the two components with the farthest centroids.

    Fewer than two components (or a cluster left empty) gives (region, None), as the reference does. Components
    are labelled on the region's column runs and numbered as scipy.ndimage.label numbers them (raster order of
    each one's first pixel: the least row, then column, of its runs' top pixels), with each one's exact pixel
    count and coordinate sums from its runs.
    """
    if region.empty:
        return region, None
    cols, first, after = region.cols, region.first, region.after
    root = _run_components(cols, first, after, region.height)
    heads = np.flatnonzero(root == np.arange(root.size))  # each component's first run in column-major order
    n = heads.size
    if n < 2:
        return region, None
    component = np.searchsorted(heads, root)
    top_left = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(top_left, component, first * region.width + cols)
    label = np.empty(n, dtype=np.int64)
    label[np.argsort(top_left)] = np.arange(n)
    label = label[component]  # 0 .. n-1 in scipy's numbering
    length = after - first
    pixels = np.bincount(label, weights=length, minlength=n)
    # Integer sums below 2**53 in double precision: exact, so each mean is the double np.mean gives.
    sum_x = np.bincount(label, weights=cols * length, minlength=n)
    sum_y = np.bincount(label, weights=(first + after - 1) * length // 2, minlength=n)
    centroids = [(x / count, y / count)
                 for x, y, count in zip(sum_x.astype(np.int64).tolist(), sum_y.astype(np.int64).tolist(),
                                        pixels.astype(np.int64).tolist())]
    seed1, seed2, best = 0, 1, -1.0
    for i in range(n):
        for j in range(i + 1, n):
            d = (centroids[i][0] - centroids[j][0]) ** 2 + (centroids[i][1] - centroids[j][1]) ** 2
            if d > best:
                best, seed1, seed2 = d, i, j
    c1, c2 = centroids[seed1], centroids[seed2]
    in_first = [(c[0] - c1[0]) ** 2 + (c[1] - c1[1]) ** 2 <= (c[0] - c2[0]) ** 2 + (c[1] - c2[1]) ** 2
                for c in centroids]
    if all(in_first) or not any(in_first):
        return region, None
    member = np.array(in_first)[label]
    return (Region(region.height, region.width, cols[member], first[member], after[member]),
            Region(region.height, region.width, cols[~member], first[~member], after[~member]))
