"""Image perturbations of the served view (the paper's robustness study): blur, JPEG compression, occlusion.

A post-processing step on the PNG the renderer (or a device image) gives: the renderer is untouched. An episode
option `perturbation` names one, as text: `blur:σ` (Gaussian blur, σ in pixels, 0 < σ ≤ 20), `jpeg:q` (JPEG at
quality q, 1 ≤ q ≤ 100), `occlude:share` (a grey rectangle over that share of the image, 0 < share ≤ 0.9, placed
at random). Deterministic: the same image, perturbation and key (episode and turn) give the same bytes. Pure.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import cv2
import numpy as np

KINDS = ("blur", "jpeg", "occlude")
OCCLUDER_GREY = 128


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
    height, width = image.shape[:2]
    # A rectangle of the image's aspect ratio covering `share` of its area, at a position drawn from the key.
    h = max(1, min(height, round(height * math.sqrt(p.value))))
    w = max(1, min(width, round(p.value * height * width / h)))
    rng = _rng(key)
    top, left = int(rng.integers(0, height - h + 1)), int(rng.integers(0, width - w + 1))
    out = image.copy()
    out[top:top + h, left:left + w] = OCCLUDER_GREY
    return out


def apply_png(png: bytes, p: Perturbation, *, key: str) -> bytes:
    """The perturbed image as PNG (a JPEG perturbation is decoded back: the API always serves PNG)."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise PerturbationInvalid("the view image could not be decoded")
    ok, encoded = cv2.imencode(".png", apply_array(image, p, key=key))
    if not ok:
        raise PerturbationInvalid("the perturbed image could not be PNG-encoded")
    return encoded.tobytes()
