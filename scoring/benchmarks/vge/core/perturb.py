"""Image perturbations of the served view (the paper's robustness study): blur, JPEG compression, occlusion.

A post-processing step on the PNG the renderer (or a device image) gives: the renderer is untouched. An episode
option `perturbation` names one, as text: `blur:σ` (Gaussian blur, σ in pixels, 0 < σ ≤ 20), `jpeg:q` (JPEG at
quality q, 1 ≤ q ≤ 100), `occlude:share` (as the paper (E.2), "eight black patches covering total area ratios
of 10%, 25%, or 40%": eight black rectangles that together cover exactly that share of the image's pixels,
0 < share ≤ 0.9; the paper's levels are `PAPER_OCCLUSION_LEVELS`). Each patch lies in its own cell of a 2 x 4
grid (4 x 2 for a portrait image), so patches never overlap and the black area is their sum; its size and place
in the cell are drawn from the key (ours: the paper does not say how patches are placed). The paper's blur goes to σ 5.0; σ up to 20 is accepted (ours, a stronger
probe). Deterministic: the same image, perturbation and key (episode and turn, the episode's seed) give the
same bytes. Pure.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import cv2
import numpy as np

KINDS = ("blur", "jpeg", "occlude")
OCCLUDER_BLACK = 0
OCCLUDER_PATCHES = 8
PAPER_OCCLUSION_LEVELS = (0.10, 0.25, 0.40)


class PerturbationInvalid(ValueError):
    pass


@dataclass(frozen=True)
class Perturbation:
    kind: str
    value: float

    def text(self) -> str:
        """The canonical text (what episodes record): `blur:2`, `jpeg:30`, `occlude:0.25`."""
        return f"{self.kind}:{int(self.value) if self.kind == 'jpeg' else f'{self.value:g}'}"


def parse(text: str | None) -> Perturbation | None:
    """The perturbation a text names, None for none ("" or "none"); `PerturbationInvalid` saying what is wrong."""
    text = (text or "").strip().lower()
    if text in ("", "none"):
        return None
    kind, sep, raw = text.partition(":")
    if not sep or kind not in KINDS:
        raise PerturbationInvalid(f"'{text[:40]}': use blur:σ, jpeg:q or occlude:share (e.g. blur:2, jpeg:30, "
                                  "occlude:0.25), or none")
    try:
        value = float(raw)
    except ValueError:
        raise PerturbationInvalid(f"'{text[:40]}': '{raw[:20]}' is not a number") from None
    if not math.isfinite(value):
        raise PerturbationInvalid(f"'{text[:40]}': the value must be finite")
    if kind == "blur" and not 0 < value <= 20:
        raise PerturbationInvalid(f"'{text[:40]}': blur σ must be in (0, 20] pixels")
    if kind == "jpeg" and not (value == int(value) and 1 <= value <= 100):
        raise PerturbationInvalid(f"'{text[:40]}': JPEG quality must be an integer from 1 to 100")
    if kind == "occlude" and not 0 < value <= 0.9:
        raise PerturbationInvalid(f"'{text[:40]}': the occluded share must be in (0, 0.9]")
    return Perturbation(kind, value)


def _rng(key: str) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def apply_array(image: np.ndarray, p: Perturbation, *, key: str) -> np.ndarray:
    """The perturbed copy of a BGR (or grey) uint8 image."""
    if p.kind == "blur":
        return cv2.GaussianBlur(image, (0, 0), sigmaX=p.value, sigmaY=p.value)
    if p.kind == "jpeg":
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(p.value)])
        if not ok:
            raise PerturbationInvalid("the image could not be JPEG-encoded")
        decoded = cv2.imdecode(encoded, cv2.IMREAD_UNCHANGED)
        if decoded is None:  # never for what imencode just wrote; said rather than returned as no image
            raise PerturbationInvalid("the JPEG-encoded image could not be decoded")
        return decoded
    out = image.copy()
    for top, left, h, w in occluder_patches(image.shape[0], image.shape[1], p.value, key=key):
        out[top:top + h, left:left + w] = OCCLUDER_BLACK
    return out


def _patch_sizes(target: int, cell_h: int, cell_w: int) -> list[tuple[int, int]]:
    """Each h x w that fits a cell_h x cell_w cell (one per h), nearest in area to `target` first (then nearest
    the cell's aspect ratio)."""
    ranked = []
    for h in range(1, cell_h + 1):
        w = min(cell_w, max(1, round(target / h)))
        ranked.append((abs(h * w - target), abs(math.log((h / w) / (cell_h / cell_w))), h, w))
    return [(h, w) for _, _, h, w in sorted(ranked)]


def _exact_size(target: int, cell_h: int, cell_w: int) -> tuple[int, int] | None:
    """An h x w of exactly `target` pixels that fits the cell, nearest its aspect ratio; None if there is none."""
    if target == 0:
        return (0, 0)
    sizes = [(h, target // h) for h in range(1, cell_h + 1) if target % h == 0 and target // h <= cell_w]
    return min(sizes, key=lambda s: abs(math.log((s[0] / s[1]) / (cell_h / cell_w)))) if sizes else None


def occluder_patches(height: int, width: int, share: float, *, key: str) -> list[tuple[int, int, int, int]]:
    """The eight black patches (top, left, h, w) covering `share` of a height x width image: one per cell of a
    2 x 4 grid (4 x 2 when portrait), so none overlap; each takes an equal part of the total pixel count
    (round(share · height · width)) with a seeded spread (±20 %, less for shares over 0.7); what a patch cannot
    cover exactly is carried to the next, and the next-to-last is sized so the last covers the rest exactly. The
    total is then exact (at the paper's levels on any image of some tens of pixels a side; for shares near 0.9 on
    small images it may miss by a few pixels)."""
    rows, cols = (2, 4) if width >= height else (4, 2)
    row_edges = [round(i * height / rows) for i in range(rows + 1)]
    col_edges = [round(j * width / cols) for j in range(cols + 1)]
    cells = [(row_edges[i], col_edges[j], row_edges[i + 1] - row_edges[i], col_edges[j + 1] - col_edges[j])
             for i in range(rows) for j in range(cols)]
    rng = _rng(key)
    spread = min(0.2, 0.5 * (1 - share) / share)  # narrower for large shares, so every part fits its cell
    weights = rng.uniform(1 - spread, 1 + spread, len(cells)) * np.array([ch * cw for _, _, ch, cw in cells], float)
    total = round(share * height * width)
    left_to_cover = total
    sizes: list[tuple[int, int]] = []
    for index, (_, _, ch, cw) in enumerate(cells):
        rest = weights[index:].sum()
        target = left_to_cover if index == len(cells) - 1 else round(left_to_cover * weights[index] / rest)
        target = max(0, min(target, ch * cw))
        if target == 0:
            sizes.append((0, 0))
            continue
        candidates = _patch_sizes(target, ch, cw)
        chosen = candidates[0]
        if index == len(cells) - 2:  # the next-to-last patch leaves the last one a pixel count it can cover exactly
            last_h, last_w = cells[-1][2], cells[-1][3]
            chosen = next((c for c in candidates[:64]
                           if 0 <= left_to_cover - c[0] * c[1] <= last_h * last_w
                           and _exact_size(left_to_cover - c[0] * c[1], last_h, last_w) is not None), chosen)
        elif index == len(cells) - 1:
            chosen = _exact_size(target, ch, cw) or chosen
        sizes.append(chosen)
        left_to_cover -= chosen[0] * chosen[1]
    patches = []
    for (top, left, ch, cw), (h, w) in zip(cells, sizes):
        if h and w:
            dy, dx = int(rng.integers(0, ch - h + 1)), int(rng.integers(0, cw - w + 1))
            patches.append((top + dy, left + dx, h, w))
    return patches


def apply_png(png: bytes, p: Perturbation, *, key: str) -> bytes:
    """The perturbed image as PNG (a JPEG perturbation is decoded back: the API always serves PNG)."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise PerturbationInvalid("the view image could not be decoded")
    ok, encoded = cv2.imencode(".png", apply_array(image, p, key=key))
    if not ok:
        raise PerturbationInvalid("the perturbed image could not be PNG-encoded")
    return encoded.tobytes()
