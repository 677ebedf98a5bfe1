"""Mask provenance: how each instance was made (prompts, model and checkpoint, decoder, predicted IoU, the share
painted by hand, the edits), as the editor reports it with a save.

Rules: one entry per instance, aligned with the item's instances ({masklet: [entry | null, ...]}); every field is
checked for shape and bounds against the image (prompts with segmentation.build_prompt, the checks SAM's own
prompts pass) and refused with `ProvenanceError` naming the JSON path; lists are bounded (the edit history keeps
its last MAX_HISTORY entries and counts the dropped ones), so a stored entry stays small whatever the editor sent.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from annotation.core.segmentation import PromptError, build_prompt

SOURCES = ("sam", "classic", "manual", "merged")  # the last model's proposal, or none (painted), or a merge
MODEL_SOURCES = ("sam", "classic")
DECODERS = ("browser", "server")
HISTORY_OPS = ("sam", "classic", "brush", "erase", "polygon", "fill_holes", "merge")
MAX_PROMPTS = 20  # prompt sets kept per instance (the last made the current proposal)
MAX_POINTS = 100  # clicks per prompt set
MAX_HISTORY = 50
MAX_PIXELS = 1 << 40
_HEX64 = re.compile(r"[0-9a-f]{64}")
_KEYS = {"source", "model", "checkpoint_sha256", "decoder", "prompts", "predicted_iou", "painted_share", "history",
         "history_dropped"}


class ProvenanceError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class StoredPrompt:
    """The prompt that made an instance's current proposal, as segmentation backends take it."""

    points: tuple[tuple[float, float, int], ...]
    box: tuple[float, float, float, float] | None
    multimask: bool
    pick: int


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_prompt(value: Any, where: str, image_size: tuple[int, int]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ProvenanceError(where, "must be {points: [[x, y, 1|0], ...], box: [x1, y1, x2, y2] | null}")
    unknown = sorted(set(value) - {"points", "box", "multimask", "pick"})
    if unknown:
        raise ProvenanceError(f"{where}.{unknown[0]}", "is not a prompt field (points, box, multimask, pick)")
    points = value.get("points", [])
    if not isinstance(points, list):
        raise ProvenanceError(f"{where}.points", "must be a list of [x, y, 1|0]")
    if len(points) > MAX_POINTS:
        raise ProvenanceError(f"{where}.points", f"has {len(points)} points, at most {MAX_POINTS} are kept")
    box = value.get("box")
    multimask = value.get("multimask", True)
    if not isinstance(multimask, bool):
        raise ProvenanceError(f"{where}.multimask", f"must be true or false, got {multimask!r}")
    pick = value.get("pick", 0)
    if not isinstance(pick, int) or isinstance(pick, bool) or not 0 <= pick < 16:
        raise ProvenanceError(f"{where}.pick", f"must be the index of the proposal taken (0-15), got {pick!r}")
    try:
        prompt = build_prompt(image_size, points=points, box=box, multimask=multimask)
    except PromptError as exc:
        raise ProvenanceError(f"{where}.{exc.field}", exc.message) from None
    return {"points": [list(p) for p in prompt.points], "box": list(prompt.box) if prompt.box else None,
            "multimask": multimask, "pick": pick}


def _check_history(value: Mapping[str, Any], where: str) -> tuple[list[dict[str, Any]], int]:
    """The edit history, its last MAX_HISTORY entries, and how many earlier ones were dropped."""
    history = value.get("history", [])
    if not isinstance(history, list):
        raise ProvenanceError(f"{where}.history", "must be a list of {op, pixels}")
    dropped = value.get("history_dropped", 0)
    if not isinstance(dropped, int) or isinstance(dropped, bool) or not 0 <= dropped < MAX_PIXELS:
        raise ProvenanceError(f"{where}.history_dropped", f"must be a count (0 or more), got {dropped!r}")
    if len(history) > MAX_HISTORY:
        dropped += len(history) - MAX_HISTORY
        history = history[-MAX_HISTORY:]
    checked_history = []
    for i, entry in enumerate(history):
        at = f"{where}.history[{i}]"
        if not isinstance(entry, Mapping) or entry.get("op") not in HISTORY_OPS:
            raise ProvenanceError(f"{at}.op", f"must be one of {', '.join(HISTORY_OPS)}")
        pixels = entry.get("pixels", 0)
        if not isinstance(pixels, int) or isinstance(pixels, bool) or not 0 <= pixels < MAX_PIXELS:
            raise ProvenanceError(f"{at}.pixels", f"must be the pixels the edit changed (0 or more), got {pixels!r}")
        checked_history.append({"op": entry["op"], "pixels": pixels})
    return checked_history, dropped


def check_entry(value: Any, *, where: str, image_size: tuple[int, int]) -> dict[str, Any] | None:
    """One instance's provenance, normalized; None stays None (an instance made before provenance was kept)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ProvenanceError(where, "must be null or an object {source, model, decoder, prompts, ...}")
    unknown = sorted(set(value) - _KEYS)
    if unknown:
        raise ProvenanceError(f"{where}.{unknown[0]}", f"is not a provenance field ({', '.join(sorted(_KEYS))})")
    source = value.get("source")
    if source not in SOURCES:
        raise ProvenanceError(f"{where}.source", f"must be one of {', '.join(SOURCES)}, got {source!r}")
    out: dict[str, Any] = {"source": source}
    model, checkpoint, decoder = value.get("model"), value.get("checkpoint_sha256"), value.get("decoder")
    if model is not None and (not isinstance(model, str) or not 0 < len(model) <= 50):
        raise ProvenanceError(f"{where}.model", f"must be the model's key (1-50 characters), got {model!r}")
    if checkpoint is not None and (not isinstance(checkpoint, str) or not _HEX64.fullmatch(checkpoint)):
        raise ProvenanceError(f"{where}.checkpoint_sha256", "must be 64 lowercase hex digits (a SHA-256) or null")
    if decoder is not None and decoder not in DECODERS:
        raise ProvenanceError(f"{where}.decoder", f"must be one of {', '.join(DECODERS)} or null, got {decoder!r}")
    prompts = value.get("prompts", [])
    if not isinstance(prompts, list):
        raise ProvenanceError(f"{where}.prompts", "must be a list of prompt sets")
    if len(prompts) > MAX_PROMPTS:
        raise ProvenanceError(f"{where}.prompts", f"has {len(prompts)} prompt sets, at most {MAX_PROMPTS} are kept")
    if source in MODEL_SOURCES:
        for name, given in (("model", model), ("decoder", decoder)):
            if given is None:
                raise ProvenanceError(f"{where}.{name}", f"is needed for a mask made by {source}")
        if not prompts:
            raise ProvenanceError(f"{where}.prompts", f"a mask made by {source} needs the prompt that made it")
    out.update(model=model, checkpoint_sha256=checkpoint, decoder=decoder,
               prompts=[_check_prompt(p, f"{where}.prompts[{i}]", image_size) for i, p in enumerate(prompts)])
    predicted = value.get("predicted_iou")
    if predicted is not None and (not _number(predicted) or not -1.0 <= predicted <= 2.0):
        # SAM's IoU head is a regression: a little outside [0, 1] happens, far outside is not a score.
        raise ProvenanceError(f"{where}.predicted_iou", f"must be a number in [-1, 2] or null, got {predicted!r}")
    out["predicted_iou"] = float(predicted) if predicted is not None else None
    painted = value.get("painted_share", 0.0)
    if not _number(painted) or not 0.0 <= painted <= 1.0:
        raise ProvenanceError(f"{where}.painted_share", f"must be a share in [0, 1], got {painted!r}")
    out["painted_share"] = round(float(painted), 6)
    out["history"], out["history_dropped"] = _check_history(value, where)
    return out


def check_provenance(
    provenance: Any, *, instance_counts: Mapping[str, int], image_sizes: Mapping[str, tuple[int, int]],
) -> dict[str, list[dict[str, Any] | None]]:
    """The whole save's provenance: {masklet: [entry | null, ...]}, one entry per instance of that layer."""
    if not isinstance(provenance, Mapping):
        raise ProvenanceError("provenance", "must be an object {masklet: [entry or null, ...]}")
    out: dict[str, list[dict[str, Any] | None]] = {}
    for name, entries in provenance.items():
        where = f"provenance.{name}"
        if name not in instance_counts:
            raise ProvenanceError(where, f"instances has no layer {name!r}")
        if not isinstance(entries, list) or len(entries) != instance_counts[name]:
            raise ProvenanceError(where, f"must list one entry (null, or how it was made) per instance of "
                                         f"instances.{name} ({instance_counts[name]})")
        out[name] = [check_entry(e, where=f"{where}[{i}]", image_size=image_sizes[name])
                     for i, e in enumerate(entries)]
    return out


def current_prompt(entry: Mapping[str, Any] | None) -> StoredPrompt | None:
    """The prompt that made the instance's model proposal (the last prompt set), or None for a painted or merged
    mask, or one kept without provenance."""
    if not entry or entry.get("source") not in MODEL_SOURCES or not entry.get("prompts"):
        return None
    last = entry["prompts"][-1]
    box = last.get("box")
    return StoredPrompt(tuple((float(x), float(y), int(label)) for x, y, label in last.get("points", [])),
                        tuple(float(v) for v in box) if box else None,  # type: ignore[arg-type]
                        bool(last.get("multimask", True)), int(last.get("pick", 0)))
