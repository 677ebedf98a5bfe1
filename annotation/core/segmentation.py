"""Segmentation backends behind one adapter: `embed(image) -> Embedding`, `segment(embedding, ...) -> proposals`.

Rules: `SamBackend` wraps segment-anything's `SamPredictor` and answers prompts from a stored embedding
(features put back into the predictor, never recomputed); `ClassicBackend` is OpenCV GrabCut with the same
interface. Images are RGB uint8 (H, W, 3); points are (x, y, label) with label 1 = positive, 0 = negative;
boxes are (x1, y1, x2, y2) pixels. Prompts are checked against the image and rejected with `PromptError`.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from annotation.core import rle as rle_utils
from annotation.core import sam_onnx

SAM_MODEL_TYPES = ("vit_b", "vit_l", "vit_h")
SAM_MASK_INPUT_SIZE = 256
# Logit magnitude used when a binary mask is turned back into SAM's low-resolution mask prompt.
SAM_MASK_LOGIT = 8.0


class PromptError(ValueError):
    """A prompt (points, box, mask_input) that does not fit the image, with the offending field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class BackendConfigError(RuntimeError):
    """A backend that cannot be built (unknown model type, checkpoint that does not load)."""


@dataclass(frozen=True)
class MaskProposal:
    rle: dict[str, Any]
    score: float


@dataclass(frozen=True)
class Embedding:
    """What a backend computes once per image. For SAM the image encoder's features (float16)."""

    model: str
    image_size: tuple[int, int]  # (H, W) of the original image
    input_size: tuple[int, int]  # (h, w) of the resized image the encoder saw
    features: np.ndarray


@dataclass(frozen=True)
class Prompt:
    points: tuple[tuple[float, float, int], ...]
    box: tuple[float, float, float, float] | None
    multimask: bool
    mask_input: np.ndarray | None  # bool (H, W), the previous mask


class SegmentationBackend(Protocol):
    name: str
    model_key: str

    def embed(self, image: np.ndarray) -> Embedding: ...

    def segment(
        self,
        embedding: Embedding,
        *,
        points: Sequence[Sequence[float]] = (),
        box: Sequence[float] | None = None,
        multimask: bool = True,
        mask_input: Mapping[str, Any] | None = None,
    ) -> list[MaskProposal]: ...


def check_image(image: np.ndarray) -> np.ndarray:
    array = np.asarray(image)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ValueError(f"image must be RGB uint8 (H, W, 3), got shape {array.shape} dtype {array.dtype}")
    if array.shape[0] < 1 or array.shape[1] < 1:
        raise ValueError(f"image is empty: shape {array.shape}")
    return array


def build_prompt(
    image_size: tuple[int, int],
    *,
    points: Sequence[Sequence[float]] = (),
    box: Sequence[float] | None = None,
    multimask: bool = True,
    mask_input: Mapping[str, Any] | None = None,
) -> Prompt:
    """Check a prompt against an image of (H, W) and return it in plain form."""
    height, width = image_size
    checked: list[tuple[float, float, int]] = []
    for i, point in enumerate(points or ()):
        if not isinstance(point, (list, tuple)) or len(point) != 3:
            raise PromptError(f"points[{i}]", f"must be [x, y, 1|0], got {point!r}")
        x, y, label = point
        if isinstance(label, bool) or label not in (0, 1):
            raise PromptError(f"points[{i}]", f"label must be 1 (positive) or 0 (negative), got {label!r}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in (x, y)):
            raise PromptError(f"points[{i}]", f"x and y must be finite numbers, got {x!r}, {y!r}")
        if not (0 <= x <= width and 0 <= y <= height):
            raise PromptError(
                f"points[{i}]", f"({x}, {y}) is outside the image (width {width}, height {height})"
            )
        checked.append((float(x), float(y), int(label)))
    checked_box: tuple[float, float, float, float] | None = None
    if box is not None:
        if not isinstance(box, (list, tuple)) or len(box) != 4:
            raise PromptError("box", f"must be [x1, y1, x2, y2] or null, got {box!r}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in box):
            raise PromptError("box", f"coordinates must be finite numbers, got {box!r}")
        x1, y1, x2, y2 = (float(v) for v in box)
        x1, x2 = min(x1, x2), max(x1, x2)
        y1, y2 = min(y1, y2), max(y1, y2)
        if x1 < 0 or y1 < 0 or x2 > width or y2 > height:
            raise PromptError("box", f"{list(box)} is outside the image (width {width}, height {height})")
        if x2 - x1 < 1 or y2 - y1 < 1:
            raise PromptError("box", f"{list(box)} has no area")
        checked_box = (x1, y1, x2, y2)
    if not checked and checked_box is None:
        raise PromptError("points", "give at least one point or a box")
    if checked and checked_box is None and not any(p[2] == 1 for p in checked):
        raise PromptError("points", "without a box, at least one point must be positive")
    previous: np.ndarray | None = None
    if mask_input is not None:
        try:
            # The declared size first: a mask is only decoded (H x W bytes) when it is the image's size.
            mask_height, mask_width = rle_utils.size_of(mask_input)
            if (mask_height, mask_width) != (height, width):
                raise PromptError("mask_input", f"mask is {mask_width}x{mask_height}, image is {width}x{height}")
            previous = rle_utils.decode(mask_input)
        except rle_utils.RleError as exc:
            raise PromptError("mask_input", str(exc)) from exc
    return Prompt(tuple(checked), checked_box, bool(multimask), previous)


# --- SAM ----------------------------------------------------------------------------------------------


class SamBackend:
    """segment-anything's SamPredictor; `segment` reuses stored features instead of running the encoder."""

    name = "sam"

    def __init__(self, model: Any, *, model_type: str, device: str = "cpu", decoder_threads: int | None = None) -> None:
        from segment_anything import SamPredictor

        if model_type not in SAM_MODEL_TYPES:
            raise BackendConfigError(f"unknown SAM model type {model_type!r}; use one of {', '.join(SAM_MODEL_TYPES)}")
        self.model_type = model_type
        self.model_key = f"sam-{model_type}"
        self.device = device
        # On a busy CPU one thread answers a click faster than several competing for cores.
        self.decoder_threads = decoder_threads
        self._predictor = SamPredictor(model.to(device).eval())
        # The predictor holds per-image state; one request at a time uses it.
        self._lock = threading.Lock()
        # The float32 tensor of the last embedding used: a burst of clicks on one image converts it once.
        self._features: tuple[np.ndarray, Any] | None = None
        self._fingerprints: dict[bool, str] = {}
        self._export_lock = threading.Lock()
        self.checkpoint_path: Path | None = None  # set by from_checkpoint
        self._checkpoint_sha256: str | None = None

    def checkpoint_sha256(self) -> str:
        """SHA-256 of the checkpoint file (as its publisher lists it), or of the weights when the model was built
        in memory (a test's random weights): what a mask's provenance names, so it can be regenerated."""
        if self._checkpoint_sha256 is None:
            digest = hashlib.sha256()
            if self.checkpoint_path is not None:
                with self.checkpoint_path.open("rb") as handle:
                    for chunk in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(chunk)
            else:
                for name, tensor in sorted(self._predictor.model.state_dict().items()):
                    digest.update(name.encode())
                    digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
            self._checkpoint_sha256 = digest.hexdigest()
        return self._checkpoint_sha256

    def decoder_fingerprint(self, *, quantized: bool = True) -> str:
        """Identifies the prompt encoder + mask decoder weights and the export (the ONNX decoder file's name)."""
        if quantized not in self._fingerprints:
            self._fingerprints[quantized] = sam_onnx.decoder_fingerprint(self._predictor.model, quantized=quantized)
        return self._fingerprints[quantized]

    def onnx_decoder(self, root: str | os.PathLike[str], *, quantized: bool = True) -> Path:
        """The browser's ONNX decoder of this model, cached under `root` (exported on first use). An export removes
        the model folder's decoder files of other fingerprints (an older export format, another checkpoint); this
        model's 8-bit and float files are kept."""
        path = sam_onnx.decoder_path(root, self.model_key, self.decoder_fingerprint(quantized=quantized))
        if path.exists():
            return path
        with self._export_lock:
            if not path.exists():
                sam_onnx.export_decoder(self._predictor.model, path, quantized=quantized)
                current = {self.decoder_fingerprint(quantized=q) for q in (True, False)}
                for stale in sam_onnx.stale_decoders(path.parent, current):
                    stale.unlink(missing_ok=True)
        return path

    @classmethod
    def from_checkpoint(
        cls, checkpoint: str | os.PathLike[str], *, model_type: str, device: str = "cpu", decoder_threads: int | None = None
    ) -> SamBackend:
        if model_type not in SAM_MODEL_TYPES:
            raise BackendConfigError(f"unknown SAM model type {model_type!r}; use one of {', '.join(SAM_MODEL_TYPES)}")
        path = Path(checkpoint)
        if not path.is_file():
            raise BackendConfigError(f"SAM checkpoint {path} does not exist or is not a file")
        from segment_anything import sam_model_registry

        try:
            model = sam_model_registry[model_type](checkpoint=str(path))
        except Exception as exc:  # torch.load / load_state_dict raise many kinds
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise BackendConfigError(
                f"SAM checkpoint {path} does not load as {model_type}: {type(exc).__name__}: {first_line[:300]}"
            ) from exc
        backend = cls(model, model_type=model_type, device=device, decoder_threads=decoder_threads)
        backend.checkpoint_path = path
        return backend

    def embed(self, image: np.ndarray) -> Embedding:
        array = check_image(image)
        with self._lock:
            self._predictor.set_image(array, image_format="RGB")
            features = self._predictor.features.detach().cpu().numpy().astype(np.float16)
            input_size = tuple(int(v) for v in self._predictor.input_size)
            self._predictor.reset_image()
        return Embedding(self.model_key, (array.shape[0], array.shape[1]), (input_size[0], input_size[1]), features)

    def _mask_prompt(self, mask: np.ndarray, input_size: tuple[int, int]) -> np.ndarray:
        """A full-size binary mask -> SAM's 1x256x256 low-resolution logits, in the encoder's frame."""
        height, width = input_size
        resized = cv2.resize(mask.astype(np.float32), (width, height), interpolation=cv2.INTER_LINEAR)
        side = self._predictor.model.image_encoder.img_size
        padded = np.zeros((side, side), dtype=np.float32)
        padded[:height, :width] = resized
        low = cv2.resize(padded, (SAM_MASK_INPUT_SIZE, SAM_MASK_INPUT_SIZE), interpolation=cv2.INTER_AREA)
        return ((low * 2.0 - 1.0) * SAM_MASK_LOGIT)[None, :, :].astype(np.float32)

    def _decode(
        self, coords: np.ndarray | None, labels: np.ndarray | None, box: np.ndarray | None,
        mask_prompt: np.ndarray | None, multimask: bool,
    ) -> tuple[np.ndarray, np.ndarray]:
        """SamPredictor.predict_torch up to the low-resolution logits (prompt encoder + mask decoder).

        SAM's own post-processing upsamples every mask to 1024x1024 and then to the image size; that second
        step costs more than the decoder on a CPU, so `_upscale` goes from the logits to the image in one step.
        """
        import torch

        predictor, model, device = self._predictor, self._predictor.model, self.device
        size = predictor.original_size
        with torch.inference_mode():
            points = None
            if coords is not None:
                coords_t = torch.as_tensor(predictor.transform.apply_coords(coords, size), dtype=torch.float, device=device)
                labels_t = torch.as_tensor(labels, dtype=torch.int, device=device)
                points = (coords_t[None, :, :], labels_t[None, :])
            box_t = None
            if box is not None:
                box_t = torch.as_tensor(predictor.transform.apply_boxes(box, size), dtype=torch.float, device=device)[None, :]
            mask_t = None
            if mask_prompt is not None:
                mask_t = torch.as_tensor(mask_prompt, dtype=torch.float, device=device)[None, :, :, :]
            sparse, dense = model.prompt_encoder(points=points, boxes=box_t, masks=mask_t)
            low_res, iou = model.mask_decoder(
                image_embeddings=predictor.features,
                image_pe=model.prompt_encoder.get_dense_pe(),
                sparse_prompt_embeddings=sparse,
                dense_prompt_embeddings=dense,
                multimask_output=multimask,
            )
        return low_res[0].float().cpu().numpy(), iou[0].float().cpu().numpy()

    def _upscale(self, low_res: np.ndarray, input_size: tuple[int, int], image_size: tuple[int, int]) -> np.ndarray:
        """(C, 256, 256) logits of the padded 1024 frame -> (C, H, W) bool masks of the image."""
        side = self._predictor.model.image_encoder.img_size
        scale = low_res.shape[-1] / side
        rows = max(1, int(round(input_size[0] * scale)))
        cols = max(1, int(round(input_size[1] * scale)))
        height, width = image_size
        threshold = float(self._predictor.model.mask_threshold)
        return np.stack([
            cv2.resize(np.ascontiguousarray(logits[:rows, :cols]), (width, height), interpolation=cv2.INTER_LINEAR)
            > threshold
            for logits in low_res
        ])

    def segment(
        self,
        embedding: Embedding,
        *,
        points: Sequence[Sequence[float]] = (),
        box: Sequence[float] | None = None,
        multimask: bool = True,
        mask_input: Mapping[str, Any] | None = None,
    ) -> list[MaskProposal]:
        import torch

        if embedding.model != self.model_key:
            raise BackendConfigError(f"embedding was made by {embedding.model}, this backend is {self.model_key}")
        prompt = build_prompt(embedding.image_size, points=points, box=box, multimask=multimask, mask_input=mask_input)
        coords = labels = None
        if prompt.points:
            coords = np.array([[x, y] for x, y, _ in prompt.points], dtype=np.float32)
            labels = np.array([label for _, _, label in prompt.points], dtype=np.int32)
        box_array = np.array(prompt.box, dtype=np.float32) if prompt.box is not None else None
        low_res_prompt = (
            self._mask_prompt(prompt.mask_input, embedding.input_size) if prompt.mask_input is not None else None
        )
        with self._lock:
            predictor = self._predictor
            predictor.reset_image()
            # Put the stored features back instead of running the image encoder again.
            # Holding the array itself (not its id) keeps the identity check sound.
            if self._features is None or self._features[0] is not embedding.features:
                tensor = torch.from_numpy(embedding.features.astype(np.float32)).to(self.device)
                self._features = (embedding.features, tensor)
            predictor.features = self._features[1]
            predictor.original_size = embedding.image_size
            predictor.input_size = embedding.input_size
            predictor.is_image_set = True
            previous_threads = torch.get_num_threads()
            if self.decoder_threads:
                torch.set_num_threads(self.decoder_threads)
            try:
                low_res, scores = self._decode(coords, labels, box_array, low_res_prompt, prompt.multimask)
            finally:
                torch.set_num_threads(previous_threads)
                predictor.reset_image()
        masks = self._upscale(low_res, embedding.input_size, embedding.image_size)
        order = np.argsort(-scores, kind="stable")
        return [MaskProposal(rle_utils.encode(masks[i]), float(scores[i])) for i in order]


# --- classical ------------------------------------------------------------------------------------


class ClassicBackend:
    """OpenCV GrabCut from the box (or a window around the clicks), refined by the clicks.

    Work is done on a crop around the prompt, scaled down so its longest side is at most `work_side`,
    which keeps one request well under the editor's latency budget on a CPU.
    """

    name = "classic"
    model_key = "classic"

    def __init__(self, *, iterations: int = 3, work_side: int = 320, click_radius: int = 4) -> None:
        self.iterations = iterations
        self.work_side = work_side
        self.click_radius = click_radius

    def embed(self, image: np.ndarray) -> Embedding:
        array = check_image(image)
        size = (array.shape[0], array.shape[1])
        # GrabCut needs the pixels themselves; the "embedding" is the image.
        return Embedding(self.model_key, size, size, np.ascontiguousarray(array))

    def _region(self, prompt: Prompt, height: int, width: int) -> tuple[int, int, int, int]:
        """(x1, y1, x2, y2) of the crop GrabCut works on."""
        if prompt.box is not None:
            x1, y1, x2, y2 = prompt.box
        else:
            positives = [(x, y) for x, y, label in prompt.points if label == 1]
            xs = [p[0] for p in positives]
            ys = [p[1] for p in positives]
            x1, x2, y1, y2 = min(xs), max(xs), min(ys), max(ys)
            if prompt.mask_input is not None and prompt.mask_input.any():
                rows = np.flatnonzero(prompt.mask_input.any(axis=1))
                cols = np.flatnonzero(prompt.mask_input.any(axis=0))
                x1, x2 = min(x1, cols[0]), max(x2, cols[-1] + 1)
                y1, y2 = min(y1, rows[0]), max(y2, rows[-1] + 1)
            # A click says where the object is, not how big: look in a generous window around it.
            pad = max(0.25 * max(height, width), 0.5 * max(x2 - x1, y2 - y1))
            x1, y1, x2, y2 = x1 - pad, y1 - pad, x2 + pad, y2 + pad
        margin = 0.15 * max(x2 - x1, y2 - y1) + 8
        return (
            max(0, int(np.floor(x1 - margin))),
            max(0, int(np.floor(y1 - margin))),
            min(width, int(np.ceil(x2 + margin))),
            min(height, int(np.ceil(y2 + margin))),
        )

    def segment(
        self,
        embedding: Embedding,
        *,
        points: Sequence[Sequence[float]] = (),
        box: Sequence[float] | None = None,
        multimask: bool = True,
        mask_input: Mapping[str, Any] | None = None,
    ) -> list[MaskProposal]:
        if embedding.model != self.model_key:
            raise BackendConfigError(f"embedding was made by {embedding.model}, this backend is {self.model_key}")
        height, width = embedding.image_size
        prompt = build_prompt((height, width), points=points, box=box, multimask=multimask, mask_input=mask_input)
        cx1, cy1, cx2, cy2 = self._region(prompt, height, width)
        crop = embedding.features[cy1:cy2, cx1:cx2]
        scale = min(1.0, self.work_side / max(crop.shape[0], crop.shape[1]))
        work_w = max(1, int(round(crop.shape[1] * scale)))
        work_h = max(1, int(round(crop.shape[0] * scale)))
        work = cv2.resize(crop, (work_w, work_h), interpolation=cv2.INTER_AREA) if scale < 1 else crop.copy()
        work_bgr = np.ascontiguousarray(work[:, :, ::-1])

        def to_work(x: float, y: float) -> tuple[int, int]:
            return (
                int(np.clip(round((x - cx1) * scale), 0, work_w - 1)),
                int(np.clip(round((y - cy1) * scale), 0, work_h - 1)),
            )

        labels = np.full((work_h, work_w), cv2.GC_PR_BGD, dtype=np.uint8)
        if prompt.box is not None:
            # Outside the box is background for sure; inside it probably foreground.
            labels[:] = cv2.GC_BGD
            bx1, by1 = to_work(prompt.box[0], prompt.box[1])
            bx2, by2 = to_work(prompt.box[2], prompt.box[3])
            labels[by1 : by2 + 1, bx1 : bx2 + 1] = cv2.GC_PR_FGD
        else:
            positives = [to_work(x, y) for x, y, label in prompt.points if label == 1]
            xs = [p[0] for p in positives]
            ys = [p[1] for p in positives]
            # Seed "probably foreground" in a small window around the clicks.
            seed = max(6, int(0.06 * max(work_w, work_h)))
            labels[
                max(0, min(ys) - seed) : min(work_h, max(ys) + seed + 1),
                max(0, min(xs) - seed) : min(work_w, max(xs) + seed + 1),
            ] = cv2.GC_PR_FGD
        if prompt.mask_input is not None:
            # The previous mask is the prior inside the region the prompt allows.
            previous = cv2.resize(
                prompt.mask_input[cy1:cy2, cx1:cx2].astype(np.uint8), (work_w, work_h), interpolation=cv2.INTER_NEAREST
            ).astype(bool)
            allowed = labels != cv2.GC_BGD
            labels[allowed & previous] = cv2.GC_PR_FGD
            labels[allowed & ~previous] = cv2.GC_PR_BGD
        for x, y, label in prompt.points:
            cv2.circle(labels, to_work(x, y), self.click_radius, cv2.GC_FGD if label == 1 else cv2.GC_BGD, -1)
        if not (np.isin(labels, (cv2.GC_FGD, cv2.GC_PR_FGD)).any() and np.isin(labels, (cv2.GC_BGD, cv2.GC_PR_BGD)).any()):
            # The prompt covers the whole crop: GrabCut needs both models, so leave a background border.
            labels[[0, -1], :] = cv2.GC_PR_BGD
            labels[:, [0, -1]] = cv2.GC_PR_BGD
        bgd_model = np.zeros((1, 65), np.float64)
        fgd_model = np.zeros((1, 65), np.float64)
        no_rect = (0, 0, 0, 0)  # what OpenCV makes of None: the mask alone starts the models
        cv2.grabCut(work_bgr, labels, no_rect, bgd_model, fgd_model, self.iterations, cv2.GC_INIT_WITH_MASK)
        foreground = np.isin(labels, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.uint8)
        candidates = self._candidates(foreground, prompt, to_work)
        proposals: list[MaskProposal] = []
        for work_mask in candidates:
            full = np.zeros((height, width), dtype=bool)
            if work_mask.any():
                up = cv2.resize(work_mask.astype(np.float32), (cx2 - cx1, cy2 - cy1), interpolation=cv2.INTER_LINEAR)
                full[cy1:cy2, cx1:cx2] = up >= 0.5
            score = _click_agreement(full, prompt)
            if any(rle_utils.iou(p.rle, rle_utils.encode(full)) > 0.98 for p in proposals):
                continue
            proposals.append(MaskProposal(rle_utils.encode(full), score))
            if not prompt.multimask:
                break
        proposals.sort(key=lambda p: -p.score)
        return proposals

    def _candidates(self, foreground: np.ndarray, prompt: Prompt, to_work: Any) -> list[np.ndarray]:
        """Best first: the parts touching positive clicks (holes filled), the same unfilled, the raw cut."""
        from scipy import ndimage

        count, components = cv2.connectedComponents(foreground, connectivity=8)
        clicked = {int(components[y, x]) for x, y in (to_work(px, py) for px, py, lab in prompt.points if lab == 1)}
        clicked.discard(0)
        if clicked:
            touched = np.isin(components, list(clicked))
        elif count > 1:
            sizes = np.bincount(components.ravel())
            sizes[0] = 0
            touched = components == int(np.argmax(sizes))
        else:
            touched = foreground.astype(bool)
        filled = ndimage.binary_fill_holes(touched)
        return [filled, touched, foreground.astype(bool)]


def _click_agreement(mask: np.ndarray, prompt: Prompt) -> float:
    """Share of clicks the mask honours (positives inside, negatives outside); 1 when there are none."""
    if not prompt.points:
        return 1.0 if mask.any() else 0.0
    height, width = mask.shape
    good = 0
    for x, y, label in prompt.points:
        inside = bool(mask[min(height - 1, int(y)), min(width - 1, int(x))])
        good += inside == (label == 1)
    return good / len(prompt.points)


# --- embedding cache ----------------------------------------------------------------------------


def image_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class EmbeddingCache:
    """Embeddings on disk, one .npz per (image hash, model); floating features stored as float16."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, digest: str, model_key: str) -> Path:
        if not all(c in "0123456789abcdef" for c in digest) or not digest:
            raise ValueError(f"image hash must be lowercase hex, got {digest!r}")
        safe_model = "".join(c if c.isalnum() or c in "-_" else "_" for c in model_key)
        return self.root / safe_model / digest[:2] / f"{digest}.npz"

    def get(self, digest: str, model_key: str) -> Embedding | None:
        path = self.path(digest, model_key)
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as data:
                return Embedding(
                    model=str(data["model"]),
                    image_size=(int(data["image_size"][0]), int(data["image_size"][1])),
                    input_size=(int(data["input_size"][0]), int(data["input_size"][1])),
                    features=data["features"],
                )
        except (OSError, ValueError, KeyError):
            # A truncated or foreign file is a cache miss; it is rewritten on the next computation.
            return None

    def put(self, digest: str, embedding: Embedding) -> Path:
        path = self.path(digest, embedding.model)
        path.parent.mkdir(parents=True, exist_ok=True)
        features = embedding.features
        if np.issubdtype(features.dtype, np.floating):
            features = features.astype(np.float16)
        # Write then rename, so a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(
                    handle,
                    model=np.array(embedding.model),
                    image_size=np.array(embedding.image_size),
                    input_size=np.array(embedding.input_size),
                    features=features,
                )
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    def has(self, digest: str, model_key: str) -> bool:
        return self.path(digest, model_key).exists()
